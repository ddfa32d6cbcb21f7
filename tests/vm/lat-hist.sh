#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The latency study of Documentation/performance.md ("The 4 ms mode"): one
# guest, DRIVER (rddp-nocrc or siw) over dummy0, perftest's 64 B latency
# tests with every round trip kept (-H), 3000 each, in completion-event
# (-e) and busy-polling modes. Appends to $RDDP_RESULTS/lat-hist.txt the
# guest's timer setup and per test the percentiles and the share of
# samples of 1.5 ms or more (a 4 ms wait, halved in perftest's one-way
# figures). Run by tools/lat-study.sh.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
drv=${1:?usage: lat-hist.sh rddp-nocrc|siw}
ip=198.51.100.1
out=$RDDP_RESULTS/lat-hist.txt
t_run "setup_dummy" setup_dummy
case $drv in
rddp-nocrc) mod=rddp dev=rddp0 params=(mpa_crc=0) ;;
siw) mod=siw dev=siw0 params=() ;;
*) t_fail "no driver '$drv'"; exit 1 ;;
esac
t_run "modprobe $mod ${params[*]}" modprobe $mod "${params[@]}"
t_run "rdma link add $dev" rdma link add $dev type $mod netdev dummy0
{
	echo "cmdline: $(cat /proc/cmdline)"
	grep -E "hres_active|Clock Event Device" /proc/timer_list | sort | uniq -c
} >>"$out"
hist() { # TOOL [ARGS]: one server/client pair (-H: every sample), the samples sorted
	perf_local_pair $dev $ip "$@" -s 64 -n 3000 -H >/tmp/c.log || return 1
	# -H: "#, usec", then "index, latency" per sample
	awk -F', *' '/^[0-9]+, *[0-9.e+]+ *$/ { print $2 + 0 }' /tmp/c.log | sort -n
}
for t in "ib_send_lat -e" "ib_write_lat" "ib_read_lat -e" "ib_send_lat"; do
	# shellcheck disable=SC2086 # TOOL and its option
	hist $t >/tmp/v || { t_fail "$drv $t" "$(tail -5 /tmp/c.log)"; continue; }
	t_like "$drv $t: samples" 'n=[1-9]' awk -v t="$t" -v d="$drv" -v out="$out" '
		{ v[++n] = $1 } END {
			slow = 0; for (i = 1; i <= n; i++) if (v[i] >= 1500) slow++
			line = sprintf("%s %-16s n=%d p50=%.1f p90=%.1f p99=%.1f slow(>=1.5ms)=%.1f%%",
				d, t, n, v[int(n * 0.5) + 1], v[int(n * 0.9) + 1], v[int(n * 0.99) + 1],
				n ? 100 * slow / n : 0)
			print line; print line >>out }' /tmp/v
done
