#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp device lifecycle, as a user meets it with iproute2's `rdma` and
# rdma-core's ibv_* tools: autoload, port state following the netdev, errors
# for bad requests, removal by link delete / netdev removal / module unload.
# Runs inside the guest (tools/vm/run.sh).
set -u
. "$(dirname "$0")/lib.sh"

# wait_for DESCRIPTION SECONDS CMD...: poll CMD until it succeeds.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "timed out waiting for: $what" >&2
	return 1
}
has_dev() { [ -e "/sys/class/infiniband/$1" ]; }
no_dev() { ! has_dev "$1"; }
port_state() { rdma -j link show "$1/1" | grep -o '"state":"[A-Z]*"'; }

setup_dummy
ip link add dummy1 type dummy
ip addr add 203.0.113.1/24 dev dummy1
ip link set dummy1 up

t_expect_fail "rddp is not loaded before the first link" grep -qw '^rddp' /proc/modules

# RFC-independent plumbing: MODULE_ALIAS_RDMA_LINK makes the core modprobe us.
t_run "rdma link add autoloads rddp" rdma link add rddp0 type rddp netdev dummy0
t_run "module rddp is loaded" grep -qw '^rddp' /proc/modules
t_like "rdma link shows rddp0 on dummy0, ACTIVE" \
	'link rddp0/1 state ACTIVE physical_state LINK_UP netdev dummy0' rdma link show rddp0/1
t_like "rdma dev shows an RNIC" 'node_type rnic' rdma dev show rddp0
# Linux 6.11 records who chose a device's name
# (RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE) so that udev's rdma_rename leaves a
# user's name alone; `rdma link add` names every rddp device. 6.1 sends no
# such attribute. (rddpctl reads it from RDMA netlink: iproute2 6.1 does not.)
ctl=/rddp/build/cmake/userspace/rddpctl/rddpctl
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
if ((kmaj > 6 || (kmaj == 6 && kmin >= 11))); then
	t_run "the core knows the user named rddp0 (name_assign_type user)" \
		sh -c "$ctl -j dev show rddp0 | jq -e '.[0].name_assign_type == \"user\"'"
else
	t_run "Linux $kmaj.$kmin sends no name_assign_type" \
		sh -c "$ctl -j dev show rddp0 | jq -e '.[0] | has(\"name_assign_type\") | not'"
fi
t_like "ibv_devices lists rddp0" 'rddp0' ibv_devices
t_like "ibv_devinfo: transport iWARP" 'transport:[[:space:]]+iWARP' ibv_devinfo -d rddp0
t_like "ibv_devinfo: port active" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d rddp0
t_like "ibv_devinfo: Ethernet link layer" 'link_layer:[[:space:]]+Ethernet' ibv_devinfo -d rddp0
t_like "ibv_devinfo -v: honest limits (max_qp 4096)" 'max_qp:[[:space:]]+4096' ibv_devinfo -v -d rddp0
# One completion vector per CPU: nvme-rdma opens min(CPUs, vectors) I/O
# queues, so with one it had a single queue on any guest (issue 29).
t_like "ibv_devinfo -v: a completion vector per CPU ($(nproc))" \
	"num_comp_vectors:[[:space:]]+$(nproc)\$" ibv_devinfo -v -d rddp0
mac=$(cat /sys/class/net/dummy0/address)
t_like "GID 0 is the netdev's MAC" "^${mac//:/}" \
	sh -c "tr -d ':' < /sys/class/infiniband/rddp0/ports/1/gids/0"
t_like "node_desc names rddp" 'rddp software iWARP RNIC' cat /sys/class/infiniband/rddp0/node_desc

# Port state follows the netdev, in queries and as async events.
watch_log=/tmp/asyncwatch.log
ibv_asyncwatch -d rddp0 >"$watch_log" 2>&1 &
watch_pid=$!
sleep 1
ip link set dummy0 down
t_run "port DOWN after ip link set down" wait_for "port down" 5 sh -c "rdma -j link show rddp0/1 | grep -q '\"state\":\"DOWN\"'"
t_like "ibv_devinfo: port down" 'state:[[:space:]]+PORT_DOWN' ibv_devinfo -d rddp0
ip link set dummy0 up
t_run "port ACTIVE after ip link set up" wait_for "port active" 5 sh -c "rdma -j link show rddp0/1 | grep -q '\"state\":\"ACTIVE\"'"
sleep 1
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
t_like "async event PORT_ERR on link down" 'IBV_EVENT_PORT_ERR' cat "$watch_log"
t_like "async event PORT_ACTIVE on link up" 'IBV_EVENT_PORT_ACTIVE' cat "$watch_log"

# MTU follows the netdev (largest IB MTU not above it).
ip link set dummy0 mtu 9000
t_like "active_mtu 4096 at netdev MTU 9000" 'active_mtu:[[:space:]]+4096' ibv_devinfo -d rddp0
ip link set dummy0 mtu 1500
t_like "active_mtu 1024 at netdev MTU 1500" 'active_mtu:[[:space:]]+1024' ibv_devinfo -d rddp0

# Bad requests get clear errors and change nothing.
t_expect_fail "duplicate device name refused" rdma link add rddp0 type rddp netdev dummy1
t_expect_fail "second device on the same netdev refused" rdma link add rddp9 type rddp netdev dummy0
t_expect_fail "non-Ethernet netdev (lo) refused" rdma link add rddplo type rddp netdev lo
t_expect_fail "unknown netdev refused" rdma link add rddpx type rddp netdev nosuchdev
t_run "refused requests left one device" sh -c '[ "$(ls /sys/class/infiniband | wc -l)" = 1 ]'
t_like "kernel log explains the duplicate" 'rddp0: an RDMA device with this name already exists' dmesg

# A connection to an address where nobody listens fails cleanly: the TCP
# connect is refused and rdma_cm reports it (no hang, no kernel warning).
t_like "rping to a port without listener is refused" \
	'(REJECTED|UNREACHABLE|connect error|error)' \
	sh -c 'timeout 30 rping -c -a 198.51.100.1 -p 4999 -C 1 -v 2>&1; true'

# Removal paths.
t_run "rdma link delete" rdma link delete rddp0
t_run "device gone after link delete" wait_for "rddp0 gone" 5 no_dev rddp0
t_run "re-add after delete" rdma link add rddp0 type rddp netdev dummy0
t_run "device present" has_dev rddp0
t_run "ip link del dummy0" ip link del dummy0
t_run "device gone with its netdev" wait_for "rddp0 gone" 10 no_dev rddp0

t_run "link on dummy1" rdma link add rddp1 type rddp netdev dummy1
ip link add dummy2 type dummy && ip link set dummy2 up
t_run "link on dummy2" rdma link add rddp2 type rddp netdev dummy2
t_run "rmmod rddp with two live links" rmmod rddp
t_run "devices gone after rmmod" sh -c '! ls /sys/class/infiniband/ | grep -q .'
t_run "modprobe rddp again" modprobe rddp
t_run "link works after reload" rdma link add rddp1 type rddp netdev dummy1
t_run "rmmod after reload" rmmod rddp

# siw and rddp in one kernel (issue 26 item 9; Documentation/architecture.md,
# "siw and rddp in one kernel"). rddp registers with siw's driver id, so
# the core's lookups by that id reach both drivers' devices: rddp's unload
# once removed siw's devices (ib_unregister_driver(RDMA_DRIVER_SIW)), and
# siw's netdev notifier took an rddp device for a siw_device on a port
# event. Now each driver's device works while the other is loaded and when
# rddp goes; siw's own unload still removes every device with the id, so it
# is refused while rddp has one.
# Debian's kernels have no siw (the two-guest runs bring their own): the
# scripts make check runs in this boot (t_then, below) run here then.
if ! modprobe siw 2>/dev/null; then
	t_skip "siw and rddp in one kernel" "no siw module for this kernel"
	t_then "$@"
	exit 0
fi
ip link add dummy3 type dummy
ip addr add 192.0.2.1/24 dev dummy3
ip link set dummy3 up
# rping_on IP PORT: five verified pings, a server and a client on IP.
rping_on() {
	rping_run 60 -s -a "$1" -p "$2" -C 5 -S 4096 -V >/tmp/rping-s.log 2>&1 &
	local spid=$! rc
	t_port_listening "$2" 30 || echo "# no listener on port $2 after 30 s"
	rping_run 60 -c -a "$1" -p "$2" -C 5 -S 4096 -V -v >/tmp/rping-c.log 2>&1
	rc=$?
	wait "$spid" || rc=1
	cat /tmp/rping-c.log /tmp/rping-s.log
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ping data: ' /tmp/rping-c.log)" -eq 5 ]
}
t_run "siw beside rddp: link siw0 on dummy3" rdma link add siw0 type siw netdev dummy3
t_run "siw beside rddp: modprobe rddp" modprobe rddp
t_run "siw beside rddp: link rddp1 on dummy1" rdma link add rddp1 type rddp netdev dummy1
t_expect_fail "siw beside rddp: no rddp device on siw's netdev" \
	rdma link add rddp9 type rddp netdev dummy3
t_like "siw beside rddp: the kernel log says why" 'rddp9: netdev dummy3 already has siw device siw0' dmesg
t_like "siw beside rddp: rdma link shows rddp1 on dummy1" 'link rddp1/1 .*netdev dummy1' rdma link show rddp1/1
t_like "siw beside rddp: rdma link shows siw0 on dummy3" 'link siw0/1 .*netdev dummy3' rdma link show siw0/1
t_run "siw beside rddp: rping on siw0" rping_on 192.0.2.1 7301
t_run "siw beside rddp: rping on rddp1" rping_on 203.0.113.1 7302
# Port events on each netdev: siw's notifier once took rddp1 for its own.
ip link set dummy1 down
t_run "siw beside rddp: rddp1 DOWN with its netdev" wait_for "rddp1 down" 5 \
	sh -c "rdma -j link show rddp1/1 | grep -q '\"state\":\"DOWN\"'"
ip link set dummy1 up
t_run "siw beside rddp: rddp1 ACTIVE again" wait_for "rddp1 active" 5 \
	sh -c "rdma -j link show rddp1/1 | grep -q '\"state\":\"ACTIVE\"'"
ip link set dummy3 down
ip link set dummy3 up
t_run "siw beside rddp: rping on rddp1 after the port events" rping_on 203.0.113.1 7303
t_run "siw beside rddp: rping on siw0 after the port events" rping_on 192.0.2.1 7304
# siw's unload would take rddp1 with it: refused while rddp has a device.
t_like "siw beside rddp: rddp holds siw while it has a device" \
	'rddp: siw stays loaded while rddp has devices' dmesg
t_expect_fail "siw beside rddp: rmmod siw refused while rddp1 exists" rmmod siw
t_run "siw beside rddp: rddp1 still there" has_dev rddp1
t_run "siw beside rddp: rmmod rddp" rmmod rddp
t_run "siw beside rddp: rddp1 gone with rddp" wait_for "rddp1 gone" 5 no_dev rddp1
t_run "siw beside rddp: siw0 survives rmmod rddp" has_dev siw0
t_run "siw beside rddp: rping on siw0 after rmmod rddp" rping_on 192.0.2.1 7305
# rddp loaded again beside siw: rddp's device, then siw loaded after it.
t_run "siw beside rddp: modprobe rddp again" modprobe rddp
t_run "siw beside rddp: link rddp1 again" rdma link add rddp1 type rddp netdev dummy1
t_run "siw beside rddp: rping on rddp1 again" rping_on 203.0.113.1 7306
t_run "siw beside rddp: rdma link delete rddp1" rdma link delete rddp1
t_run "siw beside rddp: rmmod siw once rddp has no device" rmmod siw
t_run "siw beside rddp: siw0 gone with siw" wait_for "siw0 gone" 5 no_dev siw0
t_run "siw beside rddp: rddp's link after siw left" rdma link add rddp1 type rddp netdev dummy1
t_run "siw beside rddp: rping on rddp1 after siw left" rping_on 203.0.113.1 7307
t_run "siw beside rddp: modprobe siw with rddp1 present" modprobe siw
t_expect_fail "siw beside rddp: rmmod siw refused (siw came after rddp1)" rmmod siw
t_run "siw beside rddp: link siw0 again" rdma link add siw0 type siw netdev dummy3
t_run "siw beside rddp: rping on siw0 again" rping_on 192.0.2.1 7308
t_run "siw beside rddp: rping on rddp1 with siw back" rping_on 203.0.113.1 7309
t_run "siw beside rddp: rmmod rddp (second time)" rmmod rddp
t_run "siw beside rddp: siw0 survives again" has_dev siw0
t_run "siw beside rddp: rmmod siw" rmmod siw
t_run "siw beside rddp: no device left" sh -c '! ls /sys/class/infiniband/ | grep -q .'
# Arguments: more scripts to run in this boot (t_then, lib.sh); make
# check's qemu lane runs verbs.sh and rdma.sh so (tools/check.sh).
t_then "$@"
