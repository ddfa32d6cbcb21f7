// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's conversations with the kernel: the rddp generic-netlink family
// (include/uapi/linux/rddp_netlink.h) and, for `link`, RDMA netlink as
// `rdma link add NAME type rddp netdev NETDEV` speaks it. The Build*
// functions make the exact request messages, tested without a kernel.
#ifndef RDDPCTL_CLIENT_H
#define RDDPCTL_CLIENT_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decode.h"
#include "model.h"
#include "netlink.h"

namespace rddpctl {

// Generic netlink: CTRL_CMD_GETFAMILY for one family name.
NlMsgPtr BuildFamilyRequest(std::string_view family_name);
// RDDP_CMD_DEV_GET: a dump for an empty `dev`, else a request with an ack.
NlMsgPtr BuildDevGet(uint16_t family, std::string_view dev);
NlMsgPtr BuildDevSet(uint16_t family, std::string_view dev, const Settings& settings);
// RDDP_CMD_QP_GET dump, filtered by `dev` unless it is empty.
NlMsgPtr BuildQpGet(uint16_t family, std::string_view dev);
NlMsgPtr BuildStatsReset(uint16_t family, std::string_view dev);

// RDMA netlink (NETLINK_RDMA, the nldev client).
NlMsgPtr BuildRdmaDeviceDump();
NlMsgPtr BuildRdmaNewLink(std::string_view name, std::string_view netdev);
NlMsgPtr BuildRdmaDelLink(uint32_t index);

// Throws the Error for a failed request: "WHAT: EXTACK (STRERROR)" or
// "WHAT: STRERROR", a hint for EPERM (CAP_NET_ADMIN) and, when the kernel
// gave no message, `enodev_hint` for ENODEV; the exit code follows errno.
[[noreturn]] void ThrowKernelError(const std::string& what, const NetlinkStatus& status,
                                   std::string_view enodev_hint = {});

// Resolves a generic-netlink family by name; nullopt if the kernel has no
// such family. Throws Error on other failures.
std::optional<GenlFamily> ResolveGenlFamily(NetlinkSocket& sock, std::string_view name);

// The rddp family. The constructor throws Error(kNoModule) when the
// family is not registered, i.e. rddp.ko is not loaded.
class RddpClient {
 public:
  RddpClient();

  // Every device (empty `dev`), or the named one (ENODEV -> Error(kNoDevice)).
  std::vector<Device> GetDevices(const std::string& dev);
  std::vector<Qp> GetQps(const std::string& dev);
  void SetSettings(const std::string& dev, const Settings& settings);
  void ResetStats(const std::string& dev);

  // Joins the "monitor" group and hands each event to `on_event` until
  // `keep_going` returns false; `on_lost` hears of dropped events.
  // `wait` blocks until the socket is readable or it is time to stop.
  void Monitor(const std::function<void(const Event&)>& on_event,
               const std::function<void()>& on_lost, const std::function<bool(int fd)>& wait);

 private:
  NetlinkSocket sock_;
  GenlFamily family_;
};

// Who named each device, as the RDMA core reports it (the rddp family does
// not repeat it): `dev show` only. Informative: a kernel before 6.11, a
// device the RDMA core does not show in this namespace, or a failed dump
// leaves it absent.
void AddNameAssignTypes(std::vector<Device>& devices);

// `link add`/`link del` over RDMA netlink.
void RdmaLinkAdd(const std::string& name, const std::string& netdev);
void RdmaLinkDel(const std::string& name);

}  // namespace rddpctl

#endif  // RDDPCTL_CLIENT_H
