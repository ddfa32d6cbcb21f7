// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Builds netlink messages in memory the way rddp.ko lays them out
// (kmod/genl.c), for the rddpctl decoder and formatter tests.
#ifndef RDDPCTL_TEST_MESSAGES_H
#define RDDPCTL_TEST_MESSAGES_H

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/rddp_netlink.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstdint>
#include <string>

#include "netlink.h"

namespace rddpctl::testing {

// Any id the controller could assign.
constexpr uint16_t kFamilyId = 0x1d;

// An rddp generic-netlink message with command `cmd`.
inline NlMsgPtr GenlMessage(uint8_t cmd) {
  NlMsgPtr msg = NewMessage();
  EXPECT_NE(genlmsg_put(msg.get(), 0, 1, kFamilyId, 0, 0, cmd, RDDP_GENL_VERSION), nullptr);
  return msg;
}

// nla_put_u64_64bit(): a zero-length pad attribute first when the u64
// payload would not be 8-byte aligned.
inline void PutU64(nl_msg* msg, int type, uint64_t value, int pad_type) {
  if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 != 0) {
    ASSERT_EQ(nla_put(msg, pad_type, 0, nullptr), 0);
  }
  ASSERT_EQ(nla_put_u64(msg, type, value), 0);
}

inline void PutSockaddr4(nl_msg* msg, int type, const char* addr, uint16_t port) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  ASSERT_EQ(inet_pton(AF_INET, addr, &sin.sin_addr), 1);
  ASSERT_EQ(nla_put(msg, type, sizeof(sin), &sin), 0);
}

inline void PutSockaddr6(nl_msg* msg, int type, const char* addr, uint16_t port) {
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  sin6.sin6_port = htons(port);
  ASSERT_EQ(inet_pton(AF_INET6, addr, &sin6.sin6_addr), 1);
  ASSERT_EQ(nla_put(msg, type, sizeof(sin6), &sin6), 0);
}

inline void PutTerminate(nl_msg* msg, int type, uint8_t layer, uint8_t etype, uint8_t ecode) {
  nlattr* nest = nla_nest_start(msg, type);
  ASSERT_NE(nest, nullptr);
  ASSERT_EQ(nla_put_u8(msg, RDDP_A_TERM_LAYER, layer), 0);
  ASSERT_EQ(nla_put_u8(msg, RDDP_A_TERM_ETYPE, etype), 0);
  ASSERT_EQ(nla_put_u8(msg, RDDP_A_TERM_ECODE, ecode), 0);
  nla_nest_end(msg, nest);
}

// A DEV_GET reply as rddp_fill_dev() builds it; counter i (0-based, in
// RDDP_A_STAT_* order) has the value counter_base * (i + 1).
inline NlMsgPtr DeviceMessage(const char* name, uint32_t index, uint64_t counter_base) {
  NlMsgPtr msg = GenlMessage(RDDP_CMD_DEV_GET);
  nl_msg* m = msg.get();
  EXPECT_EQ(nla_put_string(m, RDDP_A_DEV_NAME, name), 0);
  EXPECT_EQ(nla_put_u32(m, RDDP_A_DEV_INDEX, index), 0);
  EXPECT_EQ(nla_put_string(m, RDDP_A_DEV_NETDEV, "dummy0"), 0);
  EXPECT_EQ(nla_put_u32(m, RDDP_A_DEV_NETDEV_INDEX, 7), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_DEV_PORT_STATE, 4), 0);
  EXPECT_EQ(nla_put_u32(m, RDDP_A_DEV_QPS, 3), 0);
  nlattr* set = nla_nest_start(m, RDDP_A_DEV_SETTINGS);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_CRC, 1), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_MARKERS, 0), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_MPA_REV, 2), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_TX_BATCH, 1), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_TX_ZCOPY, 1), 0);
  EXPECT_EQ(nla_put_u32(m, RDDP_A_SET_PEER_TIMEOUT_MS, 60000), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_TRANSPORT, RDDP_TRANSPORT_TCP), 0);
  EXPECT_EQ(nla_put_u8(m, RDDP_A_SET_MULTIHOME, 0), 0);
  nla_nest_end(m, set);
  nlattr* stats = nla_nest_start(m, RDDP_A_DEV_STATS);
  for (int type = RDDP_A_STAT_TX_FPDUS; type <= RDDP_A_STAT_MAX; type++) {
    PutU64(m, type, counter_base * static_cast<uint64_t>(type - RDDP_A_STAT_TX_FPDUS + 1),
           RDDP_A_STAT_PAD);
  }
  nla_nest_end(m, stats);
  return msg;
}

}  // namespace rddpctl::testing

#endif  // RDDPCTL_TEST_MESSAGES_H
