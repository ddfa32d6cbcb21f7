// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp_hostile --sctp: the hostile peer of hostile_test.cc over SCTP
// (draft-ietf-rddp-sctp-00, "the draft" below; Documentation/wire-sctp.md).
//
// The victim is the same librdmacm server (hostile.h's Victim) on the
// device under test; rddp's listener takes SCTP on the rdma_cm port. The
// peer is a one-to-one SCTP socket (sctp_sock.h) driven by rddp's protocol
// core (include/rddp/sctp.h, rdmap.h): an association with the Adaptation
// Layer Indication DDP+RDMA (§2.1, §8.1), a DDP Stream Session (§3: the
// Initiate with rddp's IRD/ORD prefix, the victim's Accept), then one
// crafted case per association. Every case names the section it tests and
// checks what its section prescribes: the RFC 5040 Terminate rddp sends
// (layer, type and code, the copied DDP header and segment length) and the
// session's end after it (rddp's session Terminate, then SCTP's graceful
// SHUTDOWN, §8.3), or for a setup the session-level outcome (an Accept, a
// session Terminate, a SHUTDOWN or an ABORT, the ULP's events); and on the
// victim's side the QP's state, its completions, the data placed and the
// guard bytes. Some cases play rddp's active side: the victim connects to
// the peer's SCTP listener (the device's transport set to sctp).
//
// Cases that need another fix of issue 26 say so; their expected outcome is
// the correct one (Documentation/conformance.md, "The SCTP mode").
extern "C" {
#include <rddp/crc32c.h>
#include <rddp/rdmap.h>
#include <rddp/sctp.h>
}

#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <linux/sctp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hostile.h"
#include "sctp_sock.h"

namespace rddp_hostile {
namespace {

using rddp_test::kFcAccept;
using rddp_test::kFcInitiate;
using rddp_test::kFcNegotiate;
using rddp_test::kFcTerminate;
using rddp_test::kPpidControl;
using rddp_test::kPpidSegment;
using rddp_test::kSolSctp;
using rddp_test::SctpMsg;

constexpr uint32_t kAliDdp = 1;      // §2.1: DDP only
constexpr uint32_t kAliDdpRdma = 2;  // §2.1: DDP+RDMA, what rddp needs
// The ULP private data the peer sends after rddp's IRD/ORD prefix.
const std::vector<uint8_t> kUlpPd = {'h', 'o', 's', 't', 'i', 'l', 'e'};

// rddp's IRD/ORD prefix and ULP data (wire-sctp.md), as the core builds it.
std::vector<uint8_t> ConnPd(uint16_t ird, uint16_t ord, const std::vector<uint8_t>& ulp) {
  std::vector<uint8_t> b(RDDP_SCTP_IRD_ORD_LEN + ulp.size());
  const int n = rddp_sctp_conn_build(ird, ord, ulp.data(), static_cast<uint32_t>(ulp.size()),
                                     b.data(), static_cast<uint32_t>(b.size()));
  b.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return b;
}

// What rddp sent to the peer, parsed with the core.
struct Got {
  struct Ctrl {
    uint16_t ssn;
    uint16_t fc;
    std::vector<uint8_t> pd;
  };
  struct Seg {
    uint16_t ssn;
    rddp_hdr hdr;
    std::vector<uint8_t> payload;
  };
  enum class End { kOpen, kShutdown, kAbort };
  std::vector<Ctrl> ctrls;
  std::vector<Seg> segs;
  std::optional<rddp_term> term;  // an RFC 5040 Terminate among the segments
  int odd = 0;                    // chunks rddp must never send: ordered, other PPID, malformed
  std::string odd_why;
  std::optional<uint32_t> adaptation;  // rddp's Adaptation Layer Indication
  End end = End::kOpen;

  const Ctrl* Find(uint16_t fc) const {
    auto it = std::find_if(ctrls.begin(), ctrls.end(), [fc](const Ctrl& c) { return c.fc == fc; });
    return it == ctrls.end() ? nullptr : &*it;
  }
  std::string EndStr() const {
    return end == End::kShutdown ? "SHUTDOWN" : end == End::kAbort ? "ABORT" : "still open";
  }
  // One line of what came: "Ctrl 1/3 Seg 2 ... SHUTDOWN".
  std::string Str() const {
    std::string s;
    for (const Ctrl& c : ctrls)
      s += "control ssn " + std::to_string(c.ssn) + " fc " + std::to_string(c.fc) + "; ";
    s += std::to_string(segs.size()) + " segments; ";
    if (term) {
      s += "Terminate " + std::to_string(term->layer) + "/" + std::to_string(term->etype) + "/" +
           Hex(term->ecode) + "; ";
    }
    if (odd) s += std::to_string(odd) + " odd chunks (" + odd_why + "); ";
    return s + EndStr();
  }
};

// The hostile end: a one-to-one SCTP socket.
class SctpPeer {
 public:
  SctpPeer() = default;
  ~SctpPeer() {
    Close();
    if (lfd_ >= 0) close(lfd_);
  }
  SctpPeer(const SctpPeer&) = delete;
  SctpPeer& operator=(const SctpPeer&) = delete;

  // An association with rddp's listener at @to, with the Adaptation Layer
  // Indication @ali (none: nullopt), asking for @streams streams each way.
  bool Connect(const sockaddr_in& to, std::optional<uint32_t> ali = kAliDdpRdma,
               uint16_t streams = 1) {
    Close();
    fd_ = rddp_test::SctpSocket(AF_INET, ali);
    if (fd_ < 0) return false;
    sctp_initmsg init{};
    init.sinit_num_ostreams = streams;
    init.sinit_max_instreams = streams;
    timeval tv{kTimeoutMs / 1000, 0};
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return setsockopt(fd_, kSolSctp, SCTP_INITMSG, &init, sizeof(init)) == 0 &&
           connect(fd_, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) == 0;
  }
  // An SCTP listener indicating DDP+RDMA on @addr's address, for rddp's
  // connect; the port it got (network order), 0 on failure.
  uint16_t Listen(const sockaddr_in& addr) {
    lfd_ = rddp_test::SctpSocket(AF_INET, kAliDdpRdma);
    return ListenOn(lfd_, addr);
  }
  bool Accept(int ms) {
    fd_ = AcceptWithin(lfd_, ms);
    return fd_ >= 0;
  }
  int Fd() const { return fd_; }
  uint16_t LocalPort() const {
    sockaddr_in a{};
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    return ntohs(a.sin_port);
  }

  // The DDP-SSN of the peer's next chunk (§2.2.1: 1 first); At() sets it.
  uint16_t NextSsn() const { return ssn_; }
  void At(uint16_t ssn) { ssn_ = ssn; }
  // The MSN of the next Send (RFC 5041 §5.1: 1 first).
  uint32_t Msn() const { return msn_; }
  void NextMsn() { msn_++; }

  // A whole message, DDP-SSN included, as it is.
  bool Raw(uint32_t ppid, const std::vector<uint8_t>& msg, uint16_t sid = 0,
           bool unordered = true) const {
    return rddp_test::SendMessage(fd_, ppid, msg, sid, unordered);
  }
  // A Session Control message (§2.2.3) with the next DDP-SSN.
  bool Ctrl(uint16_t fc, const std::vector<uint8_t>& pd = {}) {
    std::vector<uint8_t> b(RDDP_SCTP_CTRL_HDR_LEN + pd.size());
    const int n = rddp_sctp_ctrl_build(ssn_++, fc, pd.data(), static_cast<uint32_t>(pd.size()),
                                       b.data(), static_cast<uint32_t>(b.size()));
    if (n < 0) return false;
    return Raw(kPpidControl, b);
  }
  bool Initiate(const std::vector<uint8_t>& pd = ConnPd(kDepth, kDepth, kUlpPd)) {
    return Ctrl(kFcInitiate, pd);
  }
  // A DDP Segment (§2.2.2) with the next DDP-SSN: the header, then @len
  // octets of @payload; ordered (U=0) if told.
  bool Seg(const rddp_hdr& h, const uint8_t* payload, uint32_t len, bool unordered = true) {
    std::array<uint8_t, RDDP_DDP_UNTAGGED_HDR_LEN> hdr{};
    const uint32_t hl = rddp_hdr_build(&h, hdr.data());
    std::vector<uint8_t> b(RDDP_SCTP_SEG_PREFIX_MAX);
    const int n = rddp_sctp_seg_build(ssn_++, hdr.data(), hl, len, b.data());
    if (n < 0) return false;
    b.resize(static_cast<size_t>(n));
    b.insert(b.end(), payload, payload + len);
    last_ddp_len_ = hl + len;
    return Raw(kPpidSegment, b, 0, unordered);
  }
  bool Seg(const rddp_hdr& h, const std::vector<uint8_t>& payload, bool unordered = true) {
    return Seg(h, payload.data(), static_cast<uint32_t>(payload.size()), unordered);
  }
  // A Send of @data (MSN Msn(), MO @mo, L @last).
  bool Send(const std::vector<uint8_t>& data, uint32_t mo = 0, bool last = true) {
    return Seg(Untagged(RDDP_OP_SEND, msn_, mo, last), data);
  }
  // The streams SCTP gave the association each way (RFC 4960 §5.1.1).
  std::pair<int, int> Streams() const {
    sctp_status st{};
    socklen_t len = sizeof(st);
    if (getsockopt(fd_, kSolSctp, SCTP_STATUS, &st, &len)) return {-1, -1};
    return {st.sstat_instrms, st.sstat_outstrms};
  }
  // The DDP segment length (header and payload) of the last Seg().
  uint32_t LastDdpLen() const { return last_ddp_len_; }

  // Reads until @stop says enough, the association ends, or @ms pass;
  // everything read adds to Got(), until Clear().
  const Got& Collect(int ms, const std::function<bool(const Got&)>& stop) {
    const auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (got_.end == Got::End::kOpen && !stop(got_)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
      if (left <= 0) break;
      Take(rddp_test::RecvMsg(fd_, static_cast<int>(left)));
    }
    return got_;
  }
  // Until the association ends.
  const Got& CollectEnd(int ms = kTimeoutMs) {
    return Collect(ms, [](const Got&) { return false; });
  }
  // Until a Session Control message with @fc, or the end.
  const Got& CollectCtrl(uint16_t fc, int ms = kTimeoutMs) {
    return Collect(ms, [fc](const Got& g) { return g.Find(fc) != nullptr; });
  }
  void Clear() {
    const Got::End end = got_.end;
    got_ = Got{};
    got_.end = end;
  }
  // ABORT (linger 0) instead of SHUTDOWN.
  void Abort() {
    linger lg{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    Close();
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  void TakeData(const SctpMsg& m) {
    if (!m.unordered || !m.eor || m.sid != 0) {
      got_.odd++;
      got_.odd_why = !m.unordered ? "ordered" : !m.eor ? "longer than a chunk" : "stream != 0";
    }
    rddp_sctp_chunk c{};
    if (rddp_sctp_chunk_parse(m.ppid, m.data.data(), static_cast<uint32_t>(m.data.size()), &c) !=
        RDDP_SCTP_OK) {
      got_.odd++;
      got_.odd_why = "unparseable, PPID " + std::to_string(m.ppid);
      return;
    }
    if (m.ppid == kPpidControl) {
      got_.ctrls.push_back({c.ssn, c.msg, std::vector<uint8_t>(c.pd, c.pd + c.pd_len)});
      return;
    }
    Got::Seg s{c.ssn, {}, std::vector<uint8_t>(c.ddp + c.hdr_len, c.ddp + c.ddp_len)};
    if (rddp_hdr_parse(c.ddp, c.hdr_len, c.ddp_len - c.hdr_len, &s.hdr) != RDDP_ERR_NONE)
      s.hdr.opcode = RDDP_OP_MAX;  // not ours to judge: kept raw
    rddp_term t{};
    if (!s.hdr.tagged && s.hdr.opcode == RDDP_OP_TERMINATE &&
        rddp_term_parse(s.payload.data(), static_cast<u32>(s.payload.size()), &t) == RDDP_ERR_NONE)
      got_.term = t;
    got_.segs.push_back(std::move(s));
  }
  void Take(const SctpMsg& m) {
    sctp_notification n{};
    switch (m.kind) {
      case SctpMsg::Kind::kData:
        TakeData(m);
        return;
      case SctpMsg::Kind::kEvent:
        m.Note(&n);
        if (n.sn_header.sn_type == SCTP_ADAPTATION_INDICATION)
          got_.adaptation = n.sn_adaptation_event.sai_adaptation_ind;
        // §8.3: the peer's SHUTDOWN comes after all its data.
        if (n.sn_header.sn_type == SCTP_SHUTDOWN_EVENT) got_.end = Got::End::kShutdown;
        return;
      case SctpMsg::Kind::kClosed:
        got_.end = Got::End::kShutdown;
        return;
      case SctpMsg::Kind::kAborted:
      case SctpMsg::Kind::kError:
        got_.end = Got::End::kAbort;
        return;
      case SctpMsg::Kind::kTimeout:
        return;
    }
  }

  int fd_ = -1;
  int lfd_ = -1;
  uint16_t ssn_ = RDDP_SCTP_SSN_FIRST;
  uint32_t msn_ = 1;
  uint32_t last_ddp_len_ = 0;
  Got got_;
};

// The victim's side (hostile.h) with the DDP Stream Session's setup, rddp
// as the Responder or the Initiator.
class SctpHarness : public VictimSide {
 public:
  using VictimSide::VictimSide;

  // The listener's CONNECT_REQUEST within @ms (in @ev), or false.
  bool Request(CmEvent* ev, const std::string& n, int ms = kTimeoutMs) {
    *ev = NextEvent(Ch(), ms);
    const bool ok = *ev && (*ev)->event == RDMA_CM_EVENT_CONNECT_REQUEST;
    return tap.Check(ok, n + ": the listener's ULP gets the connection request",
                     *ev ? rdma_event_str((*ev)->event) : "no event");
  }
  // The victim takes the request @ev: its QP, MRs and receives, then
  // rdma_accept (IRD = ORD = 4) and ESTABLISHED.
  bool Accept(CmEvent ev, Victim& v, const std::string& n) {
    if (!TakeRequest(std::move(ev), v, n)) return false;
    rdma_conn_param cp = Depths();
    if (!tap.Zero(rdma_accept(v.id, &cp), n + ": rdma_accept")) return false;
    CmEvent est = NextEvent(Ch(), kTimeoutMs);
    return tap.Check(est && est->event == RDMA_CM_EVENT_ESTABLISHED,
                     n + ": the victim's connection is established",
                     est ? rdma_event_str(est->event) : "no event");
  }
  // A fresh session: the association, the peer's Initiate (IRD = ORD = 4),
  // the victim's accept and its Accept (DDP-SSN 1, §3.2).
  bool Connect(SctpPeer& p, Victim& v, const std::string& n) {
    if (!p.Connect(To()) || !p.Initiate())
      return tap.Check(false, n + ": SCTP association and Initiate", std::strerror(errno));
    CmEvent ev;
    if (!Request(&ev, n) || !Accept(std::move(ev), v, n)) return false;
    const Got& g = p.CollectCtrl(kFcAccept);
    const Got::Ctrl* a = g.Find(kFcAccept);
    if (!tap.Check(a && a->ssn == RDDP_SCTP_SSN_FIRST, n + ": rddp's Accept, DDP-SSN 1", g.Str()))
      return false;
    p.Clear();
    return true;
  }
  // rddp as the Initiator (the device's transport: sctp): the victim
  // connects to @p's SCTP listener, @p takes the association.
  bool ConnectOut(SctpPeer& p, Victim& v, const std::string& n) {
    if (!Dial(v, p.Listen(To()), n, "an SCTP listener")) return false;
    rdma_conn_param cp = Depths();
    if (!tap.Zero(rdma_connect(v.id, &cp), n + ": rdma_connect")) return false;
    return tap.Check(p.Accept(kTimeoutMs), n + ": rddp's SCTP association arrives");
  }
};

// rddp's Initiate on the association ConnectOut() made: DDP-SSN 1, its
// IRD/ORD prefix (4, 4: rdma_connect's), no ULP data.
bool ExpectInitiate(SctpPeer& p, const std::string& n) {
  const Got& g = p.CollectCtrl(kFcInitiate);
  const Got::Ctrl* i = g.Find(kFcInitiate);
  rddp_sctp_conn c{};
  const bool ok =
      i && i->ssn == RDDP_SCTP_SSN_FIRST &&
      rddp_sctp_conn_parse(i->pd.data(), static_cast<uint32_t>(i->pd.size()), &c) == RDDP_SCTP_OK &&
      c.ird == kDepth && c.ord == kDepth;
  return tap.Check(ok, n + ": rddp's Initiate: DDP-SSN 1, IRD 4, ORD 4 (§3.2)", g.Str());
}

// rddp as the Initiator: ConnectOut(), then its Initiate.
bool InitiatedOut(SctpHarness& h, SctpPeer& p, Victim& v, const std::string& n) {
  return h.ConnectOut(p, v, n) && ExpectInitiate(p, n);
}

// ---- the checks ----------------------------------------------------------

// rddp's session ended as §8.3 and §3.2 want after an error on the stream
// or the peer's Terminate: its session Terminate, then SHUTDOWN.
void ExpectSessionTerminated(const std::string& n, SctpPeer& p) {
  const Got& g = p.CollectEnd();
  tap.Check(g.Find(kFcTerminate) && g.end == Got::End::kShutdown,
            n + ": then rddp's session Terminate and SHUTDOWN (§3.2, §8.3)", g.Str());
}

// The victim answers with exactly @want: the RFC 5040 Terminate (with the
// offending DDP header and segment length copied if @hdr_copied), the QP
// in ERROR, the posted receives completing in error, nothing placed
// outside a buffer, the session's end.
void ExpectTerminate(const std::string& n, SctpPeer& p, Victim& v, TermWant want,
                     bool hdr_copied = true) {
  const Got& g = p.Collect(kTimeoutMs, [](const Got& x) { return x.term.has_value(); });
  tap.Check(TermIs(g.term, want), n + ": " + TermName(want), "got " + g.Str());
  if (g.term && hdr_copied) ExpectTermCopies(n, *g.term, p.LastDdpLen(), "the segment's");
  ExpectVictimTerminated(n, v);
  ExpectSessionTerminated(n, p);
}

// Setup ends without a session. With @terminate (§3.1, §3.4): rddp's
// session Terminate with DDP-SSN @ssn, then SHUTDOWN; without (§3.3, a
// session that never got past negotiation): SHUTDOWN alone. Never an
// ABORT (§5, §8.3), never a DDP Segment; the ULP hears of nothing.
void ExpectSessionRefused(const std::string& n, SctpHarness& h, SctpPeer& p, bool terminate,
                          uint16_t ssn = RDDP_SCTP_SSN_FIRST) {
  const Got& g = p.CollectEnd();
  const Got::Ctrl* t = g.Find(kFcTerminate);
  if (terminate) {
    tap.Check(t && t->ssn == ssn && t->pd.empty(),
              n + ": rddp ends the session with its Terminate, DDP-SSN " + std::to_string(ssn),
              g.Str());
  } else {
    tap.Check(!t, n + ": no session Terminate (no session began, §3.3)", g.Str());
  }
  tap.Check(g.end == Got::End::kShutdown,
            n + ": then a graceful SHUTDOWN, not an ABORT of the association (§5, §8.3)", g.Str());
  tap.Check(g.segs.empty() && !g.Find(kFcAccept), n + ": no Accept, no DDP Segment", g.Str());
  h.ExpectNoRequest(n, 200);
}

// An association indicating @ali (none: nullopt) is refused (§4.1,
// §8.1): ABORT (connect() may see it before it returns), no DATA.
void ExpectAssociationRefused(const std::string& n, SctpHarness& h, SctpPeer& p,
                              std::optional<uint32_t> ali) {
  const bool up = p.Connect(h.To(), ali);
  const int err = errno;
  if (up) p.Initiate();  // it may meet the ABORT already: not checked
  const Got& g = p.CollectEnd();
  tap.Check(up ? g.end == Got::End::kAbort : err == ECONNRESET || err == ECONNREFUSED,
            n + ": rddp aborts the association (§4.1, §8.1)",
            up ? g.Str() : std::string("connect: ") + std::strerror(err));
  tap.Check(g.ctrls.empty() && g.segs.empty(), n + ": no DATA chunk from rddp", g.Str());
  h.ExpectNoRequest(n, 200);
}

// A Send of 64 octets the victim places and completes.
void ExpectSendPlaced(const std::string& n, SctpPeer& p, Victim& v) {
  auto data = Pattern(64, 29);
  p.Send(data);
  p.NextMsn();
  auto wcs = v.Poll(1, kTimeoutMs);
  const Got& g = p.Collect(100, [](const Got& x) { return x.term.has_value(); });
  tap.Check(!g.term && wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                wcs[0].byte_len == data.size() &&
                std::equal(data.begin(), data.end(),
                           v.recv->Data() + static_cast<size_t>(wcs[0].wr_id) * kRecvLen),
            n + ": a Send is placed and completes",
            g.term        ? "got " + g.Str()
            : wcs.empty() ? "no completion"
                          : "status " + std::to_string(wcs[0].status));
  tap.Check(v.GuardsIntact(), n + ": guards intact");
}

// The victim's QP ends within @ms, the @recvs receives still posted
// complete in error, the cm_id is told; and the peer's association ends.
void ExpectQpEnds(const std::string& n, SctpHarness& h, SctpPeer* p, Victim& v, int ms,
                  size_t recvs = kRecvs) {
  ExpectQpFlushed(n, v, ms, recvs);
  bool told = false;
  while (CmEvent ev = NextEvent(h.Ch(), kTimeoutMs)) {
    told = ev->event == RDMA_CM_EVENT_DISCONNECTED;
    if (told) break;
  }
  tap.Check(told, n + ": the cm_id gets DISCONNECTED");
  if (p) {
    const Got& g = p->CollectEnd();
    tap.Check(g.end != Got::End::kOpen, n + ": the association ends", g.Str());
  }
}

// ---- raw SCTP packets (RFC 4960 §3) ---------------------------------------

// A raw IPv4 socket for SCTP: it gets a copy of every SCTP packet the host
// receives, both ends of an association on this host included.
class RawSctp {
 public:
  RawSctp() : fd_(socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_SCTP)) {}
  ~RawSctp() {
    if (fd_ >= 0) close(fd_);
  }
  RawSctp(const RawSctp&) = delete;
  RawSctp& operator=(const RawSctp&) = delete;
  bool Ok() const { return fd_ >= 0; }

  // The packets seen from port @from to port @to so far: the last one's
  // verification tag, the highest DATA TSN, and the DATA chunks that were
  // not a whole message (B and E not both set: SCTP fragments).
  struct Seen {
    bool any = false;
    uint32_t vtag = 0;
    uint32_t tsn = 0;
    int data = 0;
    int fragments = 0;
  };
  Seen Scan(uint16_t from, uint16_t to) {
    std::vector<uint8_t> b(70000);
    for (ssize_t n; (n = recv(fd_, b.data(), b.size(), 0)) > 0;) {
      if (n < 20) continue;
      const size_t ihl = static_cast<size_t>(b[0] & 0xf) * 4;
      if (static_cast<size_t>(n) < ihl + 12) continue;
      const uint8_t* s = b.data() + ihl;
      const size_t len = static_cast<size_t>(n) - ihl;
      if (rddp_test::Be16(s) != from || rddp_test::Be16(s + 2) != to) continue;
      seen_.any = true;
      seen_.vtag = rddp_test::Be32(s + 4);
      for (size_t off = 12; off + 4 <= len;) {
        const uint16_t clen = rddp_test::Be16(s + off + 2);
        if (clen < 4 || off + clen > len) break;
        if (s[off] == 0 && clen >= 16) {  // DATA
          seen_.data++;
          seen_.fragments += (s[off + 1] & 3) == 3 ? 0 : 1;
          const uint32_t tsn = rddp_test::Be32(s + off + 4);
          if (static_cast<int32_t>(tsn - seen_.tsn) > 0 || seen_.data == 1) seen_.tsn = tsn;
        }
        off += (clen + 3U) & ~3U;
      }
    }
    return seen_;
  }
  // A packet from port @from to @to (IPv4 @dst) with the verification tag
  // @vtag and one DATA chunk of no user data (RFC 4960 §3.3.1: U, B and
  // E set, TSN @tsn, stream 0, PPID 1); its CRC32c (RFC 4960 App. B).
  bool SendEmptyData(const sockaddr_in& dst, uint16_t from, uint16_t to, uint32_t vtag,
                     uint32_t tsn) const {
    std::vector<uint8_t> pkt(12 + 16, 0);
    auto put16 = [&pkt](size_t at, uint16_t v) {
      pkt[at] = static_cast<uint8_t>(v >> 8);
      pkt[at + 1] = static_cast<uint8_t>(v);
    };
    auto put32 = [&put16](size_t at, uint32_t v) {
      put16(at, static_cast<uint16_t>(v >> 16));
      put16(at + 2, static_cast<uint16_t>(v));
    };
    put16(0, from);
    put16(2, to);
    put32(4, vtag);
    pkt[12] = 0;     // DATA
    pkt[13] = 0x07;  // U, B, E
    put16(14, 16);   // no user data
    put32(16, tsn);
    put32(24, kPpidSegment);
    const uint32_t crc = ~rddp_crc32c(~0U, pkt.data(), static_cast<u32>(pkt.size()));
    for (int i = 0; i < 4; i++) pkt[8 + i] = static_cast<uint8_t>(crc >> (8 * i));
    sockaddr_in a = dst;
    a.sin_port = 0;
    return sendto(fd_, pkt.data(), pkt.size(), 0, reinterpret_cast<sockaddr*>(&a), sizeof(a)) ==
           static_cast<ssize_t>(pkt.size());
  }

 private:
  int fd_;
  Seen seen_;
};

// ---- session cases: each from a fresh session -----------------------------

struct SctpCase {
  const char* name;
  std::function<void(const std::string&, SctpHarness&, SctpPeer&, Victim&)> run;
};

// The device's peer_timeout_ms (--peer-timeout-ms): the bound on a gap.
int g_peer_timeout_ms = 60000;

// A Write of @data at @off into the target, then a Send of 8 octets that
// completes once both are placed (DDP-SSN order, RFC 5041 §5.3).
void ExpectWritePlaced(const std::string& n, SctpPeer& p, Victim& v,
                       const std::vector<uint8_t>& data, uint32_t off) {
  p.Seg(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, Addr(v.target->Data()) + off, true), data);
  p.Send(Pattern(8, 9));
  p.NextMsn();
  auto wcs = v.Poll(1, kTimeoutMs);
  tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                std::equal(data.begin(), data.end(), v.target->Data() + off),
            n + ": the Write is placed at its TO, the Send after it completes",
            wcs.empty() ? "no completion" : "status " + std::to_string(wcs[0].status));
  tap.Check(v.GuardsIntact(), n + ": guards intact");
}

// RFC 5040 §4.4: a Read Request (MSN @msn) for @size octets of @stag at
// @to, into a sink the victim never checks.
bool SendReadReq(SctpPeer& p, uint32_t msn, uint32_t stag, uint64_t to, uint32_t size) {
  return p.Seg(Untagged(RDDP_OP_READ_REQ, msn, 0, true, RDDP_QN_READ_REQ),
               ReadReqPayload(stag, to, size));
}

// The peer's Send as @segs {MO, length, L} of one message (MSN Msn()),
// sent in the order @order names them (their DDP-SSNs follow @segs'
// order); returns the message.
std::vector<uint8_t> SendSegments(SctpPeer& p,
                                  const std::vector<std::tuple<uint32_t, uint32_t, bool>>& segs,
                                  const std::vector<size_t>& order) {
  uint32_t end = 0;
  for (const auto& [mo, len, last] : segs) end = std::max(end, mo + len);
  auto msg = Pattern(end, 13);
  const uint16_t first = p.NextSsn();
  for (size_t i : order) {
    const auto& [mo, len, last] = segs[i];
    p.At(static_cast<uint16_t>(first + i));
    p.Seg(Untagged(RDDP_OP_SEND, p.Msn(), mo, last), msg.data() + mo, len);
  }
  p.At(static_cast<uint16_t>(first + segs.size()));
  p.NextMsn();
  return msg;
}

// A Session Control message with any function code (the core builds only
// the four of §2.2.3).
std::vector<uint8_t> CtrlBytes(uint16_t ssn, uint16_t fc) {
  return {static_cast<uint8_t>(ssn >> 8), static_cast<uint8_t>(ssn), static_cast<uint8_t>(fc >> 8),
          static_cast<uint8_t>(fc)};
}

void ReadAnswered(const std::string& n, SctpPeer& p, Victim& v) {
  auto data = Pattern(3000, 41);
  std::copy(data.begin(), data.end(), v.target->Data());
  SendReadReq(p, 1, v.target_mr->rkey, Addr(v.target->Data()), 3000);
  const Got& g =
      p.Collect(kTimeoutMs, [](const Got& x) { return !x.segs.empty() && x.segs.back().hdr.last; });
  std::vector<uint8_t> got;
  bool ok = !g.segs.empty();
  uint16_t ssn = 2;  // after rddp's Accept (§2.2.1)
  for (const Got::Seg& s : g.segs) {
    ok = ok && s.hdr.opcode == RDDP_OP_READ_RESP && s.hdr.stag == 0x4400 &&
         s.hdr.to == 0x1000 + got.size() && s.ssn == ssn++;
    got.insert(got.end(), s.payload.begin(), s.payload.end());
  }
  tap.Check(ok && got == data && !g.odd,
            n + ": Read Responses carry the 3000 octets to the sink, DDP-SSN 2 on, unordered",
            g.Str() + ", " + std::to_string(got.size()) + " octets");
}

// More Read Requests than the IRD (4), the last four ahead of their turn so
// that all five are delivered at once (§7): the fifth has no room.
void ReadsBeyondIrd(const std::string& n, SctpPeer& p, Victim& v) {
  const uint16_t first = p.NextSsn();
  p.At(static_cast<uint16_t>(first + 1));
  for (uint32_t msn = 2; msn <= 5; msn++)
    SendReadReq(p, msn, v.target_mr->rkey, Addr(v.target->Data()), 64);
  p.At(first);
  SendReadReq(p, 1, v.target_mr->rkey, Addr(v.target->Data()), 64);
  p.At(static_cast<uint16_t>(first + 5));
  const Got& g = p.Collect(kTimeoutMs, [](const Got& x) { return x.term.has_value(); });
  tap.Check(TermIs(g.term, kDdpNoBuffer), n + ": " + TermName(kDdpNoBuffer), "got " + g.Str());
  tap.Check(g.term && g.term->r, n + ": it copies the fifth Read Request (RFC 5040 §4.8)");
  tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
  tap.Check(v.GuardsIntact(), n + ": guards intact");
  ExpectSessionTerminated(n, p);
}

// RFC 4960 §3.3.1, §6.2: a DATA chunk without user data cannot be sent
// through the sockets API (EINVAL); a raw packet carries it, with the
// association's verification tag and next TSN learnt from the peer's own
// packets. SCTP itself answers it with an ABORT ("No User Data"); rddp
// must end the QP as for any lost association.
void ZeroLengthData(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  RawSctp raw;
  if (!tap.Check(raw.Ok(), n + ": a raw SCTP socket", std::strerror(errno))) return;
  ExpectSendPlaced(n, p, v);  // a DATA chunk of the peer's, seen by the raw socket
  const std::vector<uint8_t> none;
  tap.Check(!rddp_test::SendMessage(p.Fd(), kPpidSegment, none) && errno == EINVAL,
            n + ": the sockets API refuses a message of 0 octets (EINVAL)");
  const RawSctp::Seen seen = raw.Scan(p.LocalPort(), ntohs(h.To().sin_port));
  if (!tap.Check(seen.any && seen.data > 0, n + ": the peer's packets seen",
                 std::to_string(seen.data) + " DATA chunks"))
    return;
  tap.Check(
      raw.SendEmptyData(h.To(), p.LocalPort(), ntohs(h.To().sin_port), seen.vtag, seen.tsn + 1),
      n + ": a DATA chunk of no user data sent", std::strerror(errno));
  ExpectQpEnds(n, h, nullptr, v, kTimeoutMs, kRecvs - 1);
  const Got& g = p.CollectEnd();
  tap.Check(g.end == Got::End::kAbort, n + ": SCTP aborts the association (No User Data)", g.Str());
}

// §6: the peer's SCTP fragments one DDP segment (the sender MUST NOT; a
// receiver cannot tell): SCTP reassembles it into one message, placed.
void Fragmented(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  RawSctp raw;
  sctp_assoc_value seg{};
  seg.assoc_value = 600;
  if (!tap.Check(raw.Ok() && !setsockopt(p.Fd(), kSolSctp, SCTP_MAXSEG, &seg, sizeof(seg)),
                 n + ": a raw SCTP socket, SCTP_MAXSEG 600", std::strerror(errno)))
    return;
  ExpectWritePlaced(n, p, v, Pattern(3000, 17), 512);
  const RawSctp::Seen seen = raw.Scan(p.LocalPort(), ntohs(h.To().sin_port));
  tap.Check(seen.fragments >= 2, n + ": the peer's SCTP sent the Write in fragments (B/E)",
            std::to_string(seen.fragments) + " fragments of " + std::to_string(seen.data) +
                " DATA chunks");
}

const std::vector<SctpCase>& SessionCases() {
  static const std::vector<SctpCase> cases = {
      {"RFC 5041 §5.3 a Write and a Send over SCTP: placed in DDP-SSN order",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         ExpectWritePlaced(n, p, v, Pattern(1000, 3), 96);
       }},
      {"RFC 5040 §5.4 a Read Request over SCTP is answered with the data",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) { ReadAnswered(n, p, v); }},
      {"draft-ietf-rddp-sctp §2.2 DATA with an unknown PPID (3)",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         std::vector<uint8_t> b = {0, static_cast<uint8_t>(p.NextSsn())};
         std::array<uint8_t, RDDP_DDP_UNTAGGED_HDR_LEN> hdr{};
         rddp_hdr sh = Untagged(RDDP_OP_SEND, 1, 0, true);
         b.insert(b.end(), hdr.begin(), hdr.begin() + rddp_hdr_build(&sh, hdr.data()));
         p.Raw(3, b);
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
         tap.Check(AllZero(v.recv->Data(), kRecvLen), n + ": nothing placed");
       }},
      {"draft-ietf-rddp-sctp §7 an ordered (U=0) DATA chunk",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Untagged(RDDP_OP_SEND, 1, 0, true), Pattern(64, 5), false);
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
         tap.Check(AllZero(v.recv->Data(), kRecvLen), n + ": nothing placed");
       }},
      {"draft-ietf-rddp-sctp §6 a Write in SCTP fragments is reassembled and placed", Fragmented},
      {"draft-ietf-rddp-sctp §2.2.2 a DDP header cut across two chunks",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         std::array<uint8_t, RDDP_DDP_UNTAGGED_HDR_LEN> hdr{};
         rddp_hdr sh = Untagged(RDDP_OP_SEND, 1, 0, true);
         rddp_hdr_build(&sh, hdr.data());
         const uint16_t ssn = p.NextSsn();
         std::vector<uint8_t> a = {static_cast<uint8_t>(ssn >> 8), static_cast<uint8_t>(ssn)};
         a.insert(a.end(), hdr.begin(), hdr.begin() + 10);
         std::vector<uint8_t> b = {static_cast<uint8_t>((ssn + 1) >> 8),
                                   static_cast<uint8_t>(ssn + 1)};
         b.insert(b.end(), hdr.begin() + 10, hdr.end());
         b.resize(b.size() + 32, 0x5a);
         p.Raw(kPpidSegment, a);
         p.Raw(kPpidSegment, b);
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
         tap.Check(AllZero(v.recv->Data(), kRecvLen), n + ": nothing placed");
       }},
      {"draft-ietf-rddp-sctp §2.2.2 two DDP segments in one chunk are one segment",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         // One chunk carries one segment: the second header is payload.
         std::vector<uint8_t> msg = Pattern(100, 7);
         std::array<uint8_t, RDDP_DDP_UNTAGGED_HDR_LEN> hdr{};
         rddp_hdr second = Untagged(RDDP_OP_SEND, 1, 100, true);
         msg.insert(msg.end(), hdr.begin(), hdr.begin() + rddp_hdr_build(&second, hdr.data()));
         const auto tail = Pattern(50, 71);
         msg.insert(msg.end(), tail.begin(), tail.end());
         p.Send(msg);
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS &&
                       wcs[0].byte_len == msg.size() &&
                       std::equal(msg.begin(), msg.end(), v.recv->Data()),
                   n + ": one receive completes with all 168 octets, the second header as data",
                   wcs.empty() ? "no completion"
                               : "status " + std::to_string(wcs[0].status) + ", " +
                                     std::to_string(wcs[0].byte_len) + " octets");
         tap.Check(v.GuardsIntact(), n + ": guards intact");
       }},
      {"draft-ietf-rddp-sctp §2.2.3 an unknown function code (5) in a live session",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Raw(kPpidControl, CtrlBytes(p.NextSsn(), 5));
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"draft-ietf-rddp-sctp §3.2 a Negotiate after the Initiate",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Ctrl(kFcNegotiate);
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"draft-ietf-rddp-sctp §3.2 a second Initiate on a live session",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Initiate();
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"draft-ietf-rddp-sctp §7 a DDP-SSN delivered already (a duplicate)",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         const uint16_t ssn = p.NextSsn();
         auto data = Pattern(64, 3);
         p.Send(data);
         auto wcs = v.Poll(1, kTimeoutMs);
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS,
                   n + ": the first Send completes");
         p.NextMsn();
         p.At(ssn);
         p.Send(Pattern(64, 99));
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
         tap.Check(std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": the first Send's octets stay");
       }},
      {"draft-ietf-rddp-sctp §7 a DDP-SSN held twice",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         const uint16_t ssn = p.NextSsn();
         p.At(static_cast<uint16_t>(ssn + 1));
         p.Send(Pattern(64, 3));
         p.At(static_cast<uint16_t>(ssn + 1));
         p.Send(Pattern(64, 4));
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"draft-ietf-rddp-sctp §7 a DDP-SSN gap never filled ends within peer_timeout_ms",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         // Issue 26 item 2: a gap is bounded as an incomplete FPDU is,
         // and ends the stream with the Terminate of rddp_sctp_to_err().
         p.At(static_cast<uint16_t>(p.NextSsn() + 1));
         p.Send(Pattern(64, 3));
         ExpectQpEnds(n, h, &p, v, 3 * g_peer_timeout_ms + 5000);
         const Got& g = p.CollectEnd();
         tap.Check(TermIs(g.term, kDdpCatastrophic),
                   n + ": " + TermName(kDdpCatastrophic) + " first", g.Str());
       }},
      {"draft-ietf-rddp-sctp §7 a DDP-SSN beyond the in-flight window (32767 ahead)",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.At(static_cast<uint16_t>(p.NextSsn() + RDDP_SCTP_SSN_INFLIGHT_MAX));
         p.Send(Pattern(64, 3));
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"RFC 5041 §7.2 a Send with an MSN far ahead over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Untagged(RDDP_OP_SEND, 1001, 0, true), Pattern(16, 5));
         ExpectTerminate(n, p, v, kDdpMsnRange);
       }},
      {"RFC 5041 §7.2 a Write to an invalid STag over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Tagged(RDDP_OP_WRITE, v.target_mr->rkey ^ 0x5a5a00, Addr(v.target->Data()), true),
               Pattern(64, 5));
         ExpectTerminate(n, p, v, kDdpInvalidStag);
         tap.Check(AllZero(v.target->Data(), kTargetLen), n + ": nothing placed");
       }},
      {"RFC 5041 §7.2 a Write past the end of the MR over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Tagged(RDDP_OP_WRITE, v.target_mr->rkey, Addr(v.target->Data()) + kTargetLen - 10,
                      true),
               Pattern(20, 5));
         ExpectTerminate(n, p, v, kDdpBaseBounds);
       }},
      {"RFC 5041 §7.2 a Write to another PD's MR over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Tagged(RDDP_OP_WRITE, v.other_mr->rkey, Addr(v.other->Data()), true),
               Pattern(64, 5));
         ExpectTerminate(n, p, v, kDdpStagStream);
         tap.Check(AllZero(v.other->Data(), 64), n + ": nothing placed");
       }},
      {"RFC 5040 §6.3 more Read Requests than the IRD over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) { ReadsBeyondIrd(n, p, v); }},
      {"RFC 5040 §5.4 a Read Response with no Read outstanding over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Tagged(RDDP_OP_READ_RESP, v.sink_mr->rkey, Addr(v.sink->Data()), true),
               Pattern(64, 5));
         ExpectTerminate(n, p, v, kRdmapUnexpectedOpcode, false);
         tap.Check(AllZero(v.sink->Data(), 64), n + ": nothing placed");
       }},
      {"RFC 5040 §5.3 a Terminate from the peer over SCTP",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         std::vector<uint8_t> b(RDDP_TERM_MAX_LEN);
         b.resize(rddp_term_build(RDDP_ERR_RDMAP_O_UNSPECIFIED, nullptr, 0, 0, nullptr, b.data()));
         p.Seg(Untagged(RDDP_OP_TERMINATE, 1, 0, true, RDDP_QN_TERMINATE), b);
         ExpectQpEnds(n, h, &p, v, kTimeoutMs);
         const Got& g = p.CollectEnd();
         tap.Check(!g.term, n + ": no Terminate in return", g.Str());
       }},
      {"RFC 5040 §4.8 a truncated Terminate over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Seg(Untagged(RDDP_OP_TERMINATE, 1, 0, true, RDDP_QN_TERMINATE), {0x02, 0x00});
         ExpectTerminate(n, p, v, kRdmapUnspecified);
       }},
      {"draft-ietf-rddp-sctp §2.2.1 DATA shorter than its DDP-SSN (1 octet)",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Raw(kPpidSegment, {0});
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"draft-ietf-rddp-sctp §2.2.3 a Session Control message of 3 octets",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         p.Raw(kPpidControl, {0, static_cast<uint8_t>(p.NextSsn()), 0});
         ExpectTerminate(n, p, v, kDdpCatastrophic, false);
       }},
      {"RFC 4960 §6.2 zero-length DATA (a raw packet): the QP ends with the association",
       ZeroLengthData},
      {"RFC 5041 §7.2 an ABORT in the middle of a message over SCTP",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         auto first = Pattern(100, 11);
         p.Send(first, 0, false);
         tap.Check(WaitFor([&] { return std::equal(first.begin(), first.end(), v.recv->Data()); },
                           kTimeoutMs),
                   n + ": the first segment is placed");
         p.Abort();
         ExpectQpEnds(n, h, nullptr, v, kTimeoutMs);
       }},
      // Issue 26 item 4: over SCTP a Send completes only once every octet
      // of [0, MO + len) of its last segment is placed, else "invalid MO"
      // (RFC 5041 §7.2); segments may come in any MO order (§2.2.2).
      {"RFC 5041 §7.2 a one-segment Send at MO 512 over SCTP: its first 512 octets never sent",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         SendSegments(p, {{512, 16, true}}, {0});
         ExpectTerminate(n, p, v, kDdpInvalidMo);
       }},
      {"RFC 5041 §7.2 a Send with a gap over SCTP: octets 0..16, then 32..48 last",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         SendSegments(p, {{0, 16, false}, {32, 16, true}}, {0, 1});
         ExpectTerminate(n, p, v, kDdpInvalidMo);
       }},
      {"RFC 5041 §5.3 a Send in three segments out of MO and DDP-SSN order over SCTP",
       [](const std::string& n, SctpHarness&, SctpPeer& p, Victim& v) {
         auto data =
             SendSegments(p, {{100, 150, false}, {0, 100, false}, {250, 150, true}}, {2, 0, 1});
         auto wcs = v.Poll(1, kTimeoutMs);
         const Got& g = p.Collect(200, [](const Got& x) { return x.term.has_value(); });
         tap.Check(!g.term, n + ": no Terminate", g.Str());
         tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 400 &&
                       std::equal(data.begin(), data.end(), v.recv->Data()),
                   n + ": one receive completes with the 400 octets",
                   wcs.empty() ? "no completion"
                               : "status " + std::to_string(wcs[0].status) + ", " +
                                     std::to_string(wcs[0].byte_len) + " octets");
         ExpectSendPlaced(n, p, v);
       }},
  };
  return cases;
}

// ---- setup cases: the association and the session are the case ------------

// The association and an Initiate with @pd; the request the ULP sees.
bool RequestWith(const std::string& n, SctpHarness& h, SctpPeer& p, const std::vector<uint8_t>& pd,
                 CmEvent* ev) {
  if (!tap.Check(p.Connect(h.To()) && p.Initiate(pd), n + ": SCTP association and Initiate",
                 std::strerror(errno)))
    return false;
  return h.Request(ev, n);
}

// rddp's Accept: DDP-SSN @ssn, IRD @ird and ORD @ord in its prefix (§3.2,
// RFC 6581 §9.1.1's rules), no ULP data.
void ExpectAccept(const std::string& n, SctpPeer& p, uint16_t ssn, uint16_t ird, uint16_t ord) {
  const Got& g = p.CollectCtrl(kFcAccept);
  const Got::Ctrl* a = g.Find(kFcAccept);
  rddp_sctp_conn c{};
  const bool ok =
      a && a->ssn == ssn &&
      rddp_sctp_conn_parse(a->pd.data(), static_cast<uint32_t>(a->pd.size()), &c) == RDDP_SCTP_OK &&
      c.ird == ird && c.ord == ord && c.ulp_len == 0;
  tap.Check(
      ok,
      n + ": rddp's Accept: DDP-SSN " + std::to_string(ssn) + ", IRD " + std::to_string(ird) +
          ", ORD " + std::to_string(ord),
      g.Str() + (a ? ", IRD " + std::to_string(c.ird) + " ORD " + std::to_string(c.ord) : ""));
}

// §2.2.3: zero-length private data in the Initiate: rddp's defaults, IRD =
// ORD = 1, reach the ULP; the victim's ORD stays within that IRD.
void ZeroLengthInitiate(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  CmEvent ev;
  if (!RequestWith(n, h, p, {}, &ev)) return;
  tap.Check(ev->param.conn.private_data_len == 0 || ev->param.conn.private_data == nullptr ||
                AllZero(static_cast<const uint8_t*>(ev->param.conn.private_data),
                        ev->param.conn.private_data_len),
            n + ": the request carries no private data");
  tap.Check(ev->param.conn.initiator_depth == 1 && ev->param.conn.responder_resources == 1,
            n + ": the request states the defaults: the peer's IRD 1, ORD 1",
            "IRD " + std::to_string(ev->param.conn.initiator_depth) + " ORD " +
                std::to_string(ev->param.conn.responder_resources));
  if (!h.Accept(std::move(ev), v, n)) return;
  ExpectAccept(n, p, 1, kDepth, 1);
  tap.Check(p.CollectCtrl(kFcAccept).adaptation == kAliDdpRdma,
            n + ": rddp's association indicates DDP+RDMA (§2.1)");
  ExpectSendPlaced(n, p, v);
}

// §3.2, §3.3: two rounds of Negotiate, each answered, then the session.
void NegotiateFirst(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  if (!tap.Check(p.Connect(h.To()), n + ": SCTP association", std::strerror(errno))) return;
  for (uint16_t round = 1; round <= 2; round++) {
    p.Ctrl(kFcNegotiate, {'r', 'o', 'u', 'n', 'd', static_cast<uint8_t>('0' + round)});
    const Got& g = p.Collect(kTimeoutMs, [round](const Got& x) {
      return std::count_if(x.ctrls.begin(), x.ctrls.end(),
                           [](const Got::Ctrl& c) { return c.fc == kFcNegotiate; }) >= round;
    });
    const bool ok = g.ctrls.size() == round && g.ctrls.back().fc == kFcNegotiate &&
                    g.ctrls.back().ssn == round && g.ctrls.back().pd.empty();
    tap.Check(ok,
              n + ": round " + std::to_string(round) + ": rddp answers with an empty Negotiate, " +
                  "DDP-SSN " + std::to_string(round) + " (§3.3)",
              g.Str());
  }
  h.ExpectNoRequest(n, 200);
  p.Initiate();
  CmEvent ev;
  if (!h.Request(&ev, n) || !h.Accept(std::move(ev), v, n)) return;
  ExpectAccept(n, p, 3, kDepth, kDepth);
  ExpectSendPlaced(n, p, v);
}

// §3.6: a Segment right after the Initiate (an active side may send once
// SCTP acknowledged it), before the Accept: placed once the ULP accepts.
void DataBeforeAccept(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  CmEvent ev;
  auto data = Pattern(300, 23);
  if (!tap.Check(p.Connect(h.To()) && p.Initiate() && p.Send(data),
                 n + ": association, Initiate and a Send at once", std::strerror(errno)) ||
      !h.Request(&ev, n))
    return;
  usleep(300000);  // the ULP takes its time
  if (!h.Accept(std::move(ev), v, n)) return;
  ExpectAccept(n, p, 1, kDepth, kDepth);
  auto wcs = v.Poll(1, kTimeoutMs);
  tap.Check(wcs.size() == 1 && wcs[0].status == IBV_WC_SUCCESS && wcs[0].byte_len == 300 &&
                std::equal(data.begin(), data.end(), v.recv->Data()),
            n + ": the Send is placed into the first receive",
            wcs.empty() ? "no completion" : "status " + std::to_string(wcs[0].status));
  p.NextMsn();
  ExpectSendPlaced(n, p, v);
}

// §3.4: the ULP rejects: rddp's Terminate answers the Initiate.
void UlpRejects(const std::string& n, SctpHarness& h, SctpPeer& p) {
  CmEvent ev;
  if (!RequestWith(n, h, p, ConnPd(kDepth, kDepth, kUlpPd), &ev)) return;
  rdma_cm_id* id = ev->id;
  ev.reset();
  tap.Zero(rdma_reject(id, nullptr, 0), n + ": rdma_reject");
  rdma_destroy_id(id);
  const Got& g = p.CollectEnd();
  const Got::Ctrl* t = g.Find(kFcTerminate);
  tap.Check(t && t->ssn == 1 && g.end == Got::End::kShutdown && !g.Find(kFcAccept),
            n + ": rddp's Terminate, DDP-SSN 1, then SHUTDOWN (§3.4)", g.Str());
}

// §5: the peer asks for 4 streams each way; the association has one (rddp
// asks for 1/1, SCTP takes the smaller), so SCTP itself refuses a chunk on
// stream 1, and the session on stream 0 goes on.
void OtherStream(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  if (!tap.Check(p.Connect(h.To(), kAliDdpRdma, 4) && p.Initiate(),
                 n + ": SCTP association asking for 4 streams, Initiate", std::strerror(errno)))
    return;
  const auto [in, out] = p.Streams();
  tap.Check(in == 1 && out == 1, n + ": the association has one stream each way (§5)",
            "in " + std::to_string(in) + " out " + std::to_string(out));
  CmEvent ev;
  if (!h.Request(&ev, n) || !h.Accept(std::move(ev), v, n)) return;
  ExpectAccept(n, p, 1, kDepth, kDepth);
  const uint16_t ssn = p.NextSsn();
  std::vector<uint8_t> seg = {static_cast<uint8_t>(ssn >> 8), static_cast<uint8_t>(ssn)};
  std::array<uint8_t, RDDP_DDP_UNTAGGED_HDR_LEN> hdr{};
  rddp_hdr sh = Untagged(RDDP_OP_SEND, 1, 0, true);
  seg.insert(seg.end(), hdr.begin(), hdr.begin() + rddp_hdr_build(&sh, hdr.data()));
  seg.resize(seg.size() + 16, 0x77);
  const bool sent = rddp_test::SendMessage(p.Fd(), kPpidSegment, seg, 1);
  tap.Check(!sent && errno == EINVAL, n + ": a Send on stream 1 cannot be sent: there is none",
            sent ? "sent" : std::strerror(errno));
  ExpectSendPlaced(n, p, v);
}

// ---- rddp as the Initiator (the device's transport: sctp) ----

// §3.2: an Accept with zero-length private data: the peer's IRD is the
// default, 1, so rddp keeps one Read Request in flight at a time.
void AcceptWithoutPd(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
  if (!InitiatedOut(h, p, v, n)) return;
  p.Ctrl(kFcAccept);
  CmEvent ev = NextEvent(h.Ch(), kTimeoutMs);
  if (!tap.Check(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED, n + ": ESTABLISHED",
                 ev ? rdma_event_str(ev->event) : "no event"))
    return;
  ev.reset();
  p.Clear();
  std::array<ibv_sge, 2> sge{};
  std::array<ibv_send_wr, 2> wr{};
  for (size_t i = 0; i < 2; i++) {
    sge[i] = {Addr(v.sink->Data() + 64 * i), 64, v.sink_mr->lkey};
    wr[i].wr_id = i;
    wr[i].opcode = IBV_WR_RDMA_READ;
    wr[i].send_flags = IBV_SEND_SIGNALED;
    wr[i].sg_list = &sge[i];
    wr[i].num_sge = 1;
    wr[i].wr.rdma.remote_addr = 0x10000 + 64 * i;
    wr[i].wr.rdma.rkey = 0x1234;
    if (i == 0) wr[i].next = &wr[1];
  }
  ibv_send_wr* bad = nullptr;
  if (!tap.Zero(ibv_post_send(v.id->qp, wr.data(), &bad), n + ": post two Reads")) return;
  const auto reads = [](const Got& g) {
    return std::count_if(g.segs.begin(), g.segs.end(), [](const Got::Seg& s) {
      return !s.hdr.tagged && s.hdr.opcode == RDDP_OP_READ_REQ;
    });
  };
  // The second Read Request may not come before the first is answered.
  const Got& g = p.Collect(1000, [&reads](const Got& x) { return reads(x) >= 2; });
  tap.Check(reads(g) == 1, n + ": one Read Request in flight: ORD 1 (the default IRD)", g.Str());
  auto data = Pattern(128, 55);
  for (size_t i = 0; i < 2; i++) {
    const Got& now = p.Collect(
        kTimeoutMs, [&reads, i](const Got& x) { return static_cast<size_t>(reads(x)) > i; });
    auto it = std::find_if(now.segs.begin(), now.segs.end(), [](const Got::Seg& s) {
      return !s.hdr.tagged && s.hdr.opcode == RDDP_OP_READ_REQ;
    });
    for (size_t k = 0; k < i && it != now.segs.end(); k++) {
      it = std::find_if(std::next(it), now.segs.end(), [](const Got::Seg& s) {
        return !s.hdr.tagged && s.hdr.opcode == RDDP_OP_READ_REQ;
      });
    }
    if (!tap.Check(it != now.segs.end() && it->payload.size() == RDDP_RDMAP_RREQ_LEN,
                   n + ": Read Request " + std::to_string(i + 1) + " arrives", now.Str()))
      return;
    rddp_read_req rq{};
    rddp_read_req_parse(it->payload.data(), &rq);
    p.Seg(Tagged(RDDP_OP_READ_RESP, rq.sink_stag, rq.sink_to, true), data.data() + 64 * i, 64);
  }
  auto wcs = v.Poll(2, kTimeoutMs);
  tap.Check(wcs.size() == 2 &&
                std::all_of(wcs.begin(), wcs.end(),
                            [](const ibv_wc& wc) { return wc.status == IBV_WC_SUCCESS; }) &&
                std::equal(data.begin(), data.end(), v.sink->Data()),
            n + ": both Reads complete with the data");
}

// §3.5: the peer answers (or crosses, @crossing) rddp's Initiate with an
// Initiate of its own: the session is up both ways, no Accept.
void BothActive(const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v, bool crossing) {
  const std::vector<uint8_t> why = {'b', 'o', 't', 'h', ' ', 'a', 'c', 't', 'i', 'v', 'e'};
  if (!h.ConnectOut(p, v, n)) return;
  if (crossing) p.Initiate(ConnPd(kDepth, kDepth, why));
  if (!ExpectInitiate(p, n)) return;
  if (!crossing) p.Initiate(ConnPd(kDepth, kDepth, why));
  CmEvent ev = NextEvent(h.Ch(), kTimeoutMs);
  const bool est = ev && ev->event == RDMA_CM_EVENT_ESTABLISHED;
  tap.Check(est && ev->param.conn.private_data_len >= why.size() &&
                std::memcmp(ev->param.conn.private_data, why.data(), why.size()) == 0,
            n + ": ESTABLISHED with the peer's private data",
            ev ? rdma_event_str(ev->event) : "no event");
  if (!est) return;
  ev.reset();
  auto data = Pattern(100, 77);
  v.PostSend(data, n);
  const Got& g = p.Collect(kTimeoutMs, [](const Got& x) { return !x.segs.empty(); });
  auto sent = v.Poll(1, kTimeoutMs);
  tap.Check(sent.size() == 1 && sent[0].status == IBV_WC_SUCCESS && sent[0].opcode == IBV_WC_SEND,
            n + ": the Send completes");
  tap.Check(!g.segs.empty() && g.segs[0].ssn == 2 && g.segs[0].hdr.opcode == RDDP_OP_SEND &&
                g.segs[0].hdr.msn == 1 && g.segs[0].payload == data,
            n + ": rddp's Send arrives, DDP-SSN 2 after its Initiate", g.Str());
  tap.Check(!g.Find(kFcAccept), n + ": rddp sends no Accept (§3.5)", g.Str());
  p.At(2);
  ExpectSendPlaced(n, p, v);
}

// rddp's connect ends with @want (REJECTED for -ECONNREFUSED, UNREACHABLE
// for a timeout); the peer sees rddp's session Terminate (DDP-SSN 2, after
// its Initiate) if @terminate, and SHUTDOWN.
void ExpectConnectEnds(const std::string& n, SctpHarness& h, SctpPeer& p, rdma_cm_event_type want,
                       bool terminate, int ms = kTimeoutMs) {
  CmEvent ev = NextEvent(h.Ch(), ms);
  tap.Check(ev && ev->event == want, n + ": rddp's connect ends: " + rdma_event_str(want),
            ev ? rdma_event_str(ev->event) : "no event");
  const Got& g = p.CollectEnd();
  const Got::Ctrl* t = g.Find(kFcTerminate);
  if (terminate) {
    tap.Check(t && t->ssn == 2, n + ": rddp ends the session with its Terminate, DDP-SSN 2",
              g.Str());
  } else {
    tap.Check(!t, n + ": no Terminate from rddp: the peer's ended the session", g.Str());
  }
  tap.Check(g.end == Got::End::kShutdown, n + ": then SHUTDOWN, not ABORT", g.Str());
}

const std::vector<SctpCase>& SetupCases() {
  static const std::vector<SctpCase> cases = {
      {"draft-ietf-rddp-sctp §4.1 an association without the Adaptation Layer Indication",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         ExpectAssociationRefused(n, h, p, std::nullopt);
       }},
      {"draft-ietf-rddp-sctp §8.1 an association indicating DDP without RDMA (1)",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         ExpectAssociationRefused(n, h, p, kAliDdp);
       }},
      {"draft-ietf-rddp-sctp §8.1 an association with another indication (0x12345678)",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         ExpectAssociationRefused(n, h, p, 0x12345678);
       }},
      {"draft-ietf-rddp-sctp §2.2.3 an Initiate with zero-length private data", ZeroLengthInitiate},
      {"draft-ietf-rddp-sctp §3.2 Negotiates before the Initiate, each answered (§3.3)",
       NegotiateFirst},
      {"draft-ietf-rddp-sctp §3.3 a negotiation-only session: the setup timeout ends it",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         tap.Check(p.Connect(h.To()) && p.Ctrl(kFcNegotiate), n + ": association, Negotiate");
         ExpectSessionRefused(n, h, p, false);
         tap.Check(p.CollectEnd().Find(kFcNegotiate) != nullptr, n + ": its Negotiate answered");
       }},
      {"draft-ietf-rddp-sctp §3.1 a peer that never sends its Initiate (the setup timeout)",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         tap.Check(p.Connect(h.To()), n + ": association");
         ExpectSessionRefused(n, h, p, false);
       }},
      {"draft-ietf-rddp-sctp §3.1 a DDP Segment before the Initiate",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         tap.Check(p.Connect(h.To()) && p.Send(Pattern(16, 1)), n + ": association, Send");
         ExpectSessionRefused(n, h, p, true);
       }},
      {"draft-ietf-rddp-sctp §3.1 an Accept where an Initiate is due",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         tap.Check(p.Connect(h.To()) && p.Ctrl(kFcAccept, ConnPd(4, 4, {})),
                   n + ": association, Accept");
         ExpectSessionRefused(n, h, p, true);
       }},
      {"draft-ietf-rddp-sctp §2.2.3 an unknown function code (5) before the Initiate",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         tap.Check(p.Connect(h.To()) && p.Raw(kPpidControl, CtrlBytes(1, 5)),
                   n + ": association, function code 5");
         ExpectSessionRefused(n, h, p, true);
       }},
      {"draft-ietf-rddp-sctp §3.4 an Initiate whose 2 octets of private data hold no IRD/ORD",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) {
         tap.Check(p.Connect(h.To()) && p.Initiate({0, 4}), n + ": association, Initiate");
         ExpectSessionRefused(n, h, p, true);
       }},
      {"draft-ietf-rddp-sctp §3.4 the ULP rejects the Initiate",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim&) { UlpRejects(n, h, p); }},
      {"draft-ietf-rddp-sctp §3.6 a Send before the Accept is placed once accepted",
       DataBeforeAccept},
      {"draft-ietf-rddp-sctp §5 data on a stream other than the negotiated one", OtherStream},
      {"draft-ietf-rddp-sctp §3.2 rddp as Initiator: an Accept with zero-length private data",
       AcceptWithoutPd},
      {"draft-ietf-rddp-sctp §3.5 active/active: the peer answers rddp's Initiate with its own",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         BothActive(n, h, p, v, false);
       }},
      {"draft-ietf-rddp-sctp §3.5 active/active: the peer's Initiate crosses rddp's",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         BothActive(n, h, p, v, true);
       }},
      {"draft-ietf-rddp-sctp §3.2 rddp as Initiator: the peer negotiates before its Accept",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         if (!InitiatedOut(h, p, v, n)) return;
         p.Ctrl(kFcNegotiate);
         p.Ctrl(kFcAccept, ConnPd(kDepth, kDepth, {}));
         CmEvent ev = NextEvent(h.Ch(), kTimeoutMs);
         tap.Check(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED, n + ": ESTABLISHED",
                   ev ? rdma_event_str(ev->event) : "no event");
         tap.Check(p.Collect(200, [](const Got&) { return false; }).ctrls.size() == 1,
                   n + ": rddp answers no Negotiate: its Initiate ended the negotiation",
                   p.CollectEnd(1).Str());
       }},
      {"draft-ietf-rddp-sctp §3.4 rddp as Initiator: a session Terminate rejects it",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         if (!InitiatedOut(h, p, v, n)) return;
         p.Ctrl(kFcTerminate);
         ExpectConnectEnds(n, h, p, RDMA_CM_EVENT_REJECTED, false);
       }},
      {"draft-ietf-rddp-sctp §3.1 rddp as Initiator: a DDP Segment where the Accept is due",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         if (!InitiatedOut(h, p, v, n)) return;
         p.Send(Pattern(16, 1));
         ExpectConnectEnds(n, h, p, RDMA_CM_EVENT_REJECTED, true);
       }},
      {"draft-ietf-rddp-sctp §3.1 rddp as Initiator: the peer never answers (the setup timeout)",
       [](const std::string& n, SctpHarness& h, SctpPeer& p, Victim& v) {
         if (!InitiatedOut(h, p, v, n)) return;
         ExpectConnectEnds(n, h, p, RDMA_CM_EVENT_UNREACHABLE, true, 3 * kTimeoutMs);
       }},
  };
  return cases;
}

}  // namespace

int SctpMode(const char* addr, const std::string& filter, int peer_timeout_ms) {
  g_peer_timeout_ms = peer_timeout_ms;
  SctpHarness h(addr);
  if (!tap.Check(h.Ready(), "sctp: listen on " + std::string(addr) + " and allocate a PD"))
    return tap.Finish();
  // One case, if @filter wants it: with a fresh peer and victim, in a
  // session the harness sets up first if @session.
  auto fresh = [&h, &filter](const std::string& n, bool session,
                             const std::function<void(SctpPeer&, Victim&)>& body) {
    if (n.find(filter) == std::string::npos) return;
    SctpPeer p;
    Victim v;
    if (!session || h.Connect(p, v, n)) body(p, v);
    p.Close();
    h.Drain();
  };
  for (const SctpCase& c : SetupCases())
    fresh(c.name, false, [&](SctpPeer& p, Victim& v) { c.run(c.name, h, p, v); });
  for (const SctpCase& c : SessionCases())
    fresh(c.name, true, [&](SctpPeer& p, Victim& v) { c.run(c.name, h, p, v); });
  // After every case, a well-behaved session still works.
  const std::string last = "a fresh session over SCTP after the cases";
  fresh(last, true, [&last](SctpPeer& p, Victim& v) { ExpectSendPlaced(last, p, v); });
  return tap.Finish();
}

}  // namespace rddp_hostile
