// SPDX-License-Identifier: GPL-2.0
/*
 * The transports the CM (cm.c) sets connections up over, each behind its
 * table (cep.h, struct rddp_cm_transport), by the device's `transport`
 * setting (the uapi's enum rddp_transport). A transport is one file below
 * the CM and one entry here; the CM names none of them. Listeners open
 * them in this order: TCP first, so that a TCP client never waits for
 * SCTP's first listen, which may load modules (cm.c).
 */
#include <uapi/linux/rddp_netlink.h>

#include "cep.h"

const struct rddp_cm_transport *const
	rddp_cm_transports[RDDP_TRANSPORT_MAX + 1] = {
	[RDDP_TRANSPORT_TCP] = &rddp_cm_mpa,
	[RDDP_TRANSPORT_SCTP] = &rddp_cm_sctp,
};
