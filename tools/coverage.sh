#!/bin/bash
# Line coverage of the protocol core (kmod/core) from the unit tests.
# Final line: "coverage: N passed, N failed, N skipped" (1 test: >= 95 %).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/coverage
MIN=95
# Not through ccache (tools/check.sh): an object from another checkout
# would name that checkout's sources in its gcov notes.
export CCACHE_DISABLE=1
unset CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER
if [ ! -f "$B/Makefile" ]; then
	cmake -S . -B "$B" -DRDDP_COVERAGE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
fi
nice cmake --build "$B" --target rddp_unit_tests -j2 >/dev/null
find "$B" -name '*.gcda' -delete
"$B/tests/unit/rddp_unit_tests" >/dev/null
lcov -q --capture --directory "$B/userspace/core" --output-file "$B/all.info" \
	--rc lcov_branch_coverage=0 2>/dev/null
lcov -q --extract "$B/all.info" "$PWD/kmod/core/*" --output-file "$B/core.info" 2>/dev/null
genhtml -q "$B/core.info" --output-directory "$B/html" >/dev/null 2>&1
pct=$(lcov --summary "$B/core.info" 2>&1 | sed -n 's/.*lines\.*: \([0-9.]*\)%.*/\1/p')
echo "kmod/core line coverage: ${pct}% (report: $B/html/index.html)"
if awk -v p="$pct" -v m="$MIN" 'BEGIN { exit !(p >= m) }'; then
	echo "coverage: 1 passed, 0 failed, 0 skipped"
else
	echo "coverage: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
