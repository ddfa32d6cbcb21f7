#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulate rddp-bench's Google Benchmark JSON from several rounds.

Usage: tools/bench-report.py [--base DRIVER] FILE...

Each FILE is named <where>-<driver>-<round>.json (tools/bench.sh writes
build/bench/uml-rddp-1.json, uml-siw-1.json, ...). For every benchmark and
driver the table gives the median over the rounds, with min and max, and
the ratio of each driver's median to the base driver's (siw unless
--base says otherwise): above 1 is better for bandwidth and setup rate,
below 1 for latency. Prints Markdown; exits 1 if no file had results.
"""
import json
import re
import statistics
import sys
from collections import defaultdict

# The figure each kind of benchmark is judged by: (JSON key, unit, scale,
# higher is better).
METRICS = {
    "bw": ("bytes_per_second", "MB/s", 1e-6, True),
    "lat": ("p50_us", "µs p50", 1.0, False),
    "lat99": ("p99_us", "µs p99", 1.0, False),
    "connect": ("connects_per_second", "conn/s", 1.0, True),
}

NAME_RE = re.compile(r"(?:^|/)[^/]*?-(?P<driver>[a-z][a-z-]*)-(?P<round>\d+)\.json$")


def kinds(name):
    """The metrics that apply to benchmark @name."""
    if "_bw/" in name:
        return ["bw"]
    if "_lat/" in name:
        return ["lat", "lat99"]
    if name.startswith("connect"):
        return ["connect"]
    return []


def short(name):
    """write_bw/size:65536/depth:8/qps:1/real_time -> write_bw 64K d8 q1."""
    parts = name.split("/")
    out = [parts[0]]
    for p in parts[1:]:
        key, _, val = p.partition(":")
        if key == "size" and val.isdigit():
            v = int(val)
            out.append(f"{v >> 20}M" if v >= 1 << 20 and v % (1 << 20) == 0 else
                       f"{v >> 10}K" if v >= 1 << 10 and v % (1 << 10) == 0 else str(v))
        elif key in ("depth", "qps"):
            out.append(f"{key[0]}{val}")
    return " ".join(out)


def load(files):
    """{(benchmark, metric): {driver: [value per round]}}, in first-seen order."""
    table = defaultdict(lambda: defaultdict(list))
    for path in files:
        m = NAME_RE.search(path)
        if not m:
            print(f"bench-report: {path}: not <where>-<driver>-<round>.json", file=sys.stderr)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"bench-report: {path}: {e}", file=sys.stderr)
            continue
        for b in doc.get("benchmarks", []):
            if b.get("error_occurred") or b.get("run_type") == "aggregate":
                continue
            for kind in kinds(b["name"]):
                key, _, scale, _ = METRICS[kind]
                if isinstance(b.get(key), (int, float)) and b[key] > 0:
                    table[(short(b["name"]), kind)][m["driver"]].append(b[key] * scale)
    return table


def fmt(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def render(table, base):
    drivers = sorted({d for per in table.values() for d in per}, key=lambda d: (d == base, d))
    others = [d for d in drivers if d != base]
    head = ["benchmark", "unit"] + [f"{d} median (min–max)" for d in drivers]
    head += [f"{d}/{base}" for d in others]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for (name, kind), per in table.items():
        _, unit, _, _ = METRICS[kind]
        med = {d: statistics.median(v) for d, v in per.items() if v}
        row = [name, unit]
        for d in drivers:
            v = per.get(d)
            row.append(f"{fmt(med[d])} ({fmt(min(v))}–{fmt(max(v))}, n={len(v)})" if v else "–")
        for d in others:
            ok = d in med and base in med and med[base] > 0
            row.append(f"{med[d] / med[base]:.2f}" if ok else "–")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv):
    base = "siw"
    if len(argv) > 2 and argv[1] == "--base":
        base = argv[2]
        argv = argv[2:]
    files = argv[1:]
    if not files:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    table = load(files)
    if not table:
        print("bench-report: no results", file=sys.stderr)
        return 1
    print(render(table, base))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
