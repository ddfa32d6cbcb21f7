#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) the guest initramfs for one kernel and prints
# its path. KERNEL is `stock` (Debian's 6.1), `stock-6.12` (Debian's 6.12,
# unpacked into the cache), `debug` (tools/kernel) or a
# User-Mode Linux kernel, `uml-debug` or `uml` (tools/kernel/build-uml-kernel.sh).
#
# The guest userland is taken from this host's Debian packages: busybox for
# the basics, and the real tools tests use (bash, kmod, iproute2, rdma-core
# with the siw provider, perftest, rping, iperf3, tcpdump) with every shared
# library they need. Kernel modules the tests need come with their
# dependencies (sctp, for DDP over SCTP in tests/vm/sctp.sh, brings
# udp_tunnel, ip6_udp_tunnel and libcrc32c; rddp's socket autoloads it
# through its net-pf-2-proto-132 alias; a listener loads the cookie's
# hmac(md5), built in on Debian's kernel, modules under UML); out-of-tree modules (rddp.ko,
# siw.ko) are passed to run.sh.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

kernel=${1:?usage: mkinitramfs.sh stock|debug}
rddp_guest_kernel "$kernel"

bins=(bash busybox kmod ip rdma ibv_devinfo ibv_devices ibv_asyncwatch ibv_rc_pingpong
	rping ucmatose udaddy rdma_server rdma_client ib_write_bw ib_read_bw ib_send_bw
	ib_write_lat ib_read_lat ib_send_lat iperf3 tcpdump timeout setpriv unshare nsenter stdbuf genl jq
	dd sha256sum truncate iwpmd ss chrt)
mods=(virtio_pci virtio_net 9p 9pnet_virtio dummy veth ib_core ib_cm iw_cm rdma_cm
	ib_uverbs rdma_ucm libcrc32c crc32c_generic crc32c-intel configfs siw
	nvme-rdma nvmet-rdma nfsd nfsv3 nfsv4 rpcrdma ib_iser ib_isert iscsi_target_mod
	target_core_mod target_core_file sd_mod iscsi_tcp sctp hmac md5
	nvme-tcp nvmet-tcp brd target_core_iblock)
pkgs=(busybox-static bash kmod iproute2 rdma-core ibverbs-utils ibverbs-providers
	libibverbs1 librdmacm1 perftest rdmacm-utils iperf3 tcpdump coreutils util-linux jq
	libnl-3-200 libnl-genl-3-200 libbenchmark1debian libc6 libstdc++6 libgcc-s1)
versions=$(dpkg-query -W -f='${Package}=${Version} ' "${pkgs[@]}" 2>/dev/null || true)

# The daemons of the ULP tests come from Debian's packages, unpacked into the
# cache and never installed on the host (their postinst scripts would start
# services there): the NFS server and client (nfs-utils, rpcbind) and the
# iSCSI initiator (open-iscsi's iscsid and iscsiadm) and nvme-cli.
ulp_debs=(nfs-kernel-server nfs-common rpcbind libwrap0 libnsl2 open-iscsi libisns0 libopeniscsiusr
	nvme-cli libnvme1 libjson-c5)
ulp_bins=(usr/sbin/rpc.nfsd usr/sbin/rpc.mountd usr/sbin/exportfs sbin/mount.nfs sbin/rpcbind
	usr/sbin/rpcinfo sbin/iscsid sbin/iscsiadm usr/sbin/nvme)
ulp_versions=$(rddp_deb_versions "${ulp_debs[@]}")
ulp_dir="$RDDP_CACHE/debs-ulp-$(rddp_hash "${ulp_debs[*]}" "$ulp_versions")"
if [ ! -f "$ulp_dir/.done" ]; then
	rm -rf "$ulp_dir"
	rddp_deb_unpack "$ulp_dir" "${ulp_debs[@]}"
	touch "$ulp_dir/.done"
fi

key=$(rddp_hash "$0" "$(dirname "$0")/guest-init.sh" "$kid" "$versions" "${bins[*]}" "${mods[*]}" \
	"$ulp_versions")
out="$RDDP_CACHE/initramfs-$kernel-$key.cpio.gz"
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

rddp_log "building the $kernel guest initramfs"
root=$(mktemp -d)
chmod 755 "$root"	# the guest's / (mktemp makes it 0700): users run tools too
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,rddp,results,mnt,var/tmp} \
	"$root"/usr/{bin,sbin,lib} "$root/lib/modules/$kver"
ln -s bin "$root/usr/local"

for b in "${bins[@]}"; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$b") || rddp_die "missing tool $b (make deps)"
	rddp_copy_with_libs "$root" "$p" "/bin/$b"
done
for b in "${ulp_bins[@]}"; do
	rddp_copy_with_libs "$root" "$ulp_dir/root/$b" "/bin/${b##*/}"
done
ln -s mount.nfs "$root/bin/mount.nfs4"
# Their libraries this host may lack (libwrap, libnsl, libisns,
# libopeniscsiusr, libnvme): ldd cannot see them.
mkdir -p "$root/lib/x86_64-linux-gnu"
cp -P "$ulp_dir"/root/usr/lib/x86_64-linux-gnu/lib*.so* "$root/lib/x86_64-linux-gnu/"
# open-iscsi's configuration; the initiator name is set by the test.
mkdir -p "$root/etc/iscsi" "$root/var/lib/iscsi" "$root/run/lock/iscsi"
cp "$ulp_dir/root/etc/iscsi/iscsid.conf" "$root/etc/iscsi/"
for f in /etc/netconfig /etc/rpc /etc/protocols; do cp "$f" "$root/etc/"; done
mkdir -p "$root"/var/lib/nfs/{v4recovery,rpc_pipefs} "$root/run/rpcbind" "$root/srv"
for a in modprobe insmod rmmod lsmod depmod modinfo; do ln -s kmod "$root/bin/$a"; done
# busybox provides what is not there yet (its sh stays busybox's; tests use bash).
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
for a in "$root"/bin/*; do ln -s "../bin/${a##*/}" "$root/sbin/${a##*/}"; done
# glibc dlopens libgcc_s for pthread_exit; ldd does not list it.
rddp_copy_with_libs "$root" "$(ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ {print $NF; exit}')"
# stdbuf preloads its library (perf_server line-buffers perftest with it).
rddp_copy_with_libs "$root" /usr/libexec/coreutils/libstdbuf.so
# rdma-core providers are dlopened too: the siw provider drives siw and rddp.
for f in /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-*.so; do rddp_copy_with_libs "$root" "$f"; done
mkdir -p "$root/etc/libibverbs.d"
cp /etc/libibverbs.d/siw.driver "$root/etc/libibverbs.d/"
# rddp's own C++ programs (rddpctl, rddp-bench, test programs) run from
# /rddp/build.
for f in /usr/lib/x86_64-linux-gnu/libnl-genl-3.so.200 /usr/lib/x86_64-linux-gnu/libnl-3.so.200 \
	/usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian; do
	rddp_copy_with_libs "$root" "$f"
done
cp /etc/services "$root/etc/" 2>/dev/null || true

cat >"$root/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/bash
rddptest:x:1000:1000:rddp unprivileged test user:/tmp:/bin/bash
_rpc:x:100:65534::/run/rpcbind:/bin/false
statd:x:101:65534::/var/lib/nfs:/bin/false
PW
cat >"$root/etc/group" <<'GR'
root:x:0:
rddptest:x:1000:
GR
echo "hosts: files" >"$root/etc/nsswitch.conf"
# qemu's debug kernel (6.1, lockdep): native NVMe multipath off, as that
# kernel had it before CONFIG_NVME_MULTIPATH=y came for blktests. 6.1's
# nvme_core flushes the multipath head's partition_scan_work under the
# disk's open_mutex while that work takes open_mutex: lockdep reports the
# circular dependency at `nvme disconnect` (ulp-two.sh's initiator in
# vm-debug-two, 2026-12-02), nvme_core's own, not rddp's. UML's debug
# kernel (6.12) keeps multipath on: it reports nothing there.
if [ "$kernel" = debug ]; then
	mkdir -p "$root/etc/modprobe.d"
	echo "options nvme_core multipath=N" >"$root/etc/modprobe.d/rddp-nvme.conf"
fi
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"

# Modules and their dependencies (modules built into a kernel are skipped).
declare -A seen=()
add_module() {
	local m=$1 path dep
	path=$(modinfo -b "$modroot" -k "$kver" -n "$m" 2>/dev/null) || return 0
	case $path in /*) ;; *) return 0 ;; esac	# "(builtin)"
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	mkdir -p "$root/lib/modules/$kver/$(dirname "${path#*/lib/modules/"$kver"/}")"
	cp "$path" "$root/lib/modules/$kver/${path#*/lib/modules/"$kver"/}"
	for dep in $(modinfo -b "$modroot" -k "$kver" -F depends "$m" | tr ',' ' '); do
		add_module "$dep"
	done
}
for m in "${mods[@]}"; do add_module "$m"; done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$modroot/lib/modules/$kver/$f" ] && cp "$modroot/lib/modules/$kver/$f" "$root/lib/modules/$kver/"
done
depmod -b "$root" "$kver"

install -m 0755 "$(dirname "$0")/guest-init.sh" "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.$$.tmp"
mv "$out.$$.tmp" "$out"	# atomic: concurrent builders do not clash
echo "$out"
