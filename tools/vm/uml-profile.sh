#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where a storage workload's CPU goes in User-Mode Linux, by function.
#
#   tools/vm/uml-profile.sh DRIVER ULP JOB [SECS [MTU]]
#     DRIVER  rddp, rddp-nocrc, siw or tcp (tests/vm/storage.sh's drivers)
#     ULP     nvme, nfs or iscsi
#     JOB     one of storage.sh's workloads: sw128k, sr128k, rr4k-qd1,
#             rr4k-qd32, rw4k-qd1, rw4k-qd32
#     SECS    how long the job runs and is sampled (default 20)
#     MTU     lo's MTU for the job (default lo's own, 65536): 1500 cuts
#             messages into FPDUs as a wire's MTU does (the qemu guests'
#             link)
#
# UML's kernel is a host process, its functions at the addresses its
# /proc/kallsyms shows (modules included), so the host's perf samples it
# like any program: a software clock (cpu-clock; this host has no hardware
# counters) at RDDP_PROFILE_HZ (default 999) per CPU, with frame-pointer call
# chains (the UML kernels are built with CONFIG_FRAME_POINTER). The guest
# runs storage.sh DRIVER profile ULP JOB SECS, which writes its kallsyms and
# marks the job's start and end in its results; perf records between the
# two marks, and tools/uml-profile.py names every sample of the instance's
# processes: a guest kernel function, guest user space (fio, the daemons),
# or the host kernel (mostly the ptrace stops that carry UML's syscalls and
# page faults). The report (markdown, CPU microseconds per I/O by function,
# self and with callees) goes to stdout and build/profile/NAME.md; perf's
# data stays in build/profile/NAME.data.
#
# Compare two reports side by side: tools/uml-profile.py --compare A.json B.json.
# RDDP_PROFILE_KO=PATH profiles that rddp.ko (built for UML's plain kernel,
# e.g. a copy of build/kmod-uml/rddp.ko from another commit) instead of
# the tree's, so two modules can alternate in one series.
# Run on a quiet host (a second load changes UML's cost per syscall:
# Documentation/performance.md).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
# RDDP_PROFILE_KO as given, from where the script was started.
[ -z "${RDDP_PROFILE_KO:-}" ] || RDDP_PROFILE_KO=$(realpath -e "$RDDP_PROFILE_KO") ||
	rddp_die "no module $RDDP_PROFILE_KO"
cd "$RDDP_TOP"

usage="usage: uml-profile.sh DRIVER ULP JOB [SECS [MTU]]"
drv=${1:?$usage}
ulp=${2:?$usage}
job=${3:?$usage}
secs=${4:-20}
mtu=${5:-}
hz=${RDDP_PROFILE_HZ:-999}
# One host CPU for the instance and its processes (run.sh): unpinned, each
# ptrace stop between UML's kernel and a guest process may cross CPUs and
# costs up to ten times as much (Documentation/performance.md).
export RDDP_UML_CPU=${RDDP_UML_CPU:-1}
name=profile-$drv-$ulp-$job${mtu:+-mtu$mtu}
res=build/vm-results/$name/a
out=build/profile

command -v perf >/dev/null || rddp_die "no perf (Debian's linux-perf)"
ko=${RDDP_PROFILE_KO:-build/kmod-uml/rddp.ko}
[ -n "${RDDP_PROFILE_KO:-}" ] || make -s kmod-uml
[ -f "$ko" ] || rddp_die "no module $ko"
bash tools/vm/fio.sh >/dev/null
mkdir -p "$out"
rm -rf "build/vm-results/$name"
rddp_log "$name: UML (plain kernel), storage.sh $drv profile $ulp $job $secs $mtu"
bash tools/vm/run.sh --kernel uml --ko "$ko" --name "$name" \
	--timeout $((secs + 600)) tests/vm/storage.sh "$drv" profile "$ulp" "$job" "$secs" ${mtu:+"$mtu"} \
	>"$out/$name.log" 2>&1 &
runner=$!

# wait_for FILE SECONDS: FILE appears, or the instance ends, or time is up.
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		kill -0 "$runner" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
wait_for "$res/profile.start" 900 || {
	wait "$runner" || true
	tail -20 "$out/$name.log"
	rddp_die "$name: the job never started (log: $out/$name.log)"
}
rddp_log "$name: sampling the job ($secs s at $hz Hz)"
perf record -q -a -g -F "$hz" -e cpu-clock -o "$out/$name.data" 2>"$out/$name.perf.log" &
perf=$!
wait_for "$res/profile.stop" $((secs + 120)) || true
kill -INT "$perf"
wait "$perf" || true
wait "$runner" || rddp_die "$name: the instance failed (log: $out/$name.log)"
perf script -i "$out/$name.data" -D 2>/dev/null |
	"${RDDP_PYTHON:-python3}" tools/uml-profile.py --kallsyms "$res/kallsyms" \
		--fio "$res/storage-$drv-$ulp-$job.json" --segs "$res/profile-segs.txt" \
		--hz "$hz" --label "$drv $ulp $job${mtu:+ MTU $mtu}" \
		--json "$out/$name.json" >"$out/$name.md"
cat "$out/$name.md"
