#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: every test rddp has, in dependency order. Each suite prints a
# last line `NAME: N passed, N failed, N skipped`; this script sums them and
# ends with the totals. A suite that crashes without such a line counts as one
# failure. Logs: build/check/<suite>.log.
#
# RDDP_CHECK_ONLY="unit kmod" runs only the named suites (for development).
# RDDP_CHECK_ALL=1 (`make check-all`): every suite on every kernel, beyond
# make check's budget: every stock boot on Debian's 6.12 too, and every
# one-guest suite on qemu's debug kernel (RDDP_CHECK_QEMU_DEBUG=all).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

# C and C++ compile through ccache when it is installed (make deps installs
# it), its cache in ~/.cache/rddp/ccache beside the kernels: CMake takes
# the launcher from the environment for every tree it configures here
# (build/cmake, build/fuzz, the package's), so a fresh clone's builds hit
# the last run's objects. Paths below the checkout are hashed relative to
# it, so another clone's path hits too. Coverage builds without it
# (tools/coverage.sh): gcov's notes must name this checkout's files.
if command -v ccache >/dev/null; then
	export CCACHE_DIR="$RDDP_CACHE/ccache" CCACHE_BASEDIR="$RDDP_TOP" CCACHE_NOHASHDIR=1 \
		CCACHE_MAXSIZE=2G CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi

# qemu's guests at nice 10 beside UML's at 0. A UML instance runs its
# kernel and each of its processes as host processes that hand the one
# CPU it emulates to each other many times a second, and each hand-over
# waited behind qemu's vCPU threads, which use their whole time slices:
# beside a 2-vCPU qemu guest on the debug kernel, UML suites took 3 times
# their CPU time in wall time (uml-debug-rdma 486 s for 148 CPU-s), and
# the host was idle 8 % of the time. Measured over 30 s of that (fc11,
# 2026-12-02): qemu at nice 0 took 59 % of the host, the rest 32 %, idle
# 8 %; qemu at nice 10, 42 %, the rest 56 %, idle 1.5 %. UML uses at most
# one CPU, so qemu keeps at least the other.
export RDDP_QEMU_NICE=${RDDP_QEMU_NICE:-10}

logdir="$RDDP_TOP/build/check"
mkdir -p "$logdir"
# One line per suite that ran: NAME PASSED FAILED SKIPPED SECONDS CPU
# (CPU: seconds of user and system time its processes used, guests
# included). Both lanes append to it (below); the totals come from it at
# the end.
results="$logdir/results"
: >"$results"
rm -f "$logdir/.uml-built"
start=$SECONDS

# want NAME: NAME is selected by RDDP_CHECK_ONLY, itself or a prefix of it
# ("vm-debug" selects vm-debug-link and vm-debug-kunit).
want() {
	local w
	[ -z "${RDDP_CHECK_ONLY:-}" ] && return 0
	for w in $RDDP_CHECK_ONLY; do
		[[ $1 == "$w" || $1 == "$w"-* ]] && return 0
	done
	return 1
}

# wants_any PREFIX: some suite named PREFIX or PREFIX-* is selected
# (RDDP_CHECK_ONLY=uml-debug-kunit wants a UML debug kernel).
wants_any() {
	local w
	[ -z "${RDDP_CHECK_ONLY:-}" ] && return 0
	for w in $RDDP_CHECK_ONLY; do
		[[ $w == "$1" || $w == "$1"-* || $1 == "$w"-* ]] && return 0
	done
	return 1
}

# run_counted FILE CMD...: CMD in a subshell of its own, which then writes
# to FILE the CPU ticks CMD and its descendants used (the subshell's
# /proc/PID/stat cutime and cstime: its only children are CMD's). Not this
# shell's own counts: bash reaps the background lane whenever it ends, and
# its CPU would go to the suite running then.
hz=$(getconf CLK_TCK)
run_counted() {
	local f=$1
	shift
	(
		"$@"
		rc=$?
		read -ra st <"/proc/$BASHPID/stat"
		echo $((st[15] + st[16])) >"$f"
		exit "$rc"
	)
}

# suite NAME CMD...: run CMD, show its output (only its last line in the
# background lane, quiet=1), take its counts.
quiet=0
suite() {
	local name=$1 rc line p=0 f=0 s=0 t0=$SECONDS cpu
	shift
	want "$name" || return 0
	rm -f "$logdir/$name.cpu"
	if [ "$quiet" = 1 ]; then
		run_counted "$logdir/$name.cpu" "$@" >"$logdir/$name.log" 2>&1
		rc=$?
	else
		rddp_log "== $name: $*"
		run_counted "$logdir/$name.cpu" "$@" 2>&1 | tee "$logdir/$name.log"
		rc=${PIPESTATUS[0]}
	fi
	cpu=$(cat "$logdir/$name.cpu" 2>/dev/null || echo 0)
	line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' \
		"$logdir/$name.log" | tail -1)
	if [ -n "$line" ]; then
		p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		s=$(sed -nE 's/.* ([0-9]+) skipped$/\1/p' <<<"$line")
		s=${s:-0}
	fi
	# A command without counts is one test; a non-zero exit with no
	# failure counted is itself a failure.
	if [ -z "$line" ] && [ "$rc" -eq 0 ]; then
		p=1
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "$name: exited with status $rc" | tee -a "$logdir/$name.log"
	fi
	[ "$quiet" = 1 ] && echo "== $name (background lane): $p passed, $f failed, $s skipped"
	echo "$name $p $f $s $((SECONDS - t0)) $((cpu / hz))" >>"$results"
}

# with_lock LOCK BEAT LOG COMMAND...: COMMAND under flock LOCK, its output
# in LOG; the log's tail and COMMAND's status if it fails. A line every
# BEAT seconds while it runs (a cold kernel build takes from 10 minutes to
# well over an hour on 2 cores): never a silent console.
with_lock() {
	local lock=$1 every=$2 log=$3 beat rc=0 t0=$SECONDS what
	shift 3
	what="$*"
	(
		while sleep "$every"; do
			rddp_log "still building ${what#make -s } ($(((SECONDS - t0) / 60)) min): $(tail -1 "$logdir/$log" 2>/dev/null | cut -c1-120)"
		done
	) &
	beat=$!
	flock "$lock" "$@" >"$logdir/$log" 2>&1 || rc=$?
	kill "$beat" 2>/dev/null
	wait "$beat" 2>/dev/null
	[ "$rc" -eq 0 ] && return 0
	tail -30 "$logdir/$log"
	return "$rc"
}
# locked LOG COMMAND...: COMMAND under the build lock (one build into build/
# at a time, as both lanes build what they need).
locked() {
	with_lock "$logdir/.build.lock" 60 "$@"
}
# kernel NAME LOG: the kernel NAME (uml-debug, debug, uml: UML's debug and
# plain kernels, qemu's debug kernel) the guests boot, from the cache or
# built into it by tools/kernel/build-*.sh (keyed by their inputs), under a lock of the
# cache's own for NAME, not the build lock: a kernel build (on a cold cache
# 10 to 50 minutes) then holds up no module build the other lane needs,
# nor a suite that needs another kernel, and two callers (a lane and the
# kernel lane below, or two checkouts' runs) never build one kernel at
# once; the second finds it built. A cached kernel costs a second.
kernel() {
	local name=$1 log=$2 script
	case $name in
	uml-debug) script=(tools/kernel/build-uml-kernel.sh debug) ;;
	uml) script=(tools/kernel/build-uml-kernel.sh plain) ;;
	debug) script=(tools/kernel/build-debug-kernel.sh) ;;
	esac
	with_lock "$RDDP_CACHE/.kernel-build-$name.lock" 60 "$log" bash "${script[@]}"
}
# build LOG TARGET...: make the targets (locked).
build() {
	local log=$1
	shift
	locked "$log" make -s "$@"
}

if want deps; then
	rddp_log "== deps"
	bash tools/deps.sh || rddp_die "installing dependencies failed"
fi

# The kernels the guests boot, in a lane of their own from the start: on a
# cold cache (a new machine) they take most of an hour on 2 cores, and the
# first suites need none of them (Debian's kernels boot as installed). Each
# suite that needs one asks for it (kernel, above) and waits only if it is
# still being built; a kernel already in the cache costs a second. The UML
# debug kernel first: the background lane's suites need it first, the qemu
# lane its debug kernel only after its Debian boots; the plain UML kernel
# (siw for uml-debug-two's interop) last. The builds run at nice 10 and
# a failed one is reported by the suite that needed it.
# Its wall and CPU seconds go to kernels.time for the summary.
kernel_lane_builds() {
	if wants_any uml-debug; then
		kernel uml-debug kernel-lane-uml-debug.log
	fi
	if wants_any kmod || wants_any vm-debug; then
		kernel debug kernel-lane-debug.log && touch "$logdir/.kernel-ready-debug"
	fi
	if wants_any uml-debug-two; then
		kernel uml kernel-lane-uml-plain.log
	fi
	return 0
}
kernel_lane=""
rm -f "$logdir/kernels.cpu" "$logdir/kernels.time" "$logdir/.kernel-ready-debug"
if wants_any uml-debug || wants_any kmod || wants_any vm-debug; then
	(
		t0=$SECONDS
		run_counted "$logdir/kernels.cpu" kernel_lane_builds
		echo "$((SECONDS - t0)) $(($(cat "$logdir/kernels.cpu") / hz))" >"$logdir/kernels.time"
	) &
	kernel_lane=$!
fi
# A failed build ends this script; the kernel lane (and the background
# lane, below) go with it.
trap 'kill $kernel_lane 2>/dev/null' EXIT

# rddpctl, the test programs and the unit tests (build/cmake, whose
# compile commands cxx-style reads), and the module for Debian's kernel:
# what the qemu lane's first guests need, built first so that the qemu
# lane, the long one, starts at once. Builds into build/ take the lock.
suite userspace flock "$logdir/.build.lock" make -s userspace
if want vm-stock; then
	build build-for-vm-stock.log kmod-stock ||
		rddp_die "build of rddp.ko for Debian's kernel failed"
fi


# VM tests, Debian's stock kernel then the debug kernel.
# A TEST may be SCRIPT+MORE.sh+...: the MORE scripts run in SCRIPT's boot
# after it (t_then in tests/vm/lib.sh, cm.sh passes its arguments there),
# their checks named "MORE: ..." in SCRIPT's suite, which either name
# selects (RDDP_CHECK_ONLY=vm-stock-sctp runs vm-stock-cm).
vm() { # KERNEL TEST...
	local kernel=$1 t m any="" more only
	shift
	# Build only if one of these suites is selected (vm-stock-rdma alone too).
	for t in "$@"; do
		for m in ${t//+/ }; do
			want "vm-$kernel-$(basename "$m" .sh)" && any=1
		done
	done
	[ -n "$any" ] || return 0
	if [ "$kernel" = debug ]; then
		kernel debug debug-kernel-vm.log ||
			rddp_die "debug kernel build failed"
	fi
	# The module and the programs tests run from /rddp/build.
	build "build-for-vm-$kernel.log" "kmod-$kernel" userspace ||
		rddp_die "build for $kernel VM tests failed"
	for t in "$@"; do
		read -ra more <<<"${t//+/ }"
		t=${more[0]}
		more=("${more[@]:1}")
		# A selected MORE selects SCRIPT's suite.
		only=${RDDP_CHECK_ONLY:-}
		for m in "${more[@]}"; do
			want "vm-$kernel-$(basename "$m" .sh)" && [ -n "$only" ] &&
				only+=" vm-$kernel-$(basename "$t" .sh)"
		done
		# A bound of 10 min a script and 10 more: on the debug kernel
		# under TCG rdma.sh needs ~12 min, ulp.sh ~14 on a loaded host.
		RDDP_CHECK_ONLY=$only suite "vm-$kernel-$(basename "$t" .sh)" bash tools/vm/run.sh --kernel "$kernel" \
			--timeout $((600 + 600 * (${#more[@]} + 1))) --name "$kernel-$(basename "$t" .sh)" \
			--ko "build/kmod-$kernel/rddp.ko" \
			--ko "build/kmod-$kernel/test/rddp_kverbs.ko" "$t" "${more[@]}"
	done
}

# uml_prepare: UML's debug kernel (the kernel lane's, or built here) and the
# module and programs for it, once a run (both lanes' UML suites and
# bench's quick mode call this, one suite at a time).
uml_prepare() {
	[ -f "$logdir/.uml-built" ] && return 0
	kernel uml-debug build-uml-kernel.log ||
		rddp_die "UML kernel build failed"
	build build-for-uml-debug.log kmod-uml-debug userspace ||
		rddp_die "build for UML tests failed"
	touch "$logdir/.uml-built"
}
# The User-Mode Linux lane: the same scripts on UML's debug kernel, 6.12
# (KASAN, UBSAN, lockdep, KUnit, kmemleak where uml_kmemleak says), a boot
# in under a second and kernel code at native speed, one CPU. Suites are
# named uml-debug-*; `two` is two instances joined by tools/vm/uml-wire.py
# (two-vm-check.sh), and `faults` the same over a link that loses,
# reorders, duplicates and delays frames.
# kmemleak tracks every allocation, which costs allocation-heavy scripts
# 2-3 times their time (verbs.sh's test program 61 s against 25): it runs
# where rddp holds memory for others or on a peer's say-so, the ULPs (their
# MRs and QPs), the hostile peer (error paths, both transports, SCTP's
# held chunks among them) and churn (QPs and connections made and ended by
# the hundred: 135 CPU-s with it, 100 without); `make check-all` runs
# every one-guest script with it (sctp.sh: 362 CPU-s with it, 205 without;
# its floods check that held chunks' memory comes back).
uml_kmemleak=" tests/vm/ulp.sh tests/vm/hostile.sh tests/vm/churn.sh "
uml() { # TEST...|two|faults
	local t any="" leak
	for t in "$@"; do
		want "uml-debug-$(basename "$t" .sh)" && any=1
	done
	[ -n "$any" ] || return 0
	uml_prepare
	for t in "$@"; do
		if [ "$t" = two ]; then
			# smoke and markers: rddp at both ends; interop: rddp
			# on the debug kernel, siw (build-siw.sh's, as in qemu)
			# on the plain one, whose lockdep-free build siw needs;
			# sctp: DDP over SCTP across a reordering, lossy wire.
			# The plain kernel and siw build once (cached), siw
			# under the build lock.
			kernel uml build-uml-plain-kernel.log
			locked build-siw-uml.log bash tools/vm/build-siw.sh uml
			suite uml-debug-two bash tools/vm/two-vm-check.sh uml-debug smoke interop markers sctp
			continue
		fi
		if [ "$t" = faults ]; then
			suite uml-debug-faults bash tools/vm/two-vm-check.sh uml-debug faults
			continue
		fi
		leak=()
		[[ $uml_kmemleak == *" $t "* || ${RDDP_CHECK_ALL:-} = 1 ]] && leak=(--kmemleak)
		suite "uml-debug-$(basename "$t" .sh)" bash tools/vm/run.sh --kernel uml-debug \
			--timeout 1500 --name "uml-debug-$(basename "$t" .sh)" "${leak[@]}" \
			--ko build/kmod-uml-debug/rddp.ko \
			--ko build/kmod-uml-debug/test/rddp_kverbs.ko "$t"
	done
}
# The UML suites: from the shared queue below, in the background lane beside
# the qemu lane (UML keeps one host CPU busy, qemu's 2 vCPUs the other), and
# in the qemu lane once its own guests are done.
uml_tests=(tests/vm/kunit.sh tests/vm/link.sh tests/vm/verbs.sh tests/vm/rdma.sh tests/vm/cm.sh
	tests/vm/rddpctl.sh tests/vm/netns.sh tests/vm/hostile.sh tests/vm/liveness.sh tests/vm/churn.sh
	tests/vm/bench-smoke.sh tests/vm/sctp.sh tests/vm/ulp.sh)
# The module's static checks: rddp.ko built with W=1 and sparse for Debian's
# 6.1 and 6.12 in trees of their own, and for the debug kernel
# (build/kmod-debug, which the qemu lane builds into too: that build alone
# under the build lock, RDDP_BUILD_LOCK), checkpatch and kernel-doc. Late
# in the queue below: on a cold cache the debug kernel is built by then.
kmod_suite() {
	if want kmod; then
		kernel debug debug-kernel.log ||
			rddp_die "debug kernel build failed"
	fi
	RDDP_BUILD_LOCK="$logdir/.build.lock" suite kmod bash tools/kmod-check.sh
}
# make bench's quick mode: every series (rddp, rddp without CRC, siw, TCP)
# once, on the kernel and module built for the UML suites; no figure judged.
bench_quick() {
	want uml-debug-bench-quick || return 0
	uml_prepare
	suite uml-debug-bench-quick env BENCH=quick BENCH_BUILD=0 bash tools/bench.sh
}
# The kernel community's own tests: blktests' nvme group over NVMe-oF/RDMA
# with rddp as the soft RNIC (tests/vm/blktests.sh), the subset the script
# names, under UML's debug kernel (6.12), where KASAN and lockdep watch
# nvme-rdma and nvmet-rdma over rddp. blktests is not part of rddp: it
# runs when BLKTESTS_DIR names a blktests tree (Documentation/testing.md,
# "blktests"), else the suite is one skip that says so. fio, GNU tools
# and block modules come from tools/vm/blktests/mkroot.sh (cached by its
# inputs; fio is built there once). `make check-all` runs it over siw on
# the same kernel too: the reference.
blktests_suite() {
	local rc=0
	wants_any uml-debug-blktests || return 0
	uml_prepare
	# A lock of its own, not the build lock: fio's first build (about a
	# minute of CPU) holds up no module build.
	with_lock "$logdir/.blktests.lock" 60 build-blktests-root.log \
		bash tools/vm/blktests/mkroot.sh uml-debug || rc=$?
	if [ "$rc" = 2 ]; then
		echo "uml-debug-blktests: skipped: no blktests tree; set BLKTESTS_DIR to a checkout of https://github.com/linux-blktests/blktests" |
			tee "$logdir/uml-debug-blktests.log"
		echo "uml-debug-blktests 0 0 1 0 0" >>"$results"
		return 0
	elif [ "$rc" != 0 ]; then
		echo "uml-debug-blktests 0 1 0 0 0" >>"$results"
		return 0
	fi
	blktests_run uml-debug-blktests rddp
	# siw with make check-all, or when named (RDDP_CHECK_ONLY=uml-debug-blktests-siw).
	if [ "${RDDP_CHECK_ALL:-}" = 1 ] || [[ " ${RDDP_CHECK_ONLY:-} " == *" uml-debug-blktests-siw "* ]]; then
		blktests_run uml-debug-blktests-siw siw
	fi
	return 0
}
blktests_run() { # NAME MODE
	suite "$1" bash tools/vm/run.sh --kernel uml-debug --timeout 2400 --name "$1" \
		--ko build/kmod-uml-debug/rddp.ko tests/vm/blktests.sh "$2"
}
# rdma-core's own tests (Debian's python3-pyverbs and its tests/, run by
# tests/vm/pyverbs.sh): siw, the reference, then rddp, in one boot of UML's
# debug kernel. Python and the tests come from tools/vm/pyverbs/mkroot.sh
# (Debian's packages unpacked, cached by their versions: seconds), in the
# guest's eth0 (run.sh --nic).
pyverbs_suite() {
	want uml-debug-pyverbs || return 0
	uml_prepare
	if ! with_lock "$logdir/.pyverbs.lock" 60 build-pyverbs-root.log \
		bash tools/vm/pyverbs/mkroot.sh; then
		echo "uml-debug-pyverbs 0 1 0 0 0" >>"$results"
		return 0
	fi
	# --nic: the tests find the RNIC's address through its netdev's device
	# in sysfs, which dummy0 has not.
	suite uml-debug-pyverbs bash tools/vm/run.sh --kernel uml-debug --nic --timeout 2400 \
		--name uml-debug-pyverbs --ko build/kmod-uml-debug/rddp.ko tests/vm/pyverbs.sh
}
# Storage as users run it (tests/vm/storage.sh smoke): NVMe-oF, NFSv4.2
# and iSCSI over rddp, over siw and over TCP (NVMe/TCP, NFS/TCP,
# iscsi_tcp), each with one fio job whose data read back is verified
# (crc32c), in one boot of UML's debug kernel. fio from tools/vm/fio.sh
# (cached). No time is judged (make bench measures); rddp's segments and
# transmits per NVMe-oF read at MTU 1500 are (counts).
storage_suite() {
	want uml-debug-storage || return 0
	uml_prepare
	if ! locked build-fio.log bash tools/vm/fio.sh; then
		echo "uml-debug-storage 0 1 0 0 0" >>"$results"
		return 0
	fi
	suite uml-debug-storage bash tools/vm/run.sh --kernel uml-debug --timeout 900 \
		--name uml-debug-storage --ko build/kmod-uml-debug/rddp.ko tests/vm/storage.sh smoke
}
# Two qemu guests on Debian's 6.12, rddp and siw built from
# linux-source-6.12. The module is built by then (vm-stock-two), unless
# only these run.
stock_612_two() {
	want vm-stock-6.12-two || return 0
	if build build-for-vm-stock-6.12-two.log kmod-stock-6.12; then
		suite vm-stock-6.12-two bash tools/vm/two-vm-check.sh stock-6.12 interop
	else
		echo "vm-stock-6.12-two 0 1 0 0 0" >>"$results"
	fi
}

# Debian's 6.12 (Debian 13's and RHEL 10's kernel line): a named subset
# in make check, link lifecycle, rdma.sh's parts that race on two CPUs
# (rdma-smp.sh, with zero-copy TX through MSG_SPLICE_PAGES; all of rdma.sh
# runs under UML's debug kernel, 6.12 too) and netns (a kernel socket's
# namespace reference differs on 6.12) in one boot, the ULPs and the
# hostile peer (both transports) in another; `make check-all` runs every
# stock boot on it. The last boot is in the shared queue below, with
# interop with siw on 6.12 (built from linux-source-6.12) both ways
# (vm-stock-6.12-two).
# rddp on 6.1 meets rddp on 6.12 in vm-stock-two's ulp-rddp.
if [ "${RDDP_CHECK_ALL:-}" = 1 ]; then
	vm_612=(tests/vm/link.sh+verbs.sh+rdma.sh tests/vm/cm.sh+sctp.sh+rddpctl.sh+netns.sh
		tests/vm/ulp.sh+hostile.sh+trace.sh)
else
	vm_612=(tests/vm/link.sh+rdma-smp.sh+netns.sh tests/vm/ulp.sh+hostile.sh)
fi
# The queue both lanes finish with: the UML suites, make bench's quick
# mode, kmod, the last 6.12 boot (vm_612 above) and interop with siw on
# 6.12. The background lane takes from its front once its host suites and
# self-tests are done, the qemu lane from its back once its own guests are
# done (and while it waits for qemu's debug kernel on a cold cache), each
# suite once (run_queue), until they meet: UML runs on one host
# CPU, so while the qemu lane's guests run the background lane has one
# CPU, and after they end the two lanes share the rest, instead of one
# lane running alone beside an idle CPU (a fixed split would need the
# lanes' times known in advance: they vary with the host's load). The
# longest of the background lane's suites first; the qemu guests at the
# back, where the qemu lane starts, so that two 2-vCPU qemu guests do not
# run at once.
queue=("uml two" blktests_suite bench_quick "uml faults" "uml tests/vm/sctp.sh" "uml tests/vm/ulp.sh" storage_suite "uml tests/vm/rdma.sh"
	"uml tests/vm/churn.sh" kmod_suite "uml tests/vm/hostile.sh" "uml tests/vm/rddpctl.sh"
	"uml tests/vm/liveness.sh" "uml tests/vm/link.sh" "uml tests/vm/verbs.sh" "uml tests/vm/cm.sh"
	"uml tests/vm/netns.sh" "uml tests/vm/bench-smoke.sh" pyverbs_suite "uml tests/vm/kunit.sh"
	stock_612_two 'vm stock-6.12 "${vm_612[-1]}"')
for t in "${uml_tests[@]}"; do
	[[ " ${queue[*]} " == *" uml $t "* ]] || rddp_die "check.sh: $t is in no lane's queue"
done
echo "0 $((${#queue[@]} - 1))" >"$logdir/queue"
# queue_left: some job of the queue is not taken yet. Read under the
# queue's lock: run_queue rewrites the file in place, and a read between
# its truncation and its write found it empty ("[: : integer expression
# expected").
queue_left() {
	local first last
	read -r first last <<<"$(flock "$logdir/.queue.lock" cat "$logdir/queue")"
	[ "$first" -le "$last" ]
}
# run_queue front|back [N]: the queue's jobs from that end, one at a time,
# until none is left (or N were run); $logdir/queue holds the indexes of
# the first and last job not yet taken, read and moved under a lock of its
# own.
run_queue() {
	local end=$1 n=${2:--1} i
	while [ "$n" -ne 0 ]; do
		n=$((n - 1))
		i=$(flock "$logdir/.queue.lock" bash -c '
			read -r first last <"$1"
			[ "$first" -le "$last" ] || exit 1
			if [ "$2" = front ]; then i=$first first=$((first + 1)); else i=$last last=$((last - 1)); fi
			echo "$first $last" >"$1"
			echo "$i"' _ "$logdir/queue" "$end") || return 0
		eval "${queue[$i]}"
	done
}
(
	quiet=1
	# The host suites go first here, beside the qemu lane, not before both
	# lanes: the protocol core and tools' unit tests (built above), then
	# those that build into their own trees (build/coverage, build/fuzz,
	# the package's stage) or only read (cxx-style). None needs a kernel
	# of the kernel lane's, so on a cold cache they run while it builds.
	suite unit flock "$logdir/.build.lock" bash tools/unit-tests.sh
	suite coverage bash tools/coverage.sh
	suite fuzz bash tools/fuzz.sh "${RDDP_FUZZ_SECONDS:-15}"
	# C++ style: clang-format and clang-tidy over userspace/ and tests/.
	suite cxx-style bash tools/cxx-style.sh
	# Debian packages: make deb, lintian, dkms build and install in a
	# scratch tree (the installed module loaded by modprobe in a qemu guest
	# on Debian's kernel), rddp-utils in a scratch root, module metadata,
	# rddp-link@.service. Its make kmod-stock takes the build lock.
	suite package bash tools/package-check.sh
	# The harness proves it can fail, under UML before this lane relies on
	# it passing, and in qemu (beside the qemu lane, whose suites count
	# only with it: the summary has both).
	if want uml-debug-selftest; then
		kernel uml-debug build-uml-kernel.log ||
			rddp_die "UML kernel build failed"
	fi
	suite uml-debug-selftest bash tools/vm/selftest.sh uml
	suite vm-selftest bash tools/vm/selftest.sh qemu
	# Then the shared queue (above), from its front.
	run_queue front
) &
uml_lane=$!
# A failed build ends this script: the lanes go with it (a running suite
# ends at its own timeout).
trap 'kill "$uml_lane" $kernel_lane 2>/dev/null' EXIT


# Debian's kernel: the one-guest suites in three boots (a stock boot with
# its module load costs ~30 s of TCG; the qemu lane is the long one). Each
# SCRIPT+MORE boot runs MORE after SCRIPT (t_then), its checks named
# "MORE: ..." in SCRIPT's suite, which either name selects: vm-stock-link
# holds verbs.sh and rdma-smp.sh, vm-stock-cm sctp.sh (DDP over SCTP) and
# netns.sh, vm-stock-ulp trace.sh. Each script ends with rddp unloaded.
# Every one-guest script runs whole on UML's debug kernel (6.12, above);
# on Debian's 6.1 make check runs what UML cannot show (SMP: rdma.sh's
# racing parts, rdma-smp.sh; cm.sh's and sctp.sh's; the ULPs on a real
# kernel; tracing, which the UML kernels are built without; netns.sh on
# 6.1) and link.sh and verbs.sh, and on Debian's 6.12 rdma-smp.sh and
# hostile.sh whole (vm_612 above). make check-all runs every script here
# too (rdma.sh whole, rddpctl.sh, hostile.sh, which make check ran here
# until 2026-12-02).
if [ "${RDDP_CHECK_ALL:-}" = 1 ]; then
	vm_stock=(tests/vm/link.sh+verbs.sh+rdma.sh tests/vm/cm.sh+sctp.sh+rddpctl.sh+netns.sh
		tests/vm/ulp.sh+hostile.sh+trace.sh)
else
	vm_stock=(tests/vm/link.sh+verbs.sh+rdma-smp.sh tests/vm/cm.sh+sctp.sh+netns.sh
		tests/vm/ulp.sh+trace.sh)
fi
# The ULPs across two qemu guests with rddp's initiators on the debug
# kernel, under kmemleak, and siw's targets on Debian's kernel. Smoke,
# interop and markers run in uml-debug-two (KASAN, lockdep, UBSAN at native
# speed: interop there took 126 s where it took 475 here), and here too with
# RDDP_CHECK_QEMU_DEBUG=all.
debug_two() {
	local runs=(ulp-siw)
	[ "${RDDP_CHECK_QEMU_DEBUG:-}" = all ] && runs=()
	want vm-debug-two || return 0
	kernel debug debug-kernel-vm.log || rddp_die "debug kernel build failed"
	build build-for-vm-debug.log kmod-debug userspace ||
		rddp_die "build for debug VM tests failed"
	suite vm-debug-two bash tools/vm/two-vm-check.sh debug "${runs[@]}"
}
# Where it runs: its two 2-vCPU TCG guests took 313 s and 477 CPU-s alone
# and 690 s and 767 CPU-s beside UML suites (fc13, 2026-12-02): a vCPU the
# host deschedules costs its guest CPU, not only time. So it runs first,
# beside the host suites of the background lane, when qemu's debug kernel
# was in the cache (the kernel lane found it at once: a warm cache), and
# after Debian's boots otherwise (a cold cache: they need no kernel built).
[ "${RDDP_CHECK_ALL:-}" = 1 ] && RDDP_CHECK_QEMU_DEBUG=all
debug_two_done=""
if [ -f "$logdir/.kernel-ready-debug" ]; then
	debug_two
	debug_two_done=1
fi
vm stock "${vm_stock[@]}"
# Two guests, rddp in one and upstream siw in the other, with a pcap.
# (smoke and markers, rddp at both ends, run in uml-debug-two; ulp-siw in
# vm-debug-two, with rddp's guest on the debug kernel, and here with
# make check-all.) ulp-rddp's target guest boots 6.12: its module first.
if want vm-stock-two; then
	build build-for-vm-stock-6.12.log kmod-stock-6.12 ||
		rddp_die "build of rddp.ko for Linux 6.12 failed"
fi
stock_two=(interop ulp-rddp)
[ "${RDDP_CHECK_ALL:-}" = 1 ] && stock_two=(interop ulp-siw ulp-rddp)
suite vm-stock-two bash tools/vm/two-vm-check.sh stock "${stock_two[@]}"
vm stock-6.12 "${vm_612[@]:0:${#vm_612[@]}-1}"
# On a cold cache qemu's debug kernel is still being built here (fc15, a
# cold run: the lane waited 30 minutes for it): the queue's jobs
# from its back meanwhile, one at a time (Debian's 6.12 boots first, which
# need no kernel built), until the kernel lane has built it or none is left.
while [ ! -f "$logdir/.kernel-ready-debug" ] && queue_left; do
	run_queue back 1
done
# The debug kernel's one-guest suites run under UML (6.12; kmemleak
# where uml_kmemleak says); qemu's debug kernel
# (6.1) keeps what UML cannot show: SMP (rdma.sh's parts that race on 2
# vCPUs: concurrent connections, the 64-QP integrity run, perftest
# streams, zero copy; tests/vm/rdma-smp.sh), in a boot of its own
# (suite vm-debug-rdma-smp). RDDP_CHECK_QEMU_DEBUG=all runs every
# one-guest suite there too (SCTP's included: that kernel has SCTP from
# tools/kernel/rddp-debug-qemu.config), so 6.1 under a debug kernel sees
# all of them.
if [ "${RDDP_CHECK_QEMU_DEBUG:-}" = all ]; then
	vm debug "${uml_tests[@]}"
else
	# rdma.sh's SMP parts (all of it with =all), and the KUnit suites on
	# 6.1 (uml-debug-kunit runs them on 6.12). The ULPs and the hostile
	# peer run under UML's debug kernel with kmemleak (uml_kmemleak).
	vm debug tests/vm/rdma-smp.sh+kunit.sh
fi
[ -n "$debug_two_done" ] || debug_two
# Then the shared queue, from its back (its qemu guests first).
run_queue back
# The lane's own failure (a build) counts once.
wait "$uml_lane" || echo "uml-lane 0 1 0 0 0" >>"$results"
# The kernel lane has ended by now unless no suite needed what it built
# last; its failures were counted by the suites that needed its kernels.
[ -n "$kernel_lane" ] && wait "$kernel_lane"
trap - EXIT

total_pass=0 total_fail=0 total_skip=0 total_cpu=0
echo
echo "== summary ($(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s; the UML lane beside the qemu lane)"
while read -r name p f s secs cpu; do
	printf '%-22s %4d passed %4d failed %4d skipped  %4ds  %5ds CPU\n' "$name" "$p" "$f" "$s" "$secs" "${cpu:-0}"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	total_cpu=$((total_cpu + ${cpu:-0}))
done <"$results"
echo "CPU time of the suites: $((total_cpu / 60)) min (the wall time cannot fall below half of it on 2 cores)"
if [ -f "$logdir/kernels.time" ]; then
	read -r ksecs kcpu <"$logdir/kernels.time"
	echo "the kernel lane: ${ksecs} s, ${kcpu} s CPU (a second when every kernel was in the cache)"
fi
# The failed checks by name, last, where a CI log's tail shows them (the
# background lane's suites printed one line each).
while read -r name p f s secs cpu; do
	[ "$f" -gt 0 ] || continue
	echo "== $name failed:"
	grep -E '^not ok |: exited with status ' "$logdir/$name.log" | head -10
done <"$results"
echo "check: $total_pass passed, $total_fail failed, $total_skip skipped"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
