#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DDP over SCTP (draft-ietf-rddp-sctp-00) between two guests, both rddp:
# tools/vm/two-vm-check.sh's `sctp` run, under User-Mode Linux over a wire
# that loses, reorders, duplicates and delays frames (uml-wire.py), so
# SCTP delivers unordered chunks (U=1, §7) out of order and rddp must put
# them back in DDP-SSN order. Both devices use transport sctp (the active
# side's setting decides):
#   rping -V, PINGS iterations, server in guest a, then in guest b;
#   rddp_integrity --serve in guest b, --connect from guest a on QPS QPs
#   (Write, Read, Send echoed, ordered and fenced exchanges, verified);
# then: no framing error or Terminate counted, chunks both ways, some held
# for their turn (out-of-order arrivals, with the impaired wire) and some
# tagged ones placed on arrival, no QP or cm_id left, `rdma link delete`,
# rmmod.
# Arguments: [QPS] [PINGS] [MAX_KIB] [EXPECT_HELD] (default 16, 50, 1024,
# 1: the wire reorders, so sctp_rx_held and sctp_rx_placed_early must have
# moved).
set -u
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034 # lib.sh's both() names the device with it
RDDP_DEV=rddp0
qps=${1:-16} pings=${2:-50} max_kib=${3:-1024} expect_held=${4:-1}
integrity=/rddp/build/cmake/tests/verbs/rddp_integrity
ctl=/rddp/build/cmake/userspace/rddpctl/rddpctl

# A lost chunk costs SCTP a retransmission timeout: generous bounds.
# shellcheck disable=SC2034 # lib.sh's rping_server and rping_client read it
RPING_BOUND=400
integ_server() { timeout 900 "$integrity" --serve "$RDDP_LOCAL_IP" "$qps"; }
integ_client() { timeout 900 "$integrity" --connect "$RDDP_PEER_IP" "$qps" 6 1 "$max_kib"; }

# Counters that must stay 0: SCTP and the draft's rules keep the stream
# whole, whatever the wire does.
no_errors() {
	local c v bad=0
	for c in rx_framing_errors term_tx_rdmap term_tx_ddp term_tx_mpa term_rx_rdmap \
		term_rx_ddp term_rx_mpa conn_failures; do
		v=$(rddp_counter "$c") || return 1
		echo "$c $v"
		[ "$v" = 0 ] || bad=1
	done
	return $bad
}
# The associations, for the record.
assocs() { cat /proc/net/sctp/assocs /proc/net/sctp/snmp >"$RDDP_RESULTS/sctp-$1.txt" 2>&1; }

t_barrier up
# sctp.ko and the cookie's HMAC loaded before any listen: rddp listens on
# TCP first, and both() starts the client once a TCP listener is there.
t_run "modprobe sctp hmac md5" modprobe -a sctp hmac md5
t_run "modprobe rddp" modprobe rddp
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev eth0
t_run "rddpctl dev set rddp0 transport sctp" $ctl dev set rddp0 transport sctp
t_like "rddpctl dev show: transport sctp" 'transport sctp' $ctl dev show rddp0
t_barrier ready
both a "rping -V over SCTP, $pings x 4 KiB, server in a" rping_server rping_client "$pings" 4096
both b "rping -V over SCTP, $pings x 60000 B, server in b" rping_server rping_client "$pings" 60000
assocs rping
both b "integrity over SCTP on $qps QPs" integ_server integ_client
assocs integrity
t_run "no framing error, Terminate or failed setup counted" no_errors
t_run "DATA chunks sent (sctp_tx_chunks > 1000)" rddp_counter_above sctp_tx_chunks 1000
t_run "DATA chunks received (sctp_rx_chunks > 1000)" rddp_counter_above sctp_rx_chunks 1000
if [ "$expect_held" = 1 ]; then
	# Each side's receiver alone may see few: count both.
	t_barrier counted
	echo "$(rddp_counter sctp_rx_held)" >"/results/held-$RDDP_ROLE"
	echo "$(rddp_counter sctp_rx_placed_early)" >"/results/placed-$RDDP_ROLE"
	t_barrier held
	sum_both() {
		local a b
		a=$(cat "/results/$1-a") b=$(cat "/results/$1-b")
		echo "$1: a $a, b $b"
		[ $((a + b)) -gt 0 ]
	}
	[ "$RDDP_ROLE" = a ] &&
		t_run "chunks arrived out of DDP-SSN order and were held (sctp_rx_held)" sum_both held
	# Writes and Read Responses among them were placed on arrival
	# (RFC 5041 §5.3), and rping -V and the integrity program verified.
	[ "$RDDP_ROLE" = a ] &&
		t_run "tagged chunks placed on arrival (sctp_rx_placed_early)" sum_both placed
fi
t_run "no QP left" no_res qp
t_run "no cm_id left" no_res cm_id
t_barrier done
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" timeout 60 rmmod rddp
t_barrier finished
