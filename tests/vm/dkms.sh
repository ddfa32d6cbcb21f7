#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module `dkms install` made on the host, used as a user's system uses it
# (tools/package-check.sh boots Debian's kernel with no --ko, so no other
# rddp.ko is in the guest):
#   tests/vm/dkms.sh TREE SHA256
# TREE (relative to the repository) is DKMS's install tree: TREE/KVER/... as
# under /lib/modules; SHA256 is the sha256sum of the rddp.ko DKMS built. The
# tree is copied into /lib/modules, depmod'ed, and rddp is loaded by name.
set -u
. "$(dirname "$0")/lib.sh"

tree=/rddp/$1 sum=$2
kver=$(uname -r)
kdir=/lib/modules/$kver
# rddp.ko, or rddp.ko.xz on a kernel whose modules are compressed (6.12).
ko_name=$(cd "$tree/$kver/updates/dkms" 2>/dev/null && ls rddp.ko* | head -1)
dkms_ko=$kdir/updates/dkms/${ko_name:-rddp.ko}

t_run "DKMS installed rddp.ko for $kver under updates/dkms (${ko_name:-none})" \
	test -f "$tree/$kver/updates/dkms/${ko_name:-rddp.ko}"
t_run "no rddp.ko in /lib/modules before the install" \
	sh -c "! find $kdir -name 'rddp.ko*' | grep -q ."
t_run "copy DKMS's install tree into /lib/modules" cp -a "$tree/$kver/." "$kdir/"
t_run "depmod -a" depmod -a
# The path as a literal in the regex (6.12's release has a "+").
ko_re=$(sed 's/[].[*^$+?(){}|\\]/\\&/g' <<<"$dkms_ko")
t_like "modinfo -n rddp names DKMS's path" "^$ko_re\$" modinfo -n rddp
t_like "the installed module is the one DKMS built on the host" "^$sum " sha256sum "$dkms_ko"

setup_dummy
t_expect_fail "rddp is not loaded yet" grep -qw '^rddp' /proc/modules
t_run "modprobe rddp" modprobe rddp
# What proves the loaded module is DKMS's: the installed file's sha256
# (above) and that it is the only rddp.ko modprobe could find. srcversion
# is a digest of the sources only (build/kmod-stock/rddp.ko has the same);
# it shows the loaded module was built from them.
only_dkms() { [ "$(find "$kdir" -name 'rddp.ko*')" = "$dkms_ko" ]; }
t_run "DKMS's is the only rddp.ko in /lib/modules" only_dkms
srcv=$(modinfo -F srcversion "$dkms_ko")
t_like "loaded module's srcversion is the installed file's ($srcv)" "^$srcv\$" \
	cat /sys/module/rddp/srcversion
t_like "loaded module's version is DKMS's" "^$(modinfo -F version "$dkms_ko")\$" \
	cat /sys/module/rddp/version
t_run "rdma link add rddp0 on dummy0" rdma link add rddp0 type rddp netdev dummy0
t_like "rddp0 port is active" 'state ACTIVE' rdma link show rddp0/1

# rping exits 0 even when its connection fails: the client counts its pings.
ip=198.51.100.1
rping_pings() { # N: the client's verified pings to the server on port 7400
	rping_run 60 -c -a $ip -p 7400 -C "$1" -S 4096 -V -v >/tmp/rping-c.log 2>&1
	local rc=$?
	cat /tmp/rping-c.log
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ping data: ' /tmp/rping-c.log)" -eq "$1" ]
}
timeout 90 rping -s -a $ip -p 7400 -C 3 -S 4096 -V >/tmp/rping-s.log 2>&1 &
server=$!
# rddp's listen is a TCP listener on the port (lib.sh's t_port_listening).
t_run "rping server listening on rddp0" t_port_listening 7400 30
t_run "rping -V over rddp0: 3 pings of 4 KiB, data verified" rping_pings 3
wait "$server"
src=$?
t_run "rping server finished (exit status $src)" test "$src" -eq 0
t_run "rdma link delete rddp0" rdma link delete rddp0
t_run "no rddp device left" sh -c '! ls /sys/class/infiniband/ | grep -q .'
t_run "rmmod rddp" rmmod rddp
