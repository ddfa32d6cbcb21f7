#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A hostile peer against rddp (tests/verbs/hostile_test.cc): a TCP socket
# speaking MPA through rddp's protocol core sends crafted segments to a
# librdmacm server on rddp0 in the same process; each case checks the
# Terminate the RFCs prescribe, the server's QP state and completions, and
# the guard bytes around every buffer. With mpa_crc=1 (the default) and
# again with mpa_crc=0. Afterwards nothing is left and rddp unloads.
#
# `hostile.sh siw` runs the same cases against upstream siw instead, as a
# conformance tool (not in make check: siw fails most cases and 6.1's iw_cm
# hits a BUG() in cm_close_handler() during the run; Documentation/conformance.md):
#   tools/vm/run.sh --kernel uml --ko build/kmod-uml/rddp.ko tests/vm/hostile.sh siw
# `hostile.sh siw FILTER...` runs the program once per FILTER (the cases
# whose name contains it), each announced by a "# case: FILTER" line, so
# a run that the kernel ends midway shows where (tools/conformance.py).
set -u
. "$(dirname "$0")/lib.sh"

ip=198.51.100.1
bin=/rddp/build/cmake/tests/verbs/rddp_hostile
t_run "hostile peer program is built" test -x "$bin"
setup_dummy
if [ "${1:-}" = siw ]; then
	t_run "modprobe siw" modprobe siw
	t_run "rdma link add siw0" rdma link add siw0 type siw netdev dummy0
	# streamed: siw may take the kernel down midway
	if [ $# -le 1 ]; then
		timeout 600 "$bin" $ip 2>&1 | t_relay siw
		exit 0
	fi
	shift
	shopt -s lastpipe # t_relay in this shell: the checks' numbers go on
	for filter in "$@"; do
		echo "# case: $filter"
		timeout 600 "$bin" $ip "$filter" 2>&1 | t_relay siw
	done
	exit 0
fi
for crc in 1 0; do
	# a 2 s MPA timeout: the cases that wait for it stay short
	t_run "modprobe rddp mpa_crc=$crc" modprobe rddp mpa_crc=$crc mpa_timeout_ms=2000
	t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0
	# --crc=0: the peer does not ask for CRC either, so streams run without
	args=$ip
	[ "$crc" = 0 ] && args="--crc=0 $ip"
	out=$(timeout 600 "$bin" $args 2>&1)
	rc=$?
	t_relay "crc=$crc" <<<"$out"
	t_run "crc=$crc: hostile peer program exits 0" test "$rc" -eq 0
	t_like "crc=$crc: no QP left" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
	t_like "crc=$crc: no cm_id left" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'
	t_run "crc=$crc: rdma link delete" rdma link delete rddp0
	t_run "crc=$crc: rmmod rddp" rmmod rddp
done

# A peer that vanishes: its socket sits in namespace vp behind a veth pair
# whose far end the program takes down (no FIN, no RST). peer_timeout_ms
# 3000 must end the QP in about 3 s; with 0 it stays up (the negative
# control), and tearing it down is still prompt.
vanish_setup() {
	ip netns add vp && ip link add veth0 type veth peer name vp0 netns vp &&
		ip addr add 10.9.0.1/24 dev veth0 && ip link set veth0 up &&
		ip -n vp addr add 10.9.0.2/24 dev vp0 && ip -n vp link set vp0 up &&
		ip -n vp link set lo up
}
t_run "a namespace and a veth pair for the vanishing peer" vanish_setup
for ms in 3000 0; do
	t_run "modprobe rddp peer_timeout_ms=$ms" modprobe rddp peer_timeout_ms=$ms
	t_run "rdma link add rddp1 on veth0" rdma link add rddp1 type rddp netdev veth0
	out=$(timeout 120 "$bin" --vanish vp:vp0:$ms 10.9.0.1 2>&1)
	rc=$?
	t_relay "vanish" <<<"$out"
	t_run "peer_timeout_ms=$ms: hostile peer program exits 0" test "$rc" -eq 0
	t_like "peer_timeout_ms=$ms: no QP left" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
	t_run "peer_timeout_ms=$ms: rdma link delete" timeout 10 rdma link delete rddp1
	t_run "peer_timeout_ms=$ms: rmmod rddp" timeout 30 rmmod rddp
done
