#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: install what is needed, build rddp.ko for Debian's 6.1 kernel,
# boot it in a VM, create an rddp link and show it with the standard tools.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

bash tools/deps.sh
rddp_log "building rddp.ko for $(rddp_stock_kver)"
make -s kmod-stock
bash tools/vm/fio.sh >/dev/null
rddp_log "booting a VM (qemu, software emulation: ~15 s)"
mkdir -p build/vm-results
rc=0
bash tools/vm/run.sh --kernel stock --name demo --ko build/kmod-stock/rddp.ko \
	tests/vm/demo.sh >build/vm-results/demo.log 2>&1 || rc=$?
# What the guest printed, then the harness's verdict (kernel log included).
cat build/vm-results/demo/a/test.log
echo
grep -E '^(not )?ok |^vm-demo:' build/vm-results/demo.log | grep -v ' - rddp0 is an active'
exit "$rc"
