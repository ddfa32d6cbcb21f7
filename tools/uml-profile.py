#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Names the samples of a User-Mode Linux instance (tools/vm/uml-profile.sh).

Input on stdin: `perf script -D` of `perf record -a -g` on the host. Every sample of a process named as the UML kernel binary
(--comm, default "linux": UML's kernel and the guest's processes are all
forks of it) is one of
  guest kernel   its leaf address is a text symbol of the guest's
                 /proc/kallsyms (--kallsyms; modules included)
  host kernel    its leaf is in the host's kernel: the ptrace stops,
                 signals and page faults that carry UML's syscalls
  guest user     anything else: fio, nfsd's and iscsid's user space, libc
A guest kernel function's "self" is the samples whose leaf it is, its
"total" the samples with it anywhere in the chain (a host kernel sample
under it included: UML's own host syscalls, signal masks, page tables).
Figures are CPU microseconds per I/O: samples / rate / fio's I/O count.

  uml-profile.py --kallsyms F --fio JSON --hz N [--label L] [--json OUT]
  uml-profile.py --compare A.json B.json       two reports side by side
  uml-profile.py --compare A1.json,A2.json B1.json,B2.json
                                               runs of each side averaged
                                               (tools/vm/uml-profile-ab.sh)
With --callers FUNC (repeatable) the report adds, per FUNC, the call
paths its own samples came from (its next --depth distinct callers,
default 4): which copy a memcpy is, say.
"""
import argparse
import bisect
import json
import sys
from collections import Counter


def load_kallsyms(path):
    """Sorted (address, name) of the text symbols, module in brackets."""
    syms = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tT":
                continue
            addr = int(parts[0], 16)
            if addr == 0:
                raise SystemExit("kallsyms: addresses are hidden (kptr_restrict)")
            name = parts[2]
            if len(parts) > 3:
                name += " " + parts[3]
            syms.append((addr, name))
    syms.sort()
    return syms


class Resolver:
    """Guest kernel address to symbol; None outside the guest's text."""

    # A module's last function ends where its next section starts: an
    # address this far past the last symbol is taken as not the guest's.
    SLACK = 1 << 16

    def __init__(self, syms):
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def __call__(self, ip):
        i = bisect.bisect_right(self.addrs, ip) - 1
        if i < 0 or ip - self.addrs[i] > self.SLACK:
            return None
        return self.names[i]


HOST_KERNEL = 0xFFFF800000000000
CONTEXT_MARK = 0xFFFFFFFFFFFFF000  # PERF_CONTEXT_KERNEL, _USER, ...


def samples(stream, comm):
    """(pid, [ip, ...] leaf first) per sample of processes named comm.

    Reads `perf script -D`: its raw dump keeps each call chain's absolute
    addresses, where perf script's fields would show a guest module's as
    an offset in the UML memory file that maps it."""
    chain, in_chain, pid = None, False, 0
    for line in stream:
        if "PERF_RECORD_SAMPLE" in line:
            chain, in_chain = [], False
            pid = int(line.split("): ", 1)[1].split("/", 1)[0])
            continue
        if chain is None:
            continue
        if "FP chain:" in line:
            in_chain = True
            continue
        if in_chain and line.startswith("..... "):
            ip = int(line.split()[2], 16)
            if ip < CONTEXT_MARK:
                chain.append(ip)
            continue
        if " ... thread: " in line:
            if line.split("thread: ", 1)[1].rsplit(":", 1)[0] == comm and chain:
                yield pid, chain
            chain, in_chain = None, False


def module_of(name):
    if name.endswith("]") and " [" in name:
        return name.rsplit(" [", 1)[1][:-1]
    return "vmlinux"


def fio_ios(path):
    with open(path, encoding="utf-8") as f:
        j = json.load(f)["jobs"][0]
    return j["read"]["total_ios"] + j["write"]["total_ios"]


def host_entry(resolve_host, chain):
    """The host kernel function the UML process entered it by: the last
    (outermost) host frame, a syscall's or an exception's handler."""
    host = [ip for ip in chain if ip >= HOST_KERNEL]
    for ip in reversed(host):
        name = resolve_host(ip)
        if name and not name.startswith(("entry_", "do_syscall", "asm_", "x64_sys_call")):
            return name
    return "?"


def caller_path(resolve, chain, depth):
    """The leaf's next depth distinct guest kernel callers, innermost first."""
    path = []
    for ip in chain[1:]:
        name = resolve(ip)
        if name is None or (path and path[-1] == name) or name == resolve(chain[0]):
            continue
        path.append(name)
        if len(path) == depth:
            break
    return " < ".join(path) or "?"


def analyse(args):
    resolve = Resolver(load_kallsyms(args.kallsyms))
    resolve_host = Resolver(load_kallsyms(args.host_kallsyms))
    ios = fio_ios(args.fio)
    cls, self_c, total_c, mods = Counter(), Counter(), Counter(), Counter()
    host_in, per_pid, guest_leaf_pid = Counter(), Counter(), Counter()
    callers = {f: Counter() for f in args.callers or []}
    n = 0
    for pid, chain in samples(sys.stdin, args.comm):
        n += 1
        per_pid[pid] += 1
        leaf = resolve(chain[0])
        if leaf is None and chain[0] >= HOST_KERNEL:
            cls["host kernel"] += 1
            host_in[(pid, host_entry(resolve_host, chain))] += 1
        elif leaf is None:
            cls["guest user"] += 1
        else:
            guest_leaf_pid[pid] += 1
            cls["guest kernel"] += 1
            self_c[leaf] += 1
            mods[module_of(leaf)] += 1
            if leaf in callers:
                callers[leaf][caller_path(resolve, chain, args.depth)] += 1
        # A host kernel sample under a guest kernel function (UML's own
        # host syscalls: signal masks, page table updates) counts in its
        # callers' totals.
        seen = set()
        for ip in chain:
            s = resolve(ip)
            if s is not None and s not in seen:
                seen.add(s)
                total_c[s] += 1
    if not n or not ios:
        raise SystemExit(f"nothing to report: {n} samples, {ios} I/Os")
    per_io = 1e6 / args.hz / ios
    # UML's kernel runs in one host process (the one with the guest's
    # kernel functions); the guest's processes run in the others.
    main = guest_leaf_pid.most_common(1)[0][0] if guest_leaf_pid else 0
    entries = Counter()
    for (pid, name), v in host_in.items():
        entries[("UML kernel: " if pid == main else "guest processes: ") + name] += v
    segs = None
    if args.segs:
        with open(args.segs, encoding="utf-8") as f:
            a, b = [list(map(int, line.split())) for line in f.read().split("\n")[:2]]
        segs = (b[0] - a[0]) / ios
    return {
        "label": args.label, "samples": n, "ios": ios, "hz": args.hz,
        "tcp_segments_per_io": segs,
        "us_per_io": n * per_io,
        "classes": {k: v * per_io for k, v in cls.items()},
        "modules": {k: v * per_io for k, v in mods.most_common()},
        "processes": {"UML kernel": per_pid[main] * per_io,
                      "guest processes": (n - per_pid[main]) * per_io},
        "host": {k: v * per_io for k, v in entries.most_common()},
        # All of them: --compare ranks the union of two reports.
        "self": {k: v * per_io for k, v in self_c.most_common()},
        "total": {k: v * per_io for k, v in total_c.most_common()},
        "callers": {f: {k: v * per_io for k, v in c.most_common()}
                    for f, c in callers.items()},
    }


def table(title, rows, heads):
    out = [f"### {title}", "", "| " + " | ".join(heads) + " |",
           "| --- |" + " ---: |" * (len(heads) - 1)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def report(r, top):
    f = "{:.1f}".format
    print(f"## {r['label']}: {f(r['us_per_io'])} CPU-us per I/O\n")
    print(f"{r['samples']} samples at {r['hz']} Hz over {r['ios']} I/Os "
          "(fio's count); CPU microseconds per I/O.", end="")
    if r.get("tcp_segments_per_io") is not None:
        print(f" TCP segments sent per I/O: {r['tcp_segments_per_io']:.2f} "
              "(the guest's /proc/net/snmp, both ends).", end="")
    print("\n")
    print(table("Where", [(k, f(v)) for k, v in sorted(
        r["classes"].items(), key=lambda kv: -kv[1])], ["part", "us/IO"]))
    print(table("Host processes", [(k, f(v)) for k, v in r["processes"].items()],
                ["process", "us/IO"]))
    print(table("Host kernel, by the call that entered it",
                [(k, f(v)) for k, v in list(r["host"].items())[:12]],
                ["process: host function", "us/IO"]))
    print(table("Guest kernel by module", [(k, f(v)) for k, v in r["modules"].items()],
                ["module", "us/IO"]))
    print(table("Guest kernel functions, self",
                [(k, f(v)) for k, v in list(r["self"].items())[:top]], ["function", "us/IO"]))
    print(table("Guest kernel functions, with callees",
                [(k, f(v)) for k, v in list(r["total"].items())[:top]], ["function", "us/IO"]))
    for func, paths in r.get("callers", {}).items():
        print(table(f"{func}, self, by its callers",
                    [(k, f(v)) for k, v in list(paths.items())[:top]], ["callers", "us/IO"]))


def mean_report(paths):
    """The runs in PATHS (comma-separated) as one report: every figure the
    mean of the runs' (a function absent from a run counts 0 there), with
    the runs' CPU-us per I/O in "runs"."""
    runs = []
    for path in paths.split(","):
        with open(path, encoding="utf-8") as f:
            runs.append(json.load(f))
    n = len(runs)
    r = {"label": runs[0]["label"] + (f" ({n} runs)" if n > 1 else ""),
         "runs": [x["us_per_io"] for x in runs],
         "us_per_io": sum(x["us_per_io"] for x in runs) / n}
    segs = [x.get("tcp_segments_per_io") for x in runs]
    r["tcp_segments_per_io"] = None if None in segs else sum(segs) / n
    for key in ("classes", "processes", "host", "modules", "self", "total"):
        names = set().union(*(x[key] for x in runs))
        r[key] = {k: sum(x[key].get(k, 0) for x in runs) / n for k in names}
    return r


def compare(a_paths, b_paths, top, names=None):
    a, b = mean_report(a_paths), mean_report(b_paths)
    if names:
        a["label"], b["label"] = names
    f1 = "{:.1f}".format

    def rows(key, limit, moved=False):
        """Ranked by the larger side, or by how far they moved."""
        def rank(k):
            x, y = a[key].get(k, 0), b[key].get(k, 0)
            return -abs(x - y) if moved else -max(x, y)
        names = sorted(sorted(set(a[key]) | set(b[key])), key=rank)  # ties by name
        return [(k, f1(a[key].get(k, 0)), f1(b[key].get(k, 0)),
                 f1(a[key].get(k, 0) - b[key].get(k, 0))) for k in names[:limit]]
    heads = ["", a["label"], b["label"], "difference"]
    print(f"## {a['label']} against {b['label']}, CPU-us per I/O\n")
    rows_all = [("CPU-us per I/O", f1(a["us_per_io"]), f1(b["us_per_io"]),
                 f1(a["us_per_io"] - b["us_per_io"]))]
    if len(a["runs"]) > 1 or len(b["runs"]) > 1:
        # The spread says what a difference of the means is worth.
        rows_all.append(("runs, lowest-highest",
                         f"{min(a['runs']):.1f}-{max(a['runs']):.1f}",
                         f"{min(b['runs']):.1f}-{max(b['runs']):.1f}", ""))
    sa, sb = a.get("tcp_segments_per_io"), b.get("tcp_segments_per_io")
    if sa is not None and sb is not None:
        rows_all.append(("TCP segments per I/O", f"{sa:.2f}", f"{sb:.2f}", f"{sa - sb:.2f}"))
    print(table("In all", rows_all, heads))
    print(table("Where", rows("classes", 10), heads))
    print(table("Host processes", rows("processes", 2), heads))
    print(table("Host kernel, by the call that entered it", rows("host", 12), heads))
    print(table("Guest kernel by module", rows("modules", 15), heads))
    print(table("Functions, self", rows("self", top), heads))
    print(table("Functions, self, by how much they moved", rows("self", 25, moved=True), heads))
    print(table("Functions, with callees", rows("total", top), heads))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kallsyms")
    p.add_argument("--fio")
    p.add_argument("--hz", type=float, default=999)
    p.add_argument("--label", default="")
    p.add_argument("--comm", default="linux")
    p.add_argument("--host-kallsyms", default="/proc/kallsyms")
    p.add_argument("--segs", help="two lines of `OUT IN` TCP segment counts, before and after")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--json")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="two reports (JSON), or two comma-separated lists of runs")
    p.add_argument("--names", nargs=2, metavar=("A", "B"),
                   help="--compare's names for its two sides")
    p.add_argument("--callers", action="append", metavar="FUNC",
                   help="add the call paths of FUNC's own samples (repeatable)")
    p.add_argument("--depth", type=int, default=4, help="callers shown per path")
    args = p.parse_args()
    if args.compare:
        compare(*args.compare, args.top, args.names)
        return
    if not args.kallsyms or not args.fio:
        p.error("--kallsyms and --fio are needed (or --compare)")
    r = analyse(args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(r, f, indent=1)
    report(r, args.top)


if __name__ == "__main__":
    main()
