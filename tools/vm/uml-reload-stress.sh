#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host side of tests/vm/uml-reload-stress.sh (not part of make check): boots
# one UML instance that loads, uses and unloads rddp N times, and watches its
# progress. A guest that writes no progress for STALL seconds is taken for
# stuck: the instance's main thread gets 3 s of `strace -i` and a gdb
# backtrace (to DIR/stuck.txt), and is then killed, so a livelock costs
# STALL seconds instead of the whole run's timeout.
#
#   tools/vm/uml-reload-stress.sh uml|uml-debug NAME [N] [STALL]
#
# Needs `make kmod-uml` / `make kmod-uml-debug`. Results in
# build/vm-results/NAME; the last line says how far the guest got.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

kernel=${1:?usage: uml-reload-stress.sh uml|uml-debug NAME [N] [STALL]}
name=${2:?usage: uml-reload-stress.sh uml|uml-debug NAME [N] [STALL]}
n=${3:-50}
stall=${4:-90}
case $kernel in uml) ko=kmod-uml ;; uml-debug) ko=kmod-uml-debug ;; *) rddp_die "kernel uml or uml-debug" ;; esac
res="$RDDP_TOP/build/vm-results/$name"
prog="$res/a/progress.txt"
# A generous bound; the stall watchdog ends a stuck run long before.
tmo=$((120 + n * 30))

rm -rf "$res"
mkdir -p "${res%/*}"
start=$(date +%s)
timeout -k 10 $((tmo + 300)) bash "$RDDP_TOP/tools/vm/run.sh" --kernel "$kernel" --timeout "$tmo" \
	--name "$name" --ko "$RDDP_TOP/build/$ko/rddp.ko" tests/vm/uml-reload-stress.sh "$n" \
	>"$res.out" 2>&1 &
run=$!

# The instance's kernel process: the UML process whose parent is timeout(1).
uml_main() {
	local p
	for p in $(pgrep -f "uml_dir=$res/uml-a " || true); do
		[ "$(ps -o comm= -p "$(ps -o ppid= -p "$p" | tr -d ' ')" 2>/dev/null)" = timeout ] &&
			{ echo "$p"; return 0; }
	done
	return 1
}

stuck=""
while kill -0 "$run" 2>/dev/null; do
	sleep 5
	[ -f "$prog" ] || continue
	age=$(($(date +%s) - $(stat -c %Y "$prog")))
	if [ "$age" -ge "$stall" ] && pid=$(uml_main); then
		stuck="$(tail -1 "$prog")"
		{
			echo "no progress for ${age}s; last: $stuck"
			echo "--- strace -i (3 s) of $pid"
			timeout 3 strace -i -p "$pid" 2>&1 | head -40 || true
			echo "--- strace summary"
			timeout 3 strace -c -p "$pid" 2>&1 | tail -15 || true
			echo "--- gdb bt of $pid"
			timeout 60 gdb -q -batch -p "$pid" -ex 'bt 30' -ex 'info registers rip' 2>&1 |
				grep -v '^\[New LWP\|^warning:' | tail -45 || true
		} >"$res/stuck.txt" 2>&1
		# Only this run's instance: its processes carry its own uml_dir.
		for p in $(pgrep -f "uml_dir=$res/uml-a " || true); do kill -9 "$p" 2>/dev/null || true; done
		break
	fi
done
wait "$run" || true
end=$(date +%s)
done_n=$(grep -c ' done rc=0' "$prog" 2>/dev/null || true)
failed_n=$(grep -c ' done rc=[1-9]' "$prog" 2>/dev/null || true)
if [ -n "$stuck" ]; then
	echo "$name: STUCK after $done_n good iterations ($failed_n failed), last '$stuck', $((end - start))s"
else
	echo "$name: finished $done_n/$n good iterations ($failed_n failed), $((end - start))s; $(tail -1 "$res.out")"
fi
