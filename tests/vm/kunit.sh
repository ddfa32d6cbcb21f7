#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs rddp's KUnit suites (debug kernels only: qemu's or UML's): loads
# rddp, whose suites run at load time, and turns each test case of every
# suite named rddp* in /sys/kernel/debug/kunit/<suite>/results (KTAP) into
# one TAP line.
set -u
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

if [[ $RDDP_KERNEL != *debug ]]; then
	t_skip "rddp KUnit suites" "KUnit needs a debug kernel (--kernel debug or uml-debug)"
	exit 0
fi
t_run "modprobe rddp" modprobe rddp
# Suites can also come as separate modules (rddp_*_test.ko) in updates/.
for ko in /lib/modules/"$(uname -r)"/updates/rddp*test*.ko; do
	[ -e "$ko" ] || continue
	m=${ko##*/}
	t_run "modprobe ${m%.ko}" modprobe "${m%.ko}"
done

suites=0
for d in /sys/kernel/debug/kunit/rddp*; do
	[ -f "$d/results" ] || continue
	suites=$((suites + 1))
	suite=${d##*/}
	cases=0 failed=0 suite_failed=0
	results=$(cat "$d/results")
	# KTAP: test cases are "    ok N name" / "    not ok N name [# SKIP why]"
	# one level below the suite's own line; parameterised cases nest deeper.
	while IFS= read -r line; do
		l=${line#"${line%%[![:space:]]*}"}
		if [ "$l" = "$line" ]; then # the suite's own lines
			case $l in "not ok "*) suite_failed=1 ;; esac
			continue
		fi
		case $l in
		"ok "*"# SKIP"*)
			n=${l#ok * }
			t_skip "$suite: ${n%% # SKIP*}" "${n#*# SKIP }" ;;
		"ok "*) t_ok "$suite: ${l#ok * }" ;;
		"not ok "*)
			n=${l#not ok * }
			failed=1
			t_fail "$suite: $n" "$(tail -30 <<<"$results")" ;;
		*) continue ;;
		esac
		cases=$((cases + 1))
	done <<<"$results"
	[ "$cases" -gt 0 ] || t_fail "$suite: has test results" "$results"
	# The suite's own result comes from the cases' status, a case's line
	# from its log, which 6.1 keeps in 512 octets: a failing case whose
	# messages fill it loses its "not ok" line there. The kernel log has
	# the whole output.
	[ "$suite_failed$failed" != 10 ] ||
		t_fail "$suite: every case that failed shows in its results" \
			"$(dmesg | grep -A40 -- "# Subtest: $suite\$" | tail -60)"
done
if [ "$suites" -eq 0 ]; then
	t_fail "an rddp KUnit suite ran" "$(ls /sys/kernel/debug/kunit 2>&1)"
fi
