# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# NVMe-oF/RDMA helpers for the ULP tests, sourced after lib.sh: a target
# (nvmet-rdma, configfs) with one namespace on a file, and a host that
# discovers and connects with nvme-cli (`nvme discover/connect -t rdma`).
#
#   nvmet_up IP [TRTYPE [DEV]]  subsystem $nvme_nqn on TRTYPE (rdma, or tcp:
#                        NVMe/TCP) IP:4420, its namespace a $nvme_mib*2 MiB
#                        file, or block device DEV
#   nvmet_down           the target torn down, its file removed
#   nvmet_file_sha [MIB] sha256 of the file's first MIB (default $nvme_mib) MiB
#   nvme_discover IP     `nvme discover -t rdma` finds the subsystem on IP:4420
#   nvme_connect IP [TRTYPE]  `nvme connect -t TRTYPE` (rdma); prints
#                        "connected: nvmeXn1 (TRTYPE)"
#   nvme_ctrl            the host controller's sysfs directory (empty if none)
#   nvme_blk             the namespace's block device name (nvmeXn1; with
#                        native multipath the subsystem's head, not the path)
#   nvme_roundtrip BS [MIB]   MIB (default $nvme_mib) MiB of random data written
#                        and read back O_DIRECT in BS-byte I/Os from the
#                        start; prints the data's sha256, fails unless equal

nvme_nqn=nqn.2026-11.org.rddp:ulp-test
nvme_mib=32
_nvme_cfg=/sys/kernel/config/nvmet
_nvme_img=/tmp/nvme-ns.img

nvme_modules() {
	modprobe -a nvmet-rdma nvme-rdma || return 1
	t_mounted /sys/kernel/config || mount -t configfs none /sys/kernel/config
}

# One namespace on a file (tmpfs has no O_DIRECT: buffered I/O) or on a
# block device.
nvmet_up() { # IP [TRTYPE [DEV]]
	local s=$_nvme_cfg/subsystems/$nvme_nqn p=$_nvme_cfg/ports/1 dev=${3:-$_nvme_img}
	if [ -z "${3:-}" ]; then truncate -s $((2 * nvme_mib))M $_nvme_img || return 1; fi
	mkdir "$s" &&
		echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" &&
		echo -n "$dev" >"$s/namespaces/1/device_path" &&
		{ [ -n "${3:-}" ] || echo 1 >"$s/namespaces/1/buffered_io"; } &&
		echo 1 >"$s/namespaces/1/enable" &&
		mkdir "$p" &&
		echo "${2:-rdma}" >"$p/addr_trtype" &&
		echo ipv4 >"$p/addr_adrfam" &&
		echo "$1" >"$p/addr_traddr" &&
		echo 4420 >"$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$nvme_nqn"
}

nvmet_down() {
	local s=$_nvme_cfg/subsystems/$nvme_nqn
	rm -f "$_nvme_cfg/ports/1/subsystems/$nvme_nqn"
	rmdir $_nvme_cfg/ports/1 &&
		echo 0 >"$s/namespaces/1/enable" &&
		rmdir "$s/namespaces/1" &&
		rmdir "$s" &&
		rm -f $_nvme_img
}

nvmet_file_sha() { # [MIB]: of the file's first MIB (default $nvme_mib) MiB
	head -c $((${1:-$nvme_mib} * 1024 * 1024)) $_nvme_img | sha256sum | cut -c1-64
}

nvme_ctrl() {
	local f
	f=$(grep -l "^$nvme_nqn\$" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | head -1)
	echo "${f%/subsysnqn}"
}

# With native multipath (CONFIG_NVME_MULTIPATH, Debian's kernels) the
# block device is the subsystem's head, nvmeSn1, S the subsystem's number,
# not the controller's; the controller's directory holds only its hidden
# path nvmeScCn1. Without it the controller's directory holds nvmeCn1.
nvme_blk() {
	local c s d n
	c=$(nvme_ctrl)
	[ -n "$c" ] || return 0
	s=$(grep -l "^$nvme_nqn\$" /sys/class/nvme-subsystem/nvme-subsys*/subsysnqn 2>/dev/null | head -1)
	for d in ${s:+"${s%/subsysnqn}"/nvme*n1} "$c"/nvme*n1; do
		n=${d##*/}
		[[ $n == nvme*c*n1 ]] && continue
		[ -b "/dev/$n" ] && { echo "$n"; return 0; }
	done
}

# nvme-cli as a user runs it; the host NQN and ID are given (no /etc/nvme
# here). Both: on Linux 6.12 (Debian's 6.12.117) nvme-fabrics gives a host
# NQN without an ID the default host's ID, and refuses an ID known under
# another NQN ("found same hostid ... but different hostnqn", EINVAL).
nvme_hostnqn=nqn.2026-11.org.rddp:host
nvme_hostid=9d4f6a3e-1c2b-4e5f-8a7b-726464700001

# nvme_discover IP: the discovery controller's log over rdma lists our
# subsystem on rdma IP:4420.
nvme_discover() { # IP
	local out
	out=$(nvme discover -t rdma -a "$1" -s 4420 --hostnqn=$nvme_hostnqn --hostid=$nvme_hostid 2>&1) ||
		{ echo "$out"; dmesg | tail -20; return 1; }
	echo "$out" | grep -E 'trtype|traddr|trsvcid|subnqn'
	echo "$out" | grep -q "subnqn: *$nvme_nqn" && echo "$out" | grep -q "traddr: *$1"
}

nvme_connect() { # IP [TRTYPE]
	local i out c b
	out=$(nvme connect -t "${2:-rdma}" -a "$1" -s 4420 -n $nvme_nqn --hostnqn=$nvme_hostnqn \
		--hostid=$nvme_hostid 2>&1) || { echo "$out"; dmesg | tail -20; return 1; }
	for i in $(seq 1 300); do
		c=$(nvme_ctrl)
		b=$(nvme_blk)
		[ -n "$c" ] && [ -n "$b" ] && {
			echo "connected: $b ($(cat "$c/transport"))"
			return 0
		}
		sleep 0.1
	done
	dmesg | tail -20
	return 1
}

nvme_roundtrip() { # BS [MIB]
	local bs=$1 mib=${2:-$nvme_mib} count blk a b
	count=$((mib * 1024 * 1024 / bs))
	blk=/dev/$(nvme_blk)
	[ -b "$blk" ] || { echo "no NVMe-oF block device"; return 1; }
	dd if=/dev/urandom of=/tmp/ulp-data bs=1M count="$mib" status=none &&
		dd if=/tmp/ulp-data of="$blk" bs="$bs" count="$count" oflag=direct status=none &&
		dd if="$blk" of=/tmp/ulp-back bs="$bs" count="$count" iflag=direct status=none ||
		return 1
	a=$(sha256sum </tmp/ulp-data | cut -c1-64)
	b=$(sha256sum </tmp/ulp-back | cut -c1-64)
	rm -f /tmp/ulp-back /tmp/ulp-data
	echo "written $a read $b"
	[ "$a" = "$b" ]
}

nvme_disconnect() {
	nvme disconnect -n $nvme_nqn
}
