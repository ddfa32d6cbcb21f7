// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Decoders for rddp, nlctrl and RDMA-netlink messages (decode.h).
#include "decode.h"

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/rddp_netlink.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "names.h"

namespace rddpctl {

namespace {

// The attributes of one level, indexed by type (missing ones null).
template <int Max>
using AttrTable = std::array<nlattr*, Max + 1>;

// libnl's parsers take non-const pointers; they only read through them.
nlmsghdr* Mutable(const nlmsghdr* msg) { return const_cast<nlmsghdr*>(msg); }
nlattr* Mutable(const nlattr* attr) { return const_cast<nlattr*>(attr); }

// The attributes after a generic-netlink header, or nullopt if the message
// is too short to have one.
template <int Max>
std::optional<AttrTable<Max>> ParseGenl(const nlmsghdr* msg) {
  if (msg == nullptr || genlmsg_valid_hdr(Mutable(msg), 0) == 0) return std::nullopt;
  const auto* genl = static_cast<const genlmsghdr*>(nlmsg_data(msg));
  AttrTable<Max> tb{};
  if (nla_parse(tb.data(), Max, genlmsg_attrdata(genl, 0), genlmsg_attrlen(genl, 0), nullptr) < 0)
    return std::nullopt;
  return tb;
}

// The attributes inside a nest, or nullopt if it is missing or malformed.
template <int Max>
std::optional<AttrTable<Max>> ParseNest(const nlattr* nest) {
  if (nest == nullptr) return std::nullopt;
  AttrTable<Max> tb{};
  if (nla_parse_nested(tb.data(), Max, Mutable(nest), nullptr) < 0) return std::nullopt;
  return tb;
}

// A fixed-size number; any other payload size means the attribute is not
// what this rddpctl expects, so it counts as missing.
template <typename T>
std::optional<T> Fixed(const nlattr* attr) {
  if (attr == nullptr || nla_len(attr) != static_cast<int>(sizeof(T))) return std::nullopt;
  T value{};
  std::memcpy(&value, nla_data(attr), sizeof(T));  // payloads are only 4-byte aligned
  return value;
}

std::optional<bool> Bool(const nlattr* attr) {
  std::optional<uint8_t> v = Fixed<uint8_t>(attr);
  if (!v) return std::nullopt;
  return *v != 0;
}

// A string up to its NUL, or all of it when the sender left the NUL out.
std::optional<std::string> String(const nlattr* attr) {
  if (attr == nullptr) return std::nullopt;
  const auto* text = static_cast<const char*>(nla_data(attr));
  return std::string(text, strnlen(text, static_cast<size_t>(nla_len(attr))));
}

std::optional<Endpoint> Address(const nlattr* attr) {
  if (attr == nullptr) return std::nullopt;
  return DecodeSockaddr(nla_data(attr), static_cast<size_t>(nla_len(attr)));
}

std::optional<Terminate> DecodeTerminate(const nlattr* nest) {
  auto tb = ParseNest<RDDP_A_TERM_MAX>(nest);
  if (!tb) return std::nullopt;
  Terminate t;
  t.layer = Fixed<uint8_t>((*tb)[RDDP_A_TERM_LAYER]);
  t.etype = Fixed<uint8_t>((*tb)[RDDP_A_TERM_ETYPE]);
  t.ecode = Fixed<uint8_t>((*tb)[RDDP_A_TERM_ECODE]);
  return t;
}

// The extended-ack attributes at `offset` into `msg`, if NLM_F_ACK_TLVS
// says there are some.
std::string ExtAckMessage(const nlmsghdr* msg, size_t offset) {
  if ((msg->nlmsg_flags & NLM_F_ACK_TLVS) == 0 || offset >= msg->nlmsg_len) return {};
  const auto* base = reinterpret_cast<const char*>(msg);
  AttrTable<NLMSGERR_ATTR_MAX> tb{};
  auto* head = reinterpret_cast<nlattr*>(const_cast<char*>(base + offset));
  if (nla_parse(tb.data(), NLMSGERR_ATTR_MAX, head, static_cast<int>(msg->nlmsg_len - offset),
                nullptr) < 0)
    return {};
  if (auto text = String(tb[NLMSGERR_ATTR_MSG]); text && !text->empty()) return *text;
  // Strict validation names a missing attribute by type only.
  if (auto missing = Fixed<uint32_t>(tb[NLMSGERR_ATTR_MISS_TYPE]))
    return "missing attribute " + std::to_string(*missing);
  return {};
}

}  // namespace

std::string Endpoint::ToString() const {
  return (ipv6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

std::optional<Endpoint> DecodeSockaddr(const void* data, size_t len) {
  sa_family_t family = 0;
  if (data == nullptr || len < sizeof(family)) return std::nullopt;
  std::memcpy(&family, data, sizeof(family));
  std::array<char, INET6_ADDRSTRLEN> text{};
  Endpoint ep;
  if (family == AF_INET && len >= sizeof(sockaddr_in)) {
    sockaddr_in sin{};
    std::memcpy(&sin, data, sizeof(sin));
    if (inet_ntop(AF_INET, &sin.sin_addr, text.data(), text.size()) == nullptr) return std::nullopt;
    ep.port = ntohs(sin.sin_port);
  } else if (family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    sockaddr_in6 sin6{};
    std::memcpy(&sin6, data, sizeof(sin6));
    if (inet_ntop(AF_INET6, &sin6.sin6_addr, text.data(), text.size()) == nullptr)
      return std::nullopt;
    ep.port = ntohs(sin6.sin6_port);
    ep.ipv6 = true;
  } else {
    return std::nullopt;
  }
  ep.address = text.data();
  return ep;
}

std::optional<Device> DecodeDevice(const nlmsghdr* msg) {
  auto tb = ParseGenl<RDDP_A_MAX>(msg);
  if (!tb) return std::nullopt;
  const auto& a = *tb;
  Device d;
  d.name = String(a[RDDP_A_DEV_NAME]);
  d.index = Fixed<uint32_t>(a[RDDP_A_DEV_INDEX]);
  d.netdev = String(a[RDDP_A_DEV_NETDEV]);
  d.netdev_index = Fixed<uint32_t>(a[RDDP_A_DEV_NETDEV_INDEX]);
  d.port_state = Fixed<uint8_t>(a[RDDP_A_DEV_PORT_STATE]);
  d.qps = Fixed<uint32_t>(a[RDDP_A_DEV_QPS]);
  if (auto set = ParseNest<RDDP_A_SET_MAX>(a[RDDP_A_DEV_SETTINGS])) {
    d.settings.crc = Bool((*set)[RDDP_A_SET_CRC]);
    d.settings.markers = Bool((*set)[RDDP_A_SET_MARKERS]);
    d.settings.mpa_rev = Fixed<uint8_t>((*set)[RDDP_A_SET_MPA_REV]);
    d.settings.tx_batch = Bool((*set)[RDDP_A_SET_TX_BATCH]);
    d.settings.tx_zcopy = Bool((*set)[RDDP_A_SET_TX_ZCOPY]);
    d.settings.peer_timeout_ms = Fixed<uint32_t>((*set)[RDDP_A_SET_PEER_TIMEOUT_MS]);
    d.settings.transport = Fixed<uint8_t>((*set)[RDDP_A_SET_TRANSPORT]);
    d.settings.multihome = Bool((*set)[RDDP_A_SET_MULTIHOME]);
  }
  if (auto stats = ParseNest<RDDP_A_STAT_MAX>(a[RDDP_A_DEV_STATS])) {
    for (int type = RDDP_A_STAT_TX_FPDUS; type <= RDDP_A_STAT_MAX; type++) {
      if (auto value = Fixed<uint64_t>((*stats)[type]))
        d.counters.push_back({CounterName(type), *value});
    }
  }
  return d;
}

std::optional<Qp> DecodeQp(const nlmsghdr* msg) {
  auto top = ParseGenl<RDDP_A_MAX>(msg);
  if (!top) return std::nullopt;
  auto tb = ParseNest<RDDP_A_QP_MAX>((*top)[RDDP_A_QP]);
  if (!tb) return std::nullopt;
  const auto& a = *tb;
  Qp q;
  q.dev = String(a[RDDP_A_QP_DEV_NAME]);
  q.num = Fixed<uint32_t>(a[RDDP_A_QP_NUM]);
  q.state = Fixed<uint8_t>(a[RDDP_A_QP_STATE]);
  q.connected = a[RDDP_A_QP_CONNECTED] != nullptr;
  q.local = Address(a[RDDP_A_QP_LOCAL_ADDR]);
  q.remote = Address(a[RDDP_A_QP_REMOTE_ADDR]);
  q.mpa_rev = Fixed<uint8_t>(a[RDDP_A_QP_MPA_REV]);
  q.crc = Bool(a[RDDP_A_QP_CRC]);
  q.markers_tx = Bool(a[RDDP_A_QP_MARKERS_TX]);
  q.markers_rx = Bool(a[RDDP_A_QP_MARKERS_RX]);
  q.ird = Fixed<uint16_t>(a[RDDP_A_QP_IRD]);
  q.ord = Fixed<uint16_t>(a[RDDP_A_QP_ORD]);
  q.rtr = Fixed<uint8_t>(a[RDDP_A_QP_RTR]);
  q.mulpdu = Fixed<uint32_t>(a[RDDP_A_QP_MULPDU]);
  q.tx_fpdus = Fixed<uint64_t>(a[RDDP_A_QP_TX_FPDUS]);
  q.tx_bytes = Fixed<uint64_t>(a[RDDP_A_QP_TX_BYTES]);
  q.rx_fpdus = Fixed<uint64_t>(a[RDDP_A_QP_RX_FPDUS]);
  q.rx_bytes = Fixed<uint64_t>(a[RDDP_A_QP_RX_BYTES]);
  q.transport = Fixed<uint8_t>(a[RDDP_A_QP_TRANSPORT]);
  q.tx_ssn = Fixed<uint16_t>(a[RDDP_A_QP_TX_SSN]);
  q.rx_ssn = Fixed<uint16_t>(a[RDDP_A_QP_RX_SSN]);
  q.error = String(a[RDDP_A_QP_ERROR]);
  q.term_tx = DecodeTerminate(a[RDDP_A_QP_TERM_TX]);
  q.term_rx = DecodeTerminate(a[RDDP_A_QP_TERM_RX]);
  return q;
}

std::optional<Event> DecodeEvent(const nlmsghdr* msg) {
  auto top = ParseGenl<RDDP_A_MAX>(msg);
  if (!top) return std::nullopt;
  auto tb = ParseNest<RDDP_A_EVENT_MAX>((*top)[RDDP_A_EVENT]);
  if (!tb) return std::nullopt;
  const auto& a = *tb;
  Event e;
  e.type = Fixed<uint8_t>(a[RDDP_A_EVENT_TYPE]);
  e.dev = String(a[RDDP_A_EVENT_DEV_NAME]);
  e.qp_num = Fixed<uint32_t>(a[RDDP_A_EVENT_QP_NUM]);
  e.qp_state = Fixed<uint8_t>(a[RDDP_A_EVENT_QP_STATE]);
  e.term = DecodeTerminate(a[RDDP_A_EVENT_TERM]);
  e.error = Fixed<uint32_t>(a[RDDP_A_EVENT_ERRNO]);
  e.remote = Address(a[RDDP_A_EVENT_REMOTE_ADDR]);
  return e;
}

std::optional<GenlFamily> DecodeGenlFamily(const nlmsghdr* msg) {
  auto tb = ParseGenl<CTRL_ATTR_MAX>(msg);
  if (!tb) return std::nullopt;
  auto id = Fixed<uint16_t>((*tb)[CTRL_ATTR_FAMILY_ID]);
  if (!id) return std::nullopt;
  GenlFamily family;
  family.id = *id;
  family.version = Fixed<uint32_t>((*tb)[CTRL_ATTR_VERSION]).value_or(0);
  if (const nlattr* groups = (*tb)[CTRL_ATTR_MCAST_GROUPS]) {
    // A nest of nests, one per group, typed by their position.
    const nlattr* group = nullptr;
    int remaining = 0;
    nla_for_each_nested(group, groups, remaining) {
      auto g = ParseNest<CTRL_ATTR_MCAST_GRP_MAX>(group);
      if (!g) continue;
      auto name = String((*g)[CTRL_ATTR_MCAST_GRP_NAME]);
      auto group_id = Fixed<uint32_t>((*g)[CTRL_ATTR_MCAST_GRP_ID]);
      if (name && group_id) family.groups[*name] = *group_id;
    }
  }
  return family;
}

std::optional<RdmaDevice> DecodeRdmaDevice(const nlmsghdr* msg) {
  // RDMA netlink has no family header: attributes follow nlmsghdr. The
  // table reaches the newest attribute read, whatever the headers say.
  constexpr int kMax = std::max(RDMA_NLDEV_ATTR_MAX - 1, kRdmaNldevAttrNameAssignType);
  AttrTable<kMax> tb{};
  if (msg == nullptr || nlmsg_parse(Mutable(msg), 0, tb.data(), kMax, nullptr) < 0)
    return std::nullopt;
  auto name = String(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
  auto index = Fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
  if (!name || !index) return std::nullopt;
  return RdmaDevice{*name, *index, Fixed<uint8_t>(tb[kRdmaNldevAttrNameAssignType])};
}

NetlinkStatus DecodeErrorMessage(const nlmsghdr* msg) {
  nlmsgerr err{};
  if (msg->nlmsg_len < NLMSG_HDRLEN + sizeof(err))
    return {EPROTO, "truncated netlink error message"};
  std::memcpy(&err, NLMSG_DATA(msg), sizeof(err));
  NetlinkStatus status{-err.error, {}};
  // The TLVs follow the echoed request: its header only when the kernel
  // capped it (NETLINK_CAP_ACK, and every ack of a success), all of it
  // otherwise, padded to NLMSG_ALIGNTO.
  size_t payload = sizeof(err);
  if ((msg->nlmsg_flags & NLM_F_CAPPED) == 0 && err.msg.nlmsg_len > NLMSG_HDRLEN)
    payload += err.msg.nlmsg_len - NLMSG_HDRLEN;
  status.message = ExtAckMessage(msg, NLMSG_HDRLEN + NLMSG_ALIGN(payload));
  return status;
}

NetlinkStatus DecodeDoneMessage(const nlmsghdr* msg) {
  int32_t done_errno = 0;
  // Old kernels sent NLMSG_DONE without the int.
  if (msg->nlmsg_len < NLMSG_HDRLEN + sizeof(done_errno)) return {};
  std::memcpy(&done_errno, NLMSG_DATA(msg), sizeof(done_errno));
  return {done_errno < 0 ? -done_errno : 0,
          ExtAckMessage(msg, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(done_errno)))};
}

}  // namespace rddpctl
