// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The netlink transport (netlink.h). Replies are read with nl_recv() and
// walked here rather than through libnl's callback chain: that keeps the
// sequence-number check ours (libnl's breaks once a request goes
// unanswered), lets C++ exceptions leave a handler without crossing C
// frames, and gives the NLMSG_ERROR and NLMSG_DONE payloads to decode.cc,
// which reads their extended-ack message.
#include "netlink.h"

#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <new>
#include <string>

#include "error.h"

namespace rddpctl {

namespace {

// Large enough that a burst of events (every QP of a device changing
// state) is not dropped.
constexpr int kEventBufferBytes = 4 << 20;

// libnl reports system-call failures as -NLE_* codes; back to errno.
int ErrnoFromLibnl(int nl_error) {
  switch (-nl_error) {
    case NLE_PERM:
      return EPERM;
    case NLE_NOACCESS:
      return EACCES;
    case NLE_PROTO_MISMATCH:
      return EPROTONOSUPPORT;
    case NLE_NOMEM:
      return ENOBUFS;  // the socket's receive queue overflowed
    case NLE_AGAIN:
      return EAGAIN;
    case NLE_INVAL:
      return EINVAL;
    case NLE_OBJ_NOTFOUND:
      return ENOENT;
    default:
      return EIO;
  }
}

[[noreturn]] void SocketFailure(const std::string& what, int nl_error) {
  throw Error(ExitCode::kFailure, "netlink " + what + ": " + nl_geterror(nl_error));
}

struct FreeDeleter {
  void operator()(unsigned char* p) const noexcept { std::free(p); }  // NOLINT: nl_recv mallocs
};

// One datagram from the socket, as nl_recv() allocated it.
struct Datagram {
  std::unique_ptr<unsigned char, FreeDeleter> data;
  int length = 0;  // > 0: bytes; 0: nothing queued; < 0: -NLE_*
  bool from_kernel = false;
};

Datagram Receive(nl_sock* sock) {
  sockaddr_nl peer{};
  unsigned char* buf = nullptr;
  Datagram d;
  d.length = nl_recv(sock, &peer, &buf, nullptr);
  if (d.length > 0) d.data.reset(buf);  // nl_recv frees it on failure
  // Other processes can send to our port id; only the kernel's count.
  d.from_kernel = peer.nl_pid == 0;
  return d;
}

// Calls `fn` on every complete message in `d`.
template <typename Fn>
void ForEachMessage(const Datagram& d, Fn&& fn) {
  int remaining = d.length;
  for (auto* msg = reinterpret_cast<nlmsghdr*>(d.data.get()); nlmsg_ok(msg, remaining);
       msg = nlmsg_next(msg, &remaining)) {
    if (!fn(msg)) return;
  }
}

}  // namespace

NlMsgPtr NewMessage() {
  NlMsgPtr msg(nlmsg_alloc());
  if (!msg) throw std::bad_alloc();
  return msg;
}

NetlinkSocket::NetlinkSocket(int protocol) : sock_(nl_socket_alloc()) {
  if (!sock_) throw std::bad_alloc();
  // Requests say themselves whether they want an ack (client.cc).
  nl_socket_disable_auto_ack(sock_.get());
  if (int err = nl_connect(sock_.get(), protocol); err < 0) {
    const int e = ErrnoFromLibnl(err);
    if (e == EPROTONOSUPPORT) {
      throw Error(ExitCode::kFailure,
                  protocol == NETLINK_RDMA
                      ? "RDMA netlink is not available (is ib_core loaded?)"
                      : "netlink protocol " + std::to_string(protocol) + " is not available");
    }
    SocketFailure("socket", err);
  }
  const int one = 1;
  // The kernel's own message for a refused request (which attribute, why);
  // not echoing the request keeps the error small. Old kernels lack both
  // options, and then there is just no message.
  setsockopt(nl_socket_get_fd(sock_.get()), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
  setsockopt(nl_socket_get_fd(sock_.get()), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
}

int NetlinkSocket::fd() const { return nl_socket_get_fd(sock_.get()); }

NetlinkStatus NetlinkSocket::Transact(nl_msg* request, const MessageHandler& on_reply) {
  nl_complete_msg(sock_.get(), request);
  const uint32_t seq = nlmsg_hdr(request)->nlmsg_seq;
  if (int err = nl_send(sock_.get(), request); err < 0) SocketFailure("send", err);
  for (;;) {
    Datagram d = Receive(sock_.get());
    if (d.length < 0) SocketFailure("receive", d.length);
    if (d.length == 0) throw Error(ExitCode::kFailure, "netlink receive: no reply");
    if (!d.from_kernel) continue;
    std::optional<NetlinkStatus> verdict;
    ForEachMessage(d, [&](const nlmsghdr* msg) {
      // Replies to an earlier request this socket gave up on, or events.
      if (msg->nlmsg_seq != seq) return true;
      switch (msg->nlmsg_type) {
        case NLMSG_ERROR:
          verdict = DecodeErrorMessage(msg);
          return false;
        case NLMSG_DONE:
          verdict = DecodeDoneMessage(msg);
          return false;
        case NLMSG_NOOP:
          return true;
        case NLMSG_OVERRUN:
          throw Error(ExitCode::kFailure, "netlink: the kernel reports lost data");
        default:
          on_reply(msg);
          return true;
      }
    });
    if (verdict) return *verdict;
  }
}

int NetlinkSocket::JoinGroup(uint32_t group) {
  const int err = nl_socket_add_membership(sock_.get(), static_cast<int>(group));
  return err < 0 ? ErrnoFromLibnl(err) : 0;
}

void NetlinkSocket::PrepareForEvents() {
  nl_socket_set_nonblocking(sock_.get());
  // Best effort: an unprivileged user gets at most rmem_max, still fine.
  nl_socket_set_buffer_size(sock_.get(), kEventBufferBytes, 0);
}

bool NetlinkSocket::ReadQueued(const MessageHandler& on_message) {
  bool complete = true;
  for (;;) {
    Datagram d = Receive(sock_.get());
    if (d.length == 0) return complete;
    // libnl 3.7 reports an empty non-blocking socket as NLE_AGAIN.
    if (d.length < 0 && ErrnoFromLibnl(d.length) == EAGAIN) return complete;
    if (d.length < 0) {
      if (ErrnoFromLibnl(d.length) != ENOBUFS) SocketFailure("receive", d.length);
      complete = false;  // the kernel dropped events; carry on with the rest
      continue;
    }
    if (!d.from_kernel) continue;
    ForEachMessage(d, [&](const nlmsghdr* msg) {
      if (msg->nlmsg_type >= NLMSG_MIN_TYPE) on_message(msg);
      return true;
    });
  }
}

}  // namespace rddpctl
