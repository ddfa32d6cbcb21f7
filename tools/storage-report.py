#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's storage table: tests/vm/storage.sh's lines of every round
("DRIVER ULP JOB IOPS MB/s CLAT_P50_US CLAT_P99_US CPU_US_PER_IO") as the
medians per driver, side by side, with the ratios a user decides by: rddp
to siw, and rddp to the TCP alternative on the same path (NVMe/TCP,
NFS/TCP, iSCSI/TCP). Markdown on stdout; --json FILE writes the medians in
Google Benchmark's JSON layout (one aggregate per ULP, job and driver),
--plot FILE a bar chart of each driver's throughput relative to TCP.

    storage-report.py [--where W] [--json F] [--plot F] [--cpu F]... LINES-FILE...

W names the place (WHERE below): uml, one User-Mode Linux instance with
target and initiator in it (tests/vm/storage.sh), or qemu2, two qemu
guests, the target in one, the initiator in the other, whose CPU figure
is both guests' busy time summed (tests/vm/storage-two.sh).

--cpu F (repeatable): a storage-cpu.txt of tests/vm/storage-two.sh's guest
a, "NAME A_TICKS B_TICKS A_IPOUT B_IPOUT A_SEGS B_SEGS IOS" per job; a
table of transmits per I/O follows (each guest's IP packets handed down,
/proc/net/snmp's Ip: OutRequests, a GSO batch once, and its TCP segments,
Tcp: OutSegs, over the job's I/Os; medians of the rounds), and, where the
lines go on with "A_FPDUS A_BATCHES B_FPDUS B_BATCHES A_CTXT B_CTXT A_INTR
B_INTR", each guest's context switches and interrupts per I/O. Lines
without the counts (older files, "NAME A_TICKS B_TICKS") are left out.
With --cpu, LINES-FILE may be left out: the tables alone.
"""
import argparse
import json
import statistics
import sys

DRIVERS = ["rddp", "rddp-nocrc", "siw", "tcp"]
ULPS = {"nvme": "NVMe-oF", "nfs": "NFSv4.2", "iscsi": "iSCSI"}
TCP_NAME = {"nvme": "NVMe/TCP", "nfs": "NFS/TCP", "iscsi": "iSCSI/TCP"}
RDMA_NAME = {"nvme": "NVMe/RDMA", "nfs": "NFS/RDMA", "iscsi": "iSER"}
FIELDS = ["iops", "mb_per_s", "clat_p50_us", "clat_p99_us", "cpu_us_per_io"]
WHERE = {"uml": "one User-Mode Linux instance over dummy0",
         "qemu2": "two qemu guests (TCG) over virtio-net"}
CPU_OF = {"uml": "the guest's busy time, initiator and target both",
          "qemu2": "both guests' busy time summed: the initiator's guest over its fio run "
                   "and the target's over the same job"}


def read(paths):
    """{(ulp, job): {driver: {field: [values of each round]}}}, job order."""
    data, order = {}, []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                p = line.split()
                if len(p) != 8 or p[0].startswith("#"):
                    continue
                key = (p[1], p[2])
                if key not in data:
                    data[key] = {}
                    order.append(key)
                d = data[key].setdefault(p[0], {k: [] for k in FIELDS})
                for k, v in zip(FIELDS, p[3:]):
                    d[k].append(float(v))
    return data, order


XMIT_FIELDS = ["a_ipout", "b_ipout", "a_segs", "b_segs"]
# rddp's TX batches per guest (FPDUs, batches), where the line has them.
BATCH_FIELDS = ["a_batch", "b_batch"]
# Each guest's context switches and interrupts (/proc/stat), where the line has them.
SCHED_FIELDS = ["a_ctxt", "b_ctxt", "a_intr", "b_intr"]


def fpdus_per_batch(fields):
    """[a, b] FPDUs per batch from A_FPDUS A_BATCHES B_FPDUS B_BATCHES
    ("-" where the driver is not rddp), None for what is missing."""
    out = []
    for fp, bt in (fields[0:2], fields[2:4]):
        try:
            out.append(float(fp) / float(bt) if float(bt) > 0 else None)
        except (ValueError, TypeError):
            out.append(None)
    return out


def read_xmit(paths):
    """{(ulp, job): {driver: {field: [per-I/O value of each round]}}}, job
    order, from storage-cpu.txt lines with the counts; NAME is
    DRIVER-ULP-JOB (the fill and smoke jobs are left out)."""
    data, order = {}, []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                p = line.split()
                if len(p) < 8 or p[0].startswith(("#", "fill-", "smoke-")):
                    continue
                try:
                    counts = [float(v) for v in p[3:8]]
                except ValueError:  # "-": a count the guest could not take
                    continue
                ios = counts.pop()
                split = [(p[0][:i], u, p[0][i + len(u) + 2:]) for u in ULPS
                         for i in [p[0].find(f"-{u}-")] if i > 0]
                if not split or ios <= 0:
                    continue
                drv, ulp, job = split[0]
                key = (ulp, job)
                if key not in data:
                    data[key] = {}
                    order.append(key)
                d = data[key].setdefault(drv, {k: [] for k in XMIT_FIELDS + BATCH_FIELDS
                                               + SCHED_FIELDS})
                for k, v in zip(XMIT_FIELDS, counts):
                    d[k].append(v / ios)
                for k, v in zip(BATCH_FIELDS, fpdus_per_batch((p[8:12] + ["-"] * 4)[:4])):
                    if v is not None:
                        d[k].append(v)
                for k, v in zip(SCHED_FIELDS, p[12:16]):
                    try:
                        d[k].append(float(v) / ios)
                    except ValueError:  # "-": the peer's count did not arrive
                        pass
    return data, order


def median_rows(data, order, fields, rounds_of):
    """A table row per job and driver (drivers in DRIVERS' order, any
    other after them by name): the medians of FIELDS, "-" where a field
    has no value; rows whose FIELDS are all empty are left out."""
    rows = []
    for key in order:
        ulp, job = key
        drvs = [d for d in DRIVERS if d in data[key]]
        drvs += sorted(d for d in data[key] if d not in DRIVERS)
        for drv in drvs:
            d = data[key][drv]
            if not any(d[k] for k in fields):
                continue
            rows.append(f"| {ULPS.get(ulp, ulp)} | {job} | {drv} | {len(d[rounds_of])} | "
                        + " | ".join(f"{statistics.median(d[k]):.2f}" if d[k] else "-"
                                     for k in fields) + " |")
    return rows


def xmit_table(data, order):
    out = ["Transmits per I/O: the IP packets each guest handed down (/proc/net/snmp's "
           "Ip: OutRequests, before GSO: a GSO batch counts once) and its TCP segments "
           "(Tcp: OutSegs), over the job's I/Os; a runs fio (initiator), b the target; "
           "and rddp's FPDUs per TX batch (tx_fpdus / tx_batches: what a QP's sender "
           "found to hand TCP at once).\n",
           "| ULP | job | driver | rounds | a transmits/IO | b transmits/IO "
           "| a TCP segs/IO | b TCP segs/IO | a FPDUs/batch | b FPDUs/batch |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    out += median_rows(data, order, XMIT_FIELDS + BATCH_FIELDS, "a_ipout")
    return "\n".join(out) + "\n" + sched_table(data, order)


def sched_table(data, order):
    """Context switches and interrupts per I/O, where the lines had them."""
    rows = median_rows(data, order, SCHED_FIELDS, "a_ctxt")
    if not rows:
        return ""
    return "\n".join(["\nContext switches and interrupts per I/O: each guest's /proc/stat "
                      "ctxt and intr over the job, over the job's I/Os (under TCG each "
                      "interrupt, a cross-CPU wake-up's included, is emulated by the host).\n",
                      "| ULP | job | driver | rounds | a switches/IO | b switches/IO "
                      "| a interrupts/IO | b interrupts/IO |",
                      "|---|---|---|---:|---:|---:|---:|---:|"] + rows) + "\n"


def med(data, key, drv, field):
    vals = data[key].get(drv, {}).get(field, [])
    return statistics.median(vals) if vals else None


def rate_field(job):
    """4 KiB jobs are judged by IOPS, 128 KiB ones by MB/s."""
    return "iops" if "4k" in job else "mb_per_s"


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def tables(data, order, where):
    out = []
    rounds = max((len(d[FIELDS[0]]) for k in order for d in data[k].values()), default=0)
    place = f"{where}, {WHERE[where]}" if where in WHERE else where
    of = f"medians of {rounds} rounds" if rounds > 1 else "one round: single runs, not medians"
    out.append(f"### Storage, {place} ({of})\n")
    out.append("Throughput: IOPS for 4 KiB jobs, MB/s for 128 KiB ones; above 1 rddp is faster.\n")
    out.append("| ULP | job | unit | rddp | rddp-nocrc | siw | TCP | rddp/siw | rddp/TCP | nocrc/TCP |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key in order:
        ulp, job = key
        f = rate_field(job)
        v = {d: med(data, key, d, f) for d in DRIVERS}
        out.append(f"| {ULPS.get(ulp, ulp)} | {job} | {'IOPS' if f == 'iops' else 'MB/s'} | "
                   + " | ".join(fmt(v[d]) for d in DRIVERS)
                   + f" | {ratio(v['rddp'], v['siw'])} | {ratio(v['rddp'], v['tcp'])}"
                   + f" | {ratio(v['rddp-nocrc'], v['tcp'])} |")
    out.append("")
    cpu_of = CPU_OF.get(where, "the busy time of initiator and target")
    out.append(f"CPU per I/O (µs of {cpu_of}, over the job's I/Os); below 1 rddp is cheaper.\n")
    out.append("| ULP | job | rddp | rddp-nocrc | siw | TCP | rddp/siw | rddp/TCP | nocrc/TCP |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key in order:
        ulp, job = key
        v = {d: med(data, key, d, "cpu_us_per_io") for d in DRIVERS}
        out.append(f"| {ULPS.get(ulp, ulp)} | {job} | " + " | ".join(fmt(v[d]) for d in DRIVERS)
                   + f" | {ratio(v['rddp'], v['siw'])} | {ratio(v['rddp'], v['tcp'])}"
                   + f" | {ratio(v['rddp-nocrc'], v['tcp'])} |")
    out.append("")
    out.append("Completion latency (fio's clat, µs) at queue depth 1; below 1 rddp is faster.\n")
    out.append("| ULP | job | rddp p50 | siw p50 | TCP p50 | rddp p99 | siw p99 | TCP p99 "
               "| p50 rddp/TCP | p99 rddp/TCP |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in order:
        ulp, job = key
        if "qd1" not in job:
            continue
        p50 = {d: med(data, key, d, "clat_p50_us") for d in DRIVERS}
        p99 = {d: med(data, key, d, "clat_p99_us") for d in DRIVERS}
        out.append(f"| {ULPS.get(ulp, ulp)} | {job} | {fmt(p50['rddp'])} | {fmt(p50['siw'])} | "
                   f"{fmt(p50['tcp'])} | {fmt(p99['rddp'])} | {fmt(p99['siw'])} | {fmt(p99['tcp'])} | "
                   f"{ratio(p50['rddp'], p50['tcp'])} | {ratio(p99['rddp'], p99['tcp'])} |")
    out.append("")
    out.append("TCP: " + ", ".join(f"{ULPS[u]}'s is {TCP_NAME[u]}" for u in ULPS)
               + "; rddp's and siw's: " + ", ".join(RDMA_NAME.values()) + ".")
    return "\n".join(out) + "\n"


def bench_json(data, order, where):
    runs = []
    for key in order:
        ulp, job = key
        for drv in DRIVERS:
            if drv not in data[key]:
                continue
            m = {f: med(data, key, drv, f) for f in FIELDS}
            runs.append({
                "name": f"storage/{where}/{ulp}/{job}/{drv}",
                "run_name": f"storage/{where}/{ulp}/{job}/{drv}",
                "run_type": "aggregate",
                "aggregate_name": "median",
                "repetitions": len(data[key][drv]["iops"]),
                "iterations": 1,
                "real_time": m["clat_p50_us"],
                "cpu_time": m["cpu_us_per_io"],
                "time_unit": "us",
                **m,
            })
    return {"context": {"library": "rddp storage (fio)", "where": where}, "benchmarks": runs}


def plot(data, order, where, path):
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    labels, series = [], {d: [] for d in DRIVERS if d != "tcp"}
    for key in order:
        tcp = med(data, key, "tcp", rate_field(key[1]))
        labels.append(f"{key[0]}\n{key[1]}")
        for d in series:
            v = med(data, key, d, rate_field(key[1]))
            series[d].append(v / tcp if v and tcp else 0)
    fig, ax = plt.subplots(figsize=(max(8, len(labels) * 0.7), 4.5))
    width = 0.8 / len(series)
    for i, (d, vals) in enumerate(series.items()):
        ax.bar([x + i * width for x in range(len(labels))], vals, width, label=d)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([x + width for x in range(len(labels))])
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("throughput / TCP alternative's")
    ax.set_title(f"Storage over RDMA relative to NVMe/TCP, NFS/TCP, iSCSI/TCP ({where})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    ap.add_argument("--where", default="uml")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    ap.add_argument("--require", default="", help="drivers every job must have, comma-separated")
    ap.add_argument("--cpu", action="append", default=[],
                    help="storage-two.sh's storage-cpu.txt: a table of transmits per I/O")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if not a.files and not a.cpu:
        ap.error("no LINES-FILE and no --cpu")
    xdata, xorder = read_xmit(a.cpu)
    if a.cpu and not xorder:
        print("storage-report: no transmit counts in " + " ".join(a.cpu), file=sys.stderr)
    if not a.files:
        sys.stdout.write(xmit_table(xdata, xorder) if xorder else "")
        return 0 if xorder else 1
    data, order = read(a.files)
    if not order:
        print("storage-report: no storage lines in " + " ".join(a.files), file=sys.stderr)
        return 1
    sys.stdout.write(tables(data, order, a.where))
    if xorder:
        sys.stdout.write("\n" + xmit_table(xdata, xorder))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(bench_json(data, order, a.where), f, indent=1)
    if a.plot:
        plot(data, order, a.where, a.plot)
    missing = [f"{k[0]}/{k[1]}: {d}" for k in order for d in filter(None, a.require.split(","))
               if d not in data[k]]
    if missing:
        print("storage-report: no figures for " + ", ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
