#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The hostile-peer suite's results as a per-case conformance table.

rddp_hostile (tests/verbs/hostile_test.cc) runs crafted cases, each named
by its RFC section, against an RDMA device and prints TAP whose check
names are "CASE: what is checked"; tests/vm/hostile.sh relays them with a
prefix ("crc=1: ", "crc=0: ", "siw: "). This reads the results
directories of tools/vm/run.sh and prints one Markdown table row per case
with one column per device: "pass", or the failing checks in brief, or
"kernel panic" when the guest's kernel died during the case.

    tools/conformance.py table rddp=build/vm-results/conf-rddp \\
        siw=build/vm-results/conf-siw siw=build/vm-results/conf-siw2 ...
    tools/conformance.py remaining build/vm-results/conf-siw ...
    tools/conformance.py cases
    tools/conformance.py --sctp table rddp=build/vm-results/hostile ...

--sctp: the SCTP mode's cases instead (rddp_hostile --sctp,
tests/verbs/hostile_sctp.cc, relayed with the prefix "sctp: "), in their
own areas.

A column may take several directories (each LABEL=DIR adds one): a case's
result is its run in the last directory that has one, so a run that
resumes after a panic completes an earlier one. `remaining` prints the
cases (one a line) that none of the directories ran, without those that
took the kernel down: what `hostile.sh siw CASE...` still has to run
(one rddp_hostile per case, each announced by a "# case: NAME" line, so a
panic is put on the case that was running). A run of the whole suite in
one program announces no case: a panic there is put on none, and the last
case that printed checks counts as not run (the panic may have cut it
short), so `remaining` lists it again. A case that ran under several
prefixes (rddp's crc=1 and crc=0) passes if it passed under each.
Python 3 standard library only.
"""

import argparse
import os
import re
import signal
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(TOP, "tests", "verbs", "hostile_test.cc")
SCTP_SOURCE = os.path.join(TOP, "tests", "verbs", "hostile_sctp.cc")
AFTER = "a fresh connection after the cases"  # the last, unnamed by an RFC
SCTP_AFTER = "a fresh session over SCTP after the cases"
SCTP = False  # --sctp

AREAS = [
    "MPA setup, device as Responder",
    "MPA setup, device as Initiator",
    "MPA framing",
    "DDP, tagged",
    "DDP, untagged",
    "RDMAP",
    "Read",
    "Terminate from the peer",
    "RTR (RFC 6581)",
    "Teardown while the peer stalls",
    "After the cases",
]

SCTP_AREAS = [
    "Association (§4.1, §8.1)",
    "Session setup, device passive (§2.2.3, §3, §5)",
    "Session setup, device as Initiator (§3)",
    "Chunks and DDP-SSNs (§2.2, §6, §7)",
    "DDP and RDMAP over SCTP",
    "Untagged coverage over SCTP (issue 26 item 4)",
    "After the cases",
]


def areas():
    return SCTP_AREAS if SCTP else AREAS


def case_names(source):
    """The case names in the order the program runs them."""
    with open(source, encoding="utf-8") as f:
        text = f.read()
    names = []
    # A whole literal "RFC N §S ..." (not the head of a concatenation);
    # with --sctp "draft-ietf-rddp-sctp §S ..." too.
    head = r"(?:RFC \d+|draft-ietf-rddp-sctp) §" if SCTP else r"RFC \d+ §"
    for m in re.finditer(r'"(' + head + r'[^"\\]*)"(?!\s*\)\s*\+)', text):
        n = m.group(1)
        if n not in names:
            names.append(n)
    names.append(SCTP_AFTER if SCTP else AFTER)
    return names


def sctp_area(name):
    low = name.lower()
    if name == SCTP_AFTER:
        return "After the cases"
    if "§4.1" in name or "§8.1" in name:
        return "Association (§4.1, §8.1)"
    if "rddp as initiator" in low or "active/active" in low:
        return "Session setup, device as Initiator (§3)"
    if re.search(r"a one-segment send|send with a gap|send in three segments", low):
        return "Untagged coverage over SCTP (issue 26 item 4)"
    if name.startswith("draft-ietf-rddp-sctp") and not re.search(
            r"§2\.2|§6|§7|live session|after the initiate|second initiate", low):
        return "Session setup, device passive (§2.2.3, §3, §5)"
    if name.startswith("draft-ietf-rddp-sctp") and re.search(
            r"before the initiate|zero-length private|2 octets of private", low):
        return "Session setup, device passive (§2.2.3, §3, §5)"
    if name.startswith("draft-ietf-rddp-sctp") or name.startswith("RFC 4960"):
        return "Chunks and DDP-SSNs (§2.2, §6, §7)"
    return "DDP and RDMAP over SCTP"


def area(name):
    if SCTP:
        return sctp_area(name)
    low = name.lower()
    if "as initiator" in low:
        return "MPA setup, device as Initiator"
    if name == AFTER:
        return "After the cases"
    if "deregistered while" in low or "closed tcp window" in low:
        return "Teardown while the peer stalls"
    if name.startswith("RFC 6581 §3.2") or "rtr consumes" in low:
        return "RTR (RFC 6581)"
    if name.startswith("RFC 5044 §7") or name.startswith("RFC 6581 §9"):
        return "MPA setup, device as Responder"
    if name.startswith("RFC 5044"):
        return "MPA framing"
    if "terminate" in low:
        return "Terminate from the peer"
    if "read" in low and "ignored" not in low and "read request queue" not in low:
        return "Read"
    if name.startswith("RFC 5040"):
        if "send:" in low or "srq" in low:
            return "DDP, untagged"
        return "RDMAP"
    if name.startswith("RFC 5041"):
        if re.search(r"\bwrite\b|\btagged\b", low) and "untagged" not in low:
            if "between two segments of a send" in low:
                return "DDP, untagged"
            return "DDP, tagged"
        return "DDP, untagged"
    return "After the cases"


class Run:
    """The checks of one results directory, by case."""

    def __init__(self, path, names):
        self.path = path
        self.names = names
        self.checks = {}  # case -> [(ok, check, detail, prefix)]
        self.order = []  # cases in the order they printed checks
        self.announced = []  # "# case: NAME" lines, in order
        self.prefixes = []  # hostile.sh's relay prefixes: crc=1, crc=0, siw
        self.panic = None  # the kernel's last words, if it died
        log = os.path.join(path, "a", "test.log")
        if not os.path.exists(log):
            log = os.path.join(path, "a", "tap.txt")
        by_len = sorted(names, key=len, reverse=True)
        last = None
        if not os.path.exists(log):
            sys.exit("conformance.py: no %s" % log)
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                m = re.match(r"^# case: (.*)$", line)
                if m:
                    self.announced.append(m.group(1))
                    continue
                if line.startswith("#   ") and last is not None:
                    d = line[1:].strip()
                    ok, chk, det, pre = last[1][-1]
                    last[1][-1] = (ok, chk, (det + "; " if det else "") + d, pre)
                    continue
                m = re.match(r"^(not ok|ok) \d+ - (.*)$", line)
                if not m:
                    continue
                ok, full = m.group(1) == "ok", m.group(2)
                last = None
                case, chk, prefix = self._split(full, by_len)
                if case is None:
                    continue
                if prefix and prefix not in self.prefixes:
                    self.prefixes.append(prefix)
                if case not in self.checks:
                    self.checks[case] = []
                    self.order.append(case)
                self.checks[case].append((ok, chk, "", prefix))
                last = (case, self.checks[case])
        self._console()

    @staticmethod
    def _split(full, by_len):
        """CASE, check, relay prefix ("crc=1") of a check's name."""
        for n in by_len:
            i = full.find(n)
            if i < 0:
                continue
            rest = full[i + len(n):]
            if rest == "" or rest.startswith(": "):
                return n, rest[2:], full[:i].rstrip(": ")
        return None, full, ""

    def _console(self):
        con = os.path.join(self.path, "console-a.log")
        if not os.path.exists(con):
            return
        with open(con, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if "Kernel panic" in text:
            m = re.search(r"kernel BUG at \S+|BUG: failure at \S+|BUG: [^\n]*"
                          r"|general protection fault[^\n]*", text)
            self.panic = m.group(0) if m else "Kernel panic"

    def crashed_case(self):
        """The case running when the kernel died (None: none, or not known)."""
        if self.panic and self.announced and self.announced[-1] in self.names:
            return self.announced[-1]
        return None

    def complete(self):
        """The cases whose checks all printed: in a run that the kernel
        ended without a case announced, not the last one."""
        if self.panic and self.crashed_case() is None:
            return self.order[:-1]
        crashed = self.crashed_case()
        return [c for c in self.order if c != crashed]


# The other checks: what a failure of each means, in brief.
OTHER = [
    (r"the victim closes the connection without a Reply$", "not closed without a Reply"),
    (r"the listener's ULP sees no connection request$",
     lambda d: "the ULP sees it (%s)" % d if d else "the ULP sees it"),
    (r"the listener sees the Request$", "refused: the listener never sees the Request"),
    (r"the Reply selects no RTR$", "the Reply selects an RTR"),
    (r"the Reply selects the (\w+) RTR offered$",
     lambda d: "the Reply selects RTR bits %s" % d.replace("RTR bits ", "") if d
     else "the Reply selects another RTR"),
    (r"the Reply's C bit is the Request's$", "the Reply's C bit differs"),
    (r"a revision-2 Request, peer-to-peer", lambda d: "its Request: %s" % d),
    (r"rddp's first FPDU is the zero-length Write RTR$", "no zero-length Write RTR first"),
    (r"rddp's connect fails", lambda d: "connects (%s)" % d if "ESTABLISHED" in d
     else "connect does not fail (%s)" % d),
    (r"rddp closes the connection$", "no silent close within 10 s"),
    (r"the victim closes without a Terminate|taken as a Terminate",
     lambda d: "answers with %s" % d),
    (r"nothing placed after ibv_dereg_mr returned$", "data placed after ibv_dereg_mr returned"),
    (r"nothing placed beyond the sink$", "data placed beyond the sink"),
    (r"nothing placed$", "the data is placed"),
    (r"placed at its TOs, nothing else$", "misplaced"),
    # the case cannot start: reported as not run
    (r"register 8 MiB$", lambda d: "not run: ibv_reg_mr of 8 MiB fails (%s)" % d),
    (r"the Read completes in error$",
     lambda d: "the Read completes successfully" if d == "status 0" else "the Read: %s" % d),
    (r"ibv_dereg_mr returns at once", "ibv_dereg_mr blocks"),
    (r"rdma_destroy_qp returns at once", "rdma_destroy_qp blocks"),
]


def brief(fails):
    """The failing checks of a case in a few words."""
    out = []
    for chk, det in fails:
        m = re.match(r"(?:.*: )?Terminate layer (\d) type (\d) code (0x[0-9a-f]+)$", chk)
        if m:
            want = "/".join(m.groups())
            g = re.match(r"got Terminate layer (\d) type (\d) code (0x[0-9a-f]+)", det)
            if g:
                out.append("Terminate %s instead of %s" % ("/".join(g.groups()), want))
            elif "close without a Terminate" in det:
                out.append("closed without a Terminate (want %s)" % want)
            elif "nothing within" in det:
                out.append("no Terminate, no close (want %s)" % want)
            elif "unframeable" in det:
                out.append("%s (want Terminate %s)" % (det.replace("got ", ""), want))
            else:
                out.append("no Terminate %s (%s)" % (want, det))
        elif chk.startswith("the Terminate copies the offending DDP header"):
            out.append("no DDP header copied")
        elif chk.startswith("its DDP Segment Length"):
            g = re.match(r"M (\d+), length (\d+), sent (\d+)", det)
            if g and g.group(1) == "0":
                out.append("no segment length")
            elif g:
                out.append("segment length %s instead of %s" % (g.group(2), g.group(3)))
            else:
                out.append("wrong segment length")
        elif chk.startswith("it copies the fifth Read Request"):
            out.append("Read Request not copied")
        elif chk == "the victim's QP is in ERROR":
            out.append("QP not in ERROR")
        elif chk in ("the posted receives complete in error", "the posted receives are flushed",
                     "every posted receive completes in error"):
            if det.startswith("0 "):
                out.append("receives not completed")
            else:
                out.append("a receive completed without error")
        elif chk in ("no byte placed outside the buffers", "guards intact"):
            out.append("bytes written outside the buffers")
        elif chk == "no Terminate":
            out.append("a Terminate (%s)" % det.replace("got ", "") if det else "a Terminate")
        else:
            for pat, say in OTHER:
                if re.match(pat, chk):
                    out.append(say(det) if callable(say) else say)
                    break
            else:
                out.append("failed: %s%s" % (chk, " (%s)" % det if det else ""))
    return "; ".join(out)


def failures(checks):
    """The failing checks in brief; by prefix if the case ran under several."""
    prefixes = []
    for c in checks:
        if c[3] not in prefixes:
            prefixes.append(c[3])
    if len(prefixes) < 2:
        return brief([(c[1], c[2]) for c in checks if not c[0]])
    out = []
    for p in prefixes:
        b = brief([(c[1], c[2]) for c in checks if not c[0] and c[3] == p])
        if b:
            out.append("%s: %s" % (p, b))
    return "; ".join(out)


def column(runs):
    """case -> cell text for one device; its checks: case -> (passed, made)."""
    cells = {}
    checks = {}
    for r in runs:
        for case in r.complete():
            fails = [c for c in r.checks[case] if not c[0]]
            checks[case] = (len(r.checks[case]) - len(fails), len(r.checks[case]))
            b = failures(r.checks[case])
            cells[case] = "pass" if not fails else b if b.startswith("not run") else "fail: " + b
        crashed = r.crashed_case()
        if crashed:
            what = "kernel panic"
            m = re.search(r"(\w+\.c):(\d+)/(\w+)\(\)", r.panic)
            if m:
                what += " (BUG() at %s:%s in %s())" % m.groups()
            b = failures(r.checks.get(crashed, []))
            if b:
                what += "; before it: " + b
            cells[crashed] = what
            checks.pop(crashed, None)
    return cells, checks


def parse_columns(specs):
    cols = []
    for s in specs:
        label, sep, path = s.partition("=")
        if not sep or not label:
            sys.exit("conformance.py: want LABEL=DIR, got %r" % s)
        for c in cols:
            if c[0] == label:
                c[1].append(path)
                break
        else:
            cols.append((label, [path]))
    return cols


def md(text):
    return text.replace("|", "\\|")


def cmd_table(args):
    names = case_names(args.source)
    cols = parse_columns(args.columns)
    cells = []
    for label, paths in cols:
        runs = [Run(p, names) for p in paths]
        prefixes = []
        for r in runs:
            prefixes += [x for x in r.prefixes if x not in prefixes]
        c, k = column(runs)
        cells.append((label, c, prefixes, k))
    labels = [c[0] for c in cells]
    # per area and label: pass, fail, kernel panic, not run
    counts = {a: {label: [0, 0, 0, 0] for label in labels} for a in areas()}
    out = []
    for a in areas():
        rows = [n for n in names if area(n) == a]
        if not rows:
            continue
        out += ["", "### " + a, "", "| case | " + " | ".join(labels) + " |",
                "|---|" + "---|" * len(cells)]
        for n in rows:
            row = []
            for label, c, _, _ in cells:
                v = c.get(n, "not run")
                k = (0 if v == "pass" else 2 if v.startswith("kernel panic")
                     else 3 if v.startswith("not run") else 1)
                counts[a][label][k] += 1
                row.append(md(v))
            out.append("| " + md(n) + " | " + " | ".join(row) + " |")
    total = {label: [sum(counts[a][label][k] for a in areas()) for k in range(4)]
             for label in labels}
    head = ["%d cases." % len(names)]
    for label, _, prefixes, checks in cells:
        p, f, k, nr = total[label]
        s = "%s: %d pass, %d fail" % (label, p, f)
        if k:
            s += ", %d kernel panic" % k
        if nr:
            s += ", %d not run" % nr
        s += "; %d of %d checks pass" % (sum(x[0] for x in checks.values()),
                                          sum(x[1] for x in checks.values()))
        if prefixes:
            s += " (runs: %s)" % ", ".join(prefixes)
        head.append(s + ".")
    summary = ["", "| area | cases | " + " | ".join("%s pass" % x for x in labels) + " |",
               "|---|---|" + "---|" * len(labels)]
    for a in areas():
        n = sum(counts[a][labels[0]]) if labels else 0
        if n:
            summary.append("| %s | %d | " % (a, n) + " | ".join(
                str(counts[a][x][0]) for x in labels) + " |")
    summary.append("| all | %d | " % len(names) + " | ".join(
        "**%d**" % total[x][0] for x in labels) + " |")
    print("\n".join([" ".join(head)] + summary + out))


def cmd_remaining(args):
    names = case_names(args.source)
    done = set()
    for p in args.dirs:
        r = Run(p, names)
        done.update(r.complete())
        if r.crashed_case():
            done.add(r.crashed_case())
    for n in names:
        if n not in done:
            print(n)


def cmd_cases(args):
    for n in case_names(args.source):
        print("%s\t%s" % (area(n), n) if args.areas else n)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", help="hostile_test.cc (case names)")
    ap.add_argument("--sctp", action="store_true", help="the SCTP mode (hostile_sctp.cc)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table", help="the Markdown table, LABEL=DIR for each run")
    t.add_argument("columns", nargs="+", metavar="LABEL=DIR")
    t.set_defaults(fn=cmd_table)
    r = sub.add_parser("remaining", help="cases none of DIR... ran (nor crashed on)")
    r.add_argument("dirs", nargs="+", metavar="DIR")
    r.set_defaults(fn=cmd_remaining)
    c = sub.add_parser("cases", help="the case names, in running order")
    c.add_argument("--areas", action="store_true", help="with the area of each")
    c.set_defaults(fn=cmd_cases)
    args = ap.parse_args()
    global SCTP  # pylint: disable=global-statement
    SCTP = args.sctp
    if not args.source:
        args.source = SCTP_SOURCE if SCTP else SOURCE
    args.fn(args)


if __name__ == "__main__":
    main()
