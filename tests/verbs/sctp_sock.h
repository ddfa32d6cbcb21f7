// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// One-to-one SCTP sockets as a DDP/SCTP peer uses them (draft-ietf-rddp-
// sctp-00, Documentation/wire-sctp.md): the Adaptation Layer Indication,
// whole messages with a PPID, a stream and the U flag, and what comes back
// (data with its PPID, stream and U flag, or a notification). Shared by
// rddp_sctp_probe (sctp_probe.cc) and rddp_hostile's SCTP mode
// (hostile_sctp.cc). Only the kernel's UAPI (<linux/sctp.h>), not libsctp.
#ifndef RDDP_TESTS_VERBS_SCTP_SOCK_H
#define RDDP_TESTS_VERBS_SCTP_SOCK_H

// <arpa/inet.h> first: <linux/sctp.h> needs what it declares.
#include <arpa/inet.h>
#include <linux/sctp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace rddp_test {

// glibc names SOL_SCTP only in libsctp's <netinet/sctp.h>; the level is the
// protocol number.
constexpr int kSolSctp = IPPROTO_SCTP;
// draft-ietf-rddp-sctp-00 §2.2, §2.2.3, §9.
constexpr uint32_t kPpidSegment = 1;
constexpr uint32_t kPpidControl = 2;
constexpr uint16_t kFcNegotiate = 1;
constexpr uint16_t kFcInitiate = 2;
constexpr uint16_t kFcAccept = 3;
constexpr uint16_t kFcTerminate = 4;

inline uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t Be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}

// A numeric address and port, as getaddrinfo() gives them.
std::optional<sockaddr_storage> Resolve(const char* addr, const char* port, socklen_t* len);

// A one-to-one SCTP socket with the Adaptation Layer Indication
// @adaptation (SCTP_ADAPTATION_LAYER) or none, subscribed to each
// message's sndrcvinfo, association changes, the peer's shutdown and its
// adaptation indication. -1 on failure.
int SctpSocket(int family, std::optional<uint32_t> adaptation);

// One message: @msg as it is, PPID @ppid (network order on the wire), on
// stream @sid, unordered (U=1, §7) unless told. MSG_NOSIGNAL: after the
// peer's SHUTDOWN a send fails with EPIPE instead of killing the caller.
// False, errno set, if the socket did not take it whole.
bool SendMessage(int fd, uint32_t ppid, const std::vector<uint8_t>& msg, uint16_t sid = 0,
                 bool unordered = true);

// One message whose payload starts with the DDP-SSN @ssn (§2.2.1), then
// @body.
bool SendChunk(int fd, uint32_t ppid, uint16_t ssn, const std::vector<uint8_t>& body,
               uint16_t sid = 0, bool unordered = true);

// What one recvmsg() brought.
struct SctpMsg {
  enum class Kind {
    kData,     // a message: ppid, sid, unordered, data
    kEvent,    // a notification: note (COMM_UP, adaptation, shutdown, ...)
    kClosed,   // the association ended gracefully (SHUTDOWN_COMP, EOF)
    kAborted,  // it was aborted or lost (COMM_LOST, CANT_STR_ASSOC, ECONNRESET)
    kTimeout,  // nothing within the time given
    kError,    // recvmsg() failed otherwise (err)
  };
  Kind kind = Kind::kTimeout;
  uint32_t ppid = 0;  // host order
  uint16_t sid = 0;
  bool unordered = false;
  bool eor = false;           // MSG_EOR: the whole message
  std::vector<uint8_t> data;  // the message, or the notification's bytes
  bool from_note = false;     // a notification (kEvent, or the end)
  int err = 0;                // recvmsg()'s errno
  // The notification, copied out (it has a flexible array member).
  void Note(sctp_notification* n) const;
};

// Waits up to @ms for one message or notification.
SctpMsg RecvMsg(int fd, int ms);

}  // namespace rddp_test

#endif  // RDDP_TESTS_VERBS_SCTP_SOCK_H
