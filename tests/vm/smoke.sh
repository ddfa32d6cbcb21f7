#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Proves the guest has what tests rely on: kernel modules, the RDMA tools,
# the 9p shares and, with two guests, the link between them.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

# The kernel this guest was told it boots: Debian's 6.12 and UML's debug
# kernel are 6.12, the rest 6.1.
case ${RDDP_KERNEL:-stock} in
stock-6.12 | uml-debug) series=6.12 ;;
*) series=6.1 ;;
esac
t_like "kernel is Linux $series" "^${series//./\\.}\\." uname -r
for m in ib_core iw_cm rdma_cm ib_uverbs rdma_ucm dummy; do
	t_run "modprobe $m" modprobe "$m"
done
t_run "setup_dummy" setup_dummy
t_like "dummy0 has its address" '198\.51\.100\.1/24' ip addr show dummy0
t_run "rdma tool runs" rdma link show
t_run "ibv_devices runs" ibv_devices
t_run "repo is mounted read-only" sh -c '[ -f /rddp/Makefile ] && ! touch /rddp/.probe 2>/dev/null'
t_run "results are writable" touch "$RDDP_RESULTS/.probe"
t_like "unprivileged user exists" 'uid=1000' setpriv --reuid=1000 --regid=1000 --clear-groups id
if [ "$RDDP_TOPOLOGY" = two ]; then
	t_barrier up
	t_run "ping the peer ($RDDP_PEER_IP)" ping -c 3 -W 5 "$RDDP_PEER_IP"
	t_barrier pinged
	# Interop runs hand siw (tools/vm/build-siw.sh) to one guest with --ko-b.
	# siw in guest b, rddp in guest a: they never share a kernel.
	if [ "$RDDP_ROLE" = b ] && modinfo siw >/dev/null 2>&1; then
		t_run "modprobe siw" modprobe siw
		t_run "rdma link add siw0 on eth0" rdma link add siw0 type siw netdev eth0
		t_like "ibv_devices lists siw0" 'siw0' ibv_devices
	fi
	if [ "$RDDP_ROLE" = a ] && modinfo rddp >/dev/null 2>&1; then
		t_run "rdma link add rddp0 on eth0" rdma link add rddp0 type rddp netdev eth0
		t_like "rddp0 port is active on the link" 'state:[[:space:]]+PORT_ACTIVE' \
			ibv_devinfo -d rddp0
	fi
	t_barrier devices
fi
