# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA helpers for the ULP tests, sourced after lib.sh: an nfsd with
# an RDMA listener (port 20049) exporting a tmpfs, and NFS mounts over it.
# The guest has nfs-utils and rpcbind from Debian's packages (mkinitramfs.sh)
# but no systemd, rpc.statd or client-tracking daemon: NFSv3 mounts use
# nolock, NFSv4 gets a 10 s grace period.
#
#   nfsd_up SUBNET [THREADS]  rpcbind, exports, mountd, nfsd (THREADS
#                        threads, default 4) with `rdma 20049`
#   nfsd_down            nfsd stopped, daemons gone, exports dropped
#   nfs_mount VERS IP [PROTO]  mount IP's export over RDMA (PROTO rdma, the
#                        default) or TCP (tcp) at /mnt/nfs-VERS
#   nfs_roundtrip VERS MIB  MIB MiB written through the mount, caches
#                        dropped, read back: equal, and equal on the server
#                        when it runs in this guest; prints the sha256s
#   nfs_server_sha VERS  sha256 of what the server holds for nfs_roundtrip

_nfs_export=/srv/nfs

nfsd_up() { # SUBNET [THREADS]
	mkdir -p $_nfs_export && mount -t tmpfs -o size=256m tmpfs $_nfs_export || return 1
	modprobe -a nfsd rpcrdma || return 1
	t_mounted /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo "$_nfs_export $1(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	# Before nfsd starts: a short grace period (no client tracking daemon).
	echo 10 >/proc/fs/nfsd/nfsv4gracetime && echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
		rpcbind && exportfs -ra && rpc.mountd && rpc.nfsd "${2:-4}" || return 1
	# The RDMA listener, as `rpc.nfsd --rdma` or nfs.conf's rdma=y do it.
	echo "rdma 20049" >/proc/fs/nfsd/portlist || return 1
	cat /proc/fs/nfsd/portlist
}

nfsd_down() {
	local d p i
	rpc.nfsd 0
	exportfs -ua
	for d in rpc.mountd rpcbind; do
		p=$(pidof $d) && kill $p
		for i in $(seq 1 50); do pidof $d >/dev/null || break; sleep 0.1; done
	done
	umount /proc/fs/nfsd
	umount $_nfs_export && modprobe -r nfsd
}

nfs_mount() { # VERS IP [PROTO]
	local opts="vers=$1,proto=rdma,port=20049" dir=/mnt/nfs-$1 src=$2:$_nfs_export
	[ "${3:-rdma}" = tcp ] && opts="vers=$1,proto=tcp,port=2049"
	case $1 in
	3) opts="$opts,nolock" ;;
	*) src=$2:/ ;;	# NFSv4: the export is the pseudo-root (fsid=0)
	esac
	mkdir -p "$dir" && timeout 120 mount.nfs "$src" "$dir" -o "$opts" || return 1
	grep " $dir " /proc/mounts
}

nfs_server_sha() { sha256sum <"$_nfs_export/data-$1" | cut -c1-64; }

nfs_roundtrip() { # VERS MIB
	local dir=/mnt/nfs-$1 a b c=
	dd if=/dev/urandom of=/tmp/nfs-data bs=1M count="$2" status=none &&
		dd if=/tmp/nfs-data of="$dir/data-$1" bs=1M conv=fsync status=none || return 1
	echo 3 >/proc/sys/vm/drop_caches
	a=$(sha256sum </tmp/nfs-data | cut -c1-64)
	b=$(sha256sum <"$dir/data-$1" | cut -c1-64)
	[ -d $_nfs_export ] && c=$(nfs_server_sha "$1")
	rm -f /tmp/nfs-data
	echo "written $a read $b${c:+ server $c}"
	[ "$a" = "$b" ] && { [ -z "$c" ] || [ "$a" = "$c" ]; }
}
