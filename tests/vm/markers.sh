#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp in both guests; guest a requires MPA markers (mpa_markers=1), b does
# not: markers flow towards a only (RFC 5044 §7.1.1, M bit per direction).
# tools/vm/two-vm-check.sh checks the markers in the pcap with tshark.
set -u
. "$(dirname "$0")/lib.sh"

me=$RDDP_LOCAL_IP peer=$RDDP_PEER_IP
if [ "$RDDP_ROLE" = a ]; then params=mpa_markers=1; else params=; fi

t_barrier up
t_run "modprobe rddp $params" modprobe rddp $params
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev eth0
t_barrier loaded

rping_server() { timeout 120 rping -s -a "$me" -C "$1" -S "$2" -V; }
rping_client() {
	sleep 2
	timeout 120 rping -c -a "$peer" -C "$1" -S "$2" -V -v >/tmp/rping-c.log 2>&1
	local rc=$?
	cat /tmp/rping-c.log
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ping data: ' /tmp/rping-c.log)" -eq "$1" ]
}
perf_server() { timeout 120 "$@" -R -d rddp0 -F; }
perf_client() { sleep 2; timeout 120 "$@" -R -d rddp0 -F "$peer"; }
both() { # SERVER-ROLE NAME SERVER-FN CLIENT-FN ARGS...
	local srole=$1 name=$2 sfn=$3 cfn=$4
	shift 4
	if [ "$RDDP_ROLE" = "$srole" ]; then
		t_run "$name (server)" "$sfn" "$@"
	else
		t_run "$name (client)" "$cfn" "$@"
	fi
	t_barrier "$name" 180
}
both a "rping a-server 65000B" rping_server rping_client 10 65000
both b "rping b-server 65000B" rping_server rping_client 10 65000
for tool in ib_write_bw ib_read_bw ib_send_bw; do
	both a "$tool a-server" perf_server perf_client $tool -s 65536 -n 50
done
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
