#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp in network namespaces, the RDMA subsystem in `netns exclusive` mode:
# two namespaces joined by a veth pair, an rddp device in each (created from
# inside the namespace, then moved there with `rdma dev set DEV netns NS`:
# the RDMA core registers new devices in the initial namespace), rping -V
# and perftest between them; each namespace sees only its own device, in
# `rdma dev` and in rddpctl.
. /rddp/tests/vm/lib.sh

rddpctl=/rddp/build/cmake/userspace/rddpctl/rddpctl
ip1=203.0.113.1 ip2=203.0.113.2
in1() { ip netns exec ns1 "$@"; }
in2() { ip netns exec ns2 "$@"; }

# Network namespaces the kernel still holds: struct net objects in use
# (its own slab cache, net_namespace, under run.sh's slab_nomerge; shrink
# first, which also drains KASAN's quarantine of the cache, so that the
# count is exact). Empty when the cache is not there on its own (UML).
net_objects() {
	local c=/sys/kernel/slab/net_namespace
	[ -d "$c" ] && [ ! -L "$c" ] || return 0
	echo 1 >"$c/shrink" 2>/dev/null
	cut -d' ' -f1 "$c/objects"
}

t_run "modprobe rddp" modprobe rddp
t_run "rdma system set netns exclusive" rdma system set netns exclusive
setup_ns() {
	ip netns add ns1 && ip netns add ns2 &&
		ip link add veth1 type veth peer name veth2 &&
		ip link set veth1 netns ns1 && ip link set veth2 netns ns2 &&
		in1 ip addr add $ip1/24 dev veth1 && in1 ip link set veth1 up &&
		in1 ip link set lo up &&
		in2 ip addr add $ip2/24 dev veth2 && in2 ip link set veth2 up &&
		in2 ip link set lo up
}
t_run "two namespaces joined by veth" setup_ns
t_run "rdma link add rddp1 inside ns1" in1 rdma link add rddp1 type rddp netdev veth1
t_run "rdma link add rddp2 inside ns2" in2 rdma link add rddp2 type rddp netdev veth2
t_run "rdma dev set rddp1 netns ns1" rdma dev set rddp1 netns ns1
t_run "rdma dev set rddp2 netns ns2" rdma dev set rddp2 netns ns2

only_dev() { # NS DEV: `rdma dev` in NS lists DEV and nothing else
	local out
	out=$(ip netns exec "$1" rdma dev show)
	echo "$out"
	[ "$(grep -c . <<<"$out")" -eq 1 ] && grep -q "^[0-9]*: $2:" <<<"$out"
}
t_run "ns1 sees rddp1 only" only_dev ns1 rddp1
t_run "ns2 sees rddp2 only" only_dev ns2 rddp2
t_like "the initial namespace sees neither" '^$' rdma dev show
t_like "rddpctl in ns1 shows rddp1 only" '^\["rddp1"\]$' \
	bash -c "set -o pipefail; ip netns exec ns1 $rddpctl -j dev show | jq -c '[.[].name]'"

# Who may change a device in exclusive mode (issue 26, item 1): root of the
# user namespace owning the device's network namespace. Root of the initial
# namespace, which owns ns1, changes rddp1 from inside ns1; an unprivileged
# user's own namespace pair (unshare -Urn) holding a device lets that user
# change it, and a second namespace of that user's own neither sees nor
# changes any other device.
crc_of() { # NS-CMD...: the crc setting rddpctl shows there
	local out
	out=$("$@" $rddpctl -j dev show) || return 1
	jq -c '[.[] | {name, crc}]' <<<"$out"
}
t_run "root changes rddp1 from inside ns1" in1 $rddpctl dev set rddp1 crc off
t_like "... and sees it" '^\[\{"name":"rddp1","crc":false\}\]$' crc_of in1
t_run "... and back" in1 $rddpctl dev set rddp1 crc on
# Not through user(): $! must be the process that enters the namespaces
# (a backgrounded function runs in a subshell of root's).
setpriv --reuid=1000 --regid=1000 --clear-groups unshare -Urn sleep 600 &
upid=$!
user_ns_ready() { # the sleeping process is in a netns of its own
	local i
	for i in $(seq 100); do
		[ "$(readlink /proc/$upid/ns/net)" != "$(readlink /proc/self/ns/net)" ] && return 0
		sleep 0.1
	done
	return 1
}
setup_nsu() {
	user_ns_ready && ip netns attach nsu $upid && ip link add dummyu type dummy &&
		ip link set dummyu netns nsu && ip netns exec nsu ip link set dummyu up &&
		ip netns exec nsu rdma link add rddpu type rddp netdev dummyu &&
		rdma dev set rddpu netns nsu
}
t_run "an unprivileged user's namespaces hold rddpu" setup_nsu
as_owner() { user nsenter --preserve-credentials -t $upid -U -n "$@"; }
t_run "their root changes rddpu" as_owner $rddpctl dev set rddpu crc off
t_like "... and sees it" '^\[\{"name":"rddpu","crc":false\}\]$' crc_of as_owner
t_like "their root cannot change rddp1 (not visible): exit 4" 'no such rddp device' \
	exits 4 as_owner $rddpctl dev set rddp1 crc off
t_like "a second namespace of the user's own sees no device" '^\[\]$' crc_of user unshare -Urn
t_like "... and cannot change rddpu: exit 4" 'no such rddp device' \
	exits 4 user unshare -Urn $rddpctl stats reset rddpu
t_like "rddp1 kept CRC on" '^\[\{"name":"rddp1","crc":true\}\]$' crc_of in1
teardown_nsu() {
	ip netns exec nsu rdma link delete rddpu && kill $upid && ip netns del nsu
}
t_run "rdma link delete rddpu, the user's namespaces gone" teardown_nsu

# The clients in ns2 connect once their server listens in ns1 (lib.sh's
# t_listening over ns1's TCP listeners), not after a fixed delay: in CI
# (stop 41, Debian's 6.12 on a loaded host) ib_write_bw's server had not
# reached rdma_listen 2 s after it started, and its client was refused
# (RDMA_CM_EVENT_REJECTED, -111).
rping_ns() { # SIZE COUNT
	local base spid
	base=$(T_NETNS=ns1 _t_listener_set)
	in1 timeout 60 rping -s -a $ip1 -C "$2" -S "$1" -V >/tmp/rs.log 2>&1 &
	spid=$!
	T_NETNS=ns1 t_listening "$base" "$spid" 30 || echo "# the server in ns1 did not listen"
	in2 timeout 60 rping -c -a $ip1 -C "$2" -S "$1" -V -v >/tmp/rc.log 2>&1
	local rc=$?
	wait "$spid" || rc=1
	tail -3 /tmp/rc.log /tmp/rs.log
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ping data: ' /tmp/rc.log)" -eq "$2" ]
}
t_run "rping -V 4096 B x 10 from ns2 to ns1" rping_ns 4096 10

perf_ns_once() { # TOOL ARGS...
	local base spid
	base=$(T_NETNS=ns1 _t_listener_set)
	in1 timeout 120 "$@" -R -d rddp1 -F >/tmp/ps.log 2>&1 &
	spid=$!
	T_NETNS=ns1 t_listening "$base" "$spid" 30 || echo "# the server in ns1 did not listen"
	in2 timeout 120 "$@" -R -d rddp2 -F $ip1
	local rc=$?
	wait "$spid" || rc=1
	cat /tmp/ps.log
	return $rc
}
perf_ns() { perf_retry perf_ns_once "$@"; }
t_run "ib_write_bw between the namespaces" perf_ns ib_write_bw -s 65536 -n 200
t_run "ib_read_bw between the namespaces" perf_ns ib_read_bw -s 65536 -n 200

t_like "no QP left in ns1" '^$' in1 rdma res show qp
t_run "rdma link delete rddp1 (in ns1)" in1 rdma link delete rddp1
t_run "rdma link delete rddp2 (in ns2)" in2 rdma link delete rddp2
nets0=$(net_objects)
t_run "delete the namespaces" bash -c 'ip netns del ns1 && ip netns del ns2'
# The kernel destroys a deleted namespace later, in a work item; until the
# RDMA core has let go of it, switching back to shared mode is refused
# (EBUSY). Up to 30 s for that.
back_to_shared() {
	local i
	for ((i = 0; i < 60; i++)); do
		rdma system set netns shared 2>/dev/null && return 0
		sleep 0.5
	done
	rdma system set netns shared
}
t_run "rdma system set netns shared (once the namespaces are gone)" back_to_shared
# ns1 and ns2, where rddp had its connections, are freed once deleted: a
# socket rddp closes holds a reference on its namespace until TCP is done
# with it (rddp_sk_hold_net(), kmod/compat.h), a TIME-WAIT socket none. On
# 6.12, where kernel sockets hold a passive reference, taking it by hand as
# on 6.1 leaked a namespace for good (measured: 3 objects, then 2).
nets_back() {
	local i n
	for ((i = 0; i < 60; i++)); do
		n=$(net_objects)
		echo "$SECONDS s: net_namespace objects: $n (before the deletion: $nets0)"
		[ "$n" -le $((nets0 - 2)) ] && return 0
		sleep 0.5
	done
	return 1
}
if [ -n "$nets0" ]; then
	t_run "ns1 and ns2 are freed once deleted (net_namespace objects: $nets0, then 2 fewer)" nets_back
else
	t_skip "ns1 and ns2 are freed once deleted" "no net_namespace slab cache of its own"
fi
t_run "rmmod rddp" rmmod rddp
