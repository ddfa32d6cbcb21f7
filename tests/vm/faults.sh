#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp in both guests over a link that loses, reorders, duplicates and
# delays frames: tools/vm/two-vm-check.sh's `faults` run has
# tools/vm/uml-wire.py impair both directions (--loss 2 --reorder 5
# --duplicate 1 --delay 5, netem's "loss 2% reorder 5% duplicate 1% delay
# 5ms") and checks that it did. TCP repairs the stream, so iWARP must see a
# clean one: every transfer verifies, no CRC or framing error, no
# Terminate. With CRC on and then off (without CRC, TX lends pages to TCP
# until they are acknowledged: retransmissions send them again):
#   rping -V, PINGS iterations, server in guest a;
#   rddp_integrity --serve in guest b, --connect from guest a on QPS QPs
#   (Write, Read, Send echoed, ordered and fenced exchanges; the client
#   reads back and compares everything);
# then no QP or cm_id left and `rdma link delete`. The module's parameter
# stays; `rddpctl dev set rddp0 crc off` switches CRC off for the second
# round.
# Arguments: [QPS] [PINGS] [MAX_KIB]: QPs, rping iterations, the integrity
# program's largest transfer (default 64, 100 and 1024: under this loss
# one TCP connection moves ~1 MB/s, and pair 0's 8 MiB exchanges alone took
# a minute per round).
set -u
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034 # lib.sh's both() names the device with it
RDDP_DEV=rddp0
qps=${1:-64} pings=${2:-100} max_kib=${3:-1024}
integrity=/rddp/build/cmake/tests/verbs/rddp_integrity

# A lost segment costs TCP at least a 200 ms retransmission timeout: the
# bounds are larger than lib.sh's.
# shellcheck disable=SC2034 # lib.sh's rping_server and rping_client read it
RPING_BOUND=400
integ_server() { timeout 900 "$integrity" --serve "$RDDP_LOCAL_IP" "$qps"; }
integ_client() {
	timeout 900 "$integrity" --connect "$RDDP_PEER_IP" "$qps" 6 1 "$max_kib"
	local rc=$?
	# The sockets left behind, for the record (a closed connection's
	# socket retransmits its FIN until the peer has it: rddp_sock_release).
	ss -tanoie >"$RDDP_RESULTS/ss-client-crc$crc.txt"
	return $rc
}

# rddp0's counters that must stay 0 on a stream TCP has repaired.
no_errors() {
	local c v bad=0
	for c in rx_crc_errors rx_marker_errors rx_framing_errors term_tx_rdmap term_tx_ddp \
		term_tx_mpa term_rx_rdmap term_rx_ddp term_rx_mpa conn_failures; do
		v=$(rddp_counter "$c") || return 1
		echo "$c $v"
		[ "$v" = 0 ] || bad=1
	done
	return $bad
}

t_barrier up
# The setup bound (TCP connect plus MPA Request/Reply) is 10 s by default;
# here a SYN or an MPA frame is lost, and retransmitted after 1, 2, 4 ...
# s, on one of 64 connections that a UML guest sets up at once: one of them
# ran past 10 s (UNREACHABLE -110, conn_failures 1). A user of a lossy link
# raises the bound the same way.
t_run "modprobe rddp mpa_timeout_ms=60000" modprobe rddp mpa_timeout_ms=60000
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev eth0
for crc in 1 0; do
	if [ "$crc" = 0 ]; then
		t_run "rddpctl dev set rddp0 crc off" /rddp/build/cmake/userspace/rddpctl/rddpctl \
			dev set rddp0 crc off
	fi
	t_barrier "ready-$crc"
	both a "rping -V ${pings} x 4 KiB, mpa_crc=$crc" rping_server rping_client "$pings" 4096
	both b "integrity on $qps QPs, mpa_crc=$crc" integ_server integ_client
	t_run "mpa_crc=$crc: no CRC, framing or Terminate counted" no_errors
	if [ "$RDDP_ROLE" = a ]; then
		# With CRC, payload is copied, never lent to TCP; without, the
		# client's Writes and Sends went by reference (zero copy).
		if [ "$crc" = 1 ]; then
			t_like "mpa_crc=1: CRC on (no zero-copy TX)" '^0$' rddp_counter tx_zcopy_bytes
		else
			t_run "mpa_crc=0: CRC off (TX lent pages to TCP, tx_zcopy_bytes > 1 MiB)" \
				rddp_counter_above tx_zcopy_bytes 1048576
		fi
	fi
	t_run "mpa_crc=$crc: no QP left" no_res qp
	t_run "mpa_crc=$crc: no cm_id left" no_res cm_id
	# TCP's own counters (retransmissions, aborts), for the record.
	cat /proc/net/netstat /proc/net/snmp >"$RDDP_RESULTS/netstat-crc$crc.txt"
done
t_run "rdma link delete" rdma link delete rddp0
# After 64 QPs over the impaired link (the run that once livelocked UML
# 6.1 in rmmod, fixed by tools/kernel/uml/6.1/0005: Documentation/testing.md).
t_run "rmmod rddp" timeout 60 rmmod rddp
t_barrier finished
