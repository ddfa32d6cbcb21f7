#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A connected peer that vanishes (no FIN, no RST), stops reading, or stops
# inside an FPDU costs rddp a bounded time: the device's peer_timeout_ms
# (issue 11). The peer is rddp_hostile's TCP socket speaking MPA
# (tests/verbs/hostile_test.cc --liveness), in namespace vp behind a veth
# pair; taking its end down makes it vanish. With the bound at 3000 ms
# each QP is in ERROR after about 3 s with every WQE flushed and the
# cm_id told; with 0 each is still up after 5.5 s (the bound is what ends
# them), and ibv_dereg_mr, rdma_destroy_qp, the process's exit and
# `rdma link delete` return at once all the same.
set -u
. "$(dirname "$0")/lib.sh"

bin=/rddp/build/cmake/tests/verbs/rddp_hostile
ctl=/rddp/build/cmake/userspace/rddpctl/rddpctl
addr=10.9.0.1
t_run "hostile peer program is built" test -x "$bin"

no_qp() { t_like "$1: no QP left" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'; }
no_cm_id() { t_like "$1: no cm_id left" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'; }
show_bound() { # MS: rddp1's setting, in text and JSON
	t_like "dev show: peer-timeout-ms $1" " peer-timeout-ms $1 transport tcp multihome off\$" $ctl dev show rddp1
	t_like "-j dev show: peer_timeout_ms $1" "^$1\$" sh -c "$ctl -j dev show rddp1 | jq -e '.[0].peer_timeout_ms'"
}

t_expect_fail "modprobe rddp peer_timeout_ms=500 is refused" modprobe rddp peer_timeout_ms=500
t_run "modprobe rddp peer_timeout_ms=3000" modprobe rddp peer_timeout_ms=3000
vanish_setup() {
	ip netns add vp && ip link add veth0 type veth peer name vp0 netns vp &&
		ip addr add $addr/24 dev veth0 && ip link set veth0 up &&
		ip -n vp addr add 10.9.0.2/24 dev vp0 && ip -n vp link set vp0 up &&
		ip -n vp link set lo up
}
t_run "a namespace and a veth pair for the peer" vanish_setup
t_run "rdma link add rddp1 on veth0" rdma link add rddp1 type rddp netdev veth0
show_bound 3000
t_like "dev set peer-timeout-ms 999: refused" 'takes 0 \(off\) or 1000' \
	sh -c "$ctl dev set rddp1 peer-timeout-ms 999; echo exit \$?"

for ms in 3000 0; do
	t_run "dev set rddp1 peer-timeout-ms $ms" $ctl dev set rddp1 peer-timeout-ms $ms
	show_bound $ms
	if [ "$ms" = 0 ]; then
		# The process exits while its QP's peer is gone with a Write
		# outstanding: the exit must not wait for the peer.
		out=$(timeout 60 "$bin" --exit-gone vp:vp0:0:rddp1 $addr 2>&1)
		rc=$?
		read -r after _ </proc/uptime
		t_relay "exit" <<<"$out"
		ip -n vp link set vp0 up
		t_run "exit: the program ran to its exit" test "$rc" -eq 0
		at=$(sed -n 's/^# exit at uptime //p' <<<"$out")
		t_run "exit: over within 3 s (exit at $at, back at $after)" \
			awk -v a="${at:-0}" -v b="$after" 'BEGIN { exit !(a > 0 && b - a < 3) }'
		no_qp exit
		no_cm_id exit
	fi
	out=$(timeout 180 "$bin" --liveness vp:vp0:$ms:rddp1 $addr 2>&1)
	rc=$?
	t_relay "bound $ms" <<<"$out"
	t_run "bound $ms: the program exits 0" test "$rc" -eq 0
	no_qp "bound $ms"
	no_cm_id "bound $ms"
done
# With the bound off, the program's last case deleted rddp1 while its
# QP's peer was gone.
t_like "rddp1 is gone" '^$' sh -c 'rdma link show | grep rddp1 || true'
t_run "rmmod rddp" timeout 30 rmmod rddp
