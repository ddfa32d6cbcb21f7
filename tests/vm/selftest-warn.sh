#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (tools/vm/selftest.sh): loads a module that warns.
# The test itself passes; run.sh must still fail the run.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
t_run "load the warning module" modprobe rddp_selftest_warn
