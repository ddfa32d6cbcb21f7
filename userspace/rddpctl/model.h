// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// What the rddp generic-netlink family reports (include/uapi/linux/
// rddp_netlink.h), as plain structs. Every field a message may lack is
// optional: decode.cc leaves it empty, format.cc prints "-" or omits it.
#ifndef RDDPCTL_MODEL_H
#define RDDPCTL_MODEL_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rddpctl {

// RDDP_A_SET_*: a device's connection settings, or the subset `dev set`
// changes.
struct Settings {
  std::optional<bool> crc{};
  std::optional<bool> markers{};
  std::optional<uint8_t> mpa_rev{};
  std::optional<bool> tx_batch{};
  std::optional<bool> tx_zcopy{};
  std::optional<uint32_t> peer_timeout_ms{};  // 0: off
  std::optional<uint8_t> transport{};         // enum rddp_transport
  std::optional<bool> multihome{};            // SCTP: bind every address

  [[nodiscard]] bool Empty() const {
    return !crc && !markers && !mpa_rev && !tx_batch && !tx_zcopy && !peer_timeout_ms &&
           !transport && !multihome;
  }
  bool operator==(const Settings&) const = default;
};

// One RDDP_A_STAT_* counter; name is its lower_snake_case name from
// CounterName(), a string with static storage.
struct Counter {
  std::string_view name;
  uint64_t value = 0;
  bool operator==(const Counter&) const = default;
};

// A struct sockaddr_in or sockaddr_in6 from an attribute.
struct Endpoint {
  std::string address{};  // inet_ntop() text, no brackets
  uint16_t port = 0;      // host order
  bool ipv6 = false;

  // "192.0.2.1:7174" or "[2001:db8::1]:7174".
  [[nodiscard]] std::string ToString() const;
  bool operator==(const Endpoint&) const = default;
};

// A reply to RDDP_CMD_DEV_GET.
struct Device {
  std::optional<std::string> name{};
  std::optional<uint32_t> index{};
  std::optional<std::string> netdev{};
  std::optional<uint32_t> netdev_index{};
  std::optional<uint8_t> port_state{};  // enum ib_port_state
  std::optional<uint32_t> qps{};
  // Who named the device, from RDMA netlink (RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE,
  // Linux 6.11 and later): 1 the user, whom udev's rdma_rename obeys.
  std::optional<uint8_t> name_assign_type{};
  Settings settings;
  std::vector<Counter> counters{};  // those present, in RDDP_A_STAT_* order
};

// RDDP_A_TERM_*: a Terminate's error fields (RFC 5040 §4.8).
struct Terminate {
  std::optional<uint8_t> layer{};  // 0 RDMAP, 1 DDP, 2 LLP (MPA)
  std::optional<uint8_t> etype{};
  std::optional<uint8_t> ecode{};
};

// One RDDP_A_QP nest of an RDDP_CMD_QP_GET dump.
struct Qp {
  std::optional<std::string> dev{};
  std::optional<uint32_t> num{};
  std::optional<uint8_t> state{};  // enum ib_qp_state
  bool connected = false;
  std::optional<Endpoint> local{};
  std::optional<Endpoint> remote{};
  std::optional<uint8_t> mpa_rev{};
  std::optional<bool> crc{};
  std::optional<bool> markers_tx{};
  std::optional<bool> markers_rx{};
  std::optional<uint16_t> ird{};
  std::optional<uint16_t> ord{};
  std::optional<uint8_t> rtr{};  // enum rddp_rtr
  std::optional<uint32_t> mulpdu{};
  std::optional<uint64_t> tx_fpdus{};
  std::optional<uint64_t> tx_bytes{};
  std::optional<uint64_t> rx_fpdus{};
  std::optional<uint64_t> rx_bytes{};
  std::optional<uint8_t> transport{};  // enum rddp_transport
  std::optional<uint16_t> tx_ssn{};    // SCTP: our next DDP-SSN
  std::optional<uint16_t> rx_ssn{};    // SCTP: the next DDP-SSN delivered
  std::optional<std::string> error{};
  std::optional<Terminate> term_tx{};
  std::optional<Terminate> term_rx{};
};

// One RDDP_A_EVENT nest of an RDDP_CMD_EVENT notification.
struct Event {
  std::optional<uint8_t> type{};  // enum rddp_event_type
  std::optional<std::string> dev{};
  std::optional<uint32_t> qp_num{};
  std::optional<uint8_t> qp_state{};
  std::optional<Terminate> term{};
  std::optional<uint32_t> error{};  // positive errno
  std::optional<Endpoint> remote{};
};

}  // namespace rddpctl

#endif  // RDDPCTL_MODEL_H
