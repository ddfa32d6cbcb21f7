#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows inside the guest: an rddp device created the way a
# user creates one, what the standard tools say about it, and RDMA traffic
# between two rddp endpoints (rping and perftest over rdma_cm), summed up in
# a short table, then storage over rddp beside its TCP alternative: NFSv4.2
# over RDMA and over TCP, NVMe-oF over RDMA and NVMe/TCP, with fio
# (tools/vm/fio.sh).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfsrdma.sh"
. "$(dirname "$0")/nvmeof.sh"

show() { echo; echo "# $*"; "$@"; }

setup_dummy
show rdma link add rddp0 type rddp netdev dummy0
show rdma link show
show rdma dev show rddp0
show ibv_devices
show ibv_devinfo -d rddp0
t_like "rddp0 is an active iWARP port" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d rddp0

ip=198.51.100.1
echo
echo "# rping: 10 round trips of 4 KiB, data verified (-V)"
# Each client starts once its server listens (lib.sh's t_listening).
base=$(_t_listener_set)
rping -s -a $ip -C 10 -S 4096 -V >/tmp/rping-s.log 2>&1 &
t_listening "$base" $! 30
rping -c -a $ip -C 10 -S 4096 -V -v >/tmp/rping-c.log 2>&1
wait
pings=$(grep -c '^ping data: ' /tmp/rping-c.log)
head -3 /tmp/rping-c.log | cut -c1-72
t_like "rping: 10 verified round trips" '^10$' echo "$pings"

perf_row() { # TOOL ARGS: the client's last table row
	local base
	base=$(_t_listener_set)
	timeout 120 "$@" -R -d rddp0 -F >/dev/null 2>&1 &
	t_listening "$base" $! 30
	timeout 120 "$@" -R -d rddp0 -F $ip 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && NF >= 4 { r = $0 } END { print r }'
	wait
}
# perftest's handshake can race on iWARP (see rdma.sh): one more try.
perf() { local r; r=$(perf_row "$@"); [ -n "$r" ] || r=$(perf_row "$@"); echo "$r"; }
echo
echo "# perftest over rdma_cm, rddp0 <-> rddp0 (one guest, software emulation)"
wbw=$(perf ib_write_bw -s 65536 -n 200)
rbw=$(perf ib_read_bw -s 65536 -n 200)
sbw=$(perf ib_send_bw -s 65536 -n 200)
wlat=$(perf ib_write_lat -s 64 -n 200)
printf '%-14s %-10s %s\n' test size "result (perftest's average column)"
printf '%-14s %-10s %s MB/s\n' ib_write_bw 64KiB "$(awk '{print $4}' <<<"$wbw")"
printf '%-14s %-10s %s MB/s\n' ib_read_bw 64KiB "$(awk '{print $4}' <<<"$rbw")"
printf '%-14s %-10s %s MB/s\n' ib_send_bw 64KiB "$(awk '{print $4}' <<<"$sbw")"
printf '%-14s %-10s %s usec (typical)\n' ib_write_lat 64B "$(awk '{print $5}' <<<"$wlat")"
t_like "perftest ran (ib_write_bw has a result)" '^ *65536 ' echo "$wbw"

# Storage over rddp beside what a user would run without RDMA, in this
# guest (target and initiator both here), the same export and namespace:
# NFSv4.2 over RDMA and over TCP (nfsd listens on both), NVMe-oF over
# RDMA and NVMe/TCP on one RAM disk.
echo
echo "# Storage over rddp beside its TCP alternative (one guest, software emulation)"
mbs() { # SECONDS-START BYTES: MB/s since the start
	awk -v t0="$1" -v b="$2" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", b / 1e6 / (t1 - t0) }'
}
# nfs_rw PROTO: "WRITE READ" MB/s of 32 MiB through an NFSv4.2 mount over
# PROTO (rdma or tcp), read back equal after the caches are dropped.
nfs_rw() {
	local t0 w r
	nfs_mount 4.2 $ip "$1" >/dev/null || return 1
	# The first OPEN waits out nfsd's NFSv4 grace period (10 s): not timed.
	: >/mnt/nfs-4.2/demo || return 1
	t0=$(date +%s.%N)
	dd if=/tmp/nfs-demo of=/mnt/nfs-4.2/demo bs=1M conv=fsync status=none || return 1
	w=$(mbs "$t0" 33554432)
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(date +%s.%N)
	cmp /tmp/nfs-demo /mnt/nfs-4.2/demo || return 1
	r=$(mbs "$t0" 33554432)
	rm -f /mnt/nfs-4.2/demo
	umount /mnt/nfs-4.2 && echo "$w $r"
}
# nvme_fio TRTYPE: "READ-MB/s RANDREAD-IOPS" of fio on the NVMe-oF
# namespace connected over TRTYPE (rdma or tcp): 128 KiB sequential reads
# and 4 KiB random reads at queue depth 16, 2 s each.
nvme_fio() {
	local blk a b
	nvmet_up $ip "$1" /dev/ram0 && nvme_connect $ip "$1" >/dev/null || return 1
	blk=/dev/$(nvme_blk)
	a=$(/rddp/build/fio --name=seq --filename="$blk" --rw=read --bs=128k --iodepth=16 \
		--ioengine=libaio --direct=1 --time_based --runtime=2 --output-format=json |
		jq '.jobs[0].read.bw_bytes / 1e6 * 10 | floor / 10') &&
		b=$(/rddp/build/fio --name=rand --filename="$blk" --rw=randread --bs=4k --iodepth=16 \
			--ioengine=libaio --direct=1 --time_based --runtime=2 --output-format=json |
			jq '.jobs[0].read.iops | floor') || return 1
	nvme_disconnect >/dev/null && nvmet_down && echo "$a $b"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
storage_demo() {
	local nr nt vr vt
	modprobe -a nvmet-rdma nvme-rdma nvmet-tcp nvme-tcp && modprobe brd rd_nr=1 rd_size=131072 ||
		return 1
	t_mounted /sys/kernel/config || mount -t configfs none /sys/kernel/config
	dd if=/dev/urandom of=/dev/ram0 bs=1M count=64 status=none
	dd if=/dev/urandom of=/tmp/nfs-demo bs=1M count=32 status=none
	nfsd_up 198.51.100.0/24 >/dev/null || return 1
	nr=$(nfs_rw rdma) && nt=$(nfs_rw tcp) || return 1
	vr=$(nvme_fio rdma) && vt=$(nvme_fio tcp) || return 1
	nfsd_down && modprobe -r rpcrdma nvme-rdma nvmet-rdma nvme-tcp nvmet-tcp
	# shellcheck disable=SC2086 # two figures each
	set -- $nr $nt $vr $vt
	printf '%-30s %12s %12s %9s\n' test "over rddp" "over TCP" rddp/TCP
	printf '%-30s %7s MB/s %7s MB/s %9s\n' "NFSv4.2 write 32 MiB" "$1" "$3" "$(ratio "$1" "$3")"
	printf '%-30s %7s MB/s %7s MB/s %9s\n' "NFSv4.2 read 32 MiB" "$2" "$4" "$(ratio "$2" "$4")"
	printf '%-30s %7s MB/s %7s MB/s %9s\n' "NVMe-oF 128 KiB read, QD16" "$5" "$7" "$(ratio "$5" "$7")"
	printf '%-30s %7s IOPS %7s IOPS %9s\n' "NVMe-oF 4 KiB randread, QD16" "$6" "$8" "$(ratio "$6" "$8")"
}
storage_out=$(storage_demo 2>&1)
echo "$storage_out" | grep -v '^198.51.100.1:/ '
t_like "NFS over RDMA and TCP: 32 MiB written and read back equal" 'NFSv4.2 read' echo "$storage_out"
t_like "NVMe-oF over RDMA and NVMe/TCP: figures" 'NVMe-oF 4 KiB randread, QD16 +[0-9]+ IOPS +[0-9]+ IOPS' \
	echo "$storage_out"

show rdma link delete rddp0
show rmmod rddp
