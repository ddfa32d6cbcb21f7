#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp-bench across two guests (tools/vm/run.sh --topology two), rddp in
# both: `rddp-bench --server` in guest b, `rddp-bench --client` in guest a
# over eth0: Write, Read and Send, bandwidth and latency; the client's
# Google Benchmark JSON parses and carries bytes_per_second, percentiles
# and rddp's counters; the server ends on SIGTERM with exit 0. A smoke
# test, not a measurement: no timing is checked.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

bench=/rddp/build/cmake/userspace/rddp-bench/rddp-bench
mark=/results/listen-bench-two

t_barrier up
t_run "modprobe rddp rdma_ucm" modprobe -a rddp rdma_ucm
t_run "rdma link add rddp0 type rddp netdev eth0" rdma link add rddp0 type rddp netdev eth0
t_barrier loaded

if [ "$RDDP_ROLE" = b ]; then
	base=" $(_t_listeners | tr '\n' ' ') "
	# No `timeout`: its PID is the one signalled; the guest's watchdog bounds it.
	$bench --server "$RDDP_LOCAL_IP" >"$RDDP_RESULTS/bench-server.log" 2>&1 &
	spid=$!
	t_run "server listens on $RDDP_LOCAL_IP" t_listening "$base" "$spid" && : >"$mark"
	t_barrier finished 900
	kill -TERM "$spid"
	wait "$spid"
	rc=$?
	cat "$RDDP_RESULTS/bench-server.log"
	if [ "$rc" -eq 0 ]; then t_ok "the server ends on SIGTERM with exit 0"; else
		t_fail "the server ends on SIGTERM with exit 0" "exit $rc"
	fi
else
	js=$RDDP_RESULTS/bench-two.json
	_t_wait_listen "$mark" "rddp-bench server"
	t_run "client against $RDDP_PEER_IP: write, read, send; bandwidth 4 KiB, 64 KiB; latency 64 B" \
		timeout 600 $bench --client "$RDDP_PEER_IP" --sizes 4K,64K --benchmark_min_time=0.1 \
		--benchmark_out="$js" --benchmark_out_format=json
	t_run "JSON: 9 benchmarks on rddp0, none failed" jq -e \
		'(.benchmarks | length == 9) and all(.benchmarks[]; (.error_occurred // false | not) and .label == "rddp0")' "$js"
	t_run "JSON: bandwidth runs moved bytes, latency runs have p50 <= p99 <= p99.9" jq -e \
		'all(.benchmarks[]; if (.name | test("_bw/")) then .bytes_per_second > 0 else .p50_us > 0 and .p50_us <= .p99_us and .p99_us <= .p999_us end)' "$js"
	t_run "JSON: rddp's counters (this end's device): FPDUs, no CRC error, no Terminate" jq -e \
		'all(.benchmarks[]; .rddp_tx_fpdus_per_iter > 0 and .rddp_crc_errors == 0 and .rddp_terminates == 0)' "$js"
	jq -r '.benchmarks[] | "# \(.name): " + (if .bytes_per_second then "\(.bytes_per_second / 1e6 | floor) MB/s"
		else "p50 \(.p50_us) us, p99 \(.p99_us) us, p99.9 \(.p999_us) us" end)' "$js" |
		tee -a "$RDDP_RESULTS/tap.txt"
	t_barrier finished 900
fi
t_run "rdma link delete rddp0" rdma link delete rddp0
