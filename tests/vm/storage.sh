#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Storage as users run it, over rddp and over what they would use instead,
# in one guest (dummy0: target and initiator both here), with fio
# (tools/vm/fio.sh, at /rddp/build/fio):
#   nvme   NVMe-oF: nvmet with one namespace on a RAM disk (brd, /dev/ram0),
#          nvme-cli's connect over rdma (rddp, siw) or tcp (NVMe/TCP)
#   nfs    NFSv4.2: nfsd exporting a tmpfs, mounted over rdma (port
#          20049) or tcp (2049); fio on a file in the mount
#   iscsi  LIO with one LUN on a RAM disk (iblock, /dev/ram1), open-iscsi
#          logged in over iSER (rddp, siw; with iwpmd, as tests/vm/ulp.sh)
#          or over TCP (iscsi_tcp, the portal without iSER)
# Every job is fio with libaio and O_DIRECT on the block device or file.
#
#   storage.sh smoke                 make check: rddp, then siw, then tcp in
#                                    one boot; per ULP one fio job that
#                                    writes 8 MiB of random 4 KiB blocks
#                                    and reads them back verified
#                                    (verify=crc32c), and its figures are
#                                    there; no figure is judged
#   storage.sh DRIVER [full|short] [SECS]   make bench: DRIVER rddp (CRC
#                                    on), rddp-nocrc (mpa_crc=0), siw or
#                                    tcp; the workloads below on each ULP
#   storage.sh DRIVER profile ULP JOB [SECS [MTU]]
#                                    tools/vm/uml-profile.sh: one workload
#                                    on one ULP for SECS (default 20), lo
#                                    at MTU if given (a wire's 1500 cuts a
#                                    128 KiB I/O into ~90 FPDUs, lo's own
#                                    64 KiB into 2),
#                                    between $RDDP_RESULTS/profile.start
#                                    and profile.stop, which the host's
#                                    sampler waits for; the kernel's
#                                    symbols in $RDDP_RESULTS/kallsyms
#
# Workloads (make bench; fio's names): 4 KiB random read and write at
# queue depth 1 and 32, 128 KiB sequential read and write at depth 8, each
# SECS seconds (default 3; `short`: 2; make bench passes
# BENCH_STORAGE_SECS), no ramp (the CPU
# counted is the run's); the device or file is written whole first so
# reads find data. Per job one
# line in $RDDP_RESULTS/storage.txt:
#   DRIVER ULP JOB IOPS MB/s CLAT_P50_US CLAT_P99_US CPU_US_PER_IO
# (CPU: the guest's busy time in /proc/stat over the job, both ends of the
# connection, divided by the I/Os), and fio's JSON in
# $RDDP_RESULTS/storage-DRIVER-ULP-JOB.json. tools/bench.sh boots one guest
# per driver and round and tabulates. The RNIC per driver, the workloads
# and the fio runs are tests/vm/storage-lib.sh's, shared with
# tests/vm/storage-two.sh (the same series across two qemu guests).
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/nvmeof.sh
. "$(dirname "$0")/nvmeof.sh"
# shellcheck source=tests/vm/nfsrdma.sh
. "$(dirname "$0")/nfsrdma.sh"
# shellcheck source=tests/vm/iser.sh
. "$(dirname "$0")/iser.sh"
# shellcheck source=tests/vm/storage-lib.sh
. "$(dirname "$0")/storage-lib.sh"

what=${1:?usage: storage.sh smoke | storage.sh rddp|rddp-nocrc|siw|tcp [full|short] [SECS] | storage.sh DRIVER profile ULP JOB [SECS [MTU]]}
mode=${2:-full}
fio=/rddp/build/fio
ip=198.51.100.1
out=$RDDP_RESULTS/storage.txt
# SECS: the guest gets no environment from the host, only arguments.
secs=${3:-3}
[ "$mode" = short ] && secs=${3:-2}
# storage-lib.sh's run_jobs runs only prof_job when set, between marks.
prof_ulp="" prof_job="" lo_mtu=""
if [ "$mode" = profile ]; then
	prof_ulp=${3:?profile: which ULP (nvme, nfs, iscsi)}
	prof_job=${4:?profile: which job (sw128k, rr4k-qd32, ...)}
	secs=${5:-20}
	lo_mtu=${6:-}
fi
size_mib=128 storage_verify=0
[ "$what" = smoke ] && size_mib=16 storage_verify=1

[ -x $fio ] || { t_fail "fio is there" "no $fio: bash tools/vm/fio.sh"; exit 0; }
t_run "setup_dummy" setup_dummy
# smoke: lo, which carries the guest's traffic to itself, at a link's MTU,
# so that messages are cut into FPDUs as on a wire (lo's own 64 KiB MTU
# makes a 4 KiB I/O one FPDU); make bench keeps lo's.
if [ "$what" = smoke ]; then
	t_run "lo at a link's MTU, 1500" ip link set lo mtu 1500
elif [ -n "$lo_mtu" ]; then
	t_run "lo at MTU $lo_mtu" ip link set lo mtu "$lo_mtu"
fi
# Two RAM disks of twice the region fio uses: the NVMe namespace, the LUN.
t_run "modprobe brd (2 x $((2 * size_mib)) MiB)" modprobe brd rd_nr=2 rd_size=$((2 * size_mib * 1024))

# segments_per_read DRV TARGET: TCP segments and IP transmits (both ends)
# per NVMe-oF 4 KiB read at queue depth 1, over 2048 reads, at lo's MTU
# of 1500 (smoke: below), where the target's answer, an RDMA Write and
# the response Send chained behind it (RFC 5040 §5.5: they arrive in
# order either way), is four FPDUs of at most an MSS (RFC 5044 §4.5).
# rddp's TX sends the messages one run finds queued together (qp_tx.c):
# no segment of its own for the Send, so a read costs four data segments
# (the command's and the answer's three) and their ACKs, as NVMe/TCP's
# C2H data PDU with its success flag does; and MPA's stage hands the
# answer's FPDUs to TCP in one call (llp_mpa.c), so they leave as one
# transmit, where written one by one each full segment was its own (a
# doorbell each on a real link). Counts, not times: rddp's are judged
# (segments at most 6.5, transmits at most 3.5: the command, the
# answer, an ACK, and a delayed ACK now and then), siw's and TCP's are
# shown beside them. Over rddp the device's counters say why: each read is
# two TX batches (tx_batches, qp_tx.c: a run that wrote, pushed once), the
# command's and the whole answer's, 2.5 FPDUs each; judged at most 2.2
# batches per read, where the answer's Write and Send in runs of their own
# would make 3.
# per_io FROM TO N: (TO - FROM) / N to two places; "none" without an N or
# a count. at_most X LIMIT: X is a number no greater than LIMIT.
per_io() {
	awk -v a="$1" -v b="$2" -v n="$3" \
		'BEGIN { if (a == "" || b == "" || !n) print "none"; else printf "%.2f", (b - a) / n }'
}
at_most() { awk -v x="$1" -v l="$2" 'BEGIN { exit !(x != "none" && x <= l) }'; }

segments_per_read() {
	local drv=$1 target=$2 s0 i0 r ios per xmit b0='' f0='' b1 f1 batches
	net_counters
	s0=$net_segs i0=$net_ipout
	if [[ $drv == rddp* ]]; then
		b0=$(rddp_counter tx_batches) f0=$(rddp_counter tx_fpdus)
	fi
	r=$(fio_job "segs-$drv" "$target" --rw=randread --bs=4k --iodepth=1 --io_size=8M) || {
		t_fail "$drv nvme: TCP segments per 4 KiB read" "$r"
		return
	}
	net_counters
	ios=$(jq '.jobs[0].read.total_ios' "/tmp/fio-segs-$drv.json")
	per=$(per_io "$s0" "$net_segs" "$ios")
	xmit=$(per_io "$i0" "$net_ipout" "$ios")
	name="$drv nvme: TCP segments per 4 KiB read at depth 1 and MTU 1500: $per ($ios reads)"
	if [[ $drv != rddp* ]] || at_most "$per" 6.5; then
		t_ok "$name"
	else
		t_fail "$name" "a Write and its response Send left apart (4 data segments a read when they go together)"
	fi
	name="$drv nvme: IP transmits per 4 KiB read at depth 1 and MTU 1500: $xmit"
	if [[ $drv != rddp* ]] || at_most "$xmit" 3.5; then
		t_ok "$name"
	else
		t_fail "$name" "the answer's FPDUs left one transmit each (one for all when staged)"
	fi
	[[ $drv == rddp* ]] || return 0
	b1=$(rddp_counter tx_batches) f1=$(rddp_counter tx_fpdus)
	batches=$(per_io "$b0" "$b1" "$ios")
	[ "$batches" = none ] || [ "$b1" = "$b0" ] ||
		batches+=" ($(per_io "$f0" "$f1" $((b1 - b0))) FPDUs each)"
	name="$drv nvme: TX batches per 4 KiB read at depth 1: $batches"
	if at_most "${batches%% *}" 2.2 && [ "$b1" != "$b0" ]; then
		t_ok "$name"
	else
		t_fail "$name" "2 a read when the answer's Write and Send leave in one run (3 apart)"
	fi
}

# want ULP: whether this run takes ULP (profile: only the one asked for).
want() { [ -z "$prof_ulp" ] || [ "$prof_ulp" = "$1" ]; }

# ulp_nvme DRV TR: NVMe-oF over TR (rdma or tcp) to a RAM-disk namespace.
ulp_nvme() {
	local drv=$1 tr=$2 blk
	t_run "$drv nvme: nvmet, namespace /dev/ram0 on $tr $ip:4420" nvmet_up $ip "$tr" /dev/ram0
	t_like "$drv nvme: nvme connect -t $tr" "connected: nvme[0-9]+n1 \\($tr\\)" nvme_connect $ip "$tr"
	blk=$(nvme_blk)
	run_jobs "$drv" nvme "/dev/$blk"
	[ "$what" = smoke ] && segments_per_read "$drv" "/dev/$blk"
	t_run "$drv nvme: nvme disconnect" nvme_disconnect
	t_run "$drv nvme: nvmet torn down" nvmet_down
}

# ulp_nfs DRV TR: NFSv4.2 over TR to a tmpfs export.
ulp_nfs() {
	local drv=$1 tr=$2
	t_like "$drv nfs: NFSv4.2 mount over $tr" " /mnt/nfs-4.2 nfs4 .*proto=$tr" nfs_mount 4.2 $ip "$tr"
	run_jobs "$drv" nfs /mnt/nfs-4.2/fio.dat
	rm -f /mnt/nfs-4.2/fio.dat
	t_run "$drv nfs: umount" umount /mnt/nfs-4.2
}

# ulp_iscsi DRV: a LIO LUN on a RAM disk over iSER (rddp, siw) or TCP.
ulp_iscsi() {
	local drv=$1 tr=iser iface=iser iser=1 disk tcpns=
	[ "$drv" = tcp ] && iface=default iser=0 tr=tcp
	# siw maps no ports (IW_F_NO_PORT_MAP): its iSER listener takes 3260
	# itself, so LIO's TCP portal goes to another network namespace (as
	# tests/vm/ulp-two.sh does); rddp's goes through iwpmd.
	if [ "$drv" = siw ]; then
		tcpns=lio-tcp
		ip netns add $tcpns 2>/dev/null
	fi
	LIO_BLOCK=/dev/ram1 LIO_ISER=$iser \
		t_run "$drv iscsi: LIO, LUN /dev/ram1, portal $ip:3260$([ $iser = 1 ] && echo ' with iSER')${tcpns:+ (TCP portal in netns $tcpns)}" \
		lio_up $ip $tcpns
	t_like "$drv iscsi: open-iscsi logs in over $tr" "logged in: sd[a-z]+ \\($tr\\)" iscsi_login $ip $iface
	disk=$(iser_disk $tr)
	run_jobs "$drv" iscsi "/dev/$disk"
	t_run "$drv iscsi: logout" iscsi_logout $ip $iface
	t_run "$drv iscsi: LIO torn down" lio_down
}

# One driver's three ULPs. nfsd and iwpmd are up already (once per boot:
# NFSv4's grace period runs while NVMe-oF does).
ulps() { # DRV
	local drv=$1 tr=rdma
	[ "$drv" = tcp ] && tr=tcp
	want nvme && ulp_nvme "$drv" "$tr"
	want nfs && ulp_nfs "$drv" "$tr"
	want iscsi && ulp_iscsi "$drv"
	return 0
}

t_run "modprobe the ULPs (nvmet, nvme, NFS, iSER, iSCSI; RDMA and TCP)" modprobe -a \
	nvmet-rdma nvme-rdma nvmet-tcp nvme-tcp rpcrdma ib_isert ib_iser iscsi_tcp target_core_iblock sd_mod
# nvmet and LIO are configured through configfs (a module their load brings).
t_mounted /sys/kernel/config || t_run "mount configfs" mount -t configfs none /sys/kernel/config
if [ "$what" = smoke ]; then
	drivers=(rddp siw tcp)
else
	drivers=("$what")
	: >"$out"
fi
driver_up "${drivers[0]}"
t_like "nfsd listens on rdma 20049 and tcp" 'rdma 20049' nfsd_up 198.51.100.0/24
# iwpmd waits for an iWARP listener to show its mapping: a device first.
[ "${drivers[0]}" = tcp ] || t_run "iwpmd (the iWARP port mapper) runs" iwpm_up
for d in "${drivers[@]}"; do
	[ "$d" = "${drivers[0]}" ] || driver_up "$d"
	ulps "$d"
	driver_down "$d"
done
iscsid_stop() {
	local p
	p=$(pidof iscsid) || return 0
	# shellcheck disable=SC2086 # iscsid runs as two processes
	kill $p
}
t_run "iSCSI initiator stopped" iscsid_stop
t_run "iwpmd stopped" iwpm_down
t_run "nfsd stopped" nfsd_down
t_run "rmmod the ULPs" modprobe -r nvme-rdma nvmet-rdma nvme-tcp nvmet-tcp rpcrdma ib_isert ib_iser \
	iscsi_tcp target_core_iblock
