#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) a User-Mode Linux kernel for rddp's fast
# test lane and prints its build directory: DIR/linux is the kernel (a host
# program), DIR/mods the installed modules, and out-of-tree modules build
# with `make -C DIR ARCH=um M=...`.
#
#   build-uml-kernel.sh debug   6.12: KASAN, UBSAN, lockdep, kmemleak, KUnit, the ULPs (tests)
#   build-uml-kernel.sh plain   6.1: no debugging, the ULPs (benchmarks)
#
# The debug kernel is 6.12 so that rddp's 6.12 code paths (zero copy with
# MSG_SPLICE_PAGES, sk_net_refcnt_upgrade, create_cq's attribute bundle, ...)
# run under KASAN and lockdep somewhere: qemu's debug kernel and the stock
# lanes cover 6.1. The source is linux-source-SERIES with the fixes of
# tools/kernel/uml/SERIES/*.patch, applied in a hard-linked copy so the
# shared source tree stays pristine.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

variant=${1:-debug}
case $variant in
debug) series=6.12 ;;
plain) series=6.1 ;;
*) rddp_die "usage: build-uml-kernel.sh debug|plain" ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
frag="$here/rddp-uml.config"
debugfrag="$here/rddp-debug.config"
src=$(rddp_linux_source "$series")
patches=("$here/uml/$series"/*.patch)
key=$(rddp_hash "$frag" "$debugfrag" "$0" "${patches[@]}" "$src" "$variant" \
	"$(gcc --version | head -1)")
out="$RDDP_CACHE/uml-$variant-kernel-$key"

if [ -f "$out/.built" ]; then
	echo "$out"
	exit 0
fi

rddp_log "building the $variant UML $series kernel in $out (first time only; ~5-10 min on 2 cores, the debug one longer)"
rm -rf "$out"
mkdir -p "$out"
# Patched source: hard links to the shared tree; patch(1) replaces the files
# it changes instead of writing through the links.
cp -al "$src" "$out/src"
for p in "${patches[@]}"; do
	patch -s -p1 -d "$out/src" <"$p" || rddp_die "$p does not apply"
done
build="$out/build"
# The ULPs of the qemu debug kernel (NVMe-oF, NFS over RDMA, iSER with
# LIO) and their TCP alternatives, in both variants: tests/vm/ulp.sh runs
# under the debug kernel with kmemleak, which UML 6.12 keeps (UML 6.1's
# reported objects that were freed; run.sh --kmemleak); make bench's
# storage series (tests/vm/storage.sh) runs on the plain one at native
# speed. SCSI, which iSER's initiator needs, is in x86's defconfig but not
# in UML's.
{
	sed -n '/^# ULPs/,/^# guest plumbing/p' "$debugfrag"
	echo CONFIG_SCSI=y
} >"$out/ulp.config"
frags=("$frag" "$out/ulp.config")
if [ "$variant" = debug ]; then
	# The debug options of the qemu debug kernel, one list for both lanes.
	sed -n '/^# --- debugging/,/^# --- trimmed/p' "$debugfrag" >"$out/debug.config"
	frags+=("$out/debug.config")
fi
mk() { make -s -C "$out/src" O="$build" ARCH=um "$@"; }
mk defconfig >/dev/null
(cd "$build" && "$out/src/scripts/kconfig/merge_config.sh" -m -O "$build" \
	"$build/.config" "${frags[@]}" >/dev/null)
mk olddefconfig >/dev/null

syms=(UML_PCI_OVER_VIRTIO INFINIBAND_USER_ACCESS RDMA_SIW HOSTFS BLK_DEV_INITRD DUMMY VETH NET_NS USER_NS
	IP_SCTP NVME_RDMA NVME_TARGET_RDMA NVME_TCP NVME_TARGET_TCP SUNRPC_XPRT_RDMA NFSD NFS_V4_2
	INFINIBAND_ISER INFINIBAND_ISERT TCM_FILEIO TCM_IBLOCK ISCSI_TCP ISCSI_TARGET BLK_DEV_RAM)
# DEBUG_ATOMIC_SLEEP of the debug list needs a kernel that can preempt: UML
# 6.1 cannot (ARCH_NO_PREEMPT), 6.12 can, so the debug (6.12) kernel has it.
[ "$variant" = debug ] && syms+=(KASAN PROVE_LOCKING DEBUG_KMEMLEAK KUNIT UBSAN_BOUNDS DEBUG_ATOMIC_SLEEP)
for sym in "${syms[@]}"; do
	grep -Eq "^CONFIG_${sym}=(y|m)" "$build/.config" ||
		rddp_die "UML $variant kernel config lacks CONFIG_$sym"
done
grep -q '^CONFIG_KERNEL_STACK_ORDER=4$' "$build/.config" ||
	rddp_die "UML $variant kernel config lacks CONFIG_KERNEL_STACK_ORDER=4"

nice make -C "$out/src" O="$build" ARCH=um -j"$(nproc)" linux modules >"$out/build.log" 2>&1 ||
	{ tail -40 "$out/build.log" >&2; rddp_die "UML kernel build failed (log: $out/build.log)"; }
mk INSTALL_MOD_PATH="$out/mods" modules_install >/dev/null
ln -sf build/linux "$out/linux"
touch "$out/.built"
echo "$out"
