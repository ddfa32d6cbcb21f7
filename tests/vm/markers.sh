#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp in both guests; guest a requires MPA markers (mpa_markers=1), b does
# not: markers flow towards a only (RFC 5044 §7.1.1, M bit per direction).
# tools/vm/two-vm-check.sh checks the markers in the pcap with tshark.
set -u
. "$(dirname "$0")/lib.sh"

RDDP_DEV=rddp0
if [ "$RDDP_ROLE" = a ]; then params=mpa_markers=1; else params=; fi

t_barrier up
t_run "modprobe rddp $params" modprobe rddp $params
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev eth0
t_barrier loaded

both a "rping a-server 65000B" rping_server rping_client 10 65000
both b "rping b-server 65000B" rping_server rping_client 10 65000
for tool in ib_write_bw ib_read_bw ib_send_bw; do
	both a "$tool a-server" perf_server perf_client $tool -s 65536 -n 50
done
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
