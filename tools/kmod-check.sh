#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds rddp.ko for Debian's 6.1 kernel, Debian's 6.12 (headers only) and
# the debug kernel, and runs the kernel's static checks over the module's
# sources:
#   - no compiler warnings with W=1 (every kernel; the debug build has KUnit)
#   - sparse (C=2: every file) reports nothing, on 6.1 and 6.12
#   - scripts/checkpatch.pl --strict is clean
#   - scripts/kernel-doc -none -v reports nothing: every kernel-doc comment
#     is well formed and complete (which ones there must be:
#     Documentation/architecture.md, "Kernel-doc")
# Prints one TAP line a check and `kmod: N passed, N failed, N skipped`.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

pass=0 fail=0 n=0
out="$RDDP_TOP/build/check"
mkdir -p "$out"

# verdict OK NAME LOG DETAIL-CMD...: a TAP line for NAME, passed if OK is
# 1; a failure names LOG and shows DETAIL-CMD's output.
verdict() {
	local ok=$1 name=$2 log=$3
	shift 3
	n=$((n + 1))
	if [ "$ok" = 1 ]; then
		pass=$((pass + 1))
		echo "ok $n - $name"
	else
		fail=$((fail + 1))
		echo "not ok $n - $name (log $log)"
		"$@" | sed 's/^/#   /'
	fi
}

# check NAME LOGFILE RC: passes with rc 0 and no warning lines in LOGFILE;
# a failure shows them, or the log's tail.
check() {
	local name=$1 log=$2 rc=$3 bad ok=0
	bad=$(grep -E 'warning:|error:|^(WARNING|ERROR|CHECK):' "$log" | grep -v 'Skipping BTF' || true)
	[ "$rc" -eq 0 ] && [ -z "$bad" ] && ok=1
	verdict "$ok" "$name" "$log" check_detail "$rc" "$bad" "$log"
}
check_detail() { # RC BAD-LINES LOG
	echo "exit status $1"
	{ [ -n "$2" ] && echo "$2" || tail -20 "$3"; } | head -40
}

# The compiler make kmod used (the Makefile's KMOD_CC: ccache under
# tools/check.sh): another one would make Kbuild rebuild every object.
kmod_cc=()
[ -n "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null && kmod_cc=(CC="ccache gcc")

# build_and_sparse KDIR TREE NAME LOG: rddp.ko for the kernel at KDIR in a
# tree of its own, built from scratch (make check builds build/kmod-stock
# for its guests before this runs, and a build that is up to date prints
# no warning whatever the sources hold), then sparse over every file (C=2
# re-checks files that are already built); logs kmod-LOG.log and
# kmod-sparse-LOG.log.
build_and_sparse() {
	local kdir=$1 tree=$2 name=$3 log=$4
	rm -rf "$tree"
	make -s kmod KDIR="$kdir" KMOD_OUT="$tree" RDDP_TESTS=1 >"$out/kmod-$log.log" 2>&1
	check "rddp.ko builds for $name with W=1, no warnings" "$out/kmod-$log.log" $?
	make -s -C "$kdir" M="$tree" RDDP_INCLUDE="$RDDP_TOP/include" \
		RDDP_VERSION="$(bash tools/version.sh)" RDDP_TESTS=1 "${kmod_cc[@]}" \
		C=2 modules >"$out/kmod-sparse-$log.log" 2>&1
	check "sparse (C=2) clean on $name" "$out/kmod-sparse-$log.log" $?
}
build_and_sparse "/lib/modules/$(rddp_stock_kver)/build" "$RDDP_TOP/build/kmod-check" \
	"Debian 6.1" stock

# The same for Linux 6.12 (Debian 12's 6.12 headers; kmod/compat.h).
k612=$(rddp_612_kver) || k612=""
if [ -n "$k612" ]; then
	build_and_sparse "/usr/src/linux-headers-$k612" "$RDDP_TOP/build/kmod-check-6.12" \
		"Linux $k612" 6.12
else
	echo "no Linux 6.12 headers (make deps installs them)" >"$out/kmod-6.12.log"
	check "Linux 6.12 headers are installed" "$out/kmod-6.12.log" 1
fi

# Any other kernel stops at once with the supported ones named (kmod/Kbuild):
# 6.1's headers made to say 6.5.
log="$out/kmod-unsupported.log"
rm -rf "$RDDP_TOP/build/kmod-unsupported"
make -s kmod KDIR="/lib/modules/$(rddp_stock_kver)/build" \
	KMOD_OUT="$RDDP_TOP/build/kmod-unsupported" PATCHLEVEL=5 >"$log" 2>&1
rc=$?
ok=0
[ "$rc" -ne 0 ] && grep -q 'rddp supports Linux 6.1 and 6.12, not 6.5' "$log" &&
	[ "$(grep -c 'error:' "$log")" -eq 0 ] && [ ! -e "$RDDP_TOP/build/kmod-unsupported/rddp.o" ] && ok=1
verdict "$ok" "a kernel other than 6.1 and 6.12 stops the build at once, naming them" "$log" \
	tail -5 "$log"

if dbg=$(bash tools/kernel/build-debug-kernel.sh 2>"$out/debug-kernel.log"); then
	# build/kmod-debug is the qemu lane's too: make check runs this beside
	# it and names its build lock (RDDP_BUILD_LOCK), which only this
	# build takes; the other trees here are this script's own.
	lock=()
	[ -n "${RDDP_BUILD_LOCK:-}" ] && lock=(flock "$RDDP_BUILD_LOCK")
	"${lock[@]}" make -s kmod-debug >"$out/kmod-debug.log" 2>&1
	check "rddp.ko (with KUnit suites) builds for the debug kernel with W=1" \
		"$out/kmod-debug.log" $?
else
	cat "$out/debug-kernel.log" >"$out/kmod-debug.log"
	check "debug kernel builds" "$out/kmod-debug.log" 1
fi

src=$(rddp_linux_source)
mapfile -t files < <(git ls-files -co --exclude-standard -- 'kmod/*.[ch]' 'kmod/**/*.[ch]' \
	'include/rddp/*.h' | sort -u)
mapfile -t cp_files < <(printf '%s\n' "${files[@]}" | grep -vx kmod/trace.h)
"$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES -f "${cp_files[@]}" >"$out/checkpatch.log" 2>&1
rc=$?
# The trace events are laid out as include/trace/events/*.h lay them out:
# TP_STRUCT__entry( and TP_fast_assign( end their lines and the macros'
# arguments are indented by a tab, which checkpatch's rules for calls
# (OPEN_ENDED_LINE, PARENTHESIS_ALIGNMENT) do not know. Everything else
# holds for trace.h too.
"$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
	-f kmod/trace.h >>"$out/checkpatch.log" 2>&1 || rc=1
check "checkpatch --strict clean (${#cp_files[@]} files and kmod/trace.h)" "$out/checkpatch.log" $rc

# kernel-doc over the same files. 6.1's script has no -Wall: -v adds the
# checks for a missing Return: section and short description, and prints an
# "info: Scanning doc for ..." line per comment, which is not a finding.
# Any other output fails the check.
log="$out/kernel-doc.log"
"$src/scripts/kernel-doc" -none -v "${files[@]}" 2>&1 |
	grep -v ': info: Scanning doc for ' >"$log"
ok=0
[ ! -s "$log" ] && ok=1
verdict "$ok" "kernel-doc -none reports nothing (${#files[@]} files)" "$log" head -40 "$log"

echo "kmod: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
