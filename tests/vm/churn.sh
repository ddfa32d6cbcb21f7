#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Churn and removal under load, one guest (dummy0), both ends on rddp0:
#   rddp_churn ... cycles: CYCLES connect / Write + Send + Read checked /
#     disconnect cycles in one process, every object new each time, the
#     connection ended in turn by either side's rdma_disconnect() and by the
#     client destroying its QP and cm_id;
#   PINGS more cycles as separate programs: `rping -c -C 1 -V` against one
#     persistent `rping -s -P`;
#   rddp_integrity on QPS concurrent QPs (twice that many QPs in all);
# then nothing left in `rdma res` and no TCP socket left behind (as many
# allocated as before); then the device goes away under traffic,
# by `rdma link delete` and by `rmmod rddp` alone: rddp_churn ... live
# must see DEVICE_REMOVAL, stop and exit, and the module must unload.
# kmemleak is off under User-Mode Linux (Documentation/testing.md): leaks
# show here as objects in `rdma res`, the core's "RESTRACK detected leak"
# when the device unregisters, rddp's own object counts and TCP sockets.
# Arguments: [CYCLES] [PINGS] [QPS] (default 1000, 50, 256 under User-Mode
# Linux; 300, 20, 64 in qemu, whose TCG runs it many times slower: there
# the debug kernel's kmemleak looks for leaks, RDDP_CHECK_QEMU_DEBUG=all).
set -u
. "$(dirname "$0")/lib.sh"

ip=198.51.100.1
churn=/rddp/build/cmake/tests/verbs/rddp_churn
integrity=/rddp/build/cmake/tests/verbs/rddp_integrity
case ${RDDP_KERNEL:-} in
uml*) defaults=(1000 50 256) ;;
*) defaults=(300 20 64) ;;
esac
cycles=${1:-${defaults[0]}} pings=${2:-${defaults[1]}} qps=${3:-${defaults[2]}}

t_run "modprobe rddp" modprobe rddp
setup_dummy
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0

# Full TCP sockets allocated (not yet destroyed), kernel ones included;
# TIME_WAIT entries are counted apart (sockstat's tw).
tcp_socks() {
	awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "alloc") print $(i + 1) }' \
		/proc/net/sockstat
}
tcp_base=$(tcp_socks)

# relay LOG PREFIX RC: a program's TAP as checks, and its exit status.
relay() {
	t_relay "$2" <"$1"
	[ "$3" -eq 0 ] || t_fail "$2: exited with $3" "$(grep -v '^ok' "$1" | tail -15)"
}

timeout 900 "$churn" $ip cycles "$cycles" 1 >/tmp/churn.log 2>&1
relay /tmp/churn.log "rddp_churn" $?

rping_cycles() { # N
	local i spid base ok=0 t0=$SECONDS
	base=" $(_t_listeners | tr '\n' ' ') "
	rping -s -P -a $ip -p 7100 -S 4096 -V >/tmp/rping-s.log 2>&1 &
	spid=$!
	t_listening "$base" "$spid" || { echo "the server did not listen"; return 1; }
	for ((i = 0; i < $1; i++)); do
		if rping_run 30 -c -a $ip -p 7100 -C 1 -S 4096 -V -v >/tmp/rping-c.log 2>&1 &&
			grep -q '^ping data: ' /tmp/rping-c.log; then
			ok=$((ok + 1))
		elif [ ! -e /tmp/rping-c.failed ]; then
			cp /tmp/rping-c.log /tmp/rping-c.failed
		fi
	done
	kill "$spid"
	wait "$spid"
	echo "$ok of $1 rping connections verified in $((SECONDS - t0)) s"
	# The first client that failed, and the server, say why.
	[ -e /tmp/rping-c.failed ] && tail -5 /tmp/rping-c.failed /tmp/rping-s.log | cut -c1-200
	[ "$ok" -eq "$1" ]
}
t_run "$pings rping -C 1 -V connections against one rping -s -P" rping_cycles "$pings"

integrity() {
	timeout 900 "$integrity" $ip "$qps" 2 7 >/tmp/int.log 2>&1
	local rc=$?
	grep -v '^ok' /tmp/int.log | tail -5
	return "$rc"
}
t_like "data integrity on $qps concurrent QP pairs" ' 0 bad' integrity

for type in qp cm_id cq mr pd; do
	t_run "no $type left (rdma res show $type)" no_res $type
done
res_zero() { # every count in rddp0's `rdma res` summary is 0
	local out
	out=$(rdma res show | grep 'rddp0:') || return 1
	echo "$out"
	! grep -Eq '[a-z_]+ [1-9]' <<<"$out"
}
t_run "rdma res: every count of rddp0 is 0" res_zero
t_like "rddpctl: no QP on rddp0" '"qps": ?0' /rddp/build/cmake/userspace/rddpctl/rddpctl -j dev show rddp0
# Closed connections leave TIME_WAIT entries only: the TCP sockets
# allocated go back to what there was before (a few seconds for the last
# FINs; a closed socket lives on until TCP is done with it).
tcp_back() {
	local i now
	for ((i = 0; i < 150; i++)); do
		now=$(tcp_socks)
		[ "$now" -le "$tcp_base" ] && break
		sleep 0.2
	done
	echo "TCP sockets allocated: $tcp_base before, $now after"
	grep TCP /proc/net/sockstat
	awk 'NR > 1 && $4 != "06" && $4 != "0A"' /proc/net/tcp
	[ "$now" -le "$tcp_base" ]
}
t_run "no TCP socket left behind (sockstat: as many allocated as before)" tcp_back

# The device goes away under traffic: rdma_cm reports DEVICE_REMOVAL,
# the core disassociates the program's verbs objects, the program stops
# its traffic, releases what it holds and exits.
live_start() { # the program in the background (live_pid), as this shell's child
	"$churn" $ip live 16 >/tmp/live.log 2>&1 &
	live_pid=$!
}
live_running() { # it says its traffic runs (60 s)
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q '^# traffic running' /tmp/live.log && return 0
		kill -0 "$live_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat /tmp/live.log
	return 1
}
live_end() { # NAME: the program exits (120 s), its checks relayed
	local i rc
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$live_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$live_pid" 2>/dev/null; then
		kill -9 "$live_pid"
		t_fail "$1: the program exits after the removal" "$(tail -15 /tmp/live.log)"
	fi
	wait "$live_pid"
	rc=$?
	relay /tmp/live.log "$1" "$rc"
}

live_start
t_run "live: 16 connections with traffic" live_running
t_run "rdma link delete under traffic" timeout 120 rdma link delete rddp0
live_end "link delete under traffic"
t_run "rmmod rddp after it" rmmod rddp

t_run "modprobe rddp again" modprobe rddp
t_run "rdma link add rddp0 again" rdma link add rddp0 type rddp netdev dummy0
live_start
t_run "live: 16 connections with traffic, again" live_running
t_run "rmmod rddp under traffic" timeout 120 rmmod rddp
live_end "rmmod under traffic"
t_run "no RDMA device left" sh -c '! ls /sys/class/infiniband/ | grep -q .'
t_run "no rddp module left" sh -c '! grep -q "^rddp " /proc/modules'

# And the module works as before.
t_run "modprobe rddp a third time" modprobe rddp
t_run "rdma link add rddp0 a third time" rdma link add rddp0 type rddp netdev dummy0
t_like "rddp_churn: 10 cycles after the removals" '^ok ' timeout 120 "$churn" $ip cycles 10 2
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
