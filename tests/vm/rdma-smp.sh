#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma.sh's parts that need several CPUs to race (RDDP_RDMA_SMP, see
# rdma.sh): make check runs them in vm-debug-ulp's boot, on qemu's debug
# kernel with 2 vCPUs; all of rdma.sh runs on UML's debug kernel (one CPU)
# and on qemu's stock 6.1 and 6.12 kernels (tools/check.sh).
RDDP_RDMA_SMP=1 exec bash "$(dirname "$0")/rdma.sh" "$@"
