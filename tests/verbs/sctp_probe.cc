// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// DDP over SCTP (draft-ietf-rddp-sctp-00, Documentation/wire-sctp.md) seen
// from outside rddp, for tests/vm/sctp.sh. Three modes:
//
//   rddp_sctp_probe connect ADDR PORT [--adaptation N] [--wait SECONDS]
//                   [--first initiate|negotiate] [--read split]
//                   [--stream N] [--again initiate] [--add-stream 1]
//       A one-to-one SCTP association to ADDR:PORT, with the Adaptation
//       Layer Indication N (SCTP_ADAPTATION_LAYER) or, by default, none.
//       Once up it prints the streams SCTP negotiated ("streams: in N out
//       M", SCTP_STATUS), sends a DDP Stream Session Initiate (PPID 2, U=1,
//       DDP-SSN 1, function code 2, rddp's IRD/ORD prefix and 16 octets of
//       private data) on stream 0, or on stream N with --stream N (a DDP
//       Stream the association may not have: draft §5), and reports, one
//       line each, what comes back within
//       SECONDS (default 5): "connect: ok|refused (...)", "adaptation: N"
//       (the peer's indication), "data: ppid P ssn S fc F len L", "event:
//       ...", and a last line "result: refused|aborted|closed|open". With an
//       adaptation indication it answers an Accept with one DDP segment (PPID
//       1, DDP-SSN 2) and a session Terminate (PPID 2, DDP-SSN 3, code 4) and
//       shuts the association down: a conformant active side in miniature.
//       With --first negotiate the first message is a Negotiate (code 1)
//       instead; once the peer answers it with a Negotiate (§3.3) the
//       Initiate follows with DDP-SSN 2 (§3.2). With --again initiate it
//       answers the Accept with a second Initiate (DDP-SSN 2) on the same,
//       live, stream instead: out of §3.2's sequence. With --add-stream 1
//       it first asks the peer for one more outbound stream (RFC 6525
//       §5.2.5, SCTP_ADD_STREAMS; both ends need net.sctp.reconf_enable)
//       and prints the answer ("event: stream change, flags F
//       (denied|failed|performed), in N out M") and the streams after it.
//       With --read split it plays an
//       rping client to an rddp rping server instead: after the Accept it
//       advertises a 32-octet buffer (a Send, DDP-SSN 2) and answers the
//       server's Read Request with two Read Responses, the last one
//       (DDP-SSN 4, octets 16..31 of the sink) sent first, then the first
//       (DDP-SSN 3) with only octets 0..7: rddp places 4 on arrival and at
//       its turn finds the gap, the Terminate for a base or bounds
//       violation (RFC 5041 §7.1, RFC 5040 §4.5).
//   rddp_sctp_probe serve ADDR PORT [--adaptation N]
//                   [--answer accept|terminate|initiate|abort|end|early]
//       The passive side of that miniature: listens (30 s at most), takes
//       one association, answers its Initiate with an Accept (PPID 2,
//       DDP-SSN 1, code 3) and one DDP segment (PPID 1, DDP-SSN 2), reads
//       until the peer shuts down. sctp.sh checks its pcap reader on it.
//       The other answers play a hostile or unusual peer to an rddp client:
//       terminate rejects the Initiate with a session Terminate (§3.4);
//       initiate answers with an Initiate of its own (active/active, §3.5)
//       and ends the session with a Terminate after the client's first
//       segment;
//       abort accepts, waits for the client's first DDP segment and aborts
//       the association (ABORT mid-transfer); end accepts, waits for the
//       first segment and ends the session with a Terminate (§3.4, §8.3);
//       early accepts and answers rping's first Send (its buffer's
//       address, rkey and size) with RDMA Writes into that buffer sent
//       later DDP-SSN first (3, 2, then 5 to a wrong STag, 4), so that rddp
//       places 3 on arrival and holds 5, whose turn draws the Terminate
//       for an invalid STag (RFC 5041 §5.3, §7.1; Documentation/
//       wire-sctp.md, "Placement on arrival"). An RFC 5040 Terminate
//       received is printed: "terminate: layer L etype E ecode 0xCC".
//   rddp_sctp_probe pcap FILE PORT
//       Reads a capture (tcpdump -w; Ethernet, Linux cooked v1/v2 or raw
//       IP; IPv4 and IPv6) and prints TAP: each SCTP association with PORT
//       at one end starts with an INIT and INIT ACK carrying the Adaptation
//       Layer Indication 2 (parameter 0xc006); every DATA chunk is unordered
//       (U=1, §7), one whole message (B=E=1, fragmentation off, §6), PPID 1
//       or 2 (§2.2); the first DATA chunk of each direction is session
//       control with DDP-SSN 1 (§2.2.1), the active side's an Initiate (2),
//       the passive side's an Accept (3); DDP segments went both ways; no
//       TCP SYN went to PORT (the connection really was SCTP). A comment
//       line per association lists its chunks but SACKs, ">" towards PORT
//       ("# association 1: chunks: >INIT <INIT_ACK >COOKIE_ECHO ..."), and
//       one what its INIT and INIT ACK carried, with their outbound and
//       inbound stream counts ("INIT adaptation 2 streams 1/1; ..."). Two
//       more checks: the counts they negotiate are equal each way (§5),
//       and every DATA chunk is on stream 0 (rddp's one DDP Stream).
//
// Uses only the kernel's UAPI (<linux/sctp.h>), not libsctp; the socket
// code is sctp_sock.h's, shared with rddp_hostile's SCTP mode.
#include <arpa/inet.h>
#include <linux/sctp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sctp_sock.h"
#include "tap.h"

namespace {

using rddp_test::Be16;
using rddp_test::Be32;
using rddp_test::kFcAccept;
using rddp_test::kFcInitiate;
using rddp_test::kFcNegotiate;
using rddp_test::kFcTerminate;
using rddp_test::kPpidControl;
using rddp_test::kPpidSegment;
using rddp_test::kSolSctp;
using rddp_test::Resolve;
using rddp_test::SctpMsg;
using rddp_test::SctpSocket;
using rddp_test::SendChunk;
constexpr uint16_t kParamAdaptation = 0xc006;

// ---- socket modes -----------------------------------------------------------

std::vector<uint8_t> Control(uint16_t fc, bool with_pd) {
  std::vector<uint8_t> b;
  b.reserve(32);
  b.push_back(static_cast<uint8_t>(fc >> 8));
  b.push_back(static_cast<uint8_t>(fc));
  if (with_pd) {
    // rddp's IRD/ORD prefix (IRD 1, ORD 1), then 16 octets of ULP data.
    const std::array<uint8_t, 4> ird_ord{0, 1, 0, 1};
    b.insert(b.end(), ird_ord.begin(), ird_ord.end());
    const std::string pd = "rddp_sctp_probe!";
    b.insert(b.end(), pd.begin(), pd.end());
  }
  return b;
}

// kStreamChange: an RFC 6525 answer (SCTP_STREAM_CHANGE_EVENT), a kEvent
// to every caller but AddStream().
enum class Got { kData, kEvent, kStreamChange, kClosed, kAborted, kTimeout, kError };

// A notification, printed; what it was.
Got PrintNote(const SctpMsg& m) {
  sctp_notification no{};
  m.Note(&no);
  switch (no.sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE:
      std::printf("event: association change, state %u, error %u\n", no.sn_assoc_change.sac_state,
                  no.sn_assoc_change.sac_error);
      if (m.kind == SctpMsg::Kind::kAborted) return Got::kAborted;
      if (m.kind == SctpMsg::Kind::kClosed) return Got::kClosed;
      break;
    case SCTP_ADAPTATION_INDICATION:
      std::printf("adaptation: %u\n", no.sn_adaptation_event.sai_adaptation_ind);
      break;
    case SCTP_SHUTDOWN_EVENT:
      std::printf("event: peer shutdown\n");
      break;
    case SCTP_STREAM_CHANGE_EVENT: {
      const sctp_stream_change_event& e = no.sn_strchange_event;
      const char* what = (e.strchange_flags & SCTP_STREAM_CHANGE_DENIED)   ? "denied"
                         : (e.strchange_flags & SCTP_STREAM_CHANGE_FAILED) ? "failed"
                                                                           : "performed";
      std::printf("event: stream change, flags %u (%s), in %u out %u\n", e.strchange_flags, what,
                  e.strchange_instrms, e.strchange_outstrms);
      return Got::kStreamChange;
    }
    default:
      std::printf("event: notification %u\n", no.sn_header.sn_type);
  }
  return Got::kEvent;
}

// Waits up to @ms for one message; prints what it was; a data message's
// octets in @data if given.
Got ReadOne(int fd, int ms, uint32_t* ppid = nullptr, uint16_t* fc = nullptr,
            std::vector<uint8_t>* data = nullptr) {
  const SctpMsg m = rddp_test::RecvMsg(fd, ms);
  if (m.from_note) return PrintNote(m);
  switch (m.kind) {
    case SctpMsg::Kind::kTimeout:
      return Got::kTimeout;
    case SctpMsg::Kind::kClosed:
      std::printf("event: end of stream (peer shut down)\n");
      return Got::kClosed;
    case SctpMsg::Kind::kAborted:
    case SctpMsg::Kind::kError:
      std::printf("event: recvmsg: %s\n", std::strerror(m.err));
      return m.kind == SctpMsg::Kind::kAborted ? Got::kAborted : Got::kError;
    default:
      break;
  }
  const size_t len = m.data.size();
  const uint16_t f = len >= 4 ? Be16(&m.data[2]) : 0;
  std::printf("data: ppid %u ssn %u fc %u len %zu\n", m.ppid, len >= 2 ? Be16(m.data.data()) : 0U,
              f, len);
  if (ppid) *ppid = m.ppid;
  if (fc) *fc = f;
  if (data) *data = m.data;
  return Got::kData;
}

struct Options {
  std::optional<uint32_t> adaptation;
  int wait_s = 5;
  uint16_t first = kFcInitiate;   // connect: the first session message
  bool split_read = false;        // connect: --read split (rping client)
  uint16_t stream = 0;            // connect: --stream N, the Initiate's
  bool again = false;             // connect: --again initiate
  bool add_stream = false;        // connect: --add-stream 1 (RFC 6525)
  std::string answer = "accept";  // serve: what answers the Initiate
};

// A tagged DDP segment (RFC 5041 §4.2, RFC 5040 §4.2: T, L if @last, DV 1,
// RV 1, @opcode: 0 RDMA Write, 2 Read Response), @len octets of 0xee.
std::vector<uint8_t> WriteSeg(uint32_t stag, uint64_t to, size_t len, uint8_t opcode = 0,
                              bool last = true) {
  std::vector<uint8_t> b{static_cast<uint8_t>(last ? 0xc1 : 0x81),
                         static_cast<uint8_t>(0x40 | opcode)};
  for (int i = 24; i >= 0; i -= 8) b.push_back(static_cast<uint8_t>(stag >> i));
  for (int i = 56; i >= 0; i -= 8) b.push_back(static_cast<uint8_t>(to >> i));
  b.insert(b.end(), len, 0xee);
  return b;
}

// An RFC 5040 Terminate received (PPID 1, untagged, QN 2): its layer,
// error type and code (§4.8, after the 18-octet header).
void PrintTerminate(const std::vector<uint8_t>& m) {
  if (m.size() < 2 + 18 + 2 || (m[2] & 0x80) || Be32(&m[2 + 6]) != 2) return;
  const uint8_t* t = &m[2 + 18];
  std::printf("terminate: layer %u etype %u ecode 0x%02x\n", t[0] >> 4, t[0] & 0xfu, t[1]);
}

// --read split: rping's buffer advertisement (struct rping_rdma_info: be64
// address, be32 rkey, be32 size) in a Send (RFC 5040 §4.2: L, DV 1, RV 1,
// opcode 3; QN 0, MSN 1, MO 0). rddp gives no client STag meaning here.
void AdvertiseBuffer(int fd) {
  std::vector<uint8_t> b{0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  const std::array<uint8_t, 16> info{0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 32};
  b.insert(b.end(), info.begin(), info.end());
  SendChunk(fd, kPpidSegment, 2, b);
  std::printf("sent: Send ssn 2 (a 32-octet buffer)\n");
}

// --read split: a Read Request (untagged, QN 1; RFC 5040 §4.4: sink STag,
// sink TO, size, ...) answered with a split Read Response (opcode 2).
bool AnswerRead(int fd, const std::vector<uint8_t>& m) {
  if (m.size() < 2 + 18 + 28 || (m[2] & 0x80) || Be32(&m[2 + 6]) != 1) return false;
  const uint8_t* r = &m[2 + 18];
  const uint32_t stag = Be32(r);
  const uint64_t to = static_cast<uint64_t>(Be32(r + 4)) << 32 | Be32(r + 8);
  if (Be32(r + 12) != 32) return false;
  SendChunk(fd, kPpidSegment, 4, WriteSeg(stag, to + 16, 16, 2, true));
  SendChunk(fd, kPpidSegment, 3, WriteSeg(stag, to, 8, 2, false));
  std::printf("sent: Read Responses ssn 4 (octets 16..31, last), 3 (octets 0..7)\n");
  return true;
}

// The streams SCTP negotiated for the association (RFC 4960 §5.1.1: the
// smaller of each side's outbound and the other's inbound count).
void PrintStreams(int fd) {
  sctp_status st{};
  socklen_t len = sizeof(st);
  if (getsockopt(fd, kSolSctp, SCTP_STATUS, &st, &len)) {
    std::printf("streams: unknown (%s)\n", std::strerror(errno));
    return;
  }
  std::printf("streams: in %u out %u\n", st.sstat_instrms, st.sstat_outstrms);
}

// RFC 6525 §5.2.5: ask the peer for one more outbound stream and wait up to
// 3 s for its answer (the stream change notification). Our side must allow
// the request before the association starts (EnableAddStreams).
void AddStream(int fd) {
  sctp_add_streams add{};
  add.sas_outstrms = 1;
  if (setsockopt(fd, kSolSctp, SCTP_ADD_STREAMS, &add, sizeof(add))) {
    std::printf("add streams: %s\n", std::strerror(errno));
    return;
  }
  std::printf("add streams: asked for 1 more outbound stream\n");
  Got g = Got::kTimeout;
  // COMM_UP and the peer's adaptation indication may come first.
  for (int left = 30; left > 0 && (g == Got::kEvent || g == Got::kTimeout); --left)
    g = ReadOne(fd, 100);
  if (g != Got::kStreamChange) std::printf("add streams: no answer\n");
  PrintStreams(fd);
}

bool EnableAddStreams(int fd) {
  sctp_assoc_value v{};
  v.assoc_value = SCTP_ENABLE_CHANGE_ASSOC_REQ;
  sctp_event ev{};
  ev.se_type = SCTP_STREAM_CHANGE_EVENT;
  ev.se_on = 1;
  return !setsockopt(fd, kSolSctp, SCTP_ENABLE_STREAM_RESET, &v, sizeof(v)) &&
         !setsockopt(fd, kSolSctp, SCTP_EVENT, &ev, sizeof(ev));
}

int Connect(const char* addr, const char* port, const Options& o) {
  const std::optional<uint32_t> adaptation = o.adaptation;
  const int wait_s = o.wait_s;
  socklen_t alen = 0;
  auto sa = Resolve(addr, port, &alen);
  if (!sa) {
    std::printf("result: bad address %s %s\n", addr, port);
    return 64;
  }
  int fd = SctpSocket(sa->ss_family, adaptation);
  if (fd < 0) {
    std::printf("result: no SCTP socket: %s\n", std::strerror(errno));
    return 2;
  }
  timeval tv{static_cast<time_t>(wait_s), 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  if (o.add_stream && !EnableAddStreams(fd))
    std::printf("add streams: cannot allow the request: %s\n", std::strerror(errno));
  if (connect(fd, reinterpret_cast<sockaddr*>(&*sa), alen)) {
    std::printf("connect: refused (%s)\nresult: refused\n", std::strerror(errno));
    close(fd);
    return 0;
  }
  std::printf("connect: ok\n");
  PrintStreams(fd);
  if (o.add_stream) AddStream(fd);
  const char* first = o.first == kFcNegotiate ? "Negotiate" : "Initiate";
  if (!SendChunk(fd, kPpidControl, 1, Control(o.first, true), o.stream)) {
    std::printf("event: sending the %s on stream %u failed: %s\n", first, o.stream,
                std::strerror(errno));
  } else {
    std::printf("sent: %s, ppid 2 ssn 1 stream %u\n", first, o.stream);
  }
  const char* result = "open";
  bool accepted = false, shut = false, read = false;
  uint16_t next = 2;  // our next DDP-SSN (§2.2.1)
  for (int left = wait_s * 10; left > 0; --left) {
    uint32_t ppid = 0;
    uint16_t fc = 0;
    std::vector<uint8_t> data;
    Got g = ReadOne(fd, 100, &ppid, &fc, &data);
    if (g == Got::kAborted || g == Got::kError) {
      result = "aborted";
      break;
    }
    if (g == Got::kClosed) {
      result = "closed";
      break;
    }
    if (g == Got::kData && ppid == kPpidSegment) PrintTerminate(data);
    if (g == Got::kData && ppid == kPpidControl && fc == kFcNegotiate && o.first == kFcNegotiate &&
        next == 2) {
      // §3.3: our round was answered; §3.2: the Initiate follows.
      SendChunk(fd, kPpidControl, next++, Control(kFcInitiate, true));
      std::printf("sent: Initiate, ppid 2 ssn 2 stream 0\n");
      continue;
    }
    if (o.again) {
      if (g == Got::kData && ppid == kPpidControl && fc == kFcAccept && !accepted) {
        accepted = true;
        SendChunk(fd, kPpidControl, 2, Control(kFcInitiate, true));
        std::printf("sent: a second Initiate, ppid 2 ssn 2 stream 0\n");
      }
      continue;
    }
    if (o.split_read) {
      if (g == Got::kData && ppid == kPpidControl && fc == kFcAccept && !accepted) {
        accepted = true;
        AdvertiseBuffer(fd);
      } else if (g == Got::kData && ppid == kPpidSegment && accepted && !read) {
        read = AnswerRead(fd, data);
      }
      continue;
    }
    if (g == Got::kData && adaptation && ppid == kPpidControl && fc == kFcAccept && !accepted) {
      // The miniature's active side: a segment (an untagged Send header
      // with no payload) and a session Terminate after the Accept.
      accepted = true;
      const std::vector<uint8_t> seg(18, 0);
      SendChunk(fd, kPpidSegment, next, seg);
      SendChunk(fd, kPpidControl, next + 1, Control(kFcTerminate, false));
      std::printf("sent: segment ssn %u, Terminate ssn %u\n", next, next + 1);
    }
    if (g == Got::kData && accepted && ppid == kPpidSegment && !shut) {
      // The passive side's segment came too: a graceful shutdown (SCTP
      // has no half close; the peer could send no more after it).
      shut = true;
      shutdown(fd, SHUT_WR);
      std::printf("sent: shutdown\n");
    }
  }
  std::printf("result: %s\n", result);
  close(fd);
  return 0;
}

// The hostile answers: after the Accept (or our Initiate, active/active),
// the client's first segment ends the association (abort) or the session
// (end, initiate).
bool Hostile(int fd, const std::string& answer) {
  if (answer == "abort") {
    linger lg{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    std::printf("sent: ABORT (close with linger 0)\n");
    return true;
  }
  SendChunk(fd, kPpidControl, 2, Control(kFcTerminate, false));
  std::printf("sent: Terminate ssn 2\n");
  return false;
}

// --answer early: the client's first Send is rping's buffer advertisement
// (RFC 5040 Send, 18-octet untagged header, then rping's struct
// rping_rdma_info: be64 address, be32 rkey, be32 size). Writes into that
// buffer, each pair sent later DDP-SSN first, so that it arrives ahead of
// its turn: DDP-SSN 3 then 2, both valid (3 is placed on arrival); then 5,
// to an STag that is not the client's (not placed, held), and 4, valid:
// at 5's turn the client answers with the Terminate for an invalid STag.
// Returns false if the Send is not an advertisement.
bool Early(int fd, const std::vector<uint8_t>& send) {
  if (send.size() < 2 + 18 + 16) return false;
  const uint8_t* info = send.data() + 2 + 18;
  const uint64_t to = static_cast<uint64_t>(Be32(info)) << 32 | Be32(info + 4);
  const uint32_t stag = Be32(info + 8), size = Be32(info + 12);
  if (size < 48) return false;
  SendChunk(fd, kPpidSegment, 3, WriteSeg(stag, to, 16));
  SendChunk(fd, kPpidSegment, 2, WriteSeg(stag, to + 16, 16));
  SendChunk(fd, kPpidSegment, 5, WriteSeg(stag ^ 0xff, to, 16));
  SendChunk(fd, kPpidSegment, 4, WriteSeg(stag, to + 32, 16));
  std::printf("sent: Writes ssn 3, 2, 5 (STag 0x%08x), 4 (STag 0x%08x)\n", stag ^ 0xff, stag);
  return true;
}

// Answers an Initiate as @answer says.
void Answer(int fd, const std::string& answer) {
  if (answer == "terminate") {
    SendChunk(fd, kPpidControl, 1, Control(kFcTerminate, false));
    std::printf("sent: Terminate ssn 1 (reject)\n");
    return;
  }
  if (answer == "initiate") {
    SendChunk(fd, kPpidControl, 1, Control(kFcInitiate, true));
    std::printf("sent: Initiate ssn 1 (active/active)\n");
    return;
  }
  SendChunk(fd, kPpidControl, 1, Control(kFcAccept, true));
  if (answer != "accept") {
    std::printf("sent: Accept ssn 1\n");
    return;
  }
  const std::vector<uint8_t> seg(18, 0);
  SendChunk(fd, kPpidSegment, 2, seg);
  std::printf("sent: Accept ssn 1, segment ssn 2\n");
}

int Serve(const char* addr, const char* port, const Options& o) {
  const std::optional<uint32_t> adaptation = o.adaptation;
  socklen_t alen = 0;
  auto sa = Resolve(addr, port, &alen);
  if (!sa) return 64;
  int lfd = SctpSocket(sa->ss_family, adaptation);
  int one = 1;
  if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
      bind(lfd, reinterpret_cast<sockaddr*>(&*sa), alen) || listen(lfd, 1)) {
    std::printf("serve: %s\n", std::strerror(errno));
    return 2;
  }
  std::printf("serve: listening\n");
  pollfd p{lfd, POLLIN, 0};
  if (poll(&p, 1, 30 * 1000) != 1) {
    std::printf("serve: nobody came\n");
    return 1;
  }
  int fd = accept(lfd, nullptr, nullptr);
  if (fd < 0) return 2;
  int rc = 1;
  bool answered = false, ended = false;
  for (int left = 300; left > 0; --left) {
    uint32_t ppid = 0;
    uint16_t fc = 0;
    std::vector<uint8_t> data;
    Got g = ReadOne(fd, 100, &ppid, &fc, &data);
    if (g == Got::kClosed || g == Got::kAborted || g == Got::kError) break;
    if (g == Got::kData && ppid == kPpidSegment) PrintTerminate(data);
    if (g == Got::kData && ppid == kPpidSegment && answered && !ended && o.answer == "early")
      ended = Early(fd, data);
    if (g == Got::kData && ppid == kPpidControl && fc == kFcInitiate && !answered) {
      answered = true;
      Answer(fd, o.answer);
      rc = 0;
    }
    if (g == Got::kData && ppid == kPpidSegment && answered && !ended &&
        (o.answer == "abort" || o.answer == "end" || o.answer == "initiate")) {
      ended = true;
      if (Hostile(fd, o.answer)) break;
    }
  }
  close(fd);
  close(lfd);
  return rc;
}

// ---- pcap -------------------------------------------------------------------

struct Chunk {
  bool to_port;  // towards PORT (from the active side)
  uint8_t flags;
  uint32_t ppid;
  uint16_t sid;               // the SCTP stream
  std::vector<uint8_t> head;  // the first octets of the user data
};

struct Assoc {
  bool init_ali = false;      // INIT towards PORT with 0xc006 = 2
  bool init_ack_ali = false;  // INIT ACK from PORT with 0xc006 = 2
  std::string init_seen;      // what the INIT/INIT ACK carried
  // Their outbound and inbound stream counts (RFC 4960 §3.3.2), 0 unseen.
  uint16_t init_os = 0, init_mis = 0, ack_os = 0, ack_mis = 0;
  std::vector<Chunk> data;
  int idata = 0;       // I-DATA chunks (RFC 8260): rddp never sends them
  std::string chunks;  // ">INIT <INIT_ACK ...": each chunk but SACKs, ">" towards PORT
};

std::string ChunkName(uint8_t type) {
  switch (type) {
    case 0:
      return "DATA";
    case 1:
      return "INIT";
    case 2:
      return "INIT_ACK";
    case 4:
      return "HEARTBEAT";
    case 5:
      return "HEARTBEAT_ACK";
    case 6:
      return "ABORT";
    case 7:
      return "SHUTDOWN";
    case 8:
      return "SHUTDOWN_ACK";
    case 9:
      return "ERROR";
    case 10:
      return "COOKIE_ECHO";
    case 11:
      return "COOKIE_ACK";
    case 14:
      return "SHUTDOWN_COMPLETE";
    case 64:
      return "I_DATA";
    default:
      return std::to_string(type);
  }
}

// The Adaptation Layer Indication in an INIT or INIT ACK's parameters
// (after its 16 fixed octets), or nullopt.
std::optional<uint32_t> FindAli(const uint8_t* p, size_t len) {
  for (size_t off = 16; off + 4 <= len;) {
    uint16_t type = Be16(p + off), plen = Be16(p + off + 2);
    if (plen < 4 || off + plen > len) break;
    if (type == kParamAdaptation && plen >= 8) return Be32(p + off + 4);
    off += (plen + 3U) & ~3U;
  }
  return std::nullopt;
}

using AssocKey = std::tuple<std::string, uint16_t>;  // active side's address and port

struct Capture {
  std::map<AssocKey, Assoc> assocs;
  int syns = 0;     // TCP SYNs towards PORT
  int packets = 0;  // packets read
};

std::string AddrString(int family, const uint8_t* a) {
  std::array<char, INET6_ADDRSTRLEN> s{};
  inet_ntop(family, a, s.data(), s.size());
  return s.data();
}

void SctpPacket(Capture* cap, uint16_t port, const std::string& src, const std::string& dst,
                const uint8_t* p, size_t len) {
  if (len < 12) return;
  uint16_t sport = Be16(p), dport = Be16(p + 2);
  if (sport != port && dport != port) return;
  bool to_port = dport == port;
  AssocKey key = to_port ? AssocKey{src, sport} : AssocKey{dst, dport};
  Assoc& a = cap->assocs[key];
  for (size_t off = 12; off + 4 <= len;) {
    uint8_t type = p[off], flags = p[off + 1];
    uint16_t clen = Be16(p + off + 2);
    if (clen < 4 || off + clen > len) break;
    const uint8_t* c = p + off;
    if (type != 3 && a.chunks.size() < 2000) {  // not SACKs
      a.chunks +=
          (a.chunks.empty() ? "" : " ") + std::string(to_port ? ">" : "<") + ChunkName(type);
    }
    if ((type == 1 || type == 2) && clen >= 20) {  // INIT, INIT ACK
      auto ali = FindAli(c + 4, clen - 4U);
      const uint16_t os = Be16(c + 12), mis = Be16(c + 14);
      std::string what = std::string(type == 1 ? "INIT" : "INIT ACK") + " adaptation " +
                         (ali ? std::to_string(*ali) : "none") + " streams " + std::to_string(os) +
                         "/" + std::to_string(mis);
      if (type == 1 && to_port) std::tie(a.init_os, a.init_mis) = std::tie(os, mis);
      if (type == 2 && !to_port) std::tie(a.ack_os, a.ack_mis) = std::tie(os, mis);
      a.init_seen += (a.init_seen.empty() ? "" : "; ") + what;
      if (type == 1 && to_port && ali == 2U) a.init_ali = true;
      if (type == 2 && !to_port && ali == 2U) a.init_ack_ali = true;
    } else if (type == 0 && clen >= 16) {  // DATA
      Chunk ch{to_port, flags, Be32(c + 12), Be16(c + 8), {}};
      ch.head.assign(c + 16, c + std::min<size_t>(clen, 16 + 8));
      a.data.push_back(ch);
    } else if (type == 64) {
      ++a.idata;
    }
    off += (clen + 3U) & ~3U;
  }
}

void IpPacket(Capture* cap, uint16_t port, const uint8_t* p, size_t len) {
  if (len < 1) return;
  int version = p[0] >> 4;
  uint8_t proto = 0;
  size_t hl = 0;
  std::string src, dst;
  if (version == 4 && len >= 20) {
    hl = static_cast<size_t>(p[0] & 0xfU) * 4;
    proto = p[9];
    src = AddrString(AF_INET, p + 12);
    dst = AddrString(AF_INET, p + 16);
    len = std::min<size_t>(len, Be16(p + 2));
  } else if (version == 6 && len >= 40) {
    hl = 40;
    proto = p[6];  // no extension headers on these captures
    src = AddrString(AF_INET6, p + 8);
    dst = AddrString(AF_INET6, p + 24);
  } else {
    return;
  }
  if (hl > len) return;
  ++cap->packets;
  if (proto == IPPROTO_SCTP) SctpPacket(cap, port, src, dst, p + hl, len - hl);
  if (proto == IPPROTO_TCP && len - hl >= 14 && Be16(p + hl + 2) == port) {
    uint8_t fl = p[hl + 13];
    if ((fl & 0x02) && !(fl & 0x10)) ++cap->syns;  // SYN without ACK
  }
}

bool ReadPcap(const char* file, uint16_t port, Capture* cap, std::string* err) {
  std::ifstream in(file, std::ios::binary);
  std::vector<uint8_t> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (d.size() < 24) {
    *err = "no pcap header";
    return false;
  }
  uint32_t magic = d[0] | d[1] << 8 | d[2] << 16 | static_cast<uint32_t>(d[3]) << 24;
  bool le = magic == 0xa1b2c3d4 || magic == 0xa1b23c4d;
  if (!le && magic != 0xd4c3b2a1 && magic != 0x4d3cb2a1) {
    *err = "not a pcap file (pcapng?)";
    return false;
  }
  auto u32 = [&](size_t off) {
    return le ? (d[off] | d[off + 1] << 8 | d[off + 2] << 16 |
                 static_cast<uint32_t>(d[off + 3]) << 24)
              : Be32(&d[off]);
  };
  uint32_t linktype = u32(20);
  for (size_t off = 24; off + 16 <= d.size();) {
    uint32_t caplen = u32(off + 8);
    off += 16;
    if (off + caplen > d.size()) break;
    const uint8_t* p = &d[off];
    size_t hdr = 0;
    uint16_t proto = 0x0800;
    switch (linktype) {
      case 1:  // Ethernet (lo captures too)
        hdr = 14;
        proto = caplen >= 14 ? Be16(p + 12) : 0;
        break;
      case 113:  // Linux cooked v1
        hdr = 16;
        proto = caplen >= 16 ? Be16(p + 14) : 0;
        break;
      case 276:  // Linux cooked v2
        hdr = 20;
        proto = caplen >= 20 ? Be16(p) : 0;
        break;
      case 12:
      case 101:  // raw IP
        break;
      default:
        *err = "link type " + std::to_string(linktype) + " not read";
        return false;
    }
    if (caplen > hdr && (proto == 0x0800 || proto == 0x86dd))
      IpPacket(cap, port, p + hdr, caplen - hdr);
    off += caplen;
  }
  return true;
}

std::string Hex(const std::vector<uint8_t>& v) {
  std::string s;
  std::array<char, 4> b{};
  for (uint8_t x : v) {
    std::snprintf(b.data(), b.size(), "%02x", x);
    s += b.data();
  }
  return s;
}

// The first DATA chunk in one direction: session control, DDP-SSN 1,
// function code @fc.
bool FirstIs(rddp_test::Tap& tap, const std::vector<Chunk>& data, bool to_port, uint16_t fc,
             const std::string& name) {
  for (const Chunk& c : data) {
    if (c.to_port != to_port) continue;
    bool ok = c.ppid == kPpidControl && c.head.size() >= 4 && Be16(c.head.data()) == 1 &&
              Be16(&c.head[2]) == fc;
    return tap.Check(ok, name, "ppid " + std::to_string(c.ppid) + ", first octets " + Hex(c.head));
  }
  return tap.Check(false, name, "no DATA chunk that way");
}

int CheckPcap(const char* file, const char* port_s) {
  rddp_test::Tap tap;
  Capture cap;
  std::string err;
  auto port = static_cast<uint16_t>(std::strtoul(port_s, nullptr, 10));
  if (!tap.Check(ReadPcap(file, port, &cap, &err), "the capture reads", err)) return tap.Finish();
  std::printf("# %d IP packets, %zu SCTP associations with port %u, %d TCP SYNs to it\n",
              cap.packets, cap.assocs.size(), port, cap.syns);
  tap.Check(!cap.assocs.empty(), "an SCTP association with port " + std::string(port_s));
  int index = 0;
  for (const auto& [key, a] : cap.assocs) {
    // Check names stay the same from run to run: the association's number
    // in the capture; its address and ephemeral port in a comment.
    const std::string who = "association " + std::to_string(++index);
    std::printf("# %s: from [%s]:%u\n", who.c_str(), std::get<0>(key).c_str(), std::get<1>(key));
    std::printf("# %s: chunks: %s\n", who.c_str(), a.chunks.c_str());
    int up = 0, down = 0, unordered = 0, whole = 0, ppid_ok = 0, segs_up = 0, segs_down = 0;
    int stream0 = 0;
    for (const Chunk& c : a.data) {
      stream0 += c.sid == 0 ? 1 : 0;
      (c.to_port ? up : down)++;
      unordered += (c.flags & 0x04) ? 1 : 0;
      whole += (c.flags & 0x03) == 0x03 ? 1 : 0;
      ppid_ok += c.ppid == kPpidSegment || c.ppid == kPpidControl ? 1 : 0;
      if (c.ppid == kPpidSegment) (c.to_port ? segs_up : segs_down)++;
    }
    const int n = static_cast<int>(a.data.size());
    std::printf("# %s: %d DATA chunks to the passive side (%d segments), %d back (%d); %s\n",
                who.c_str(), up, segs_up, down, segs_down, a.init_seen.c_str());
    tap.Check(a.init_ali, who + ": the INIT carries the Adaptation Layer Indication 2 (0xc006)",
              a.init_seen.empty() ? "no INIT captured" : a.init_seen);
    tap.Check(a.init_ack_ali, who + ": the INIT ACK carries it too",
              a.init_seen.empty() ? "no INIT ACK captured" : a.init_seen);
    tap.Check(up > 0 && down > 0, who + ": DATA chunks both ways",
              std::to_string(up) + " and " + std::to_string(down));
    tap.Check(n > 0 && unordered == n, who + ": every DATA chunk is unordered (U=1)",
              std::to_string(n - unordered) + " of " + std::to_string(n) + " ordered");
    tap.Check(n > 0 && ppid_ok == n, who + ": every DATA chunk has PPID 1 or 2",
              std::to_string(n - ppid_ok) + " of " + std::to_string(n) + " other");
    tap.Check(n > 0 && whole == n, who + ": every DATA chunk is one whole message (B=E=1)",
              std::to_string(n - whole) + " of " + std::to_string(n) + " fragments");
    tap.Check(a.idata == 0, who + ": no I-DATA chunks", std::to_string(a.idata));
    tap.Check(n > 0 && stream0 == n, who + ": every DATA chunk is on SCTP stream 0",
              std::to_string(n - stream0) + " of " + std::to_string(n) + " on others");
    // §5: a DDP Stream pairs the inbound and outbound stream of one id,
    // and the counts are equal: what each way gets is the smaller of the
    // sender's outbound and the receiver's inbound count.
    const int fwd = std::min(a.init_os, a.ack_mis), back = std::min(a.ack_os, a.init_mis);
    tap.Check(a.init_os && a.ack_os && fwd == back,
              who + ": INIT and INIT ACK negotiate equal stream counts each way (§5)",
              std::to_string(fwd) + " to the passive side, " + std::to_string(back) + " back");
    FirstIs(tap, a.data, true, kFcInitiate,
            who + ": the active side's first DATA chunk is an Initiate with DDP-SSN 1");
    FirstIs(tap, a.data, false, kFcAccept,
            who + ": the passive side's first DATA chunk is an Accept with DDP-SSN 1");
    tap.Check(segs_up > 0 && segs_down > 0, who + ": DDP segments (PPID 1) both ways",
              std::to_string(segs_up) + " and " + std::to_string(segs_down));
  }
  tap.Check(cap.syns == 0, "no TCP SYN to port " + std::string(port_s),
            std::to_string(cap.syns) + " SYNs");
  return tap.Finish();
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    const std::string val = argv[i + 1];
    if (opt == "--adaptation")
      o.adaptation = static_cast<uint32_t>(std::strtoul(val.c_str(), nullptr, 0));
    if (opt == "--wait") o.wait_s = std::atoi(val.c_str());
    if (opt == "--first") o.first = val == "negotiate" ? kFcNegotiate : kFcInitiate;
    if (opt == "--answer") o.answer = val;
    if (opt == "--read") o.split_read = val == "split";
    if (opt == "--stream") o.stream = static_cast<uint16_t>(std::atoi(val.c_str()));
    if (opt == "--again") o.again = val == "initiate";
    if (opt == "--add-stream") o.add_stream = val == "1";
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "connect" && argc >= 4) return Connect(argv[2], argv[3], ParseOptions(argc, argv));
  if (mode == "serve" && argc >= 4) return Serve(argv[2], argv[3], ParseOptions(argc, argv));
  if (mode == "pcap" && argc == 4) return CheckPcap(argv[2], argv[3]);
  std::fprintf(stderr,
               "usage: %s connect ADDR PORT [--adaptation N] [--wait SECONDS]"
               " [--first initiate|negotiate] [--read split]"
               " [--stream N] [--again initiate] [--add-stream 1]\n"
               "       %s serve ADDR PORT [--adaptation N]"
               " [--answer accept|terminate|initiate|abort|end|early]\n"
               "       %s pcap FILE PORT\n",
               argv[0], argv[0], argv[0]);
  return 64;
}
