// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Names for the numbers the rddp family reports. An unknown value (a newer
// module) is shown as its number rather than dropped.
#ifndef RDDPCTL_NAMES_H
#define RDDPCTL_NAMES_H

#include <cstdint>
#include <string>
#include <string_view>

namespace rddpctl {

// enum ib_port_state (not in any uapi header; the values of ibv_port_state):
// DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER as `rdma link` prints them.
std::string PortStateName(uint8_t state);
// enum ib_qp_state 0..6: RESET, INIT, RTR, RTS, SQD, SQE, ERR.
std::string QpStateName(uint8_t state);
// enum rddp_rtr: none, write, read, send.
std::string RtrName(uint8_t rtr);
// enum rddp_transport: tcp, sctp.
std::string TransportName(uint8_t transport);
// enum rdma_nl_name_assign_type (Linux 6.11): unknown, user.
std::string NameAssignTypeName(uint8_t type);
// enum rddp_event_type: qp-state, terminate-sent, terminate-received,
// connection-failed, device-added, device-removed.
std::string EventTypeName(uint8_t type);
// A Terminate's layer (RFC 5040 §4.8): RDMAP, DDP, MPA.
std::string TermLayerName(uint8_t layer);
// The lower_snake_case name of an RDDP_A_STAT_* attribute type, or empty
// for a type this rddpctl does not know.
std::string_view CounterName(int attr_type);

}  // namespace rddpctl

#endif  // RDDPCTL_NAMES_H
