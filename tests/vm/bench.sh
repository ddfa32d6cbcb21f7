#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: perftest between two guests over virtio-net: rddp in both
# (its defaults: CRC on), rddp in both with mpa_crc=0 (no CRC, so zero-copy
# TX), then upstream siw in both (rddp unloaded: they never share a kernel;
# siw's defaults: no CRC), in the same run. Guest a is the server. Results
# go to $RDDP_RESULTS/bench.txt as "DRIVER TEST SIZE VALUE UNIT" lines;
# tools/bench.sh prints them side by side with ratios. After perftest,
# rddp-bench with each driver (server in a, client in b: bandwidth at
# 4 KiB and 64 KiB, 64 B latency) writes guest b's
# $RDDP_RESULTS/rddp-bench-DRIVER.json, and iperf3 over the same link
# first (the TCP ceiling) $RDDP_RESULTS/iperf3.json, an array of iperf3 -J
# documents; tools/bench-report.py tabulates both.
set -u
. "$(dirname "$0")/lib.sh"

out=$RDDP_RESULTS/bench.txt
: >"$out"
# perf_value TOOL ARGS: the client's average (bw, MB/s) or typical (lat, us)
row() { awk '$1 ~ /^[0-9]+$/ && NF >= 4 { r = $0 } END { print r }'; }

bench=/rddp/build/cmake/userspace/rddp-bench/rddp-bench
sizes=(4096 65536)

# iperf3 over the link, one run per size: the ceiling of a socket there.
t_barrier up
docs=()
for size in "${sizes[@]}"; do
	if [ "$RDDP_ROLE" = a ]; then
		t_run "iperf3 server ($size)" iperf3 -s -1 -B "$RDDP_LOCAL_IP"
	else
		sleep 2
		t_run "tcp iperf3 $size" timeout 60 iperf3 -c "$RDDP_PEER_IP" -l "$size" -t 5 -J \
			--logfile "/tmp/iperf3-$size.json"
		docs+=("/tmp/iperf3-$size.json")
		v=$(jq '.end.sum_received.bits_per_second / 8e6 | floor' "/tmp/iperf3-$size.json")
		echo "tcp iperf3 $size ${v:-?} MB/s" >>"$out"
	fi
	t_barrier "iperf3-$size" 120
done
if [ "$RDDP_ROLE" = b ]; then
	# shellcheck disable=SC2016 # expanded by sh -c
	t_run "iperf3 results as one JSON array" sh -c 'jq -s . "$@" >"$0"' \
		"$RDDP_RESULTS/iperf3.json" "${docs[@]}"
fi

# rddp_bench DRIVER: rddp-bench's server in a, its client in b.
rddp_bench() {
	local drv=$1 mark=/results/listen-rddp-bench-$1 base spid
	if [ "$RDDP_ROLE" = a ]; then
		base=" $(_t_listeners | tr '\n' ' ') "
		# No `timeout`: its PID is the one signalled; the watchdog bounds it.
		$bench --server "$RDDP_LOCAL_IP" >"/tmp/rddp-bench-server-$drv.log" 2>&1 &
		spid=$!
		t_run "$drv rddp-bench server" t_listening "$base" "$spid" && : >"$mark"
		t_barrier "rddp-bench-$drv" 900
		kill -TERM "$spid"
		wait "$spid"
	else
		_t_wait_listen "$mark" "rddp-bench server"
		t_run "$drv rddp-bench client: bw 4K and 64K, latency 64 B" \
			timeout 900 $bench --client "$RDDP_PEER_IP" --sizes 4K,64K --tests bw,lat \
			--benchmark_min_time=0.3 \
			--benchmark_out="$RDDP_RESULTS/rddp-bench-$drv.json" --benchmark_out_format=json
		t_barrier "rddp-bench-$drv" 900
	fi
}

t_run "modprobe rdma_ucm" modprobe rdma_ucm
for drv in rddp rddp-nocrc siw; do
	case $drv in
	rddp | rddp-nocrc)
		params=()
		[ "$drv" = rddp-nocrc ] && params=(mpa_crc=0)
		t_run "modprobe rddp ${params[*]}" modprobe rddp "${params[@]}"
		t_run "rdma link add" rdma link add rddp0 type rddp netdev eth0
		RDDP_DEV=rddp0 mod=rddp
		;;
	siw)
		t_run "modprobe siw" modprobe siw
		t_run "rdma link add" rdma link add siw0 type siw netdev eth0
		RDDP_DEV=siw0 mod=siw
		;;
	esac
	t_barrier "loaded-$drv"
	for t in "ib_write_bw 65536" "ib_read_bw 65536" "ib_send_bw 65536" \
		"ib_write_bw 4096" "ib_write_lat 64" "ib_read_lat 64" "ib_send_lat 64"; do
		set -- $t
		tool=$1 size=$2
		case $tool in *_bw) n=1000 ;; *) n=1000 ;; esac
		if [ "$RDDP_ROLE" = a ]; then
			t_run "$drv $tool $size (server)" perf_server "$tool" -s "$size" -n "$n"
		else
			sleep 2
			r=$(timeout 180 "$tool" -R -d "$RDDP_DEV" -F -s "$size" -n "$n" "$RDDP_PEER_IP" 2>/dev/null | row)
			case $tool in
			*_bw) v=$(awk '{print $4}' <<<"$r") unit=MB/s ;;
			*) v=$(awk '{print $5}' <<<"$r") unit=us ;;
			esac
			echo "$drv $tool $size ${v:-?} $unit" >>"$out"
			t_like "$drv $tool $size (client): $v $unit" '^[0-9.]+$' echo "${v:-}"
		fi
		t_barrier "$drv-$tool-$size" 240
	done
	rddp_bench "$drv"
	t_run "rdma link delete" rdma link delete "$RDDP_DEV"
	t_run "rmmod $mod" rmmod "$mod"
	t_barrier "unloaded-$drv"
done
