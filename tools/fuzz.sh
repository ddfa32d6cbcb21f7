#!/bin/bash
# Build the libFuzzer targets with clang and run each over its corpus.
# Usage: tools/fuzz.sh [SECONDS_PER_TARGET]   (default 20)
#        tools/fuzz.sh --runs N                 (N executions per target)
# Final line: "fuzz: N passed, N failed, N skipped" (one per target).
set -euo pipefail
cd "$(dirname "$0")/.."
limit="-max_total_time=${1:-20}"
if [ "${1:-}" = --runs ]; then
	limit="-runs=${2:?--runs needs a count}"
fi
B=build/fuzz
if [ ! -f "$B/Makefile" ]; then
	CC=clang CXX=clang++ cmake -S . -B "$B" -DRDDP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
targets=$(cd tests/fuzz/corpus && ls)
for t in $targets; do
	nice cmake --build "$B" --target "rddp_fuzz_$t" -j2 >/dev/null
done
pass=0 fail=0 skip=0
for t in $targets; do
	work="$B/corpus-$t"
	mkdir -p "$work"
	if nice "$B/tests/fuzz/rddp_fuzz_$t" "$limit" -max_len=70000 \
		-artifact_prefix="$B/crash-$t-" "$work" "tests/fuzz/corpus/$t" >"$B/$t.log" 2>&1; then
		echo "fuzz $t: ok ($(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$B/$t.log" | tail -1))"
		pass=$((pass + 1))
	else
		echo "fuzz $t: FAILED (see $B/$t.log)"
		tail -20 "$B/$t.log"
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
