#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (tools/vm/selftest.sh): loads a module that produces a
# kernel report (argument: warn, kasan or leak; default warn). The test
# itself passes; run.sh must still fail the run (leak: at kmemleak's final
# scans). block: the load never returns (D state) and holds the console's
# output; the guest's watchdog ends the run.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
if [ "${1:-}" = block ]; then
	# Its output to the console, as a test's command stuck in the kernel
	# may hold it (make check of 2026-12-04: bash in write(2)).
	modprobe -v rddp_selftest_warn report=block
fi
t_run "load the ${1:-warn} module" modprobe rddp_selftest_warn report="${1:-warn}"
