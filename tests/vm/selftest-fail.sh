#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (tools/vm/selftest.sh): one passing and one failing test,
# and (with argument "hang") a test that never ends.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
t_run "true passes" true
t_run "false fails" false
[ "${1:-}" = hang ] && sleep 100000
exit 0
