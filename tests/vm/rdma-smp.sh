#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma.sh's parts that need several CPUs to race (RDDP_RDMA_SMP, see
# rdma.sh): make check runs them with 2 vCPUs in a boot of their own on
# qemu's debug kernel (vm-debug-rdma-smp), and in vm-stock-link's, on
# Debian's 6.1; all of rdma.sh runs on UML's debug kernel (6.12, one CPU)
# and on Debian's 6.12 (tools/check.sh; make check-all: everywhere).
# Arguments: more scripts to run in this boot (t_then, lib.sh): make check
# runs kunit.sh so on qemu's debug kernel.
. /rddp/tests/vm/lib.sh

RDDP_RDMA_SMP=1 bash /rddp/tests/vm/rdma.sh
rc=$?
t_then "$@"
exit "$rc"
