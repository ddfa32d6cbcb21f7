// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// One-to-one SCTP sockets for DDP/SCTP test peers: see sctp_sock.h.
#include "sctp_sock.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace rddp_test {

std::optional<sockaddr_storage> Resolve(const char* addr, const char* port, socklen_t* len) {
  addrinfo hints{};
  addrinfo* ai = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  if (getaddrinfo(addr, port, &hints, &ai) || !ai) return std::nullopt;
  sockaddr_storage ss{};
  std::memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
  *len = ai->ai_addrlen;
  freeaddrinfo(ai);
  return ss;
}

int SctpSocket(int family, std::optional<uint32_t> adaptation) {
  int fd = socket(family, SOCK_STREAM, IPPROTO_SCTP);
  if (fd < 0) return -1;
  bool ok = true;
  if (adaptation) {
    sctp_setadaptation a{};
    a.ssb_adaptation_ind = *adaptation;
    ok = setsockopt(fd, kSolSctp, SCTP_ADAPTATION_LAYER, &a, sizeof(a)) == 0;
  }
  sctp_event_subscribe ev{};
  ev.sctp_data_io_event = 1;
  ev.sctp_association_event = 1;
  ev.sctp_shutdown_event = 1;
  ev.sctp_adaptation_layer_event = 1;
  ok = ok && setsockopt(fd, kSolSctp, SCTP_EVENTS, &ev, sizeof(ev)) == 0;
  if (!ok) {
    const int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

bool SendMessage(int fd, uint32_t ppid, const std::vector<uint8_t>& msg, uint16_t sid,
                 bool unordered) {
  iovec iov{const_cast<uint8_t*>(msg.data()), msg.size()};
  std::array<char, CMSG_SPACE(sizeof(sctp_sndrcvinfo))> cbuf{};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf.data();
  mh.msg_controllen = cbuf.size();
  cmsghdr* c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = kSolSctp;
  c->cmsg_type = SCTP_SNDRCV;
  c->cmsg_len = CMSG_LEN(sizeof(sctp_sndrcvinfo));
  sctp_sndrcvinfo info{};
  info.sinfo_ppid = htonl(ppid);  // passed through unconverted
  info.sinfo_flags = unordered ? SCTP_UNORDERED : 0;
  info.sinfo_stream = sid;
  std::memcpy(CMSG_DATA(c), &info, sizeof(info));
  return sendmsg(fd, &mh, MSG_NOSIGNAL) == static_cast<ssize_t>(msg.size());
}

bool SendChunk(int fd, uint32_t ppid, uint16_t ssn, const std::vector<uint8_t>& body, uint16_t sid,
               bool unordered) {
  std::vector<uint8_t> msg(2 + body.size());
  msg[0] = static_cast<uint8_t>(ssn >> 8);
  msg[1] = static_cast<uint8_t>(ssn);
  std::copy(body.begin(), body.end(), msg.begin() + 2);
  return SendMessage(fd, ppid, msg, sid, unordered);
}

namespace {

// A notification's kind: the association's end, or another event.
SctpMsg::Kind NoteKind(const sctp_notification& n) {
  if (n.sn_header.sn_type != SCTP_ASSOC_CHANGE) return SctpMsg::Kind::kEvent;
  switch (n.sn_assoc_change.sac_state) {
    case SCTP_COMM_LOST:
    case SCTP_CANT_STR_ASSOC:
      return SctpMsg::Kind::kAborted;
    case SCTP_SHUTDOWN_COMP:
      return SctpMsg::Kind::kClosed;
    default:
      return SctpMsg::Kind::kEvent;
  }
}

}  // namespace

void SctpMsg::Note(sctp_notification* n) const {
  std::memset(n, 0, sizeof(*n));
  if (from_note) std::memcpy(n, data.data(), std::min(sizeof(*n), data.size()));
}

SctpMsg RecvMsg(int fd, int ms) {
  SctpMsg m;
  pollfd p{fd, POLLIN, 0};
  const int n = poll(&p, 1, ms);
  if (n == 0) return m;
  if (n < 0) {
    m.kind = SctpMsg::Kind::kError;
    m.err = errno;
    return m;
  }
  std::vector<uint8_t> buf(65536);
  std::array<char, 256> cbuf{};
  iovec iov{buf.data(), buf.size()};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf.data();
  mh.msg_controllen = cbuf.size();
  const ssize_t len = recvmsg(fd, &mh, 0);
  if (len == 0) {
    m.kind = SctpMsg::Kind::kClosed;
    return m;
  }
  if (len < 0) {
    m.err = errno;
    m.kind =
        m.err == ECONNRESET || m.err == EPIPE ? SctpMsg::Kind::kAborted : SctpMsg::Kind::kError;
    return m;
  }
  buf.resize(static_cast<size_t>(len));
  m.eor = (mh.msg_flags & MSG_EOR) != 0;
  if (mh.msg_flags & MSG_NOTIFICATION) {
    m.data = std::move(buf);
    m.from_note = true;
    sctp_notification note{};
    m.Note(&note);
    m.kind = NoteKind(note);
    return m;
  }
  m.kind = SctpMsg::Kind::kData;
  for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level == kSolSctp && c->cmsg_type == SCTP_SNDRCV) {
      sctp_sndrcvinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof(info));
      m.ppid = ntohl(info.sinfo_ppid);
      m.sid = info.sinfo_stream;
      m.unordered = (info.sinfo_flags & SCTP_UNORDERED) != 0;
    }
  }
  m.data = std::move(buf);
  return m;
}

}  // namespace rddp_test
