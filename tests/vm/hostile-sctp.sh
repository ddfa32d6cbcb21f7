#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hostile.sh's SCTP mode alone (draft-ietf-rddp-sctp-00 cases of
# tests/verbs/hostile_sctp.cc): make check runs it in vm-debug-ulp's boot,
# so that kmemleak, with KASAN and lockdep, sees every SCTP case on qemu's
# debug kernel (tools/check.sh; UML has no usable kmemleak).
exec bash "$(dirname "$0")/hostile.sh" sctp
