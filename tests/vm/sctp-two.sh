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
# tagged ones placed on arrival, no QP or cm_id left; with a second link
# (run.sh --links 2), multihoming failover over IPv4 and then over IPv6
# (below); `rdma link delete`, rmmod.
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

# ---- Multihoming failover (draft-ietf-rddp-sctp §4.2) ----
# With `multihome on` at both ends each association has two paths, link 1
# (eth0, the device's, impaired) and link 2 (eth1, run.sh --links 2). An
# rping -V and an integrity run go together; guest a cuts link 1 under
# them (the wire drops every frame both ways: /results/link1-down) once
# SCTP has confirmed the second path of every association, waits until
# SCTP has taken the first out of use, sees chunks still arrive, then
# mends it. Both runs must finish with every byte verified, with nothing
# counted or logged as an error.
# Sized so that both runs outlast SCTP's confirmation of the second paths
# (heartbeats; 15-22 s after the start in UML) and the cut (about 12 s):
# they ended 32-55 s after the start.
# The round runs over IPv4 (the harness's addresses), then over IPv6 (ULA
# addresses added here, fd00:1::/64 on link 1 and fd00:2::/64 on link 2):
# a socket bound to the device's IPv6 address adds the netns's other
# global IPv6 addresses (cm_sctp.c, rddp_sctp_bind_more()).
mh_pings=400 mh_qps=4 mh_ops=60
# A round's addresses as programs take them: MH_L1 and MH_P1 this guest's
# and the peer's on link 1 (the device's), MH_L2 and MH_P2 on link 2.
mh_use() { MH_L1=$1 MH_P1=$2 MH_L2=$3 MH_P2=$4; }
# mh_proc ADDR: ADDR as /proc/net/sctp prints it (%pI6: IPv6 in full, each
# group four digits; for the "::" forms used here).
mh_proc() {
	local head tail h=() t=() g out="" i
	[[ $1 == *::* ]] || { echo "$1"; return; }
	head=${1%%::*} tail=${1#*::}
	[ -n "$head" ] && IFS=: read -ra h <<<"$head"
	[ -n "$tail" ] && IFS=: read -ra t <<<"$tail"
	for g in "${h[@]}"; do out+=$(printf '%04x:' "0x$g"); done
	for ((i = ${#h[@]} + ${#t[@]}; i < 8; i++)); do out+="0000:"; done
	for g in "${t[@]}"; do out+=$(printf '%04x:' "0x$g"); done
	echo "${out%:}"
}
mh_integ_server() { timeout 900 "$integrity" --serve "$MH_L1" "$mh_qps"; }
mh_integ_client() {
	timeout 900 "$integrity" --connect "$MH_P1" "$mh_qps" "$mh_ops" 2 "$max_kib"
}
# The peer's path to ADDR in each association: "COUNT STATE ..." (remaddr's
# last field: 0 inactive, 1 potentially failed, 2 active, 3 unconfirmed).
mh_states() { awk -v a="$1" '$1 == a { print $NF }' /proc/net/sctp/remaddr | sort | uniq -c | xargs; }
mh_paths() { awk -v a="$1" '$1 == a' /proc/net/sctp/remaddr | wc -l; }
mh_all() { # ADDR STATE: there are paths to ADDR, each in STATE
	local n
	n=$(mh_paths "$1")
	[ "$n" -gt 0 ] && [ "$(awk -v a="$1" -v s="$2" '$1 == a && $NF == s' /proc/net/sctp/remaddr | wc -l)" -eq "$n" ]
}
mh_none() { ! awk -v a="$1" -v s="$2" '$1 == a && $NF == s { f = 1 } END { exit !f }' /proc/net/sctp/remaddr; }
# Every association lists both addresses of each end (INIT and INIT ACK
# carried them), and every connected QP's local address is the device's.
mh_addrs() {
	local l n=0
	# (a here-string: the guest has no /dev/fd for process substitution)
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		n=$((n + 1))
		echo "$l" | cut -c1-160
		for a in "$MH_L1" "$MH_L2" "$MH_P1" "$MH_P2"; do
			a=$(mh_proc "$a")
			[[ $l == *" $a "* || $l == *" *$a "* ]] || { echo "no $a"; return 1; }
		done
	done <<<"$(tail -n +2 /proc/net/sctp/assocs)"
	[ "$n" -gt 0 ] || return 1
	$ctl -j qp show dev rddp0 | jq -e --arg a "$MH_L1" \
		'[.[] | select(.connected and .state == "RTS")] | length > 0 and all(.local_addr == $a)'
}
mh_cut() { # PID...: the transfers, still running when link 1 is cut
	local t0 rx0 rx1 ok=1 p1 p2
	p1=$(mh_proc "$MH_P1") p2=$(mh_proc "$MH_P2")
	t0=$SECONDS
	while [ $((SECONDS - t0)) -lt 60 ]; do
		[ "$(mh_paths "$p2")" -ge $((mh_qps + 1)) ] && mh_all "$p2" 2 && break
		sleep 0.1
	done
	echo "before the cut: path 1 $(mh_states "$p1"), path 2 $(mh_states "$p2")"
	mh_addrs || { echo "not multihomed"; return 1; }
	kill -0 "$@" 2>/dev/null || { echo "a transfer ended before the cut"; return 1; }
	rx0=$(rddp_counter sctp_rx_chunks)
	: >/results/link1-down
	t0=$SECONDS
	echo "link 1 cut $((t0 - t_start)) s after the transfers started"
	while [ $((SECONDS - t0)) -lt 60 ]; do
		mh_none "$p1" 2 && break
		sleep 0.1
	done
	echo "$((SECONDS - t0)) s after the cut: path 1 $(mh_states "$p1"), path 2 $(mh_states "$p2")"
	mh_none "$p1" 2 || ok=0
	sleep 5
	rx1=$(rddp_counter sctp_rx_chunks)
	echo "chunks received while link 1 was cut: $((rx1 - rx0))"
	cp /proc/net/sctp/remaddr "$RDDP_RESULTS/sctp-failover-remaddr.txt"
	echo "while cut: path 2 $(mh_states "$p2")"
	rm -f /results/link1-down
	echo "link 1 mended $((SECONDS - t_start)) s after the transfers started"
	# Chunks kept arriving, and no path over link 2 was given up (state 0).
	# A path of link 2 may be "potentially failed" (1) a moment: on a
	# loaded host a heartbeat or retransmission can miss its 100-300 ms
	# timeout (seen at a load average of 6); SCTP then still sends there.
	[ "$ok" = 1 ] && [ "$rx1" -gt "$rx0" ] && mh_none "$p2" 0
}
mh_server() {
	local ip rp irc rrc
	mh_integ_server >/tmp/mh-integ-s.log 2>&1 &
	ip=$!
	RDDP_LOCAL_IP=$MH_L1 rping_server "$mh_pings" 4096 >/tmp/mh-rping-s.log 2>&1 &
	rp=$!
	t_port_listening 7999 && t_port_listening 7174 && sleep 1 && : >/results/mh-serving
	wait "$ip"
	irc=$?
	wait "$rp"
	rrc=$?
	tail -2 /tmp/mh-integ-s.log /tmp/mh-rping-s.log
	[ "$irc" = 0 ] && [ "$rrc" = 0 ]
}
mh_client() {
	local ip rp crc irc rrc t_start
	t_start=$SECONDS
	while [ $((SECONDS - t_start)) -lt 60 ]; do
		[ -e /results/mh-serving ] && break
		sleep 0.1
	done
	t_start=$SECONDS
	mh_integ_client >/tmp/mh-integ-c.log 2>&1 &
	ip=$!
	RDDP_PEER_IP=$MH_P1 rping_client "$mh_pings" 4096 >/tmp/mh-rping-c.out 2>&1 &
	rp=$!
	mh_cut "$ip" "$rp"
	crc=$?
	wait "$ip"
	irc=$?
	wait "$rp"
	rrc=$?
	echo "both ended $((SECONDS - t_start)) s after they started"
	echo "integrity (rc $irc): $(tail -1 /tmp/mh-integ-c.log)"
	echo "rping (rc $rrc): $(tail -1 /tmp/mh-rping-c.out)"
	[ "$crc" = 0 ] && [ "$irc" = 0 ] && [ "$rrc" = 0 ] &&
		grep -Eq '^integrity: [1-9][0-9]* ok, 0 bad' /tmp/mh-integ-c.log
}
# mh_round NAME: the failover with the addresses mh_use set.
mh_round() {
	local log0
	log0=$(dmesg | grep -c rddp)
	rm -f /results/mh-serving
	t_barrier "multihome-$1"
	both b "$1: rping -V and integrity survive link 1 cut under them (SCTP failover)" \
		mh_server mh_client
	assocs "failover-$1"
	t_run "$1: no framing error, Terminate or failed setup counted" no_errors
	t_run "$1: rddp logged nothing during the failover" \
		sh -c "dmesg | grep rddp | tail -n +$((log0 + 1)) | tee /dev/stderr | grep -q . && exit 1 || exit 0"
}
# Both guests' ULA addresses on both links (no duplicate address
# detection: the addresses are usable at once).
mh6_addrs() {
	local me=1
	[ "$RDDP_ROLE" = b ] && me=2
	ip -6 addr add "fd00:1::$me/64" dev eth0 nodad &&
		ip -6 addr add "fd00:2::$me/64" dev eth1 nodad && ip -6 addr show | grep 'inet6 fd00'
}
if [ -n "${RDDP_LOCAL_IP2:-}" ]; then
	t_run "dev set rddp0 multihome on" $ctl dev set rddp0 multihome on
	t_like "dev show: multihome on" ' transport sctp multihome on$' $ctl dev show rddp0
	mh_use "$RDDP_LOCAL_IP" "$RDDP_PEER_IP" "$RDDP_LOCAL_IP2" "$RDDP_PEER_IP2"
	mh_round multihoming
	if [ "$RDDP_ROLE" = a ]; then
		mh_use fd00:1::1 fd00:1::2 fd00:2::1 fd00:2::2
	else
		mh_use fd00:1::2 fd00:1::1 fd00:2::2 fd00:2::1
	fi
	t_run "IPv6 addresses on both links (fd00:1::/64, fd00:2::/64)" mh6_addrs
	mh_round "multihoming over IPv6"
	t_run "dev set rddp0 multihome off" $ctl dev set rddp0 multihome off
else
	t_skip "multihoming failover" "one link (run.sh --links 2 gives two)"
fi
t_run "no QP left" no_res qp
t_run "no cm_id left" no_res cm_id
t_barrier done
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" timeout 60 rmmod rddp
t_barrier finished
