// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Netlink messages into the plain structs of model.h. Each decoder takes
// one whole message as received (struct nlmsghdr first) and trusts nothing
// in it: an attribute of the wrong size counts as missing, strings end at
// their NUL or their length, unknown attributes are skipped.
#ifndef RDDPCTL_DECODE_H
#define RDDPCTL_DECODE_H

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model.h"

namespace rddpctl {

// An RDDP_CMD_DEV_GET reply; nullopt if it is no generic-netlink message.
std::optional<Device> DecodeDevice(const nlmsghdr* msg);
// An RDDP_CMD_QP_GET dump message; nullopt without an RDDP_A_QP nest.
std::optional<Qp> DecodeQp(const nlmsghdr* msg);
// An RDDP_CMD_EVENT notification; nullopt without an RDDP_A_EVENT nest.
std::optional<Event> DecodeEvent(const nlmsghdr* msg);

// A struct sockaddr_in or sockaddr_in6 (an attribute's payload), or
// nullopt for another family or a short buffer.
std::optional<Endpoint> DecodeSockaddr(const void* data, size_t len);

// The generic-netlink controller's answer to CTRL_CMD_GETFAMILY.
struct GenlFamily {
  uint16_t id = 0;
  uint32_t version = 0;
  std::map<std::string, uint32_t> groups;  // multicast group name -> id
};
std::optional<GenlFamily> DecodeGenlFamily(const nlmsghdr* msg);

// RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE (u8: 0 unknown, 1 the user), sent by
// Linux 6.11 and later; the number is written here because the build
// host's uapi headers may predate it.
inline constexpr int kRdmaNldevAttrNameAssignType = 101;

// One device of an RDMA_NLDEV_CMD_GET dump (NETLINK_RDMA).
struct RdmaDevice {
  std::string name;
  uint32_t index = 0;
  std::optional<uint8_t> name_assign_type{};  // absent before Linux 6.11
};
std::optional<RdmaDevice> DecodeRdmaDevice(const nlmsghdr* msg);

// The kernel's verdict in an NLMSG_ERROR or NLMSG_DONE message: a positive
// errno (0: success) and the extended-ack message (NETLINK_EXT_ACK), if any.
struct NetlinkStatus {
  int error = 0;
  std::string message;
};
// Requires msg->nlmsg_type == NLMSG_ERROR. A truncated message is EPROTO.
NetlinkStatus DecodeErrorMessage(const nlmsghdr* msg);
// Requires msg->nlmsg_type == NLMSG_DONE: a dump that failed after it
// started carries its errno there.
NetlinkStatus DecodeDoneMessage(const nlmsghdr* msg);

}  // namespace rddpctl

#endif  // RDDPCTL_DECODE_H
