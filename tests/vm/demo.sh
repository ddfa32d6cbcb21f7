#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows inside the guest: an rddp device created the way a
# user creates one, and what the standard tools say about it.
set -u
. "$(dirname "$0")/lib.sh"

show() { echo; echo "# $*"; "$@"; }

setup_dummy
show rdma link add rddp0 type rddp netdev dummy0
show rdma link show
show rdma dev show rddp0
show ibv_devices
show ibv_devinfo -d rddp0
t_like "rddp0 is an active iWARP port" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d rddp0
show rdma link delete rddp0
show rmmod rddp
