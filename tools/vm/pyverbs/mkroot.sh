#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) rdma-core's own tests for a guest: Debian's
# python3-pyverbs (rdma-core 44.0, the rdma-core every guest image has) with
# the tests/ it ships, and the Python 3.11 they run on, copied to
# build/pyverbs-root, which the guest sees under /rddp (tests/vm/pyverbs.sh
# runs them from there). Printed: that path.
#
# Kept out of the guest image (tools/vm/mkinitramfs.sh), which every suite
# boots: Python's standard library is 30 MB, for one suite. The same root
# serves every kernel (nothing in it is the kernel's).
#
#   usr/bin/python3.11, usr/lib/python3.11/   Debian's interpreter and its
#                       standard library (its test suites left out)
#   usr/lib/python3/dist-packages/pyverbs/   pyverbs (Cython modules)
#   opt/rdma-core-tests/tests/               rdma-core's tests/, as Debian
#                       ships them under /usr/share/doc (compressed there)
#   lib/..., usr/lib/...  the libraries all of these link, at their host
#                       paths (rdma-core's own are the image's: same version)
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../../lib.sh"

pkgs=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib python3-pyverbs)
top=$RDDP_TOP
versions=$(rddp_deb_versions "${pkgs[@]}")
[ -n "$versions" ] || rddp_die "apt-cache knows none of ${pkgs[*]} (apt-get update?)"
key=$(rddp_hash "$0" "$top/tools/lib.sh" "$versions" "${pkgs[*]}")
cached=$RDDP_CACHE/pyverbs-root-$key
out=$top/build/pyverbs-root

build_root() {
	local tmp deb root so py
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # tmp is fixed now
	trap "rm -rf '$tmp'" RETURN
	deb=$tmp/deb/root
	root=$tmp/root
	mkdir -p "$root/usr/lib/python3/dist-packages" "$root/opt/rdma-core-tests"
	rddp_deb_unpack "$tmp/deb" "${pkgs[@]}"

	py=$deb/usr/lib/python3.11
	if [ ! -x "$deb/usr/bin/python3.11" ] || [ ! -f "$py/unittest/__init__.py" ]; then
		rddp_die "python3.11 packages unpacked without an interpreter or unittest"
	fi
	rddp_copy_with_libs "$root" "$deb/usr/bin/python3.11" /usr/bin/python3.11
	ln -s python3.11 "$root/usr/bin/python3"
	# The standard library without CPython's own test suites and IDLE.
	(cd "$deb/usr/lib" && tar --exclude=python3.11/test --exclude=python3.11/idlelib \
		--exclude='__pycache__' -cf - python3.11) | tar -xf - -C "$root/usr/lib"
	cp -a "$deb/usr/lib/python3/dist-packages/pyverbs" "$root/usr/lib/python3/dist-packages/"
	# Every extension module with what it links (a library the host lacks
	# leaves that module unusable, which the tests do not import).
	while IFS= read -r so; do
		rddp_copy_with_libs "$root" "$so" "${so#"$deb"}"
	done < <(find "$py/lib-dynload" "$deb/usr/lib/python3/dist-packages/pyverbs" -name '*.so')

	# glibc is the guest image's: a libc must match the ld.so that loads it.
	rm -f "$root"/{,usr/}lib/x86_64-linux-gnu/{libc,libm,libresolv,libpthread,libdl,librt}.so* \
		"$root"/{lib,lib64,usr/lib}/ld-linux*
	cp -a "$deb/usr/share/doc/rdma-core/tests" "$root/opt/rdma-core-tests/"
	gunzip -f "$root"/opt/rdma-core-tests/tests/*.gz
	for py in run_tests.py test_rdmacm.py; do
		[ -f "$root/opt/rdma-core-tests/tests/$py" ] ||
			rddp_die "python3-pyverbs shipped no tests/$py"
	done
	cp "$deb/usr/share/doc/python3-pyverbs/copyright" "$root/opt/rdma-core-tests/"

	rm -rf "$cached.tmp"
	mv "$root" "$cached.tmp"
	mv "$cached.tmp" "$cached"
}

if [ ! -d "$cached" ]; then
	rddp_log "pyverbs: unpacking Python 3.11 and rdma-core's tests for the guests"
	build_root
fi
rm -rf "$out"
mkdir -p "$top/build"
cp -a "$cached" "$out"
echo "$out"
