#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-kernel ULPs across two guests (192.0.2.1 <-> .2): guest a runs rddp
# and the clients, guest b the servers on upstream siw (argument `siw`,
# Debian's kernel with tools/vm/build-siw.sh's module) or on rddp (`rddp`).
# NVMe-oF/RDMA: the host (nvme-rdma) writes and reads back 32 MiB O_DIRECT
# (8 MiB on the debug kernel, where NFS moves 4 MiB instead of 8),
# and the target's (nvmet-rdma) file must hold what it wrote. NFS over
# RDMA: NFSv3 and NFSv4 mounts of b's nfsd (rdma 20049), 8 MiB written and
# read back, and equal on the server. iSER: open-iscsi in a logs in to
# LIO's iSER portal in b, 32 MiB written and read back, equal on the LUN's
# file. Then both guests tear down: no QP or cm_id left, links deleted,
# modules removed.
# A second argument `sctp` (with `rddp`) has guest a's rddp0 initiate over
# DDP over SCTP (draft-ietf-rddp-sctp-00, Documentation/wire-sctp.md):
# the same ULPs, unchanged, over the other transport; guest b's rddp0 is
# set to sctp too, before its servers listen, so that its listeners take
# SCTP as well as TCP (wire-sctp.md, "Which listeners take SCTP"). The
# counters then show SCTP carried the traffic.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvmeof.sh"
. "$(dirname "$0")/nfsrdma.sh"
. "$(dirname "$0")/iser.sh"

peer=${1:-siw} transport=${2:-tcp}
if [ "$RDDP_ROLE" = a ] || [ "$peer" = rddp ]; then drv=rddp; else drv=siw; fi
ctl=/rddp/build/cmake/userspace/rddpctl/rddpctl

t_barrier up
t_run "load $drv" sh -c "modprobe $drv && rdma link add ${drv}0 type $drv netdev eth0"
if [ "$transport" = sctp ] && [ "$RDDP_ROLE" = a ]; then
	t_run "rddp0 initiates over SCTP" $ctl dev set rddp0 transport sctp
elif [ "$transport" = sctp ] && [ "$drv" = rddp ]; then
	t_run "rddp0's listeners take SCTP" $ctl dev set rddp0 transport sctp
fi
t_run "modprobe nvmet-rdma nvme-rdma" nvme_modules
if [ "$RDDP_ROLE" = b ]; then
	t_run "nvmet on $drv: subsystem on rdma $RDDP_LOCAL_IP:4420" nvmet_up "$RDDP_LOCAL_IP"
fi
t_barrier target 300

# The link between TCG guests carries ~10 MB/s and a 4 KiB I/O costs
# several round trips: 32 MiB in 1 MiB I/Os, then 2 MiB in 4 KiB ones (512
# each way), the last written data's sha256 to the target's guest. With
# rddp on qemu's debug kernel (KASAN under TCG) a 4 KiB I/O takes ~50 ms
# each way: 1 MiB of them there (256 each way), where 2 MiB took 52 s
# (NVMe-oF) and 54 s (iSER) of make check's longest lane.
# On the debug kernel the 1 MiB I/Os move 8 MiB each way too (32 MiB took
# 144 s with NVMe-oF and 123 s with iSER there), NFS 4 MiB a version.
small_mib=2 big_mib=32 nfs_mib=8
[ "${RDDP_KERNEL:-stock}" = debug ] && small_mib=1 big_mib=8 nfs_mib=4
small_ios=$((small_mib * 256))
roundtrip_two() { # BS MIB
	local out
	out=$(nvme_roundtrip "$1" "$2") || { echo "$out"; return 1; }
	echo "$out"
	echo "$2 $(sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out")" >/results/ulp-two.sha
}
if [ "$RDDP_ROLE" = a ]; then
	t_like "nvme discover -t rdma lists the $peer target's subsystem" "subnqn: *$nvme_nqn" \
		nvme_discover "$RDDP_PEER_IP"
	t_like "rddp host connects to the $peer target" 'connected: nvme[0-9]+n1 \(rdma\)' \
		nvme_connect "$RDDP_PEER_IP"
	t_run "$big_mib MiB in 1 MiB I/Os to the $peer target and back, sha256 equal" \
		roundtrip_two 1048576 "$big_mib"
	t_run "$small_mib MiB in 4 KiB I/Os to the $peer target and back, sha256 equal" \
		roundtrip_two 4096 "$small_mib"
	t_run "fast registrations on the host (mr_fast_regs > $small_ios)" \
		rddp_counter_above mr_fast_regs "$small_ios"
	t_run "the target's Send with Invalidate honoured (mr_remote_invals > $small_ios)" \
		rddp_counter_above mr_remote_invals "$small_ios"
	# dd's posts (nvme-rdma's queue_rq in its io_submit) send from the
	# next CPU, leaving dd its own (qp_tx.c, rddp_tx_kick_posted()).
	[ "$(nproc)" -ge 2 ] &&
		t_run "dd's commands sent from another CPU (tx_far_kicks > $small_ios)" \
			rddp_counter_above tx_far_kicks "$small_ios"
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

# NFS over RDMA: b serves, a mounts NFSv3 and NFSv4.2.
if [ "$RDDP_ROLE" = b ]; then
	t_like "nfsd on $drv listens on rdma 20049" 'rdma 20049' nfsd_up 192.0.2.0/24
fi
t_barrier nfsd 300
v4=4.2
nfs_two() { # VERS: the data's sha256 goes to the server's guest
	local out
	out=$(nfs_roundtrip "$1" "$nfs_mib") || { echo "$out"; return 1; }
	echo "$out"
	sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out" >"/results/nfs-$1.sha"
}
if [ "$RDDP_ROLE" = a ]; then
	for vers in 3 $v4; do
		t_like "mount NFSv$vers from the $peer server with proto=rdma" 'proto=rdma' \
			nfs_mount $vers "$RDDP_PEER_IP"
		t_run "NFSv$vers: $nfs_mib MiB written, caches dropped, read back equal" nfs_two $vers
		t_run "umount NFSv$vers" umount /mnt/nfs-$vers
	done
	echo "$v4" >/results/nfs-v4
fi
t_barrier nfs 600
if [ "$RDDP_ROLE" = b ]; then
	nfs_holds() { # VERS
		echo "client wrote $(cat "/results/nfs-$1.sha"), server $(nfs_server_sha "$1")"
		[ "$(cat "/results/nfs-$1.sha")" = "$(nfs_server_sha "$1")" ]
	}
	for vers in 3 "$(cat /results/nfs-v4)"; do
		t_run "the $peer server holds what the NFSv$vers client wrote" nfs_holds "$vers"
	done
	t_run "nfsd stopped" nfsd_down
fi
t_run "rmmod rpcrdma" modprobe -r rpcrdma

# iSER: b runs LIO with ib_isert, a logs in with open-iscsi over iser. LIO
# opens its iSCSI/TCP portal under the iSER one on 3260: with rddp at both
# ends the iWARP port mapper runs in both guests (a's iwpmd asks b's for the
# mapped port); siw does not map ports (IW_F_NO_PORT_MAP), so there LIO's
# TCP portal goes to another network namespace (see Documentation/ulps.md).
t_run "modprobe ib_isert ib_iser" iser_modules
if [ "$peer" = rddp ]; then
	t_run "iwpmd (the iWARP port mapper) runs" iwpm_up
	tcpns=
else
	tcpns=lio-tcp
	[ "$RDDP_ROLE" = b ] && ip netns add $tcpns
fi
if [ "$RDDP_ROLE" = b ]; then
	t_run "LIO on $drv: file LUN, portal $RDDP_LOCAL_IP:3260 with iSER${tcpns:+ (TCP portal in netns $tcpns)}" \
		lio_up "$RDDP_LOCAL_IP" $tcpns
fi
t_barrier lio 300
iser_two() { # BS MIB: the data's sha256 goes to the target's guest
	local out
	out=$(iser_roundtrip "$1" "$2") || { echo "$out"; return 1; }
	echo "$out"
	echo "$2 $(sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out")" >/results/iser-two.sha
}
if [ "$RDDP_ROLE" = a ]; then
	t_like "rddp initiator logs in to the $peer target over iser" 'logged in: sd[a-z]+ \(iser\)' \
		iser_login "$RDDP_PEER_IP"
	t_run "iSER: $big_mib MiB in 1 MiB I/Os to the $peer target and back, sha256 equal" \
		iser_two 1048576 "$big_mib"
	t_run "iSER: $small_mib MiB in 4 KiB I/Os to the $peer target and back, sha256 equal" \
		iser_two 4096 "$small_mib"
	t_run "iSER logout" iser_logout "$RDDP_PEER_IP"
fi
t_barrier iser 600
if [ "$RDDP_ROLE" = b ]; then
	lun_holds() {
		local mib sha
		read -r mib sha </results/iser-two.sha || return 1
		echo "initiator wrote $sha, LUN file $(lio_file_sha "$mib")"
		[ "$sha" = "$(lio_file_sha "$mib")" ]
	}
	t_run "the $peer target's LUN file holds what the initiator wrote last" lun_holds
	t_run "LIO torn down" lio_down
fi
if [ "$transport" = sctp ]; then
	# Both ends: a's initiators sent, b's targets received, over SCTP only.
	t_run "the ULPs' traffic went over SCTP (sctp_tx_chunks > 10000)" \
		rddp_counter_above sctp_tx_chunks 10000
	sctp_opens() { # SCTP's own count of associations this guest set up
		local n
		n=$(awk '$1 == "SctpActiveEstabs" || $1 == "SctpPassiveEstabs" { s += $2 } END { print s + 0 }' \
			/proc/net/sctp/snmp)
		echo "associations: $n"
		[ "$n" -gt 0 ]
	}
	t_run "SCTP counted the associations" sctp_opens
fi
[ "$peer" = rddp ] && t_run "iwpmd stopped" iwpm_down
t_run "rmmod ib_isert ib_iser" modprobe -r ib_isert ib_iser

t_like "no QP left" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_like "no cm_id left" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'
t_run "rdma link delete ${drv}0" rdma link delete ${drv}0
t_run "rmmod $drv" rmmod $drv
t_barrier done
