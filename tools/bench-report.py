#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulate and plot rddp-bench's Google Benchmark JSON from several rounds.

Usage: tools/bench-report.py [--base DRIVER] [--plots DIR] [--require LIST]
                              [--ratio A/B,...] FILE...

Each FILE is named <where>-<driver>-<round>.json (tools/bench.sh writes
build/bench/uml-rddp-1.json, uml-siw-1.json, ...). The driver `tcp` holds
iperf3 over the same path (a JSON array of `iperf3 -J` documents, one per
write size): the ceiling a socket reaches; `tcp-socket` and `sctp-socket`
hold bare sockets' setup rate and memory (rddp_sock_setup, rddp-bench's
keys), the floor under rddp's `connect` and `qp_memory`. For every benchmark and driver
the first table gives the median over the rounds, with min and max, and the
ratio of each driver's median to the base driver's (siw unless --base says
otherwise): above 1 is better for bandwidth and setup rate, below 1 for
latency. The second table sets each driver's bandwidth beside TCP's at the
same message size; the third holds the costs: CPU seconds per GB of each
bandwidth benchmark and memory per QP (rddp-bench's qp_memory). --plots DIR draws bandwidth and latency against message
size, one line per driver, as DIR/<where>-bandwidth.png and
DIR/<where>-latency.png (matplotlib). --require LIST (comma-separated
drivers): exit 1 unless each of them has every series the others have (the
check of `BENCH=quick make bench` in make check). --ratio A/B,... adds
a column per pair with driver A's median over driver B's, where both have
one (tools/bench.sh: rddp-sctp/rddp, DDP over SCTP against over TCP).
Prints Markdown; exits 1 if no file had results.
"""
import json
import os
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
    "cpu": ("cpu_s_per_gb", "CPU s/GB", 1.0, False),
    "kmem": ("kernel_kib_per_qp", "KiB/QP kernel", 1.0, False),
    "umem": ("used_kib_per_qp", "KiB/QP used", 1.0, False),
}
# Kinds in the table of costs rather than the first; and kinds --require
# does not ask for: CPU time is counted in clock ticks, none in a short run.
COST = ("cpu", "kmem", "umem")
OPTIONAL = ("cpu", "umem")
# Per driver: siw refuses ibv_create_cq (EAGAIN) before 100 loopback
# connections in our guests (UML and qemu): its memory series may be missing.
OPTIONAL_FOR = {"siw": ("kmem",)}
TCP = "tcp"
OPS = ["write", "read", "send"]  # the plots' order

NAME_RE = re.compile(r"(?:^|/)(?P<where>[^/]*?)-(?P<driver>[a-z][a-z-]*)-(?P<round>\d+)\.json$")


def kinds(name):
    """The metrics that apply to benchmark @name."""
    if "_bw/" in name:
        return ["bw", "cpu"]
    if "_lat/" in name:
        return ["lat", "lat99"]
    if name.startswith("connect"):
        return ["connect"]
    if name.startswith("qp_memory/"):
        return ["kmem", "umem"]
    return []


def size_text(v):
    """65536 -> 64K, 1048576 -> 1M, 100 -> 100."""
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return f"{v >> 20}M"
    if v >= 1 << 10 and v % (1 << 10) == 0:
        return f"{v >> 10}K"
    return str(v)


def parse_name(name):
    """write_bw/size:65536/depth:8/qps:1/real_time ->
    ("write_bw 64K d8 q1", {"op": "write", "test": "bw", "size": 65536})."""
    parts = name.split("/")
    out = [parts[0]]
    op, _, test = parts[0].rpartition("_")
    info = {"op": op, "test": test, "size": None}
    for p in parts[1:]:
        key, _, val = p.partition(":")
        if key == "size" and val.isdigit():
            info["size"] = int(val)
            out.append(size_text(int(val)))
        elif key == "qps" and info["test"] == "memory":
            out.append(f"{val} connections")
        elif key in ("depth", "qps"):
            out.append(f"{key[0]}{val}")
    return " ".join(out), info


class Results:
    """Values per (benchmark, metric) and driver, over the rounds."""

    def __init__(self):
        # {(short name, kind): {driver: [value per round]}}, first-seen order
        self.table = defaultdict(lambda: defaultdict(list))
        self.info = {}  # short name -> parse_name's info
        self.tcp = defaultdict(list)  # write size -> [MB/s per round]
        self.where = set()

    def add_benchmarks(self, doc, driver):
        for b in doc.get("benchmarks", []):
            if b.get("error_occurred") or b.get("run_type") == "aggregate":
                continue
            name, info = parse_name(b["name"])
            self.info[name] = info
            for kind in kinds(b["name"]):
                key, _, scale, _ = METRICS[kind]
                if isinstance(b.get(key), (int, float)) and b[key] > 0:
                    self.table[(name, kind)][driver].append(b[key] * scale)

    def add_iperf3(self, docs):
        for d in docs:
            try:
                size = d["start"]["test_start"]["blksize"]
                rate = d["end"]["sum_received"]["bits_per_second"] / 8e6
            except (KeyError, TypeError):
                continue
            if rate > 0:
                self.tcp[size].append(rate)

    def load(self, path):
        m = NAME_RE.search(path)
        if not m:
            print(f"bench-report: {path}: not <where>-<driver>-<round>.json", file=sys.stderr)
            return
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"bench-report: {path}: {e}", file=sys.stderr)
            return
        self.where.add(m["where"])
        if m["driver"] == TCP:
            self.add_iperf3(doc if isinstance(doc, list) else [doc])
        else:
            self.add_benchmarks(doc, m["driver"])

    def drivers(self, base):
        found = {d for per in self.table.values() for d in per}
        return sorted(found, key=lambda d: (d == base, d))

    def medians(self, name, kind):
        return {d: statistics.median(v) for d, v in self.table[(name, kind)].items() if v}


def fmt(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def spread(v):
    return f"{fmt(statistics.median(v))} ({fmt(min(v))}–{fmt(max(v))}, n={len(v)})"


def markdown(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def render(res, base, costs=False, pairs=()):
    """The benchmarks' figures (or with @costs, CPU time and memory) per
    driver, with the ratios to @base, then those of @pairs ((A, B): A/B)
    whose drivers both have results."""
    drivers = res.drivers(base)
    others = [d for d in drivers if d != base]
    pairs = [(a, b) for a, b in pairs if a in drivers and b in drivers]
    head = ["benchmark", "unit"] + [f"{d} median (min–max)" for d in drivers]
    head += [f"{d}/{base}" for d in others] + [f"{a}/{b}" for a, b in pairs]
    rows = []
    for (name, kind), per in res.table.items():
        if (kind in COST) != costs:
            continue
        med = res.medians(name, kind)
        row = [name, METRICS[kind][1]]
        row += [spread(per[d]) if per.get(d) else "–" for d in drivers]
        for a, b in [(d, base) for d in others] + pairs:
            ok = a in med and b in med and med[b] > 0
            row.append(f"{med[a] / med[b]:.2f}" if ok else "–")
        rows.append(row)
    return markdown(head, rows)


def render_tcp(res, base):
    """Each driver's bandwidth beside iperf3's at the same message size."""
    if not res.tcp:
        return ""
    drivers = res.drivers(base)
    head = ["benchmark", "TCP (iperf3) MB/s median (min–max)"] + [f"{d}/TCP" for d in drivers]
    rows = []
    for (name, kind) in res.table:
        size = res.info[name]["size"]
        if kind != "bw" or not res.tcp.get(size):
            continue
        tcp = statistics.median(res.tcp[size])
        med = res.medians(name, kind)
        rows.append([name, spread(res.tcp[size])] +
                    [f"{med[d] / tcp:.2f}" if d in med else "–" for d in drivers])
    return markdown(head, rows)


def missing_series(res, required):
    """The (benchmark, driver) pairs a required driver lacks."""
    missing = []
    for d in required:
        if d == TCP:
            sizes = {res.info[n]["size"] for (n, k) in res.table if k == "bw"}
            missing += [(f"iperf3 {size_text(s)}", d) for s in sorted(sizes) if not res.tcp.get(s)]
            continue
        missing += [(n, d) for (n, k), per in res.table.items()
                    if k not in OPTIONAL + OPTIONAL_FOR.get(d, ()) and not per.get(d)]
    return list(dict.fromkeys(missing))  # a latency benchmark has two metrics


def series(res, test, kind):
    """{op: {driver: [(size, median)]}} of the benchmarks of @test."""
    out = defaultdict(lambda: defaultdict(list))
    for (name, k) in res.table:
        info = res.info[name]
        if k != kind or info["test"] != test or info["size"] is None:
            continue
        for d, v in res.medians(name, k).items():
            out[info["op"]][d].append((info["size"], v))
    if test == "bw" and res.tcp:
        for op in out:
            out[op][TCP] = [(s, statistics.median(v)) for s, v in res.tcp.items()]
    for per in out.values():
        for pts in per.values():
            pts.sort()
    return out


def plot(res, directory, where):
    """DIR/<where>-bandwidth.png and -latency.png; returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    paths = []
    for test, kind, ylabel, fname in (("bw", "bw", "MB/s (median)", "bandwidth"),
                                      ("lat", "lat", "µs, p50 (median)", "latency")):
        data = series(res, test, kind)
        if not data:
            continue
        ops = sorted(data, key=lambda op: (OPS.index(op) if op in OPS else len(OPS), op))
        fig, axes = plt.subplots(1, len(ops), figsize=(5 * len(ops), 4), squeeze=False)
        for ax, op in zip(axes[0], ops):
            for d in sorted(data[op], key=lambda d: (d == TCP, d)):
                pts = data[op][d]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        linestyle="--" if d == TCP else "-",
                        label="TCP (iperf3)" if d == TCP else d)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")  # 64 B and 1 MiB rates differ 1000-fold
            ax.set_xticks(sorted({p[0] for pts in data[op].values() for p in pts}))
            ax.set_xticklabels([size_text(t) for t in ax.get_xticks()], rotation=45)
            ax.set_title(f"{op} ({where})")
            ax.set_xlabel("message size (bytes)")
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            ax.legend()
        fig.tight_layout()
        path = os.path.join(directory, f"{where}-{fname}.png")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths.append(path)
    return paths


def parse_args(argv):
    opts = {"base": "siw", "plots": None, "require": [], "ratio": []}
    args = argv[1:]
    while args and args[0] in ("--base", "--plots", "--require", "--ratio") and len(args) > 1:
        key, val = args[0][2:], args[1]
        if key == "require":
            opts[key] = [d for d in val.split(",") if d]
        elif key == "ratio":
            opts[key] = [tuple(p.split("/", 1)) for p in val.split(",") if p.count("/") == 1]
        else:
            opts[key] = val
        args = args[2:]
    return opts, args


def main(argv):
    opts, files = parse_args(argv)
    if not files:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    res = Results()
    for path in files:
        res.load(path)
    if not res.table:
        print("bench-report: no results", file=sys.stderr)
        return 1
    print(render(res, opts["base"], pairs=opts["ratio"]))
    costs = render(res, opts["base"], costs=True, pairs=opts["ratio"])
    if costs.count("\n") > 1:
        print("\nCosts: CPU seconds of the whole system per GB moved (both ends in "
              "loopback), and memory per QP (/proc/meminfo: Slab + VmallocUsed, and "
              "MemFree consumed; both ends' QPs in loopback). Lower is better:\n")
        print(costs)
    tcp = render_tcp(res, opts["base"])
    if tcp:
        print("\nAgainst TCP over the same path (iperf3, same message size):\n")
        print(tcp)
    if opts["plots"]:
        for path in plot(res, opts["plots"], "+".join(sorted(res.where))):
            # relative to the report, which lives beside the plots' directory
            rel = os.path.join(os.path.basename(os.path.normpath(opts["plots"])),
                               os.path.basename(path))
            print(f"\n![{os.path.basename(path)}]({rel})")
    missing = missing_series(res, opts["require"])
    for name, d in missing:
        print(f"bench-report: no result for {name} from {d}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
