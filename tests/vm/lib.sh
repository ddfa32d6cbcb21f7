# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Guest-side test library, sourced by tests/vm/*.sh under bash.
#
# Results are TAP lines in $RDDP_RESULTS/tap.txt (tools/vm/run.sh collects
# them) and on the console; each test's output goes to $RDDP_RESULTS/log.txt.
#
#   t_ok NAME / t_fail NAME [DETAIL] / t_skip NAME WHY
#   t_run NAME CMD...           ok if CMD exits 0
#   t_expect_fail NAME CMD...   ok if CMD exits non-zero
#   t_like NAME REGEX CMD...    ok if CMD exits 0 and its output matches REGEX (ERE)
#   t_barrier NAME [SECONDS]    two-VM rendezvous through the shared results dir
#   setup_dummy                 dummy0 up with 198.51.100.1/24 (one-VM tests)
#   rddp_counter NAME, rddp_counter_above NAME MIN   rddp0's device counters
#   t_relay PREFIX              a program's TAP (stdin) as checks "PREFIX: NAME"
#   t_mounted DIR               something is mounted on DIR
#   t_log_has REGEX FILE [TENTHS]  wait until a background command's log matches
#   exits CODE CMD...           CMD exits with CODE (for t_like: its output, then "[exit N]")
#   user CMD...                 CMD as the unprivileged user (uid and gid 1000, no groups)
#   hostile_kernel_read BIN ADDR PREFIX [ARG...]   a peer reads a kernel consumer's MR
#   perf_retry CMD...           CMD, again (3 runs at most) on perftest's handshake race
#   rping_run SECONDS ARGS...   rping, its exit race at the end (rdma-core 44) taken as success
#   rping_exit_race RC ERRFILE  that judgement alone (RC, or 0 for the race)
#   t_listening BEFORE PID      wait for a new TCP listener (a server's rdma_cm listen)
#   t_listeners_gone BEFORE     wait until only the listeners in BEFORE are left
#   t_then SCRIPT...            run more tests/vm scripts in this boot, checks "NAME: ..."
#
# Environment: RDDP_ROLE (a, or a|b with two VMs), RDDP_KERNEL (stock|debug,
# or uml-debug|uml under User-Mode Linux: this guest's; two guests may
# differ), RDDP_TOPOLOGY (one|two),
# RDDP_LOCAL_IP/RDDP_PEER_IP on the two-VM link.

RDDP_RESULTS=${RDDP_RESULTS:-/results/${RDDP_ROLE:-a}}
mkdir -p "$RDDP_RESULTS"
_t_tap=$RDDP_RESULTS/tap.txt
_t_log=$RDDP_RESULTS/log.txt
_t_n=0

# RDDP_TAP_PREFIX (e.g. "sctp: ") starts every check's name: a script run
# inside another's boot (t_then) keeps its checks apart.
# log.txt stamps each result with the guest's uptime: where a suite's time
# goes, for make check's budget. Builtins only: under User-Mode Linux each
# fork costs a ptrace round trip, about 0.4 s a check on a loaded host
# (t_relay passes on hundreds of them).
_t_emit() {
	local line up
	_t_n=$((_t_n + 1))
	line="$1 $_t_n - ${RDDP_TAP_PREFIX:-}$2"
	echo "$line"
	echo "$line" >>"$_t_tap"
	read -r up _ </proc/uptime
	echo "[uptime $up] $1 $_t_n" >>"$_t_log"
}

t_ok() { _t_emit ok "$1"; }

t_fail() {
	_t_emit "not ok" "$1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | head -40 | sed 's/^/#   /' | tee -a "$_t_tap"
	return 0
}

t_skip() { _t_emit ok "$1 # SKIP $2"; }

# _t_exec NAME CMD...: run CMD, its output to the log and to $_t_out.
# The log gives each check's seconds: where a suite's time goes.
_t_exec() {
	local name=$1 t0=$SECONDS
	shift
	printf '\n### %s\n$ %s\n' "$name" "$*" >>"$_t_log"
	_t_out=$("$@" 2>&1)
	_t_rc=$?
	printf '%s\n[exit %d after %d s]\n' "$_t_out" "$_t_rc" "$((SECONDS - t0))" >>"$_t_log"
}

t_run() {
	local name=$1
	shift
	_t_exec "$name" "$@"
	if [ "$_t_rc" -eq 0 ]; then t_ok "$name"; else
		t_fail "$name" "\$ $* -> exit $_t_rc
$(tail -20 <<<"$_t_out")"
	fi
}

t_expect_fail() {
	local name=$1
	shift
	_t_exec "$name" "$@"
	if [ "$_t_rc" -ne 0 ]; then t_ok "$name"; else
		t_fail "$name" "\$ $* -> succeeded, expected failure
$(tail -20 <<<"$_t_out")"
	fi
}

t_like() {
	local name=$1 re=$2
	shift 2
	_t_exec "$name" "$@"
	if [ "$_t_rc" -eq 0 ] && grep -Eq -- "$re" <<<"$_t_out"; then t_ok "$name"; else
		t_fail "$name" "\$ $* -> exit $_t_rc, output does not match /$re/:
$(tail -20 <<<"$_t_out")"
	fi
}

# Both guests write a file and wait for the other's; 9p has no client cache
# by default, so each sees the other's file as soon as it is created.
t_barrier() {
	local name=$1 secs=${2:-120} peer i
	[ "${RDDP_TOPOLOGY:-one}" = two ] || return 0
	case $RDDP_ROLE in a) peer=b ;; *) peer=a ;; esac
	: >"/results/barrier-$name.$RDDP_ROLE"
	for ((i = 0; i < secs * 10; i++)); do
		[ -e "/results/barrier-$name.$peer" ] && return 0
		sleep 0.1
	done
	t_fail "barrier $name: peer $peer did not arrive in ${secs}s"
	return 1
}

# perftest re-posts its handshake receive only after polling the previous
# one, so on iWARP (no RNR retry) a fast peer's Send can find no buffer: the
# receiver then sends a Terminate (RFC 5041 §7.2 "no buffer") and both
# sides fail. Such a run, recognised by that Terminate and nothing else, is
# repeated, up to three runs in all. A Read Request beyond IRD gives the
# same Terminate but is rddp's fault (logged apart): never repeated.
perf_retry() { # CMD...
	local before ird try
	for try in 1 2 3; do
		before=$(dmesg | grep -c 'invalid MSN: no buffer')
		ird=$(dmesg | grep -c 'beyond IRD')
		"$@" && return 0
		[ "$(dmesg | grep -c 'beyond IRD')" -eq "$ird" ] || return 1
		[ "$(dmesg | grep -c 'invalid MSN: no buffer')" -gt "$before" ] || return 1
		echo "# perftest handshake race (receive posted after the peer's Send), run $try"
	done
	return 1
}

# net_counters: this guest's IP transmits (Ip: OutRequests: one per skb
# handed down, before GSO cuts it into segments), TCP segments out and in
# (Tcp: OutSegs, InSegs) so far, in net_ipout, net_segs and net_insegs.
# Builtins only, so that a guest can read them during a timed job without
# a fork; in /proc/net/snmp a line naming the columns precedes the line of
# their values, both with the same tag.
net_counters() {
	local -a f h=()
	local i
	net_ipout=0 net_segs=0 net_insegs=0
	while read -ra f; do
		if [ "${h[0]:-}" != "${f[0]:-}" ]; then
			h=("${f[@]}")
			continue
		fi
		for i in "${!h[@]}"; do
			case ${h[0]}${h[i]} in
			Ip:OutRequests) net_ipout=${f[i]} ;;
			Tcp:OutSegs) net_segs=${f[i]} ;;
			Tcp:InSegs) net_insegs=${f[i]} ;;
			esac
		done
		h=()
	done </proc/net/snmp
}

# rddp_counter NAME: rddp0's device counter NAME (rddpctl stats, summed
# over CPUs); rddp_counter_above NAME MIN: it exceeds MIN.
rddp_counter() { /rddp/build/cmake/userspace/rddpctl/rddpctl -j stats rddp0 | jq -e ".[0].$1"; }
rddp_counter_above() {
	local v
	v=$(rddp_counter "$1") && echo "$1 $v" && [ "$v" -gt "$2" ]
}

# t_relay PREFIX: a test program's TAP on stdin, each line a check of this
# suite named "PREFIX: NAME"; comment lines (a failed check's diagnosis)
# are echoed and kept in the TAP file, so make check's log shows them.
t_relay() {
	local line name re='^(not )?ok [0-9]+ - (.*)$'
	while IFS= read -r line; do
		name=$line
		[[ $line =~ $re ]] && name=${BASH_REMATCH[2]}
		case $line in
		"ok "*) t_ok "$1: $name" ;;
		"not ok "*) t_fail "$1: $name" ;;
		"#"*) echo "$line" && echo "$line" >>"$_t_tap" ;;
		esac
	done
}

# t_kverbs_tap PREFIX SINCE: the TAP lines rddp_kverbs (kmod/test) logged
# after kernel log line SINCE ("rddp_kverbs: ok N - name") as this script's
# checks named "PREFIX: name"; kverbs_n counts them.
kverbs_n=0
t_kverbs_tap() {
	local line
	dmesg | tail -n +$(($2 + 1)) | sed -n 's/.*rddp_kverbs: //p' >/tmp/kverbs.tap
	while read -r line; do
		case $line in
		"ok "*) t_ok "$1: ${line#ok * - }" ;;
		"not ok "*) t_fail "$1: ${line#not ok * - }" ;;
		*) continue ;;
		esac
		kverbs_n=$((kverbs_n + 1))
	done </tmp/kverbs.tap
}

# hostile_kernel_read BIN ADDR PREFIX [ARG...]: the hostile peer BIN
# (tests/verbs/hostile_test.cc, with ARGs) reads the fast-register MR of a
# kernel consumer (rddp_kverbs serve_read=1 on ADDR), shuts its window and
# invalidates the MR with a Send with Invalidate; the consumer rewrites the
# memory as soon as its receive completes, and the peer must never see the
# rewritten octets (kmod/mem.h). A small send buffer ceiling makes sure the
# responses park in TX, not in the socket. Checks named "PREFIX: ...".
hostile_kernel_read() {
	local bin=$1 addr=$2 prefix=$3 before kv rc out wmem
	shift 3
	wmem=$(sysctl -n net.ipv4.tcp_wmem)
	sysctl -qw net.ipv4.tcp_wmem="4096 16384 262144"
	before=$(dmesg | wc -l)
	modprobe rddp_kverbs addr="$addr" serve_read=1 &
	kv=$!
	out=$(timeout 120 "$bin" "$@" --kernel-read 7174 "$addr" 2>&1)
	rc=$?
	t_relay "$prefix" <<<"$out"
	t_run "$prefix: kernel read: the peer program exits 0" test "$rc" -eq 0
	wait "$kv"
	rc=$?
	sysctl -qw net.ipv4.tcp_wmem="$wmem"
	t_kverbs_tap "$prefix: kernel read" "$before"
	t_run "$prefix: kernel read: rddp_kverbs serve_read=1 loads" test "$rc" -eq 0
	t_run "$prefix: kernel read: rmmod rddp_kverbs" rmmod rddp_kverbs
}

# t_mounted DIR: something is mounted on DIR (busybox has no mountpoint).
t_mounted() { grep -q " $1 " /proc/mounts; }

# t_log_has REGEX FILE [TENTHS]: wait (20 s by default) until FILE, which a
# background command writes, has a line matching the extended REGEX.
t_log_has() {
	local i
	for ((i = 0; i < ${3:-200}; i++)); do
		grep -Eq -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

exits() { # CODE CMD...: CMD exits with CODE
	local want=$1
	shift
	"$@"
	local rc=$?
	echo "[exit $rc]"
	[ "$rc" -eq "$want" ]
}
user() { setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }

# setup_dummy: dummy0 up with 198.51.100.1/24, whatever ran before in this
# boot (a script before it may have deleted dummy0 with dummy loaded, and
# then numdummies= creates none; t_then).
setup_dummy() {
	modprobe dummy numdummies=1 &&
		{ ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy; } &&
		ip link set dummy0 up &&
		{ ip -4 addr show dev dummy0 | grep -q ' 198\.51\.100\.1/' ||
			ip addr add 198.51.100.1/24 dev dummy0; }
}

# rping_run SECONDS ARGS...: `rping ARGS` (server or client) within
# SECONDS, its output on stdout, and its exit status. Debian 12's rping
# (rdma-core 44) can exit 255 after a complete run: its main thread
# destroys the CM event channel while its CM thread is about to wait on it
# again, which then fails with "rdma_get_cm_event: Bad file descriptor" and
# exits (seen in interop's server; clients end the same way; fixed upstream
# in rdma-core f3ae6534a, "rping: terminate CM event thread before
# exiting"). That exit, with that last line on stderr, is the success it
# follows; the client's count of pings judges the traffic. stderr is read
# apart from stdout: the CM thread's exit() flushes the main thread's
# buffered "ping data" lines *after* its message, so in a merged stream
# the message is not always last (a 255 taken for a failure in make check).
rping_run() {
	local out err rc
	err=$(mktemp)
	out=$(timeout "$1" rping "${@:2}" 2>"$err")
	rc=$?
	printf '%s\n' "$out"
	cat "$err"
	rping_exit_race "$rc" "$err"
	rc=$?
	rm -f "$err"
	return "$rc"
}
# rping_exit_race RC STDERR_FILE: RC, or 0 for rping's exit race above.
rping_exit_race() {
	if [ "$1" -eq 255 ] && [ "$(tail -1 "$2")" = "rdma_get_cm_event: Bad file descriptor" ]; then
		echo "# rping's exit race at its end (rdma-core 44), not a failure"
		return 0
	fi
	return "$1"
}
# Two-VM exchanges (interop.sh, markers.sh, faults.sh, sctp-two.sh): the
# server runs in one guest, the client in the other, over the device
# $RDDP_DEV, bounded by $RPING_BOUND seconds (120; more over a lossy wire).
# rping exits 0 even when its connection fails, so the client counts its
# pings.
rping_server() { rping_run "${RPING_BOUND:-120}" -s -a "$RDDP_LOCAL_IP" -C "$1" -S "$2" -V; }
rping_client() {
	rping_run "${RPING_BOUND:-120}" -c -a "$RDDP_PEER_IP" -C "$1" -S "$2" -V -v \
		>/tmp/rping-c.log 2>&1
	local rc=$?
	tail -3 /tmp/rping-c.log | cut -c1-100
	echo "# $(grep -c '^ping data: ' /tmp/rping-c.log) pings verified"
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ping data: ' /tmp/rping-c.log)" -eq "$1" ]
}
no_res() { # TYPE: `rdma res show TYPE` lists nothing
	local out
	out=$(rdma res show "$1") || return 1
	echo "$out"
	[ -z "$(tr -d '[:space:]' <<<"$out")" ]
}
# Line-buffered, so that what a server printed survives its timeout
# (120 s). One that times out first shows the kernel's view: its threads'
# kernel stacks, the cm_ids, QPs and TCP listeners (how the markers run's
# hang was traced to perftest: its server in ucma_get_event waiting for the
# second connection, see _t_serve).
perf_server() {
	local pid i t
	stdbuf -oL "$@" -R -d "$RDDP_DEV" -F &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.1
	done
	echo "# timed out; its threads' kernel stacks, cm_ids, QPs and TCP listeners now:"
	for t in /proc/"$pid"/task/*; do
		# Not wchan: reading it trips KASAN in UML's __get_wchan().
		echo "# ${t##*/} $(cat "$t/comm" 2>/dev/null)"
		cat "$t/stack" 2>/dev/null
	done
	rdma res show cm_id
	rdma res show qp
	_t_listeners
	kill "$pid" 2>/dev/null
	wait "$pid"
	return 124
}
_t_connect_gate=/rddp/build/cmake/tests/verbs/librddp_connect_gate.so
# With tests/verbs/connect_gate.c preloaded when _t_client set _t_gate: its
# second rdma_connect() waits for the server's second listen (_t_serve).
# perftest's only: a client with more connections (rddp_integrity) would
# wait at each one.
perf_client() {
	local preload=""
	[ -n "${_t_gate:-}" ] && [ -e "$_t_connect_gate" ] && preload=$_t_connect_gate
	LD_PRELOAD=$preload RDDP_CONNECT_GATE=${_t_gate:-} timeout 120 "$@" -R -d "$RDDP_DEV" \
		-F "$RDDP_PEER_IP"
}
# perf_local_pair DEV ADDR TOOL ARGS...: perftest's server on DEV in this
# guest and, once it listens, its client to ADDR (both bounded by 120 s);
# prints the client's output, returns its status. With perf_sctp=1 (DEV's
# transport is SCTP) the client also waits for the server's SCTP endpoint
# (t_sctp_listening): rddp's SCTP listen follows its TCP one. A client
# that fails stops its server, which would otherwise wait out its bound for
# a connection that is not coming (perftest's client gives up on a failed
# rdma_cm event; under UML's make bench quick mode, twice a run, 120 s each).
perf_local_pair() {
	local dev=$1 addr=$2 base spid rc
	shift 2
	base=" $(_t_listeners | tr '\n' ' ') "
	timeout 120 "$@" -R -d "$dev" -F >/tmp/perf-local-s.log 2>&1 &
	spid=$!
	t_listening "$base" "$spid"
	[ "${perf_sctp:-0}" = 1 ] && t_sctp_listening 18515 20 # perftest's port
	timeout 120 "$@" -R -d "$dev" -F "$addr" 2>&1
	rc=$?
	if [ "$rc" != 0 ] && kill -0 "$spid" 2>/dev/null; then
		echo "# the client exited with status $rc: its server stopped; the server's last lines:"
		kill "$spid" 2>/dev/null
		tail -4 /tmp/perf-local-s.log | sed 's/^/#   /'
	fi
	wait "$spid"
	t_listeners_gone "$base"
	return "$rc"
}
# perf_row: the result line of perftest's output (stdin), whose 4th field
# is the average MB/s of a bandwidth test, the 5th the typical µs of a
# latency test.
perf_row() { awk '$1 ~ /^[0-9]+$/ && NF >= 4 { r = $0 } END { print r }'; }

# The client connects once the server listens, not after a fixed delay: the
# guests may boot different kernels, and a server on the debug kernel can
# take longer to reach rdma_listen (its first rping: seconds) than a client
# on Debian's takes to connect; the connection is then refused and the
# server waits out its timeout. An rdma_cm listen on rddp or siw opens a
# kernel TCP listener, so the server's guest watches its TCP listeners and
# marks in /results when a new one appears (NAME is unique in a run, as for
# t_barrier).
# With T_NETNS set (T_NETNS=ns1 t_listening ...), the listeners of that
# network namespace: /proc/net is the reader's own namespace's.
_t_listeners() { # address:port/inode of each listening TCP socket
	local in_ns=()
	[ -z "${T_NETNS:-}" ] || in_ns=(ip netns exec "$T_NETNS")
	"${in_ns[@]}" awk '$4 == "0A" { print $2 "/" $10 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
# _t_listener_set: _t_listeners as one string, " L1 L2 ... ", t_listening's
# BEFORE.
_t_listener_set() { echo " $(_t_listeners | tr '\n' ' ') "; }
# t_listening BEFORE PID [SECONDS]: wait (60 s by default) until a TCP
# listener not in BEFORE (" $(_t_listeners | tr '\n' ' ') ") exists; false
# if process PID exits first or none comes.
t_listening() {
	local i l
	for ((i = 0; i < ${3:-60} * 10; i++)); do
		for l in $(_t_listeners); do
			[[ "$1" == *" $l "* ]] || return 0
		done
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# t_port_listening PORT [SECONDS]: wait (60 s by default) until a TCP
# socket listens on PORT (any address).
t_port_listening() {
	local i hex
	hex=$(printf '%04X' "$1")
	for ((i = 0; i < ${2:-60} * 10; i++)); do
		_t_listeners | grep -q ":$hex/" && return 0
		sleep 0.1
	done
	return 1
}
# t_sctp_listening PORT [SECONDS]: wait (20 s by default) until an SCTP
# endpoint is bound to PORT (/proc/net/sctp/eps, its 6th field). rdma_cm
# shows a listener, and the TCP one exists, before rddp's SCTP listen has
# returned (which may first load sctp.ko).
t_sctp_listening() {
	local i
	for ((i = 0; i < ${2:-20} * 10; i++)); do
		awk -v p="$1" '$6 == p { f = 1 } END { exit !f }' /proc/net/sctp/eps 2>/dev/null &&
			return 0
		sleep 0.1
	done
	echo "# no SCTP endpoint on port $1"
	return 1
}
# t_listeners_gone BEFORE: wait (30 s at most) until no TCP listener but
# those in BEFORE is left (a killed server's has gone).
t_listeners_gone() {
	local i l gone
	for ((i = 0; i < 300; i++)); do
		gone=1
		for l in $(_t_listeners); do
			[[ "$1" == *" $l "* ]] || gone=0
		done
		[ "$gone" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}
# _t_mark_listening MARK LISTENERS-BEFORE [MARK2]: touch MARK on a new
# listener (150 s at most); with MARK2, then MARK2 on the next listener not
# there at MARK's time: perftest's second listen, which the client's
# librddp_connect_gate.so waits for (see _t_serve).
_t_mark_listening() {
	local now
	t_listening " $2 " $$ 150 || return 1
	now=$(_t_listeners | tr '\n' ' ')
	: >"$1"
	[ -n "${3:-}" ] || return 0
	t_listening " $2 $now " $$ 150 && : >"$3"
}
_t_children() { # PID: its child processes
	local f st fields
	for f in /proc/[0-9]*/stat; do
		st=$(cat "$f" 2>/dev/null) || continue
		# After "PID (COMM) ": the state, then the parent's PID.
		read -ra fields <<<"${st##*) }"
		[ "${fields[1]}" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
	done
}
_t_kill_tree() { # PID: the process and its descendants (a server runs as
	# subshell -> timeout -> tool; killing the subshell alone leaves the tool
	# listening)
	local c
	for c in $(_t_children "$1"); do _t_kill_tree "$c"; done
	kill "$1" 2>/dev/null
}
# perftest over rdma_cm connects twice: its parameter exchange, then the
# test QPs, and its server listens anew in between. Its client can reach
# the second listen before the server has opened it (a server on a slower
# or debug kernel; in the markers run on UML about one run in four) and is
# refused: TCP answers the SYN with a RST, the client sees "Connection
# refused" or "RDMA_CM_EVENT_REJECTED; error: -111" (ECONNREFUSED), and
# Debian's perftest 4.5-0.17 then crashes in its own retry (fixed upstream
# in perftest 3d9d8d0) while its server waits for ever. So the server's
# guest marks its second listener too (/results/listen2-NAME[-TRY]), and
# the client runs with tests/verbs/connect_gate.c preloaded, which holds
# its second rdma_connect() until that mark exists (60 s at most). Should
# it still be refused, the client asks for another round
# (/results/retry-NAME-TRY) and the server restarts, two rounds more at
# most. Any other failure counts at once.
_t_serve() { # NAME FN ARGS...
	local name=$1 fn=$2 try rc pid base
	shift 2
	base=" $(_t_listeners | tr '\n' ' ') "
	for try in 1 2 3; do
		if [ "$try" -gt 1 ]; then
			t_listeners_gone "$base"
			_t_mark_listening "/results/listen-$name-$try" \
				"$(_t_listeners | tr '\n' ' ')" "/results/listen2-$name-$try" \
				>/dev/null 2>&1 &
		fi
		"$fn" "$@" &
		pid=$!
		while kill -0 "$pid" 2>/dev/null && [ ! -e "/results/retry-$name-$try" ]; do
			sleep 0.2
		done
		[ -e "/results/retry-$name-$try" ] && _t_kill_tree "$pid"
		wait "$pid"
		rc=$?
		[ -e "/results/retry-$name-$try" ] || return "$rc"
		echo "# the client was refused between perftest's two connections: serving again"
	done
	return "$rc"
}
_t_wait_listen() { # MARK NAME: wait for the server (150 s at most)
	local i
	for ((i = 0; i < 1500; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	echo "# $2: the server did not listen in 150 s" | tee -a "$_t_tap"
}
_t_refused() { # stdin: perftest's output; true if its connection was refused
	grep -q -e 'Connection refused' -e 'RDMA_CM_EVENT_REJECTED; error: -111\.'
}
_t_client() { # NAME FN ARGS...
	local name=$1 fn=$2 try out rc _t_gate=/results/listen2-$1
	shift 2
	for try in 1 2 3; do
		if [ "$try" -gt 1 ]; then
			_t_wait_listen "/results/listen-$name-$try" "$name"
			_t_gate=/results/listen2-$name-$try
		fi
		out=$("$fn" "$@" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		[ "$rc" -ne 0 ] && [ "$try" -lt 3 ] && _t_refused <<<"$out" || return "$rc"
		echo "# refused (perftest's second connection came before its listen): again"
		: >"/results/retry-$name-$try"
	done
}
# make bench's TCP ceiling: iperf3 over the path under test, one run per
# write size. iperf3_client ADDR BYTES SECONDS OUT runs one client against
# the server at ADDR (port 5201), keeps its -J document as
# /tmp/iperf3-BYTES.json and appends "tcp iperf3 BYTES MB/s-figure MB/s" to
# OUT; iperf3_gather JSON DOCS... writes the documents as one JSON array
# (what tools/bench-report.py reads) and checks each measured a rate.
iperf3_client() {
	local addr=$1 bytes=$2 secs=$3 out=$4 v
	t_run "tcp iperf3 $bytes" timeout 60 iperf3 -c "$addr" -l "$bytes" -t "$secs" -J \
		--logfile "/tmp/iperf3-$bytes.json"
	v=$(jq '.end.sum_received.bits_per_second / 8e6 | floor' "/tmp/iperf3-$bytes.json")
	echo "tcp iperf3 $bytes ${v:-?} MB/s" >>"$out"
}
iperf3_gather() {
	local json=$1
	shift
	# shellcheck disable=SC2016 # expanded by sh -c
	t_run "iperf3 results as one JSON array" sh -c 'jq -s . "$@" >"$0"' "$json" "$@"
	t_run "every iperf3 run measured a rate" \
		jq -e 'length > 0 and all(.[]; .end.sum_received.bits_per_second > 0)' "$json"
}

# both SERVER-ROLE NAME SERVER-FN CLIENT-FN ARGS...: one exchange, the client
# starting when the server listens, then a barrier so that both guests start
# the next one together.
both() {
	local srole=$1 name=$2 sfn=$3 cfn=$4 mark watcher
	shift 4
	mark="/results/listen-$name"
	if [ "$RDDP_ROLE" = "$srole" ]; then
		_t_mark_listening "$mark" "$(_t_listeners | tr '\n' ' ')" \
			"/results/listen2-$name" &
		watcher=$!
		t_run "$name (server, $RDDP_DEV)" _t_serve "$name" "$sfn" "$@"
		kill "$watcher" 2>/dev/null
		wait "$watcher" 2>/dev/null
	else
		# Not listening in time: the client runs anyway and reports the failure.
		_t_wait_listen "$mark" "$name"
		t_run "$name (client, $RDDP_DEV)" _t_client "$name" "$cfn" "$@"
	fi
	t_barrier "$name" 180
}

# t_then SCRIPT...: each SCRIPT (a file name in tests/vm) run after this
# script in the same guest, its checks named "SCRIPT-WITHOUT-.sh: ...", and
# one check that it ran to its end. make check's qemu lane uses it to run
# a short suite without a boot of its own (tools/check.sh).
t_then() {
	local s rc
	for s in "$@"; do
		# run.sh hands a script without arguments one empty one.
		[ -n "$s" ] || continue
		RDDP_TAP_PREFIX="${RDDP_TAP_PREFIX:-}${s%.sh}: " bash "/rddp/tests/vm/$s"
		rc=$?
		_t_n=$(grep -c '^\(not \)\{0,1\}ok ' "$_t_tap")
		t_run "$s ran to its end in this boot" test "$rc" -eq 0
	done
}
