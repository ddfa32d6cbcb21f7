#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: rddp beside siw in the same run, two qemu guests over
# virtio-net (tests/vm/bench.sh), as ratios rddp/siw (bandwidth: higher is
# better for rddp above 1; latency: lower is better for rddp below 1).
# Numbers under TCG are relative, not absolute: both drivers share the same
# emulated machines and link.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

make -s kmod-stock userspace
ko=$(bash tools/vm/build-siw.sh)
rc=0
bash tools/vm/run.sh --kernel stock --topology two --name bench --timeout 2400 \
	--ko build/kmod-stock/rddp.ko --ko-b "$ko" --ko-a "$ko" tests/vm/bench.sh \
	>build/vm-results/bench.log 2>&1 || rc=$?
res=build/vm-results/bench/b/bench.txt
[ -s "$res" ] || { tail -30 build/vm-results/bench.log; rddp_die "no results ($res)"; }
# Columns: rddp (CRC on), rddp without CRC (zero-copy TX), siw (no CRC by
# default); ratios of each rddp column to siw.
printf '%-14s %8s %14s %14s %14s %9s %9s\n' test size rddp rddp-nocrc siw rddp/siw nocrc/siw
awk '
	function ratio(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	{ key = $2 " " $3; val[$1, key] = $4; unit[key] = $5; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
	END {
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, p, " "); u = unit[k] == "us" ? "us" : "MB/s"
			r = val["rddp", k]; z = val["rddp-nocrc", k]; s = val["siw", k]
			printf "%-14s %8s %9s %-4s %9s %-4s %9s %-4s %9s %9s\n", p[1], p[2], r, u, z, u, s, u,
				ratio(r, s), ratio(z, s)
		}
	}' "$res"
grep -E '^vm-bench' build/vm-results/bench.log
exit "$rc"
