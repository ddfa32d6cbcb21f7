#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: perftest between two guests over virtio-net: rddp in both
# (its defaults: CRC on), rddp in both with mpa_crc=0 (no CRC, so zero-copy
# TX), then upstream siw in both (rddp unloaded: they never share a kernel;
# siw's defaults: no CRC), in the same run. Guest a is the server. Results
# go to $RDDP_RESULTS/bench.txt as "DRIVER TEST SIZE VALUE UNIT" lines;
# tools/bench.sh prints them side by side with ratios.
set -u
. "$(dirname "$0")/lib.sh"

out=$RDDP_RESULTS/bench.txt
: >"$out"
# perf_value TOOL ARGS: the client's average (bw, MB/s) or typical (lat, us)
row() { awk '$1 ~ /^[0-9]+$/ && NF >= 4 { r = $0 } END { print r }'; }

t_barrier up
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
	t_run "rdma link delete" rdma link delete "$RDDP_DEV"
	t_run "rmmod $mod" rmmod "$mod"
	t_barrier "unloaded-$drv"
done
