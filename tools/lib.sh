# SPDX-License-Identifier: GPL-2.0
# Shared helpers for rddp's build and test scripts. Source it; do not run it.
#
# Heavy artifacts (kernel source tree, debug kernel, siw, initramfs) live in
# $RDDP_CACHE, each in a directory named by a hash of everything that went
# into it, so a changed input builds a new artifact and an unchanged one is
# reused across clones and CI runs.

RDDP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RDDP_CACHE=${RDDP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rddp}
mkdir -p "$RDDP_CACHE"

# Debian's 6.1 kernel that the stock-kernel VM tests boot.
rddp_stock_kver() {
	local k
	for k in /lib/modules/6.1.0-*-amd64; do
		[ -e "$k/build" ] && [ -e "/boot/vmlinuz-${k##*/}" ] && { echo "${k##*/}"; return; }
	done
	return 1
}

# The newest Debian 6.12 kernel whose headers are installed (Debian 12
# carries 6.12 from its security suite: linux-headers-6.12.*+deb12-amd64).
rddp_612_kver() {
	local k
	k=$(find /usr/src -maxdepth 1 -name 'linux-headers-6.12.*+deb12-amd64' -printf '%f\n' |
		sort -V | tail -1)
	[ -n "$k" ] && [ -e "/usr/src/$k/Makefile" ] || return 1
	echo "${k#linux-headers-}"
}

# rddp_612_image: Debian's 6.12 kernel image of the installed 6.12 headers'
# version (linux-image-KVER), unpacked into the cache with its modules
# depmod'ed, never installed on the host; prints the directory (its
# boot/vmlinuz-KVER, lib/modules/KVER). The qemu guests' `stock-6.12`.
# Debian publishes a security release's unsigned image first and the
# signed one (linux-image-KVER, from linux-signed-amd64) later: for days
# the headers' version had only linux-image-KVER-unsigned (6.12.118 on
# 2026-12-02), the same kernel without the Secure Boot signature, which
# qemu does not check. Each caller unpacks into a directory of its own
# and the first to finish puts it in place: make check's lanes may ask at
# once.
rddp_612_image() {
	local kver dir tmp rc
	kver=$(rddp_612_kver) || return 1
	dir="$RDDP_CACHE/linux-image-$kver"
	if [ ! -f "$dir/boot/vmlinuz-$kver" ]; then
		tmp=$(mktemp -d) || return 1
		rddp_log "fetching linux-image-$kver into $dir"
		(cd "$tmp" && { apt-get download "linux-image-$kver" ||
			apt-get download "linux-image-$kver-unsigned"; } >/dev/null 2>&1) &&
			rm -rf "$dir.tmp.$$" && dpkg-deb -x "$tmp"/linux-image-*.deb "$dir.tmp.$$" &&
			depmod -b "$dir.tmp.$$" "$kver" &&
			{ [ -f "$dir/boot/vmlinuz-$kver" ] || { rm -rf "$dir" && mv "$dir.tmp.$$" "$dir"; }; }
		rc=$?
		rm -rf "$tmp" "$dir.tmp.$$"
		[ "$rc" -eq 0 ] && [ -f "$dir/boot/vmlinuz-$kver" ] || return 1
	fi
	echo "$dir"
}

# rddp_guest_kernel KERNEL: for a guest kernel of tools/vm/run.sh (stock,
# stock-6.12, debug, uml-debug or uml; building it if it is not in the
# cache), sets kver (its release), modroot (the root its modules are
# under), kconfig (its .config) and kid (what identifies its build, for
# cache keys).
# shellcheck disable=SC2034 # kver, modroot, kconfig and kid are the caller's
rddp_guest_kernel() {
	local kdir
	case $1 in
	stock)
		kver=$(rddp_stock_kver) || rddp_die "Debian's 6.1 kernel is not installed (make deps)"
		modroot=/
		kconfig=/boot/config-$kver
		kid="$kver $(dpkg-query -W -f='${Version}' "linux-image-$kver")"
		;;
	stock-6.12)
		# Debian's 6.12 (rddp_612_image): its image unpacked into the
		# cache, not installed.
		kver=$(rddp_612_kver) || rddp_die "no Linux 6.12 headers (make deps)"
		modroot=$(rddp_612_image) || rddp_die "cannot fetch Debian's 6.12 kernel image"
		kconfig=$modroot/boot/config-$kver
		kid="$kver $(stat -c %s "$modroot/boot/vmlinuz-$kver")"
		;;
	debug)
		kdir=$(bash "$RDDP_TOP/tools/kernel/build-debug-kernel.sh")
		kver=$(cat "$kdir/include/config/kernel.release")
		modroot=$kdir/mods
		kconfig=$kdir/.config
		kid="debug $kdir"
		;;
	uml-debug | uml)
		kdir=$(bash "$RDDP_TOP/tools/kernel/build-uml-kernel.sh" \
			"$([ "$1" = uml ] && echo plain || echo debug)")
		kver=$(cat "$kdir/build/include/config/kernel.release")
		modroot=$kdir/mods
		kconfig=$kdir/build/.config
		kid="$1 $kdir"
		;;
	*) rddp_die "unknown kernel '$1' (stock, stock-6.12, debug, uml-debug or uml)" ;;
	esac
}

# rddp_copy_with_libs ROOT FILE [DEST [LIBPATH]]: FILE copied to ROOT/DEST
# (DEST defaults to FILE's own path) and every library it links, each at
# its own path under ROOT, looked up in LIBPATH first (ldd's
# LD_LIBRARY_PATH: libraries of packages unpacked, not installed). The
# guest images (tools/vm/mkinitramfs.sh) and blktests' root are built so.
rddp_copy_with_libs() {
	local root=$1 f=$2 dest=${3:-$2} lib
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$f" "$root$dest"
	{ LD_LIBRARY_PATH=${4:-} ldd "$f" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}

# rddp_deb_versions PKG...: the versions `apt-get download` would fetch of
# PKGs, on one line (a cache key's part).
rddp_deb_versions() {
	apt-cache show --no-all-versions "$@" 2>/dev/null | sed -n 's/^Version: //p' | paste -sd' '
}

# rddp_deb_unpack DIR PKG...: PKGs downloaded from Debian's archive into
# DIR/debs and unpacked into DIR/root, never installed on the host (no
# maintainer script runs). The guest images' ULP daemons, blktests' and
# rdma-core's test roots come so.
rddp_deb_unpack() {
	local dir=$1 d
	shift
	mkdir -p "$dir/debs"
	(cd "$dir/debs" && apt-get download -q "$@") >&2 ||
		rddp_die "apt-get download $* failed (apt-get update?)"
	for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done
}

rddp_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
rddp_die() { rddp_log "error: $*"; exit 1; }

# Hash of the named files' contents plus any extra words.
rddp_hash() {
	local f
	{
		for f in "$@"; do
			if [ -f "$f" ]; then sha256sum <"$f"; else echo "$f"; fi
		done
	} | sha256sum | cut -c1-16
}

# rddp_siw_source KERNEL: the directory of upstream siw's sources for
# KERNEL (`stock`: Debian's 6.1, from the extracted linux-source-6.1;
# `stock-6.12`: Debian's 6.12, whose image has no siw: drivers/infiniband/
# sw/siw/ alone extracted from linux-source-6.12, keyed by its version).
rddp_siw_source() {
	local ver dir
	case $1 in
	stock) echo "$(rddp_linux_source)/drivers/infiniband/sw/siw" ;;
	stock-6.12)
		ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
			rddp_die "linux-source-6.12 is not installed (make deps)"
		dir="$RDDP_CACHE/siw-source-$ver"
		rddp_extract "siw from linux-source-6.12 $ver" /usr/src/linux-source-6.12.tar.xz "$dir" \
			--strip-components=5 --wildcards '*/drivers/infiniband/sw/siw/*'
		echo "$dir"
		;;
	*) rddp_die "no siw sources for kernel '$1' (stock, stock-6.12)" ;;
	esac
}

# rddp_extract WHAT TARBALL DIR [TAR-ARGS...]: TARBALL (or what TAR-ARGS
# select of it) extracted into DIR once; DIR/.extracted marks an extraction
# that finished. Under DIR.lock: make check's lanes (the kernel builds
# beside the suites) may ask for one source at once on a cold cache, and
# the second must wait for the first's tree, not remove it.
rddp_extract() {
	local what=$1 tarball=$2 dir=$3 fd
	shift 3
	[ -f "$dir/.extracted" ] && return 0
	exec {fd}>"$dir.lock"
	flock "$fd"
	if [ ! -f "$dir/.extracted" ]; then
		rddp_log "extracting $what"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" -xf "$tarball" "$@" || rddp_die "extracting $what failed"
		touch "$dir.tmp/.extracted"
		mv "$dir.tmp" "$dir"
	fi
	exec {fd}>&-
}

# rddp_linux_source [SERIES]: extracted linux-source-SERIES (6.1, the
# default, or 6.12), keyed by the Debian package version.
rddp_linux_source() {
	local series=${1:-6.1} ver dir
	case $series in 6.1 | 6.12) ;; *) rddp_die "no linux-source-$series (6.1, 6.12)" ;; esac
	ver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null) ||
		rddp_die "linux-source-$series is not installed (make deps)"
	dir="$RDDP_CACHE/linux-source-$ver"
	rddp_extract "linux-source-$series $ver" "/usr/src/linux-source-$series.tar.xz" "$dir" \
		--strip-components=1
	echo "$dir"
}
