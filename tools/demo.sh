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
rddp_log "booting a VM (qemu, software emulation: ~15 s)"
bash tools/vm/run.sh --kernel stock --name demo --ko build/kmod-stock/rddp.ko \
	--show-console tests/vm/demo.sh
