// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The rddp family and RDMA-netlink requests (client.h).
#include "client.h"

#include <linux/genetlink.h>
#include <linux/rddp_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <rdma/rdma_netlink.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "error.h"

namespace rddpctl {

namespace {

// The generic-netlink controller's own family version (CTRL_CMD_GETFAMILY
// has been at version 2 since 2.6.23).
constexpr uint8_t kCtrlVersion = 2;

// nla_put*() fail only when the message is full, which these small
// requests never are unless memory ran out.
void Check(int nla_put_result) {
  if (nla_put_result < 0) throw std::bad_alloc();
}

// A generic-netlink request header: a do with an ack, or a dump.
NlMsgPtr GenlRequest(uint16_t family, uint8_t cmd, uint8_t version, bool dump) {
  NlMsgPtr msg = NewMessage();
  const int flags = dump ? NLM_F_DUMP : NLM_F_ACK;
  if (genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd, version) == nullptr)
    throw std::bad_alloc();
  return msg;
}

NlMsgPtr RdmaRequest(int op, int flags) {
  // RDMA netlink reads either bit of NLM_F_DUMP as a dump request, so
  // NLM_F_EXCL (== NLM_F_MATCH) must stay off NEWLINK, as in rdma(8).
  NlMsgPtr msg(nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op), flags));
  if (!msg) throw std::bad_alloc();
  return msg;
}

std::string ErrnoName(int err) { return std::strerror(err); }

}  // namespace

NlMsgPtr BuildFamilyRequest(std::string_view family_name) {
  NlMsgPtr msg = GenlRequest(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, kCtrlVersion, false);
  Check(nla_put_string(msg.get(), CTRL_ATTR_FAMILY_NAME, std::string(family_name).c_str()));
  return msg;
}

NlMsgPtr BuildDevGet(uint16_t family, std::string_view dev) {
  NlMsgPtr msg = GenlRequest(family, RDDP_CMD_DEV_GET, RDDP_GENL_VERSION, dev.empty());
  if (!dev.empty()) Check(nla_put_string(msg.get(), RDDP_A_DEV_NAME, std::string(dev).c_str()));
  return msg;
}

NlMsgPtr BuildDevSet(uint16_t family, std::string_view dev, const Settings& settings) {
  NlMsgPtr msg = GenlRequest(family, RDDP_CMD_DEV_SET, RDDP_GENL_VERSION, false);
  Check(nla_put_string(msg.get(), RDDP_A_DEV_NAME, std::string(dev).c_str()));
  nlattr* nest = nla_nest_start(msg.get(), RDDP_A_DEV_SETTINGS);
  if (nest == nullptr) throw std::bad_alloc();
  auto put = [&](int type, std::optional<uint8_t> value) {
    if (value) Check(nla_put_u8(msg.get(), type, *value));
  };
  auto flag = [](std::optional<bool> b) -> std::optional<uint8_t> {
    if (!b) return std::nullopt;
    return *b ? 1 : 0;
  };
  put(RDDP_A_SET_CRC, flag(settings.crc));
  put(RDDP_A_SET_MARKERS, flag(settings.markers));
  put(RDDP_A_SET_MPA_REV, settings.mpa_rev);
  put(RDDP_A_SET_TX_BATCH, flag(settings.tx_batch));
  put(RDDP_A_SET_TX_ZCOPY, flag(settings.tx_zcopy));
  put(RDDP_A_SET_TRANSPORT, settings.transport);
  put(RDDP_A_SET_MULTIHOME, flag(settings.multihome));
  if (settings.peer_timeout_ms)
    Check(nla_put_u32(msg.get(), RDDP_A_SET_PEER_TIMEOUT_MS, *settings.peer_timeout_ms));
  Check(nla_nest_end(msg.get(), nest));
  return msg;
}

NlMsgPtr BuildQpGet(uint16_t family, std::string_view dev) {
  NlMsgPtr msg = GenlRequest(family, RDDP_CMD_QP_GET, RDDP_GENL_VERSION, true);
  if (!dev.empty()) Check(nla_put_string(msg.get(), RDDP_A_DEV_NAME, std::string(dev).c_str()));
  return msg;
}

NlMsgPtr BuildStatsReset(uint16_t family, std::string_view dev) {
  NlMsgPtr msg = GenlRequest(family, RDDP_CMD_STATS_RESET, RDDP_GENL_VERSION, false);
  Check(nla_put_string(msg.get(), RDDP_A_DEV_NAME, std::string(dev).c_str()));
  return msg;
}

NlMsgPtr BuildRdmaDeviceDump() { return RdmaRequest(RDMA_NLDEV_CMD_GET, NLM_F_DUMP); }

NlMsgPtr BuildRdmaNewLink(std::string_view name, std::string_view netdev) {
  NlMsgPtr msg = RdmaRequest(RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);
  Check(nla_put_string(msg.get(), RDMA_NLDEV_ATTR_DEV_NAME, std::string(name).c_str()));
  Check(nla_put_string(msg.get(), RDMA_NLDEV_ATTR_LINK_TYPE, "rddp"));
  Check(nla_put_string(msg.get(), RDMA_NLDEV_ATTR_NDEV_NAME, std::string(netdev).c_str()));
  return msg;
}

NlMsgPtr BuildRdmaDelLink(uint32_t index) {
  NlMsgPtr msg = RdmaRequest(RDMA_NLDEV_CMD_DELLINK, NLM_F_ACK);
  Check(nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_DEV_INDEX, index));
  return msg;
}

void ThrowKernelError(const std::string& what, const NetlinkStatus& status,
                      std::string_view enodev_hint) {
  std::string message = what + ": ";
  if (!status.message.empty()) {
    message += status.message + " (" + ErrnoName(status.error) + ")";
  } else if (status.error == ENODEV && !enodev_hint.empty()) {
    message += std::string(enodev_hint) + " (" + ErrnoName(status.error) + ")";
  } else {
    message += ErrnoName(status.error);
  }
  // The kernel's own message, where it sent one, says over which namespace.
  if ((status.error == EPERM || status.error == EACCES) && status.message.empty())
    message += "; this needs CAP_NET_ADMIN (run as root)";
  throw Error(ExitCodeForErrno(status.error), message);
}

std::optional<GenlFamily> ResolveGenlFamily(NetlinkSocket& sock, std::string_view name) {
  std::optional<GenlFamily> family;
  NlMsgPtr request = BuildFamilyRequest(name);
  const NetlinkStatus status = sock.Transact(request.get(), [&](const nlmsghdr* msg) {
    if (!family) family = DecodeGenlFamily(msg);
  });
  if (status.error == ENOENT) return std::nullopt;
  if (status.error != 0) ThrowKernelError("generic netlink family " + std::string(name), status);
  if (!family)
    throw Error(ExitCode::kFailure, "generic netlink: no reply for family " + std::string(name));
  return family;
}

RddpClient::RddpClient() : sock_(NETLINK_GENERIC) {
  std::optional<GenlFamily> family = ResolveGenlFamily(sock_, RDDP_GENL_NAME);
  if (!family) throw Error(ExitCode::kNoModule, "rddp kernel module not loaded (modprobe rddp)");
  family_ = std::move(*family);
}

void AddNameAssignTypes(std::vector<Device>& devices) {
  if (devices.empty()) return;
  try {
    NetlinkSocket sock(NETLINK_RDMA);
    NlMsgPtr dump = BuildRdmaDeviceDump();
    sock.Transact(dump.get(), [&](const nlmsghdr* msg) {
      auto r = DecodeRdmaDevice(msg);
      if (!r || !r->name_assign_type) return;
      for (Device& d : devices)
        if (d.name == r->name) d.name_assign_type = r->name_assign_type;
    });
  } catch (const Error&) {
    // No RDMA netlink here: nothing to add.
  }
}

std::vector<Device> RddpClient::GetDevices(const std::string& dev) {
  std::vector<Device> devices;
  NlMsgPtr request = BuildDevGet(family_.id, dev);
  const NetlinkStatus status = sock_.Transact(request.get(), [&](const nlmsghdr* msg) {
    if (auto d = DecodeDevice(msg)) devices.push_back(std::move(*d));
  });
  if (status.error != 0)
    ThrowKernelError(dev.empty() ? "listing the rddp devices" : dev, status, "no such rddp device");
  return devices;
}

std::vector<Qp> RddpClient::GetQps(const std::string& dev) {
  // The dump filters by name and says nothing of a name it does not know:
  // ask for the device first so a typo is an error, not an empty table.
  if (!dev.empty()) GetDevices(dev);
  std::vector<Qp> qps;
  NlMsgPtr request = BuildQpGet(family_.id, dev);
  const NetlinkStatus status = sock_.Transact(request.get(), [&](const nlmsghdr* msg) {
    if (auto q = DecodeQp(msg)) qps.push_back(std::move(*q));
  });
  if (status.error != 0) ThrowKernelError("qp show", status, "no such rddp device");
  return qps;
}

void RddpClient::SetSettings(const std::string& dev, const Settings& settings) {
  NlMsgPtr request = BuildDevSet(family_.id, dev, settings);
  const NetlinkStatus status = sock_.Transact(request.get(), [](const nlmsghdr*) {});
  if (status.error != 0) ThrowKernelError("dev set " + dev, status, "no such rddp device");
}

void RddpClient::ResetStats(const std::string& dev) {
  NlMsgPtr request = BuildStatsReset(family_.id, dev);
  const NetlinkStatus status = sock_.Transact(request.get(), [](const nlmsghdr*) {});
  if (status.error != 0) ThrowKernelError("stats reset " + dev, status, "no such rddp device");
}

void RddpClient::Monitor(const std::function<void(const Event&)>& on_event,
                         const std::function<void()>& on_lost,
                         const std::function<bool(int fd)>& wait) {
  auto group = family_.groups.find(RDDP_GENL_MCGRP_MONITOR);
  if (group == family_.groups.end())
    throw Error(ExitCode::kFailure, "the rddp module has no \"monitor\" group (too old?)");
  if (int err = sock_.JoinGroup(group->second); err != 0)
    ThrowKernelError("monitor", NetlinkStatus{err, {}});
  sock_.PrepareForEvents();
  const MessageHandler handle = [&](const nlmsghdr* msg) {
    if (msg->nlmsg_type != family_.id) return;
    const auto* genl = static_cast<const genlmsghdr*>(nlmsg_data(msg));
    if (msg->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || genl->cmd != RDDP_CMD_EVENT) return;
    if (auto e = DecodeEvent(msg)) on_event(*e);
  };
  while (wait(sock_.fd())) {
    if (!sock_.ReadQueued(handle)) on_lost();
  }
}

void RdmaLinkAdd(const std::string& name, const std::string& netdev) {
  NetlinkSocket sock(NETLINK_RDMA);
  NlMsgPtr request = BuildRdmaNewLink(name, netdev);
  const NetlinkStatus status = sock.Transact(request.get(), [](const nlmsghdr*) {});
  if (status.error == 0) return;
  // The RDMA core answers ENODEV for an unknown netdev and EINVAL when no
  // driver registered link type "rddp" (module missing, or name refused).
  std::string what = "link add " + name;
  if (status.error == EINVAL && status.message.empty())
    what += " (is rddp.ko installed? is the name valid?)";
  ThrowKernelError(what, status, "no such network device '" + netdev + "'");
}

void RdmaLinkDel(const std::string& name) {
  NetlinkSocket sock(NETLINK_RDMA);
  // DELLINK takes an index; dump the devices to find it, as rdma(8) does.
  std::optional<uint32_t> index;
  NlMsgPtr dump = BuildRdmaDeviceDump();
  NetlinkStatus status = sock.Transact(dump.get(), [&](const nlmsghdr* msg) {
    if (auto d = DecodeRdmaDevice(msg); d && d->name == name) index = d->index;
  });
  if (status.error != 0) ThrowKernelError("link del " + name, status);
  if (!index) throw Error(ExitCode::kNoDevice, "link del " + name + ": no such RDMA device");
  NlMsgPtr request = BuildRdmaDelLink(*index);
  status = sock.Transact(request.get(), [](const nlmsghdr*) {});
  if (status.error != 0) ThrowKernelError("link del " + name, status, "no such RDMA device");
}

}  // namespace rddpctl
