#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prints rddp's version, taken from the tree, in a form that is both a
# Debian upstream version and a module version string:
#   - at a tag vX.Y:               X.Y
#   - N commits after tag vX.Y:    X.Y+N.gHASH     (sorts after X.Y)
#   - no tag yet:                  X.Y~N.gHASH     (X.Y: project() in
#     CMakeLists.txt, N: commits in the history; sorts before release X.Y)
# with `.dirty` appended when tracked files have uncommitted changes.
# Outside a git tree (a source tarball, the DKMS tree) it prints the
# version baked into kmod/VERSION when the tree was packaged.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

# (A tree unpacked inside some other git checkout is not a git tree here.)
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	if [ -s "$top/kmod/VERSION" ]; then
		cat "$top/kmod/VERSION"
		exit 0
	fi
	echo "version: $top is not a git tree and has no kmod/VERSION" >&2
	exit 1
fi

dirty=
# git status refreshes stale stat information (a touched file is not a
# change) and does not fail when another git holds the index lock.
[ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] || dirty=.dirty
if d=$(git -C "$top" describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
	# vX.Y-N-gHASH
	n=${d%-g*}
	n=${n##*-}
	base=${d%-*-g*}
	base=${base#v}
	if [ "$n" = 0 ]; then
		echo "$base$dirty"
	else
		echo "$base+$n.g${d##*-g}$dirty"
	fi
else
	base=$(sed -nE 's/^project\(rddp VERSION ([0-9.]+).*/\1/p' "$top/CMakeLists.txt")
	n=$(git -C "$top" rev-list --count HEAD)
	hash=$(git -C "$top" describe --always --abbrev=7)
	echo "${base:-0}~$n.g$hash$dirty"
fi
