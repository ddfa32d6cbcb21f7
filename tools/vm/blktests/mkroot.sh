#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) what blktests needs in a guest of KERNEL
# (tools/vm/run.sh's names) beyond the guest image, and copies it to
# build/blktests-root-KERNEL, which the guest sees under /rddp
# (tests/vm/blktests.sh lays it over its /). Printed: that path.
#
# blktests is not part of rddp (Debian does not package it, and rddp's
# tree carries no other project's code): BLKTESTS_DIR names a blktests
# tree of the user's, e.g. a clone of
# https://github.com/linux-blktests/blktests (Documentation/testing.md,
# "blktests", names the commit measured). Exit status 2, with a message,
# when it is not set.
#
# Kept out of the guest image (tools/vm/mkinitramfs.sh), which every suite
# boots: blktests is one suite, and its tools would grow every boot.
#
#   opt/blktests/     BLKTESTS_DIR's tree, as it is (its .git left out)
#   opt/rddp-shim/    modprobe, rmmod, rdma: tools/vm/blktests/siw-is-rddp
#                     (blktests' siw setup made rddp's, in the rddp mode)
#   opt/blktests/bin/ fio (tools/vm/fio.sh: Debian's version, built
#                     static from its source tarball); GNU tools
#                     blktests uses where the image has busybox's (coreutils,
#                     util-linux, gawk, sed, grep, diffutils, uuidgen,
#                     udevadm, xfsprogs)
#   lib/...           their shared libraries, at their host paths
#   lib/modules/KVER/blktests/  block modules of KERNEL the image lacks
#   boot/config-KVER  KERNEL's configuration (blktests checks options)
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../../lib.sh"

kernel=${1:?usage: mkroot.sh KERNEL (stock, stock-6.12, debug, uml-debug or uml)}
blk=${BLKTESTS_DIR:-}
if [ -z "$blk" ] || [ ! -x "$blk/check" ] || [ ! -d "$blk/tests/nvme" ]; then
	rddp_log "blktests: no blktests tree (BLKTESTS_DIR='$blk'): set BLKTESTS_DIR to a blktests checkout (git clone https://github.com/linux-blktests/blktests)"
	exit 2
fi
blk=$(cd "$blk" && pwd)
rddp_guest_kernel "$kernel"

# Host tools (make deps installs their packages) and tools from Debian
# packages downloaded, unpacked here and never installed on the host.
host_pkgs=(coreutils util-linux mount sed grep diffutils psmisc systemd e2fsprogs)
host_tools=(stat realpath sort nproc shuf seq tee cut tr uname mktemp date head tail
	wc readlink basename dirname env sleep touch chmod od comm cat ls cp mv rm mkdir ln
	printf id truncate dd timeout sed grep diff losetup blkid findmnt lsblk blockdev
	column wipefs fallocate dmesg mount umount killall udevadm mkfs.ext4 zgrep gzip getconf)
deb_pkgs=(gawk libsigsegv2 libmpfr6 uuid-runtime xfsprogs libinih1 liburcu8)
deb_tools=(usr/bin/gawk usr/bin/uuidgen sbin/mkfs.xfs usr/sbin/xfs_io)
mods=(loop null_blk brd nvme-loop nvmet nvme-fabrics xfs)

top=$RDDP_TOP
blk_sum=$( { (cd "$blk" && find . -path ./.git -prune -o -type f -print0 | sort -z |
	xargs -0 sha256sum); sha256sum "$top/tools/vm/blktests/siw-is-rddp"; } | sha256sum)
host_versions=$(dpkg-query -W -f='${Package}=${Version} ' "${host_pkgs[@]}")
fio=$(bash "$top/tools/vm/fio.sh")
deb_versions=$(rddp_deb_versions "${deb_pkgs[@]}")
key=$(rddp_hash "$0" "$top/tools/lib.sh" "$kid" "$blk_sum" "$fio" "$host_versions" \
	"$deb_versions" "${host_tools[*]}" "${deb_tools[*]}" "${mods[*]}")
cached=$RDDP_CACHE/blktests-root-$kernel-$key
out=$top/build/blktests-root-$kernel

build_root() {
	local tmp root debroot m path dep t p libpath
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # tmp is fixed now
	trap "rm -rf '$tmp'" RETURN
	root=$tmp/root
	mkdir -p "$root/opt/blktests" "$root/boot" "$root/lib/modules/$kver/blktests" \
		"$root/opt/rddp-shim"

	(cd "$blk" && tar --exclude=./.git -cf - .) | tar -xf - -C "$root/opt/blktests"
	mkdir -p "$root/opt/blktests/bin"
	cp "$top/tools/vm/blktests/siw-is-rddp" "$root/opt/rddp-shim/"
	for p in modprobe rmmod rdma; do ln -s siw-is-rddp "$root/opt/rddp-shim/$p"; done

	cp "$fio" "$root/opt/blktests/bin/fio"

	for t in "${host_tools[@]}"; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin type -P "$t") ||
			rddp_die "missing tool $t (make deps)"
		rddp_copy_with_libs "$root" "$p" "/opt/blktests/bin/$t"
	done

	rddp_deb_unpack "$tmp/deb" "${deb_pkgs[@]}"
	debroot=$tmp/deb/root
	libpath=$debroot/lib/x86_64-linux-gnu:$debroot/usr/lib/x86_64-linux-gnu
	for t in "${deb_tools[@]}"; do
		rddp_copy_with_libs "$root" "$debroot/$t" "/opt/blktests/bin/${t##*/}" "$libpath"
	done
	# Libraries only the downloaded packages have: ldd found them there.
	for p in "$debroot"/{,usr/}lib/x86_64-linux-gnu/lib*.so*; do
		[ -e "$p" ] || continue
		mkdir -p "$root/lib/x86_64-linux-gnu"
		cp -P "$p" "$root/lib/x86_64-linux-gnu/"
	done
	ln -s gawk "$root/opt/blktests/bin/awk"

	# Block modules with what they depend on, unless built in or in the
	# image (the guest's depmod ranks both; an image's copy is the same).
	declare -A seen=()
	add_module() {
		path=$(modinfo -b "$modroot" -k "$kver" -n "$1" 2>/dev/null) || return 0
		case $path in /*) ;; *) return 0 ;; esac	# built in
		[ -n "${seen[$path]:-}" ] && return 0
		seen[$path]=1
		cp "$path" "$root/lib/modules/$kver/blktests/"
		for dep in $(modinfo -b "$modroot" -k "$kver" -F depends "$1" | tr ',' ' '); do
			add_module "$dep"
		done
	}
	for m in "${mods[@]}"; do add_module "$m"; done
	[ -f "$kconfig" ] && cp "$kconfig" "$root/boot/config-$kver"

	rm -rf "$cached.tmp"
	mv "$root" "$cached.tmp"
	mv "$cached.tmp" "$cached"
}

if [ ! -d "$cached" ]; then
	rddp_log "blktests: building the guest's tools and modules for $kernel"
	build_root
fi
rm -rf "$out"
mkdir -p "$top/build"
cp -a "$cached" "$out"
echo "$out"
