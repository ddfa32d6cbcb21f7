#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-kernel consumers over rddp in one guest (dummy0), rddp at both ends.
# First the verb-level tests of kmod/test/rddp_kverbs.c (a kernel consumer
# connected to itself: fast registration, invalidation, drain, refusals),
# then the real ULPs: an NVMe-oF/RDMA target (nvmet-rdma) and host (nvme-rdma) through rddp's
# loopback. Data written through the host must reach the target's backing
# file and read back equal. This drives what the kernel ULPs need of an
# RNIC: fast-register MRs (IB_WR_REG_MR), remote invalidation (the target
# answers with Send with Invalidate), Read with local invalidate (rdma_rw's
# iWARP Read sink), local invalidation and ib_drain_qp at teardown.
# Then: no QP or cm_id left, link delete, rmmod.
. /rddp/tests/vm/lib.sh

ip=198.51.100.1
nqn=nqn.2026-11.org.rddp:ulp-test
cfg=/sys/kernel/config/nvmet
img=/tmp/nvme-ns.img
mib=32

t_run "modprobe rddp" modprobe rddp
setup_dummy
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0

# The test module's TAP lines come through the kernel log; it loads only if
# every test passed. Each refusal's Terminate is logged by the peer that
# receives it (RFC 5040 §7 / RFC 5041 §7.2 codes: layer type code).
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
kverbs_terms() { dmesg | grep -c "Terminate received: $1"; }
kverbs
t_like "rddp_kverbs: 18 tests ran and the module loaded" '^18 modprobe: 0$' \
	echo "$kverbs_n $(cat /tmp/kverbs.rc)"
t_like "Terminates for a Write to an invalidated STag (DDP, invalid STag)" '^[2-9]' \
	kverbs_terms 'layer 1 type 1 code 0x00'
t_like "Terminate for remote invalidation across PDs (STag not associated)" '^[1-9]' \
	kverbs_terms 'layer 0 type 1 code 0x03'
t_like "Terminate for remote invalidation of a DMA MR (cannot be invalidated)" '^[1-9]' \
	kverbs_terms 'layer 0 type 1 code 0x09'
t_run "rmmod rddp_kverbs" rmmod rddp_kverbs

t_run "modprobe nvmet-rdma nvme-rdma" modprobe -a nvmet-rdma nvme-rdma
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

# The target: one namespace on a file (tmpfs has no O_DIRECT: buffered).
target_up() {
	truncate -s $((2 * mib))M $img &&
		mkdir $cfg/subsystems/$nqn &&
		echo 1 >$cfg/subsystems/$nqn/attr_allow_any_host &&
		mkdir $cfg/subsystems/$nqn/namespaces/1 &&
		echo -n $img >$cfg/subsystems/$nqn/namespaces/1/device_path &&
		echo 1 >$cfg/subsystems/$nqn/namespaces/1/buffered_io &&
		echo 1 >$cfg/subsystems/$nqn/namespaces/1/enable &&
		mkdir $cfg/ports/1 &&
		echo rdma >$cfg/ports/1/addr_trtype &&
		echo ipv4 >$cfg/ports/1/addr_adrfam &&
		echo $ip >$cfg/ports/1/addr_traddr &&
		echo 4420 >$cfg/ports/1/addr_trsvcid &&
		ln -s $cfg/subsystems/$nqn $cfg/ports/1/subsystems/$nqn
}
t_run "nvmet: subsystem with a file namespace on rdma $ip:4420" target_up

# The host controller of our subsystem in sysfs (empty if none).
host_ctrl() {
	local f
	f=$(grep -l "^$nqn\$" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | head -1)
	echo "${f%/subsysnqn}"
}
# The host, as `nvme connect -t rdma` does it: a line to /dev/nvme-fabrics.
host_connect() {
	local i out c
	out=$(echo "transport=rdma,traddr=$ip,trsvcid=4420,nqn=$nqn" 2>&1 >/dev/nvme-fabrics) ||
		{ echo "$out"; dmesg | tail -20; return 1; }
	for i in $(seq 1 300); do
		c=$(host_ctrl)
		[ -n "$c" ] && [ -b "/dev/${c##*/}n1" ] && {
			echo "connected: ${c##*/}n1 ($(cat "$c/transport"))"
			return 0
		}
		sleep 0.1
	done
	dmesg | tail -20
	return 1
}
t_like "nvme-rdma host connects (nvme connect -t rdma)" 'connected: nvme[0-9]+n1 \(rdma\)' host_connect
host_dev=$(host_ctrl)
blk=/dev/${host_dev##*/}n1

# 32 MiB of random data through the host with O_DIRECT, in 1 MiB I/Os
# (page lists of 256 pages) and 4 KiB ones, back out equal, and equal in
# the target's backing file.
io_roundtrip() { # BS
	local bs=$1 count=$((mib * 1024 * 1024 / $1)) a b c
	dd if=/dev/urandom of=/tmp/ulp-data bs=1M count=$mib status=none &&
		dd if=/tmp/ulp-data of="$blk" bs="$bs" count="$count" oflag=direct status=none &&
		dd if="$blk" of=/tmp/ulp-back bs="$bs" count="$count" iflag=direct status=none ||
		return 1
	a=$(sha256sum </tmp/ulp-data | cut -c1-64)
	b=$(sha256sum </tmp/ulp-back | cut -c1-64)
	c=$(head -c $((mib * 1024 * 1024)) $img | sha256sum | cut -c1-64)
	echo "written $a read $b target file $c"
	rm -f /tmp/ulp-back
	[ "$a" = "$b" ] && [ "$a" = "$c" ]
}
if [ -b "$blk" ]; then
	t_run "NVMe-oF: $mib MiB written and read back O_DIRECT in 1 MiB I/Os, sha256 equal" io_roundtrip 1048576
	t_run "NVMe-oF: $mib MiB written and read back O_DIRECT in 4 KiB I/Os, sha256 equal" io_roundtrip 4096
	t_run "NVMe-oF traffic went through rddp (rx_bytes > 128 MiB)" \
		rddp_counter_above rx_bytes 134217728
	# Each I/O: the host fast-registers its buffer, the target reads
	# with a fast-registered sink (Read with invalidate) or writes, and
	# answers with Send with Invalidate of the host's STag.
	t_run "fast registrations (mr_fast_regs > 8192)" rddp_counter_above mr_fast_regs 8192
	t_run "Read with invalidate (mr_local_invals > 16)" \
		rddp_counter_above mr_local_invals 16
	t_run "remote invalidation by Send with Invalidate (mr_remote_invals > 8192)" \
		rddp_counter_above mr_remote_invals 8192
	t_run "nvme disconnect" sh -c "echo 1 >$host_dev/delete_controller"
else
	t_fail "NVMe-oF I/O" "no block device: the host did not connect"
fi

target_down() {
	rm -f $cfg/ports/1/subsystems/$nqn
	rmdir $cfg/ports/1 &&
		echo 0 >$cfg/subsystems/$nqn/namespaces/1/enable &&
		rmdir $cfg/subsystems/$nqn/namespaces/1 &&
		rmdir $cfg/subsystems/$nqn &&
		rm -f $img
}
t_run "nvmet: target torn down" target_down
t_run "rmmod nvme-rdma nvmet-rdma" modprobe -r nvme-rdma nvmet-rdma
t_like "no QP left after the ULPs" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_like "no cm_id left after the ULPs" '^$' sh -c 'rdma res show cm_id | grep -v "^$" || true'
t_like "no MR left after the ULPs" '^$' sh -c 'rdma res show mr | grep -v "^$" || true'
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
