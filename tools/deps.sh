#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs every Debian package rddp's build, tests and demo need.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

pkgs=(
	# kernel module
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio xz-utils
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 linux-source-6.12 sparse
	# user space (C++20, CMake)
	cmake g++ clang clang-format clang-tidy lld libgtest-dev libgmock-dev ccache
	libbenchmark-dev libnl-3-dev libnl-genl-3-dev libibverbs-dev librdmacm-dev lcov
	nlohmann-json3-dev
	python3 rsync zstd
	# make deb and tools/package-check.sh (libnl and cmake are above;
	# systemd-analyze and man come with systemd and man-db)
	dpkg-dev debhelper dh-dkms dkms lintian pkg-config systemd man-db
	# make bench: plots (tools/bench-report.py)
	python3-matplotlib
	# VM harness and the tools tests run inside the guest
	qemu-system-x86 busybox-static bash iproute2 rdma-core ibverbs-utils
	ibverbs-providers perftest rdmacm-utils iperf3 tcpdump tshark jq
	# fio in the guests (tools/vm/fio.sh: the storage smoke and benchmark,
	# blktests) is built static from Debian's source tarball with libaio
	# and zlib, downloaded with curl; patch for the UML kernel's patches
	# (tools/kernel/build-uml-kernel.sh)
	libaio-dev zlib1g-dev curl patch
)

# Linux 6.12's headers (rddp also builds for Debian 13's and RHEL 10's
# kernel line; tools/kmod-check.sh): the newest Debian 12 carries, unless
# some 6.12 headers are installed already.
if ! (. "$(dirname "$0")/lib.sh" && rddp_612_kver >/dev/null); then
	h612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		cut -d' ' -f1 | sort -V | tail -1)
	[ -n "$h612" ] || h612=linux-headers-6.12.117+deb12-amd64
	pkgs+=("$h612")
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
