#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs every Debian package rddp's build, tests and demo need.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

pkgs=(
	# kernel module
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio xz-utils
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 sparse
	# user space (C++20, CMake)
	cmake g++ clang clang-format clang-tidy lld libgtest-dev libgmock-dev
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
)

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
