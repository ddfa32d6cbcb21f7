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
t_like "ibv_devices lists rddp0" 'rddp0' ibv_devices
t_like "ibv_devinfo: transport iWARP" 'transport:[[:space:]]+iWARP' ibv_devinfo -d rddp0
t_like "ibv_devinfo: port active" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d rddp0
t_like "ibv_devinfo: Ethernet link layer" 'link_layer:[[:space:]]+Ethernet' ibv_devinfo -d rddp0
t_like "ibv_devinfo -v: honest limits (max_qp 4096)" 'max_qp:[[:space:]]+4096' ibv_devinfo -v -d rddp0
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
