#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (tools/vm/selftest.sh): loads a module that produces a
# kernel report (argument: warn, kasan or leak; default warn). The test
# itself passes; run.sh must still fail the run (leak: at kmemleak's final
# scans).
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
t_run "load the ${1:-warn} module" modprobe rddp_selftest_warn report="${1:-warn}"
