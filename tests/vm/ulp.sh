#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-kernel consumers over rddp in one guest (dummy0), rddp at both ends.
# First the verb-level tests of kmod/test/rddp_kverbs.c (a kernel consumer
# connected to itself: fast registration, invalidation, drain, refusals),
# then the real ULPs: an NVMe-oF/RDMA target (nvmet-rdma) and host
# (nvme-rdma) through rddp's loopback. Data written through the host must
# reach the target's backing file and read back equal. This drives what
# the kernel ULPs need of an RNIC: fast-register MRs (IB_WR_REG_MR), remote invalidation (the target
# answers with Send with Invalidate), Read with local invalidate (rdma_rw's
# iWARP Read sink), local invalidation and ib_drain_qp at teardown.
# Then: no QP or cm_id left, link delete, rmmod.
. /rddp/tests/vm/lib.sh
. /rddp/tests/vm/nvmeof.sh
. /rddp/tests/vm/nfsrdma.sh

ip=198.51.100.1

t_run "modprobe rddp" modprobe rddp
setup_dummy
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0

# The test module's TAP lines come through the kernel log; it loads only if
# every test passed. Each refusal's Terminate is logged by the side that
# sends it, by its name in rddp's error table (RFC 5040 §7, RFC 5041 §7.2).
kverbs_n=0
kverbs() {
	local before line
	before=$(dmesg | wc -l)
	modprobe rddp_kverbs addr=$ip
	echo "modprobe: $?" >/tmp/kverbs.rc
	dmesg | tail -n +$((before + 1)) | sed -n 's/.*rddp_kverbs: //p' >/tmp/kverbs.tap
	while read -r line; do
		case $line in
		"ok "*) t_ok "kverbs: ${line#ok * - }" ;;
		"not ok "*) t_fail "kverbs: ${line#not ok * - }" ;;
		*) continue ;;
		esac
		kverbs_n=$((kverbs_n + 1))
	done </tmp/kverbs.tap
}
kverbs_terms() { dmesg | grep -c "$1; sending Terminate"; }
kverbs
t_like "rddp_kverbs: 18 tests ran and the module loaded" '^18 modprobe: 0$' \
	echo "$kverbs_n $(cat /tmp/kverbs.rc)"
t_like "Terminates for a Write to an invalidated STag (DDP, invalid STag)" '^[2-9]' \
	kverbs_terms 'invalid STag (DDP layer)'
t_like "Terminate for remote invalidation across PDs (STag not associated)" '^[1-9]' \
	kverbs_terms 'STag not associated with stream (RDMAP layer)'
t_like "Terminate for remote invalidation of a DMA MR (cannot be invalidated)" '^[1-9]' \
	kverbs_terms 'STag cannot be invalidated (RDMAP layer)'
t_run "rmmod rddp_kverbs" rmmod rddp_kverbs

# NVMe-oF: target and host in this guest, through rddp's loopback.
t_run "modprobe nvmet-rdma nvme-rdma" nvme_modules
t_run "nvmet: subsystem with a file namespace on rdma $ip:4420" nvmet_up $ip
t_like "nvme-rdma host connects (nvme connect -t rdma)" 'connected: nvme[0-9]+n1 \(rdma\)' \
	nvme_connect $ip
# 1 MiB I/Os use page lists of 255 pages, 4 KiB ones one page each (8 MiB
# of them: 2048 each way); the target's file must hold what the host wrote.
roundtrip_local() { # BS MIB
	local out
	out=$(nvme_roundtrip "$1" "$2") || { echo "$out"; return 1; }
	echo "$out target file $(nvmet_file_sha "$2")"
	[ "$(nvmet_file_sha "$2")" = "$(sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out")" ]
}
t_run "NVMe-oF: 32 MiB written and read back O_DIRECT in 1 MiB I/Os, sha256 equal" \
	roundtrip_local 1048576 32
t_run "NVMe-oF: 8 MiB written and read back O_DIRECT in 4 KiB I/Os, sha256 equal" \
	roundtrip_local 4096 8
t_run "NVMe-oF traffic went through rddp (rx_bytes > 80 MiB)" \
	rddp_counter_above rx_bytes 83886080
# Each I/O: the host fast-registers its buffer, the target reads with a
# fast-registered sink (Read with invalidate) or writes, and answers with
# Send with Invalidate of the host's STag (4 KiB writes go in the capsule).
t_run "fast registrations (mr_fast_regs > 2048)" rddp_counter_above mr_fast_regs 2048
t_run "Read with invalidate (mr_local_invals > 16)" rddp_counter_above mr_local_invals 16
t_run "remote invalidation by Send with Invalidate (mr_remote_invals > 2048)" \
	rddp_counter_above mr_remote_invals 2048
t_run "nvme disconnect" nvme_disconnect
t_run "nvmet: target torn down" nvmet_down
t_run "rmmod nvme-rdma nvmet-rdma" modprobe -r nvme-rdma nvmet-rdma
# NFS over RDMA: nfsd's RDMA listener and the client in this guest, NFSv3
# and NFSv4 (4.2 on Debian's kernel; the debug kernel's client has 4.0).
t_like "nfsd listens on rdma 20049 (and both TCP wildcards)" 'rdma 20049' nfsd_up 198.51.100.0/24
v4=4.2
[ "$RDDP_KERNEL" = debug ] && v4=4.0
for vers in 3 $v4; do
	t_like "mount -t nfs -o vers=$vers,proto=rdma,port=20049" ' rdma|proto=rdma' \
		nfs_mount $vers $ip
	t_run "NFSv$vers over RDMA: 16 MiB written, caches dropped, read back and on the server, sha256 equal" \
		nfs_roundtrip $vers 16
	t_run "umount NFSv$vers" umount /mnt/nfs-$vers
done
t_run "nfsd stopped" nfsd_down
t_run "rmmod rpcrdma" modprobe -r rpcrdma

t_like "no QP left after the ULPs" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_like "no cm_id left after the ULPs" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'
t_like "no MR left after the ULPs" '^$' sh -c 'rdma res show mr | grep -v "^$" || true'
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
