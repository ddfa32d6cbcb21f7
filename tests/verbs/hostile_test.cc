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
//   rddp_hostile ADDR
extern "C" {
#include <rddp/mpa.h>
#include <rddp/mpa_frame.h>
#include <rddp/rdmap.h>
}

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tap.h"

namespace {

using rddp_test::Tap;
using Clock = std::chrono::steady_clock;

Tap tap;

constexpr uint8_t kGuard = 0xA5;
constexpr size_t kGuardLen = 256;
constexpr uint32_t kTargetLen = 4096;  // the victim's tagged buffer (its MR)
constexpr uint32_t kRecvLen = 1024;    // each posted receive
constexpr int kRecvs = 4;
constexpr int kTimeoutMs = 10000;

// RFC 5040 §4.8 / RFC 5041 §7.2 / RFC 5044 §8 Terminate fields.
struct TermWant {
  uint8_t layer;
  uint8_t etype;
  uint8_t ecode;
};
constexpr TermWant kDdpInvalidStag{1, 1, 0x00};
constexpr TermWant kDdpBaseBounds{1, 1, 0x01};
constexpr TermWant kDdpToWrap{1, 1, 0x03};
constexpr TermWant kDdpInvalidQn{1, 2, 0x01};
constexpr TermWant kDdpNoBuffer{1, 2, 0x02};
constexpr TermWant kDdpMsnRange{1, 2, 0x03};
constexpr TermWant kDdpInvalidMo{1, 2, 0x04};
constexpr TermWant kDdpTooLong{1, 2, 0x05};
constexpr TermWant kRdmapUnexpectedOpcode{0, 2, 0x06};
constexpr TermWant kLlpCrc{2, 0, 0x02};
constexpr TermWant kLlpNoMatchingRtr{2, 0, 0x07};

uint64_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

std::string Hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof(b), "0x%x", v);
  return b;
}

struct CmEventDeleter {
  void operator()(rdma_cm_event* ev) const { rdma_ack_cm_event(ev); }
};
using CmEvent = std::unique_ptr<rdma_cm_event, CmEventDeleter>;

// The next cm event within @ms, or nullptr.
CmEvent NextEvent(rdma_event_channel* ch, int ms) {
  pollfd pfd{ch->fd, POLLIN, 0};
  if (poll(&pfd, 1, ms) <= 0) return nullptr;
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(ch, &ev)) return nullptr;
  return CmEvent(ev);
}

// A buffer with guard bytes on both sides of its useful part.
class Guarded {
 public:
  explicit Guarded(size_t len) : len_(len), mem_(len + 2 * kGuardLen, kGuard) {
    std::fill_n(Data(), len, 0);
  }
  uint8_t* Data() { return mem_.data() + kGuardLen; }
  size_t Len() const { return len_; }
  bool GuardsIntact() const {
    return std::all_of(mem_.begin(), mem_.begin() + kGuardLen,
                       [](uint8_t b) { return b == kGuard; }) &&
           std::all_of(mem_.end() - kGuardLen, mem_.end(), [](uint8_t b) { return b == kGuard; });
  }

 private:
  size_t len_;
  std::vector<uint8_t> mem_;
};

// The rddp side of one connection.
struct Victim {
  rdma_cm_id* id = nullptr;
  ibv_cq* cq = nullptr;
  ibv_mr* target_mr = nullptr;
  ibv_mr* recv_mr = nullptr;
  ibv_mr* sink_mr = nullptr;
  bool use_srq = false;  // receives on an SRQ of another PD than the QP's
  ibv_srq* srq = nullptr;
  std::unique_ptr<Guarded> target = std::make_unique<Guarded>(kTargetLen);
  std::unique_ptr<Guarded> recv = std::make_unique<Guarded>(kRecvLen * kRecvs);
  std::unique_ptr<Guarded> sink = std::make_unique<Guarded>(kTargetLen);

  ~Victim() {
    if (id && id->qp) rdma_destroy_qp(id);
    if (id) rdma_destroy_id(id);
    if (srq) ibv_destroy_srq(srq);
    if (cq) ibv_destroy_cq(cq);
    for (ibv_mr* m : {target_mr, recv_mr, sink_mr})
      if (m) ibv_dereg_mr(m);
  }
  Victim() = default;
  Victim(const Victim&) = delete;
  Victim& operator=(const Victim&) = delete;

  bool GuardsIntact() const {
    return target->GuardsIntact() && recv->GuardsIntact() && sink->GuardsIntact();
  }
  ibv_qp_state State() const {
    ibv_qp_attr a{};
    ibv_qp_init_attr ia{};
    if (ibv_query_qp(id->qp, &a, IBV_QP_STATE, &ia)) return IBV_QPS_UNKNOWN;
    return a.qp_state;
  }
  // Completions within @ms until @n have arrived or the time is up.
  std::vector<ibv_wc> Poll(size_t n, int ms) const {
    std::vector<ibv_wc> out;
    auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (out.size() < n && Clock::now() < end) {
      ibv_wc wc{};
      int got = ibv_poll_cq(cq, 1, &wc);
      if (got == 1) {
        out.push_back(wc);
      } else {
        usleep(1000);
      }
    }
    return out;
  }
  // The QP reaches @want within @ms.
  bool WaitState(ibv_qp_state want, int ms) const {
    auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < end) {
      if (State() == want) return true;
      usleep(2000);
    }
    return State() == want;
  }
};

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
  }
  Peer() = default;
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  bool Connect(const sockaddr_in& to) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd_ >= 0 && connect(fd_, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) == 0;
  }
  // RFC 5044 §7.1.1 / RFC 6581 §9.1.1: a revision-2 Request with CRC,
  // peer-to-peer, IRD = ORD = 4 and the RTR kinds @rtr offered.
  bool SendRequest(uint8_t rtr) {
    rddp_mpa_frame f{};
    f.type = RDDP_MPA_REQUEST;
    f.rev = 2;
    f.crc = true;
    f.enhanced = true;
    f.p2p = true;
    f.rtr = rtr;
    f.ird = 4;
    f.ord = 4;
    uint8_t buf[RDDP_MPA_FRAME_MAX];
    int n = rddp_mpa_frame_build(&f, buf, sizeof(buf));
    return n > 0 && WriteAll(buf, static_cast<size_t>(n));
  }
  // Reads the Reply; bytes after it are FPDUs, kept for the deframer.
  bool ReadReply(rddp_mpa_frame* f) {
    rddp_mpa_frame_rx rx{};
    rddp_mpa_frame_rx_init(&rx, RDDP_MPA_REPLY, 2);
    uint8_t buf[2048];
    while (true) {
      ssize_t n = ReadSome(buf, sizeof(buf), kTimeoutMs);
      if (n <= 0) return false;
      uint32_t used = 0;
      int r = rddp_mpa_frame_rx_feed(&rx, buf, static_cast<uint32_t>(n), &used, f);
      if (r == RDDP_MPA_FRAME_MORE) continue;
      if (r != RDDP_MPA_FRAME_OK) return false;
      pending_.assign(buf + used, buf + n);
      crc_ = f->crc;
      rddp_mpa_rx_init(&rx_, f->markers, f->crc, 65535);
      tx_ = rddp_mpa_tx{f->markers, f->crc, 0};
      return true;
    }
  }
  // One FPDU around the DDP/RDMAP header @h and @payload.
  bool Send(const rddp_hdr& h, const uint8_t* payload, uint32_t len) {
    uint8_t hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
    uint32_t hl = rddp_hdr_build(&h, hdr);
    last_ulpdu_ = hl + len;
    auto f = std::make_unique<rddp_fpdu>();
    if (rddp_fpdu_build(&tx_, f.get(), hdr, hl, payload, len)) return false;
    std::vector<uint8_t> wire;
    for (uint32_t i = 0; i < f->nr_spans; i++) {
      const uint8_t* b = f->span[i].base;
      wire.insert(wire.end(), b, b + f->span[i].len);
    }
    if (corrupt_crc_ && crc_) wire.back() ^= 0xff;
    return WriteAll(wire.data(), wire.size());
  }
  bool Send(const rddp_hdr& h, const std::vector<uint8_t>& payload) {
    return Send(h, payload.data(), static_cast<uint32_t>(payload.size()));
  }
  void CorruptNextCrc(bool on) { corrupt_crc_ = on; }
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

 private:
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
  bool crc_ = true;
  bool corrupt_crc_ = false;
  uint32_t last_ulpdu_ = 0;
  rddp_mpa_rx rx_{};
  rddp_mpa_tx tx_{};
  std::vector<uint8_t> pending_;
  Received* feed_ = nullptr;
};

// Header builders (RFC 5041 §4.2, §4.3; RFC 5040 §4.3).
rddp_hdr Untagged(uint8_t opcode, uint32_t msn, uint32_t mo, bool last, uint32_t qn = 0) {
  rddp_hdr h{};
  h.opcode = opcode;
  h.last = last;
  h.qn = qn;
  h.msn = msn;
  h.mo = mo;
  return h;
}
rddp_hdr Tagged(uint8_t opcode, uint32_t stag, uint64_t to, bool last) {
  rddp_hdr h{};
  h.opcode = opcode;
  h.tagged = true;
  h.last = last;
  h.stag = stag;
  h.to = to;
  return h;
}

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

class Harness {
 public:
  explicit Harness(const char* addr) {
    ch_ = rdma_create_event_channel();
    if (!ch_ || rdma_create_id(ch_, &listen_, nullptr, RDMA_PS_TCP)) return;
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) return;
    if (rdma_bind_addr(listen_, reinterpret_cast<sockaddr*>(&sin)) || rdma_listen(listen_, 8))
      return;
    to_ = sin;
    to_.sin_port = rdma_get_src_port(listen_);
    pd_ = ibv_alloc_pd(listen_->verbs);
    pd2_ = ibv_alloc_pd(listen_->verbs);
  }
  ~Harness() {
    if (pd2_) ibv_dealloc_pd(pd2_);
    if (pd_) ibv_dealloc_pd(pd_);
    if (listen_) rdma_destroy_id(listen_);
    if (ch_) rdma_destroy_event_channel(ch_);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;
  bool Ready() const { return pd_ != nullptr && pd2_ != nullptr; }

  // A fresh connection: the peer's Request, the victim's accept with
  // receives posted, the Reply, the RTR the Reply selected, ESTABLISHED.
  // With @send_rtr false the case sends the RTR (or what stands for it).
  bool Connect(Peer& p, Victim& v, const std::string& name, uint8_t offer, bool send_rtr) {
    if (!p.Connect(to_) || !p.SendRequest(offer))
      return tap.Check(false, name + ": TCP connect and MPA Request", std::strerror(errno));
    CmEvent ev = NextEvent(ch_, kTimeoutMs);
    if (!ev || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
      return tap.Check(false, name + ": the listener sees the Request");
    v.id = ev->id;
    ev.reset();
    v.cq = ibv_create_cq(v.id->verbs, 64, nullptr, nullptr, 0);
    constexpr int kRemote =
        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    v.target_mr = ibv_reg_mr(pd_, v.target->Data(), kTargetLen, kRemote);
    // With an SRQ the receive buffers belong to the SRQ's PD (IB spec
    // 10.2.9: an SRQ has a PD of its own), which is not the QP's.
    ibv_pd* rpd = v.use_srq ? pd2_ : pd_;
    v.recv_mr = ibv_reg_mr(rpd, v.recv->Data(), v.recv->Len(), IBV_ACCESS_LOCAL_WRITE);
    if (v.use_srq) {
      ibv_srq_init_attr sa{};
      sa.attr.max_wr = 16;
      sa.attr.max_sge = 1;
      v.srq = ibv_create_srq(pd2_, &sa);
      if (!v.srq) return tap.Check(false, name + ": victim SRQ", std::strerror(errno));
    }
    v.sink_mr = ibv_reg_mr(pd_, v.sink->Data(), kTargetLen, IBV_ACCESS_LOCAL_WRITE);
    ibv_qp_init_attr qa{};
    qa.send_cq = v.cq;
    qa.recv_cq = v.cq;
    qa.qp_type = IBV_QPT_RC;
    qa.cap = {16, 16, 1, 1, 0};
    qa.srq = v.srq;
    if (!v.cq || !v.target_mr || !v.recv_mr || !v.sink_mr || rdma_create_qp(v.id, pd_, &qa))
      return tap.Check(false, name + ": victim QP and MRs", std::strerror(errno));
    for (int i = 0; i < kRecvs; i++) {
      ibv_sge sge{Addr(v.recv->Data() + static_cast<size_t>(i) * kRecvLen), kRecvLen,
                  v.recv_mr->lkey};
      ibv_recv_wr wr{};
      ibv_recv_wr* bad = nullptr;
      wr.wr_id = static_cast<uint64_t>(i);
      wr.sg_list = &sge;
      wr.num_sge = 1;
      if (v.srq ? ibv_post_srq_recv(v.srq, &wr, &bad) : ibv_post_recv(v.id->qp, &wr, &bad))
        return tap.Check(false, name + ": post receives", std::strerror(errno));
    }
    rdma_conn_param cp{};
    cp.responder_resources = 4;
    cp.initiator_depth = 4;
    if (rdma_accept(v.id, &cp))
      return tap.Check(false, name + ": rdma_accept", std::strerror(errno));
    rddp_mpa_frame reply{};
    if (!p.ReadReply(&reply) || reply.reject)
      return tap.Check(false, name + ": an MPA Reply accepting the Request");
    rtr_ = reply.rtr;
    if (send_rtr) {
      // RFC 6581 §9.1.1: the Initiator sends the RTR the Reply selected.
      bool ok = true;
      if (reply.rtr & RDDP_MPA_RTR_WRITE) {
        ok = p.Send(Tagged(RDDP_OP_WRITE, 0, 0, true), nullptr, 0);
      } else if (reply.rtr & RDDP_MPA_RTR_SEND) {
        ok = p.Send(Untagged(RDDP_OP_SEND, 1, 0, true), nullptr, 0);
        send_msn_ = 2;
      } else if (reply.rtr & RDDP_MPA_RTR_READ) {
        return tap.Check(false, name + ": the Reply selects a Write or Send RTR",
                         "RTR bits " + Hex(reply.rtr));
      }
      if (!ok) return tap.Check(false, name + ": send the RTR", std::strerror(errno));
    }
    // rddp reports the connection established once its Reply is sent,
    // siw once the RTR is in: a case that sends no proper RTR does not
    // wait for it (a late event is drained after the case).
    ev = NextEvent(ch_, send_rtr ? kTimeoutMs : 500);
    if (send_rtr && (!ev || ev->event != RDMA_CM_EVENT_ESTABLISHED))
      return tap.Check(false, name + ": connection established");
    return true;
  }
  uint32_t SendMsn() const { return send_msn_; }
  uint8_t Rtr() const { return rtr_; }
  void ResetMsn() { send_msn_ = 1; }
  // Events left over (DISCONNECTED) are acknowledged and dropped.
  void Drain() {
    while (NextEvent(ch_, 50)) {
    }
  }
  ibv_pd* Pd() const { return pd_; }

 private:
  rdma_event_channel* ch_ = nullptr;
  rdma_cm_id* listen_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_pd* pd2_ = nullptr;  // an SRQ's, for the SRQ case
  sockaddr_in to_{};
  uint32_t send_msn_ = 1;
  uint8_t rtr_ = 0;
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
  tap.Check(r.term && r.term->layer == want.layer && r.term->etype == want.etype &&
                r.term->ecode == want.ecode,
            name + ": Terminate layer " + std::to_string(want.layer) + " type " +
                std::to_string(want.etype) + " code " + Hex(want.ecode),
            "got " + TermStr(r));
  if (r.term && hdr_copied) {
    tap.Check(r.term->d && (r.term->ddp_hdr_len == RDDP_DDP_TAGGED_HDR_LEN ||
                            r.term->ddp_hdr_len == RDDP_DDP_UNTAGGED_HDR_LEN),
              name + ": the Terminate copies the offending DDP header (RFC 5040 §4.8)");
    tap.Check(r.term->m && r.term->seg_len == p.LastUlpdu(),
              name + ": its DDP Segment Length is the segment's ULPDU length (RFC 5040 §4.8)",
              "M " + std::to_string(r.term->m) + ", length " + std::to_string(r.term->seg_len) +
                  ", sent " + std::to_string(p.LastUlpdu()));
  }
  tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), name + ": the victim's QP is in ERROR");
  std::vector<ibv_wc> wcs = v.Poll(kRecvs, kTimeoutMs);
  bool flushed = !wcs.empty() && std::all_of(wcs.begin(), wcs.end(), [](const ibv_wc& wc) {
    return wc.status != IBV_WC_SUCCESS;
  });
  tap.Check(flushed, name + ": the posted receives complete in error",
            std::to_string(wcs.size()) + " completions");
  tap.Check(v.GuardsIntact(), name + ": no byte placed outside the buffers");
}

struct Case {
  const char* name;
  std::function<void(const std::string&, Harness&, Peer&, Victim&)> run;
  uint8_t offer = RDDP_MPA_RTR_ALL;  // RTR kinds the Request offers
  bool send_rtr = true;              // false: the case sends what stands for it
  bool srq = false;                  // the victim receives on an SRQ of another PD
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"RFC 5040 §5.3 Send: placed and completed",
       [](const std::string& n, Harness& h, Peer& p, Victim& v) {
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
         tap.Check(r.term && r.term->layer == kDdpNoBuffer.layer &&
                       r.term->etype == kDdpNoBuffer.etype && r.term->ecode == kDdpNoBuffer.ecode,
                   n + ": Terminate layer 1 type 2 code 0x2", "got " + TermStr(r));
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
       }},
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
  tap.Check(t.term && t.term->layer == c.want.layer && t.term->etype == c.want.etype &&
                t.term->ecode == c.want.ecode,
            n + ": Terminate layer " + std::to_string(c.want.layer) + " type " +
                std::to_string(c.want.etype) + " code " + Hex(c.want.ecode),
            "got " + TermStr(t));
  tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), n + ": the victim's QP is in ERROR");
  tap.Check(v.GuardsIntact() && v.sink->Data()[c.size] == 0xEE,
            n + ": nothing placed beyond the sink");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ADDR\n", argv[0]);
    return 2;
  }
  Harness h(argv[1]);
  if (!tap.Check(h.Ready(), "listen on " + std::string(argv[1]) + " and allocate a PD"))
    return tap.Finish();
  auto fresh = [&h](const std::string& name, const std::function<void(Peer&, Victim&)>& body,
                    uint8_t offer = RDDP_MPA_RTR_ALL, bool send_rtr = true, bool srq = false) {
    Peer p;
    Victim v;
    v.use_srq = srq;
    h.ResetMsn();
    if (h.Connect(p, v, name, offer, send_rtr)) body(p, v);
    p.Close();
    h.Drain();
  };
  for (const Case& c : Cases()) {
    auto body = [&](Peer& p, Victim& v) { c.run(c.name, h, p, v); };
    fresh(c.name, body, c.offer, c.send_rtr, c.srq);
  }
  for (const ReadCase& c : ReadCases()) {
    fresh(c.name, [&](Peer& p, Victim& v) { RunRead(c, p, v); });
  }
  // After every case, a well-behaved connection still works.
  fresh("a fresh connection after the cases",
        [&](Peer& p, Victim& v) { Cases()[0].run("a fresh connection after the cases", h, p, v); });
  return tap.Finish();
}
