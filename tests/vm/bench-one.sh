#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`, one round of one driver in one guest (run under User-Mode
# Linux by tools/bench.sh: kernel code at native speed, one CPU): perftest
# server and client in the same guest over dummy0, then rddp-bench in
# loopback. DRIVER (the first argument) is rddp (its defaults, CRC on),
# rddp-nocrc (mpa_crc=0), rddp-sctp (rddp0's connections over DDP over
# SCTP, draft-ietf-rddp-sctp-00: no MPA, so no MPA CRC; SCTP's own CRC32c
# covers each packet), siw (its defaults: no CRC) or tcp: iperf3 over
# the same path (a TCP connection to the guest's own address), the
# ceiling a socket reaches, at rddp-bench's bandwidth sizes, and bare TCP
# and SCTP sockets' setup rate and memory (rddp_sock_setup:
# $RDDP_RESULTS/socket-tcp.json, socket-sctp.json). Results go
# to $RDDP_RESULTS/bench.txt as "DRIVER TEST SIZE VALUE UNIT" lines,
# rddp-bench's to $RDDP_RESULTS/rddp-bench-DRIVER.json and iperf3's (tcp) to
# $RDDP_RESULTS/iperf3.json (a JSON array of iperf3 -J documents);
# tools/bench.sh boots one instance per driver and round, the drivers
# alternating, and takes the medians. DRIVER rddp+rddp-sctp runs both
# series in one boot, rddp's then rddp-sctp's on the same rddp0 (make
# check's quick run, which has no time for a boot of its own for SCTP).
# The module is never unloaded:
# power-off ends the round. With the second argument `quick` (BENCH=quick,
# make check) every series runs briefly: a smoke run, its figures noise;
# `short`: fewer sizes (make bench's qemu guest, where all is emulated).
# UML has no preemption, so busy-polling latency tests measure the scheduler
# tick: latency runs with -e (completion events).
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

drv=${1:?usage: bench-one.sh rddp|rddp-nocrc|rddp-sctp|rddp+rddp-sctp|siw|tcp [full|short|quick]}
mode=${2:-full}
ctl=/rddp/build/cmake/userspace/rddpctl/rddpctl
out=$RDDP_RESULTS/bench.txt
: >"$out"
ip=198.51.100.1
t_run "setup_dummy" setup_dummy

# Message sizes of rddp-bench's bandwidth runs and of iperf3's writes (the
# plots' x axis), latency sizes, and the time per benchmark.
# Memory per QP is read at these connection counts (each with a QP at
# both ends in loopback).
if [ "$mode" = quick ]; then
	bw_sizes=4K,64K lat_sizes=64 min_time=0.05 iters=100 tcp_secs=1 mem_qps=100 conns=100
elif [ "$mode" = short ]; then # make bench's qemu guest: every instruction emulated
	bw_sizes=4K,64K,1M lat_sizes=64 min_time=0.2 iters=1000 tcp_secs=2 mem_qps=100,1000 conns=300
else
	bw_sizes=64,256,1K,4K,16K,64K,256K,1M lat_sizes=64,1K,16K min_time=0.3 iters=1000 tcp_secs=2
	mem_qps=1,100,1000 conns=300
fi

# iperf3 over the same path, one run per size (lib.sh's iperf3_client).
if [ "$drv" = tcp ]; then
	docs=()
	for size in ${bw_sizes//,/ }; do
		bytes=${size//K/*1024}
		bytes=$((${bytes//M/*1048576}))
		t_run "iperf3 server" iperf3 -s -D -1 -B "$ip" --logfile /tmp/iperf3-s.log
		t_port_listening 5201 5 || t_fail "iperf3 server listening on port 5201"
		iperf3_client "$ip" "$bytes" "$tcp_secs" "$out"
		docs+=("/tmp/iperf3-$bytes.json")
	done
	iperf3_gather "$RDDP_RESULTS/iperf3.json" "${docs[@]}"
	# Bare sockets, no rddp: what a TCP connection and an SCTP
	# association cost to set up and hold, the floor under rddp-bench's
	# connect and qp_memory (rddp_sock_setup, the same JSON keys).
	t_run "modprobe sctp hmac md5" modprobe -a sctp hmac md5
	for t in tcp sctp; do
		t_run "$t-socket: setup rate and memory at $mem_qps connections" sh -c \
			"timeout 300 /rddp/build/cmake/userspace/bench/rddp_sock_setup $t --address $ip \
			--connects $conns --hold $mem_qps >$RDDP_RESULTS/socket-$t.json"
		t_run "$t-socket JSON: a setup rate and memory per connection end" jq -e \
			'(.benchmarks[0].connects_per_second > 0) and
			 ([.benchmarks[1:][] | .kernel_kib_per_qp | numbers] | length > 0)' \
			"$RDDP_RESULTS/socket-$t.json"
	done
	exit 0
fi

# load DRV: the driver's module and device (rddp-sctp: rddp0, then SCTP).
load() {
	local mod params=()
	case $1 in
	rddp | rddp-sctp) mod=rddp dev=rddp0 ;;
	rddp-nocrc) mod=rddp dev=rddp0 params=(mpa_crc=0) ;;
	siw) mod=siw dev=siw0 ;;
	*) t_fail "no driver '$1' (rddp, rddp-nocrc, rddp-sctp, siw)"; exit 1 ;;
	esac
	if ! [ -e "/sys/class/infiniband/$dev" ]; then
		t_run "modprobe $mod ${params[*]}" modprobe "$mod" "${params[@]}"
		t_run "rdma link add $dev" rdma link add "$dev" type "$mod" netdev dummy0
	fi
	perf_sctp=0 # lib.sh's perf_local_pair: wait for the SCTP listener too
	[ "$1" = rddp-sctp ] || return 0
	# SCTP and its cookie HMAC before the first listen (as sctp-two.sh;
	# Documentation/testing.md), then every connection rddp0 initiates
	# goes over SCTP (its listeners take both).
	perf_sctp=1
	t_run "modprobe sctp hmac md5" modprobe -a sctp hmac md5
	t_run "rddpctl dev set rddp0 transport sctp" $ctl dev set rddp0 transport sctp
	t_like "rddpctl dev show rddp0: transport sctp" ' transport sctp( |$)' $ctl dev show rddp0
}

# perftest DRV: perftest's series on $dev, a "DRV TEST SIZE VALUE UNIT"
# line each.
perftest() {
	local drv=$1 t try r v unit
	for t in "ib_write_bw 65536" "ib_read_bw 65536" "ib_send_bw 65536" \
		"ib_write_bw 4096" "ib_read_lat 64 -e" "ib_send_lat 64 -e"; do
		set -- $t
		# perftest calibrates its cycle counter against gettimeofday(),
		# which UML emulates through ptrace: under host load the fit
		# fails now and then and the run reports 0.00 (bandwidth) or inf
		# (latency). Such a run is repeated, three runs at most.
		for try in 1 2 3; do
			r=$(perf_local_pair "$dev" "$ip" "$1" -s "$2" "${@:3}" -n "$iters" |
				tee -a /tmp/bench-c.log | perf_row)
			case $1 in
			*_bw) v=$(awk '{print $4}' <<<"$r") unit=MB/s ;;
			*) v=$(awk '{print $5}' <<<"$r") unit=us ;;
			esac
			[[ ${v:-} =~ ^[0-9]*\.?[0-9]+$ ]] &&
				awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' && break
			echo "# $drv $1 $2: no rate (${v:-?}), run $try; its last lines:"
			tail -8 /tmp/bench-c.log | sed 's/^/#   /'
		done
		echo "$drv $1 $2 ${v:-?} $unit" >>"$out"
		if [ "$mode" = quick ] && ! [[ ${v:-} =~ [1-9] ]]; then
			# A quick run judges no figure: under a loaded host
			# (make check) perftest's clock fit fails more often.
			t_skip "$drv $1 $2: ${v:-?} $unit" "perftest measured no rate (its clock calibration)"
			continue
		fi
		t_like "$drv $1 $2: ${v:-?} $unit" '^[0-9.]*[1-9][0-9.]*$' echo "${v:-}"
	done
}

# rddp_bench DRV: rddp-bench (userspace/rddp-bench) on the same device:
# Write, Read and Send bandwidth over the sizes above (queue depth 16, one
# QP), latency (p50/p99/p99.9), the connection setup rate and memory per
# QP, as Google Benchmark JSON ($RDDP_RESULTS/rddp-bench-DRV.json) that
# tools/bench.sh collects under build/bench/ and tools/bench-report.py
# tabulates and plots.
# siw refuses ibv_create_cq (EAGAIN) before 100 loopback connections in
# our guests (UML and qemu), so its qp_memory benchmarks may fail: reported
# as skipped, every other benchmark still counts (the report shows no
# memory for it).
rddp_bench() {
	local drv=$1 name
	json=$RDDP_RESULTS/rddp-bench-$drv.json
	name="$drv rddp-bench: bw $bw_sizes, latency $lat_sizes, setup rate, memory at $mem_qps QPs"
	_t_exec "$name" timeout 900 /rddp/build/cmake/userspace/rddp-bench/rddp-bench --loopback $ip \
		--sizes "$bw_sizes" --lat-sizes "$lat_sizes" --tests bw,lat,conn,mem --mem-qps "$mem_qps" \
		--benchmark_min_time="$min_time" --benchmark_out="$json" --benchmark_out_format=json
	if [ "$_t_rc" -eq 0 ]; then
		t_ok "$name"
	elif [ "$drv" = siw ] && only_memory_failed; then
		t_skip "$name" "siw's qp_memory failed: $(jq -r '[.benchmarks[] | select(.error_occurred) |
			.error_message] | first' "$json")"
	else
		t_fail "$name" "$(tail -20 <<<"$_t_out")"
	fi
}
only_memory_failed() {
	jq -e '[.benchmarks[] | select(.error_occurred)] |
		length > 0 and all(.name | startswith("qp_memory"))' "$json" >/dev/null 2>&1
}

# transport DRV: the transport each rddp series really ran on, from rddp's
# counters in rddp-bench's JSON (its bandwidth and latency runs): SCTP
# DATA chunks in every run of rddp-sctp, none in rddp's and rddp-nocrc's
# (TCP); and rddp0's own count of them after rddp-sctp's series.
transport() {
	case $1 in
	rddp-sctp)
		t_run "$1 rddp-bench JSON: SCTP DATA chunks in every run" sctp_chunks '> 0'
		t_run "$1: rddp0's perftest and rddp-bench traffic went over SCTP" \
			rddp_counter_above sctp_tx_chunks 1000
		;;
	rddp | rddp-nocrc)
		t_run "$1 rddp-bench JSON: no SCTP DATA chunk (TCP)" sctp_chunks '== 0'
		;;
	esac
}
sctp_chunks() { # JQ-TEST: every bandwidth and latency run's chunks pass it
	jq -e "[.benchmarks[] | select(.name | test(\"_(bw|lat)/\")) |
		select(.error_occurred // false | not)] |
		length > 0 and all(.rddp_sctp_tx_chunks_per_iter $1)" "$json"
}

t_run "modprobe rdma_ucm" modprobe rdma_ucm
case $drv in
*+*) [ "$drv" = rddp+rddp-sctp ] || { t_fail "no driver pair '$drv' (rddp+rddp-sctp)"; exit 1; } ;;
esac
for d in ${drv//+/ }; do
	load "$d"
	perftest "$d"
	rddp_bench "$d"
	transport "$d"
done
