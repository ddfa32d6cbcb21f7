#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: rddp beside siw in the same run, as ratios rddp/siw
# (bandwidth: higher is better for rddp above 1; latency: lower is better
# for rddp below 1), in two places that answer different questions:
#  - two qemu guests over virtio-net (tests/vm/bench.sh): an SMP x86 guest
#    and a real link, but every instruction emulated (TCG), so only the
#    ratios carry meaning (BENCH_QEMU=0 skips it);
#  - User-Mode Linux over dummy0 (tests/vm/bench-one.sh, BENCH_UML=0 skips
#    it): kernel code at native CPU speed on one CPU, the cost of each
#    driver's kernel path; an instance per driver and round (a boot takes a
#    second), medians of BENCH_ROUNDS rounds (default 3), drivers
#    alternating; perftest, then rddp-bench, whose JSON per round and
#    driver goes to build/bench/ and tools/bench-report.py tabulates
#    (build/bench/report.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

# table FILE: "DRIVER TEST SIZE VALUE UNIT" lines, side by side per driver
# (the median where a test ran several times), with ratios to siw.
table() {
	printf '%-14s %8s %14s %14s %14s %9s %9s\n' test size rddp rddp-nocrc siw rddp/siw nocrc/siw
	awk '
	function ratio(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	function median(d, k,    n, i, j, t, v) {
		n = cnt[d, k]
		if (!n) return "?"
		for (i = 1; i <= n; i++) v[i] = vals[d, k, i] + 0
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$4 ~ /^[0-9.]+$/ && $4 + 0 > 0 {
		key = $2 " " $3; vals[$1, key, ++cnt[$1, key]] = $4; unit[key] = $5
		if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	}
	END {
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, p, " "); u = unit[k] == "us" ? "us" : "MB/s"
			r = median("rddp", k); z = median("rddp-nocrc", k); s = median("siw", k)
			printf "%-14s %8s %9s %-4s %9s %-4s %9s %-4s %9s %9s\n", p[1], p[2], r, u, z, u, s, u,
				ratio(r, s), ratio(z, s)
		}
	}' "$1"
}

make -s userspace
rc=0
if [ "${BENCH_QEMU:-1}" = 1 ]; then
	make -s kmod-stock
	ko=$(bash tools/vm/build-siw.sh)
	rddp_log "two qemu guests (TCG): rddp, rddp without CRC, siw"
	bash tools/vm/run.sh --kernel stock --topology two --name bench --timeout 2400 \
		--ko build/kmod-stock/rddp.ko --ko-b "$ko" --ko-a "$ko" tests/vm/bench.sh \
		>build/vm-results/bench.log 2>&1 || rc=$?
	res=build/vm-results/bench/b/bench.txt
	[ -s "$res" ] || { tail -30 build/vm-results/bench.log; rddp_die "no results ($res)"; }
	echo "== two qemu guests over virtio-net (TCG; one run)"
	table "$res"
	grep -E '^vm-bench' build/vm-results/bench.log
fi

if [ "${BENCH_UML:-1}" = 1 ]; then
	rounds=${BENCH_ROUNDS:-3}
	rddp_log "User-Mode Linux, one instance per run: $rounds rounds of rddp, rddp without CRC, siw"
	make -s kmod-uml
	all=build/vm-results/bench-uml.txt
	: >"$all"
	# rddp-bench's JSON per round and driver (tools/bench-report.py)
	mkdir -p build/bench
	rm -f build/bench/uml-*.json
	: >build/vm-results/bench-uml.log
	for round in $(seq "$rounds"); do
		for drv in rddp rddp-nocrc siw; do
			name=bench-uml-$round-$drv
			bash tools/vm/run.sh --kernel uml --name "$name" --timeout 900 \
				--ko build/kmod-uml/rddp.ko tests/vm/bench-one.sh "$drv" \
				>>build/vm-results/bench-uml.log 2>&1 || rc=$?
			cat "build/vm-results/$name/a/bench.txt" >>"$all" 2>/dev/null ||
				echo "# round $round, $drv: no results" >&2
			cp "build/vm-results/$name/a/rddp-bench.json" \
				"build/bench/uml-$drv-$round.json" 2>/dev/null ||
				echo "# round $round, $drv: no rddp-bench JSON" >&2
		done
	done
	[ -s "$all" ] || { tail -30 build/vm-results/bench-uml.log; rddp_die "no results ($all)"; }
	echo "== one User-Mode Linux instance over dummy0 (native speed, one CPU; medians of $rounds)"
	table "$all"
	grep -E '^vm-bench' build/vm-results/bench-uml.log
	echo "== rddp-bench in the same instances (medians of $rounds; build/bench/report.md)"
	python3 tools/bench-report.py build/bench/uml-*.json | tee build/bench/report.md || rc=$?
fi
exit "$rc"
