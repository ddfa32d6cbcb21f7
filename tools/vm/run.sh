#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs a test script inside one or two qemu guests, or one User-Mode Linux
# instance, and reports TAP.
#
#   tools/vm/run.sh [options] TEST [ARGS...]
#
#   --kernel K            stock: Debian's 6.1 kernel (default); stock-6.12:
#                         Debian's 6.12 (its image unpacked into the cache,
#                         tools/lib.sh rddp_612_image); debug: the
#                         qemu debug kernel (tools/kernel); uml-debug, uml:
#                         User-Mode Linux 6.12 with debugging, 6.1 without
#                         (tools/kernel/build-uml-kernel.sh), one guest only
#   --kernel-a K, --kernel-b K   the kernel of guest a or b only (default:
#                         --kernel's); each guest boots its own kernel and
#                         initramfs and gets its own rddp_vm.kernel= in the cmdline
#   --ko FILE             out-of-tree module for every guest (repeatable);
#                         installed in /lib/modules/$(uname -r)/updates, depmod'ed
#   --ko-a FILE, --ko-b FILE   the same for guest a or b only
#   --topology one|two    one guest, or two joined by a virtio-net link
#   --pcap FILE           (two) record the link between the guests
#   --wire 'OPTIONS'      (two, User-Mode Linux) impair the link: options
#                         of tools/vm/uml-wire.py serve, e.g. '--loss 2
#                         --reorder 5 --duplicate 1 --delay 5'
#   --links 1|2           (two, User-Mode Linux) links between the guests
#                         (default 1). The second is eth1 in the guests
#                         (198.51.100.1 in a, .2 in b; RDDP_LOCAL_IP2,
#                         RDDP_PEER_IP2), never impaired; with --pcap FILE
#                         its headers go to FILE's name with -link2 before
#                         .pcap. A guest cuts link N (every frame dropped,
#                         both ways) by creating /results/linkN-down and
#                         mends it by removing the file (uml-wire.py --down)
#   --nic                 (one User-Mode Linux guest) an Ethernet interface,
#                         eth0 (192.0.2.1), on a wire to nowhere
#                         (uml-wire.py stub): a network device with a device
#                         behind it in sysfs, which dummy0 lacks (rdma-core's
#                         tests find an RNIC's address through
#                         /sys/class/infiniband/DEV/device/net/)
#   --timeout SECONDS     bound on the test inside the guest (default 600);
#                         the whole VM run is bounded by that plus boot time
#   --name NAME           results in build/vm-results/NAME (default: test name)
#   --kmemleak            (User-Mode Linux's debug kernel) kmemleak on: it
#                         is off there unless asked for (it slows
#                         allocation-heavy tests 2-3 times); qemu's debug
#                         kernel always has it
#   --show-console        copy the guest console to stdout while it runs
#
# Environment (qemu): RDDP_VM_ACCEL (default tcg,thread=multi),
# RDDP_VM_SMP (CPUs, default 2) and RDDP_VM_APPEND (more kernel command
# line, e.g. 'nohz=off'; Documentation/performance.md's latency study).
#
# TEST is a path relative to the repository root (the guest mounts the tree
# read-only at /rddp); it runs under bash with tests/vm/lib.sh available.
# The run fails when a test fails, a guest times out, or the kernel log of
# either guest contains a warning, oops, KASAN/UBSAN/lockdep/hung-task report
# or a kmemleak leak. Last line: `vm-NAME: N passed, N failed, N skipped`.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

kernel=stock kernel_a="" kernel_b="" topology=one timeout=600 name="" pcap="" show=0 wire_opts="" links=1
nic=0
kmemleak=off
kos=() kos_a=() kos_b=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--kernel-a) kernel_a=$2; shift 2 ;;
	--kernel-b) kernel_b=$2; shift 2 ;;
	--ko) kos+=("$2"); shift 2 ;;
	--ko-a) kos_a+=("$2"); shift 2 ;;
	--ko-b) kos_b+=("$2"); shift 2 ;;
	--topology) topology=$2; shift 2 ;;
	--pcap) pcap=$2; shift 2 ;;
	--wire) wire_opts=$2; shift 2 ;;
	--links) links=$2; shift 2 ;;
	--nic) nic=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--kmemleak) kmemleak=on; shift ;;
	--show-console) show=1; shift ;;
	-h | --help) sed -n '4,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) rddp_die "unknown option $1 (--help)" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || rddp_die "usage: run.sh [options] TEST [ARGS...] (--help)"
test=$1
shift
[ -f "$RDDP_TOP/$test" ] || rddp_die "no test script $test (paths are relative to the repo root)"
case $topology in one) roles=(a) ;; two) roles=(a b) ;; *) rddp_die "topology one|two" ;; esac
name=${name:-$(basename "$test" .sh)}

[ "$topology" = two ] || [ -z "$kernel_b" ] || rddp_die "--kernel-b needs --topology two"

# Each guest's kernel, and the bzImage and initramfs it boots.
declare -A gkernel bzimage initrd
gkernel[a]=${kernel_a:-$kernel}
gkernel[b]=${kernel_b:-$kernel}
for r in "${roles[@]}"; do
	case ${gkernel[$r]} in
	stock) bzimage[$r]=/boot/vmlinuz-$(rddp_stock_kver) ;;
	stock-6.12)
		img=$(rddp_612_image) || rddp_die "cannot fetch Debian's 6.12 kernel image"
		bzimage[$r]=$img/boot/vmlinuz-$(rddp_612_kver)
		;;
	debug) bzimage[$r]=$(bash "$RDDP_TOP/tools/kernel/build-debug-kernel.sh")/arch/x86/boot/bzImage ;;
	uml-debug | uml)
		[[ $RDDP_TOP != *[[:space:]]* ]] || rddp_die "User-Mode Linux needs a path without spaces"
		bzimage[$r]=$(bash "$RDDP_TOP/tools/kernel/build-uml-kernel.sh" \
			"$([ "${gkernel[$r]}" = uml ] && echo plain || echo debug)")/linux
		;;
	*) rddp_die "unknown kernel '${gkernel[$r]}' (stock, stock-6.12, debug, uml-debug or uml)" ;;
	esac
	initrd[$r]=$(bash "$RDDP_TOP/tools/vm/mkinitramfs.sh" "${gkernel[$r]}")
done

# Two guests are both qemu guests or both UML instances: each kind has its
# own link (qemu's dgram netdev, below; tools/vm/uml-wire.py).
if [ "$topology" = two ] && [ "${gkernel[a]%%-*}" != "${gkernel[b]%%-*}" ] &&
	{ [[ ${gkernel[a]} == uml* ]] || [[ ${gkernel[b]} == uml* ]]; }; then
	rddp_die "two guests are both User-Mode Linux or both qemu (${gkernel[a]}, ${gkernel[b]})"
fi
# Only uml-wire.py can impair the link.
[ -z "$wire_opts" ] || { [ "$topology" = two ] && [[ ${gkernel[a]} == uml* ]]; } ||
	rddp_die "--wire needs two User-Mode Linux guests"
[ "$nic" = 0 ] || { [ "$topology" = one ] && [[ ${gkernel[a]} == uml* ]]; } ||
	rddp_die "--nic needs one User-Mode Linux guest"
case $links in
1) ;;
2) { [ "$topology" = two ] && [[ ${gkernel[a]} == uml* ]]; } ||
	rddp_die "--links 2 needs two User-Mode Linux guests" ;;
*) rddp_die "--links 1|2" ;;
esac

res="$RDDP_TOP/build/vm-results/$name"
rm -rf "$res"
mkdir -p "$res"
for r in "${roles[@]}"; do
	mkdir -p "$res/ko-$r"
	extra=("${kos[@]}")
	[ "$r" = a ] && extra+=("${kos_a[@]}")
	[ "$r" = b ] && extra+=("${kos_b[@]}")
	for ko in "${extra[@]}"; do
		[ -f "$ko" ] || rddp_die "no module $ko"
		cp "$ko" "$res/ko-$r/"
	done
	{
		echo "export RDDP_TOPOLOGY=$topology RDDP_RESULTS=/results/$r"
		printf 'exec bash %q' "/rddp/$test"
		printf ' %q' "$@"
		echo
	} >"$res/job-$r.sh"
done

# A guest whose kernel never reaches our init within this bound hung in boot
# (seen once in CI under TCG with two guests on two cores, before any rddp
# code had run): the run is repeated once, and reported if it hangs again;
# on the first attempt a console silent for boot_silence seconds before
# init is taken for that hang at once (launch).
boot_timeout=${RDDP_VM_BOOT_TIMEOUT:-300}
boot_silence=${RDDP_VM_BOOT_SILENCE:-120}

# Two qemu guests are linked by a pair of Unix datagram sockets (qemu's
# dgram netdev), one frame per datagram, in a directory of their own (a
# socket's path must stay within 108 bytes, the checkout's may not). Not a
# TCP connection between the two qemus (the socket netdev's listen= and
# connect=): Nagle's algorithm there held every frame sent behind an
# unacknowledged one until the other qemu's host TCP acknowledged it, ~40
# ms with delayed ACKs, so any message of more than one frame took ~40 ms
# (ib_write_lat 4 KiB 24 ms against 64 B's 0.5 ms; an NVMe-oF 4 KiB I/O
# 47 ms, 4.7 ms over datagrams). A frame sent before the other qemu has
# bound its socket is lost, as on a cable not yet plugged in; a full
# receiver holds the sender back (Unix datagram sockets do not drop).
linkdir=""
if [ "$topology" = two ] && [[ ${gkernel[a]} != uml* ]]; then
	linkdir=$(mktemp -d "${TMPDIR:-/tmp}/rddp-link.XXXXXX")
	trap 'rm -rf "$linkdir"' EXIT
fi

# boot_qemu ROLE: one qemu guest in the background.
boot_qemu() {
	local r=$1 net peer
	# TCG unless KVM is asked for: KVM guests hang on these machines.
	accel=${RDDP_VM_ACCEL:-tcg,thread=multi}
	# la57=off: with 5-level paging 6.1's KASAN reports a false "wild-memory-access"
	# when an interrupt hits identify_cpu() while it has cleared the CPU caps
	# (pgtable_l5_enabled() reads X86_FEATURE_LA57). Real hosts are 4-level too.
	# The debug kernel's ACPI PCI routing loop times out under TCG (~35 s).
	# One command line for every guest whatever its kernel (Debian's boots
	# with pci=noacpi too); only rddp_vm.kernel= differs between them.
	# slab_nomerge: each slab cache on its own, so that a test can count
	# one kind of object (tests/vm/netns.sh: struct net).
	# mitigations=off: no retpolines or RSB filling, which TCG emulates
	# at a cost (measured, verbs.sh on the debug kernel: 374-380 s of wall
	# and 500 CPU-s against 395-402 and 540); the guests run only tests.
	cmdline="console=ttyS0 tsc=reliable highres=off panic=-1 oops=panic pci=noacpi slab_nomerge"
	cmdline+=" mitigations=off"
	[ -z "${RDDP_VM_APPEND:-}" ] || cmdline+=" $RDDP_VM_APPEND"
	net=(-nic none)
	if [ "$topology" = two ]; then
		if [ "$r" = a ]; then peer=b; else peer=a; fi
		rm -f "$linkdir/$r"
		net=(-netdev "dgram,id=n0,local.type=unix,local.path=$linkdir/$r,remote.type=unix,remote.path=$linkdir/$peer"
			-device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:0$r")
		[ -n "$pcap" ] && [ "$r" = a ] && net+=(-object "filter-dump,id=d0,netdev=n0,file=$pcap")
	fi
	# Guest watchdog: the test's own timeout; host bound: that plus boot.
	# RDDP_QEMU_NICE: make check runs qemu below UML (tools/check.sh).
	timeout -k 10 $((timeout + 240)) nice -n "${RDDP_QEMU_NICE:-0}" qemu-system-x86_64 \
		-accel "$accel" -cpu max,la57=off -m 2G -smp "${RDDP_VM_SMP:-2}" -nographic -nodefaults -no-reboot \
		-kernel "${bzimage[$r]}" -initrd "${initrd[$r]}" \
		-append "$cmdline rddp_vm.role=$r rddp_vm.kernel=${gkernel[$r]} rddp_vm.timeout=$timeout" \
		-serial "file:$res/console-$r.log" \
		-virtfs "local,path=$RDDP_TOP,mount_tag=rddp,security_model=none,readonly=on" \
		-virtfs "local,path=$res,mount_tag=results,security_model=none" \
		"${net[@]}" </dev/null >"$res/host-$r.log" 2>&1 &
}

# boot_uml ROLE: one User-Mode Linux instance in the background. The kernel
# is a host process: its console (con0) is its stdout, the guest's /rddp and
# /results are hostfs mounts of the same two directories qemu shares over 9p
# (the tree read-only; never the host's /). Its memory file goes to /dev/shm
# and its control socket into the results. kmemleak is off unless
# --kmemleak: in the debug kernel (6.12) it finds leaks as in qemu's (UML
# 6.1's reported hundreds of objects per run that were freed or still in
# use), but tracking every allocation took verbs.sh's test program 61 s
# where it takes 25 (Documentation/testing.md). The plain kernel has none.
#
# Two instances are joined by tools/vm/uml-wire.py (it records the pcap):
# each gets its end of the wire as descriptor 3, UML's vector driver sends
# and receives its frames there (vec0, which guest-init names eth0). With
# --links 2, a second wire is descriptor 4 (vec1, eth1): uml-wire.py
# attach gets one end and executes the next attach, which gets the other.
boot_uml() {
	local r=$1 wire=() pin=()
	mkdir -p "$res/uml-$r"
	# RDDP_UML_CPU=N: the instance and every process it starts on host
	# CPU N only. UML runs each guest syscall as a ptrace stop between two
	# host processes; on one CPU that is a plain context switch, across
	# CPUs a wake-up of an idle CPU, whose cost depends on the host's load
	# (make bench pins for steadier figures).
	[ -n "${RDDP_UML_CPU:-}" ] && pin=(taskset -c "$RDDP_UML_CPU")
	if [ "$topology" = two ]; then
		wire=(python3 "$RDDP_TOP/tools/vm/uml-wire.py" attach "$res" 3)
		set -- "vec0:transport=fd,fd=3,mac=52:54:00:12:34:0$r"
		if [ "$links" = 2 ]; then
			wire+=(python3 "$RDDP_TOP/tools/vm/uml-wire.py" attach "$res/link2" 4)
			set -- "$@" "vec1:transport=fd,fd=4,mac=52:54:00:12:35:0$r"
		fi
	elif [ "$nic" = 1 ]; then
		wire=(python3 "$RDDP_TOP/tools/vm/uml-wire.py" stub 3)
		set -- "vec0:transport=fd,fd=3,mac=52:54:00:12:34:0$r"
	else
		set --
	fi
	TMPDIR=/dev/shm timeout -k 10 $((timeout + 240)) "${pin[@]}" "${wire[@]}" "${bzimage[$r]}" "$@" \
		mem="${RDDP_UML_MEM:-2G}" initrd="${initrd[$r]}" con0=null,fd:1 con=null \
		uml_dir="$res/uml-$r" umid="rddp-$r" panic=-1 oops=panic kmemleak=$kmemleak slab_nomerge \
		rddp_vm.role="$r" rddp_vm.kernel="${gkernel[$r]}" rddp_vm.timeout="$timeout" \
		rddp_vm.top="$RDDP_TOP" rddp_vm.results="$res" \
		rddp_vm.mhz="$(awk '/^cpu MHz/ {print $4; exit}' /proc/cpuinfo)" \
		</dev/null >"$res/console-$r.log" 2>"$res/host-$r.log" &
}

# wire_serve DIR LOG PCAP OPTIONS...: one wire between two UML instances,
# in the background, once it listens on DIR/wire.sock (its pid appended to
# wire_pids); 1 if it never does.
wire_serve() {
	local dir=$1 log=$2 cap=$3 i
	shift 3
	mkdir -p "$dir"
	rm -f "$dir/wire.sock"
	python3 "$RDDP_TOP/tools/vm/uml-wire.py" serve "$@" "$dir" "$cap" 2>"$log" &
	wire_pids+=($!)
	for ((i = 0; i < 100; i++)); do
		[ -S "$dir/wire.sock" ] && return 0
		sleep 0.1
	done
	link_down="uml-wire.py never listened: $(cat "$log")"
	return 1
}
# uml_wire: the wire(s) between two UML instances: link 1 impaired as --wire
# says, with the pcap; link 2 clean, with a pcap of its frames' headers.
uml_wire() {
	rm -f "$res"/link[12]-down
	# shellcheck disable=SC2086 # --wire's options, one word each
	wire_serve "$res" "$res/host-wire.log" "${pcap:-/dev/null}" $wire_opts \
		--down "$res/link1-down" || return 1
	[ "$links" = 2 ] || return 0
	wire_serve "$res/link2" "$res/host-wire2.log" \
		"$([ -n "$pcap" ] && echo "${pcap%.pcap}-link2.pcap" || echo /dev/null)" \
		--snaplen 128 --down "$res/link2-down"
}

# SIGTERM: each wire prints its account (host-wire*.log) and exits.
stop_wires() {
	local p
	for p in "${wire_pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${wire_pids[@]}"; do wait "$p" 2>/dev/null; done
	wire_pids=()
}

# Boots the guests and waits for them; fills vm_rc. Returns 2 on a boot hang,
# 3 when the guests' link never connected (both are killed then).
launch() {
	wire_pids=()
	if [ "$topology" = two ] && [[ ${gkernel[a]} == uml* ]]; then
		uml_wire || { stop_wires; return 3; }
	fi
	for r in "${roles[@]}"; do
		case ${gkernel[$r]} in
		uml*) boot_uml "$r" ;;
		*) boot_qemu "$r" ;;
		esac
		pids+=($!)
	done

	if [ "$show" = 1 ]; then
		tail -n +1 -F "$res/console-a.log" 2>/dev/null &
		tailpid=$!
	fi
	# Boot watchdog: every guest prints RDDP-GUEST-START from its init. On
	# the first attempt an RCU stall before that is taken for the hang
	# itself: the one seen under TCG (a CPU's timer never fires, "rcu_preempt
	# kthread timer wakeup didn't happen") reports its first stall ~21 s
	# into the boot and never reaches init; waiting out the bound cost
	# 300 s of make check's budget. So is a console silent for
	# boot_silence seconds before init: the debug kernel has also stopped
	# under TCG right after "Running RCU-tasks wait API self tests", 1 s
	# into its boot, with no stall report in the 300 s that followed (fc12,
	# 2026-12-02); a healthy boot's longest silence before init is about
	# 10 s, 30 s at a third of a CPU. A second attempt waits the bound.
	local waited=0 hung="" stalled="" r size
	local -A con_size=() con_since=()
	while [ "$waited" -lt "$boot_timeout" ]; do
		hung="" stalled=""
		for r in "${roles[@]}"; do
			grep -q RDDP-GUEST-START "$res/console-$r.log" 2>/dev/null && continue
			hung+="$r "
			size=$(stat -c %s "$res/console-$r.log" 2>/dev/null || echo 0)
			if grep -q 'rcu: INFO: .* detected stalls' "$res/console-$r.log" 2>/dev/null; then
				stalled+="$r "
			elif [ "$size" != "${con_size[$r]:-}" ]; then
				con_size[$r]=$size con_since[$r]=$waited
			elif [ $((waited - con_since[$r])) -ge "$boot_silence" ]; then
				stalled+="$r "
			fi
		done
		[ -z "$hung" ] && break
		[ "$attempt" -lt 2 ] && [ -n "$stalled" ] && break
		sleep 2
		waited=$((waited + 2))
	done
	if [ -n "$hung" ]; then
		for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	fi
	vm_rc=()
	for p in "${pids[@]}"; do
		rc=0
		wait "$p" || rc=$?
		vm_rc+=("$rc")
	done
	[ "$show" = 1 ] && kill "$tailpid" 2>/dev/null
	stop_wires
	if [ -n "$hung" ]; then
		boot_hung=$hung boot_stalled=$stalled
		return 2
	fi
	return 0
}

boot_hung="" boot_stalled="" link_down=""
attempt=1
while :; do
	pids=()
	lrc=0
	launch || lrc=$?
	[ "$lrc" -ge 2 ] && [ "$attempt" -lt 2 ] || break
	if [ "$lrc" -eq 3 ]; then
		echo "# $link_down; booting again" >&2
	else
		if [ -n "$boot_stalled" ]; then
			echo "# guest(s) $boot_stalled stalled (an RCU stall, or ${boot_silence} s of silence) before init; booting again" >&2
		else
			echo "# guest(s) $boot_hung did not reach init in ${boot_timeout}s; booting again" >&2
		fi
	fi
	for r in "${roles[@]}"; do
		mv "$res/console-$r.log" "$res/console-$r.boot-hang.log" 2>/dev/null || true
		rm -rf "${res:?}/$r" "$res"/barrier-* "$res"/listen-*
	done
	attempt=$((attempt + 1))
done

# Kernel reports that fail a run, wherever they appear in a guest's log.
bad_re='WARNING:|BUG:|Oops|KASAN:|UBSAN:|general protection fault|Kernel panic'
bad_re+='|possible circular locking|inconsistent lock state|DEBUG_LOCKS_WARN|possible recursive locking'
bad_re+='|suspicious RCU usage|INFO: task .* blocked for more than|hung_task|soft lockup|hard LOCKUP'
bad_re+='|unreferenced object|Call Trace:|refcount_t:|list_add corruption|list_del corruption'
# A user-space program's fault is logged as "traps: PROG[PID] general
# protection fault ip:... in LIB[...]": not the kernel's (the test that ran
# the program fails on its own), so those lines are left out.
user_fault_re='traps: .*\[[0-9]+\] general protection fault .* in [^ ]+\['

# hang_detail CONSOLE: what a guest that did not finish was stuck in: who
# ended it (the guest's watchdog, which then collects the kernel log, or
# the host's bound), the kernel's first reports, then the call trace of
# the first task it reported blocked (a hung-task report, or
# guest-init.sh's sysrq-w at the timeout) or, if none, of the first CPU
# it reported stuck (a soft lockup), from the top, then the console's last
# lines. A CI log shows a failure's first lines: the last 30 of the
# console were the bottom of a call trace (make check of 2026-12-04).
hang_detail() {
	local con reports trace last=30
	con=$(tr -d '\r' <"$1" 2>/dev/null)
	if grep -q RDDP-GUEST-TIMEOUT <<<"$con"; then
		echo "the guest's watchdog ended the test at ${timeout}s"
	else
		echo "the host's bound ended the guest (its watchdog did not)"
	fi
	# A stuck CPU (a soft lockup, an RCU stall) blocks others' waits.
	reports=$(grep -E "$bad_re|rcu: INFO: .*detected stall" <<<"$con" |
		grep -Ev 'Call Trace:' | sed -E 's/^\[ *[0-9.]+\] //' |
		awk '{ k = $0; gsub(/[0-9]+/, "N", k) } !seen[k]++' |
		head -6 || true)
	[ -z "$reports" ] || printf 'the kernel reported first:\n%s\n' "$reports"
	trace=$(grep -E -m1 -A28 'blocked for more than|state:D ' <<<"$con" || true)
	if [ -n "$trace" ]; then
		echo "the first task reported blocked:"
	else
		# The stuck CPU's frames, without the stale ones ("? ").
		trace=$(grep -E -m1 -A60 'soft lockup' <<<"$con" | sed -n '/Call Trace:/,/<\/TASK>/p' |
			grep -Ev '\] +\? ' | head -24 || true)
		[ -z "$trace" ] || echo "the first CPU reported stuck, its call trace:"
	fi
	if [ -n "$trace" ]; then
		printf '%s\n' "$trace"
		echo "the console's last lines:"
		last=12
	fi
	tail -"$last" <<<"$con"
}

pass=0 fail=0 skip=0 n=0
report() { # ok|not ok|skip, NAME, [DETAIL]
	n=$((n + 1))
	case $1 in
	ok) pass=$((pass + 1)); echo "ok $n - $2" ;;
	skip) skip=$((skip + 1)); echo "ok $n - $2 # SKIP ${3:-}" ;;
	*) fail=$((fail + 1)); echo "not ok $n - $2"; [ -n "${3:-}" ] && printf "%s\n" "$3" | sed "s/^/#   /" ;;
	esac
	return 0
}

i=0
for r in "${roles[@]}"; do
	prefix=
	[ "$topology" = two ] && prefix="$r: "
	con="$res/console-$r.log"
	tap="$res/$r/tap.txt"
	# Tests' own results, renumbered.
	if [ -f "$tap" ]; then
		while IFS= read -r line; do
			case $line in
			"ok "*"# SKIP"*)
				t=${line#ok * - }
				report skip "$prefix${t%% # SKIP*}" "${t#*# SKIP }" ;;
			"ok "*) report ok "$prefix${line#ok * - }" ;;
			"not ok "*) report "not ok" "$prefix${line#not ok * - }" ;;
			"#"*) echo "$line" ;;
			esac
		done <"$tap"
	fi
	if [ "$lrc" -eq 3 ]; then
		report "not ok" "${prefix}guests linked (twice not)" "$link_down"
	elif [[ " $boot_hung " == *" $r "* ]] && [ "$lrc" -eq 2 ]; then
		report "not ok" "${prefix}guest booted (twice no init within ${boot_timeout}s)" "$(tail -30 "$con" 2>/dev/null)"
	elif [ "${vm_rc[$i]}" -eq 124 ] || [ "${vm_rc[$i]}" -eq 137 ] || grep -q RDDP-GUEST-TIMEOUT "$con" 2>/dev/null; then
		report "not ok" "${prefix}guest finished in time (${timeout}s)" "$(hang_detail "$con")"
	elif ! grep -q RDDP-GUEST-DONE "$con" 2>/dev/null; then
		report "not ok" "${prefix}guest ran to the end" "$(tail -40 "$con" 2>/dev/null; cat "$res/host-$r.log")"
	elif ! grep -q 'RDDP-GUEST-DONE rc=0' "$con"; then
		# A script that dies partway (a shell error, an exit) skips the rest.
		report "not ok" "${prefix}guest ran to the end (the test script exited $(sed -nE \
			's/.*RDDP-GUEST-DONE rc=([0-9]+).*/\1/p' "$con" | tail -1))" "$(tail -20 "$con")"
	elif [ ! -s "$tap" ]; then
		report "not ok" "${prefix}test reported results" "no TAP in $tap"
	else
		report ok "${prefix}guest ran to the end"
	fi
	bad=$(cat "$con" "$res/$r/dmesg.txt" 2>/dev/null | tr -d '\r' | grep -E "$bad_re" |
		grep -Ev "$user_fault_re" | sort -u | head -20 || true)
	if [ -n "$bad" ]; then
		# The first report's own lines (its call trace) follow: a failure
		# seen once, in a CI log, is then still a lead.
		trace=$(cat "$res/$r/dmesg.txt" "$con" 2>/dev/null | tr -d '\r' |
			grep -F -m1 -A30 -- "$(head -1 <<<"$bad")" | tail -n +2 || true)
		report "not ok" "${prefix}kernel log clean" "$bad
${trace:+its next lines:
$trace
}(full logs: $con, $res/$r/dmesg.txt)"
	else
		report ok "${prefix}kernel log clean"
	fi
	i=$((i + 1))
done

echo "vm-$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
