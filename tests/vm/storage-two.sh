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
#                  [KEY=VALUE...]
#
# DRIVER: rddp (CRC on), rddp-nocrc (mpa_crc=0), siw or tcp; several, in
# turn in this boot, in the order given (rddp and siw are unloaded after
# their turn: the next modprobe takes its parameters). full: every
# workload of tests/vm/storage-lib.sh for SECS seconds (default 3; short:
# 2) on a region of MIB MiB (default 16: under TCG the link carries a few
# MB/s to 40 MB/s, and each ULP's region is written whole first); quick: per
# ULP one fio job writing 8 MiB of random 4 KiB blocks and reading them
# back verified (crc32c), on 16 MiB. (Guests get no environment from the
# host: run.sh passes arguments only, hence SECS, MIB and the options.)
# Options, for experiments by hand (make bench passes none):
#   ulps=ULP[,ULP...]    of nvme, nfs, iscsi (default all three)
#   jobs=JOB[,JOB...]    the workloads of those names only (storage-lib.sh's
#                        jobs, e.g. rw4k-qd32; the region is written first)
#   nfsd_threads=N       nfsd's threads (default 4)
#   nfs_inline=OCTETS    RPC-over-RDMA's inline threshold for calls (RFC 8166
#                        §3.3.2), both ends: a's sunrpc.rdma_max_inline_write,
#                        b's sunrpc.svc_rdma.max_req_size (default the
#                        kernel's, 4096: a 4 KiB NFS write then goes as a
#                        Read chunk the server pulls with an RDMA Read)
#   tx_zcopy=off         rddp without CRC copies payloads into the socket
#                        instead of lending their pages (rddpctl's tx-zcopy,
#                        both guests)
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
# its deltas after its ticks, and so do rddp's TX batches (rddp0's
# tx_fpdus and tx_batches, read from sysfs: the FPDUs a QP's sender found
# to hand TCP at once; "-" for siw and TCP). a's storage-cpu.txt keeps the
# split per job,
#   NAME A_TICKS B_TICKS A_IPOUT B_IPOUT A_SEGS B_SEGS IOS \
#        A_FPDUS A_BATCHES B_FPDUS B_BATCHES A_CTXT B_CTXT A_INTR B_INTR
# (IOS: the job's I/Os, reads and writes, the per-I/O figures' divisor;
# CTXT and INTR: each guest's context switches and interrupts over the
# job, /proc/stat's ctxt and intr totals, read with builtins too: under
# TCG a cross-CPU wake-up is an interrupt the host emulates;
# tools/storage-report.py --cpu tabulates transmits per I/O, FPDUs per
# batch, and switches and interrupts per I/O).
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

usage="usage: storage-two.sh DRIVER[,DRIVER...] [full|short|quick] [SECS [MIB]] [KEY=VALUE...]"
IFS=, read -ra drivers <<<"${1:?$usage}"
shift
args=() ulps_on=nvme,nfs,iscsi jobs_on='' nfsd_threads=4 nfs_inline='' tx_zcopy=on
for a in "$@"; do
	case $a in
	ulps=*) ulps_on=${a#*=} ;;
	jobs=*) jobs_on=${a#*=} ;;
	nfsd_threads=*) nfsd_threads=${a#*=} ;;
	nfs_inline=*) nfs_inline=${a#*=} ;;
	tx_zcopy=on | tx_zcopy=off) tx_zcopy=${a#*=} ;;
	*=*) t_fail "option '$a'" "$usage"; exit 0 ;;
	*) args+=("$a") ;;
	esac
done
mode=${args[0]:-full}
fio=/rddp/build/fio
out=$RDDP_RESULTS/storage.txt
storage_netdev=eth0
storage_verify=0
case $mode in
full) secs=${args[1]:-3} size_mib=${args[2]:-16} ;;
short) secs=${args[1]:-2} size_mib=${args[2]:-16} ;;
quick) secs=0 size_mib=16 storage_verify=1 ;;
*) t_fail "mode '$mode'" "$usage"; exit 0 ;;
esac
fio_bound=$((secs + 300))
# ulp_on ULP: ULP is among those to run.
ulp_on() { [[ ",$ulps_on," == *",$1,"* ]]; }
if [ -n "$jobs_on" ]; then
	kept=()
	for j in "${jobs[@]}"; do
		[[ ",$jobs_on," == *",${j%% *},"* ]] && kept+=("$j")
	done
	jobs=("${kept[@]}")
fi

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

# tx_counters: rddp0's tx_fpdus and tx_batches so far, or "-" without an
# rddp0 (siw, TCP); builtins only, as net_counters.
tx_counters() {
	local d=/sys/class/infiniband/rddp0/ports/1/hw_counters
	tx_fpdus=- tx_batches=-
	[ -r $d/tx_batches ] || return 0
	read -r tx_fpdus <$d/tx_fpdus && read -r tx_batches <$d/tx_batches
}
# tx_delta FPDUS0 BATCHES0: "FPDUS BATCHES" since then, or "- -".
tx_delta() {
	local f0=$1 b0=$2
	tx_counters
	if [ "$f0" = - ] || [ "$tx_fpdus" = - ]; then
		echo "- -"
	else
		echo "$((tx_fpdus - f0)) $((tx_batches - b0))"
	fi
}

# sched_counters: this guest's context switches and interrupts so far
# (/proc/stat's ctxt and intr totals) in sched_ctxt and sched_intr;
# builtins only, as net_counters.
sched_counters() {
	local k v _
	sched_ctxt=0 sched_intr=0
	while read -r k v _; do
		case $k in
		ctxt) sched_ctxt=$v ;;
		intr) sched_intr=$v ;;
		esac
	done </proc/stat
}

# Guest a: fio_job's hooks (tests/vm/storage-lib.sh), in the subshell that
# runs fio_job: the counters read in the first are the second's start.
storage_job_begin() { # NAME: once b has read its clock
	_storage_wait "/results/storage-ready-$1" 600 ||
		echo "# $1: the target's guest was not ready in 600 s" >&2
	net_counters
	tx_counters
	sched_counters
	_storage_ip0=$net_ipout _storage_seg0=$net_segs
	_storage_tx0="$tx_fpdus $tx_batches"
	_storage_cs0=$sched_ctxt _storage_in0=$sched_intr
}
storage_job_end() { # NAME TICKS: b's ticks over the job
	local t='' bip='' bseg='' bfp='' bbt='' bcs='' bin='' aip aseg atx acs ain ios
	net_counters
	aip=$((net_ipout - _storage_ip0)) aseg=$((net_segs - _storage_seg0))
	sched_counters
	acs=$((sched_ctxt - _storage_cs0)) ain=$((sched_intr - _storage_in0))
	# shellcheck disable=SC2086 # two numbers, split on purpose
	atx=$(tx_delta $_storage_tx0)
	: >"/results/storage-done-$1"
	_storage_wait "/results/storage-cpu-$1" 120 &&
		read -r t bip bseg bfp bbt bcs bin <"/results/storage-cpu-$1"
	[ -n "$t" ] || return 1
	# fio_job's JSON: the job's I/Os, as its CPU per I/O counts them.
	ios=$(jq '.jobs[0] | .read.total_ios + .write.total_ios' "/tmp/fio-$1.json" 2>/dev/null) || ios=
	echo "$1 $2 $t $aip ${bip:--} $aseg ${bseg:--} ${ios:--} $atx ${bfp:--} ${bbt:--}" \
		"$acs ${bcs:--} $ain ${bin:--}" >>"$RDDP_RESULTS/storage-cpu.txt"
	echo "$t"
}
# Guest b: serve_jobs DRV ULP frames each of a's fio runs of that ULP.
serve_jobs() {
	local name c0 c1 ip0 seg0 tx0 cs0 in0
	for name in $(storage_names "$1" "$2"); do
		c0=$(cpu_busy)
		net_counters
		tx_counters
		sched_counters
		ip0=$net_ipout seg0=$net_segs tx0="$tx_fpdus $tx_batches"
		cs0=$sched_ctxt in0=$sched_intr
		: >"/results/storage-ready-$name"
		_storage_wait "/results/storage-done-$name" $((fio_bound + 600)) ||
			echo "# $name: no end from guest a" >&2
		net_counters
		sched_counters
		c1=$(cpu_busy)
		# shellcheck disable=SC2086 # two numbers, split on purpose
		echo "$((c1 - c0)) $((net_ipout - ip0)) $((net_segs - seg0)) $(tx_delta $tx0)" \
			"$((sched_ctxt - cs0)) $((sched_intr - in0))" \
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
if [ -n "$nfs_inline" ]; then
	if [ "$RDDP_ROLE" = b ]; then
		t_run "NFS/RDMA: the server takes calls of $nfs_inline octets inline" \
			sysctl -w sunrpc.svc_rdma.max_req_size="$nfs_inline"
	else
		t_run "NFS/RDMA: the client sends calls of $nfs_inline octets inline" \
			sysctl -w sunrpc.rdma_max_inline_write="$nfs_inline"
	fi
fi
if [ "$RDDP_ROLE" = b ]; then
	# Two RAM disks of twice the region: the NVMe namespace, the LUN.
	t_run "modprobe brd (2 x $((2 * size_mib)) MiB)" modprobe brd rd_nr=2 rd_size=$((2 * size_mib * 1024))
	t_like "nfsd listens on rdma 20049 and tcp ($nfsd_threads threads)" 'rdma 20049' \
		nfsd_up 192.0.2.0/24 "$nfsd_threads"
fi
t_barrier targets 300

# One ULP over one driver (DRV; TR: rdma or tcp), b serving, a measuring.
ulp_nvme() { # DRV TR
	local drv=$1 tr=$2 blk
	if [ "$RDDP_ROLE" = b ]; then
		t_run "$drv nvme: nvmet, namespace /dev/ram0 on $tr $RDDP_LOCAL_IP:4420" \
			nvmet_up "$RDDP_LOCAL_IP" "$tr" /dev/ram0
		t_barrier "nvme-up-$drv" 300
		serve_jobs "$drv" nvme
		t_barrier "nvme-down-$drv" 600
		t_run "$drv nvme: nvmet torn down" nvmet_down
	else
		t_barrier "nvme-up-$drv" 300
		t_like "$drv nvme: nvme connect -t $tr" "connected: nvme[0-9]+n1 \\($tr\\)" \
			nvme_connect "$RDDP_PEER_IP" "$tr"
		blk=$(nvme_blk)
		run_jobs "$drv" nvme "/dev/$blk"
		t_run "$drv nvme: nvme disconnect" nvme_disconnect
		t_barrier "nvme-down-$drv" 600
	fi
}
ulp_nfs() { # DRV TR
	local drv=$1 tr=$2 nfsfile
	if [ "$RDDP_ROLE" = b ]; then
		serve_jobs "$drv" nfs
	else
		t_like "$drv nfs: NFSv4.2 mount over $tr" " /mnt/nfs-4.2 nfs4 .*proto=$tr" \
			nfs_mount 4.2 "$RDDP_PEER_IP" "$tr"
		# Not mounted: a path where fio fails, not a local file.
		nfsfile=/mnt/nfs-4.2/fio.dat
		t_mounted /mnt/nfs-4.2 || nfsfile=/nonexistent/fio.dat
		run_jobs "$drv" nfs $nfsfile
		rm -f /mnt/nfs-4.2/fio.dat
		t_run "$drv nfs: umount" umount /mnt/nfs-4.2
	fi
	t_barrier "nfs-down-$drv" 600
}
ulp_iscsi() { # DRV
	local drv=$1 tr=iser iface=iser iser=1 disk tcpns=
	[ "$drv" = tcp ] && tr=tcp iface=default iser=0
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
# One driver's ULPs, those of ulps= (all three by default).
ulps() { # DRV
	local tr=rdma
	[ "$1" = tcp ] && tr=tcp
	! ulp_on nvme || ulp_nvme "$1" $tr
	! ulp_on nfs || ulp_nfs "$1" $tr
	! ulp_on iscsi || ulp_iscsi "$1"
}

iwpmd=0
for d in "${drivers[@]}"; do
	driver_up "$d"
	if [ "$tx_zcopy" = off ] && [ "${d%-nocrc}" = rddp ]; then
		t_run "rddp0: zero copy off (payloads copied)" \
			/rddp/build/cmake/userspace/rddpctl/rddpctl dev set rddp0 tx-zcopy off
	fi
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
