#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA traffic between two rddp endpoints in one guest (dummy0): rping with
# payload verification and perftest, then no resources left and rmmod.
# Arguments: extra module parameters for rddp (e.g. mpa_markers=1).
. /rddp/tests/vm/lib.sh

ip=198.51.100.1
t_run "modprobe rddp $*" modprobe rddp "$@"
setup_dummy
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0

# rping -V: the client verifies the data it reads back (RFC 5040 Read,
# Write and Send all take part in one rping iteration).
rping_pair() { # SIZE COUNT
	rping -s -a $ip -C "$2" -S "$1" -V >/tmp/rping-s.log 2>&1 &
	local spid=$!
	sleep 1
	timeout 60 rping -c -a $ip -C "$2" -S "$1" -V
	local rc=$?
	wait "$spid"
	local src=$?
	cat /tmp/rping-s.log
	[ "$rc" -eq 0 ] && [ "$src" -eq 0 ]
}
for size in 23 4096 65000; do
	t_run "rping -V ${size} B x 20" rping_pair "$size" 20
done

t_like "no QP left after rping" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
