#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/lat-study.sh LABEL 'KERNEL-ARGS' DRIVER [BOOTS] [BUSY-LOOPS]: the
# latency study of Documentation/performance.md ("The 4 ms mode"). BOOTS
# qemu guests (default 2) on Debian's kernel with KERNEL-ARGS appended,
# each running tests/vm/lat-hist.sh DRIVER (rddp-nocrc or siw), while
# BUSY-LOOPS (default 0) shell loops keep host CPUs busy; prints each
# boot's percentiles and share of 4 ms round trips.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"
label=${1:?usage: lat-study.sh LABEL KERNEL-ARGS DRIVER [BOOTS] [BUSY-LOOPS]}
app=$2 drv=$3 n=${4:-2} busy=${5:-0}
make -s kmod-stock
ko=$(bash tools/vm/build-siw.sh)
loops=()
for _ in $(seq "$busy"); do
	(while :; do :; done) &
	loops+=($!)
done
trap '[ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null' EXIT
for b in $(seq "$n"); do
	name=lat-$label-$drv-$b
	RDDP_VM_APPEND="$app" bash tools/vm/run.sh --kernel stock --timeout 400 --name "$name" \
		--ko build/kmod-stock/rddp.ko --ko "$ko" tests/vm/lat-hist.sh "$drv" >/dev/null 2>&1 || true
	echo "== $label (${app:-no extra arguments}, $busy busy host loops) $drv, boot $b"
	grep -v '^cmdline' "build/vm-results/$name/a/lat-hist.txt" 2>/dev/null ||
		tail -5 "build/vm-results/$name/a/test.log"
done
