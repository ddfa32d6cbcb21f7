#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows inside the guest: an rddp device created the way a
# user creates one, what the standard tools say about it, and RDMA traffic
# between two rddp endpoints (rping and perftest over rdma_cm), summed up in
# a short table, then an NFS mount over RDMA with its throughput.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfsrdma.sh"

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

# NFS over RDMA: the kernel's nfsd and NFS client on rddp0.
echo
echo "# NFS over RDMA: nfsd listening on rdma 20049, NFSv4.2 mounted with proto=rdma"
mbs() { # SECONDS-START BYTES: MB/s since the start
	awk -v t0="$1" -v b="$2" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", b / 1e6 / (t1 - t0) }'
}
nfs_demo() {
	local t0 w r
	nfsd_up 198.51.100.0/24 >/dev/null && nfs_mount 4.2 $ip || return 1
	# The first OPEN waits out nfsd's NFSv4 grace period (10 s): not timed.
	: >/mnt/nfs-4.2/demo || return 1
	dd if=/dev/urandom of=/tmp/nfs-demo bs=1M count=32 status=none
	t0=$(date +%s.%N)
	dd if=/tmp/nfs-demo of=/mnt/nfs-4.2/demo bs=1M conv=fsync status=none || return 1
	w=$(mbs "$t0" 33554432)
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(date +%s.%N)
	cmp /tmp/nfs-demo /mnt/nfs-4.2/demo || return 1
	r=$(mbs "$t0" 33554432)
	printf '%-14s %-10s %s MB/s\n' "NFS write" 32MiB "$w" "NFS read" 32MiB "$r"
	umount /mnt/nfs-4.2 && nfsd_down && modprobe -r rpcrdma
}
nfs_out=$(nfs_demo 2>&1)
echo "$nfs_out" | grep -v '^198.51.100.1:/ '
t_like "NFS over RDMA: 32 MiB written and read back equal" 'NFS read' echo "$nfs_out"

show rdma link delete rddp0
show rmmod rddp
