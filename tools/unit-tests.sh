#!/bin/bash
# Build and run the GoogleTest suites: the protocol core (rddp_unit_tests),
# rddpctl (rddpctl_unit_tests) and rddp-bench's pure parts
# (rddp_bench_unit_tests), and make bench-core's loopback pipeline
# (rddp_loopback_tests).
# Final line: "unit: N passed, N failed, N skipped", summed over all.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/cmake
TESTS=(rddp_unit_tests rddpctl_unit_tests rddp_bench_unit_tests rddp_loopback_tests)
if [ ! -f "$B/Makefile" ] && [ ! -f "$B/build.ninja" ]; then
	cmake -S . -B "$B" >/dev/null || { echo "unit: 0 passed, 1 failed, 0 skipped"; exit 1; }
fi
# A target that does not build counts as one failure; the other still runs.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
total_passed=0 total_failed=0 total_skipped=0
for t in "${TESTS[@]}"; do
	if ! nice cmake --build "$B" --target "$t" -j2 >"$out" 2>&1; then
		grep -E 'error|Error' "$out" | head -20 || true
		echo "$t: does not build"
		total_failed=$((total_failed + 1))
		continue
	fi
	rc=0
	"$B/tests/unit/$t" >"$out" 2>&1 || rc=$?
	grep -E "^\\[  (FAILED|PASSED|SKIPPED) |Failure|^ *[0-9]+ FAILED" "$out" | sed "s/^/$t: /" || true
	passed=$(grep -Eo '\[  PASSED  \] [0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
	failed=$(grep -Eo '^ *[0-9]+ FAILED TESTS?' "$out" | grep -Eo '[0-9]+' || echo 0)
	skipped=$(grep -Eo '\[  SKIPPED \] [0-9]+ test' "$out" | grep -Eo '[0-9]+' || echo 0)
	# A crash prints no summary: count it as a failure.
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	total_skipped=$((total_skipped + skipped))
done
echo "unit: $total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" -eq 0 ]
