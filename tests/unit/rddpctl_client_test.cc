// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's requests (userspace/rddpctl/client.h): the exact messages it
// sends, parsed back with libnl; how kernel errors become messages and exit
// codes; and the transport against the host kernel's generic-netlink
// controller, which every Linux has (the tests skip where sockets are not
// allowed), including "module not loaded" for the absent rddp family.
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include "client.h"
#include "error.h"
#include "rddpctl_messages.h"

namespace rddpctl {
namespace {

using testing::kFamilyId;

// The attributes of a generic-netlink request, indexed by type.
template <int Max>
std::array<nlattr*, Max + 1> GenlAttrs(const NlMsgPtr& msg) {
  std::array<nlattr*, Max + 1> tb{};
  EXPECT_EQ(genlmsg_parse(nlmsg_hdr(msg.get()), 0, tb.data(), Max, nullptr), 0);
  return tb;
}

const genlmsghdr* Genl(const NlMsgPtr& msg) {
  return static_cast<const genlmsghdr*>(nlmsg_data(nlmsg_hdr(msg.get())));
}

// A string attribute as the kernel's NLA_NUL_STRING policy wants it.
std::string NulString(const nlattr* a) {
  EXPECT_NE(a, nullptr);
  if (a == nullptr) return {};
  const auto* p = static_cast<const char*>(nla_data(a));
  EXPECT_EQ(p[nla_len(a) - 1], '\0');
  return p;
}

TEST(RddpctlRequests, DevGetDump) {
  NlMsgPtr msg = BuildDevGet(kFamilyId, "");
  const nlmsghdr* h = nlmsg_hdr(msg.get());
  EXPECT_EQ(h->nlmsg_type, kFamilyId);
  EXPECT_EQ(h->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
  EXPECT_EQ(h->nlmsg_flags & NLM_F_ACK, 0);
  EXPECT_EQ(Genl(msg)->cmd, RDDP_CMD_DEV_GET);
  EXPECT_EQ(Genl(msg)->version, RDDP_GENL_VERSION);
  EXPECT_EQ(Genl(msg)->reserved, 0);  // strict validation refuses anything else
  EXPECT_EQ(genlmsg_attrlen(Genl(msg), 0), 0);
}

TEST(RddpctlRequests, DevGetOne) {
  NlMsgPtr msg = BuildDevGet(kFamilyId, "rddp0");
  EXPECT_EQ(nlmsg_hdr(msg.get())->nlmsg_flags & NLM_F_DUMP, 0);
  EXPECT_EQ(nlmsg_hdr(msg.get())->nlmsg_flags & NLM_F_ACK, NLM_F_ACK);
  auto tb = GenlAttrs<RDDP_A_MAX>(msg);
  EXPECT_EQ(NulString(tb[RDDP_A_DEV_NAME]), "rddp0");
  for (int type = 0; type <= RDDP_A_MAX; type++) {
    if (type != RDDP_A_DEV_NAME) {
      EXPECT_EQ(tb[type], nullptr) << type;
    }
  }
}

// The RDDP_A_SET_* attributes of a DEV_SET request; all null if it has none.
std::array<nlattr*, RDDP_A_SET_MAX + 1> SetAttrs(const NlMsgPtr& msg) {
  auto tb = GenlAttrs<RDDP_A_MAX>(msg);
  std::array<nlattr*, RDDP_A_SET_MAX + 1> set{};
  EXPECT_NE(tb[RDDP_A_DEV_SETTINGS], nullptr);
  if (tb[RDDP_A_DEV_SETTINGS]) {
    EXPECT_EQ(nla_parse_nested(set.data(), RDDP_A_SET_MAX, tb[RDDP_A_DEV_SETTINGS], nullptr), 0);
  }
  return set;
}

TEST(RddpctlRequests, DevSet) {
  NlMsgPtr msg =
      BuildDevSet(kFamilyId, "rddp0",
                  Settings{.crc = false, .mpa_rev = 1, .tx_batch = true, .tx_zcopy = false});
  EXPECT_EQ(Genl(msg)->cmd, RDDP_CMD_DEV_SET);
  EXPECT_EQ(nlmsg_hdr(msg.get())->nlmsg_flags & NLM_F_ACK, NLM_F_ACK);
  auto tb = GenlAttrs<RDDP_A_MAX>(msg);
  EXPECT_EQ(NulString(tb[RDDP_A_DEV_NAME]), "rddp0");
  ASSERT_NE(tb[RDDP_A_DEV_SETTINGS], nullptr);
  std::array<nlattr*, RDDP_A_SET_MAX + 1> set{};
  ASSERT_EQ(nla_parse_nested(set.data(), RDDP_A_SET_MAX, tb[RDDP_A_DEV_SETTINGS], nullptr), 0);
  ASSERT_NE(set[RDDP_A_SET_CRC], nullptr);
  EXPECT_EQ(nla_len(set[RDDP_A_SET_CRC]), 1);
  EXPECT_EQ(nla_get_u8(set[RDDP_A_SET_CRC]), 0);
  EXPECT_EQ(set[RDDP_A_SET_MARKERS], nullptr);  // not given, not sent
  EXPECT_EQ(nla_get_u8(set[RDDP_A_SET_MPA_REV]), 1);
  EXPECT_EQ(nla_get_u8(set[RDDP_A_SET_TX_BATCH]), 1);
  ASSERT_NE(set[RDDP_A_SET_TX_ZCOPY], nullptr);
  EXPECT_EQ(nla_len(set[RDDP_A_SET_TX_ZCOPY]), 1);
  EXPECT_EQ(nla_get_u8(set[RDDP_A_SET_TX_ZCOPY]), 0);
  EXPECT_EQ(set[RDDP_A_SET_PEER_TIMEOUT_MS], nullptr);
  EXPECT_EQ(set[RDDP_A_SET_TRANSPORT], nullptr);
  EXPECT_EQ(set[RDDP_A_SET_MULTIHOME], nullptr);
}

TEST(RddpctlRequests, DevSetMultihome) {
  for (bool on : {false, true}) {
    NlMsgPtr msg = BuildDevSet(kFamilyId, "rddp0", Settings{.multihome = on});
    auto set = SetAttrs(msg);
    ASSERT_NE(set[RDDP_A_SET_MULTIHOME], nullptr);
    EXPECT_EQ(nla_len(set[RDDP_A_SET_MULTIHOME]), 1);  // u8, as the policy wants
    EXPECT_EQ(nla_get_u8(set[RDDP_A_SET_MULTIHOME]), on ? 1 : 0);
    EXPECT_EQ(set[RDDP_A_SET_TRANSPORT], nullptr);
  }
}

TEST(RddpctlRequests, DevSetTransport) {
  NlMsgPtr msg = BuildDevSet(kFamilyId, "rddp0", Settings{.transport = RDDP_TRANSPORT_SCTP});
  auto set = SetAttrs(msg);
  ASSERT_NE(set[RDDP_A_SET_TRANSPORT], nullptr);
  EXPECT_EQ(nla_len(set[RDDP_A_SET_TRANSPORT]), 1);  // u8, as the policy wants
  EXPECT_EQ(nla_get_u8(set[RDDP_A_SET_TRANSPORT]), RDDP_TRANSPORT_SCTP);
  EXPECT_EQ(set[RDDP_A_SET_CRC], nullptr);
}

TEST(RddpctlRequests, DevSetPeerTimeout) {
  for (uint32_t ms : {0U, 3000U}) {
    NlMsgPtr msg = BuildDevSet(kFamilyId, "rddp0", Settings{.peer_timeout_ms = ms});
    auto set = SetAttrs(msg);
    ASSERT_NE(set[RDDP_A_SET_PEER_TIMEOUT_MS], nullptr);
    EXPECT_EQ(nla_len(set[RDDP_A_SET_PEER_TIMEOUT_MS]), 4);  // u32, as the policy wants
    EXPECT_EQ(nla_get_u32(set[RDDP_A_SET_PEER_TIMEOUT_MS]), ms);
    EXPECT_EQ(set[RDDP_A_SET_CRC], nullptr);
  }
}

TEST(RddpctlRequests, QpGet) {
  NlMsgPtr all = BuildQpGet(kFamilyId, "");
  EXPECT_EQ(Genl(all)->cmd, RDDP_CMD_QP_GET);
  EXPECT_EQ(nlmsg_hdr(all.get())->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
  EXPECT_EQ(genlmsg_attrlen(Genl(all), 0), 0);
  NlMsgPtr one = BuildQpGet(kFamilyId, "rddp1");
  EXPECT_EQ(nlmsg_hdr(one.get())->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
  EXPECT_EQ(NulString(GenlAttrs<RDDP_A_MAX>(one)[RDDP_A_DEV_NAME]), "rddp1");
}

TEST(RddpctlRequests, StatsReset) {
  NlMsgPtr msg = BuildStatsReset(kFamilyId, "rddp0");
  EXPECT_EQ(Genl(msg)->cmd, RDDP_CMD_STATS_RESET);
  EXPECT_EQ(nlmsg_hdr(msg.get())->nlmsg_flags & NLM_F_ACK, NLM_F_ACK);
  EXPECT_EQ(NulString(GenlAttrs<RDDP_A_MAX>(msg)[RDDP_A_DEV_NAME]), "rddp0");
}

TEST(RddpctlRequests, FamilyLookup) {
  NlMsgPtr msg = BuildFamilyRequest("rddp");
  EXPECT_EQ(nlmsg_hdr(msg.get())->nlmsg_type, GENL_ID_CTRL);
  EXPECT_EQ(Genl(msg)->cmd, CTRL_CMD_GETFAMILY);
  EXPECT_EQ(NulString(GenlAttrs<CTRL_ATTR_MAX>(msg)[CTRL_ATTR_FAMILY_NAME]), "rddp");
}

template <size_t N>
std::array<nlattr*, N> RdmaAttrs(const NlMsgPtr& msg) {
  std::array<nlattr*, N> tb{};
  EXPECT_EQ(nlmsg_parse(nlmsg_hdr(msg.get()), 0, tb.data(), N - 1, nullptr), 0);
  return tb;
}

TEST(RddpctlRequests, RdmaNewLink) {
  // What `rdma link add rddp0 type rddp netdev eth0` sends.
  NlMsgPtr msg = BuildRdmaNewLink("rddp0", "eth0");
  const nlmsghdr* h = nlmsg_hdr(msg.get());
  EXPECT_EQ(h->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK));
  EXPECT_EQ(h->nlmsg_flags & NLM_F_ACK, NLM_F_ACK);
  // Either NLM_F_DUMP bit would make RDMA netlink treat it as a dump.
  EXPECT_EQ(h->nlmsg_flags & (NLM_F_ROOT | NLM_F_MATCH), 0);
  auto tb = RdmaAttrs<RDMA_NLDEV_ATTR_MAX>(msg);
  EXPECT_EQ(NulString(tb[RDMA_NLDEV_ATTR_DEV_NAME]), "rddp0");
  EXPECT_EQ(NulString(tb[RDMA_NLDEV_ATTR_LINK_TYPE]), "rddp");
  EXPECT_EQ(NulString(tb[RDMA_NLDEV_ATTR_NDEV_NAME]), "eth0");
}

TEST(RddpctlRequests, RdmaDelLinkAndDump) {
  NlMsgPtr del = BuildRdmaDelLink(3);
  EXPECT_EQ(nlmsg_hdr(del.get())->nlmsg_type,
            RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_DELLINK));
  EXPECT_EQ(nlmsg_hdr(del.get())->nlmsg_flags & NLM_F_ACK, NLM_F_ACK);
  auto tb = RdmaAttrs<RDMA_NLDEV_ATTR_MAX>(del);
  ASSERT_NE(tb[RDMA_NLDEV_ATTR_DEV_INDEX], nullptr);
  EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 3U);
  NlMsgPtr dump = BuildRdmaDeviceDump();
  EXPECT_EQ(nlmsg_hdr(dump.get())->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
  EXPECT_EQ(nlmsg_hdr(dump.get())->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
}

// The Error ThrowKernelError throws.
Error Thrown(const std::string& what, const NetlinkStatus& s, std::string_view hint = {}) {
  try {
    ThrowKernelError(what, s, hint);
  } catch (const Error& e) {
    return e;
  }
  return {ExitCode::kOk, "not thrown"};
}

TEST(RddpctlErrors, KernelErrorMessagesAndExitCodes) {
  Error e = Thrown("rddp9", {ENODEV, "no such rddp device"}, "no such rddp device");
  EXPECT_STREQ(e.what(), "rddp9: no such rddp device (No such device)");
  EXPECT_EQ(e.code(), ExitCode::kNoDevice);
  e = Thrown("rddp9", {ENODEV, ""}, "no such rddp device");
  EXPECT_STREQ(e.what(), "rddp9: no such rddp device (No such device)");
  e = Thrown("link add rddp0", {EEXIST, ""}, "no such network device 'eth9'");
  EXPECT_STREQ(e.what(), "link add rddp0: File exists");
  EXPECT_EQ(e.code(), ExitCode::kFailure);
  e = Thrown("dev set rddp0", {EPERM, ""});
  EXPECT_STREQ(e.what(),
               "dev set rddp0: Operation not permitted; this needs CAP_NET_ADMIN (run as root)");
  EXPECT_EQ(e.code(), ExitCode::kPermission);
  e = Thrown("dev set rddp0",
             {EPERM, "changing a device needs CAP_NET_ADMIN over its network namespace"});
  EXPECT_STREQ(e.what(),
               "dev set rddp0: changing a device needs CAP_NET_ADMIN over its network namespace "
               "(Operation not permitted)");
  EXPECT_EQ(e.code(), ExitCode::kPermission);
  e = Thrown("monitor", {EACCES, ""});
  EXPECT_EQ(e.code(), ExitCode::kPermission);
  e = Thrown("dev set rddp0", {EINVAL, "Attribute failed policy validation"});
  EXPECT_STREQ(e.what(), "dev set rddp0: Attribute failed policy validation (Invalid argument)");
  EXPECT_EQ(e.code(), ExitCode::kFailure);
}

TEST(RddpctlErrors, ExitCodeForErrno) {
  EXPECT_EQ(ExitCodeForErrno(0), ExitCode::kOk);
  EXPECT_EQ(ExitCodeForErrno(ENODEV), ExitCode::kNoDevice);
  EXPECT_EQ(ExitCodeForErrno(EPERM), ExitCode::kPermission);
  EXPECT_EQ(ExitCodeForErrno(EACCES), ExitCode::kPermission);
  EXPECT_EQ(ExitCodeForErrno(EBUSY), ExitCode::kFailure);
  EXPECT_EQ(static_cast<int>(ExitCode::kUsage), 2);
  EXPECT_EQ(static_cast<int>(ExitCode::kNoModule), 3);
}

// The host kernel's generic netlink, if this sandbox lets us open it.
bool HaveGenericNetlink() {
  const int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  if (fd < 0) return false;
  close(fd);
  return true;
}

#define REQUIRE_GENL()                                                           \
  do {                                                                           \
    if (!HaveGenericNetlink()) GTEST_SKIP() << "no generic netlink socket here"; \
  } while (0)

TEST(RddpctlKernel, ResolvesTheControllerItself) {
  REQUIRE_GENL();
  NetlinkSocket sock(NETLINK_GENERIC);
  std::optional<GenlFamily> ctrl = ResolveGenlFamily(sock, "nlctrl");
  ASSERT_TRUE(ctrl);
  EXPECT_EQ(ctrl->id, GENL_ID_CTRL);
  EXPECT_EQ(ctrl->groups.count("notify"), 1U);
  // The same socket serves a second request: sequence numbers stay in step.
  EXPECT_TRUE(ResolveGenlFamily(sock, "nlctrl"));
}

TEST(RddpctlKernel, UnknownFamilyIsNotAnError) {
  REQUIRE_GENL();
  NetlinkSocket sock(NETLINK_GENERIC);
  EXPECT_FALSE(ResolveGenlFamily(sock, "rddpnofamily"));
}

TEST(RddpctlKernel, DumpEndsWithDone) {
  REQUIRE_GENL();
  NetlinkSocket sock(NETLINK_GENERIC);
  NlMsgPtr msg = NewMessage();
  ASSERT_NE(genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, NLM_F_DUMP,
                        CTRL_CMD_GETFAMILY, 2),
            nullptr);
  int families = 0;
  bool saw_ctrl = false;
  NetlinkStatus s = sock.Transact(msg.get(), [&](const nlmsghdr* h) {
    families++;
    if (auto f = DecodeGenlFamily(h); f && f->id == GENL_ID_CTRL) saw_ctrl = true;
  });
  EXPECT_EQ(s.error, 0);
  EXPECT_GE(families, 1);
  EXPECT_TRUE(saw_ctrl);
}

TEST(RddpctlKernel, RefusedRequestCarriesTheExtAck) {
  REQUIRE_GENL();
  // Family names have at most GENL_NAMSIZ - 1 characters; the controller's
  // policy refuses a longer one, and says so in the extended ack.
  NetlinkSocket sock(NETLINK_GENERIC);
  NlMsgPtr msg = BuildFamilyRequest("a-family-name-far-too-long");
  NetlinkStatus s = sock.Transact(msg.get(), [](const nlmsghdr*) {});
  EXPECT_EQ(s.error, EINVAL);
  EXPECT_FALSE(s.message.empty());
  try {
    ResolveGenlFamily(sock, "a-family-name-far-too-long");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kFailure);
    EXPECT_NE(std::string(e.what()).find(s.message + " (Invalid argument)"), std::string::npos)
        << e.what();
  }
  // And the socket is still usable.
  EXPECT_TRUE(ResolveGenlFamily(sock, "nlctrl"));
}

TEST(RddpctlKernel, NoRdmaNetlink) {
  const int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
  if (fd >= 0) {
    close(fd);
    GTEST_SKIP() << "this kernel has RDMA netlink";
  }
  if (errno != EPROTONOSUPPORT) GTEST_SKIP() << "netlink sockets not allowed here";
  try {
    RdmaLinkDel("rddp0");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kFailure);
    EXPECT_STREQ(e.what(), "RDMA netlink is not available (is ib_core loaded?)");
  }
}

TEST(RddpctlKernel, NoModuleIsExitCode3) {
  REQUIRE_GENL();
  {
    NetlinkSocket sock(NETLINK_GENERIC);
    if (ResolveGenlFamily(sock, RDDP_GENL_NAME)) GTEST_SKIP() << "rddp.ko is loaded here";
  }
  try {
    RddpClient client;
    FAIL() << "no error without the module";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kNoModule);
    EXPECT_STREQ(e.what(), "rddp kernel module not loaded (modprobe rddp)");
  }
}

}  // namespace
}  // namespace rddpctl
