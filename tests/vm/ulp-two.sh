#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe-oF/RDMA across two guests (192.0.2.1 <-> .2): guest a runs rddp and
# the NVMe-oF host (nvme-rdma), guest b the target (nvmet-rdma) on upstream
# siw (argument `siw`, Debian's kernel with tools/vm/build-siw.sh's module)
# or on rddp (argument `rddp`). The host writes and reads back 32 MiB
# O_DIRECT; the target's file must hold what the host wrote. Then both
# guests tear down: no QP or cm_id left, links deleted, modules removed.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvmeof.sh"

peer=${1:-siw}
if [ "$RDDP_ROLE" = a ] || [ "$peer" = rddp ]; then drv=rddp; else drv=siw; fi

t_barrier up
t_run "load $drv" sh -c "modprobe $drv && rdma link add ${drv}0 type $drv netdev eth0"
t_run "modprobe nvmet-rdma nvme-rdma" nvme_modules
if [ "$RDDP_ROLE" = b ]; then
	t_run "nvmet on $drv: subsystem on rdma $RDDP_LOCAL_IP:4420" nvmet_up "$RDDP_LOCAL_IP"
fi
t_barrier target 300

# The link between TCG guests carries ~10 MB/s and a 4 KiB I/O costs
# several round trips: 32 MiB in 1 MiB I/Os, then 2 MiB in 4 KiB ones (512
# each way), the last written data's sha256 to the target's guest.
roundtrip_two() { # BS MIB
	local out
	out=$(nvme_roundtrip "$1" "$2") || { echo "$out"; return 1; }
	echo "$out"
	echo "$2 $(sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out")" >/results/ulp-two.sha
}
if [ "$RDDP_ROLE" = a ]; then
	t_like "rddp host connects to the $peer target" 'connected: nvme[0-9]+n1 \(rdma\)' \
		nvme_connect "$RDDP_PEER_IP"
	t_run "32 MiB in 1 MiB I/Os to the $peer target and back, sha256 equal" \
		roundtrip_two 1048576 32
	t_run "2 MiB in 4 KiB I/Os to the $peer target and back, sha256 equal" \
		roundtrip_two 4096 2
	t_run "fast registrations on the host (mr_fast_regs > 512)" \
		rddp_counter_above mr_fast_regs 512
	t_run "the target's Send with Invalidate honoured (mr_remote_invals > 512)" \
		rddp_counter_above mr_remote_invals 512
	t_run "nvme disconnect" nvme_disconnect
fi
t_barrier io 600

if [ "$RDDP_ROLE" = b ]; then
	file_holds() {
		local mib sha
		read -r mib sha </results/ulp-two.sha || return 1
		echo "host wrote $sha, file $(nvmet_file_sha "$mib")"
		[ "$sha" = "$(nvmet_file_sha "$mib")" ]
	}
	t_run "the $peer target's file holds what the host wrote last" file_holds
	t_run "nvmet torn down" nvmet_down
fi
t_run "rmmod nvme-rdma nvmet-rdma" modprobe -r nvme-rdma nvmet-rdma
t_like "no QP left" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_like "no cm_id left" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'
t_run "rdma link delete ${drv}0" rdma link delete ${drv}0
t_run "rmmod $drv" rmmod $drv
t_barrier done
