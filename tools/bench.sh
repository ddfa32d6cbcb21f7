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
bash tools/vm/run.sh --kernel stock --topology two --name bench --timeout 1500 \
	--ko build/kmod-stock/rddp.ko --ko-b "$ko" --ko-a "$ko" tests/vm/bench.sh \
	>build/vm-results/bench.log 2>&1 || rc=$?
res=build/vm-results/bench/b/bench.txt
[ -s "$res" ] || { tail -30 build/vm-results/bench.log; rddp_die "no results ($res)"; }
printf '%-14s %8s %12s %12s %8s\n' test size rddp siw rddp/siw
awk '
	{ key = $2 " " $3; val[$1, key] = $4; unit[key] = $5; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
	END {
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, p, " ")
			r = val["rddp", k]; s = val["siw", k]
			ratio = (r + 0 > 0 && s + 0 > 0) ? sprintf("%.2f", r / s) : "-"
			printf "%-14s %8s %9s %-3s %9s %-3s %7s\n", p[1], p[2], r, unit[k] == "us" ? "us" : "MB/s", s, unit[k] == "us" ? "us" : "MB/s", ratio
		}
	}' "$res"
grep -E '^vm-bench' build/vm-results/bench.log
exit "$rc"
