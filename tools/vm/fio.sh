#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) fio for the guests and copies it to
# build/fio, which every guest sees as /rddp/build/fio. Printed: that path.
#
# Debian 12's fio version, built from its source tarball in Debian's
# archive (sha256 pinned) with libaio, statically linked: Debian's .deb
# links Ceph, Gluster, NBD and PMEM libraries no guest has, and a static
# binary runs in every guest (the image, blktests' root) without a library
# copied beside it. Users of it: tests/vm/storage.sh (the storage smoke of
# make check and make bench's storage series) and blktests' root
# (tools/vm/blktests/mkroot.sh).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

fio_version=3.33
fio_sha256=d2410e13e0f379d061d077cc5ae325835bb7c6186aa7bafc1df954cbc9b014fc
fio_url=http://deb.debian.org/debian/pool/main/f/fio/fio_$fio_version.orig.tar.gz

# What goes into the binary: this script, the tarball, the compiler and the
# static libraries it links (glibc's, libaio's, zlib's).
versions=$(dpkg-query -W -f='${Package}=${Version} ' libaio-dev libc6-dev zlib1g-dev 2>/dev/null || true)
key=$(rddp_hash "$0" "$fio_sha256" "$versions" "$(gcc --version | head -1)")
cached=$RDDP_CACHE/fio-$fio_version-$key
out=$RDDP_TOP/build/fio

build() {
	local d
	d=$(mktemp -d)
	# shellcheck disable=SC2064 # d is fixed now
	trap "rm -rf '$d'" RETURN
	rddp_log "fio: building fio $fio_version (Debian's source tarball, static, libaio; ~1 CPU-min, once)"
	curl -sSfL --retry 3 -o "$d/fio.tar.gz" "$fio_url" ||
		rddp_die "cannot download $fio_url"
	echo "$fio_sha256  $d/fio.tar.gz" | sha256sum -c --quiet ||
		rddp_die "$fio_url: not the tarball this script pins"
	tar -xzf "$d/fio.tar.gz" -C "$d"
	# libaio: verification jobs (blktests', the storage smoke) use
	# --ioengine=libaio. The linker warns that dlopen() and getaddrinfo()
	# need glibc's shared objects at run time: fio uses them only for
	# external engines and its network engine, neither used here.
	(cd "$d/fio-$fio_version" && ./configure --disable-native --build-static >"$d/configure.log" 2>&1 &&
		grep -q '^Linux AIO support *yes' "$d/configure.log" &&
		grep -q '^Static build *yes' "$d/configure.log" &&
		nice make -s -j"$(nproc)" fio >"$d/make.log" 2>&1 &&
		strip fio) ||
		rddp_die "fio build failed (libaio-dev, zlib1g-dev? make deps; logs in $d)"
	mkdir -p "$cached.tmp.$$"
	cp "$d/fio-$fio_version/fio" "$cached.tmp.$$/fio"
	# Concurrent builders (make check's lanes) do not clash: the first to
	# finish puts its copy in place.
	[ -x "$cached/fio" ] || mv "$cached.tmp.$$" "$cached"
	rm -rf "$cached.tmp.$$"
}

[ -x "$cached/fio" ] || build
mkdir -p "$RDDP_TOP/build"
cp "$cached/fio" "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "$out"
