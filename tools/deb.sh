#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make deb`: rddp-dkms and rddp-utils (and the native source package) from
# this tree with dpkg-buildpackage, into build/deb/. The version is
# tools/version.sh's; it goes into debian/changelog and kmod/VERSION (the
# DKMS tree has no git) of a copy of the tree, build/deb/rddp-VERSION/:
# tracked files and new files git does not ignore, as they are on disk.
# Prints the paths of the .deb files and the .changes file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

ver=$(bash tools/version.sh)
out="$RDDP_TOP/build/deb"
stage="$out/rddp-$ver"
rm -rf "$out"
mkdir -p "$stage"
git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
	[ -e "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$stage"
echo "$ver" >"$stage/kmod/VERSION"

# The changelog's entry: this version, the last commit's date (so that two
# builds of one commit are alike), the Maintainer of debian/control.
maint=$(sed -n 's/^Maintainer: //p' debian/control)
cat >"$stage/debian/changelog" <<EOF
rddp ($ver) UNRELEASED; urgency=medium

  * Built from git $(git describe --always --dirty) by make deb.

 -- $maint  $(git log -1 --format=%aD)
EOF

# One job, low priority: builds share the machine with VM tests.
rddp_log "deb: dpkg-buildpackage for rddp $ver in $stage"
(cd "$stage" && DEB_BUILD_OPTIONS="parallel=1 ${DEB_BUILD_OPTIONS:-}" \
	nice -n 19 dpkg-buildpackage -us -uc -tc) >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	rddp_die "dpkg-buildpackage failed (log: $out/build.log)"
}
ls "$out"/*.deb "$out"/*.changes
