#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# blktests' nvme group over NVMe-oF/RDMA (the kernel community's own tests,
# a tree of the user's: tools/vm/blktests/mkroot.sh): target and host in
# this guest over one soft-RDMA link, as blktests sets up siw. One TAP line
# per blktests result.
#
# Arguments: MODE [TEST...]
#   MODE  rddp: blktests binds its default soft RNIC, siw, to every
#         Ethernet interface; /opt/rddp-shim first in PATH makes that rddp
#         (tools/vm/blktests/siw-is-rddp: its modprobe, rmmod and rdma read
#         siw's module, link type and link names as rddp's)
#         siw: blktests' default, the reference on the same kernel
#   TEST  blktests test names (default: $quick below)
# Needs build/blktests-root-$RDDP_KERNEL (tools/vm/blktests/mkroot.sh):
# blktests, fio, GNU tools, block modules and the kernel's config, laid
# over /.
#
# Each test runs under `timeout` (BLKTESTS_TIMEOUT, 300 s): a hang fails
# that test and the run goes on. blktests fails a test whose kernel log
# shows a WARNING, BUG, KASAN or lockdep report (its _check_dmesg); the
# harness checks the whole log at the end as for every suite.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: blktests.sh rddp|siw [TEST...]}
shift
# One test of each kind the issue names: discovery (003, 030), target and
# host setup (006, 008), UUID descriptors (004), I/O with fio verify (010),
# flush, discard and nvme-cli I/O (014, 019, 029), reset and reconnect
# (005, 022, 040), delete right after connect (031), queue types (047).
# Not target teardown during I/O (061): blktests enables the target's port
# before it allows the host, and a reconnect in between is refused for
# good, over siw as over rddp (Documentation/testing.md, "blktests").
quick=(nvme/003 nvme/004 nvme/005 nvme/006 nvme/008 nvme/010 nvme/014 nvme/019
	nvme/022 nvme/029 nvme/030 nvme/031 nvme/040 nvme/047)
[ $# -gt 0 ] || set -- "${quick[@]}"

root=/rddp/build/blktests-root-$RDDP_KERNEL
if [ ! -d "$root/opt/blktests" ]; then
	t_fail "blktests' root is there" "no $root: bash tools/vm/blktests/mkroot.sh $RDDP_KERNEL"
	exit 0
fi
# Over the guest's /, which is its initramfs (writable): blktests writes
# its results and image files under its own directory. No file of the
# image is replaced (-n): rewriting a library in place under the programs
# that have it mapped (init's libc) kills them.
# GNU cp from the root itself: busybox's cp of DIR/. does not merge trees.
lay_root() {
	LD_LIBRARY_PATH=$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu \
		"$root/opt/blktests/bin/cp" -a -n "$root/." / && [ -x /opt/blktests/check ]
}
t_run "lay blktests' root over /" lay_root
depmod -a
export PATH=/opt/blktests/bin:$PATH
[ "$mode" = rddp ] && export PATH=/opt/rddp-shim:$PATH
# blktests reads process substitutions (<(...)), which need /dev/fd; the
# guest's devtmpfs has no such links (udev or systemd would make them).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for f in stdin:0 stdout:1 stderr:2; do
	[ -e "/dev/${f%:*}" ] || ln -s "/proc/self/fd/${f#*:}" "/dev/${f%:*}"
done

# nvmet is configured through configfs.
modprobe configfs
t_mounted /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

# loop stays loaded for the whole run, as on a distribution that loads it
# at boot: blktests unloads after each test the modules that test's
# requires() loaded (_have_driver), and a test whose requires() omits
# _have_loop while its default backend is a loop device (nvme/047 in
# blktests a608cb5) would otherwise find no /dev/loop-control ("losetup:
# cannot find an unused loop device").
t_run "modprobe loop" modprobe loop

# blktests binds the soft RNIC to each Ethernet interface with a carrier
# and connects to 127.0.0.1 (common/nvme's def_traddr): one dummy
# interface gives it one.
setup_dummy

# What blktests' own setup runs (common/multipath-over-rdma) makes a link
# of MODE's driver, and loads no other soft RNIC.
soft_rnic() {
	local rc l
	modprobe siw && rdma link add dummy0_siw type siw netdev dummy0 &&
		echo "links: $(rdma link show | sed -n 's,^link \([^/]*\)/.*,\1,p' | tr '\n' ' ')" \
			"loaded: $(ls /sys/module | grep -x -e siw -e rddp | tr '\n' ' ')"
	rc=$?
	rdma link show | sed -n 's,^link \([^/]*\)/.*,\1,p' |
		while read -r l; do rdma link delete "$l"; done
	return $rc
}
t_like "blktests' soft-RDMA setup (modprobe siw, rdma link add ... type siw) binds $mode" \
	"^links: dummy0_$mode  loaded: $mode \$" soft_rnic

# nvmet's file backend opens its file O_DIRECT (buffered_io 0), which
# tmpfs takes from Linux 6.6 on (shmem's FMODE_CAN_ODIRECT; "Invalid
# argument" at the namespace's enable before): on older kernels the
# results, blktests' TMPDIR and its image files among them, go to XFS on
# a RAM disk (brd, 768 MiB: mkfs.xfs wants 300 MiB at least).
resdir=/tmp/blkres
odirect_ok() { dd if=/dev/zero of="$1/.odirect" bs=4096 count=1 oflag=direct 2>/dev/null; }
if ! odirect_ok /tmp; then
	t_run "XFS on a RAM disk for blktests' files (no O_DIRECT on tmpfs)" sh -c \
		'modprobe brd rd_nr=1 rd_size=786432 && modprobe xfs && mkfs.xfs -q /dev/ram0 &&
		mkdir -p /mnt/blk && mount -t xfs /dev/ram0 /mnt/blk'
	resdir=/mnt/blk/results
fi

cd /opt/blktests || exit 1
{
	echo "NVMET_TRTYPES=rdma"
	# A loop device over a file (device) and the file itself (file):
	# nvmet's two backends.
	echo 'NVMET_BLKDEV_TYPES="device file"'
	# Images in tmpfs, the guest's memory: 64 MiB (blktests: 1 GiB) keeps
	# nvme/010's verified write of the whole namespace near 30 s a backend
	# under UML (2 min at 256 MiB).
	echo "NVME_IMG_SIZE=${BLKTESTS_IMG_SIZE:-64m}"
} >config
t_like "blktests config for $mode" 'NVMET_TRTYPES=rdma' cat config

# fail_detail TEST OUTPUT: what a failed test left, lines cut to 200
# columns (fio's terse lines are thousands). blktests' own "WARNING: Test
# did not clean up" lines are renamed: the harness takes a console line
# with "WARNING:" for a kernel report (the kernel's own are in dmesg.txt,
# which it reads too).
fail_detail() {
	{
		tail -20 <<<"$2"
		find "$resdir" -path "*$1*" -newer config \( -name '*.out.bad' -o -name '*.full' \) \
			-exec tail -20 {} +
		find "$resdir" -path "*$1*" -newer config -name '*.dmesg' -exec tail -40 {} +
	} 2>/dev/null | cut -c1-200 | sed 's/WARNING:/warning (blktests):/'
}
# blktests prints "nvme/010 (tr=rdma bd=device) (DESCRIPTION) [passed]"
# per result (more than one for tests run per backend), then indented
# detail; failures have their output under $resdir. All output
# goes to blktests.log beside the TAP.
run_test() { # TEST
	local out line name status
	out=$(timeout -k 10 "${BLKTESTS_TIMEOUT:-300}" ./check -o "$resdir" "$1" 2>&1)
	local rc=$?
	echo "$out" >>"$RDDP_RESULTS/blktests.log"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		t_fail "$mode $1" "timed out after ${BLKTESTS_TIMEOUT:-300} s: $(tail -20 <<<"$out")"
		return
	fi
	local seen=0
	while IFS= read -r line; do
		[[ $line =~ ^(nvme/[0-9]+)\ (\([^\)]*\)\ )?\((.*)\)\ +\[([a-z ]+)\] ]] || continue
		name="$mode ${BASH_REMATCH[1]} ${BASH_REMATCH[2]% }"
		name=${name% }
		status=${BASH_REMATCH[4]}
		seen=1
		case $status in
		passed) t_ok "$name" ;;
		"not run")
			# The reasons: the indented lines right below.
			t_skip "$name" "$(awk -v l="$line" 'f && /^    / { if (!/^ *runtime /) print; next }
				f { exit } $0 == l { f = 1 }' <<<"$out" | tr -s ' \n' ' ')" ;;
		*) t_fail "$name" "$(fail_detail "$1" "$out")" ;;
		esac
	done <<<"$out"
	[ "$seen" = 1 ] && return
	# A test of a device under test (test_device()) runs once per device
	# in TEST_DEVS; this guest names none, and blktests runs it nowhere.
	if [ "$rc" -eq 0 ] && grep -q '^test_device()' "tests/$1"; then
		t_skip "$mode $1" "a test of a device under test (TEST_DEVS): this guest gives none"
	else
		t_fail "$mode $1 printed a result" "exit $rc: $(tail -20 <<<"$out")"
	fi
}
for t in "$@"; do run_test "$t"; done
t_like "no rdma link left" '^$' rdma link show
