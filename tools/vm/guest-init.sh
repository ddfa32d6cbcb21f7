#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# /init of the rddp test guest (tools/vm/mkinitramfs.sh installs it).
# Mounts the shares, installs the out-of-tree modules handed in by run.sh,
# runs /results/job-ROLE.sh under a watchdog, collects the kernel log and
# powers off, whatever the test did.
export PATH=/bin:/sbin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# bash's process substitution (the job's output, below) opens /dev/fd/N.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

arg() { sed -n "s/.*\brddp_vm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
RDDP_ROLE=$(arg role)
RDDP_KERNEL=$(arg kernel)
guest_timeout=$(arg timeout)
export RDDP_ROLE RDDP_KERNEL

# The tree (read-only) and the results directory: over 9p in qemu; in
# User-Mode Linux through hostfs, whose host paths run.sh passes.
top=$(arg top)
if [ -n "$top" ]; then
	mount -t hostfs -o "ro,$top" none /rddp
	mount -t hostfs -o "$(arg results)" none /results
else
	for m in virtio_pci virtio_net 9pnet_virtio 9p; do modprobe -q "$m"; done
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 rddp /rddp
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /results
fi

out=/results/$RDDP_ROLE
mkdir -p "$out"
# The modules run.sh was given go to updates/, which depmod ranks above the
# kernel's own: build-siw.sh's siw.ko replaces the plain UML kernel's.
kdir=/lib/modules/$(uname -r)
mkdir -p "$kdir/updates"
for ko in /results/ko-"$RDDP_ROLE"/*.ko; do
	[ -e "$ko" ] && cp "$ko" "$kdir/updates/"
done
depmod -a

# UML's /proc/cpuinfo has no "cpu MHz": perftest would then print 0 MB/s or
# inf. The host's figure (run.sh passes it) stands in for it.
mhz=$(arg mhz)
if [ -n "$mhz" ] && ! grep -q '^cpu MHz' /proc/cpuinfo; then
	awk -v m="$mhz" '{ print } /^processor/ { print "cpu MHz\t\t: " m }' /proc/cpuinfo >/run/cpuinfo
	mount -o bind /run/cpuinfo /proc/cpuinfo
fi

ip link set lo up
# link_up DEV SUBNET SUFFIX: DEV up at SUBNET.1 in guest a, SUBNET.2 in b;
# the test scripts get RDDP_LOCAL_IP$SUFFIX and RDDP_PEER_IP$SUFFIX.
link_up() {
	local n p
	case $RDDP_ROLE in a) n=1 p=2 ;; *) n=2 p=1 ;; esac
	export "RDDP_LOCAL_IP$3=$2.$n" "RDDP_PEER_IP$3=$2.$p"
	ip addr add "$2.$n/24" dev "$1"
	ip link set "$1" up
}
# Under UML the link is the vector driver's vec0: the tests know it as eth0.
# A second link (run.sh --links 2, User-Mode Linux's vec1) is eth1, on a
# subnet of its own.
[ -e /sys/class/net/vec0 ] && ip link set vec0 name eth0
[ -e /sys/class/net/eth0 ] && link_up eth0 192.0.2 ""
[ -e /sys/class/net/vec1 ] && ip link set vec1 name eth1
[ -e /sys/class/net/eth1 ] && link_up eth1 198.51.100 2

# kmemleak scans once at the end (below), not every 10 minutes as well:
# a scan of a debug guest costs ~25 s of TCG, and a leak found then is
# found at the end too.
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off >/sys/kernel/debug/kmemleak

# Trace events record no command names: enabling or disabling the first
# event otherwise (un)registers the recorder's probes on the scheduler's
# tracepoints, and that rewrites __schedule() while the other vCPU runs
# it. Under qemu's TCG this deadlocked a 2-vCPU guest: vCPU 0 stuck on the
# patched instruction in __schedule() with interrupts off, vCPU 1 in
# text_poke_bp() waiting for its IPI, in `echo 0 >.../enable` (rdma.sh's
# integrity_trace after zero-copy traffic; make check of 2026-12-04 and
# vm-debug-rdma-smp on 2026-12-05). The trace shows "<...>" for a task
# instead; rddp's events carry the QP and connection themselves.
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -w /sys/kernel/tracing/options/record-cmd ] &&
	echo 0 >/sys/kernel/tracing/options/record-cmd

echo "RDDP-GUEST-START role=$RDDP_ROLE kernel=$RDDP_KERNEL $(uname -r)"
cd /rddp || exit 1
# tee reads the job's output from a process substitution, not a pipeline:
# a test process stuck in the kernel (D state, which the watchdog's SIGKILL
# does not end) holds tee's input open, and a pipeline would wait for it
# until the host's bound killed the guest, without the stacks of what hung
# or the kernel log (tools/vm/selftest.sh holds such a process on purpose;
# a guest frozen whole, as by the trace deadlock above, still needs the
# host's bound, and run.sh's report then shows the stuck CPU's trace).
timeout -k 5 "${guest_timeout:-600}" bash "/results/job-$RDDP_ROLE.sh" > >(tee "$out/test.log") 2>&1
rc=$?
tee_pid=$!
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "RDDP-GUEST-TIMEOUT after ${guest_timeout}s"
	# The tasks still blocked (D state), each with its stack, to the
	# console (/proc/sysrq-trigger works whatever kernel.sysrq says).
	echo w >/proc/sysrq-trigger
	sleep 1
else
	wait "$tee_pid"
fi

# kmemleak reports only objects seen unreferenced, and unchanged, by two
# scans (about 56 s on the debug kernel under TCG, both).
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$out/kmemleak.txt"
	[ -s "$out/kmemleak.txt" ] && { echo "kmemleak report:"; cat "$out/kmemleak.txt"; }
fi
dmesg >"$out/dmesg.txt"
echo "RDDP-GUEST-DONE rc=$rc"
sync
poweroff -f
