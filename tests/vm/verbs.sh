#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The verbs object layer of rddp.ko (PDs, MRs, CQs, QPs, SRQs, the QP state
# machine, flushing, CQ notification, limits) through Debian's libibverbs and
# unmodified libsiw. Runs inside the guest (tools/vm/run.sh); the test program
# is built on the host by `make userspace`.
set -u
. "$(dirname "$0")/lib.sh"

bin=/rddp/build/cmake/tests/verbs/rddp_verbs_test

setup_dummy
t_run "rdma link add rddp0 on dummy0" rdma link add rddp0 type rddp netdev dummy0
t_run "verbs test program is built" test -x "$bin"

# Relay the program's own TAP lines as checks of this suite.
out=$("$bin" rddp0 2>&1)
rc=$?
t_relay verbs <<<"$out"
t_run "verbs test program exits 0" test "$rc" -eq 0

no_resources() {
	! rdma resource show qp | grep -q rddp0 &&
		! rdma resource show cq | grep -q rddp0 &&
		! rdma resource show mr | grep -q rddp0 &&
		! rdma resource show pd | grep -q rddp0
}
t_run "no RDMA resources left after the program" no_resources

# The objects of a process that exits without cleaning up are released.
t_run "a process that leaks every object type exits" "$bin" rddp0 --leak
t_run "its objects are released with its file" no_resources
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
