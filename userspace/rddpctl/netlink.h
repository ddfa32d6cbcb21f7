// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The netlink transport under rddpctl: libnl sockets and messages owned by
// std::unique_ptr, and one request/reply exchange at a time with the
// kernel's extended ack (NETLINK_EXT_ACK) decoded. Protocol-neutral: the
// rddp family and RDMA netlink build on it in client.h.
#ifndef RDDPCTL_NETLINK_H
#define RDDPCTL_NETLINK_H

#include <netlink/msg.h>
#include <netlink/socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "decode.h"

namespace rddpctl {

struct NlSockDeleter {
  void operator()(nl_sock* sock) const noexcept { nl_socket_free(sock); }
};
struct NlMsgDeleter {
  void operator()(nl_msg* msg) const noexcept { nlmsg_free(msg); }
};
using NlSockPtr = std::unique_ptr<nl_sock, NlSockDeleter>;
using NlMsgPtr = std::unique_ptr<nl_msg, NlMsgDeleter>;

// A new, empty message; throws std::bad_alloc.
NlMsgPtr NewMessage();

// Receives each reply (or event) of interest: a whole message, valid for
// the duration of the call.
using MessageHandler = std::function<void(const nlmsghdr*)>;

class NetlinkSocket {
 public:
  // Connects a socket of `protocol` (NETLINK_GENERIC, NETLINK_RDMA) with
  // extended acks on. Throws Error; ENOENT/EPROTONOSUPPORT say the kernel
  // has no such netlink protocol.
  explicit NetlinkSocket(int protocol);

  // Sends `request` (completing its port id and sequence number) and hands
  // every reply to `on_reply` until the ack, the error or the end of the
  // dump, whose verdict it returns. Exceptions from `on_reply` propagate.
  NetlinkStatus Transact(nl_msg* request, const MessageHandler& on_reply);

  // Joins a multicast group; returns 0 or a positive errno (EPERM).
  int JoinGroup(uint32_t group);

  // For event loops: no blocking reads, and room for bursts.
  void PrepareForEvents();
  // Hands every queued message from the kernel to `on_message` without
  // blocking. Returns false if the kernel dropped some for lack of buffer
  // space (ENOBUFS) since the last call.
  bool ReadQueued(const MessageHandler& on_message);

  [[nodiscard]] int fd() const;

 private:
  NlSockPtr sock_;
};

}  // namespace rddpctl

#endif  // RDDPCTL_NETLINK_H
