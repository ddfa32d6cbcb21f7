#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rdma-core's own tests (tests/ of Debian's python3-pyverbs), one line a result.

Usage: pyverbs-runner.py TESTS_DIR OUT --dev DEV MODULE...

Loads the tests as their run_tests.py does (their argument parser takes
--dev, the package `tests` is imported whole) and runs the named modules
(test_rdmacm, ...) with unittest. Each test appends to OUT, flushed at once
so a hang still shows which test hung:
    start<TAB>ID
    pass|fail|error|skip|xfail<TAB>ID<TAB>DETAIL
DETAIL is the skip's reason or the exception's last line. tests/vm/pyverbs.sh
turns these into TAP.

The tests draw random QP sizes and attribute masks: each test's generator is
seeded with its name (and PYVERBS_SEED, default 0), so that a test draws the
same values against every driver and in every run, and results compare.
"""
import os
import random
import sys
import unittest
from importlib.machinery import SourceFileLoader

TESTS_DIR, OUT = sys.argv[1], sys.argv[2]
sys.argv = [sys.argv[0]] + sys.argv[3:]
sys.path.insert(0, TESTS_DIR)

from args_parser import parser  # noqa: E402  (rdma-core's tests/args_parser.py)

TESTS = SourceFileLoader('tests', os.path.join(TESTS_DIR, '__init__.py')).load_module()
parser.parse_args()  # takes --dev and the like; leaves the module names in sys.argv


def _one_line(text):
    return ' '.join(str(text).split())[:300]


class LineResult(unittest.TextTestResult):
    """unittest's verbose result, and a line in OUT per test."""

    def _line(self, *fields):
        with open(OUT, 'a', encoding='utf-8') as out:
            out.write('\t'.join(fields) + '\n')

    def _last_line(self, err, test):
        lines = [ln for ln in self._exc_info_to_string(err, test).splitlines() if ln.strip()]
        return _one_line(lines[-1] if lines else 'no message')

    def startTest(self, test):
        self._line('start', test.id())
        random.seed(f"{os.environ.get('PYVERBS_SEED', '0')}:{test.id()}")
        super().startTest(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line('pass', test.id(), '')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line('fail', test.id(), self._last_line(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._line('error', test.id(), self._last_line(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line('skip', test.id(), _one_line(reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line('xfail', test.id(), self._last_line(err, test))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line('fail', test.id(), 'unexpected success')


unittest.main(module=TESTS, exit=True,
              testRunner=unittest.TextTestRunner(resultclass=LineResult, verbosity=2))
