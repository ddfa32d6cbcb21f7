#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reload stress for the UML lane's rmmod livelock (Documentation/testing.md,
# tools/kernel/uml/6.1/0005-*): N times load rddp, add a link on dummy0, run an
# rping -V pair over it, delete the link and unload rddp. Not part of
# make check; run it with tools/vm/uml-reload-stress.sh (host side), which
# watches the progress this writes and catches a guest that stops.
# Arguments: N (default 50), pings per iteration (default 10).
. /rddp/tests/vm/lib.sh

n=${1:-50}
pings=${2:-10}
ip=198.51.100.1
progress=$RDDP_RESULTS/progress.txt
t_run "dummy0 up" setup_dummy

# One iteration; prints what failed. Every step is bounded, so a hang of
# rddp shows as a failed iteration, and only a stuck guest stops the loop.
iteration() {
	timeout 60 modprobe rddp || { echo "modprobe failed"; return 1; }
	timeout 60 rdma link add rddp0 type rddp netdev dummy0 || { echo "link add failed"; return 1; }
	rping -s -a $ip -C "$pings" -S 4096 -V >/tmp/rping-s.log 2>&1 &
	local spid=$! rc=0
	# A client that comes before the server listens is refused: again.
	for try in 1 2 3 4 5; do
		sleep 0.5
		rping_run 60 -c -a $ip -C "$pings" -S 4096 -V -v >/tmp/rping-c.log 2>&1 || rc=1
		grep -q 'RDMA_CM_EVENT_REJECTED' /tmp/rping-c.log || break
		rc=0
	done
	timeout 30 sh -c "while kill -0 $spid 2>/dev/null; do sleep 0.1; done" || { kill "$spid"; rc=1; }
	wait "$spid" || rc=1
	[ "$(grep -c '^ping data: ' /tmp/rping-c.log)" -eq "$pings" ] || rc=1
	[ $rc -eq 0 ] || { echo "rping failed"; cat /tmp/rping-c.log /tmp/rping-s.log; }
	timeout 60 rdma link delete rddp0 || { echo "link delete failed"; return 1; }
	echo "$(date +%s) $i rmmod" >>"$progress"
	timeout 120 rmmod rddp || { echo "rmmod failed"; return 1; }
	return $rc
}

for ((i = 1; i <= n; i++)); do
	echo "$(date +%s) $i start" >>"$progress"
	out=$(iteration 2>&1)
	rc=$?
	echo "$(date +%s) $i done rc=$rc" >>"$progress"
	if [ $rc -ne 0 ]; then
		t_fail "iteration $i" "$out"
		grep -qw '^rddp' /proc/modules && break
	fi
done
t_like "$n load/traffic/unload iterations" "^$n\$" sh -c "grep -c ' done rc=0' $progress"
