# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The storage benchmark's fio side, sourced after lib.sh by
# tests/vm/storage.sh (one guest) and tests/vm/storage-two.sh (two): the
# RNIC per driver, the workloads, one fio run and its summary line.
#
#   driver_up DRV / driver_down DRV   the RNIC of DRV (rddp, rddp-nocrc:
#                        rddp with mpa_crc=0, siw; none for tcp) on
#                        $storage_netdev (default dummy0), then deleted
#   cpu_busy             this guest's busy clock ticks (USER_HZ) so far
#   tcp_segs             this guest's TCP segments out and in so far
#   fio_job NAME TARGET FIO-ARGS...   one fio run; prints its summary line
#   figures              a summary line in words
#   jobs                 the workloads: a name, then fio's arguments
#   storage_names DRV ULP   the names run_jobs gives its fio runs, in order
#   run_jobs DRV ULP TARGET   the verified job (storage_verify=1) or the
#                        region written whole, then every workload, one
#                        line each in $out
#
# The caller sets fio (the binary), size_mib (the region), secs (each
# workload's seconds), out (the lines' file) and storage_verify (1: the
# smoke's verified job instead of the workloads); prof_job, when set, is
# the one workload run_jobs runs (tools/vm/uml-profile.sh): the guest's
# kallsyms and TCP segment counts go to $RDDP_RESULTS, and the files
# profile.start and profile.stop there mark the run. Two hooks frame every
# fio run, for a target in another guest (tests/vm/storage-two.sh):
# storage_job_begin NAME before the run, storage_job_end NAME TICKS after
# it, which prints the busy ticks to add to this guest's TICKS and fails
# if it has none; here the first does nothing and the second adds 0.
# shellcheck disable=SC2154 # fio, size_mib, secs, out: the caller's

storage_netdev=${storage_netdev:-dummy0}

driver_up() { # DRV
	case $1 in
	rddp) t_run "modprobe rddp" modprobe rddp ;;
	rddp-nocrc) t_run "modprobe rddp mpa_crc=0" modprobe rddp mpa_crc=0 ;;
	siw) t_run "modprobe siw" modprobe siw ;;
	tcp) return 0 ;;
	*) t_fail "driver '$1'" "not rddp, rddp-nocrc, siw or tcp"; exit 0 ;;
	esac
	local dev=${1%-nocrc}0
	t_run "rdma link add $dev" rdma link add "$dev" type "${1%-nocrc}" netdev "$storage_netdev"
}
driver_down() { # DRV
	[ "$1" = tcp ] && return 0
	t_run "rdma link delete ${1%-nocrc}0" rdma link delete "${1%-nocrc}0"
}

# cpu_busy: the guest's busy clock ticks (USER_HZ) so far: user, nice,
# system, irq, softirq, steal; idle and iowait left out.
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

storage_job_begin() { :; }
storage_job_end() { echo 0; }

# fio_job NAME TARGET FIO-ARGS...: one fio run on TARGET (bounded by
# fio_bound seconds, default 900), its JSON in /tmp/fio-NAME.json; prints
# its summary line (the section with I/Os: write for writes, read
# otherwise; both add to the I/O count).
fio_job() {
	local name=$1 target=$2 b0 b1 peer rc=0 json=/tmp/fio-$1.json
	shift 2
	storage_job_begin "$name"
	b0=$(cpu_busy)
	timeout -k 10 "${fio_bound:-900}" "$fio" --name="$name" --filename="$target" \
		--ioengine=libaio --direct=1 --size="${size_mib}M" --output-format=json \
		--output="$json" "$@" || rc=$?
	b1=$(cpu_busy)
	peer=$(storage_job_end "$name" "$((b1 - b0))") || {
		echo "# $name: the target's guest reported no CPU figure"
		rc=1
	}
	[ "$rc" = 0 ] || {
		tail -20 "$json" 2>/dev/null
		return 1
	}
	jq -r --arg b "$((b1 - b0 + peer))" '.jobs[0] as $j |
		(if ($j.write.total_ios > 0 and $j.read.total_ios == 0) or ($j["job options"].rw // "" | test("write"))
		 then $j.write else $j.read end) as $s |
		($j.read.total_ios + $j.write.total_ios) as $n |
		[($s.iops | floor), ($s.bw_bytes / 1e6 * 100 | floor / 100),
		 (($s.clat_ns.percentile["50.000000"] // 0) / 100 | floor / 10),
		 (($s.clat_ns.percentile["99.000000"] // 0) / 100 | floor / 10),
		 (if $n > 0 then ($b | tonumber) * 10000 / $n * 100 | floor / 100 else 0 end),
		 $j.error] | @tsv' "$json"
}

# tcp_segs: TCP's segments out and in so far (lib.sh's net_counters), one line.
tcp_segs() {
	net_counters
	echo "$net_segs $net_insegs"
}

# figures: fio_job's summary line in words.
figures() { awk '{ printf "%s IOPS, %s MB/s, p50 %s us, p99 %s us, %s CPU-us/IO", $1, $2, $3, $4, $5 }'; }

# The workloads: name and fio's arguments.
jobs=("sw128k --rw=write --bs=128k --iodepth=8"
	"sr128k --rw=read --bs=128k --iodepth=8"
	"rr4k-qd1 --rw=randread --bs=4k --iodepth=1"
	"rr4k-qd32 --rw=randread --bs=4k --iodepth=32"
	"rw4k-qd1 --rw=randwrite --bs=4k --iodepth=1"
	"rw4k-qd32 --rw=randwrite --bs=4k --iodepth=32")

storage_names() { # DRV ULP
	local j
	if [ "${storage_verify:-0}" = 1 ]; then
		echo "smoke-$1-$2"
		return
	fi
	echo "fill-$1-$2"
	for j in "${jobs[@]}"; do echo "$1-$2-${j%% *}"; done
}

# run_jobs DRV ULP TARGET: the smoke's verified job, or every workload.
run_jobs() {
	local drv=$1 ulp=$2 target=$3 j name r st
	if [ "${storage_verify:-0}" = 1 ]; then
		name="$drv $ulp: fio writes 8 MiB of 4 KiB random blocks, reads them back verified (crc32c)"
		if r=$(fio_job "smoke-$drv-$ulp" "$target" --rw=randwrite --bs=4k --iodepth=16 \
			--io_size=8M --verify=crc32c --do_verify=1 --verify_fatal=1) &&
			grep -Eq '^[1-9][0-9]*	[0-9.]+	[0-9.]+	[0-9.]+	[0-9.]+	0$' <<<"$r"; then
			t_ok "$name: $(figures <<<"$r")"
		else
			t_fail "$name" "$r"
		fi
		return
	fi
	t_run "$drv $ulp: the region written whole first" \
		fio_job "fill-$drv-$ulp" "$target" --rw=write --bs=1M --iodepth=4
	for j in "${jobs[@]}"; do
		name=${j%% *}
		[ -z "${prof_job:-}" ] || [ "$name" = "$prof_job" ] || continue
		# The host's sampler starts when it sees profile.start: symbols first.
		[ -z "${prof_job:-}" ] || {
			tcp_segs >"$RDDP_RESULTS/profile-segs.txt"
			cp /proc/kallsyms "$RDDP_RESULTS/kallsyms" && : >"$RDDP_RESULTS/profile.start"
		}
		# shellcheck disable=SC2086 # fio's arguments, split on purpose
		r=$(fio_job "$drv-$ulp-$name" "$target" --time_based --runtime="$secs" ${j#* })
		st=$?
		[ -z "${prof_job:-}" ] || { : >"$RDDP_RESULTS/profile.stop" && tcp_segs >>"$RDDP_RESULTS/profile-segs.txt"; }
		if [ "$st" = 0 ]; then
			t_ok "$drv $ulp $name: $(figures <<<"$r")"
			awk -v d="$drv" -v u="$ulp" -v n="$name" '{ print d, u, n, $1, $2, $3, $4, $5 }' \
				<<<"$r" >>"$out"
			cp "/tmp/fio-$drv-$ulp-$name.json" "$RDDP_RESULTS/storage-$drv-$ulp-$name.json"
		else
			t_fail "$drv $ulp $name" "$r"
		fi
	done
}
