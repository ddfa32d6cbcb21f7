// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// A hostile iWARP peer against rddp as the MPA Responder.
//
// Both ends run in this process. The victim is an ordinary librdmacm
// server on the device under test: it listens, accepts, posts receives and
// registers a target buffer fenced by guard bytes that lie outside its MR.
// The peer is a plain TCP socket driven by rddp's own protocol core
// (include/rddp): a real MPA Request (RFC 5044 §7.1, RFC 6581 revision 2
// with IRD/ORD and the RTR the Reply selects), then one crafted case per
// connection. For each case the program records what the device sends back
// (a Terminate decoded: layer, error type and code, the copied DDP header;
// or the close), checks it against the RFC, and checks on the victim side
// that the QP is where it must be, that completions say what happened and
// that no guard byte changed. Every case names its RFC section.
//
// Prints TAP; the exit status is non-zero if a check failed.
//
//   rddp_hostile [--crc=0] ADDR [FILTER]
//   rddp_hostile --sctp [--peer-timeout-ms=MS] ADDR [FILTER]
//   rddp_hostile --liveness|--exit-gone NS:VETH:MS:DEV ADDR
//   rddp_hostile --linger-exit DEV ADDR
// FILTER: only the cases whose name contains it. --crc=0: the peer asks
// for no MPA CRC (for a device whose mpa_crc is 0: then the streams run
// without CRC; the CRC case asks for it anyway). --liveness: instead, the
// cases of the liveness bound (issue 11, tests/vm/liveness.sh): the
// peer's socket in network namespace NS behind VETH, the device DEV's
// peer_timeout_ms being MS; --exit-gone: the process exits while its QP's
// peer is gone. --linger-exit: the program deletes DEV and unloads rddp
// while one of rddp's graceful closes waits for the peer's FIN. --sctp:
// the same kind of peer over SCTP (draft-ietf-rddp-sctp-00),
// hostile_sctp.cc.
extern "C" {
#include <rddp/crc32c.h>
#include <rddp/mpa.h>
#include <rddp/mpa_frame.h>
#include <rddp/rdmap.h>
}

#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sched.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "hostile.h"
#include "tap.h"

namespace {

using namespace rddp_hostile;  // NOLINT(google-build-using-namespace): hostile.h's helpers

// C in the peer's MPA frames (--crc=0 turns it off): RFC 5044 §7.1.1 uses
// CRC on a connection when either end asks for it.
bool g_crc = true;

// What the device sent back on the wire.
struct Received {
  struct Msg {
    rddp_hdr hdr{};
    std::vector<uint8_t> payload;
  };
  std::vector<Msg> msgs;
  bool closed = false;  // EOF or reset
  int framing_err = RDDP_MPA_OK;
  std::optional<rddp_term> term;
};

// The hostile end: a TCP socket speaking MPA through the protocol core.
class Peer {
 public:
  ~Peer() {
    if (fd_ >= 0) close(fd_);
    if (lfd_ >= 0) close(lfd_);
  }
  Peer() = default;
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  // From the network namespace @ns (ip netns add) if not empty: the
  // socket lives there, the rest of the process stays where it is.
  bool Connect(const sockaddr_in& to, const std::string& ns = "") {
    Close();
    int back = -1;
    if (!ns.empty()) {
      back = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
      int in = open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
      bool ok = back >= 0 && in >= 0 && setns(in, CLONE_NEWNET) == 0;
      if (in >= 0) close(in);
      if (!ok) {
        if (back >= 0) close(back);
        return false;
      }
    }
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (back >= 0) {
      setns(back, CLONE_NEWNET);
      close(back);
    }
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    // Before connect: the window scale follows from it.
    if (rcvbuf_) setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf_, sizeof(rcvbuf_));
    return fd_ >= 0 && connect(fd_, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) == 0;
  }
  // A small receive buffer for the next Connect: a peer that does not read
  // shuts its window soon.
  void SetRcvBuf(int bytes) { rcvbuf_ = bytes; }
  // RFC 5044 §7.1.1 / RFC 6581 §9.1.1: a revision-2 Request with CRC,
  // peer-to-peer, IRD = ORD = 4 and the RTR kinds @rtr offered.
  static rddp_mpa_frame StdRequest(uint8_t rtr) {
    rddp_mpa_frame f{};
    f.type = RDDP_MPA_REQUEST;
    f.rev = 2;
    f.crc = g_crc;
    f.enhanced = true;
    f.p2p = true;
    f.rtr = rtr;
    f.ird = 4;
    f.ord = 4;
    return f;
  }
  bool SendRequest(uint8_t rtr) { return SendFrame(StdRequest(rtr)); }
  // Request or Reply @f, its raw bytes passed through @edit, of which
  // only the first @cut are sent if @cut is not 0.
  bool SendFrame(const rddp_mpa_frame& f,
                 const std::function<void(std::vector<uint8_t>&)>& edit = nullptr, size_t cut = 0) {
    std::vector<uint8_t> buf(RDDP_MPA_FRAME_MAX);
    int n = rddp_mpa_frame_build(&f, buf.data(), static_cast<uint32_t>(buf.size()));
    if (n <= 0) return false;
    buf.resize(static_cast<size_t>(n));
    if (edit) edit(buf);
    if (cut) buf.resize(std::min(cut, buf.size()));
    my_markers_ = f.markers;  // M: what we want to receive
    return WriteAll(buf.data(), buf.size());
  }
  // Reads the Reply; bytes after it are FPDUs, kept for the deframer.
  bool ReadReply(rddp_mpa_frame* f) { return ReadFrame(RDDP_MPA_REPLY, f); }
  // rddp as the Initiator (RFC 5044 §7.1.2): its Request.
  bool ReadRequest(rddp_mpa_frame* f) { return ReadFrame(RDDP_MPA_REQUEST, f); }
  // RFC 5044 §7.1.1: a Reply is what the Responder sends, so once it is
  // out the FPDU streams start; markers go where the receiver asked.
  void StartFpdus(bool tx_markers, bool crc) {
    crc_ = crc;
    rddp_mpa_rx_init(&rx_, my_markers_, crc, 65535);
    tx_ = rddp_mpa_tx{tx_markers, crc, 0};
  }
  // A TCP listener on @addr for rddp's connect; the port it got.
  uint16_t Listen(const sockaddr_in& addr) {
    lfd_ = socket(AF_INET, SOCK_STREAM, 0);
    return ListenOn(lfd_, addr);
  }
  bool AcceptTcp(int ms) {
    fd_ = AcceptWithin(lfd_, ms);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd_ >= 0;
  }
  // The device closes the connection within @ms without sending a byte.
  bool ExpectSilentClose(int ms) {
    uint8_t b[64];
    ssize_t n = ReadSome(b, sizeof(b), ms);
    return n == 0 || (n < 0 && errno != ETIMEDOUT);
  }
  // One FPDU around the DDP/RDMAP header @h and @payload.
  bool Send(const rddp_hdr& h, const uint8_t* payload, uint32_t len) {
    uint8_t hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
    uint32_t hl = rddp_hdr_build(&h, hdr);
    if (mangle_) mangle_(hdr);
    mangle_ = nullptr;
    last_ulpdu_ = hl + len;
    auto f = std::make_unique<rddp_fpdu>();
    if (rddp_fpdu_build(&tx_, f.get(), hdr, hl, payload, len)) return false;
    std::vector<uint8_t> wire;
    for (uint32_t i = 0; i < f->nr_spans; i++) {
      const uint8_t* b = f->span[i].base;
      wire.insert(wire.end(), b, b + f->span[i].len);
    }
    if (corrupt_crc_ && crc_) wire.back() ^= 0xff;
    if (corked_) {
      cork_.insert(cork_.end(), wire.begin(), wire.end());
      return true;
    }
    size_t hold = std::min(hold_, wire.size());
    held_.assign(wire.end() - static_cast<std::ptrdiff_t>(hold), wire.end());
    hold_ = 0;
    return WriteAll(wire.data(), wire.size() - hold);
  }
  // Sends until Uncork() leave in one write (one TCP segment on loopback).
  void Cork() { corked_ = true; }
  bool Uncork() {
    corked_ = false;
    bool ok = WriteAll(cork_.data(), cork_.size());
    cork_.clear();
    return ok;
  }
  // A hand-made FPDU (RFC 5044 §4.1): ULPDU_Length @ulpdu_len, whatever
  // it says, then @body, the pad and (with CRC) a correct CRC.
  bool SendRawFpdu(uint16_t ulpdu_len, const std::vector<uint8_t>& body) {
    std::vector<uint8_t> wire{static_cast<uint8_t>(ulpdu_len >> 8),
                              static_cast<uint8_t>(ulpdu_len)};
    wire.insert(wire.end(), body.begin(), body.end());
    while (wire.size() % 4) wire.push_back(0);
    // RFC 5044 §4.4: the CRC field is there, zero, when CRC is off.
    uint32_t c = crc_ ? ~rddp_crc32c(~0U, wire.data(), wire.size()) : 0;
    for (int i = 0; i < 4; i++) wire.push_back(static_cast<uint8_t>(c >> (8 * i)));  // as fpdu_tx.c
    return WriteAll(wire.data(), wire.size());
  }
  // The next Send writes all but its last @n bytes (a stall mid-FPDU).
  void HoldBack(size_t n) { hold_ = n; }
  // Writes the bytes held back.
  bool SendHeld() {
    bool ok = WriteAll(held_.data(), held_.size());
    held_.clear();
    return ok;
  }
  // The next Send's DDP/RDMAP header bytes pass through @f before framing
  // (so the CRC covers what is sent): fields the builder will not write.
  void Mangle(std::function<void(uint8_t*)> f) { mangle_ = std::move(f); }
  bool Send(const rddp_hdr& h, const std::vector<uint8_t>& payload) {
    return Send(h, payload.data(), static_cast<uint32_t>(payload.size()));
  }
  void CorruptNextCrc(bool on) { corrupt_crc_ = on; }
  // Octets after the payload of an FPDU whose length is a multiple of 4:
  // the CRC field, present (zero) even without CRC (RFC 5044 §4.4).
  static size_t TrailerLen() { return RDDP_MPA_CRC_LEN; }
  // The ULPDU length (DDP header and payload) of the last FPDU sent.
  uint32_t LastUlpdu() const { return last_ulpdu_; }

  // Collects FPDUs until @stop says enough, the stream closes, or @ms pass.
  Received Collect(int ms, const std::function<bool(const Received&)>& stop) {
    Received r;
    feed_ = &r;
    auto end = Clock::now() + std::chrono::milliseconds(ms);
    if (!pending_.empty()) {
      Feed(pending_.data(), pending_.size());
      pending_.clear();
    }
    uint8_t buf[65536];
    while (!r.closed && !stop(r)) {
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count());
      if (left <= 0) break;
      ssize_t n = ReadSome(buf, sizeof(buf), left);
      if (n == 0 || (n < 0 && errno != ETIMEDOUT && errno != EAGAIN)) {
        r.closed = true;
        break;
      }
      if (n > 0) Feed(buf, static_cast<size_t>(n));
    }
    feed_ = nullptr;
    return r;
  }
  // A Terminate or the close, within the time limit.
  Received ExpectEnd() {
    return Collect(kTimeoutMs, [](const Received& r) { return r.term.has_value(); });
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  // The socket's TCP state (TCP_INFO): TCP_CLOSE_WAIT once the device's
  // FIN is in, TCP_CLOSE once a reset is; -1 if it cannot be read.
  int TcpState() const {
    tcp_info ti{};
    socklen_t len = sizeof(ti);
    if (getsockopt(fd_, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return -1;
    return ti.tcpi_state;
  }
  // Waits up to @ms for the TCP state @want; the state last seen.
  int AwaitTcpState(int want, int ms) const {
    auto end = Clock::now() + std::chrono::milliseconds(ms);
    int st = TcpState();
    while (st != want && Clock::now() < end) {
      usleep(20000);
      st = TcpState();
    }
    return st;
  }

 private:
  bool ReadFrame(rddp_mpa_frame_type type, rddp_mpa_frame* f) {
    rddp_mpa_frame_rx rx{};
    rddp_mpa_frame_rx_init(&rx, type, 2);
    uint8_t buf[2048];
    while (true) {
      ssize_t n = ReadSome(buf, sizeof(buf), kTimeoutMs);
      if (n <= 0) return false;
      uint32_t used = 0;
      int r = rddp_mpa_frame_rx_feed(&rx, buf, static_cast<uint32_t>(n), &used, f);
      if (r == RDDP_MPA_FRAME_MORE) continue;
      if (r != RDDP_MPA_FRAME_OK) return false;
      pending_.assign(buf + used, buf + n);
      // Our Reply starts the streams when we are the Responder.
      if (type == RDDP_MPA_REPLY) StartFpdus(f->markers, f->crc);
      return true;
    }
  }
  bool WriteAll(const uint8_t* p, size_t n) const {
    while (n) {
      ssize_t w = write(fd_, p, n);
      if (w <= 0) return false;
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  ssize_t ReadSome(uint8_t* buf, size_t len, int ms) {
    pollfd pfd{fd_, POLLIN, 0};
    int n = poll(&pfd, 1, ms);
    if (n == 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    if (n < 0) return -1;
    return read(fd_, buf, len);
  }
  void Feed(const uint8_t* p, size_t n) {
    static const rddp_mpa_rx_ops ops = {
        [](void* ctx, const u8* hdr, u32 hdr_len, u32 payload_len) -> int {
          auto* self = static_cast<Peer*>(ctx);
          Received::Msg m;
          if (rddp_hdr_parse(hdr, hdr_len, payload_len, &m.hdr) != RDDP_ERR_NONE)
            m.hdr.opcode = RDDP_OP_MAX;  // not ours to judge: kept raw
          self->feed_->msgs.push_back(std::move(m));
          return 0;
        },
        [](void* ctx, const u8* data, u32 len) -> int {
          auto* self = static_cast<Peer*>(ctx);
          auto& m = self->feed_->msgs.back();
          m.payload.insert(m.payload.end(), data, data + len);
          return 0;
        },
        [](void* ctx) -> int {
          auto* self = static_cast<Peer*>(ctx);
          const auto& m = self->feed_->msgs.back();
          if (!m.hdr.tagged && m.hdr.opcode == RDDP_OP_TERMINATE) {
            rddp_term t{};
            if (rddp_term_parse(m.payload.data(), static_cast<u32>(m.payload.size()), &t) ==
                RDDP_ERR_NONE)
              self->feed_->term = t;
          }
          return 0;
        },
    };
    int r = rddp_mpa_rx_feed(&rx_, p, static_cast<u32>(n), &ops, this);
    if (r != RDDP_MPA_OK) feed_->framing_err = r;
  }

  int fd_ = -1;
  int lfd_ = -1;
  int rcvbuf_ = 0;
  bool my_markers_ = false;  // M in the frame we sent
  bool crc_ = true;
  bool corrupt_crc_ = false;
  uint32_t last_ulpdu_ = 0;
  size_t hold_ = 0;
  bool corked_ = false;
  std::vector<uint8_t> cork_;
  std::vector<uint8_t> held_;
  std::function<void(uint8_t*)> mangle_;
  rddp_mpa_rx rx_{};
  rddp_mpa_tx tx_{};
  std::vector<uint8_t> pending_;
  Received* feed_ = nullptr;
};

// RFC 6581 §9.1.1: the Initiator sends the RTR the Reply selected (a
// Send RTR takes MSN 1 of the Send queue).
bool SendRtr(Peer& p, uint8_t rtr) {
  if (rtr & RDDP_MPA_RTR_WRITE) return p.Send(Tagged(RDDP_OP_WRITE, 0, 0, true), nullptr, 0);
  if (rtr & RDDP_MPA_RTR_SEND) return p.Send(Untagged(RDDP_OP_SEND, 1, 0, true), nullptr, 0);
  if (rtr & RDDP_MPA_RTR_READ) {
    uint8_t zero[RDDP_RDMAP_RREQ_LEN] = {};  // a zero-length Read
    return p.Send(Untagged(RDDP_OP_READ_REQ, 1, 0, true, RDDP_QN_READ_REQ), zero, sizeof(zero));
  }
  return true;
}

// The victim's side (hostile.h) with MPA's connection setup.
class Harness : public VictimSide {
 public:
  using VictimSide::VictimSide;

  // A fresh connection: the peer's Request, the victim's accept with
  // receives posted, the Reply, the RTR the Reply selected, ESTABLISHED.
  // With @send_rtr false the case sends the RTR (or what stands for it).
  bool Connect(Peer& p, Victim& v, const std::string& name, uint8_t offer, bool send_rtr, bool crc,
               const std::string& ns = "") {
    rddp_mpa_frame f = Peer::StdRequest(offer);
    f.crc = crc;
    if (!p.Connect(To(), ns) || !p.SendFrame(f))
      return tap.Check(false, name + ": TCP connect and MPA Request", std::strerror(errno));
    return AcceptRequest(p, v, name, send_rtr);
  }
  // The victim's side once the peer's Request is out: the listener sees
  // it, the victim accepts, the Reply comes back (in @reply), and the RTR.
  bool AcceptRequest(Peer& p, Victim& v, const std::string& name, bool send_rtr,
                     rddp_mpa_frame* reply_out = nullptr) {
    CmEvent ev = NextEvent(Ch(), kTimeoutMs);
    if (!ev || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
      return tap.Check(false, name + ": the listener sees the Request");
    if (!TakeRequest(std::move(ev), v, name)) return false;
    rdma_conn_param cp = Depths();
    if (rdma_accept(v.id, &cp))
      return tap.Check(false, name + ": rdma_accept", std::strerror(errno));
    rddp_mpa_frame reply{};
    if (!p.ReadReply(&reply) || reply.reject)
      return tap.Check(false, name + ": an MPA Reply accepting the Request");
    if (reply_out) *reply_out = reply;
    last_reply_crc_ = reply.crc;
    rtr_ = reply.rtr;
    if (send_rtr) {
      if (!SendRtr(p, reply.rtr))
        return tap.Check(false, name + ": send the RTR", std::strerror(errno));
      if (reply.rtr & RDDP_MPA_RTR_SEND) send_msn_ = 2;
    }
    // rddp reports the connection established once its Reply is sent,
    // siw once the RTR is in: a case that sends no proper RTR does not
    // wait for it (a late event is drained after the case).
    ev = NextEvent(Ch(), send_rtr ? kTimeoutMs : 500);
    if (send_rtr && (!ev || ev->event != RDMA_CM_EVENT_ESTABLISHED))
      return tap.Check(false, name + ": connection established");
    return true;
  }
  // rddp as the MPA Initiator: the victim connects to @p's TCP listener
  // and its Request arrives (in @req).
  bool ConnectOut(Peer& p, Victim& v, const std::string& name, rddp_mpa_frame* req) {
    if (!Dial(v, p.Listen(To()), name, "a TCP listener")) return false;
    rdma_conn_param cp = Depths();
    if (rdma_connect(v.id, &cp))
      return tap.Check(false, name + ": rdma_connect", std::strerror(errno));
    if (!p.AcceptTcp(kTimeoutMs)) return tap.Check(false, name + ": rddp's TCP connection");
    return tap.Check(p.ReadRequest(req), name + ": rddp sends a valid MPA Request");
  }
  uint32_t SendMsn() const { return send_msn_; }
  bool LastReplyCrc() const { return last_reply_crc_; }
  uint8_t Rtr() const { return rtr_; }
  void ResetMsn() { send_msn_ = 1; }

 private:
  uint32_t send_msn_ = 1;
  uint8_t rtr_ = 0;
  bool last_reply_crc_ = false;
};

std::string TermStr(const Received& r) {
  if (r.term) {
    return "Terminate layer " + std::to_string(r.term->layer) + " type " +
           std::to_string(r.term->etype) + " code " + Hex(r.term->ecode);
  }
  if (r.framing_err != RDDP_MPA_OK)
    return std::string("unframeable reply: ") + rddp_mpa_err_names[r.framing_err];
  return r.closed ? "close without a Terminate" : "nothing within the time limit";
}

// The device answers with exactly @want and stops: the QP in ERROR, the
// posted receives flushed, nothing placed outside a buffer.
void ExpectTerminate(const std::string& name, Peer& p, Victim& v, TermWant want,
                     bool hdr_copied = true) {
  Received r = p.ExpectEnd();
  tap.Check(TermIs(r.term, want), name + ": " + TermName(want), "got " + TermStr(r));
  if (r.term && hdr_copied)
    ExpectTermCopies(name, *r.term, p.LastUlpdu(), "the segment's ULPDU length");
  ExpectVictimTerminated(name, v);
}

// RFC 5040 §4.4: a Read Request (QN 1, MSN @msn) for @size octets of @stag
// at @to, into a sink the victim never checks.
bool SendReadReq(Peer& p, uint32_t msn, uint32_t stag, uint64_t to, uint32_t size) {
  return p.Send(Untagged(RDDP_OP_READ_REQ, msn, 0, true, RDDP_QN_READ_REQ),
                ReadReqPayload(stag, to, size));
}

// ibv_dereg_mr(@mr) returns promptly while the peer holds a message open:
// MR teardown never waits for the network (issue 11, defect 1). If it
// hangs, the process cannot end either: report and leave.
bool Promptly(const std::function<int()>& call, const std::string& what) {
  std::atomic<bool> done{false};
  int rc = -1;
  std::thread t([&] {
    rc = call();
    done = true;
  });
  if (!WaitFor([&] { return done.load(); }, 5000)) {
    tap.Check(false, what, "blocked for 5 s");
    std::fflush(stdout);
    std::_Exit(tap.Finish());  // the thread sleeps in the kernel
  }
  t.join();
  return tap.Zero(rc, what);
}
bool DeregPromptly(ibv_mr* mr, const std::string& n) {
  return Promptly([mr] { return ibv_dereg_mr(mr); },
                  n + ": ibv_dereg_mr returns at once while the peer stalls mid-message");
}

// One Read Request of 32 MiB, far more than the socket buffers of both
// ends hold while the peer reads nothing: TX parks inside the response,
// holding the MR. The victim deregisters it (at once: MR teardown never
// waits for the network) and writes a marker over the buffer, as an
// application reusing it does: the pages are the application's again.
// Every octet the peer then receives must be from before ibv_dereg_mr
// returned (RFC 5040 §7, kmod/mem.h), with zero copy (--crc=0) and
// without, and the response must end with the Terminate for an invalid
// STag (RFC 5040 §7: remote protection error, the Read Request copied).
void ReadUnderDeregCase(const std::string& n, Harness& h, Peer& p, Victim& v) {
  constexpr uint32_t kHuge = 32U << 20;
  constexpr uint64_t kSinkTo = 0x1000;  // SendReadReq's
  std::vector<uint8_t> big(kHuge);
  for (size_t i = 0; i < big.size(); i++) big[i] = static_cast<uint8_t>(i * 7 + 3);
  ibv_mr* mr = ibv_reg_mr(h.Pd(), big.data(), kHuge, IBV_ACCESS_REMOTE_READ);
  if (!tap.Check(mr != nullptr, n + ": register 32 MiB", std::strerror(errno))) return;
  SendReadReq(p, 1, mr->rkey, Addr(big.data()), kHuge);
  usleep(500000);  // the response fills both ends' buffers
  DeregPromptly(mr, n);
  std::fill(big.begin(), big.end(), uint8_t{0xe7});
  Received r = p.Collect(3 * kTimeoutMs, [](const Received& x) {
    return x.term.has_value() || x.framing_err != RDDP_MPA_OK;
  });
  uint64_t bytes = 0, wrong = 0;
  for (const Received::Msg& m : r.msgs) {
    if (!m.hdr.tagged || m.hdr.opcode != RDDP_OP_READ_RESP) continue;
    for (size_t i = 0; i < m.payload.size(); i++)
      wrong += m.payload[i] != static_cast<uint8_t>((m.hdr.to - kSinkTo + i) * 7 + 3);
    bytes += m.payload.size();
  }
  std::printf("# %llu octets of the Read Response in %zu messages, then %s\n",
              static_cast<unsigned long long>(bytes), r.msgs.size(), TermStr(r).c_str());
  tap.Check(bytes > 0 && bytes < kHuge, n + ": the response started and stops at ibv_dereg_mr",
            std::to_string(bytes) + " octets of " + std::to_string(kHuge));
  tap.Check(wrong == 0 && r.framing_err == RDDP_MPA_OK,
            n + ": every octet received is from before ibv_dereg_mr returned",
            std::to_string(wrong) + " of " + std::to_string(bytes) + " octets rewritten, " +
                rddp_mpa_err_names[r.framing_err]);
  tap.Check(TermIs(r.term, kRdmapInvalidStag) && r.term->r && !r.term->d,
            n + ": Terminate layer 0 type 1 code 0x00 (invalid STag) copying the Read Request",
            "got " + TermStr(r));
  tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
}

// A Send of 16 octets whose header bytes pass through @f; the device
// must answer with @want.
void MangledSend(const std::string& n, Harness& h, Peer& p, Victim& v,
                 const std::function<void(uint8_t*)>& f, TermWant want) {
  p.Mangle(f);
  p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), Pattern(16, 5));
  ExpectTerminate(n, p, v, want);
}
void MangledWrite(const std::string& n, Peer& p, Victim& v, const std::function<void(uint8_t*)>& f,
                  TermWant want) {
  p.Mangle(f);
  p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, Addr(v.target->Data()), true), Pattern(16, 5));
  ExpectTerminate(n, p, v, want);
}

// A Send the device places and completes (after something it accepted).
void ExpectSendPlaced(const std::string& n, Harness& h, Peer& p, Victim& v, uint32_t msn_off = 0) {
  auto data = Pattern(64, 29);
  p.Send(Untagged(RDDP_OP_SEND, h.SendMsn() + msn_off, 0, true), data);
  auto wcs = v.Poll(1, kTimeoutMs);
  Received r = p.Collect(100, [](const Received& x) { return x.term.has_value(); });
  tap.Check(!r.term && wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                std::equal(data.begin(), data.end(),
                           v.recv->Data() + static_cast<size_t>(wcs[0].wr_id) * kRecvLen),
            n + ": accepted: a Send after it is placed and completes",
            r.term        ? "got " + TermStr(r)
            : wcs.empty() ? "no completion"
                          : "status " + std::to_string(wcs[0].status));
  tap.Check(v.GuardsIntact(), n + ": guards intact");
}

// A Read Request (MSN @msn) for 3000 octets of the target is answered with
// them: Read Response segments to the sink STag and TO (RFC 5040 §4.5).
void ExpectReadAnswered(const std::string& n, Peer& p, Victim& v, uint32_t msn) {
  auto data = Pattern(3000, 41);
  std::copy(data.begin(), data.end(), v.target->Data());
  SendReadReq(p, msn, v.target_mr->rkey, Addr(v.target->Data()), 3000);
  std::vector<uint8_t> got;
  Received r = p.Collect(
      kTimeoutMs, [](const Received& x) { return !x.msgs.empty() && x.msgs.back().hdr.last; });
  bool sink_ok = !r.msgs.empty();
  for (const auto& m : r.msgs) {
    sink_ok = sink_ok && m.hdr.opcode == RDDP_OP_READ_RESP && m.hdr.stag == 0x4400 &&
              m.hdr.to == 0x1000 + got.size();
    got.insert(got.end(), m.payload.begin(), m.payload.end());
  }
  tap.Check(
      sink_ok && got == data && r.framing_err == RDDP_MPA_OK,
      n + ": Read Response segments carry the 3000 octets to the sink STag and TO",
      std::to_string(r.msgs.size()) + " messages, " + std::to_string(got.size()) + " octets" +
          (r.framing_err != RDDP_MPA_OK ? std::string(", ") + rddp_mpa_err_names[r.framing_err]
                                        : ""));
}

// One segment of an untagged message: MO, payload octets, L.
struct Seg {
  uint32_t mo;
  uint32_t len;
  bool last;
};
// A Send (MSN @msn) as the segments @segs, each carrying its octets of one
// message pattern; returns that message (up to its highest octet sent).
std::vector<uint8_t> SendSegments(Peer& p, uint32_t msn, const std::vector<Seg>& segs) {
  uint32_t end = 0;
  for (const Seg& sg : segs) end = std::max(end, sg.mo + sg.len);
  auto msg = Pattern(end, 13);
  for (const Seg& sg : segs)
    p.Send(Untagged(RDDP_OP_SEND, msn, sg.mo, sg.last), msg.data() + sg.mo, sg.len);
  return msg;
}

struct Case {
  const char* name;
  std::function<void(const std::string&, Harness&, Peer&, Victim&)> run;
  uint8_t offer = RDDP_MPA_RTR_ALL;  // RTR kinds the Request offers
  bool send_rtr = true;              // false: the case sends what stands for it
  bool srq = false;                  // the victim receives on an SRQ of another PD
  bool crc = false;                  // the case needs CRC whatever --crc says
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"RFC 5040 §5.3 Send: placed and completed",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         // hostile.sh runs --crc=0 against mpa_crc=0 only: no CRC then.
         tap.Check(h.LastReplyCrc() == g_crc, n + ": the Reply's C bit is the Request's",
                   "C " + std::to_string(h.LastReplyCrc()));
         auto data = Pattern(300, 1);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), data);
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 300 &&
                       std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": one receive completes with the 300 bytes");
         tap.Check(v.GuardsIntact(), n + ": guards intact");
       }},
      {"RFC 5041 §4.2 tagged Write in bounds",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         auto data = Pattern(1000, 3);
         uint64_t base = Addr(v.target->Data());
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, base + 96, true), data);
         // A Send after it completes once the Write is placed (in order).
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), Pattern(8, 9));
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                       std::equal(data.begin(), data.end(), v.target->Data() + 96),
                   n + ": the Write is placed at its TO");
         tap.Check(v.GuardsIntact(), n + ": guards intact");
       }},
      {"RFC 5041 §7.2 Write to an invalid STag",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint64_t base = Addr(v.target->Data());
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey ^ 0x5a5a00, base, true), Pattern(64, 5));
         ExpectTerminate(n, p, v, kDdpInvalidStag);
       }},
      {"RFC 5041 §7.2 Write with a wrong STag key",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint64_t base = Addr(v.target->Data());
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey ^ 0x01, base, true), Pattern(64, 5));
         ExpectTerminate(n, p, v, kDdpInvalidStag);
       }},
      {"RFC 5041 §7.2 Write past the end of the MR",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint64_t base = Addr(v.target->Data());
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, base + kTargetLen - 10, true),
                Pattern(20, 5));
         ExpectTerminate(n, p, v, kDdpBaseBounds);
       }},
      {"RFC 5041 §7.2 Write below the MR's base",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint64_t base = Addr(v.target->Data());
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, base - 16, true), Pattern(32, 5));
         ExpectTerminate(n, p, v, kDdpBaseBounds);
       }},
      {"RFC 5041 §7.2 Write whose TO wraps",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, UINT64_MAX - 7, true), Pattern(16, 5));
         ExpectTerminate(n, p, v, kDdpToWrap);
       }},
      {"RFC 5041 §7.2 Send on an invalid QN",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true, 3), Pattern(16, 5));
         ExpectTerminate(n, p, v, kDdpInvalidQn);
       }},
      {"RFC 5041 §7.2 Send with an MSN out of range",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn() + 5, 0, true), Pattern(16, 5));
         ExpectTerminate(n, p, v, kDdpMsnRange);
       }},
      {"RFC 5041 §7.2 Send with no receive posted",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         for (uint32_t i = 0; i < kRecvs; i++)
           p.Send(Untagged(RDDP_OP_SEND, h.SendMsn() + i, 0, true), Pattern(16, 5));
         auto wcs = v.Poll(kRecvs, kTimeoutMs);
         tap.Check(wcs.size() == kRecvs, n + ": the posted receives complete");
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn() + kRecvs, 0, true), Pattern(16, 5));
         Received r = p.ExpectEnd();
         tap.Check(TermIs(r.term, kDdpNoBuffer), n + ": " + TermName(kDdpNoBuffer),
                   "got " + TermStr(r));
         tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
         tap.Check(v.GuardsIntact(), n + ": no byte placed outside the buffers");
       }},
      {"RFC 5041 §7.2 Send with an MO beyond the receive buffer",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), kRecvLen + 8, true), Pattern(16, 5));
         ExpectTerminate(n, p, v, kDdpInvalidMo);
       }},
      {"RFC 5041 §7.2 Send longer than the receive buffer",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), Pattern(kRecvLen + 1, 5));
         ExpectTerminate(n, p, v, kDdpTooLong);
       }},
      {"RFC 5041 §5.3 a Write between two segments of a Send",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         // A receiver never misplaces data, whatever the order the peer
         // sends in: the Write goes to its MR, the Send to its receive.
         auto s1 = Pattern(100, 11);
         auto s2 = Pattern(100, 57);
         auto w = Pattern(64, 33);
         uint64_t base = Addr(v.target->Data());
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, false), s1);
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, base + 512, true), w);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 100, true), s2);
         auto wcs = v.Poll(1, kTimeoutMs);
         Received r = p.Collect(200, [](const Received& x) { return x.term.has_value(); });
         tap.Check(!r.term, n + ": no Terminate", "got " + TermStr(r));
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 200 &&
                       std::equal(s1.begin(), s1.end(), v.recv->Data()) &&
                       std::equal(s2.begin(), s2.end(), v.recv->Data() + 100),
                   n + ": the Send's 200 bytes complete its receive",
                   wcs.empty() ? "no completion"
                               : "status " + std::to_string(wcs[0].status) + ", " +
                                     std::to_string(wcs[0].byte_len) + " bytes");
         tap.Check(std::equal(w.begin(), w.end(), v.target->Data() + 512),
                   n + ": the Write is placed at its TO");
         tap.Check(v.GuardsIntact(), n + ": guards intact");
       }},
      {"RFC 5040 §5.4 Read Response with no Read outstanding",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint64_t base = Addr(v.sink->Data());
         p.Send(Tagged(RDDP_OP_READ_RESP, v.sink_mr->rkey, base, true), Pattern(64, 5));
         ExpectTerminate(n, p, v, kRdmapUnexpectedOpcode, false);
       }},
      {"RFC 5044 §8 an FPDU with a bad CRC",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.CorruptNextCrc(true);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), Pattern(16, 5));
         p.CorruptNextCrc(false);
         ExpectTerminate(n, p, v, kLlpCrc, false);
       },
       RDDP_MPA_RTR_ALL, true, false, true},
      {"RFC 5040 §5.3 a Send into an SRQ whose PD is not the QP's",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         auto data = Pattern(300, 1);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), data);
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 300 &&
                       std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": the SRQ's receive completes with the 300 bytes",
                   wcs.empty() ? "no completion" : "status " + std::to_string(wcs[0].status));
         tap.Check(v.GuardsIntact(), n + ": guards intact");
       },
       RDDP_MPA_RTR_ALL, true, true},
      // RFC 6581 §3.2, §9.1.1: the Responder's first FPDU must be the
      // zero-length RTR message its Reply selected.
      {"RFC 6581 §3.2 a Send where the Write RTR is due",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, 1, 0, true), Pattern(16, 5));
         ExpectTerminate(n, p, v, kLlpNoMatchingRtr, false);
       },
       RDDP_MPA_RTR_WRITE, false},
      {"RFC 6581 §3.2 a zero-length Send where the Write RTR is due",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, 1, 0, true), nullptr, 0);
         ExpectTerminate(n, p, v, kLlpNoMatchingRtr, false);
       },
       RDDP_MPA_RTR_WRITE, false},
      {"RFC 6581 §3.2 a Write RTR carrying data",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, Addr(v.target->Data()), true),
                Pattern(16, 5));
         ExpectTerminate(n, p, v, kLlpNoMatchingRtr, false);
         tap.Check(
             std::all_of(v.target->Data(), v.target->Data() + 16, [](uint8_t b) { return b == 0; }),
             n + ": nothing placed");
       },
       RDDP_MPA_RTR_WRITE, false},
      {"RFC 6581 §3.2 a Send RTR with the wrong MSN",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, 2, 0, true), nullptr, 0);
         ExpectTerminate(n, p, v, kLlpNoMatchingRtr, false);
       },
       RDDP_MPA_RTR_SEND, false},
      {"RFC 6581 §3.2 a Send RTR carrying data",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, 1, 0, true), Pattern(16, 5));
         ExpectTerminate(n, p, v, kLlpNoMatchingRtr, false);
       },
       RDDP_MPA_RTR_SEND, false},
      {"RFC 6581 §9.1.1 the Send RTR consumes no receive",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         tap.Check(h.Rtr() == RDDP_MPA_RTR_SEND, n + ": the Reply selects the Send RTR offered",
                   "RTR bits " + Hex(h.Rtr()));
         auto data = Pattern(300, 1);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), data);
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].wr_id == 0 &&
                       wcs[0].byte_len == 300 &&
                       std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": the first Send after it fills the first receive");
       },
       RDDP_MPA_RTR_SEND},
      // Defect 1 of issue 11: the peer stalls in the middle of a message
      // while the victim deregisters the buffer it targets.
      {"RFC 5041 §7.2 the tagged buffer deregistered while a Write segment arrives",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         auto data = Pattern(2000, 13);  // FPDU of 2016 octets: no pad
         p.HoldBack(1000 + Peer::TrailerLen());
         p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, Addr(v.target->Data()), true), data);
         tap.Check(
             WaitFor(
                 [&] { return std::equal(data.begin(), data.begin() + 1000, v.target->Data()); },
                 kTimeoutMs),
             n + ": the first 1000 octets are placed as they arrive");
         if (!DeregPromptly(v.target_mr, n)) return;
         v.target_mr = nullptr;
         p.SendHeld();
         ExpectTerminate(n, p, v, kDdpInvalidStag);
         const uint8_t* rest = v.target->Data() + 1000;
         auto placed = std::count_if(rest, rest + 1000, [](uint8_t b) { return b != 0; });
         tap.Check(
             placed == 0, n + ": nothing placed after ibv_dereg_mr returned",
             std::to_string(placed) + " of the last 1000 octets are not 0; first " +
                 std::to_string(std::find_if(rest, rest + 1000, [](uint8_t b) { return b != 0; }) -
                                rest));
       }},
      {"RFC 5041 §7.2 the receive buffer deregistered while a Send arrives",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         auto s1 = Pattern(100, 11);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, false), s1);
         tap.Check(
             WaitFor([&] { return std::equal(s1.begin(), s1.end(), v.recv->Data()); }, kTimeoutMs),
             n + ": the first segment is placed");
         if (!DeregPromptly(v.recv_mr, n)) return;
         v.recv_mr = nullptr;
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 100, true), Pattern(100, 57));
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
         tap.Check(AllZero(v.recv->Data() + 100, 100),
                   n + ": nothing placed after ibv_dereg_mr returned");
       }},
      {"RFC 5040 §5.4 Read Responses into a closed TCP window",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         // 4 Read Requests of 8 MiB each: more than the socket buffers of
         // both ends hold while the peer reads nothing, so the victim's TX
         // stops in the middle of a Read Response holding the MR.
         constexpr uint32_t kBig = 8U << 20;
         std::vector<uint8_t> big(kBig, 0x3c);
         ibv_mr* mr = ibv_reg_mr(h.Pd(), big.data(), kBig, IBV_ACCESS_REMOTE_READ);
         if (!tap.Check(mr != nullptr, n + ": register 8 MiB", std::strerror(errno))) return;
         for (uint32_t i = 1; i <= 4; i++) SendReadReq(p, i, mr->rkey, Addr(big.data()), kBig);
         usleep(500000);
         DeregPromptly(mr, n);
         Promptly(
             [&v] {
               rdma_destroy_qp(v.id);
               return 0;
             },
             n + ": rdma_destroy_qp returns at once too");
         p.Close();
       }},
      {"RFC 5040 §7 a closed TCP window under a Read, its MR deregistered and rewritten",
       ReadUnderDeregCase},
      // RFC 5041 §4.1, §7.2 and RFC 5040 §4.2, §7: versions and reserved bits.
      {"RFC 5041 §7.2 a tagged segment with DDP version 0",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         MangledWrite(
             n, p, v, [](uint8_t* b) { b[0] &= 0xfc; }, kDdpTaggedVersion);
       }},
      {"RFC 5041 §7.2 an untagged segment with DDP version 2",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         MangledSend(
             n, h, p, v, [](uint8_t* b) { b[0] = (b[0] & 0xfc) | 2; }, kDdpUntaggedVersion);
       }},
      {"RFC 5040 §7 a Send with RDMAP version 0",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         MangledSend(
             n, h, p, v, [](uint8_t* b) { b[1] &= 0x3f; }, kRdmapVersion);
       }},
      {"RFC 5040 §7 a Write with RDMAP version 2",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         MangledWrite(
             n, p, v, [](uint8_t* b) { b[1] = (b[1] & 0x3f) | 0x80; }, kRdmapVersion);
       }},
      {"RFC 5041 §4.2 reserved DDP control bits are ignored on receive",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Mangle([](uint8_t* b) { b[0] |= 0x3c; });
         ExpectSendPlaced(n, h, p, v);
       }},
      {"RFC 5040 §4.2 reserved RDMAP control bits are ignored on receive",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Mangle([](uint8_t* b) { b[1] |= 0x30; });
         ExpectSendPlaced(n, h, p, v);
       }},
      {"RFC 5040 §7 an undefined opcode",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         MangledSend(
             n, h, p, v, [](uint8_t* b) { b[1] = (b[1] & 0xf0) | 0x0f; }, kRdmapUnexpectedOpcode);
       }},
      {"RFC 5040 §7 a Write opcode in an untagged segment",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         MangledSend(
             n, h, p, v, [](uint8_t* b) { b[1] = (b[1] & 0xf0) | RDDP_OP_WRITE; },
             kRdmapUnexpectedOpcode);
       }},
      {"RFC 5040 §7 a Send opcode in a tagged segment",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         MangledWrite(
             n, p, v, [](uint8_t* b) { b[1] = (b[1] & 0xf0) | RDDP_OP_SEND; },
             kRdmapUnexpectedOpcode);
       }},
      {"RFC 5040 §5.1 a Send on the Read Request queue (QN 1)",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Untagged(RDDP_OP_SEND, 1, 0, true, RDDP_QN_READ_REQ), Pattern(16, 5));
         ExpectTerminate(n, p, v, kRdmapUnexpectedOpcode);
       }},
      // RFC 5040 §4.4, §5.4, §7: Read Requests the victim must answer or refuse.
      {"RFC 5040 §5.4 a Read Request is answered with the data",
       [](const std::string& n, Harness&, Peer& p, Victim& v) { ExpectReadAnswered(n, p, v, 1); }},
      {"RFC 5040 §7 a Read Request for an invalid STag",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         SendReadReq(p, 1, v.target_mr->rkey ^ 0x777700, Addr(v.target->Data()), 64);
         ExpectTerminate(n, p, v, kRdmapInvalidStag);
       }},
      {"RFC 5040 §7 a Read Request for a buffer without remote read",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         SendReadReq(p, 1, v.recv_mr->rkey, Addr(v.recv->Data()), 64);
         ExpectTerminate(n, p, v, kRdmapAccess);
       }},
      {"RFC 5040 §7 a Read Request beyond the MR",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         SendReadReq(p, 1, v.target_mr->rkey, Addr(v.target->Data()) + 100, kTargetLen);
         ExpectTerminate(n, p, v, kRdmapBaseBounds);
       }},
      {"RFC 5040 §7 a Read Request whose source TO wraps",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         SendReadReq(p, 1, v.target_mr->rkey, UINT64_MAX - 15, 64);
         ExpectTerminate(n, p, v, kRdmapToWrap);
       }},
      {"RFC 5040 §7 a Read Request for another PD's MR",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         SendReadReq(p, 1, v.other_mr->rkey, Addr(v.other->Data()), 64);
         ExpectTerminate(n, p, v, kRdmapStagStream);
       }},
      {"RFC 5040 §4.4 a Read Request that is not the last segment",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint8_t b[RDDP_RDMAP_RREQ_LEN] = {};
         p.Send(Untagged(RDDP_OP_READ_REQ, 1, 0, false, RDDP_QN_READ_REQ), b, sizeof(b));
         ExpectTerminate(n, p, v, kRdmapUnspecified);
       }},
      {"RFC 5040 §4.4 a Read Request of 20 octets",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint8_t b[20] = {};
         p.Send(Untagged(RDDP_OP_READ_REQ, 1, 0, true, RDDP_QN_READ_REQ), b, sizeof(b));
         ExpectTerminate(n, p, v, kRdmapUnspecified);
       }},
      {"RFC 5040 §6.3 more Read Requests than the IRD",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         // Five requests (IRD 4) in one TCP segment: the victim's RX sees
         // all of them before its TX answers one.
         p.Cork();
         for (uint32_t i = 1; i <= 5; i++)
           SendReadReq(p, i, v.target_mr->rkey, Addr(v.target->Data()), 64);
         p.Uncork();
         Received r = p.ExpectEnd();
         tap.Check(TermIs(r.term, kDdpNoBuffer), n + ": " + TermName(kDdpNoBuffer),
                   "got " + TermStr(r));
         tap.Check(r.term && r.term->r, n + ": it copies the fifth Read Request (RFC 5040 §4.8)");
         tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
       }},
      // RFC 5041 §7.2, RFC 5040 §7: tagged buffers.
      {"RFC 5041 §7.2 a Write to another PD's MR",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Tagged(RDDP_OP_WRITE, v.other_mr->rkey, Addr(v.other->Data()), true),
                Pattern(64, 5));
         ExpectTerminate(n, p, v, kDdpStagStream);
         tap.Check(AllZero(v.other->Data(), 64), n + ": nothing placed");
       }},
      {"RFC 5040 §7 a Write to a buffer without remote write",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.Send(Tagged(RDDP_OP_WRITE, v.recv_mr->rkey, Addr(v.recv->Data()), true), Pattern(64, 5));
         ExpectTerminate(n, p, v, kRdmapAccess);
         tap.Check(AllZero(v.recv->Data(), 64), n + ": nothing placed");
       }},
      {"RFC 5041 §5.2 a zero-length Write: STag and TO are not checked",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.Send(Tagged(RDDP_OP_WRITE, 0xdead00, 0x1234, true), nullptr, 0);
         ExpectSendPlaced(n, h, p, v);
       }},
      {"RFC 5041 §5.2 a Write in three segments",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         auto data = Pattern(3000, 61);
         uint64_t base = Addr(v.target->Data()) + 64;
         for (uint32_t off = 0; off < 3000; off += 1000) {
           p.Send(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, base + off, off == 2000),
                  data.data() + off, 1000);
         }
         ExpectSendPlaced(n, h, p, v);
         tap.Check(std::equal(data.begin(), data.end(), v.target->Data() + 64) &&
                       AllZero(v.target->Data(), 64),
                   n + ": placed at its TOs, nothing else");
       }},
      // RFC 5040 §5.1, §7: Send with Invalidate.
      {"RFC 5040 §7 a Send with Invalidate of an unknown STag",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         rddp_hdr sh = Untagged(RDDP_OP_SEND_INV, h.SendMsn(), 0, true);
         sh.inval_stag = v.target_mr->rkey ^ 0x313100;
         p.Send(sh, Pattern(16, 5));
         ExpectTerminate(n, p, v, kRdmapInvalidStag);
       }},
      {"RFC 5040 §7 a Send with Invalidate of a registered (not fast-register) MR",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         rddp_hdr sh = Untagged(RDDP_OP_SEND_INV, h.SendMsn(), 0, true);
         sh.inval_stag = v.target_mr->rkey;
         p.Send(sh, Pattern(16, 5));
         ExpectTerminate(n, p, v, kRdmapCannotInvalidate);
       }},
      {"RFC 5040 §7 a Send with Invalidate of another PD's STag",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         rddp_hdr sh = Untagged(RDDP_OP_SEND_INV, h.SendMsn(), 0, true);
         sh.inval_stag = v.other_mr->rkey;
         p.Send(sh, Pattern(16, 5));
         ExpectTerminate(n, p, v, kRdmapStagStream);
       }},
      // RFC 5040 §4.8, §5.3: Terminates from the peer.
      {"RFC 5040 §5.3 a well-formed Terminate from the peer",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint8_t b[64];
         uint32_t len = rddp_term_build(RDDP_ERR_RDMAP_O_UNSPECIFIED, nullptr, 0, 0, nullptr, b);
         p.Send(Untagged(RDDP_OP_TERMINATE, 1, 0, true, RDDP_QN_TERMINATE), b, len);
         Received r = p.ExpectEnd();
         tap.Check(!r.term && r.closed, n + ": the victim closes without a Terminate in return",
                   TermStr(r));
         tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
         auto wcs = v.Poll(kRecvs, kTimeoutMs);
         tap.Check(
             wcs.size() == kRecvs &&
                 std::all_of(wcs.begin(), wcs.end(),
                             [](const ibv_wc& wc) { return wc.status == IBV_WC_WR_FLUSH_ERR; }),
             n + ": the posted receives are flushed", std::to_string(wcs.size()) + " completions");
       }},
      {"RFC 5040 §4.8 a Terminate with reserved bits set",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint8_t b[64];
         uint32_t len = rddp_term_build(RDDP_ERR_RDMAP_O_UNSPECIFIED, nullptr, 0, 0, nullptr, b);
         b[2] |= 0x1f;  // RFC 5040 §4.8: the control word's Reserved bits
         p.Send(Untagged(RDDP_OP_TERMINATE, 1, 0, true, RDDP_QN_TERMINATE), b, len);
         Received r = p.ExpectEnd();
         tap.Check(!r.term && r.closed, n + ": taken as a Terminate: closed without one in return",
                   TermStr(r));
         tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
       }},
      {"RFC 5040 §4.8 a truncated Terminate",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         uint8_t b[2] = {0x02, 0x00};
         p.Send(Untagged(RDDP_OP_TERMINATE, 1, 0, true, RDDP_QN_TERMINATE), b, sizeof(b));
         ExpectTerminate(n, p, v, kRdmapUnspecified);
       }},
      // RFC 5044 §4.1, §8: framing.
      {"RFC 5044 §4.1 a hand-made FPDU (the raw framing the next cases bend)",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         uint8_t hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
         rddp_hdr sh = Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true);
         uint32_t hl = rddp_hdr_build(&sh, hdr);
         std::vector<uint8_t> body(hdr, hdr + hl);
         auto data = Pattern(30, 3);
         body.insert(body.end(), data.begin(), data.end());
         p.SendRawFpdu(static_cast<uint16_t>(body.size()), body);
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 30 &&
                       std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": the Send is placed and completes");
       }},
      {"RFC 5044 §4.1 an FPDU with ULPDU_Length 0",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.SendRawFpdu(0, {});
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"RFC 5044 §4.1 an FPDU shorter than a DDP header",
       [](const std::string& n, Harness&, Peer& p, Victim& v) {
         p.SendRawFpdu(6, {0x41, 0x41, 0, 0, 0, 0});
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"RFC 5044 §4.1 the peer closes in the middle of an FPDU",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         p.HoldBack(200);
         p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), Pattern(500, 5));
         p.Close();
         ExpectQpFlushed(n, v, kTimeoutMs);
       }},
  };
  return cases;
}

// Issue 26 item 4: a Send completes only over octets its segments placed
// (RFC 5041 §5.4); over TCP each MO must be the octets placed so far,
// else "invalid MO" (RFC 5041 §7.2). Documentation/conformance.md has the
// rule for TCP and SCTP.
const std::vector<Case>& SendMoCases() {
  static const std::vector<Case> cases = {
      {"RFC 5041 §7.2 a one-segment Send at MO 512: its first 512 octets never sent",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         SendSegments(p, h.SendMsn(), {{512, 16, true}});
         ExpectTerminate(n, p, v, kDdpInvalidMo);
       }},
      {"RFC 5041 §7.2 a Send with a gap: octets 0..16, then 32..48 last",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         SendSegments(p, h.SendMsn(), {{0, 16, false}, {32, 16, true}});
         ExpectTerminate(n, p, v, kDdpInvalidMo);
       }},
      {"RFC 5041 §7.2 a Send whose second segment overlaps the first (TCP)",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         SendSegments(p, h.SendMsn(), {{0, 32, false}, {16, 32, true}});
         ExpectTerminate(n, p, v, kDdpInvalidMo);
       }},
      {"RFC 5041 §5.3 a Send in four segments, one empty, completes with all its octets",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
         auto data =
             SendSegments(p, h.SendMsn(),
                          {{0, 100, false}, {100, 0, false}, {100, 150, false}, {250, 150, true}});
         auto wcs = v.Poll(1, kTimeoutMs);
         Received r = p.Collect(200, [](const Received& x) { return x.term.has_value(); });
         tap.Check(!r.term, n + ": no Terminate", "got " + TermStr(r));
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 400 &&
                       std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": one receive completes with the 400 octets",
                   wcs.empty() ? "no completion"
                               : "status " + std::to_string(wcs[0].status) + ", " +
                                     std::to_string(wcs[0].byte_len) + " bytes");
         ExpectSendPlaced(n, h, p, v, 1);
       }},
  };
  return cases;
}

// Read cases: the victim reads from the peer, which answers as it likes.
struct ReadCase {
  const char* name;
  uint32_t size;  // the Read's length
  // The peer's Read Response segments: {TO offset from the sink, length, L}.
  std::vector<std::tuple<uint32_t, uint32_t, bool>> segs;
  bool ok;  // the Read completes successfully
  TermWant want;
};

const std::vector<ReadCase>& ReadCases() {
  static const std::vector<ReadCase> cases = {
      {"RFC 5040 §4.5 Read answered in full", 1000, {{0, 600, false}, {600, 400, true}}, true, {}},
      {"RFC 5040 §4.5 Read answered short", 1000, {{0, 100, true}}, false, kDdpBaseBounds},
      {"RFC 5040 §4.5 Read answered with nothing", 1000, {{0, 0, true}}, false, kDdpBaseBounds},
      {"RFC 5040 §4.5 Read Response segments not contiguous",
       1000,
       {{0, 400, false}, {500, 500, true}},
       false,
       kDdpBaseBounds},
  };
  return cases;
}

void RunRead(const ReadCase& c, Peer& p, Victim& v) {
  const std::string n = c.name;
  uint64_t sink = Addr(v.sink->Data());
  std::fill_n(v.sink->Data(), kTargetLen, 0xEE);
  ibv_sge sge{sink, c.size, v.sink_mr->lkey};
  ibv_send_wr wr{};
  ibv_send_wr* bad = nullptr;
  wr.wr_id = 77;
  wr.opcode = IBV_WR_RDMA_READ;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.wr.rdma.remote_addr = 0x10000;
  wr.wr.rdma.rkey = 0x123400;
  if (!tap.Zero(ibv_post_send(v.id->qp, &wr, &bad), n + ": post the Read")) return;
  // RFC 5040 §4.4: the Read Request on QN 1 names the sink and the source.
  Received r = p.Collect(kTimeoutMs, [](const Received& x) {
    return std::any_of(x.msgs.begin(), x.msgs.end(),
                       [](const Received::Msg& m) { return m.hdr.opcode == RDDP_OP_READ_REQ; });
  });
  rddp_read_req rq{};
  bool got = false;
  for (const auto& m : r.msgs) {
    if (m.hdr.opcode == RDDP_OP_READ_REQ && m.payload.size() == RDDP_RDMAP_RREQ_LEN) {
      rddp_read_req_parse(m.payload.data(), &rq);
      got = true;
    }
  }
  if (!tap.Check(got && rq.size == c.size, n + ": a Read Request arrives")) return;
  auto data = Pattern(c.size, 21);
  for (const auto& [off, len, last] : c.segs)
    p.Send(Tagged(RDDP_OP_READ_RESP, rq.sink_stag, rq.sink_to + off, last), data.data() + off, len);
  auto wcs = v.Poll(1, kTimeoutMs);
  if (c.ok) {
    tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                  std::equal(data.begin(), data.end(), v.sink->Data()),
              n + ": the Read completes with the data");
    tap.Check(v.GuardsIntact() && v.sink->Data()[c.size] == 0xEE,
              n + ": nothing placed beyond the sink");
    return;
  }
  tap.Check(wcs.size() == 1 && wcs[0].status != IBV_WC_SUCCESS, n + ": the Read completes in error",
            wcs.empty() ? "no completion" : "status " + std::to_string(wcs[0].status));
  Received t = p.ExpectEnd();
  tap.Check(TermIs(t.term, c.want), n + ": " + TermName(c.want), "got " + TermStr(t));
  tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
  tap.Check(v.GuardsIntact() && v.sink->Data()[c.size] == 0xEE,
            n + ": nothing placed beyond the sink");
}

// MPA connection setup (RFC 5044 §7.1, RFC 6581 §9.1): crafted frames,
// with rddp as the Responder and as the Initiator.
using Edit = std::function<void(std::vector<uint8_t>&)>;

// A Request the victim must refuse by closing the connection without a
// Reply (RFC 5044 §7.1.2 rule 3); its ULP never hears of it.
void ExpectRefused(const std::string& n, Harness& h, const rddp_mpa_frame& f, const Edit& edit,
                   size_t cut = 0, int ms = kTimeoutMs) {
  Peer p;
  if (!tap.Check(p.Connect(h.To()), n + ": TCP connect", std::strerror(errno))) return;
  p.SendFrame(f, edit, cut);
  tap.Check(p.ExpectSilentClose(ms), n + ": the victim closes the connection without a Reply");
  h.ExpectNoRequest(n, 100);
  h.Drain();
}

// A Request the victim must accept: the Reply passes @check_reply and a
// Send is placed afterwards.
void ExpectAccepted(const std::string& n, Harness& h, const rddp_mpa_frame& f, const Edit& edit,
                    const std::function<void(const rddp_mpa_frame&)>& check_reply) {
  Peer p;
  Victim v;
  h.ResetMsn();
  rddp_mpa_frame reply{};
  if (!tap.Check(p.Connect(h.To()) && p.SendFrame(f, edit), n + ": TCP connect and Request") ||
      !h.AcceptRequest(p, v, n, true, &reply))
    return;
  check_reply(reply);
  ExpectSendPlaced(n, h, p, v);
  p.Close();
  h.Drain();
}

rddp_mpa_frame Rev1Request() {
  rddp_mpa_frame f{};
  f.type = RDDP_MPA_REQUEST;
  f.rev = 1;
  f.crc = g_crc;
  return f;
}

// rddp as the MPA Initiator (RFC 5044 §7.1.2, RFC 6581 §9.1.1): the
// peer listens, reads rddp's Request and answers as the case says.
rddp_mpa_frame ReplyTo(const rddp_mpa_frame& req) {
  rddp_mpa_frame f{};
  f.type = RDDP_MPA_REPLY;
  f.rev = 2;
  f.crc = req.crc;
  f.enhanced = true;
  f.p2p = true;
  f.rtr = RDDP_MPA_RTR_WRITE;
  f.ird = 4;
  f.ord = 4;
  return f;
}

bool IsConnectFailure(rdma_cm_event_type e) {
  return e == RDMA_CM_EVENT_REJECTED || e == RDMA_CM_EVENT_UNREACHABLE ||
         e == RDMA_CM_EVENT_CONNECT_ERROR;
}

// rddp's connect fails after the peer sent @reply (edited) or nothing.
void ExpectConnectFails(const std::string& n, Harness& h,
                        const std::optional<rddp_mpa_frame>& reply, const Edit& edit, int ms,
                        rdma_cm_event_type want_event) {
  Peer p;
  Victim v;
  rddp_mpa_frame req{};
  if (h.ConnectOut(p, v, n, &req)) {
    if (reply) p.SendFrame(*reply, edit);
    CmEvent ev = NextEvent(h.Ch(), ms);
    bool ok = ev && (want_event == RDMA_CM_EVENT_CONNECT_ERROR ? IsConnectFailure(ev->event)
                                                               : ev->event == want_event);
    tap.Check(ok, n + ": rddp's connect fails (" + rdma_event_str(want_event) + ")",
              ev ? rdma_event_str(ev->event) : "no event");
    tap.Check(p.ExpectSilentClose(kTimeoutMs), n + ": rddp closes the connection");
  }
  p.Close();
  h.Drain();
}

void ReadRtrCase(const std::string& n, Harness& h) {
  Peer p;
  Victim v;
  h.ResetMsn();
  rddp_mpa_frame reply{};
  if (!tap.Check(p.Connect(h.To()) && p.SendRequest(RDDP_MPA_RTR_READ),
                 n + ": TCP connect and Request") ||
      !h.AcceptRequest(p, v, n, true, &reply))
    return;
  tap.Check(reply.rtr == RDDP_MPA_RTR_READ, n + ": the Reply selects the Read RTR");
  Received r = p.Collect(kTimeoutMs, [](const Received& x) { return !x.msgs.empty(); });
  tap.Check(r.msgs.size() == 1 && r.msgs[0].hdr.opcode == RDDP_OP_READ_RESP && r.msgs[0].hdr.last &&
                r.msgs[0].payload.empty(),
            n + ": rddp answers it with a zero-length Read Response",
            std::to_string(r.msgs.size()) + " messages");
  ExpectSendPlaced(n, h, p, v);
  ExpectReadAnswered(n, p, v, 2);  // the RTR was Read Request 1
  p.Close();
  h.Drain();
}

void MarkersCase(const std::string& n, Harness& h) {
  Peer p;
  Victim v;
  h.ResetMsn();
  rddp_mpa_frame f = Peer::StdRequest(RDDP_MPA_RTR_ALL);
  f.markers = true;
  if (!tap.Check(p.Connect(h.To()) && p.SendFrame(f), n + ": TCP connect and Request") ||
      !h.AcceptRequest(p, v, n, true))
    return;
  // The peer's deframer expects a marker every 512 octets of the stream.
  ExpectReadAnswered(n, p, v, 1);
  ExpectSendPlaced(n, h, p, v);
  p.Close();
  h.Drain();
}

void InitiatorGoodCase(const std::string& n, Harness& h) {
  Peer p;
  Victim v;
  rddp_mpa_frame req{};
  if (!h.ConnectOut(p, v, n, &req)) return;
  tap.Check(req.rev == 2 && req.enhanced && req.p2p && (req.rtr & RDDP_MPA_RTR_WRITE) &&
                req.ird == 4 && req.ord == 4,
            n + ": a revision-2 Request, peer-to-peer, IRD = ORD = 4, offering the Write RTR",
            "Rev " + std::to_string(req.rev) + " RTR " + Hex(req.rtr) + " IRD " +
                std::to_string(req.ird) + " ORD " + std::to_string(req.ord));
  rddp_mpa_frame rep = ReplyTo(req);
  p.SendFrame(rep);
  // rddp wants markers in what it receives if its Request said so.
  p.StartFpdus(req.markers, req.crc || rep.crc);
  Received r = p.Collect(kTimeoutMs, [](const Received& x) { return !x.msgs.empty(); });
  tap.Check(!r.msgs.empty() && r.msgs[0].hdr.opcode == RDDP_OP_WRITE && r.msgs[0].hdr.last &&
                r.msgs[0].payload.empty(),
            n + ": rddp's first FPDU is the zero-length Write RTR");
  CmEvent ev = NextEvent(h.Ch(), kTimeoutMs);
  tap.Check(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED,
            n + ": the victim's connection is established",
            ev ? rdma_event_str(ev->event) : "no event");
  auto data = Pattern(100, 77);
  v.PostSend(data, n);
  r = p.Collect(kTimeoutMs, [](const Received& x) { return !x.msgs.empty(); });
  tap.Check(r.msgs.size() == 1 && r.msgs[0].hdr.opcode == RDDP_OP_SEND && r.msgs[0].hdr.msn == 1 &&
                r.msgs[0].payload == data,
            n + ": the Send arrives as MSN 1 with its 100 octets");
  p.Close();
  h.Drain();
}

void InitiatorRejectCase(const std::string& n, Harness& h) {
  Peer p;
  Victim v;
  rddp_mpa_frame req{};
  if (!h.ConnectOut(p, v, n, &req)) return;
  static const uint8_t why[] = "go away";
  rddp_mpa_frame rep = ReplyTo(req);
  rep.reject = true;
  rep.pd = why;
  rep.pd_len = sizeof(why);
  p.SendFrame(rep);
  CmEvent ev = NextEvent(h.Ch(), kTimeoutMs);
  bool ok = ev && ev->event == RDMA_CM_EVENT_REJECTED &&
            ev->param.conn.private_data_len >= sizeof(why) &&
            std::memcmp(ev->param.conn.private_data, why, sizeof(why)) == 0;
  tap.Check(ok, n + ": REJECTED with the Reply's private data",
            ev ? rdma_event_str(ev->event) : "no event");
  p.Close();
  h.Drain();
}

// ---- Liveness (issue 11): a peer that vanishes, stops reading or stops
// inside an FPDU costs rddp a bounded time, its device's peer_timeout_ms.
// The peer's socket lives in another network namespace behind a veth
// pair, whose far end going down makes the peer vanish: no FIN, no RST.

constexpr uint64_t kWriteId = 98;       // the liveness cases' RDMA Write
constexpr uint64_t kSendId = 99;        // and the Send behind it
constexpr uint32_t kBigLen = 8U << 20;  // more than both ends' socket buffers
// "About the bound": the QP is in ERROR no earlier than 1 s before the
// bound (it is what ends the connection) and no later than this after it.
// The veth end's carrier loss flushes the neighbour entry, so TCP's first
// retransmission waits for ARP to give up (3 s): with data outstanding
// the end comes up to about 1.3 s after the bound.
constexpr int kMarginMs = 2500;
// With the bound off, a QP must still be up this long after its peer went
// silent: the 3000 ms bound of the other run, with its margin.
constexpr int kControlMs = 3000 + kMarginMs;

struct Liveness {
  std::string ns;    // the peer's network namespace
  std::string veth;  // the peer's end of the veth pair, in ns
  int ms = 0;        // the device's peer_timeout_ms
  std::string dev;   // the rddp device
};

// @args run from PATH, not through a shell (the guest's /bin/sh is
// busybox, whose ip lacks -n); the exit status, or -1.
int Spawn(std::vector<std::string> args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ)) return -1;
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int IpLink(const Liveness& l, const char* up_down) {
  return Spawn({"ip", "-n", l.ns, "link", "set", l.veth, up_down});
}

long long MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// 8 MiB for an RDMA Write, registered; nullptr on failure.
ibv_mr* RegBig(Harness& h, std::vector<uint8_t>& big, const std::string& n) {
  ibv_mr* mr = ibv_reg_mr(h.Pd(), big.data(), big.size(), IBV_ACCESS_LOCAL_WRITE);
  tap.Check(mr != nullptr, n + ": register 8 MiB", std::strerror(errno));
  return mr;
}

// An RDMA Write of @big (to an STag the peer never checks) and, with
// @send, a Send behind it, both signalled: neither can complete while the
// peer takes nothing.
void PostWriteAndSend(Victim& v, ibv_mr* mr, std::vector<uint8_t>& big, bool send,
                      const std::string& n) {
  ibv_sge wsge{Addr(big.data()), static_cast<uint32_t>(big.size()), mr->lkey};
  ibv_sge ssge{Addr(v.sink->Data()), 100, v.sink_mr->lkey};
  ibv_send_wr wr[2]{};
  ibv_send_wr* bad = nullptr;
  wr[0].wr_id = kWriteId;
  wr[0].opcode = IBV_WR_RDMA_WRITE;
  wr[0].send_flags = IBV_SEND_SIGNALED;
  wr[0].sg_list = &wsge;
  wr[0].num_sge = 1;
  wr[0].wr.rdma.remote_addr = 0x10000;
  wr[0].wr.rdma.rkey = 0x1234;
  wr[1].wr_id = kSendId;
  wr[1].opcode = IBV_WR_SEND;
  wr[1].send_flags = IBV_SEND_SIGNALED;
  wr[1].sg_list = &ssge;
  wr[1].num_sge = 1;
  if (send) wr[0].next = &wr[1];
  tap.Zero(ibv_post_send(v.id->qp, wr, &bad),
           n + (send ? ": post a Write and a Send" : ": post a Write"));
}

// The bound on: the QP in ERROR after about the bound, counted from @t0;
// the receives and the @sends posted sends complete with flush errors;
// the cm_id gets DISCONNECTED.
void ExpectBounded(const std::string& n, Harness& h, Victim& v, const Liveness& l,
                   Clock::time_point t0, size_t sends) {
  bool err = v.WaitState(IBV_QPS_ERR, 3 * l.ms + 5000);
  long long dt = MsSince(t0);
  std::printf("# %s: ERROR after %lld ms\n", n.c_str(), dt);
  tap.Check(err && dt >= l.ms - 1000 && dt <= l.ms + kMarginMs,
            n + ": the QP is in ERROR after about the bound",
            (err ? "after " : "not after ") + std::to_string(dt) + " ms");
  auto wcs = v.Poll(kRecvs + sends, kTimeoutMs);
  tap.Check(wcs.size() == kRecvs + sends &&
                std::all_of(wcs.begin(), wcs.end(),
                            [](const ibv_wc& wc) { return wc.status == IBV_WC_WR_FLUSH_ERR; }),
            n + ": every posted WQE completes with a flush error",
            std::to_string(wcs.size()) + " completions");
  CmEvent ev = NextEvent(h.Ch(), kTimeoutMs);
  tap.Check(ev && ev->event == RDMA_CM_EVENT_DISCONNECTED, n + ": the cm_id gets DISCONNECTED",
            ev ? rdma_event_str(ev->event) : "no event");
}

// The bound off: the QP still up when the bound would have ended it.
void ExpectStillUp(const std::string& n, Victim& v) {
  usleep(kControlMs * 1000);
  tap.Check(v.State() == IBV_QPS_RTS, n + ": without the bound the QP is still up after " +
                                          std::to_string(kControlMs) + " ms");
}

void DestroyPromptly(const std::string& n, Victim& v) {
  Promptly(
      [&v] {
        rdma_destroy_qp(v.id);
        return 0;
      },
      n + ": rdma_destroy_qp returns at once");
}

// A fresh connection from the peer in l.ns; with @down its link goes down
// before @body runs, and up again after it.
void RunLive(Harness& h, const Liveness& l, const std::string& what, bool down,
             const std::function<void(const std::string&, Peer&, Victim&)>& body) {
  const std::string n = "liveness: " + what + ", peer_timeout_ms " + std::to_string(l.ms);
  Peer p;
  Victim v;
  h.ResetMsn();
  if (h.Connect(p, v, n, RDDP_MPA_RTR_ALL, true, g_crc, l.ns)) {
    if (!down || tap.Zero(IpLink(l, "down"), n + ": the peer's link goes down")) body(n, p, v);
    if (down) IpLink(l, "up");
  }
  p.Close();
  h.Drain();
}

// Idle: only TCP keepalive can tell.
void VanishIdle(Harness& h, const Liveness& l) {
  RunLive(h, l, "a peer that vanishes, idle", true, [&](const std::string& n, Peer&, Victim& v) {
    auto t0 = Clock::now();
    if (l.ms) {
      ExpectBounded(n, h, v, l, t0, 0);
      return;
    }
    ExpectStillUp(n, v);
    DestroyPromptly(n, v);
  });
}

// Busy: a Write and a Send unacknowledged (TCP_USER_TIMEOUT).
void VanishBusy(Harness& h, const Liveness& l) {
  RunLive(h, l, "a peer that vanishes, a Write and a Send outstanding", true,
          [&](const std::string& n, Peer&, Victim& v) {
            std::vector<uint8_t> big(kBigLen, 0x5a);
            ibv_mr* mr = RegBig(h, big, n);
            if (!mr) return;
            auto t0 = Clock::now();
            PostWriteAndSend(v, mr, big, true, n);
            if (l.ms) {
              ExpectBounded(n, h, v, l, t0, 2);
            } else {
              ExpectStillUp(n, v);
              DeregPromptly(mr, n);
              mr = nullptr;
              DestroyPromptly(n, v);
            }
            if (mr) ibv_dereg_mr(mr);
          });
}

// The peer's TCP stays up but reads nothing: its window closes under the
// Write (TCP_USER_TIMEOUT bounds zero-window probing too).
void StopsReading(Harness& h, const Liveness& l) {
  RunLive(h, l, "a peer that stops reading, a Write outstanding", false,
          [&](const std::string& n, Peer&, Victim& v) {
            std::vector<uint8_t> big(kBigLen, 0x5a);
            ibv_mr* mr = RegBig(h, big, n);
            if (!mr) return;
            auto t0 = Clock::now();
            PostWriteAndSend(v, mr, big, false, n);
            if (l.ms) {
              ExpectBounded(n, h, v, l, t0, 1);
            } else {
              ExpectStillUp(n, v);
              DeregPromptly(mr, n);
              mr = nullptr;
              DestroyPromptly(n, v);
            }
            if (mr) ibv_dereg_mr(mr);
          });
}

// The peer's TCP stays up, ACKs and answers keepalives, but the rest of
// an FPDU never comes: rddp's own timer ends the stream with a Terminate,
// LLP local catastrophic (RFC 6581's code 0x05 of RFC 5044 §8).
void StallMidFpdu(Harness& h, const Liveness& l) {
  RunLive(h, l, "a peer that stops inside an FPDU", false,
          [&](const std::string& n, Peer& p, Victim& v) {
            auto data = Pattern(500, 5);
            p.HoldBack(200);
            p.Send(Untagged(RDDP_OP_SEND, h.SendMsn(), 0, true), data);
            auto t0 = Clock::now();
            if (!l.ms) {
              ExpectStillUp(n, v);
              p.SendHeld();
              auto wcs = v.Poll(1, kTimeoutMs);
              tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                            wcs[0].byte_len == 500 &&
                            std::equal(data.begin(), data.end(), v.recv->Data()),
                        n + ": the rest of the FPDU, late, completes the Send");
              return;
            }
            Received r =
                p.Collect(3 * l.ms + 5000, [](const Received& x) { return x.term.has_value(); });
            std::printf("# %s: Terminate after %lld ms\n", n.c_str(), MsSince(t0));
            tap.Check(r.term && r.term->layer == 2 && r.term->etype == 0 && r.term->ecode == 0x05,
                      n + ": Terminate layer 2 type 0 code 0x05", "got " + TermStr(r));
            ExpectBounded(n, h, v, l, t0, 0);
          });
}

// `rdma link delete` returns at once while a QP's peer is gone with data
// outstanding; the cm_id is told. The device is gone afterwards.
void LinkDeleteWhileGone(Harness& h, const Liveness& l) {
  RunLive(h, l, "rdma link delete while the peer is gone", true,
          [&](const std::string& n, Peer&, Victim& v) {
            std::vector<uint8_t> big(kBigLen, 0x5a);
            ibv_mr* mr = RegBig(h, big, n);
            if (!mr) return;
            PostWriteAndSend(v, mr, big, true, n);
            auto t0 = Clock::now();
            int rc = Spawn({"rdma", "link", "delete", l.dev});
            long long dt = MsSince(t0);
            tap.Check(rc == 0 && dt < 5000, n + ": rdma link delete returns at once",
                      "exit " + std::to_string(rc) + " after " + std::to_string(dt) + " ms");
            bool told = false;
            while (CmEvent ev = NextEvent(h.Ch(), 2000)) {
              if (ev->id == v.id && ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) told = true;
              if (told) break;
            }
            tap.Check(told, n + ": the cm_id gets DEVICE_REMOVAL");
            DestroyPromptly(n, v);
            DeregPromptly(mr, n);
          });
}

void LivenessCases(Harness& h, const Liveness& l) {
  VanishIdle(h, l);
  VanishBusy(h, l);
  StopsReading(h, l);
  StallMidFpdu(h, l);
  if (!l.ms) LinkDeleteWhileGone(h, l);
}

// The process exits, without tearing anything down, while its QP's peer
// is gone with a Write outstanding (the bound off): the kernel's cleanup
// must not wait for the peer. Prints the time of its exit, in
// /proc/uptime's terms, for the script to compare.
void ExitWhileGone(Harness& h, const Liveness& l) {
  // std::_Exit() runs no destructor: the kernel tears all this down.
  Peer p;
  Victim v;
  h.ResetMsn();
  const std::string n = "liveness: the process exits while the peer is gone";
  if (!h.Connect(p, v, n, RDDP_MPA_RTR_ALL, true, g_crc, l.ns) ||
      !tap.Zero(IpLink(l, "down"), n + ": the peer's link goes down")) {
    return;
  }
  std::vector<uint8_t> big(kBigLen, 0x5a);
  ibv_mr* mr = RegBig(h, big, n);
  if (!mr) return;
  PostWriteAndSend(v, mr, big, true, n);
  usleep(200000);
  tap.Check(v.State() == IBV_QPS_RTS, n + ": the QP is up with a Write outstanding");
  double up = 0;
  if (std::ifstream("/proc/uptime") >> up) std::printf("# exit at uptime %.2f\n", up);
  int rc = tap.Finish();
  std::fflush(stdout);
  std::_Exit(rc);
}

// ---- Graceful close (RFC 5040 §5.3). rddp reports a connection
// established once its Reply is out, before the RTR is in (RFC 6581
// §9.1.1), so a victim may disconnect before the RTR arrives. What the peer
// sent before it saw rddp's FIN (the RTR, a Send) is read and dropped, not
// answered with a reset the peer would report as an abort, until the
// peer's FIN or a bound (kmod/tcp_linger.c), after which data draws a
// reset again.

constexpr int kLingerMs = 3000;  // RDDP_TCP_LINGER_MS

std::string TcpStateName(int st) {
  switch (st) {
    case TCP_ESTABLISHED:
      return "ESTABLISHED";
    case TCP_CLOSE_WAIT:
      return "CLOSE_WAIT";
    case TCP_CLOSE:
      return "CLOSE (reset)";
    default:
      return "state " + std::to_string(st);
  }
}

// The victim disconnects as soon as it is connected, before the peer's
// RTR; the peer reads rddp's FIN, then sends the Write RTR and a Send.
bool CloseBeforeRtr(const std::string& n, Harness& h, Peer& p, Victim& v) {
  if (!h.Connect(p, v, n, RDDP_MPA_RTR_WRITE, false, g_crc) ||
      !tap.Zero(rdma_disconnect(v.id), n + ": the victim disconnects before the RTR is in") ||
      !tap.Check(p.ExpectSilentClose(kTimeoutMs), n + ": rddp's FIN arrives"))
    return false;
  bool sent = SendRtr(p, h.Rtr()) && p.Send(Untagged(RDDP_OP_SEND, 1, 0, true), Pattern(100, 5));
  return tap.Check(sent, n + ": the peer sends the RTR and a Send after it", std::strerror(errno));
}

void CloseBeforeRtrCase(const std::string& n, Harness& h) {
  Peer p;
  Victim v;
  h.ResetMsn();
  if (CloseBeforeRtr(n, h, p, v)) {
    int st = p.AwaitTcpState(TCP_CLOSE, 1000);
    tap.Check(st == TCP_CLOSE_WAIT, n + ": they draw no reset", TcpStateName(st));
  }
  p.Close();
  h.Drain();
}

// A peer that never closes holds rddp's socket for the bound, no longer.
void LingerBoundCase(const std::string& n, Harness& h) {
  Peer p;
  Victim v;
  h.ResetMsn();
  if (CloseBeforeRtr(n, h, p, v)) {
    usleep((kLingerMs + 1000) * 1000);
    bool sent = p.Send(Untagged(RDDP_OP_SEND, 2, 0, true), Pattern(100, 6));
    int st = p.AwaitTcpState(TCP_CLOSE, kTimeoutMs);
    tap.Check(sent && st == TCP_CLOSE,
              n + ": a Send after the bound draws a reset (rddp released its socket)",
              TcpStateName(st));
  }
  p.Close();
  h.Drain();
}

void CloseCases(Harness& h, const std::string& filter) {
  std::string n = "RFC 5040 §5.3 the victim closes before the RTR: what crossed its FIN is dropped";
  if (n.find(filter) != std::string::npos) CloseBeforeRtrCase(n, h);
  n = "RFC 5040 §5.3 a peer that never closes holds rddp's closed socket a bounded time";
  if (n.find(filter) != std::string::npos) LingerBoundCase(n, h);
}

// --linger-exit DEV ADDR: rddp unloads while one of its graceful closes
// waits for the peer's FIN: the module's exit ends the wait and releases
// the socket (data then draws a reset); the script checks the unload and
// the kernel log.
int LingerExit(const char* dev, const char* addr) {
  const std::string n = "RFC 5040 §5.3 rddp unloads while a graceful close waits for the FIN";
  Peer p;
  {
    Harness h(addr);
    Victim v;
    if (!tap.Check(h.Ready(), "listen on " + std::string(addr) + " and allocate a PD") ||
        !CloseBeforeRtr(n, h, p, v))
      return tap.Finish();
    h.Drain();
  }  // the victim's QP and every cm_id are gone
  tap.Zero(Spawn({"rdma", "link", "delete", dev}), n + ": rdma link delete " + dev);
  tap.Zero(Spawn({"rmmod", "rddp"}), n + ": rmmod rddp");
  bool sent = p.Send(Untagged(RDDP_OP_SEND, 2, 0, true), Pattern(100, 7));
  int st = p.AwaitTcpState(TCP_CLOSE, kTimeoutMs);
  tap.Check(sent && st == TCP_CLOSE, n + ": then a Send draws a reset (the socket was released)",
            TcpStateName(st));
  return tap.Finish();
}

// NS:VETH:MS:DEV, the fields of struct Liveness.
std::optional<Liveness> ParseLiveness(const std::string& spec) {
  std::vector<std::string> f;
  size_t from = 0;
  for (size_t c; (c = spec.find(':', from)) != std::string::npos; from = c + 1)
    f.push_back(spec.substr(from, c - from));
  f.push_back(spec.substr(from));
  if (f.size() != 4 || f[2].empty() || f[2].find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return Liveness{f[0], f[1], std::stoi(f[2]), f[3]};
}

void SetupCases(Harness& h, const std::string& filter) {
  const rddp_mpa_frame std_req = Peer::StdRequest(RDDP_MPA_RTR_ALL);
  auto want = [&filter](const std::string& n) { return n.find(filter) != std::string::npos; };
  std::string n = "RFC 5044 §7.1.2 a Request with a wrong key";
  if (want(n)) ExpectRefused(n, h, std_req, [](std::vector<uint8_t>& b) { b[3] ^= 0x20; });
  n = "RFC 5044 §7.1.2 a Reply where a Request is due";
  if (want(n)) {
    rddp_mpa_frame f = std_req;
    f.type = RDDP_MPA_REPLY;
    ExpectRefused(n, h, f, nullptr);
  }
  n = "RFC 5044 §7.1.1 a Request with Rev 0";
  if (want(n)) ExpectRefused(n, h, std_req, [](std::vector<uint8_t>& b) { b[17] = 0; });
  n = "RFC 5044 §7.1.1 a Request with Rev 3";
  if (want(n)) ExpectRefused(n, h, std_req, [](std::vector<uint8_t>& b) { b[17] = 3; });
  n = "RFC 5044 §7.1.1 a Request with PD_Length 513";
  if (want(n)) {
    ExpectRefused(n, h, std_req, [](std::vector<uint8_t>& b) {
      b[18] = 0x02;
      b[19] = 0x01;
      b.resize(20 + 513, 0);
    });
  }
  n = "RFC 6581 §9.1.1 enhanced data announced with PD_Length 2";
  if (want(n)) {
    ExpectRefused(n, h, std_req, [](std::vector<uint8_t>& b) {
      b[18] = 0;
      b[19] = 2;
      b.resize(22);
    });
  }
  n = "RFC 5044 §7.1.2 half a Request, then silence (the MPA timeout ends it)";
  if (want(n)) ExpectRefused(n, h, std_req, nullptr, 10, 20000);
  n = "RFC 5044 §7.1.1 reserved bits set in a Request are ignored";
  if (want(n)) {
    ExpectAccepted(
        n, h, std_req, [](std::vector<uint8_t>& b) { b[16] |= 0x0f; },
        [](const rddp_mpa_frame&) {});
  }
  n = "RFC 5044 §7.1.1 a revision 1 Request gets a revision 1 Reply";
  if (want(n)) {
    ExpectAccepted(n, h, Rev1Request(), nullptr, [&n](const rddp_mpa_frame& r) {
      tap.Check(r.rev == 1 && !r.enhanced, n + ": Reply Rev 1 without enhanced data",
                "Rev " + std::to_string(r.rev));
    });
  }
  n = "RFC 6581 §9.1.1 the Responder's ORD stays within the Initiator's IRD";
  if (want(n)) {
    rddp_mpa_frame f = std_req;
    f.ird = 1;
    ExpectAccepted(n, h, f, nullptr, [&n](const rddp_mpa_frame& r) {
      tap.Check(r.enhanced && r.ord == 1 && r.ird == 4, n + ": Reply IRD 4 (the victim's), ORD 1",
                "IRD " + std::to_string(r.ird) + " ORD " + std::to_string(r.ord));
    });
  }
  n = "RFC 6581 §9.1.1 peer-to-peer with no RTR kind offered";
  if (want(n)) {
    rddp_mpa_frame f = std_req;
    f.rtr = 0;
    ExpectAccepted(n, h, f, nullptr, [&n](const rddp_mpa_frame& r) {
      tap.Check(!r.p2p && r.rtr == 0, n + ": the Reply selects no RTR");
    });
  }
  n = "RFC 6581 §9.1.1 the Read RTR: a zero-length Read answered";
  if (want(n)) ReadRtrCase(n, h);
  n = "RFC 5044 §7.1.1 M in the Request: the Responder sends with markers";
  if (want(n)) MarkersCase(n, h);
}

void InitiatorCases(Harness& h, const std::string& filter) {
  auto want = [&filter](const std::string& n) { return n.find(filter) != std::string::npos; };
  std::string n = "RFC 6581 §9.1.1 rddp as Initiator: its Request, the Write RTR, then a Send";
  if (want(n)) InitiatorGoodCase(n, h);
  // librdmacm reports rddp's -ECONNREFUSED as REJECTED, a timeout as
  // UNREACHABLE; CONNECT_ERROR here stands for any of the three.
  n = "RFC 5044 §7.1.2 rddp as Initiator: the Responder never replies";
  if (want(n)) ExpectConnectFails(n, h, std::nullopt, nullptr, 20000, RDMA_CM_EVENT_UNREACHABLE);
  n = "RFC 5044 §7.1.2 rddp as Initiator: a Reply with a wrong key";
  if (want(n)) {
    ExpectConnectFails(
        n, h, ReplyTo(Peer::StdRequest(RDDP_MPA_RTR_ALL)),
        [](std::vector<uint8_t>& b) { b[3] ^= 0x20; }, kTimeoutMs, RDMA_CM_EVENT_CONNECT_ERROR);
  }
  n = "RFC 5044 §7.1.2 rddp as Initiator: a Request where the Reply is due";
  if (want(n)) {
    ExpectConnectFails(n, h, Peer::StdRequest(RDDP_MPA_RTR_ALL), nullptr, kTimeoutMs,
                       RDMA_CM_EVENT_CONNECT_ERROR);
  }
  n = "RFC 5044 §7.1.1 rddp as Initiator: a Reply with Rev 3";
  if (want(n)) {
    ExpectConnectFails(
        n, h, ReplyTo(Peer::StdRequest(RDDP_MPA_RTR_ALL)),
        [](std::vector<uint8_t>& b) { b[17] = 3; }, kTimeoutMs, RDMA_CM_EVENT_CONNECT_ERROR);
  }
  n = "RFC 6581 §9.1.1 rddp as Initiator: a Reply selecting two RTR kinds";
  if (want(n)) {
    // C (Write) from the builder, B (Send) added: bit 0x40 of the IRD word.
    ExpectConnectFails(
        n, h, ReplyTo(Peer::StdRequest(RDDP_MPA_RTR_ALL)),
        [](std::vector<uint8_t>& b) { b[20] |= 0x40; }, kTimeoutMs, RDMA_CM_EVENT_CONNECT_ERROR);
  }
  n = "RFC 5044 §7.1.1 rddp as Initiator: a rejecting Reply's private data reaches the ULP";
  if (want(n)) InitiatorRejectCase(n, h);
}

// --kernel-read PORT ADDR: rddp_kverbs serve_read=1 (kmod/test/rddp_kverbs.c)
// offers a 2 MiB fast-register MR of a kernel consumer: STag, TO and
// length in a 16-octet Send; octet i holds i * 7 + 3. The peer asks for
// it four times over (IRD 4, 8 MiB, more than rddp's socket and its own
// small window hold), reads nothing for a while, then invalidates the MR
// with a Send with Invalidate (RFC 5040 §5.1), on which the consumer
// rewrites its memory at once, maps the MR onto other memory and registers
// it again under the same STag (the parked response must not stop that),
// and only then (serve_stage 2) reads on. A Read Response has no WQE, so
// the invalidation hands the memory back: every octet that arrives must be
// from before it, neither the rewritten memory nor the new registration's,
// and the response must end with a Terminate for the invalid STag (RFC
// 5040 §7; kmod/mem.h).
constexpr uint32_t kKernelReads = 4;

uint64_t Be(const std::vector<uint8_t>& b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v = v << 8 | b[at + i];
  return v;
}

// The kernel consumer's Send with its MR, after the MPA exchange and RTR.
// @send_msn: the MSN of the peer's first Send after the RTR.
std::optional<Received::Msg> KernelReadSetup(Peer& p, const char* addr, const char* port,
                                             uint32_t* send_msn) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(std::atoi(port)));
  if (inet_pton(AF_INET, addr, &to.sin_addr) != 1) return std::nullopt;
  p.SetRcvBuf(4096);
  bool conn = false;
  for (int i = 0; i < 100 && !conn; i++) {  // the module may still be starting
    conn = p.Connect(to);
    if (!conn) usleep(100000);
  }
  rddp_mpa_frame f = Peer::StdRequest(RDDP_MPA_RTR_ALL);
  f.crc = g_crc;
  rddp_mpa_frame reply{};
  if (!tap.Check(
          conn && p.SendFrame(f) && p.ReadReply(&reply) && !reply.reject && SendRtr(p, reply.rtr),
          "kernel read: MPA exchange with the kernel consumer"))
    return std::nullopt;
  *send_msn = (reply.rtr & RDDP_MPA_RTR_SEND) && !(reply.rtr & RDDP_MPA_RTR_WRITE) ? 2 : 1;
  Received r = p.Collect(3 * kTimeoutMs, [](const Received& got) { return !got.msgs.empty(); });
  if (!tap.Check(!r.msgs.empty() && !r.msgs[0].hdr.tagged && r.msgs[0].payload.size() == 16,
                 "kernel read: the consumer sends its MR's STag", TermStr(r)))
    return std::nullopt;
  return r.msgs[0];
}

int KernelRead(const char* addr, const char* port) {
  Peer p;
  uint32_t send_msn = 1;
  std::optional<Received::Msg> m = KernelReadSetup(p, addr, port, &send_msn);
  if (!m) return tap.Finish();
  auto stag = static_cast<uint32_t>(Be(m->payload, 0, 4));
  uint64_t to = Be(m->payload, 4, 8);
  auto len = static_cast<uint32_t>(Be(m->payload, 12, 4));
  bool ok = true;
  for (uint32_t i = 0; i < kKernelReads; i++) ok = ok && SendReadReq(p, i + 1, stag, to, len);
  tap.Check(ok, "kernel read: " + std::to_string(kKernelReads) + " Read Requests for the MR");
  usleep(500000);  // the responses fill both ends' buffers
  rddp_hdr inv = Untagged(RDDP_OP_SEND_INV, send_msn, 0, true);
  inv.inval_stag = stag;
  tap.Check(p.Send(inv, std::vector<uint8_t>(16, 0x77)),
            "kernel read: a Send with Invalidate of the MR under the Reads");
  // The consumer rewrites its memory on the completion, maps and
  // registers the MR again, then says so.
  bool staged = WaitFor(
      [] {
        std::ifstream f("/sys/module/rddp_kverbs/parameters/serve_stage");
        int stage = 0;
        return (f >> stage) && stage >= 2;
      },
      3 * kTimeoutMs);
  tap.Check(staged, "kernel read: the consumer maps and registers the MR again (serve_stage 2)");
  Received r = p.Collect(3 * kTimeoutMs, [](const Received& got) { return got.term.has_value(); });
  uint64_t bytes = 0, wrong = 0;
  for (const Received::Msg& msg : r.msgs) {
    if (!msg.hdr.tagged || msg.hdr.opcode != RDDP_OP_READ_RESP) continue;
    uint64_t off = msg.hdr.to - 0x1000;  // SendReadReq's sink TO
    for (size_t i = 0; i < msg.payload.size(); i++)
      wrong += msg.payload[i] != static_cast<uint8_t>((off + i) * 7 + 3);
    bytes += msg.payload.size();
  }
  std::printf("# %llu octets of Read Responses in %zu messages, then %s\n",
              static_cast<unsigned long long>(bytes), r.msgs.size(), TermStr(r).c_str());
  tap.Check(wrong == 0, "kernel read: every Read Response octet is from before the invalidation",
            std::to_string(wrong) + " of " + std::to_string(bytes) + " octets rewritten");
  tap.Check(bytes < uint64_t{len} * kKernelReads,
            "kernel read: the responses stop at the invalidation",
            std::to_string(bytes) + " octets of " + std::to_string(uint64_t{len} * kKernelReads));
  // The Read Request is at fault, not the Send with Invalidate: its
  // header is copied (RFC 5040 §4.8), no DDP header.
  tap.Check(TermIs(r.term, kRdmapInvalidStag) && r.term->r && !r.term->d,
            "kernel read: Terminate layer 0 type 1 code 0x00 (invalid STag, RFC 5040 §7) "
            "copying the Read Request",
            "got " + TermStr(r) + (r.term && r.term->r ? ", Read Request copied" : "") +
                (r.term && r.term->d ? ", DDP header copied" : ""));
  return tap.Finish();
}

}  // namespace

int main(int argc, char** argv) {
  // A write after the device's reset fails with EPIPE, a check's failure,
  // rather than ending the program.
  std::signal(SIGPIPE, SIG_IGN);
  int a = 1;
  if (argc > 1 && std::strcmp(argv[1], "--crc=0") == 0) {
    g_crc = false;
    a++;
  }
  // --liveness NS:VETH:MS:DEV ADDR: only the liveness cases (struct
  // Liveness); --exit-gone NS:VETH:MS:DEV ADDR: the process exits while
  // its QP's peer is gone.
  std::string live_mode;
  std::optional<Liveness> live;
  if (argc - a > 1 &&
      (std::strcmp(argv[a], "--liveness") == 0 || std::strcmp(argv[a], "--exit-gone") == 0)) {
    live_mode = argv[a];
    live = ParseLiveness(argv[a + 1]);
    if (!live) {
      std::fprintf(stderr, "%s NS:VETH:MS:DEV\n", argv[a]);
      return 2;
    }
    a += 2;
  }
  if (argc - a == 3 && std::strcmp(argv[a], "--linger-exit") == 0)
    return LingerExit(argv[a + 1], argv[a + 2]);
  if (argc - a == 3 && std::strcmp(argv[a], "--kernel-read") == 0)
    return KernelRead(argv[a + 2], argv[a + 1]);
  // --sctp [--peer-timeout-ms=MS] ADDR [FILTER]: DDP over SCTP instead
  // (hostile_sctp.cc); MS is the device's peer_timeout_ms (default 60000).
  if (argc - a >= 2 && std::strcmp(argv[a], "--sctp") == 0) {
    int ms = 60000;
    if (std::strncmp(argv[++a], "--peer-timeout-ms=", 18) == 0) ms = std::atoi(argv[a++] + 18);
    if (a < argc) return SctpMode(argv[a], argc - a > 1 ? argv[a + 1] : "", ms);
  }
  if (argc - a < 1) {
    std::fprintf(stderr, "usage: %s [--crc=0] ADDR [FILTER]\n", argv[0]);
    return 2;
  }
  Harness h(argv[a]);
  if (!tap.Check(h.Ready(), "listen on " + std::string(argv[a]) + " and allocate a PD"))
    return tap.Finish();
  const std::string filter = argc - a > 1 ? argv[a + 1] : "";
  if (live) {
    if (live_mode == "--exit-gone") {
      ExitWhileGone(h, *live);  // returns only if it failed early
    } else {
      LivenessCases(h, *live);
    }
    return tap.Finish();
  }
  auto fresh = [&h, &filter](const std::string& name,
                             const std::function<void(Peer&, Victim&)>& body,
                             uint8_t offer = RDDP_MPA_RTR_ALL, bool send_rtr = true,
                             bool srq = false, bool crc = g_crc) {
    if (name.find(filter) == std::string::npos) return;
    Peer p;
    Victim v;
    v.use_srq = srq;
    h.ResetMsn();
    if (h.Connect(p, v, name, offer, send_rtr, crc)) body(p, v);
    p.Close();
    h.Drain();
  };
  for (const auto* table : {&Cases(), &SendMoCases()}) {
    for (const Case& c : *table) {
      auto body = [&](Peer& p, Victim& v) { c.run(c.name, h, p, v); };
      fresh(c.name, body, c.offer, c.send_rtr, c.srq, c.crc || g_crc);
    }
  }
  for (const ReadCase& c : ReadCases()) {
    fresh(c.name, [&](Peer& p, Victim& v) { RunRead(c, p, v); });
  }
  SetupCases(h, filter);
  InitiatorCases(h, filter);
  CloseCases(h, filter);
  // After every case, a well-behaved connection still works.
  fresh("a fresh connection after the cases",
        [&](Peer& p, Victim& v) { Cases()[0].run("a fresh connection after the cases", h, p, v); });
  return tap.Finish();
}
