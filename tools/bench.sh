#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: rddp beside siw in the same run, as ratios rddp/siw
# (bandwidth: higher is better for rddp above 1; latency: lower is better
# for rddp below 1), in two places that answer different questions:
#  - qemu (TCG; BENCH_QEMU=0 skips it): one guest over dummy0
#    (tests/vm/bench-one.sh, as in UML below), then two guests over
#    virtio-net (tests/vm/bench.sh), BENCH_QEMU_ROUNDS rounds each
#    (default 3):
#    SMP x86 guests and a real link, but every instruction emulated, so
#    only the ratios carry meaning; then storage across the two guests
#    (BENCH_STORAGE=0 skips it; tests/vm/storage-two.sh: the targets in
#    one guest, fio in the other; storage_two_guests below), the table
#    and ratios of tools/storage-report.py in build/bench/storage-qemu2.md;
#  - qemu on Linux 6.12 (BENCH_612=0 skips it, BENCH_612=1 runs it even
#    with BENCH_QEMU=0): the one-guest series on
#    Debian's 6.12 image (Debian 13's and RHEL 10's line) with siw built
#    from linux-source-6.12, BENCH_QEMU_ROUNDS rounds: rddp-nocrc's
#    zero-copy TX goes through MSG_SPLICE_PAGES there, sendpage on 6.1
#    (kmod/compat.h), so its ratio to siw on each kernel is that path's
#    figure;
#  - User-Mode Linux over dummy0 (tests/vm/bench-one.sh, BENCH_UML=0 skips
#    it): kernel code at native CPU speed on one CPU, the cost of each
#    driver's kernel path; an instance per driver and round (a boot takes a
#    second), medians of BENCH_ROUNDS rounds (default 3), the drivers
#    (rddp, rddp without CRC, rddp over SCTP, siw, and TCP: iperf3 over
#    the same path) alternating; perftest, then rddp-bench; then storage
#    (BENCH_STORAGE=0 skips it, BENCH_STORAGE=only runs the storage
#    series alone, this one and the two qemu guests': `BENCH_QEMU=0
#    BENCH_STORAGE=only make bench` this one only; BENCH_STORAGE_SECS
#    seconds a job, default 3; tests/vm/storage.sh): NVMe-oF, NFSv4.2 and
#    iSCSI with fio over rddp, rddp without CRC, siw, and over TCP
#    (NVMe/TCP, NFS/TCP, iSCSI/TCP), the table and ratios of
#    tools/storage-report.py in build/bench/storage-uml.md.
# rddp over SCTP (rddp-sctp: `rddpctl dev set rddp0 transport sctp`, DDP
# over SCTP, no MPA and so no MPA CRC) runs in every place beside rddp
# over TCP and siw (which has no SCTP); the tables add its ratios to siw
# and to rddp over TCP, with and without its CRC.
# rddp-bench's and iperf3's JSON per place, driver and round go to
# build/bench/WHERE-DRIVER-ROUND.json (WHERE: uml, qemu1, qemu2, qemu612), which
# tools/bench-report.py tabulates and plots (build/bench/report-WHERE.md,
# build/bench/plots/WHERE-{bandwidth,latency}.png).
# BENCH=quick (make check): one UML round of every series, briefly, on
# the debug UML kernel the check has built (BENCH_UML_KERNEL), and only a
# check that every instance passed (rddp-sctp's with rddp's, and its
# checks that its traffic went over SCTP) and every driver has every
# series: no figure is judged. Its last line counts those checks. BENCH_BUILD=0: the
# caller has built the module and the programs.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

# table FILE: "DRIVER TEST SIZE VALUE UNIT" lines, side by side per driver
# (the median where a test ran several times), with ratios to siw and
# rddp-sctp's to rddp over TCP (with its CRC, and without: SCTP carries no
# MPA CRC); "-" where a driver has no figure.
table() {
	printf '%-14s %8s %14s %14s %14s %14s %9s %9s %9s %10s %10s\n' test size rddp rddp-nocrc \
		rddp-sctp siw rddp/siw nocrc/siw sctp/siw sctp/rddp sctp/nocrc
	awk '
	function ratio(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	function median(d, k,    n, i, j, t, v) {
		n = cnt[d, k]
		if (!n) return "?"
		for (i = 1; i <= n; i++) v[i] = vals[d, k, i] + 0
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$4 ~ /^[0-9.]+$/ && $4 + 0 > 0 {
		key = $2 " " $3; vals[$1, key, ++cnt[$1, key]] = $4; unit[key] = $5
		if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	}
	END {
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, p, " "); u = unit[k] == "us" ? "us" : "MB/s"
			r = median("rddp", k); z = median("rddp-nocrc", k); s = median("siw", k)
			c = median("rddp-sctp", k)
			printf "%-14s %8s %9s %-4s %9s %-4s %9s %-4s %9s %-4s %9s %9s %9s %10s %10s\n",
				p[1], p[2], r, u, z, u, c, u, s, u,
				ratio(r, s), ratio(z, s), ratio(c, s), ratio(c, r), ratio(c, z)
		}
	}' "$1"
}

rc=0
mode=full rounds=${BENCH_ROUNDS:-3} qemu=${BENCH_QEMU:-1} uml=${BENCH_UML_KERNEL:-uml}
if [ "${BENCH:-}" = quick ]; then
	mode=quick rounds=1 qemu=${BENCH_QEMU:-0} uml=${BENCH_UML_KERNEL:-uml-debug}
fi
build=${BENCH_BUILD:-1}
# A quick run's JSON and report do not replace a full run's.
out=build/bench
[ "$mode" = full ] || out=build/bench/quick
[ "$build" = 0 ] || make -s userspace
passed=0 failed=0
count() { # RC: one check passed (0) or failed
	if [ "$1" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)) rc=1; fi
}
# Debian's python3 (python3-matplotlib, make deps), not a PATH's other one.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
# rddp-sctp: rddp0's connections over DDP over SCTP (draft-ietf-rddp-sctp;
# siw has no SCTP).
drivers=(rddp rddp-nocrc rddp-sctp siw tcp)
mkdir -p "$out" build/vm-results

# Host CPU contention. The guests' vCPUs are host threads, and this host
# (HZ=250, no preemption) lets a vCPU woken while the host's cores are
# busy wait for the next host tick: round trips then take 4 ms (measured:
# with one or two busy loops on the host, 3-45 % of rddp's and siw's 64 B
# round trips in a TCG guest wait 4 ms, siw's ib_write_lat 99.9 %; none on
# an idle host, whatever the guest's highres, nohz or idle settings). So
# each instance starts once the host is quiet (PSI: CPU pressure "some"
# below 10 % over 10 s, 60 s at most), and the share of its time that host
# tasks waited for a CPU goes to $out/pressure-WHERE.txt and the report.
psi_total() { # µs that some host task waited for a CPU, since boot
	awk '$1 == "some" { sub("total=", "", $5); print $5; f = 1 } END { if (!f) print 0 }' \
		/proc/pressure/cpu 2>/dev/null || echo 0
}
quiet_host() {
	for _ in $(seq 60); do
		awk '$1 == "some" { sub("avg10=", "", $2); exit !($2 < 10) }' /proc/pressure/cpu \
			2>/dev/null && return 0
		[ -r /proc/pressure/cpu ] || return 0
		sleep 1
	done
	echo "# the host stayed busy for 60 s ($(head -1 /proc/pressure/cpu)): starting anyway" >&2
}
# run_instance WHERE LABEL RUN-ARGS...: tools/vm/run.sh once the host is
# quiet; records the host's CPU pressure during it. Returns run.sh's status.
run_instance() {
	local where=$1 label=$2 t0 p0 t1 p1 r=0
	shift 2
	[ "$mode" = quick ] || quiet_host
	t0=$(date +%s%N) p0=$(psi_total)
	bash tools/vm/run.sh "$@" || r=$?
	t1=$(date +%s%N) p1=$(psi_total)
	awk -v l="$label" -v p=$((p1 - p0)) -v t=$(((t1 - t0) / 1000)) \
		'BEGIN { printf "%s %.1f\n", l, (t > 0 ? 100 * p / t : 0) }' >>"$out/pressure-$where.txt"
	return "$r"
}

# pressure_note WHERE WHAT: the host's CPU pressure per instance of WHERE
# (run_instance's record) as a paragraph for a report, "Host CPU pressure
# during each WHAT: LABEL N %, ..."; nothing if none was recorded.
pressure_note() {
	[ -s "$out/pressure-$1.txt" ] || return 0
	echo
	echo "Host CPU pressure during each $2: $(awk '{ printf "%s%s %s %%", (NR > 1 ? ", " : ""), $1, $2 }' \
		"$out/pressure-$1.txt")."
}

# report WHERE DRIVER...: rddp-bench's and iperf3's JSON of WHERE as
# $out/report-WHERE.md and plots, every DRIVER required; ratios to siw,
# and rddp-sctp's to rddp over TCP (with and without its CRC).
report() {
	local where=$1 st=0
	shift
	echo "== rddp-bench and iperf3 ($where; $out/report-$where.md)"
	"$py" tools/bench-report.py --plots "$out/plots" --require "$(IFS=,; echo "$*")" \
		--ratio rddp-sctp/rddp,rddp-sctp/rddp-nocrc \
		"$out/$where"-*.json >"$out/report-$where.md" || st=$?
	pressure_note "$where" "instance (% of its time some host task
waited for a CPU; above a few percent, latency figures include 4 ms host
ticks)" >>"$out/report-$where.md"
	cat "$out/report-$where.md"
	count "$st"
}

# one_guest WHERE KERNEL ROUNDS MODE RUN-ARGS...: ROUNDS rounds of one
# instance per driver (tests/vm/bench-one.sh DRIVER MODE), the drivers
# alternating; perftest's medians, then the report. A quick run has
# rddp-sctp's series in rddp's instance (bench-one.sh rddp+rddp-sctp):
# make check's budget has no room for another boot.
one_guest() {
	local where=$1 kernel=$2 n=$3 m=$4 round inst insts drv name r json all
	shift 4
	all=build/vm-results/bench-$where.txt
	: >"$all"
	rm -f "$out/$where"-*.json "$out/plots/$where"-*.png "$out/pressure-$where.txt"
	: >"build/vm-results/bench-$where.log"
	insts=("${drivers[@]}")
	[ "$m" = quick ] && insts=(rddp+rddp-sctp rddp-nocrc siw tcp)
	for round in $(seq "$n"); do
		for inst in "${insts[@]}"; do
			name=bench-$where-$round-$inst
			rddp_log "$where, round $round of $n: $inst"
			r=0
			run_instance "$where" "$round-$inst" --kernel "$kernel" --name "$name" \
				--timeout 1800 "$@" tests/vm/bench-one.sh "$inst" "$m" \
				>>"build/vm-results/bench-$where.log" 2>&1 || r=$?
			count "$r"
			cat "build/vm-results/$name/a/bench.txt" >>"$all" 2>/dev/null ||
				echo "# round $round, $inst: no results" >&2
			for drv in ${inst//+/ }; do
				json=rddp-bench-$drv.json
				[ "$drv" = tcp ] && json=iperf3.json
				cp "build/vm-results/$name/a/$json" "$out/$where-$drv-$round.json" \
					2>/dev/null || echo "# round $round, $drv: no $json" >&2
			done
			[ "$inst" = tcp ] || continue
			for t in tcp sctp; do # bare sockets (bench-one.sh)
				cp "build/vm-results/$name/a/socket-$t.json" \
					"$out/$where-$t-socket-$round.json" 2>/dev/null ||
					echo "# round $round: no socket-$t.json" >&2
			done
		done
	done
	[ -s "$all" ] || { tail -30 "build/vm-results/bench-$where.log"; rddp_die "no results ($all)"; }
	echo "== $where: perftest, one instance per driver and round over dummy0 (medians of $n)"
	table <(grep -v '^tcp ' "$all") # iperf3's rates: the report's TCP table
	grep -E '^vm-bench' "build/vm-results/bench-$where.log" || true
	report "$where" "${drivers[@]}"
}

# two_guests ROUNDS: ROUNDS boots of two qemu guests (tests/vm/bench.sh:
# iperf3, then rddp, rddp without CRC, rddp over SCTP and siw in turn in
# each boot);
# perftest's medians, then the report.
two_guests() {
	local n=$1 round name r drv all=build/vm-results/bench-qemu2.txt
	: >"$all"
	rm -f "$out"/qemu2-*.json "$out"/plots/qemu2-*.png "$out/pressure-qemu2.txt"
	: >build/vm-results/bench-qemu2.log
	for round in $(seq "$n"); do
		name=bench-qemu2-$round
		rddp_log "two qemu guests (TCG), round $round of $n: iperf3, rddp, rddp without CRC," \
			"rddp over SCTP, siw"
		r=0
		run_instance qemu2 "$round" --kernel stock --topology two --name "$name" --timeout 2400 \
			--ko build/kmod-stock/rddp.ko --ko-b "$ko" --ko-a "$ko" tests/vm/bench.sh \
			>>build/vm-results/bench-qemu2.log 2>&1 || r=$?
		count "$r"
		cat "build/vm-results/$name/b/bench.txt" >>"$all" 2>/dev/null ||
			echo "# two qemu guests, round $round: no results" >&2
		for drv in rddp rddp-nocrc rddp-sctp siw; do
			cp "build/vm-results/$name/b/rddp-bench-$drv.json" "$out/qemu2-$drv-$round.json" ||
				echo "# two qemu guests, round $round, $drv: no rddp-bench JSON" >&2
		done
		cp "build/vm-results/$name/b/iperf3.json" "$out/qemu2-tcp-$round.json" ||
			echo "# two qemu guests, round $round: no iperf3 JSON" >&2
	done
	[ -s "$all" ] || { tail -30 build/vm-results/bench-qemu2.log; rddp_die "no results ($all)"; }
	echo "== two qemu guests over virtio-net (TCG; perftest, medians of $n)"
	table <(grep -v '^tcp ' "$all")
	grep -E '^vm-bench' build/vm-results/bench-qemu2.log || true
	report qemu2 "${drivers[@]}"
}

# storage_collect NAME ALL DIR ROUND LABEL: instance NAME's storage lines
# appended to ALL, its fio JSON copied to DIR with -ROUND before .json;
# LABEL names it when it left no lines.
storage_collect() {
	local res=build/vm-results/$1/a f
	cat "$res/storage.txt" >>"$2" 2>/dev/null || echo "# $5: no results" >&2
	for f in "$res"/storage-*.json; do
		[ -e "$f" ] || continue
		f=${f##*/}
		cp "$res/$f" "$3/${f%.json}-$4.json"
	done
}

# storage_one_guest WHERE KERNEL ROUNDS MODE RUN-ARGS...: storage as users
# run it (tests/vm/storage.sh DRIVER MODE: NVMe-oF, NFSv4.2 and iSCSI with
# fio) over rddp, rddp without CRC and siw, and over TCP (NVMe/TCP,
# NFS/TCP, iSCSI/TCP), an instance per driver and round, the drivers
# alternating; tools/storage-report.py's table of the medians with the
# ratios to siw and to TCP ($out/storage-WHERE.md), its Google Benchmark
# JSON ($out/storage-WHERE.json) and a plot ($out/plots/storage-WHERE.png).
# Each instance runs on one host CPU (RDDP_UML_CPU, default 1): unpinned,
# a ptrace stop between UML's kernel and fio may cross CPUs, and the same
# job's CPU per I/O varied tenfold with the host's scheduling
# (Documentation/performance.md, "Storage").
storage_one_guest() {
	local where=$1 kernel=$2 n=$3 m=$4 round drv name r all st=0
	shift 4
	all=build/vm-results/storage-$where.txt
	: >"$all"
	: >"build/vm-results/storage-$where.log"
	rm -rf "$out/storage-$where" && mkdir -p "$out/storage-$where" "$out/plots"
	bash tools/vm/fio.sh >/dev/null
	for round in $(seq "$n"); do
		for drv in rddp rddp-nocrc siw tcp; do
			name=storage-$where-$round-$drv
			rddp_log "storage, $where, round $round of $n: $drv"
			r=0
			RDDP_UML_CPU=${RDDP_UML_CPU:-1} \
				run_instance "storage-$where" "$round-$drv" --kernel "$kernel" --name "$name" \
				--timeout 1800 "$@" tests/vm/storage.sh "$drv" "$m" "${BENCH_STORAGE_SECS:-3}" \
				>>"build/vm-results/storage-$where.log" 2>&1 || r=$?
			count "$r"
			storage_collect "$name" "$all" "$out/storage-$where" "$round" "storage, round $round, $drv"
		done
	done
	"$py" tools/storage-report.py --where "$where" --require rddp,rddp-nocrc,siw,tcp \
		--json "$out/storage-$where.json" --plot "$out/plots/storage-$where.png" "$all" \
		>"$out/storage-$where.md" || st=$?
	cat "$out/storage-$where.md"
	count "$st"
}

# storage_two_guests ROUNDS SECS: the same storage series across two qemu
# guests (TCG, Debian's 6.1) over virtio-net, the targets in guest b, fio
# in guest a (tests/vm/storage-two.sh): a pair of guests per driver and
# round (rddp, rddp without CRC, siw, TCP), each started once the host is
# quiet and its host CPU pressure recorded, the order starting one driver
# further each round; each workload SECS seconds on a 16 MiB region. One
# boot per driver, not the four in turn in one boot (which
# storage-two.sh can do): under TCG the host's load moves every figure,
# and a boot's pressure then belongs to one driver (a boot of the pair
# costs about 25 s). CPU per I/O is both guests' busy time over each
# job, summed. tools/storage-report.py --where qemu2:
# $out/storage-qemu2.md, .json and $out/plots/storage-qemu2.png, with the
# host's CPU pressure per instance, and (--cpu, each round's CPU split)
# each guest's IP transmits and TCP segments per I/O.
storage_two_guests() {
	local n=$1 secs=$2 round name r k drv st=0 all=build/vm-results/storage-qemu2.txt
	local drvs=(rddp rddp-nocrc siw tcp) order cpus=() f
	: >"$all"
	: >build/vm-results/storage-qemu2.log
	rm -rf "$out/storage-qemu2" "$out/pressure-storage-qemu2.txt"
	mkdir -p "$out/storage-qemu2" "$out/plots"
	bash tools/vm/fio.sh >/dev/null
	for round in $(seq "$n"); do
		k=$(((round - 1) % ${#drvs[@]}))
		order=("${drvs[@]:k}" "${drvs[@]:0:k}")
		for drv in "${order[@]}"; do
			name=storage-qemu2-$round-$drv
			rddp_log "storage, two qemu guests (TCG), round $round of $n: $drv"
			r=0
			run_instance storage-qemu2 "$round-$drv" --kernel stock --topology two \
				--name "$name" --timeout 900 --ko build/kmod-stock/rddp.ko --ko "$ko" \
				tests/vm/storage-two.sh "$drv" full "$secs" \
				>>build/vm-results/storage-qemu2.log 2>&1 || r=$?
			count "$r"
			storage_collect "$name" "$all" "$out/storage-qemu2" "$round" \
				"storage, two qemu guests, round $round, $drv"
			cp "build/vm-results/$name/a/storage-cpu.txt" \
				"$out/storage-qemu2/cpu-$drv-$round.txt" 2>/dev/null || true
		done
	done
	grep -E '^vm-storage' build/vm-results/storage-qemu2.log || true
	for f in "$out"/storage-qemu2/cpu-*.txt; do
		[ -e "$f" ] || continue
		cpus+=(--cpu "$f")
	done
	"$py" tools/storage-report.py --where qemu2 --require rddp,rddp-nocrc,siw,tcp \
		--json "$out/storage-qemu2.json" --plot "$out/plots/storage-qemu2.png" "${cpus[@]}" "$all" \
		>"$out/storage-qemu2.md" || st=$?
	pressure_note storage-qemu2 "instance, ROUND-DRIVER (% of its time some
host task waited for a CPU)" >>"$out/storage-qemu2.md"
	cat "$out/storage-qemu2.md"
	count "$st"
}

# bench-one.sh's mode in a qemu guest, where every instruction is emulated.
qemu_mode=short
[ "$mode" = quick ] && qemu_mode=quick
# BENCH_STORAGE=only: the storage series alone (UML's and, unless
# BENCH_QEMU=0, the two qemu guests'); 0: none of them.
storage=${BENCH_STORAGE:-1}
[ "$mode" = full ] || storage=0
if [ "$qemu" = 1 ]; then
	[ "$build" = 0 ] || make -s kmod-stock
	ko=$(bash tools/vm/build-siw.sh)
	if [ "$storage" != only ]; then
		rddp_log "one qemu guest (TCG) over dummy0: ${drivers[*]}"
		one_guest qemu1 stock "${BENCH_QEMU_ROUNDS:-3}" "$qemu_mode" --ko build/kmod-stock/rddp.ko --ko "$ko"
		two_guests "${BENCH_QEMU_ROUNDS:-3}"
	fi
	if [ "$storage" != 0 ]; then
		rddp_log "two qemu guests (TCG): storage, ${BENCH_QEMU_ROUNDS:-3} rounds of rddp rddp-nocrc siw tcp"
		# 2 s jobs: a round of 3 s ones took 18 min on 2 loaded host cores.
		storage_two_guests "${BENCH_QEMU_ROUNDS:-3}" "${BENCH_STORAGE_SECS:-2}"
	fi
fi
if [ "${BENCH_612:-$qemu}" = 1 ] && [ "$storage" != only ]; then
	[ "$build" = 0 ] || make -s kmod-stock-6.12
	ko612=$(bash tools/vm/build-siw.sh stock-6.12)
	rddp_log "one qemu guest (TCG) on Linux 6.12 over dummy0: ${drivers[*]}"
	one_guest qemu612 stock-6.12 "${BENCH_QEMU_ROUNDS:-3}" "$qemu_mode" \
		--ko build/kmod-stock-6.12/rddp.ko --ko "$ko612"
fi

if [ "${BENCH_UML:-1}" = 1 ]; then
	[ "$build" = 0 ] || make -s "kmod-$uml"
	if [ "$storage" != only ]; then
		rddp_log "User-Mode Linux ($uml), one instance per run: $rounds rounds of ${drivers[*]} ($mode)"
		one_guest uml "$uml" "$rounds" "$mode" --ko "build/kmod-$uml/rddp.ko"
	fi
	# Storage (make bench only: make check has its smoke, uml-debug-storage).
	if [ "$storage" != 0 ]; then
		rddp_log "User-Mode Linux ($uml): storage, $rounds rounds of rddp rddp-nocrc siw tcp"
		storage_one_guest uml "$uml" "$rounds" full --ko "build/kmod-$uml/rddp.ko"
	fi
fi
[ "$mode" = full ] || echo "bench: $passed passed, $failed failed, 0 skipped"
exit "$rc"
