#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma-core's own tests (Debian's python3-pyverbs 44.0 and the tests/ it
# ships) against siw, the reference, then rddp, each on eth0 in this guest.
# One check per test of rddp's run: a pass; a skip with its reason, unless
# siw passed it (then a failure: rddp passes whatever siw passes); a
# failure where siw passed or skipped it, but where siw fails it too a skip
# that names siw's error, and for the tests no iWARP device can pass a skip
# that says why (both explained in Documentation/testing.md).
#
# Arguments: [MODULE...]  test modules (default: $generic below)
# Needs build/pyverbs-root (tools/vm/pyverbs/mkroot.sh): Python 3.11 and
# the tests, run from /rddp where they are.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

# Every module of tests/ that is not a vendor's (mlx5, efa) or CUDA's: they
# skip on any other device, and their 200 skips would say nothing.
generic=(test_addr test_atomic test_cq test_cq_events test_cqex test_device
	test_flow test_fork test_mr test_odp test_parent_domain test_pd test_qp
	test_qpex test_rdmacm test_relaxed_ordering test_rss_traffic test_shared_pd
	test_tag_matching)
[ -n "${1:-}" ] || set -- "${generic[@]}"

# Tests no iWARP device can pass, whatever its driver: what they ask of
# rdma_cm or of the transport exists on InfiniBand and RoCE only. siw
# cannot tell (it skips every rdma_cm test: its device has no netdev in
# sysfs); a pass still counts as one.
declare -A not_iwarp=(
	[test_rdmacm.CMTestCase.test_rdmacm_async_traffic]="it sets the ACK timeout (RDMA_OPTION_ID_ACK_TIMEOUT) and reads it back from the QP: rdma_cm gives it to IB QPs only (rdma_init_qp_attr sets IB_QP_TIMEOUT for IB)"
	[test_rdmacm.CMTestCase.test_rdmacm_async_traffic_external_qp]="it waits for RDMA_CM_EVENT_CONNECT_RESPONSE, which rdma_cm raises for IB only: an iWARP connect ends in ESTABLISHED (cma_iw_handler)"
	[test_rdmacm.CMTestCase.test_rdmacm_async_udp_traffic]="RDMA_PS_UDP needs UD QPs, which iWARP has not (create_qp: EOPNOTSUPP)"
)

root=/rddp/build/pyverbs-root
tests=$root/opt/rdma-core-tests/tests
runner=$(dirname "$0")/pyverbs-runner.py
if [ ! -f "$tests/run_tests.py" ]; then
	t_fail "rdma-core's tests are there" "no $tests: bash tools/vm/pyverbs/mkroot.sh"
	exit 0
fi
python=(env PYTHONHOME="$root/usr" PYTHONDONTWRITEBYTECODE=1
	LD_LIBRARY_PATH="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu"
	"$root/usr/bin/python3.11")
t_like "Python 3.11 with pyverbs runs in the guest" '^3\.11 ' \
	"${python[@]}" -c 'import sys, pyverbs.device; print("%d.%d" % sys.version_info[:2], "ok")'
# The rdma_cm tests synchronise their two processes with multiprocessing's
# semaphores, which live in /dev/shm.
mkdir -p /dev/shm
t_mounted /dev/shm || mount -t tmpfs shm /dev/shm

# run DRIVER: DRIVER's link on eth0, the tests against it, results in
# $RDDP_RESULTS/pyverbs-DRIVER.txt (pyverbs-runner.py's lines), output in the log.
run() {
	local drv=$1 rc
	shift
	rm -f "$RDDP_RESULTS/pyverbs-$drv.txt"
	modprobe "$drv" && rdma link add "${drv}0" type "$drv" netdev eth0 || return 1
	(cd "$tests/.." && timeout -k 10 "${PYVERBS_TIMEOUT:-900}" \
		"${python[@]}" "$runner" "$tests" "$RDDP_RESULTS/pyverbs-$drv.txt" --dev "${drv}0" --gid 0 -v "$@") \
		>>"$RDDP_RESULTS/pyverbs-$drv.log" 2>&1
	rc=$?
	rdma link delete "${drv}0"
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "timed out in $(awk -F'\t' \
		'$1 == "start" { t = $2 } $1 != "start" { t = "" } END { print t }' \
		"$RDDP_RESULTS/pyverbs-$drv.txt")" >>"$RDDP_RESULTS/pyverbs-$drv.log"
	# 0: all passed; 1: some failed. Anything else: the run itself broke.
	[ "$rc" -le 1 ]
}
t_run "siw: rdma-core's tests ran to their end" run siw "$@"
t_run "rddp: rdma-core's tests ran to their end" run rddp "$@"

# siw's result per test: status TAB detail. (Files, not process
# substitution: the guest has no /dev/fd.)
touch "$RDDP_RESULTS/pyverbs-siw.txt" "$RDDP_RESULTS/pyverbs-rddp.txt"
declare -A siw_status=()
while IFS=$'\t' read -r st id detail; do
	[ "$st" = start ] || siw_status[$id]="$st"$'\t'"$detail"
done <"$RDDP_RESULTS/pyverbs-siw.txt"

while IFS=$'\t' read -r st id detail; do
	[ "$st" = start ] && continue
	name="rddp ${id#tests.}"
	ref=${siw_status[$id]:-none}
	ref_st=${ref%%$'\t'*}
	# A module that did not load is the run's failure, not the test's.
	[[ $id == unittest.* ]] && st=broken
	case $st in
	pass | xfail) t_ok "$name" ;;
	skip)
		if [ "$ref_st" = pass ]; then
			t_fail "$name" "skipped ($detail), where siw passes it"
		else
			t_skip "$name" "$detail"
		fi
		;;
	*)
		if [ -n "${not_iwarp[${id#tests.}]:-}" ]; then
			t_skip "$name" "not for iWARP: ${not_iwarp[${id#tests.}]} ($st: $detail)"
			continue
		fi
		case $ref_st in
		fail | error) t_skip "$name" "fails on siw too: ${ref#*$'\t'} (rddp: $detail)" ;;
		*) t_fail "$name" "$st: $detail (siw: $ref_st)" ;;
		esac
		;;
	esac
done <"$RDDP_RESULTS/pyverbs-rddp.txt"

# Every test siw ran, rddp ran too (a crash or hang cut neither run short).
missing() {
	local id n=0
	[ "${#siw_status[@]}" -gt 0 ] || { echo "siw ran no test"; return 1; }
	for id in "${!siw_status[@]}"; do
		grep -q -F "	$id	" "$RDDP_RESULTS/pyverbs-rddp.txt" || { echo "$id"; n=$((n + 1)); }
	done
	[ "$n" -eq 0 ]
}
t_run "rddp ran every test siw ran (${#siw_status[@]})" missing
t_like "no rdma link left" '^$' rdma link show
