# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# iSER helpers for the ULP tests, sourced after lib.sh: an iSCSI target (LIO
# through configfs, with ib_isert's iSER portal) exporting one LUN on a file,
# and open-iscsi's initiator (iscsid, iscsiadm) logged in over the `iser`
# transport.
#
#   iser_modules            ib_isert, ib_iser and configfs
#   lio_up IP [TCPNS]       target $iser_iqn, LUN 0 on a $iser_mib*2 MiB file,
#                           portal IP:3260 with iSER enabled. LIO always opens
#                           a TCP portal under an iSER one; with TCPNS that TCP
#                           portal is opened inside network namespace TCPNS
#                           (wildcard address) so that it does not hold the
#                           port an iWARP listener on a host socket needs
#                           With LIO_BLOCK=DEV the LUN is block device DEV
#                           (LIO's iblock backstore) instead; with LIO_ISER=0
#                           the portal is iSCSI over TCP alone (no iSER)
#   lio_down                the target torn down, its file removed
#   lio_file_sha [MIB]      sha256 of the LUN file's first MIB MiB
#   iscsi_login IP IFACE    iscsid started, node IP:3260 over IFACE (iser, or
#                           default: TCP) logged in; prints "logged in: sdX (T)"
#   iser_login IP           the same over iser
#   iser_disk [TRANSPORT]   our target's disk over iser (default) or tcp
#   iser_roundtrip BS [MIB] random data written and read back O_DIRECT through
#                           the LUN in BS-byte I/Os; prints both sha256s
#   iscsi_logout IP IFACE   logout, node deleted
#   iser_logout IP          the iser session's logout, iscsid stopped
#   iwpm_up, iwpm_down      the iWARP port mapper daemon (iwpmd)

iser_iqn=iqn.2026-11.org.rddp:iser-test
iser_initiator=iqn.2026-11.org.rddp:initiator
iser_mib=32
_lio=/sys/kernel/config/target
_lio_img=/tmp/iser-lun.img

iser_modules() {
	modprobe -a ib_isert ib_iser target_core_file sd_mod || return 1
	t_mounted /sys/kernel/config || mount -t configfs none /sys/kernel/config
}

# _lio_portal DIR IP [TCPNS]: the network portal; its TCP listener in TCPNS
# if given (LIO opens it with the namespace of the process that makes the
# directory; ip netns exec gives that process its own /sys, hence configfs
# is mounted there again), then iSER enabled on it (ib_isert's listener is
# always in the initial namespace).
_lio_portal() {
	local tpg=$1 ip=$2 ns=${3:-} np
	if [ -n "$ns" ]; then
		np=$tpg/np/0.0.0.0:3260
		ip netns exec "$ns" sh -c "mount -t configfs none /sys/kernel/config &&
			mkdir '$np'" || return 1
	else
		np=$tpg/np/$ip:3260
		mkdir "$np" || return 1
	fi
	[ "${LIO_ISER:-1}" = 0 ] || echo 1 >"$np/iser"
}

lio_up() { # IP [TCPNS]
	local bs=$_lio/core/fileio_0/lun0 tpg=$_lio/iscsi/$iser_iqn/tpgt_1
	if [ -n "${LIO_BLOCK:-}" ]; then
		bs=$_lio/core/iblock_0/lun0
		mkdir -p "$bs" && echo "udev_path=$LIO_BLOCK" >"$bs/control" || return 1
	else
		truncate -s $((2 * iser_mib))M $_lio_img &&
			mkdir -p "$bs" &&
			echo "fd_dev_name=$_lio_img,fd_dev_size=$((2 * iser_mib * 1024 * 1024)),fd_buffered_io=1" \
				>"$bs/control" || return 1
	fi
	echo 1 >"$bs/enable" &&
		mkdir -p "$tpg/lun/lun_0" &&
		ln -s "$bs" "$tpg/lun/lun_0/port0" &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 1 >"$tpg/attrib/cache_dynamic_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		_lio_portal "$tpg" "$@" &&
		echo 1 >"$tpg/enable"
}

lio_down() {
	local tpg=$_lio/iscsi/$iser_iqn/tpgt_1 np
	[ -d "$tpg" ] || return 0
	echo 0 >"$tpg/enable" 2>/dev/null
	for np in "$tpg"/np/*; do
		[ -d "$np" ] || continue
		echo 0 >"$np/iser" 2>/dev/null
		rmdir "$np"
	done
	rm -f "$tpg/lun/lun_0/port0"
	rmdir "$tpg/lun/lun_0" "$tpg" "$_lio/iscsi/$iser_iqn" || return 1
	if [ -d "$_lio/core/iblock_0" ]; then
		rmdir "$_lio/core/iblock_0/lun0" "$_lio/core/iblock_0"
	else
		rmdir "$_lio/core/fileio_0/lun0" "$_lio/core/fileio_0" && rm -f $_lio_img
	fi
}

# lio_clash IP: without the port mapper, enabling iSER on a portal whose TCP
# port LIO itself holds must fail cleanly (rddp's listener is a TCP socket);
# prints the error and leaves nothing behind.
lio_clash() { # IP
	local out rc=0
	out=$(lio_up "$1" 2>&1) && rc=1
	echo "$out"
	lio_down >/dev/null 2>&1 || rc=1
	[ -z "$(rdma res show cm_id)" ] || rc=1
	return $rc
}

lio_file_sha() { # [MIB]
	head -c $((${1:-$iser_mib} * 1024 * 1024)) $_lio_img | sha256sum | cut -c1-64
}

# The block device of our target's session over TRANSPORT (iser or tcp;
# "" if none): iscsiadm lists sessions as "TRANSPORT: [SID] PORTAL TARGET".
iser_disk() { # [TRANSPORT]
	local sid d
	sid=$(iscsiadm -m session 2>/dev/null |
		sed -n "s/^${1:-iser}: \[\([0-9]*\)\] .* $iser_iqn .*/\1/p" | head -1)
	[ -n "$sid" ] || return 0
	for d in /sys/class/iscsi_session/session"$sid"/device/target*/*/block/*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
}

# iscsi_login IP IFACE: a session over IFACE (iser, or default for TCP);
# prints "logged in: sdX (TRANSPORT)" once its disk is there.
iscsi_login() { # IP IFACE
	local i d out tr=tcp
	[ "$2" = iser ] && tr=iser
	mkdir -p /run/lock/iscsi /var/lib/iscsi
	echo "InitiatorName=$iser_initiator" >/etc/iscsi/initiatorname.iscsi
	pidof iscsid >/dev/null || iscsid || return 1
	out=$(iscsiadm -m node -o new -T $iser_iqn -p "$1:3260,1" -I "$2" 2>&1 &&
		iscsiadm -m node -T $iser_iqn -p "$1:3260" -I "$2" --login 2>&1) ||
		{ echo "$out"; dmesg | tail -20; return 1; }
	for i in $(seq 1 300); do
		d=$(iser_disk $tr)
		[ -n "$d" ] && [ -b "/dev/$d" ] && { echo "logged in: $d ($tr)"; return 0; }
		sleep 0.1
	done
	iscsiadm -m session
	dmesg | tail -20
	return 1
}
iser_login() { iscsi_login "$1" iser; }

iscsi_logout() { # IP IFACE
	iscsiadm -m node -T $iser_iqn -p "$1:3260" -I "$2" --logout &&
		iscsiadm -m node -T $iser_iqn -p "$1:3260" -I "$2" -o delete
}

# The iWARP port mapper: iw_cm maps each cm_id's port through it (see
# rddp_sock_share_mapped_port() in kmod/cm.c).
#
# The first iw_cm listen or connect after iwpmd starts registers iw_cm with
# it, and 6.1's iwpm_register_pid() (drivers/infiniband/core/iwpm_msg.c)
# records its request buffer only after it has multicast the request: an
# iwpmd that answers on another CPU first makes iwpm_register_pid_cb()
# strcmp() a NULL buffer, and the kernel oopses in iwpmd's sendto (seen in
# make check under a loaded host). So iwpmd starts pinned to CPU 0 as
# SCHED_IDLE, which never preempts, and a wildcard rping listen pinned to
# the same CPU registers before anything else (iwpmd can only answer once
# the registering task sleeps waiting for it); then iwpmd gets every CPU
# and the normal policy back.
iwpm_up() {
	local pid spid base rc
	modprobe iw_cm && taskset -c 0 chrt -i 0 iwpmd || return 1
	# it has registered with the kernel once it listens for its peers
	for _ in $(seq 1 50); do
		ss -Hlun 'sport = :3935' | grep -q . && break
		sleep 0.1
	done
	pid=$(pidof iwpmd) || return 1
	base=" $(_t_listeners | tr '\n' ' ') "
	taskset -c 0 rping -s -a 0.0.0.0 -p 7174 >/dev/null 2>&1 &
	spid=$!
	# rddp opens its TCP listener after iw_cm's registration and mapping
	t_listening "$base" "$spid" 10
	rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	chrt -a -o -p 0 "$pid" && taskset -a -p "$(printf '%x' $(((1 << $(nproc)) - 1)))" "$pid" >/dev/null &&
		return "$rc"
}
iwpm_down() {
	local p
	p=$(pidof iwpmd) || return 0
	kill $p
}

iser_roundtrip() { # BS [MIB]
	local bs=$1 mib=${2:-$iser_mib} count d a b
	count=$((mib * 1024 * 1024 / bs))
	d=$(iser_disk)
	[ -n "$d" ] && [ -b "/dev/$d" ] || { echo "no iSER block device"; return 1; }
	dd if=/dev/urandom of=/tmp/ulp-data bs=1M count="$mib" status=none &&
		dd if=/tmp/ulp-data of="/dev/$d" bs="$bs" count="$count" oflag=direct status=none &&
		dd if="/dev/$d" of=/tmp/ulp-back bs="$bs" count="$count" iflag=direct status=none ||
		return 1
	a=$(sha256sum </tmp/ulp-data | cut -c1-64)
	b=$(sha256sum </tmp/ulp-back | cut -c1-64)
	rm -f /tmp/ulp-back /tmp/ulp-data
	echo "written $a read $b"
	[ "$a" = "$b" ]
}

iser_logout() { # IP: the iser session, node deleted, iscsid stopped
	local p
	iscsi_logout "$1" iser || return 1
	p=$(pidof iscsid) && kill $p
	return 0
}
