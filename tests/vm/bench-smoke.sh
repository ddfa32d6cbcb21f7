#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp-bench (userspace/rddp-bench) in one guest, briefly: loopback over
# dummy0 on rddp0 (RDMA Write, Read and Send, bandwidth and latency), two
# QPs, and a server and a client process; the Google Benchmark JSON parses
# and carries bytes_per_second, latency percentiles and rddp's counters;
# a missing device, a bad address, a refused connection, a server that
# dies mid-run and a bad option end the program with their reason, never
# a hang; then the loopback run again over DDP over SCTP, whose JSON must
# count SCTP DATA chunks (none over TCP). A smoke test, not a
# measurement: no timing is checked. The servers run without `timeout`
# (their PIDs are the ones signalled); the guest's watchdog bounds them.
# The module is not unloaded (on UML 6.1 rmmod can livelock,
# Documentation/testing.md); link delete ends it.
# With the argument `siw` or `rddp-nocrc`, one loopback run of every
# benchmark on upstream siw (where it exists: the debug kernels, UML's) or
# on rddp with mpa_crc=0 (siw's setting), for figures side by side; on siw
# it shows that rddp-bench drives any iWARP device through libsiw, without
# rddp's counters.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

bench=/rddp/build/cmake/userspace/rddp-bench/rddp-bench
ip=198.51.100.1
quick=(--benchmark_min_time=0.05)
jqt() { # FILE FILTER: FILE passes jq -e FILTER
	jq -e "$2" "$1"
}

# summary FILE: the figures of a run, for the log and the console.
summary() {
	jq -r '.benchmarks[] | "# \(.name) \(.label): " +
		(if .bytes_per_second then "\(.bytes_per_second / 1e6 | floor) MB/s"
		elif .qps then "\(.qps) QPs"
		else "p50 \(.p50_us) us, p99 \(.p99_us) us, p99.9 \(.p999_us) us" end) +
		(if .cpu_s_per_gb then ", \(.cpu_s_per_gb * 1000 | floor / 1000) CPU s/GB" else "" end) +
		(if .connects_per_second then ", \(.connects_per_second | floor) connects/s" else "" end) +
		(if .qps then ", \(.kernel_kib_per_qp | floor) KiB kernel, \(.used_kib_per_qp | floor) KiB in all per QP" else "" end) +
		(if .rddp_tx_fpdus_per_iter then ", \(.rddp_tx_fpdus_per_iter * 100 | floor / 100) FPDUs/iter" else "" end)' "$1"
}

# One loopback run of every benchmark, 64 KiB and 64 B, of connection
# setup and of memory at 100 and 1000 connections, on siw or on rddp
# without CRC (siw's default), for figures side by side.
compare() { # DRIVER: siw | rddp-nocrc
	local dev js
	case $1 in
	siw)
		dev=siw0
		t_run "modprobe siw rdma_ucm" modprobe -a siw rdma_ucm
		;;
	*)
		dev=rddp0
		t_run "modprobe rddp mpa_crc=0, rdma_ucm" bash -c 'modprobe rddp mpa_crc=0 && modprobe rdma_ucm'
		;;
	esac
	t_run "setup_dummy" setup_dummy
	t_run "rdma link add $dev type ${dev%0} netdev dummy0" rdma link add $dev type "${dev%0}" netdev dummy0
	js=$RDDP_RESULTS/bench-$1.json
	t_run "$1 loopback: write, read, send; bandwidth 64 KiB, latency 64 B; connection setup; memory" \
		timeout 300 $bench --loopback $ip --sizes 64K --tests bw,lat,conn,mem --mem-qps 100,1000 \
		--benchmark_min_time=0.2 --benchmark_out="$js" --benchmark_out_format=json
	t_run "$1 JSON: 9 benchmarks on $dev, none failed, bytes, percentiles or memory" jqt "$js" \
		"(.benchmarks | length == 9) and all(.benchmarks[]; .label == \"$dev\" and (.error_occurred // false | not) and ((.bytes_per_second // 0) > 0 or .p50_us > 0 or .qps > 0))"
	if [ "$1" = siw ]; then
		t_run "siw JSON: no rddp counters (not an rddp device)" jqt "$js" \
			'all(.benchmarks[]; keys | map(startswith("rddp_")) | any | not)'
	else
		t_run "rddp JSON: rddp's counters, zero copy" jqt "$js" \
			'all(.benchmarks[] | select(.name | test("write_bw")); .rddp_zcopy_bytes_per_iter > 0)'
	fi
	summary "$js" | tee -a "$RDDP_RESULTS/tap.txt"
	t_run "rdma link delete $dev" rdma link delete $dev
}
case ${1:-rddp} in
siw | rddp-nocrc)
	compare "$1"
	exit 0
	;;
esac

t_run "modprobe rddp rdma_ucm" modprobe -a rddp rdma_ucm
t_run "setup_dummy" setup_dummy
t_like "no RDMA device on the address: exit 1, says so" 'no RDMA device' \
	exits 1 timeout 60 $bench --loopback $ip --ops write --tests bw --sizes 64
t_run "rdma link add rddp0 type rddp netdev dummy0" rdma link add rddp0 type rddp netdev dummy0
t_like "bad address: exit 1, says so" 'bad address' \
	exits 1 timeout 60 $bench --loopback no.such.host.invalid
t_like "nobody listening: exit 1, says so" 'refused|cannot connect' \
	exits 1 timeout 60 $bench --client $ip --port 9 --timeout-ms 3000
t_like "bad option: exit 2 with the reason and the usage" "unknown option '--frob'" \
	exits 2 $bench --loopback $ip --frob
t_like "--help" '^usage: rddp-bench' $bench --help
t_like "--benchmark_list_tests names every benchmark" 'send_lat/size:64' \
	$bench --loopback $ip --benchmark_list_tests

# loopback_run NAME JSON: write, read and send, bandwidth at 4 KiB and
# 64 KiB, latency at 64 B, briefly, into JSON (over TCP, then over SCTP).
loopback_run() {
	t_run "$1: write, read, send; bandwidth 4 KiB and 64 KiB, latency 64 B" \
		timeout 300 $bench --loopback $ip --sizes 4K,64K --lat-sizes 64 --depth 8 "${quick[@]}" \
		--benchmark_out="$2" --benchmark_out_format=json
}
lo=$RDDP_RESULTS/bench-loopback.json
loopback_run loopback "$lo"
t_run "loopback JSON: 9 benchmarks, none failed, all on rddp0" jqt "$lo" \
	'(.benchmarks | length == 9) and all(.benchmarks[]; (.error_occurred // false | not) and .label == "rddp0")'
t_run "loopback JSON: every bandwidth run moved bytes" jqt "$lo" \
	'[.benchmarks[] | select(.name | test("_bw/")) | .bytes_per_second > 0 and .Gbps > 0] | length == 6 and all'
t_run "loopback JSON: every bandwidth run has its CPU cost per GB" jqt "$lo" \
	'[.benchmarks[] | select(.name | test("_bw/")) | .cpu_s_per_gb >= .kernel_cpu_s_per_gb and .kernel_cpu_s_per_gb >= 0] | length == 6 and all'
t_run "loopback JSON: every latency run has p50 <= p99 <= p99.9" jqt "$lo" \
	'[.benchmarks[] | select(.name | test("_lat/")) | .p50_us > 0 and .p50_us <= .p99_us and .p99_us <= .p999_us] | length == 3 and all'
t_run "loopback JSON: rddp's counters, FPDUs sent, no CRC error, no Terminate" jqt "$lo" \
	'all(.benchmarks[]; .rddp_tx_fpdus_per_iter >= 1 and .rddp_crc_errors == 0 and .rddp_terminates == 0)'
t_run "loopback JSON: one device, so as many FPDUs received as sent" jqt "$lo" \
	'all(.benchmarks[]; .rddp_rx_fpdus_per_iter == .rddp_tx_fpdus_per_iter)'
t_run "loopback JSON: CRC on (rddp's default), so nothing lent zero-copy" jqt "$lo" \
	'all(.benchmarks[]; .rddp_zcopy_bytes_per_iter == 0)'
t_run "loopback JSON: TCP (the default transport), so no SCTP DATA chunk" jqt "$lo" \
	'all(.benchmarks[]; .rddp_sctp_tx_chunks_per_iter == 0)'

summary "$lo" | tee -a "$RDDP_RESULTS/tap.txt"

cn=$RDDP_RESULTS/bench-connect.json
t_run "loopback: connection setup rate" \
	timeout 120 $bench --loopback $ip --tests conn "${quick[@]}" \
	--benchmark_out="$cn" --benchmark_out_format=json
t_run "connect JSON: connections per second and setup percentiles" jqt "$cn" \
	'.benchmarks[0].name == "connect/manual_time" and .benchmarks[0].connects_per_second > 0 and .benchmarks[0].p50_us > 0 and .benchmarks[0].label == "rddp0"'
jq -r '.benchmarks[0] | "# \(.name): \(.connects_per_second | floor) connects/s, p50 \(.p50_us) us, p99 \(.p99_us) us"' "$cn" |
	tee -a "$RDDP_RESULTS/tap.txt"

mem=$RDDP_RESULTS/bench-memory.json
t_run "loopback: memory per QP at 1 and 100 connections" \
	timeout 300 $bench --loopback $ip --tests mem --mem-qps 1,100 \
	--benchmark_out="$mem" --benchmark_out_format=json
t_run "memory JSON: 2 and 200 QPs, kernel and used KiB per QP" jqt "$mem" \
	'[.benchmarks[] | .qps] == [2, 200] and all(.benchmarks[]; has("kernel_kib_per_qp") and has("used_kib_per_qp") and .label == "rddp0")'
jq -r '.benchmarks[] | "# \(.name): \(.kernel_kib_per_qp) KiB kernel, \(.used_kib_per_qp) KiB in all per QP"' "$mem" |
	tee -a "$RDDP_RESULTS/tap.txt"

qp=$RDDP_RESULTS/bench-qps.json
t_run "loopback: Send bandwidth on 2 QPs, depth 4" \
	timeout 120 $bench --loopback $ip --ops send --tests bw --sizes 4K --depth 4 --qps 2 \
	"${quick[@]}" --benchmark_out="$qp" --benchmark_out_format=json
t_run "2 QPs JSON: bytes moved" jqt "$qp" \
	'.benchmarks[0].name == "send_bw/size:4096/depth:4/qps:2/real_time" and .benchmarks[0].bytes_per_second > 0'

cs=$RDDP_RESULTS/bench-client.json
log=$RDDP_RESULTS/bench-server.log
base=" $(_t_listeners | tr '\n' ' ') "
$bench --server $ip --port 18515 >"$log" 2>&1 &
spid=$!
t_run "server listens" t_listening "$base" "$spid"
t_run "client against the server: write, read, send, bandwidth and latency" \
	timeout 300 $bench --client $ip --port 18515 --sizes 64K "${quick[@]}" \
	--benchmark_out="$cs" --benchmark_out_format=json
t_run "client JSON: 6 benchmarks, bytes moved, percentiles" jqt "$cs" \
	'(.benchmarks | length == 6) and all(.benchmarks[]; (.bytes_per_second // 0) > 0 or .p50_us > 0)'
kill -TERM "$spid"
wait "$spid"
rc=$?
cat "$log"
if [ "$rc" -eq 0 ]; then t_ok "the server ends on SIGTERM with exit 0"; else
	t_fail "the server ends on SIGTERM with exit 0" "exit $rc"
fi
summary "$cs" | tee -a "$RDDP_RESULTS/tap.txt"

# A server that dies mid-run: the client fails with the reason, at once
# (a flushed work request) or at its timeout, never hangs.
base=" $(_t_listeners | tr '\n' ' ') "
$bench --server $ip --port 18516 >/dev/null 2>&1 &
spid=$!
t_run "second server listens" t_listening "$base" "$spid"
(
	sleep 3
	kill -KILL "$spid"
) &
t_like "the server killed mid-run: the client exits 1 with the reason" 'ERROR OCCURRED' \
	exits 1 timeout 120 $bench --client $ip --port 18516 --ops write --tests bw --sizes 64K \
	--timeout-ms 5000 --benchmark_min_time=30
wait

# The same, CRC off: zero-copy TX lends the payload pages.
t_run "rddpctl dev set rddp0 crc off" /rddp/build/cmake/userspace/rddpctl/rddpctl dev set rddp0 crc off
zc=$RDDP_RESULTS/bench-nocrc.json
t_run "loopback, CRC off: Write bandwidth 64 KiB" \
	timeout 120 $bench --loopback $ip --ops write --tests bw --sizes 64K "${quick[@]}" \
	--benchmark_out="$zc" --benchmark_out_format=json
t_run "CRC off JSON: most of the payload went zero-copy" jqt "$zc" \
	'.benchmarks[0].rddp_zcopy_bytes_per_iter >= 32768'
summary "$zc" | tee -a "$RDDP_RESULTS/tap.txt"

# The same over DDP over SCTP (draft-ietf-rddp-sctp-00, make bench's
# rddp-sctp series): rddp0's connections go over SCTP, loaded with its
# cookie HMAC before the first listen (Documentation/testing.md), and the
# JSON shows SCTP's DATA chunks in every run. No MPA there, so the CRC
# setting above does not apply.
t_run "modprobe sctp hmac md5" modprobe -a sctp hmac md5
t_run "rddpctl dev set rddp0 transport sctp" \
	/rddp/build/cmake/userspace/rddpctl/rddpctl dev set rddp0 transport sctp
sc=$RDDP_RESULTS/bench-sctp.json
loopback_run "loopback over SCTP" "$sc"
t_run "SCTP JSON: 9 benchmarks on rddp0, none failed, bytes moved, p50 <= p99" jqt "$sc" \
	'(.benchmarks | length == 9) and all(.benchmarks[]; (.error_occurred // false | not) and .label == "rddp0" and ((.bytes_per_second // 0) > 0 or (.p50_us > 0 and .p50_us <= .p99_us)))'
t_run "SCTP JSON: SCTP DATA chunks in every run, no CRC or framing error, no Terminate" jqt "$sc" \
	'all(.benchmarks[]; .rddp_sctp_tx_chunks_per_iter >= 1 and .rddp_crc_errors == 0 and .rddp_framing_errors == 0 and .rddp_terminates == 0)'
summary "$sc" | tee -a "$RDDP_RESULTS/tap.txt"

t_run "rdma link delete rddp0" rdma link delete rddp0
