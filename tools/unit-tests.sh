#!/bin/bash
# Build and run the protocol-core unit tests (GoogleTest).
# Final line: "unit: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/cmake
if [ ! -f "$B/Makefile" ] && [ ! -f "$B/build.ninja" ]; then
	cmake -S . -B "$B" >/dev/null || { echo "unit: 0 passed, 1 failed, 0 skipped"; exit 1; }
fi
nice cmake --build "$B" --target rddp_unit_tests -j2 >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"$B/tests/unit/rddp_unit_tests" >"$out" 2>&1 || rc=$?
grep -E "^\\[  (FAILED|PASSED|SKIPPED) |Failure|^ *[0-9]+ FAILED" "$out" || true
passed=$(grep -Eo '\[  PASSED  \] [0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
failed=$(grep -Eo '^ *[0-9]+ FAILED TESTS?' "$out" | grep -Eo '[0-9]+' || echo 0)
skipped=$(grep -Eo '\[  SKIPPED \] [0-9]+ test' "$out" | grep -Eo '[0-9]+' || echo 0)
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "unit: $passed passed, $failed failed, $skipped skipped"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
