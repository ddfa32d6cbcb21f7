#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# C++ style of the user-space code and its tests: clang-format (.clang-format)
# on every .cc and .h, clang-tidy (.clang-tidy, every warning an error) on
# every .cc, with the compile commands of build/cmake. Kernel C and the
# protocol core's .c files follow checkpatch.pl instead (tools/kmod-check.sh).
# Final line: "cxx-style: N passed, N failed, 0 skipped", one test per file
# per tool; the findings of failed ones are printed above it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=build/cmake

fail_early() {
	echo "cxx-style: $*"
	echo "cxx-style: 0 passed, 1 failed, 0 skipped"
	exit 1
}
for tool in clang-format clang-tidy; do
	command -v "$tool" >/dev/null || fail_early "$tool missing (make deps)"
done
if [ ! -f "$B/compile_commands.json" ]; then
	cmake -S . -B "$B" >/dev/null || fail_early "cmake cannot configure $B"
fi

mapfile -t sources < <(find userspace tests/unit tests/verbs -name '*.cc' | sort)
mapfile -t headers < <(find userspace tests/unit tests/verbs -name '*.h' | sort)

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0

for f in "${sources[@]}" "${headers[@]}"; do
	if clang-format --dry-run -Werror "$f" >"$logs/format" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "not ok - clang-format $f"
		head -20 "$logs/format"
	fi
done

# clang-tidy takes 10-40 s a file: one per CPU. Each run leaves FILE.ok or
# FILE.log (its findings) in $logs; neither means it did not run at all.
# A pass is remembered in $RDDP_CACHE/clang-tidy under a key of all it
# depends on (tools/tidy-key.py: clang-tidy's version and configuration,
# the compile command, the file and every header it includes): a file
# whose key passed before passes without a run. Findings are never cached.
# RDDP_TIDY_CACHE=0 runs every file.
. tools/lib.sh
cache=$RDDP_CACHE/clang-tidy
mkdir -p "$cache"
declare -A key=()
if [ "${RDDP_TIDY_CACHE:-1}" = 1 ]; then
	while read -r f k; do
		key[$f]=$k
	done < <(python3 tools/tidy-key.py . "$B" "${sources[@]}")
fi
tidy_one() { # FILE LOGDIR BUILD KEY CACHE
	local log
	log="$2/tidy-$(tr / _ <<<"$1")"
	if [ "$4" != - ] && [ -e "$5/$4" ]; then
		echo "(cached pass)" >"$log.ok"
		return
	fi
	if nice clang-tidy -p "$3" --quiet --warnings-as-errors='*' "$1" >"$log.log" 2>&1; then
		mv "$log.log" "$log.ok"
		[ "$4" = - ] || echo "$1" >"$5/$4"
	fi
}
export -f tidy_one
# shellcheck disable=SC2016 # $1.. belong to the inner bash
for f in "${sources[@]}"; do
	printf '%s\0%s\0' "$f" "${key[$f]:--}"
done | xargs -0 -n 2 -P "$(nproc)" bash -c 'tidy_one "$4" "$1" "$2" "$5" "$3"' _ \
	"$logs" "$B" "$cache"
for f in "${sources[@]}"; do
	log="$logs/tidy-$(tr / _ <<<"$f")"
	if [ -e "$log.ok" ]; then
		passed=$((passed + 1))
		continue
	fi
	failed=$((failed + 1))
	echo "not ok - clang-tidy $f"
	if [ -e "$log.log" ]; then
		grep -E 'error:|warning:' "$log.log" | head -30
	else
		echo "  clang-tidy did not run"
	fi
done

cached=$(grep -lx '(cached pass)' "$logs"/tidy-*.ok 2>/dev/null | wc -l)
echo "# clang-tidy: $cached of ${#sources[@]} files passed before with the same inputs (tools/tidy-key.py)"
echo "cxx-style: $passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
