#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: perftest between two guests over virtio-net: rddp in both
# (its defaults: CRC on), rddp in both with mpa_crc=0 (no CRC, so zero-copy
# TX), rddp in both over DDP over SCTP (rddp-sctp: `rddpctl dev set rddp0
# transport sctp`, draft-ietf-rddp-sctp-00; no MPA, so no MPA CRC), then
# upstream siw in both (rddp unloaded: they never share a kernel; siw's
# defaults: no CRC; siw has no SCTP), in the same run. Guest a is the server. Results
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
# bench_client ARGS: perf_client, its output kept in /tmp/bench-client.out.
# Over SCTP a refused connection (-111) is tried again (3 tries): the
# server is deemed listening once its TCP listener is up (lib.sh's both),
# and rddp's SCTP listen comes after it.
bench_client() {
	local rc try
	for try in 1 2 3; do
		perf_client "$@" >/tmp/bench-client.out 2>&1
		rc=$?
		cat /tmp/bench-client.out
		[ "$rc" -ne 0 ] && [ "$drv" = rddp-sctp ] && [ "$try" -lt 3 ] &&
			grep -q 'error: -111' /tmp/bench-client.out || break
		echo "# refused: the server's SCTP listener was not up yet; again"
		sleep 1
	done
	return "$rc"
}

bench=/rddp/build/cmake/userspace/rddp-bench/rddp-bench
sizes=(4096 65536)

# iperf3 over the link, one run per size: the ceiling of a socket there.
# The client starts once the server listens (lib.sh's t_port_listening).
t_barrier up
docs=()
for size in "${sizes[@]}"; do
	mark=/results/listen-iperf3-$size
	if [ "$RDDP_ROLE" = a ]; then
		iperf3 -s -1 -B "$RDDP_LOCAL_IP" >"/tmp/iperf3-s-$size.log" 2>&1 &
		spid=$!
		t_run "iperf3 server listening ($size)" t_port_listening 5201 30 && : >"$mark"
		if wait "$spid"; then t_ok "iperf3 server served ($size)"; else
			t_fail "iperf3 server served ($size)" "$(tail -5 "/tmp/iperf3-s-$size.log")"
		fi
	else
		_t_wait_listen "$mark" "iperf3 server"
		iperf3_client "$RDDP_PEER_IP" "$size" 5 "$out"
		docs+=("/tmp/iperf3-$size.json")
	fi
	t_barrier "iperf3-$size" 120
done
[ "$RDDP_ROLE" = b ] && iperf3_gather "$RDDP_RESULTS/iperf3.json" "${docs[@]}"

# rddp_bench DRIVER: rddp-bench's server in a, its client in b.
rddp_bench() {
	local drv=$1 mark=/results/listen-rddp-bench-$1 base spid
	if [ "$RDDP_ROLE" = a ]; then
		base=" $(_t_listeners | tr '\n' ' ') "
		# No `timeout`: its PID is the one signalled; the watchdog bounds it.
		$bench --server "$RDDP_LOCAL_IP" >"/tmp/rddp-bench-server-$drv.log" 2>&1 &
		spid=$!
		# Over SCTP the listener is ready once its SCTP endpoint is.
		t_run "$drv rddp-bench server" t_listening "$base" "$spid" &&
			{ [ "$drv" != rddp-sctp ] || t_sctp_listening 18515; } && : >"$mark"
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
for drv in rddp rddp-nocrc rddp-sctp siw; do
	case $drv in
	rddp | rddp-nocrc | rddp-sctp)
		params=()
		[ "$drv" = rddp-nocrc ] && params=(mpa_crc=0)
		t_run "modprobe rddp ${params[*]}" modprobe rddp "${params[@]}"
		t_run "rdma link add" rdma link add rddp0 type rddp netdev eth0
		RDDP_DEV=rddp0 mod=rddp
		if [ "$drv" = rddp-sctp ]; then
			# SCTP and its cookie HMAC before the first listen (as
			# sctp-two.sh); b initiates, so its setting counts.
			t_run "modprobe sctp hmac md5" modprobe -a sctp hmac md5
			t_run "rddpctl dev set rddp0 transport sctp" \
				/rddp/build/cmake/userspace/rddpctl/rddpctl dev set rddp0 transport sctp
		fi
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
		n=1000
		# The client starts once the server listens (lib.sh's both).
		both a "$drv $tool $size" perf_server bench_client "$tool" -s "$size" -n "$n"
		[ "$RDDP_ROLE" = b ] || continue
		r=$(perf_row </tmp/bench-client.out)
		case $tool in
		*_bw) v=$(awk '{print $4}' <<<"$r") unit=MB/s ;;
		*) v=$(awk '{print $5}' <<<"$r") unit=us ;;
		esac
		echo "$drv $tool $size ${v:-?} $unit" >>"$out"
		t_like "$drv $tool $size (client): ${v:-?} $unit" '^[0-9.]+$' echo "${v:-}"
	done
	rddp_bench "$drv"
	[ "$drv" = rddp-sctp ] && t_run "$drv: rddp0's traffic went over SCTP" \
		rddp_counter_above sctp_tx_chunks 1000
	t_run "rdma link delete" rdma link delete "$RDDP_DEV"
	t_run "rmmod $mod" rmmod "$mod"
	t_barrier "unloaded-$drv"
done
