#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Proves tools/vm/run.sh can fail: a kernel warning, a failing test, a test
# script that dies partway and a hung guest must each fail the run, and a
# clean run must pass. Runs on Debian's stock kernel in qemu (fast boot) and
# on User-Mode Linux's debug kernel, where a KASAN report and a leak that
# kmemleak finds must fail a run too.
# What differs between the two is how a guest boots, where its console goes
# and how a hung one is stopped: qemu runs the clean (its console carries
# the guest's exit line), warning and hang cases. A failing test (read from
# the results directory) and a script's early exit (the exit line's status)
# are read by the same code for both, and run under UML alone: qemu's
# boots cost about 45 s each beside the qemu lane.
# Usage: selftest.sh [qemu|uml|all (default)]: make check runs each part at
# the head of the lane it guards. Last line: `vm-selftest: N passed, N
# failed, N skipped`.
set -uo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$RDDP_TOP" || exit 1

part=${1:-all}
case $part in
qemu | uml | all) ;;
*) rddp_die "selftest.sh [qemu|uml|all]" ;;
esac
pass=0 fail=0 n=0
mkdir -p build/vm-results
out=build/vm-results/selftest-$part.log
: >"$out"
# REGEX may be several lines: each must match a line of the run's output.
expect() { # NAME WANT_RC(0|nonzero) REGEX run.sh-args...
	local name=$1 want=$2 re=$3 rc=0 log r matched=1
	shift 3
	log=$(bash tools/vm/run.sh "$@" 2>&1) || rc=$?
	printf '### %s\n%s\n' "$name" "$log" >>"$out"
	n=$((n + 1))
	while IFS= read -r r; do
		grep -Eq -- "$r" <<<"$log" || matched=0
	done <<<"$re"
	if { [ "$want" = 0 ] && [ $rc -eq 0 ]; } || { [ "$want" != 0 ] && [ $rc -ne 0 ]; } &&
		[ "$matched" = 1 ]; then
		pass=$((pass + 1))
		echo "ok $n - $name"
	else
		fail=$((fail + 1))
		echo "not ok $n - $name (run.sh exit $rc; log $out)"
		tail -15 <<<"$log" | sed 's/^/#   /'
	fi
}

# build_module KDIR DIR [MAKE ARGS]: the self-test module for one kernel.
build_module() {
	mkdir -p "$2"
	cp tools/vm/selftest/Kbuild tools/vm/selftest/rddp_selftest_warn.c "$2/"
	if ! make -s -C "$1" M="$RDDP_TOP/$2" "${@:3}" modules >"$2/build.log" 2>&1; then
		cat "$2/build.log"
		echo "vm-selftest: $pass passed, $((fail + 1)) failed, 0 skipped"
		exit 1
	fi
}

if [ "$part" != uml ]; then
	mod=build/selftest
	build_module "/lib/modules/$(rddp_stock_kver)/build" "$mod"

	expect "a clean run passes" 0 'ok .* - kernel log clean' \
		--name selftest-clean tests/vm/smoke.sh
	expect "a kernel WARNING fails the run" 1 'not ok .* - kernel log clean' \
		--name selftest-warn --ko "$mod/rddp_selftest_warn.ko" tests/vm/selftest-warn.sh
	# A test stuck in the kernel (D state: SIGKILL does not end it, and it
	# holds the console's pipe): the guest's watchdog still ends the run,
	# and the stack it waits in comes first (UML's case below: in user
	# space).
	expect "a guest hung in the kernel is stopped, what blocked shown first" 1 \
		"not ok .* - guest finished in time
^#   the guest's watchdog ended the test at 20s
^#   the first task reported blocked:
rddp_selftest_block" \
		--name selftest-hang --timeout 20 --ko "$mod/rddp_selftest_warn.ko" \
		tests/vm/selftest-warn.sh block
fi

# The User-Mode Linux lane fails a run on the same reports, and on KASAN's.
if [ "$part" != qemu ]; then
	umod=build/selftest-uml
	build_module "$(bash tools/kernel/build-uml-kernel.sh debug)/build" "$umod" ARCH=um
	expect "UML: a clean run passes" 0 'ok .* - kernel log clean' \
		--kernel uml-debug --name selftest-uml-clean tests/vm/smoke.sh
	expect "UML: a kernel WARNING fails the run" 1 'not ok .* - kernel log clean' \
		--kernel uml-debug --name selftest-uml-warn --ko "$umod/rddp_selftest_warn.ko" \
		tests/vm/selftest-warn.sh warn
	expect "UML: a KASAN report fails the run" 1 'KASAN: slab-out-of-bounds' \
		--kernel uml-debug --name selftest-uml-kasan --ko "$umod/rddp_selftest_warn.ko" \
		tests/vm/selftest-warn.sh kasan
	expect "UML: a kmemleak report fails the run" 1 'unreferenced object' \
		--kernel uml-debug --kmemleak --name selftest-uml-leak --ko "$umod/rddp_selftest_warn.ko" \
		tests/vm/selftest-warn.sh leak
	expect "UML: a failing test fails the run" 1 '^vm-selftest-uml-fail: 4 passed, 1 failed, 0 skipped$' \
		--kernel uml-debug --name selftest-uml-fail tests/vm/selftest-fail.sh
	expect "UML: a test script that dies partway fails the run" 1 \
		'not ok .* - guest ran to the end \(the test script exited 3\)' \
		--kernel uml-debug --name selftest-uml-die tests/vm/selftest-fail.sh die
	expect "UML: a hung guest is stopped and fails the run" 1 'not ok .* - guest finished in time' \
		--kernel uml-debug --name selftest-uml-hang --timeout 20 tests/vm/selftest-fail.sh hang
fi

echo "vm-selftest: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
