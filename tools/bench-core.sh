#!/bin/bash
# Release build of rddp_bench_core; prints framing/deframing throughput ratios:
# frame / crc32c-only (target >= 0.8) and deframe / (memcpy+crc32c) (>= 0.5).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bench
if [ ! -f "$B/Makefile" ]; then
	cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
nice cmake --build "$B" --target rddp_bench_core -j2 >/dev/null
"$B/userspace/bench/rddp_bench_core" --benchmark_format=csv 2>/dev/null >"$B/bench.csv"
awk -F, '/^"BM_/ {
	gsub(/"/, "", $1); split($1, a, "/"); name = a[1]; sub(/BM_/, "", name); sz = a[2] + 0
	bps[name, sz] = $6; sizes[sz] = 1
}
END {
	printf "%8s %10s %10s %10s %10s %8s %8s\n", "bytes", "crc GB/s", "frame", "cp+crc", "deframe", "frm/crc", "dfr/cp+c"
	for (z = 64; z <= 65536; z *= 4) {
		if (z == 65536)
			z = 65535
		printf "%8d %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f\n", z,
			bps["Crc32c", z] / 1e9, bps["Frame", z] / 1e9,
			bps["MemcpyCrc32c", z] / 1e9, bps["Deframe", z] / 1e9,
			bps["Frame", z] / bps["Crc32c", z],
			bps["Deframe", z] / bps["MemcpyCrc32c", z]
		if (z == 65535)
			break
	}
}' "$B/bench.csv"
