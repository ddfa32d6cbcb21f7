// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "names.h"

#include <linux/rddp_netlink.h>

#include <array>

namespace rddpctl {

namespace {

// The name at `value` in `names`, else the number as text.
template <size_t N>
std::string Lookup(const std::array<std::string_view, N>& names, unsigned value) {
  if (value < N && !names[value].empty()) return std::string(names[value]);
  return std::to_string(value);
}

// In RDDP_A_STAT_* order, from RDDP_A_STAT_TX_FPDUS on; `rdma statistic`
// shows the port's counters by the same names.
constexpr std::array<std::string_view, 31> kCounterNames = {
    "tx_fpdus",        "tx_bytes",         "rx_fpdus",          "rx_bytes",
    "rx_crc_errors",   "rx_marker_errors", "rx_framing_errors", "term_tx_rdmap",
    "term_tx_ddp",     "term_tx_mpa",      "term_rx_rdmap",     "term_rx_ddp",
    "term_rx_mpa",     "conn_attempts",    "conn_established",  "conn_requests",
    "conn_accepts",    "conn_rejects",     "conn_failures",     "mpa_timeouts",
    "tx_zcopy_bytes",  "mr_fast_regs",     "mr_local_invals",   "mr_remote_invals",
    "sctp_tx_chunks",  "sctp_rx_chunks",   "sctp_rx_held",      "sctp_rx_placed_early",
    "sctp_resegments", "tx_batches",       "tx_far_kicks"};
static_assert(kCounterNames.size() == RDDP_A_STAT_MAX - RDDP_A_STAT_TX_FPDUS + 1,
              "a counter in rddp_netlink.h has no name here");

}  // namespace

std::string PortStateName(uint8_t state) {
  static constexpr std::array<std::string_view, 6> kNames = {"NOP",   "DOWN",   "INIT",
                                                             "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  return Lookup(kNames, state);
}

std::string QpStateName(uint8_t state) {
  static constexpr std::array<std::string_view, 7> kNames = {"RESET", "INIT", "RTR", "RTS",
                                                             "SQD",   "SQE",  "ERR"};
  return Lookup(kNames, state);
}

std::string TransportName(uint8_t transport) {
  static constexpr std::array<std::string_view, 2> kNames = {"tcp", "sctp"};
  static_assert(kNames.size() == RDDP_TRANSPORT_MAX + 1, "a transport has no name here");
  return Lookup(kNames, transport);
}

std::string NameAssignTypeName(uint8_t type) {
  static constexpr std::array<std::string_view, 2> kNames = {"unknown", "user"};
  return Lookup(kNames, type);
}

std::string RtrName(uint8_t rtr) {
  static constexpr std::array<std::string_view, 4> kNames = {"none", "write", "read", "send"};
  static_assert(RDDP_RTR_NONE == 0 && RDDP_RTR_WRITE == 1 && RDDP_RTR_READ == 2 &&
                RDDP_RTR_SEND == 3);
  return Lookup(kNames, rtr);
}

std::string EventTypeName(uint8_t type) {
  static constexpr std::array<std::string_view, 7> kNames = {"",  // RDDP_EVENT_UNSPEC
                                                             "qp-state",
                                                             "terminate-sent",
                                                             "terminate-received",
                                                             "connection-failed",
                                                             "device-added",
                                                             "device-removed"};
  static_assert(RDDP_EVENT_QP_STATE == 1 && RDDP_EVENT_DEV_REMOVED == 6);
  return Lookup(kNames, type);
}

std::string TermLayerName(uint8_t layer) {
  static constexpr std::array<std::string_view, 3> kNames = {"RDMAP", "DDP", "MPA"};
  return Lookup(kNames, layer);
}

std::string_view CounterName(int attr_type) {
  if (attr_type < RDDP_A_STAT_TX_FPDUS || attr_type > RDDP_A_STAT_MAX) return {};
  return kCounterNames[static_cast<size_t>(attr_type - RDDP_A_STAT_TX_FPDUS)];
}

}  // namespace rddpctl
