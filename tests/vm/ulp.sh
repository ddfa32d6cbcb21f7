#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-kernel consumers over rddp in one guest (dummy0), rddp at both ends.
# First the verb-level tests of kmod/test/rddp_kverbs.c (a kernel consumer
# connected to itself: fast registration, invalidation, drain, refusals),
# then the real ULPs through rddp's loopback, target and initiator in this
# guest: NVMe-oF/RDMA (nvmet-rdma, nvme-rdma), NFS over RDMA (nfsd, NFSv3
# and NFSv4.2 clients) and iSER (LIO's ib_isert, open-iscsi's ib_iser, with
# the iWARP port mapper). Data written through the initiator must reach the
# target's backing file and read back equal. This drives what the kernel
# ULPs need of an RNIC: fast-register MRs (IB_WR_REG_MR), remote
# invalidation (Send with Invalidate), Read with local invalidate (rdma_rw's
# iWARP Read sink), local invalidation and ib_drain_qp at teardown.
# Then: no QP or cm_id left, link delete, rmmod.
. /rddp/tests/vm/lib.sh
. /rddp/tests/vm/nvmeof.sh
. /rddp/tests/vm/nfsrdma.sh
. /rddp/tests/vm/iser.sh

ip=198.51.100.1

t_run "modprobe rddp" modprobe rddp
setup_dummy
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0

# The test module's TAP lines come through the kernel log; it loads only if
# every test passed. Each refusal's Terminate is logged by the side that
# sends it, by its name in rddp's error table (RFC 5040 §7, RFC 5041 §7.2).
kverbs() {
	local before
	before=$(dmesg | wc -l)
	modprobe rddp_kverbs addr=$ip
	echo "modprobe: $?" >/tmp/kverbs.rc
	t_kverbs_tap kverbs "$before"
}
kverbs_terms() { dmesg | grep -c "$1; sending Terminate"; }
# Meanwhile an unprivileged user reads every cm_id's and QP's details in a
# loop while the test module creates and destroys its QPs: reading a
# kernel ULP's cm_id must not touch a QP being freed (KASAN on the debug
# kernel; issue 11 defect 5).
res_reader() {
	while :; do
		setpriv --reuid=1000 --regid=1000 --clear-groups rdma -dd res show cm_id
		setpriv --reuid=1000 --regid=1000 --clear-groups rdma -dd res show qp
	done >/dev/null 2>&1
}
res_reader &
reader=$!
kverbs
kill "$reader"
wait "$reader" 2>/dev/null
t_like "rddp_kverbs: 25 tests ran and the module loaded" '^25 modprobe: 0$' \
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
t_like "nvme discover -t rdma lists the subsystem on $ip:4420" "subnqn: *$nvme_nqn" nvme_discover $ip
t_like "nvme-rdma host connects (nvme connect -t rdma)" 'connected: nvme[0-9]+n1 \(rdma\)' \
	nvme_connect $ip
# 1 MiB I/Os use page lists of 255 pages, 4 KiB ones one page each (8 MiB
# of them: 2048 each way); the target's file must hold what the host wrote.
# On qemu's debug kernel (KASAN under TCG, make check's longest lane) the
# volumes are smaller, the I/Os the same: 8 MiB in 1 MiB I/Os (32 MiB took
# 88 s), 1 MiB in 4 KiB ones (256 each way; 2 MiB took 70 s), 4 MiB over
# NFS (16 MiB took 51 s a version).
big_mib=32 small_mib=8 nfs_mib=16
[ "${RDDP_KERNEL:-stock}" = debug ] && big_mib=8 small_mib=1 nfs_mib=4
small_ios=$((small_mib * 256))
roundtrip_local() { # BS MIB
	local out
	out=$(nvme_roundtrip "$1" "$2") || { echo "$out"; return 1; }
	echo "$out target file $(nvmet_file_sha "$2")"
	[ "$(nvmet_file_sha "$2")" = "$(sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out")" ]
}
t_run "NVMe-oF: $big_mib MiB written and read back O_DIRECT in 1 MiB I/Os, sha256 equal" \
	roundtrip_local 1048576 "$big_mib"
t_run "NVMe-oF: $small_mib MiB written and read back O_DIRECT in 4 KiB I/Os, sha256 equal" \
	roundtrip_local 4096 "$small_mib"
t_run "NVMe-oF traffic went through rddp (rx_bytes > $((2 * (big_mib + small_mib))) MiB)" \
	rddp_counter_above rx_bytes $(((2 * (big_mib + small_mib)) << 20))
# Each I/O: the host fast-registers its buffer, the target reads with a
# fast-registered sink (Read with invalidate) or writes, and answers with
# Send with Invalidate of the host's STag (4 KiB writes go in the capsule).
t_run "fast registrations (mr_fast_regs > $small_ios)" rddp_counter_above mr_fast_regs "$small_ios"
# The target reads each 1 MiB write with a sink it invalidates (4 KiB
# writes come in the capsule): half of them at least.
t_run "Read with invalidate (mr_local_invals > $((big_mib / 2)))" \
	rddp_counter_above mr_local_invals $((big_mib / 2))
t_run "remote invalidation by Send with Invalidate (mr_remote_invals > $small_ios)" \
	rddp_counter_above mr_remote_invals "$small_ios"
t_run "nvme disconnect" nvme_disconnect
t_run "nvmet: target torn down" nvmet_down
t_run "rmmod nvme-rdma nvmet-rdma" modprobe -r nvme-rdma nvmet-rdma
# NFS over RDMA: nfsd's RDMA listener and the client in this guest, NFSv3
# and NFSv4.2.
t_like "nfsd listens on rdma 20049 (and both TCP wildcards)" 'rdma 20049' nfsd_up 198.51.100.0/24
for vers in 3 4.2; do
	t_like "mount -t nfs -o vers=$vers,proto=rdma,port=20049" ' rdma|proto=rdma' \
		nfs_mount $vers $ip
	t_run "NFSv$vers over RDMA: $nfs_mib MiB written, caches dropped, read back and on the server, sha256 equal" \
		nfs_roundtrip $vers "$nfs_mib"
	t_run "umount NFSv$vers" umount /mnt/nfs-$vers
done
t_run "nfsd stopped" nfsd_down
t_run "rmmod rpcrdma" modprobe -r rpcrdma

# iSER: LIO's target (ib_isert) and open-iscsi's initiator (ib_iser) in this
# guest. LIO opens its iSCSI/TCP portal on 3260 and iSER under it, and
# rddp's listener is a TCP socket too: without the iWARP port mapper the
# two clash; with iwpmd, rddp listens on a mapped port while rdma_cm and
# the initiator see 3260, and iSCSI/TCP keeps the real port 3260.
t_run "modprobe ib_isert ib_iser" iser_modules
t_like "without iwpmd, iSER on LIO's own TCP port 3260 is refused (address in use)" \
	'Address (already )?in use' lio_clash $ip
t_run "iwpmd (the iWARP port mapper) runs" iwpm_up
t_run "LIO: target with a file LUN, portal $ip:3260 with iSER enabled" lio_up $ip
iser_ports() {
	ss -Htln "src $ip" | awk '{print $4}' | sort
	rdma res show cm_id | grep -o 'state LISTEN .*src-addr [^ ]*'
	[ "$(ss -Htln "src $ip" | wc -l)" -eq 2 ]
}
t_like "iSCSI/TCP holds TCP 3260, the iSER listener (3260 for rdma_cm) a mapped port" \
	"state LISTEN .*ib_isert.* src-addr $ip:3260" iser_ports
t_like "open-iscsi logs in over iser" 'logged in: sd[a-z]+ \(iser\)' iser_login $ip
iser_local() { # BS MIB
	local out
	out=$(iser_roundtrip "$1" "$2") || { echo "$out"; return 1; }
	echo "$out LUN file $(lio_file_sha "$2")"
	[ "$(lio_file_sha "$2")" = "$(sed -E 's/written ([0-9a-f]+) .*/\1/' <<<"$out")" ]
}
t_run "iSER: $big_mib MiB written and read back O_DIRECT in 1 MiB I/Os, sha256 equal, on the LUN file" \
	iser_local 1048576 "$big_mib"
t_run "iSER: $small_mib MiB written and read back O_DIRECT in 4 KiB I/Os, sha256 equal, on the LUN file" \
	iser_local 4096 "$small_mib"
# The same LUN over iSCSI/TCP on port 3260 while the iSER session runs
# (iscsi_tcp: Debian's kernels and UML's debug kernel; qemu's debug kernel
# has no SCSI low-level drivers).
iscsi_tcp_read() {
	local d disk lun
	iscsi_login $ip default || return 1
	d=$(iser_disk tcp)
	# Each read once: 8 MiB over iSCSI/TCP and a SHA-256 of it cost ~15 s
	# on the debug kernel under TCG.
	disk=$(head -c $((8 * 1024 * 1024)) "/dev/$d" | sha256sum | cut -c1-64)
	lun=$(lio_file_sha 8)
	echo "TCP session disk $d: $disk, LUN file $lun"
	[ -n "$disk" ] && [ "$disk" = "$lun" ] && iscsi_logout $ip default
}
if modinfo iscsi_tcp >/dev/null 2>&1; then
	t_run "iSCSI/TCP on 3260 at the same time: login, the LUN reads back equal, logout" iscsi_tcp_read
else
	t_skip "iSCSI/TCP on 3260 at the same time" "no iscsi_tcp in this kernel"
fi
t_run "iSER logout" iser_logout $ip
t_run "LIO: target torn down" lio_down
t_run "iwpmd stopped" iwpm_down
t_run "rmmod ib_isert ib_iser" modprobe -r ib_isert ib_iser iscsi_tcp

t_like "no QP left after the ULPs" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_like "no cm_id left after the ULPs" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'
t_like "no MR left after the ULPs" '^$' sh -c 'rdma res show mr | grep -v "^$" || true'
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
# Arguments: more scripts to run in this boot (t_then, lib.sh); make
# check's vm-stock-ulp runs trace.sh so, vm-stock-6.12-ulp hostile.sh
# (tools/check.sh).
t_then "$@"
