#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) the debug 6.1 kernel that rddp's VM tests run
# on: KASAN, UBSAN, lockdep, kmemleak, KUnit, the RDMA stack with siw=m,
# SCTP.
# Prints the build directory: its arch/x86/boot/bzImage boots the VM, and
# out-of-tree modules build against it with `make -C DIR M=...`.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

src=$(rddp_linux_source)
frag="$RDDP_TOP/tools/kernel/rddp-debug.config"
qemufrag="$RDDP_TOP/tools/kernel/rddp-debug-qemu.config"
key=$(rddp_hash "$frag" "$qemufrag" "$0" "$src" "$(gcc --version | head -1)")
out="$RDDP_CACHE/debug-kernel-$key"

if [ -f "$out/.built" ]; then
	echo "$out"
	exit 0
fi

rddp_log "building debug kernel in $out (first time only; ~15 min on 2 cores)"
rm -rf "$out"
mkdir -p "$out"
make -s -C "$src" O="$out" x86_64_defconfig >/dev/null
(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
	"$out/.config" "$src/kernel/configs/kvm_guest.config" "$frag" "$qemufrag" >/dev/null)
make -s -C "$src" O="$out" olddefconfig >/dev/null

# merge_config warns but does not fail when a symbol did not take: check the
# ones the tests rely on.
for sym in KASAN PROVE_LOCKING DEBUG_KMEMLEAK KUNIT RDMA_SIW INFINIBAND_USER_ACCESS USER_NS \
	NET_9P_VIRTIO 9P_FS DUMMY VETH DEBUG_ATOMIC_SLEEP NFS_V4_2 SUNRPC_XPRT_RDMA NVME_RDMA \
	NVME_TARGET_RDMA INFINIBAND_ISER INFINIBAND_ISERT BLK_DEV_SD TCM_FILEIO ISCSI_TCP IP_SCTP; do
	grep -Eq "^CONFIG_${sym}=(y|m)" "$out/.config" ||
		rddp_die "debug kernel config lacks CONFIG_$sym"
done

nice make -C "$src" O="$out" -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1 ||
	{ tail -40 "$out/build.log" >&2; rddp_die "debug kernel build failed (log: $out/build.log)"; }
# Install modules into a staging tree the initramfs builder copies from.
make -s -C "$src" O="$out" INSTALL_MOD_PATH="$out/mods" modules_install >/dev/null
touch "$out/.built"
echo "$out"
