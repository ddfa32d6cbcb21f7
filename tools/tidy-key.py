#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a key per source file for tools/cxx-style.sh's clang-tidy cache.

Usage: tools/tidy-key.py TOP BUILD FILE...

For each FILE (relative to TOP), one line "FILE KEY": a SHA-256 over what
clang-tidy's verdict on it depends on: clang-tidy's version, the
.clang-tidy files, the file's compile command from
BUILD/compile_commands.json (with TOP's and BUILD's paths written as
placeholders, so that a clone elsewhere has the same keys), and the
contents of the file and of every header it includes, system headers too
(the compiler's -M list). A file with no compile command, or whose
dependencies cannot be listed, gets the key "-": never cached.
"""
import hashlib
import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def compile_args(entry):
    """The entry's compiler arguments, without its output (-o X, -c)."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            out.append(a)
    return out


def dependencies(entry, args):
    """Every file the translation unit reads, from the compiler's -M."""
    r = subprocess.run(args + ["-M"], cwd=entry["directory"], capture_output=True,
                       text=True, check=False)
    if r.returncode != 0:
        return None
    text = r.stdout.replace("\\\n", " ")
    _, _, deps = text.partition(":")
    return {os.path.normpath(os.path.join(entry["directory"], d)) for d in deps.split()}


def key(entry, common, top, build):
    args = compile_args(entry)
    deps = dependencies(entry, args)
    if deps is None:
        return "-"
    h = hashlib.sha256(common)

    def norm(s):
        return s.replace(build, "@BUILD@").replace(top, "@TOP@")

    h.update(norm(" ".join(args)).encode() + b"\0")
    for d in sorted(deps, key=norm):
        try:
            with open(d, "rb") as f:
                data = f.read()
        except OSError:
            return "-"
        h.update(norm(d).encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    top, build = os.path.realpath(argv[1]), os.path.realpath(argv[2])
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = {os.path.realpath(e["file"]): e for e in json.load(f)}
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True,
                             check=False).stdout
    common = version
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and
                         os.path.join(root, d) != os.path.join(top, "build"))
        if ".clang-tidy" in files:
            with open(os.path.join(root, ".clang-tidy"), "rb") as f:
                common += root[len(top):].encode() + b"\0" + f.read()
    files = argv[3:]

    def one(name):
        e = entries.get(os.path.realpath(os.path.join(top, name)))
        return f"{name} {key(e, common, top, build) if e else '-'}"

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for line in pool.map(one, files):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
