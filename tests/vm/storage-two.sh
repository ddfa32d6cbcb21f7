#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's storage series across two qemu guests (tools/bench.sh's
# storage_two_guests): tests/vm/storage.sh's ULPs and fio workloads over a
# real link (virtio-net, 192.0.2.1 <-> .2), the targets in guest b, the
# initiators and fio in guest a:
#   nvme   b: nvmet, one namespace on a RAM disk (brd, /dev/ram0), port
#          rdma (rddp, siw) or tcp (NVMe/TCP) 192.0.2.2:4420;
#          a: nvme-cli's connect
#   nfs    b: nfsd exporting a tmpfs (rdma 20049 and tcp 2049, up once per
#          boot); a: NFSv4.2 mounted over rdma or tcp, fio on a file in it
#   iscsi  b: LIO, one LUN on a RAM disk (iblock, /dev/ram1), portal
#          192.0.2.2:3260 with iSER (rddp, siw) or without (tcp);
#          a: open-iscsi logged in over iser or iscsi_tcp
# The RNIC is the same in both guests. rddp's iSER shares 3260 with LIO's
# TCP portal through the iWARP port mapper, iwpmd, in both guests (it is
# started at the first rddp driver of the boot and kept); siw maps no
# ports (IW_F_NO_PORT_MAP), so with siw LIO's TCP portal goes to a network
# namespace of b's (as tests/vm/ulp-two.sh: across guests too the iSER
# listener on b's siw0 and LIO's TCP portal would both bind
# 192.0.2.2:3260).
#
#   storage-two.sh DRIVER[,DRIVER...] [full|short|quick] [SECS [MIB]]
#
# DRIVER: rddp (CRC on), rddp-nocrc (mpa_crc=0), siw or tcp; several, in
# turn in this boot, in the order given (rddp and siw are unloaded after
# their turn: the next modprobe takes its parameters). full: every
# workload of tests/vm/storage-lib.sh for SECS seconds (default 3; short:
# 2) on a region of MIB MiB (default 16: under TCG the link carries a few
# MB/s to 40 MB/s, and each ULP's region is written whole first); quick: per
# ULP one fio job writing 8 MiB of random 4 KiB blocks and reading them
# back verified (crc32c), on 16 MiB. (Guests get no environment from the
# host: run.sh passes arguments only, hence SECS and MIB.)
#
# Guest a's $RDDP_RESULTS/storage.txt has storage.sh's lines,
#   DRIVER ULP JOB IOPS MB/s CLAT_P50_US CLAT_P99_US CPU_US_PER_IO
# and fio's JSON per job, storage-DRIVER-ULP-JOB.json. CPU per I/O counts
# both guests, summed in guest a's line: a's busy ticks in /proc/stat over
# its fio run, plus b's over the same job. Guest b frames each job with
# files under /results: it reads its ticks, writes storage-ready-NAME,
# waits for a's storage-done-NAME (written when fio has exited) and
# writes its ticks since to storage-cpu-NAME, which a adds; b's wait polls
# with builtins only, so the framing forks nothing on b while fio runs.
# Over the same window each guest counts its IP transmits and TCP segments
# (/proc/net/snmp, read with builtins: Ip: OutRequests, the packets handed
# to IP, a GSO batch once; Tcp: OutSegs, after segmentation), b writing
# its deltas after its ticks. a's storage-cpu.txt keeps the split per job,
#   NAME A_TICKS B_TICKS A_IPOUT B_IPOUT A_SEGS B_SEGS IOS
# (IOS: the job's I/Os, reads and writes, the per-I/O figures' divisor;
# tools/storage-report.py --cpu tabulates transmits per I/O).
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

usage="usage: storage-two.sh DRIVER[,DRIVER...] [full|short|quick] [SECS [MIB]]"
IFS=, read -ra drivers <<<"${1:?$usage}"
mode=${2:-full}
fio=/rddp/build/fio
out=$RDDP_RESULTS/storage.txt
storage_netdev=eth0
storage_verify=0
case $mode in
full) secs=${3:-3} size_mib=${4:-16} ;;
short) secs=${3:-2} size_mib=${4:-16} ;;
quick) secs=0 size_mib=16 storage_verify=1 ;;
*) t_fail "mode '$mode'" "$usage"; exit 0 ;;
esac
fio_bound=$((secs + 300))

# _storage_wait FILE SECONDS: until FILE exists; builtins only (a read
# with a timeout on a FIFO no one writes is the sleep).
mkfifo /tmp/storage-tick 2>/dev/null
exec {_storage_tick}<>/tmp/storage-tick
_storage_wait() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		read -r -t 0.1 -u "$_storage_tick" _
	done
	return 1
}

# Guest a: fio_job's hooks (tests/vm/storage-lib.sh), in the subshell that
# runs fio_job: the counters read in the first are the second's start.
storage_job_begin() { # NAME: once b has read its clock
	_storage_wait "/results/storage-ready-$1" 600 ||
		echo "# $1: the target's guest was not ready in 600 s" >&2
	net_counters
	_storage_ip0=$net_ipout _storage_seg0=$net_segs
}
storage_job_end() { # NAME TICKS: b's ticks over the job
	local t='' bip='' bseg='' aip aseg ios
	net_counters
	aip=$((net_ipout - _storage_ip0)) aseg=$((net_segs - _storage_seg0))
	: >"/results/storage-done-$1"
	_storage_wait "/results/storage-cpu-$1" 120 && read -r t bip bseg <"/results/storage-cpu-$1"
	[ -n "$t" ] || return 1
	# fio_job's JSON: the job's I/Os, as its CPU per I/O counts them.
	ios=$(jq '.jobs[0] | .read.total_ios + .write.total_ios' "/tmp/fio-$1.json" 2>/dev/null) || ios=
	echo "$1 $2 $t $aip ${bip:--} $aseg ${bseg:--} ${ios:--}" >>"$RDDP_RESULTS/storage-cpu.txt"
	echo "$t"
}
# Guest b: serve_jobs DRV ULP frames each of a's fio runs of that ULP.
serve_jobs() {
	local name c0 c1 ip0 seg0
	for name in $(storage_names "$1" "$2"); do
		c0=$(cpu_busy)
		net_counters
		ip0=$net_ipout seg0=$net_segs
		: >"/results/storage-ready-$name"
		_storage_wait "/results/storage-done-$name" $((fio_bound + 600)) ||
			echo "# $name: no end from guest a" >&2
		net_counters
		c1=$(cpu_busy)
		echo "$((c1 - c0)) $((net_ipout - ip0)) $((net_segs - seg0))" \
			>"/results/storage-cpu-$name.tmp" &&
			mv "/results/storage-cpu-$name.tmp" "/results/storage-cpu-$name"
	done
}

if [ "$RDDP_ROLE" = a ]; then
	[ -x $fio ] || { t_fail "fio is there" "no $fio: bash tools/vm/fio.sh"; exit 0; }
	: >"$out"
	: >"$RDDP_RESULTS/storage-cpu.txt"
fi
t_barrier up 300
t_run "modprobe the ULPs (nvmet, nvme, NFS, iSER, iSCSI; RDMA and TCP)" modprobe -a \
	nvmet-rdma nvme-rdma nvmet-tcp nvme-tcp rpcrdma ib_isert ib_iser iscsi_tcp target_core_iblock sd_mod
t_mounted /sys/kernel/config || t_run "mount configfs" mount -t configfs none /sys/kernel/config
if [ "$RDDP_ROLE" = b ]; then
	# Two RAM disks of twice the region: the NVMe namespace, the LUN.
	t_run "modprobe brd (2 x $((2 * size_mib)) MiB)" modprobe brd rd_nr=2 rd_size=$((2 * size_mib * 1024))
	t_like "nfsd listens on rdma 20049 and tcp" 'rdma 20049' nfsd_up 192.0.2.0/24
fi
t_barrier targets 300

# One driver's three ULPs, b serving, a measuring.
ulps() { # DRV
	local drv=$1 tr=rdma blk nfsfile iface=iser iser=1 disk tcpns=
	[ "$drv" = tcp ] && tr=tcp

	if [ "$RDDP_ROLE" = b ]; then
		t_run "$drv nvme: nvmet, namespace /dev/ram0 on $tr $RDDP_LOCAL_IP:4420" \
			nvmet_up "$RDDP_LOCAL_IP" $tr /dev/ram0
		t_barrier "nvme-up-$drv" 300
		serve_jobs "$drv" nvme
		t_barrier "nvme-down-$drv" 600
		t_run "$drv nvme: nvmet torn down" nvmet_down
	else
		t_barrier "nvme-up-$drv" 300
		t_like "$drv nvme: nvme connect -t $tr" "connected: nvme[0-9]+n1 \\($tr\\)" \
			nvme_connect "$RDDP_PEER_IP" $tr
		blk=$(nvme_blk)
		run_jobs "$drv" nvme "/dev/$blk"
		t_run "$drv nvme: nvme disconnect" nvme_disconnect
		t_barrier "nvme-down-$drv" 600
	fi

	if [ "$RDDP_ROLE" = b ]; then
		serve_jobs "$drv" nfs
	else
		t_like "$drv nfs: NFSv4.2 mount over $tr" " /mnt/nfs-4.2 nfs4 .*proto=$tr" \
			nfs_mount 4.2 "$RDDP_PEER_IP" $tr
		# Not mounted: a path where fio fails, not a local file.
		nfsfile=/mnt/nfs-4.2/fio.dat
		t_mounted /mnt/nfs-4.2 || nfsfile=/nonexistent/fio.dat
		run_jobs "$drv" nfs $nfsfile
		rm -f /mnt/nfs-4.2/fio.dat
		t_run "$drv nfs: umount" umount /mnt/nfs-4.2
	fi
	t_barrier "nfs-down-$drv" 600

	[ "$drv" = tcp ] && iface=default iser=0
	[ "$drv" = tcp ] || tr=iser
	if [ "$RDDP_ROLE" = b ]; then
		if [ "$drv" = siw ]; then
			tcpns=lio-tcp
			ip netns add $tcpns 2>/dev/null
		fi
		LIO_BLOCK=/dev/ram1 LIO_ISER=$iser \
			t_run "$drv iscsi: LIO, LUN /dev/ram1, portal $RDDP_LOCAL_IP:3260$([ $iser = 1 ] && echo ' with iSER')${tcpns:+ (TCP portal in netns $tcpns)}" \
			lio_up "$RDDP_LOCAL_IP" $tcpns
		t_barrier "iscsi-up-$drv" 300
		serve_jobs "$drv" iscsi
		t_barrier "iscsi-down-$drv" 600
		t_run "$drv iscsi: LIO torn down" lio_down
	else
		t_barrier "iscsi-up-$drv" 300
		t_like "$drv iscsi: open-iscsi logs in over $tr" "logged in: sd[a-z]+ \\($tr\\)" \
			iscsi_login "$RDDP_PEER_IP" $iface
		disk=$(iser_disk $tr)
		run_jobs "$drv" iscsi "/dev/$disk"
		t_run "$drv iscsi: logout" iscsi_logout "$RDDP_PEER_IP" $iface
		t_barrier "iscsi-down-$drv" 600
	fi
}

iwpmd=0
for d in "${drivers[@]}"; do
	driver_up "$d"
	# iwpmd waits for an iWARP listener to show its mapping: a device first.
	if [ "$iwpmd" = 0 ] && [ "${d%-nocrc}" = rddp ]; then
		t_run "iwpmd (the iWARP port mapper) runs" iwpm_up
		iwpmd=1
	fi
	t_barrier "up-$d" 300
	ulps "$d"
	driver_down "$d"
	[ "$d" = tcp ] || t_run "rmmod ${d%-nocrc}" modprobe -r "${d%-nocrc}"
	t_barrier "down-$d" 300
done

if [ "$RDDP_ROLE" = a ]; then
	iscsid_stop() {
		local p
		p=$(pidof iscsid) || return 0
		# shellcheck disable=SC2086 # iscsid runs as two processes
		kill $p
	}
	t_run "iSCSI initiator stopped" iscsid_stop
else
	t_run "nfsd stopped" nfsd_down
fi
[ "$iwpmd" = 0 ] || t_run "iwpmd stopped" iwpm_down
t_run "rmmod the ULPs" modprobe -r nvme-rdma nvmet-rdma nvme-tcp nvmet-tcp rpcrdma ib_isert ib_iser \
	iscsi_tcp target_core_iblock
t_barrier end 300
