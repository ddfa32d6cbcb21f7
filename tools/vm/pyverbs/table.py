#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The per-test table of rdma-core's tests, rddp beside siw, in Markdown.

Usage: table.py DIR
DIR holds pyverbs-rddp.txt and pyverbs-siw.txt (tests/vm/pyverbs.sh's
results, pyverbs-runner.py's lines; e.g. build/vm-results/uml-debug-pyverbs/a).
A module or test class whose every test had one outcome on both drivers,
for one reason, is one row; the others a row per test. Documentation/testing.md's table is
this program's output.
"""
import collections
import os
import sys


def results(path):
    out = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            fields = line.rstrip('\n').split('\t')
            if fields[0] != 'start' and len(fields) >= 2:
                out[fields[1]] = (fields[0], fields[2] if len(fields) > 2 else '')
    return out


def cell(result):
    if result is None:
        return 'not run'
    status, detail = result
    word = {'pass': 'passed', 'skip': 'skipped', 'fail': 'FAILED', 'error': 'ERROR',
            'xfail': 'expected failure'}.get(status, status)
    if status == 'pass' or not detail:
        return word
    detail = detail.replace('pyverbs.pyverbs_error.', '').replace('|', '/')
    return f'{word}: {detail}'


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rddp = results(os.path.join(sys.argv[1], 'pyverbs-rddp.txt'))
    siw = results(os.path.join(sys.argv[1], 'pyverbs-siw.txt'))
    modules = collections.OrderedDict()
    for test in sorted(set(rddp) | set(siw)):
        name = test.removeprefix('tests.')
        modules.setdefault(name.split('.')[0], []).append((name, test))
    print('| test | rddp | siw |')
    print('| --- | --- | --- |')

    def row(label, r, s):
        print(f'| {label} | {r} | {"the same" if r == s else s} |')

    for module, tests in modules.items():
        cells = {(cell(rddp.get(t)), cell(siw.get(t))) for _, t in tests}
        if len(tests) > 1 and len(cells) == 1:
            row(f'{module} (all {len(tests)} tests)', *cells.pop())
            continue
        classes = collections.OrderedDict()
        for name, test in tests:
            classes.setdefault(name.split('.')[1], []).append((name, test))
        for klass, members in classes.items():
            cells = {(cell(rddp.get(t)), cell(siw.get(t))) for _, t in members}
            if len(members) > 1 and len(cells) == 1:
                row(f'{module}.{klass} (all {len(members)} tests)', *cells.pop())
                continue
            for name, test in members:
                row(name, cell(rddp.get(test)), cell(siw.get(test)))

if __name__ == '__main__':
    main()
