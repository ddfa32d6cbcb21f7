#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interop with the upstream siw driver: guest a runs rddp, guest b siw
# (they never share a kernel), joined by virtio-net (192.0.2.1 <-> .2).
# The guests may boot different kernels (two-vm-check.sh debug: rddp on the
# debug kernel, siw on Debian's): each loads its module from its own
# /lib/modules, and `both` (lib.sh) starts a client only once the server
# in the other guest listens, however slow its kernel.
# rping -V and perftest in both directions, then with rddp's mpa_crc=0 and
# mpa_rev=1. tools/vm/two-vm-check.sh checks the pcap of the link.
set -u
. "$(dirname "$0")/lib.sh"

if [ "$RDDP_ROLE" = a ]; then RDDP_DEV=rddp0; else RDDP_DEV=siw0; fi

load() { # module parameters for rddp
	if [ "$RDDP_ROLE" = a ]; then
		modprobe rddp "$@" && rdma link add rddp0 type rddp netdev eth0
	else
		modprobe siw && rdma link add siw0 type siw netdev eth0
	fi
}
unload() {
	if [ "$RDDP_ROLE" = a ]; then
		rdma link delete rddp0 && rmmod rddp
	fi
}
# rddp's parameters change; siw keeps its defaults.
reload() { [ "$RDDP_ROLE" = a ] || return 0; unload && load "$@"; }

# A connection the server side refuses: the client fails cleanly in time.
perf_client_refused() { ! perf_client "$@"; }
perf_server_refused() { timeout 30 "$@" -R -d "$RDDP_DEV" -F; true; }

t_barrier up
# Guest b's siw is always tools/vm/build-siw.sh's (run.sh --ko-b), installed
# in updates/: on the plain UML kernel it must win over the in-tree one.
[ "$RDDP_ROLE" = b ] && t_like "siw is build-siw.sh's, in updates/" '/updates/siw\.ko$' modinfo -n siw
t_run "load ${RDDP_DEV%0}" load
t_barrier loaded
for size in 64 4096 65000; do
	both a "rping rddp-server ${size}B" rping_server rping_client 10 "$size"
	both b "rping siw-server ${size}B" rping_server rping_client 10 "$size"
done
for tool in ib_write_bw ib_read_bw ib_send_bw; do
	both a "$tool rddp-server" perf_server perf_client $tool -s 65536 -n 100
	both b "$tool siw-server" perf_server perf_client $tool -s 65536 -n 100
done

t_run "reload with mpa_crc=0" reload mpa_crc=0
t_barrier "reload-crc"
both a "rping rddp-server mpa_crc=0" rping_server rping_client 10 4096
both b "rping siw-server mpa_crc=0" rping_server rping_client 10 4096
both a "ib_write_bw rddp-server mpa_crc=0" perf_server perf_client ib_write_bw -s 65536 -n 50

# MPA revision 1 (RFC 5044 without RFC 6581). siw offers revision 2 only
# and refuses a revision-1 Reply (siw_proc_mpareply), so rddp is the
# initiator; siw gives a revision-1 initiator no RDMA Read credits, so the
# traffic is Write and Send.
t_run "reload with mpa_rev=1" reload mpa_rev=1
t_barrier "reload-rev1"
both b "ib_write_bw siw-server mpa_rev=1" perf_server perf_client ib_write_bw -s 65536 -n 50
both b "ib_send_bw siw-server mpa_rev=1" perf_server perf_client ib_send_bw -s 65536 -n 50
both a "siw client refuses rddp's revision-1 reply" perf_server_refused \
	perf_client_refused ib_write_bw -s 65536 -n 10
t_run "unload" unload

# After a failure, what the kernel said of its QPs (rddp's Terminates, CRC
# and framing errors), beside two-vm-check.sh's list of bad-CRC frames: a
# rare failure then leaves its evidence in the run's output.
if grep -q '^not ok' "$_t_tap"; then
	dmesg | grep -E 'rddp|siw' | tail -20 | sed 's/^/# kernel: /' | tee -a "$_t_tap"
fi
