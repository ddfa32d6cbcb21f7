#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test (tools/vm/selftest.sh): one passing and one failing test,
# and (with argument "hang") a test that never ends or (with "die") a script
# that exits with an error before its end.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
t_run "true passes" true
t_run "false fails" false
[ "${1:-}" = hang ] && sleep 100000
[ "${1:-}" = die ] && exit 3
t_run "the last test" true
exit 0
