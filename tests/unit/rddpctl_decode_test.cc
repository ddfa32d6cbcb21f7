// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's decoders (userspace/rddpctl/decode.h) on messages built with
// libnl as rddp.ko, the generic-netlink controller, RDMA netlink and the
// netlink core build them: complete ones, and ones with attributes
// missing, mis-sized, unterminated or cut off.
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <rdma/rdma_netlink.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "decode.h"
#include "rddpctl_messages.h"

namespace rddpctl {
namespace {

using testing::DeviceMessage;
using testing::GenlMessage;
using testing::kFamilyId;
using testing::PutSockaddr4;
using testing::PutSockaddr6;
using testing::PutTerminate;
using testing::PutU64;

const nlmsghdr* Hdr(const NlMsgPtr& msg) { return nlmsg_hdr(msg.get()); }

TEST(RddpctlDecode, FullDevice) {
  NlMsgPtr msg = DeviceMessage("rddp0", 2, 10);
  std::optional<Device> d = DecodeDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rddp0");
  EXPECT_EQ(d->index, 2U);
  EXPECT_EQ(d->netdev, "dummy0");
  EXPECT_EQ(d->netdev_index, 7U);
  EXPECT_EQ(d->port_state, 4);
  EXPECT_EQ(d->qps, 3U);
  EXPECT_EQ(d->settings, (Settings{.crc = true,
                                   .markers = false,
                                   .mpa_rev = 2,
                                   .tx_batch = true,
                                   .tx_zcopy = true,
                                   .peer_timeout_ms = 60000,
                                   .transport = RDDP_TRANSPORT_TCP,
                                   .multihome = false}));
  ASSERT_EQ(d->counters.size(), 31U);
  EXPECT_EQ(d->counters.front(), (Counter{"tx_fpdus", 10}));
  EXPECT_EQ(d->counters[1], (Counter{"tx_bytes", 20}));
  EXPECT_EQ(d->counters[4], (Counter{"rx_crc_errors", 50}));
  EXPECT_EQ(d->counters[13], (Counter{"conn_attempts", 140}));
  EXPECT_EQ(d->counters[19], (Counter{"mpa_timeouts", 200}));
  EXPECT_EQ(d->counters[20], (Counter{"tx_zcopy_bytes", 210}));
  EXPECT_EQ(d->counters[23], (Counter{"mr_remote_invals", 240}));
  EXPECT_EQ(d->counters[24], (Counter{"sctp_tx_chunks", 250}));
  EXPECT_EQ(d->counters[25], (Counter{"sctp_rx_chunks", 260}));
  EXPECT_EQ(d->counters[26], (Counter{"sctp_rx_held", 270}));
  EXPECT_EQ(d->counters[27], (Counter{"sctp_rx_placed_early", 280}));
  EXPECT_EQ(d->counters[28], (Counter{"sctp_resegments", 290}));
  EXPECT_EQ(d->counters[29], (Counter{"tx_batches", 300}));
  EXPECT_EQ(d->counters.back(), (Counter{"tx_far_kicks", 310}));
}

TEST(RddpctlDecode, DeviceWithOnlyAName) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  ASSERT_EQ(nla_put_string(msg.get(), RDDP_A_DEV_NAME, "rddp7"), 0);
  std::optional<Device> d = DecodeDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rddp7");
  EXPECT_FALSE(d->index);
  EXPECT_FALSE(d->netdev);
  EXPECT_FALSE(d->netdev_index);
  EXPECT_FALSE(d->port_state);
  EXPECT_FALSE(d->qps);
  EXPECT_TRUE(d->settings.Empty());
  EXPECT_TRUE(d->counters.empty());
}

TEST(RddpctlDecode, EmptyDeviceMessage) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  std::optional<Device> d = DecodeDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->name);
}

TEST(RddpctlDecode, WrongSizedAttributesCountAsMissing) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  nl_msg* m = msg.get();
  ASSERT_EQ(nla_put_u16(m, RDDP_A_DEV_INDEX, 1), 0);       // u32 expected
  ASSERT_EQ(nla_put_u32(m, RDDP_A_DEV_PORT_STATE, 4), 0);  // u8 expected
  ASSERT_EQ(nla_put_u8(m, RDDP_A_DEV_QPS, 3), 0);          // u32 expected
  nlattr* set = nla_nest_start(m, RDDP_A_DEV_SETTINGS);
  ASSERT_EQ(nla_put_u32(m, RDDP_A_SET_CRC, 1), 0);
  ASSERT_EQ(nla_put_u8(m, RDDP_A_SET_MPA_REV, 1), 0);
  nla_nest_end(m, set);
  nlattr* stats = nla_nest_start(m, RDDP_A_DEV_STATS);
  ASSERT_EQ(nla_put_u32(m, RDDP_A_STAT_TX_FPDUS, 5), 0);  // u64 expected
  PutU64(m, RDDP_A_STAT_RX_BYTES, 1ULL << 40, RDDP_A_STAT_PAD);
  nla_nest_end(m, stats);
  std::optional<Device> d = DecodeDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->index);
  EXPECT_FALSE(d->port_state);
  EXPECT_FALSE(d->qps);
  EXPECT_FALSE(d->settings.crc);
  EXPECT_EQ(d->settings.mpa_rev, 1);
  ASSERT_EQ(d->counters.size(), 1U);
  EXPECT_EQ(d->counters[0], (Counter{"rx_bytes", 1ULL << 40}));
}

TEST(RddpctlDecode, UnknownAttributesAreSkipped) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  nl_msg* m = msg.get();
  ASSERT_EQ(nla_put_u32(m, RDDP_A_MAX + 5, 99), 0);  // from a newer module
  ASSERT_EQ(nla_put_string(m, RDDP_A_DEV_NAME, "rddp0"), 0);
  nlattr* stats = nla_nest_start(m, RDDP_A_DEV_STATS);
  PutU64(m, RDDP_A_STAT_MAX + 1, 7, RDDP_A_STAT_PAD);
  PutU64(m, RDDP_A_STAT_TX_BYTES, 8, RDDP_A_STAT_PAD);
  nla_nest_end(m, stats);
  std::optional<Device> d = DecodeDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rddp0");
  ASSERT_EQ(d->counters.size(), 1U);
  EXPECT_EQ(d->counters[0], (Counter{"tx_bytes", 8}));
}

TEST(RddpctlDecode, StringsEndAtTheirNulOrLength) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  const char unterminated[] = {'r', 'd', 'd', 'p'};
  ASSERT_EQ(nla_put(msg.get(), RDDP_A_DEV_NAME, sizeof(unterminated), unterminated), 0);
  const char early_nul[] = "eth0\0junk";
  ASSERT_EQ(nla_put(msg.get(), RDDP_A_DEV_NETDEV, sizeof(early_nul), early_nul), 0);
  std::optional<Device> d = DecodeDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rddp");
  EXPECT_EQ(d->netdev, "eth0");
}

TEST(RddpctlDecode, TooShortForAGenlHeader) {
  NlMsgPtr msg(nlmsg_alloc_simple(kFamilyId, 0));
  ASSERT_TRUE(msg);
  EXPECT_FALSE(DecodeDevice(Hdr(msg)));
  EXPECT_FALSE(DecodeQp(Hdr(msg)));
  EXPECT_FALSE(DecodeEvent(Hdr(msg)));
  EXPECT_FALSE(DecodeGenlFamily(Hdr(msg)));
  EXPECT_FALSE(DecodeDevice(nullptr));
}

TEST(RddpctlDecode, AttributeRunningPastTheMessage) {
  // A name, then an attribute header claiming more bytes than follow: the
  // parser keeps what came before and drops the rest.
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  ASSERT_EQ(nla_put_string(msg.get(), RDDP_A_DEV_NAME, "rddp0"), 0);
  ASSERT_EQ(nla_put_u32(msg.get(), RDDP_A_DEV_QPS, 3), 0);
  const auto* start = reinterpret_cast<const unsigned char*>(Hdr(msg));
  std::vector<unsigned char> bytes(start, start + Hdr(msg)->nlmsg_len);
  auto* qps = reinterpret_cast<nlattr*>(bytes.data() + bytes.size() - NLA_ALIGN(8));
  ASSERT_EQ(qps->nla_type, RDDP_A_DEV_QPS);
  qps->nla_len = 200;
  std::optional<Device> d = DecodeDevice(reinterpret_cast<nlmsghdr*>(bytes.data()));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rddp0");
  EXPECT_FALSE(d->qps);
}

NlMsgPtr ConnectedQpMessage() {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_QP_GET);
  nl_msg* m = msg.get();
  nlattr* qp = nla_nest_start(m, RDDP_A_QP);
  EXPECT_EQ(nla_put_string(m, RDDP_A_QP_DEV_NAME, "rddp0"), 0);
  EXPECT_EQ(nla_put_u32(m, RDDP_A_QP_NUM, 17), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_STATE, 3), 0);
  EXPECT_EQ(nla_put_flag(m, RDDP_A_QP_CONNECTED), 0);
  PutSockaddr4(m, RDDP_A_QP_LOCAL_ADDR, "198.51.100.1", 7174);
  PutSockaddr4(m, RDDP_A_QP_REMOTE_ADDR, "198.51.100.2", 40000);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_MPA_REV, 2), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_CRC, 1), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_MARKERS_TX, 0), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_MARKERS_RX, 1), 0);
  EXPECT_EQ(nla_put_u16(m, RDDP_A_QP_IRD, 16), 0);
  EXPECT_EQ(nla_put_u16(m, RDDP_A_QP_ORD, 8), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_RTR, RDDP_RTR_WRITE), 0);
  EXPECT_EQ(nla_put_u32(m, RDDP_A_QP_MULPDU, 1424), 0);
  PutU64(m, RDDP_A_QP_TX_FPDUS, 100, RDDP_A_QP_PAD);
  PutU64(m, RDDP_A_QP_TX_BYTES, 1ULL << 33, RDDP_A_QP_PAD);
  PutU64(m, RDDP_A_QP_RX_FPDUS, 90, RDDP_A_QP_PAD);
  PutU64(m, RDDP_A_QP_RX_BYTES, 123456, RDDP_A_QP_PAD);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_QP_TRANSPORT, RDDP_TRANSPORT_SCTP), 0);
  EXPECT_EQ(nla_put_u16(m, RDDP_A_QP_TX_SSN, 65535), 0);
  EXPECT_EQ(nla_put_u16(m, RDDP_A_QP_RX_SSN, 7), 0);
  EXPECT_EQ(nla_put_string(m, RDDP_A_QP_ERROR, "DDP: invalid STag"), 0);
  PutTerminate(m, RDDP_A_QP_TERM_TX, 1, 0, 0x02);
  PutTerminate(m, RDDP_A_QP_TERM_RX, 0, 2, 0x05);
  nla_nest_end(m, qp);
  return msg;
}

TEST(RddpctlDecode, ConnectedQp) {
  NlMsgPtr msg = ConnectedQpMessage();
  std::optional<Qp> q = DecodeQp(Hdr(msg));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->dev, "rddp0");
  EXPECT_EQ(q->num, 17U);
  EXPECT_EQ(q->state, 3);
  EXPECT_TRUE(q->connected);
  EXPECT_EQ(q->local, (Endpoint{"198.51.100.1", 7174, false}));
  EXPECT_EQ(q->remote, (Endpoint{"198.51.100.2", 40000, false}));
  EXPECT_EQ(q->mpa_rev, 2);
  EXPECT_EQ(q->crc, true);
  EXPECT_EQ(q->markers_tx, false);
  EXPECT_EQ(q->markers_rx, true);
  EXPECT_EQ(q->ird, 16);
  EXPECT_EQ(q->ord, 8);
  EXPECT_EQ(q->rtr, RDDP_RTR_WRITE);
  EXPECT_EQ(q->mulpdu, 1424U);
  EXPECT_EQ(q->tx_fpdus, 100U);
  EXPECT_EQ(q->tx_bytes, 1ULL << 33);
  EXPECT_EQ(q->rx_fpdus, 90U);
  EXPECT_EQ(q->rx_bytes, 123456U);
  EXPECT_EQ(q->transport, RDDP_TRANSPORT_SCTP);
  EXPECT_EQ(q->tx_ssn, 65535);
  EXPECT_EQ(q->rx_ssn, 7);
  EXPECT_EQ(q->error, "DDP: invalid STag");
  ASSERT_TRUE(q->term_tx);
  EXPECT_EQ(q->term_tx->layer, 1);
  EXPECT_EQ(q->term_tx->etype, 0);
  EXPECT_EQ(q->term_tx->ecode, 0x02);
  ASSERT_TRUE(q->term_rx);
  EXPECT_EQ(q->term_rx->layer, 0);
  EXPECT_EQ(q->term_rx->etype, 2);
  EXPECT_EQ(q->term_rx->ecode, 0x05);
}

TEST(RddpctlDecode, UnconnectedQp) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_QP_GET);
  nlattr* qp = nla_nest_start(msg.get(), RDDP_A_QP);
  ASSERT_EQ(nla_put_string(msg.get(), RDDP_A_QP_DEV_NAME, "rddp1"), 0);
  ASSERT_EQ(nla_put_u32(msg.get(), RDDP_A_QP_NUM, 1), 0);
  ASSERT_EQ(nla_put_u8(msg.get(), RDDP_A_QP_STATE, 0), 0);
  nla_nest_end(msg.get(), qp);
  std::optional<Qp> q = DecodeQp(Hdr(msg));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->dev, "rddp1");
  EXPECT_EQ(q->state, 0);
  EXPECT_FALSE(q->connected);
  EXPECT_FALSE(q->local);
  EXPECT_FALSE(q->mpa_rev);
  EXPECT_FALSE(q->tx_bytes);
  EXPECT_FALSE(q->transport);
  EXPECT_FALSE(q->tx_ssn);
  EXPECT_FALSE(q->rx_ssn);
  EXPECT_FALSE(q->error);
  EXPECT_FALSE(q->term_tx);
}

TEST(RddpctlDecode, QpNeedsItsNest) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_QP_GET);
  ASSERT_EQ(nla_put_u32(msg.get(), RDDP_A_QP_NUM, 1), 0);  // not nested
  EXPECT_FALSE(DecodeQp(Hdr(msg)));
}

TEST(RddpctlDecode, TerminateWithMissingFields) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_QP_GET);
  nlattr* qp = nla_nest_start(msg.get(), RDDP_A_QP);
  nlattr* term = nla_nest_start(msg.get(), RDDP_A_QP_TERM_RX);
  ASSERT_EQ(nla_put_u8(msg.get(), RDDP_A_TERM_LAYER, 2), 0);
  nla_nest_end(msg.get(), term);
  nla_nest_end(msg.get(), qp);
  std::optional<Qp> q = DecodeQp(Hdr(msg));
  ASSERT_TRUE(q && q->term_rx);
  EXPECT_EQ(q->term_rx->layer, 2);
  EXPECT_FALSE(q->term_rx->etype);
  EXPECT_FALSE(q->term_rx->ecode);
}

TEST(RddpctlDecode, Sockaddrs) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_QP_GET);
  nlattr* qp = nla_nest_start(msg.get(), RDDP_A_QP);
  PutSockaddr6(msg.get(), RDDP_A_QP_LOCAL_ADDR, "2001:db8::1", 7174);
  PutSockaddr6(msg.get(), RDDP_A_QP_REMOTE_ADDR, "::ffff:192.0.2.5", 1);
  nla_nest_end(msg.get(), qp);
  std::optional<Qp> q = DecodeQp(Hdr(msg));
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->local);
  EXPECT_EQ(*q->local, (Endpoint{"2001:db8::1", 7174, true}));
  EXPECT_EQ(q->local->ToString(), "[2001:db8::1]:7174");
  ASSERT_TRUE(q->remote);
  EXPECT_EQ(q->remote->ToString(), "[::ffff:192.0.2.5]:1");
  EXPECT_EQ((Endpoint{"192.0.2.1", 80, false}).ToString(), "192.0.2.1:80");
}

TEST(RddpctlDecode, BadSockaddrs) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  EXPECT_TRUE(DecodeSockaddr(&sin, sizeof(sin)));
  EXPECT_FALSE(DecodeSockaddr(&sin, sizeof(sin) - 1));  // short
  EXPECT_FALSE(DecodeSockaddr(&sin, 1));
  EXPECT_FALSE(DecodeSockaddr(nullptr, 0));
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  EXPECT_TRUE(DecodeSockaddr(&sin6, sizeof(sin6)));
  EXPECT_FALSE(DecodeSockaddr(&sin6, sizeof(sockaddr_in)));  // an in6 cut to in
  sockaddr_storage unix_addr{};
  unix_addr.ss_family = AF_UNIX;
  EXPECT_FALSE(DecodeSockaddr(&unix_addr, sizeof(unix_addr)));
}

NlMsgPtr EventMessage(uint8_t type) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_EVENT);
  nlattr* ev = nla_nest_start(msg.get(), RDDP_A_EVENT);
  EXPECT_EQ(nla_put_u8(msg.get(), RDDP_A_EVENT_TYPE, type), 0);
  EXPECT_EQ(nla_put_string(msg.get(), RDDP_A_EVENT_DEV_NAME, "rddp0"), 0);
  switch (type) {
    case RDDP_EVENT_QP_STATE:
      EXPECT_EQ(nla_put_u32(msg.get(), RDDP_A_EVENT_QP_NUM, 5), 0);
      EXPECT_EQ(nla_put_u8(msg.get(), RDDP_A_EVENT_QP_STATE, 6), 0);
      break;
    case RDDP_EVENT_TERM_TX:
    case RDDP_EVENT_TERM_RX:
      EXPECT_EQ(nla_put_u32(msg.get(), RDDP_A_EVENT_QP_NUM, 5), 0);
      PutTerminate(msg.get(), RDDP_A_EVENT_TERM, 1, 1, 0x03);
      break;
    case RDDP_EVENT_CONN_FAILED:
      EXPECT_EQ(nla_put_u32(msg.get(), RDDP_A_EVENT_ERRNO, ECONNREFUSED), 0);
      PutSockaddr4(msg.get(), RDDP_A_EVENT_REMOTE_ADDR, "198.51.100.1", 1);
      break;
    default:
      break;
  }
  nla_nest_end(msg.get(), ev);
  return msg;
}

TEST(RddpctlDecode, Events) {
  NlMsgPtr msg = EventMessage(RDDP_EVENT_QP_STATE);
  std::optional<Event> e = DecodeEvent(Hdr(msg));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, RDDP_EVENT_QP_STATE);
  EXPECT_EQ(e->dev, "rddp0");
  EXPECT_EQ(e->qp_num, 5U);
  EXPECT_EQ(e->qp_state, 6);
  EXPECT_FALSE(e->term);
  EXPECT_FALSE(e->error);

  msg = EventMessage(RDDP_EVENT_TERM_RX);
  e = DecodeEvent(Hdr(msg));
  ASSERT_TRUE(e && e->term);
  EXPECT_EQ(e->type, RDDP_EVENT_TERM_RX);
  EXPECT_EQ(e->term->ecode, 0x03);
  EXPECT_FALSE(e->qp_state);

  msg = EventMessage(RDDP_EVENT_CONN_FAILED);
  e = DecodeEvent(Hdr(msg));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->error, static_cast<uint32_t>(ECONNREFUSED));
  EXPECT_EQ(e->remote, (Endpoint{"198.51.100.1", 1, false}));
  EXPECT_FALSE(e->qp_num);

  msg = EventMessage(RDDP_EVENT_DEV_REMOVED);
  e = DecodeEvent(Hdr(msg));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, RDDP_EVENT_DEV_REMOVED);
  EXPECT_FALSE(e->qp_num);
  EXPECT_FALSE(e->remote);

  msg = GenlMessage(RDDP_CMD_EVENT);
  EXPECT_FALSE(DecodeEvent(Hdr(msg)));
}

TEST(RddpctlDecode, GenlFamily) {
  NlMsgPtr msg = NewMessage();
  ASSERT_NE(genlmsg_put(msg.get(), 0, 1, GENL_ID_CTRL, 0, 0, CTRL_CMD_NEWFAMILY, 2), nullptr);
  ASSERT_EQ(nla_put_string(msg.get(), CTRL_ATTR_FAMILY_NAME, "rddp"), 0);
  ASSERT_EQ(nla_put_u16(msg.get(), CTRL_ATTR_FAMILY_ID, 0x25), 0);
  ASSERT_EQ(nla_put_u32(msg.get(), CTRL_ATTR_VERSION, 1), 0);
  nlattr* groups = nla_nest_start(msg.get(), CTRL_ATTR_MCAST_GROUPS);
  const std::array<std::pair<const char*, uint32_t>, 2> list = {{{"monitor", 9}, {"other", 10}}};
  int position = 1;
  for (const auto& [name, id] : list) {
    nlattr* g = nla_nest_start(msg.get(), position++);
    ASSERT_EQ(nla_put_string(msg.get(), CTRL_ATTR_MCAST_GRP_NAME, name), 0);
    ASSERT_EQ(nla_put_u32(msg.get(), CTRL_ATTR_MCAST_GRP_ID, id), 0);
    nla_nest_end(msg.get(), g);
  }
  nlattr* broken = nla_nest_start(msg.get(), position);  // a group without an id
  ASSERT_EQ(nla_put_string(msg.get(), CTRL_ATTR_MCAST_GRP_NAME, "broken"), 0);
  nla_nest_end(msg.get(), broken);
  nla_nest_end(msg.get(), groups);
  std::optional<GenlFamily> f = DecodeGenlFamily(Hdr(msg));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->id, 0x25);
  EXPECT_EQ(f->version, 1U);
  EXPECT_EQ(f->groups, (std::map<std::string, uint32_t>{{"monitor", 9}, {"other", 10}}));
}

TEST(RddpctlDecode, GenlFamilyNeedsAnId) {
  NlMsgPtr msg = NewMessage();
  ASSERT_NE(genlmsg_put(msg.get(), 0, 1, GENL_ID_CTRL, 0, 0, CTRL_CMD_NEWFAMILY, 2), nullptr);
  ASSERT_EQ(nla_put_string(msg.get(), CTRL_ATTR_FAMILY_NAME, "rddp"), 0);
  EXPECT_FALSE(DecodeGenlFamily(Hdr(msg)));
}

TEST(RddpctlDecode, RdmaDevice) {
  NlMsgPtr msg(nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), 0));
  ASSERT_TRUE(msg);
  ASSERT_EQ(nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_DEV_INDEX, 3), 0);
  ASSERT_EQ(nla_put_string(msg.get(), RDMA_NLDEV_ATTR_DEV_NAME, "rddp0"), 0);
  ASSERT_EQ(nla_put_string(msg.get(), RDMA_NLDEV_ATTR_FW_VERSION, "1.0"), 0);
  std::optional<RdmaDevice> d = DecodeRdmaDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rddp0");
  EXPECT_EQ(d->index, 3U);
  EXPECT_FALSE(d->name_assign_type);  // a kernel before 6.11 sends none

  // Linux 6.11's RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE, past the host's uapi
  // headers' RDMA_NLDEV_ATTR_MAX where they are 6.1's.
  ASSERT_EQ(nla_put_u8(msg.get(), kRdmaNldevAttrNameAssignType, 1), 0);
  d = DecodeRdmaDevice(Hdr(msg));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name_assign_type, std::optional<uint8_t>(1));

  NlMsgPtr nameless(nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), 0));
  ASSERT_EQ(nla_put_u32(nameless.get(), RDMA_NLDEV_ATTR_DEV_INDEX, 3), 0);
  EXPECT_FALSE(DecodeRdmaDevice(Hdr(nameless)));
}

// An NLMSG_ERROR as netlink_ack() builds it: the error, the request's
// header (all of the request unless capped), then the ext-ack TLVs.
NlMsgPtr ErrorMessage(int error, bool capped, const char* text, uint32_t request_len) {
  NlMsgPtr msg(nlmsg_alloc_simple(NLMSG_ERROR, 0));
  EXPECT_TRUE(msg);
  nlmsgerr err{};
  err.error = -error;
  err.msg.nlmsg_len = request_len;
  err.msg.nlmsg_type = kFamilyId;
  std::vector<unsigned char> payload(sizeof(err));
  std::memcpy(payload.data(), &err, sizeof(err));
  if (!capped) payload.resize(sizeof(err) + request_len - NLMSG_HDRLEN, 0xab);
  EXPECT_EQ(nlmsg_append(msg.get(), payload.data(), payload.size(), NLMSG_ALIGNTO), 0);
  nlmsghdr* hdr = nlmsg_hdr(msg.get());
  if (capped) hdr->nlmsg_flags |= NLM_F_CAPPED;
  if (text != nullptr) {
    hdr->nlmsg_flags |= NLM_F_ACK_TLVS;
    EXPECT_EQ(nla_put_u32(msg.get(), NLMSGERR_ATTR_OFFS, 20), 0);
    EXPECT_EQ(nla_put_string(msg.get(), NLMSGERR_ATTR_MSG, text), 0);
  }
  return msg;
}

TEST(RddpctlDecode, ErrorWithExtAckCapped) {
  NlMsgPtr msg = ErrorMessage(ENODEV, true, "no such rddp device", 36);
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.error, ENODEV);
  EXPECT_EQ(s.message, "no such rddp device");
}

TEST(RddpctlDecode, ErrorWithExtAckAfterAnUnalignedEchoedRequest) {
  // 37 bytes of request: the TLVs start at the next 4-byte boundary.
  NlMsgPtr msg = ErrorMessage(EINVAL, false, "Attribute failed policy validation", 37);
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.error, EINVAL);
  EXPECT_EQ(s.message, "Attribute failed policy validation");
}

TEST(RddpctlDecode, ErrorWithoutExtAck) {
  NlMsgPtr msg = ErrorMessage(EPERM, false, nullptr, 40);
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.error, EPERM);
  EXPECT_EQ(s.message, "");
}

TEST(RddpctlDecode, AckIsSuccess) {
  NlMsgPtr msg = ErrorMessage(0, true, nullptr, 36);
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.error, 0);
  EXPECT_EQ(s.message, "");
}

TEST(RddpctlDecode, ErrorNamingAMissingAttribute) {
  NlMsgPtr msg = ErrorMessage(EINVAL, true, nullptr, 36);
  nlmsg_hdr(msg.get())->nlmsg_flags |= NLM_F_ACK_TLVS;
  ASSERT_EQ(nla_put_u32(msg.get(), NLMSGERR_ATTR_MISS_TYPE, RDDP_A_DEV_NAME), 0);
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.message, "missing attribute " + std::to_string(RDDP_A_DEV_NAME));
}

TEST(RddpctlDecode, TruncatedError) {
  NlMsgPtr msg(nlmsg_alloc_simple(NLMSG_ERROR, 0));
  int32_t error = -ENODEV;
  ASSERT_EQ(nlmsg_append(msg.get(), &error, sizeof(error), NLMSG_ALIGNTO), 0);
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.error, EPROTO);
}

TEST(RddpctlDecode, ErrorWithBogusEchoedLength) {
  // An echoed length far past the message: no TLVs to find, no overrun.
  NlMsgPtr msg = ErrorMessage(EIO, true, "ignored", 36);
  nlmsgerr err{};
  std::memcpy(&err, nlmsg_data(Hdr(msg)), sizeof(err));
  err.msg.nlmsg_len = 0xfffffff0;
  std::memcpy(nlmsg_data(Hdr(msg)), &err, sizeof(err));
  nlmsg_hdr(msg.get())->nlmsg_flags &= ~NLM_F_CAPPED;
  NetlinkStatus s = DecodeErrorMessage(Hdr(msg));
  EXPECT_EQ(s.error, EIO);
  EXPECT_EQ(s.message, "");
}

TEST(RddpctlDecode, DumpDone) {
  NlMsgPtr ok(nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI));
  int32_t zero = 0;
  ASSERT_EQ(nlmsg_append(ok.get(), &zero, sizeof(zero), NLMSG_ALIGNTO), 0);
  EXPECT_EQ(DecodeDoneMessage(Hdr(ok)).error, 0);

  NlMsgPtr failed(nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI));
  int32_t emsgsize = -EMSGSIZE;
  ASSERT_EQ(nlmsg_append(failed.get(), &emsgsize, sizeof(emsgsize), NLMSG_ALIGNTO), 0);
  nlmsg_hdr(failed.get())->nlmsg_flags |= NLM_F_ACK_TLVS;
  ASSERT_EQ(nla_put_string(failed.get(), NLMSGERR_ATTR_MSG, "too big"), 0);
  NetlinkStatus s = DecodeDoneMessage(Hdr(failed));
  EXPECT_EQ(s.error, EMSGSIZE);
  EXPECT_EQ(s.message, "too big");

  NlMsgPtr bare(nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI));  // pre-4.x kernels
  EXPECT_EQ(DecodeDoneMessage(Hdr(bare)).error, 0);
}

}  // namespace
}  // namespace rddpctl
