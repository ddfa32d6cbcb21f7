// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// What rddp_hostile's transports share (hostile_test.cc: MPA over TCP;
// hostile_sctp.cc: DDP over SCTP): the TAP output, the victim (an ordinary
// librdmacm server's QP, CQ and MRs, each buffer fenced by guard bytes
// outside its MR), the Terminate fields the RFCs prescribe, and the DDP
// header builders.
#ifndef RDDP_TESTS_VERBS_HOSTILE_H
#define RDDP_TESTS_VERBS_HOSTILE_H

extern "C" {
#include <rddp/rdmap.h>
}

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tap.h"

namespace rddp_hostile {

using Clock = std::chrono::steady_clock;

// One TAP stream for the whole program, whichever transport it speaks.
inline rddp_test::Tap tap;

constexpr uint8_t kGuard = 0xA5;
constexpr size_t kGuardLen = 256;
constexpr uint32_t kTargetLen = 4096;  // the victim's tagged buffer (its MR)
constexpr uint32_t kRecvLen = 1024;    // each posted receive
constexpr int kRecvs = 4;
constexpr int kTimeoutMs = 10000;
// The IRD and ORD of both ends: the victim's rdma_accept or rdma_connect,
// the SCTP peer's Initiate or Accept.
constexpr uint16_t kDepth = 4;

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
constexpr TermWant kDdpCatastrophic{1, 0, 0x00};
constexpr TermWant kDdpStagStream{1, 1, 0x02};
constexpr TermWant kDdpTaggedVersion{1, 1, 0x04};
constexpr TermWant kDdpUntaggedVersion{1, 2, 0x06};
constexpr TermWant kRdmapInvalidStag{0, 1, 0x00};
constexpr TermWant kRdmapBaseBounds{0, 1, 0x01};
constexpr TermWant kRdmapAccess{0, 1, 0x02};
constexpr TermWant kRdmapStagStream{0, 1, 0x03};
constexpr TermWant kRdmapToWrap{0, 1, 0x04};
constexpr TermWant kRdmapCannotInvalidate{0, 1, 0x09};
constexpr TermWant kRdmapVersion{0, 2, 0x05};
constexpr TermWant kRdmapUnspecified{0, 2, 0xff};

inline uint64_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

inline std::string Hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof(b), "0x%x", v);
  return b;
}

// A Terminate came, with @want's layer, type and code.
inline bool TermIs(const std::optional<rddp_term>& t, TermWant want) {
  return t && t->layer == want.layer && t->etype == want.etype && t->ecode == want.ecode;
}
// "Terminate layer L type T code 0xC": the check's name for @want.
inline std::string TermName(TermWant want) {
  return "Terminate layer " + std::to_string(want.layer) + " type " + std::to_string(want.etype) +
         " code " + Hex(want.ecode);
}

struct CmEventDeleter {
  void operator()(rdma_cm_event* ev) const { rdma_ack_cm_event(ev); }
};
using CmEvent = std::unique_ptr<rdma_cm_event, CmEventDeleter>;

// The next cm event within @ms, or nullptr.
inline CmEvent NextEvent(rdma_event_channel* ch, int ms) {
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
  ibv_mr* other_mr = nullptr;  // remotely accessible, in another PD
  bool use_srq = false;        // receives on an SRQ of another PD than the QP's
  ibv_srq* srq = nullptr;
  std::unique_ptr<Guarded> target = std::make_unique<Guarded>(kTargetLen);
  std::unique_ptr<Guarded> recv = std::make_unique<Guarded>(kRecvLen * kRecvs);
  std::unique_ptr<Guarded> sink = std::make_unique<Guarded>(kTargetLen);
  std::unique_ptr<Guarded> other = std::make_unique<Guarded>(kTargetLen);

  ~Victim() {
    if (id && id->qp) rdma_destroy_qp(id);
    if (id) rdma_destroy_id(id);
    if (srq) ibv_destroy_srq(srq);
    if (cq) ibv_destroy_cq(cq);
    for (ibv_mr* m : {target_mr, recv_mr, sink_mr, other_mr})
      if (m) ibv_dereg_mr(m);
  }
  Victim() = default;
  Victim(const Victim&) = delete;
  Victim& operator=(const Victim&) = delete;

  bool GuardsIntact() const {
    return target->GuardsIntact() && recv->GuardsIntact() && sink->GuardsIntact() &&
           other->GuardsIntact();
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
  // A signaled Send of @data, copied into the sink first.
  bool PostSend(const std::vector<uint8_t>& data, const std::string& name) const {
    std::copy(data.begin(), data.end(), sink->Data());
    ibv_sge sge{Addr(sink->Data()), static_cast<uint32_t>(data.size()), sink_mr->lkey};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    return tap.Zero(ibv_post_send(id->qp, &wr, &bad), name + ": post a Send");
  }
};

// Header builders (RFC 5041 §4.2, §4.3; RFC 5040 §4.3).
inline rddp_hdr Untagged(uint8_t opcode, uint32_t msn, uint32_t mo, bool last, uint32_t qn = 0) {
  rddp_hdr h{};
  h.opcode = opcode;
  h.last = last;
  h.qn = qn;
  h.msn = msn;
  h.mo = mo;
  return h;
}
inline rddp_hdr Tagged(uint8_t opcode, uint32_t stag, uint64_t to, bool last) {
  rddp_hdr h{};
  h.opcode = opcode;
  h.tagged = true;
  h.last = last;
  h.stag = stag;
  h.to = to;
  return h;
}

inline std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

// @pred holds within @ms.
inline bool WaitFor(const std::function<bool()>& pred, int ms) {
  auto end = Clock::now() + std::chrono::milliseconds(ms);
  while (!pred() && Clock::now() < end) usleep(1000);
  return pred();
}

inline bool AllZero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// The victim's CQ, MRs and QP on v.id, receives posted: its MRs in @pd
// (the QP's), @pd2 another PD's (an SRQ's, and the MR of another PD).
inline bool BuildVictim(Victim& v, ibv_pd* pd, ibv_pd* pd2, const std::string& name) {
  v.cq = ibv_create_cq(v.id->verbs, 64, nullptr, nullptr, 0);
  constexpr int kRemote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  v.target_mr = ibv_reg_mr(pd, v.target->Data(), kTargetLen, kRemote);
  // With an SRQ the receive buffers belong to the SRQ's PD (IB spec
  // 10.2.9: an SRQ has a PD of its own), which is not the QP's.
  ibv_pd* rpd = v.use_srq ? pd2 : pd;
  v.recv_mr = ibv_reg_mr(rpd, v.recv->Data(), v.recv->Len(), IBV_ACCESS_LOCAL_WRITE);
  if (v.use_srq) {
    ibv_srq_init_attr sa{};
    sa.attr.max_wr = 16;
    sa.attr.max_sge = 1;
    v.srq = ibv_create_srq(pd2, &sa);
    if (!v.srq) return tap.Check(false, name + ": victim SRQ", std::strerror(errno));
  }
  v.sink_mr = ibv_reg_mr(pd, v.sink->Data(), kTargetLen, IBV_ACCESS_LOCAL_WRITE);
  v.other_mr = ibv_reg_mr(pd2, v.other->Data(), kTargetLen, kRemote);
  ibv_qp_init_attr qa{};
  qa.send_cq = v.cq;
  qa.recv_cq = v.cq;
  qa.qp_type = IBV_QPT_RC;
  qa.cap = {16, 16, 1, 1, 0};
  qa.srq = v.srq;
  if (!v.cq || !v.target_mr || !v.recv_mr || !v.sink_mr || !v.other_mr ||
      rdma_create_qp(v.id, pd, &qa))
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
  return true;
}
// RFC 5040 §4.4: a Read Request's payload asking for @size octets of
// @stag at @to, into a sink (STag 0x4400, TO 0x1000) the victim never
// checks.
inline std::vector<uint8_t> ReadReqPayload(uint32_t stag, uint64_t to, uint32_t size) {
  rddp_read_req r{};
  r.sink_stag = 0x4400;
  r.sink_to = 0x1000;
  r.size = size;
  r.src_stag = stag;
  r.src_to = to;
  std::vector<uint8_t> b(RDDP_RDMAP_RREQ_LEN);
  rddp_read_req_build(&r, b.data());
  return b;
}

// A Terminate copies the offending segment (RFC 5040 §4.8): its DDP
// header, and its DDP Segment Length, which must be @sent (@what: how the
// check names that length).
inline void ExpectTermCopies(const std::string& name, const rddp_term& t, uint32_t sent,
                             const std::string& what) {
  tap.Check(t.d && (t.ddp_hdr_len == RDDP_DDP_TAGGED_HDR_LEN ||
                    t.ddp_hdr_len == RDDP_DDP_UNTAGGED_HDR_LEN),
            name + ": the Terminate copies the offending DDP header (RFC 5040 §4.8)");
  tap.Check(t.m && t.seg_len == sent,
            name + ": its DDP Segment Length is " + what + " (RFC 5040 §4.8)",
            "M " + std::to_string(t.m) + ", length " + std::to_string(t.seg_len) + ", sent " +
                std::to_string(sent));
}

// The victim after the Terminate it sent (RFC 5040 §5.3): the QP in ERROR,
// the posted receives completing in error, nothing placed outside a buffer.
inline void ExpectVictimTerminated(const std::string& name, const Victim& v) {
  tap.Check(v.WaitState(IBV_QPS_ERR, kTimeoutMs), name + ": the victim's QP is in ERROR");
  std::vector<ibv_wc> wcs = v.Poll(kRecvs, kTimeoutMs);
  const bool flushed = !wcs.empty() && std::all_of(wcs.begin(), wcs.end(), [](const ibv_wc& wc) {
    return wc.status != IBV_WC_SUCCESS;
  });
  tap.Check(flushed, name + ": the posted receives complete in error",
            std::to_string(wcs.size()) + " completions");
  tap.Check(v.GuardsIntact(), name + ": no byte placed outside the buffers");
}

// The victim's QP reaches ERROR within @ms and each of the @recvs receives
// still posted completes in error; nothing placed outside a buffer.
inline void ExpectQpFlushed(const std::string& name, const Victim& v, int ms,
                            size_t recvs = kRecvs) {
  tap.Check(v.WaitState(IBV_QPS_ERR, ms), name + ": the victim's QP is in ERROR");
  auto wcs = v.Poll(recvs, kTimeoutMs);
  tap.Check(wcs.size() == recvs &&
                std::all_of(wcs.begin(), wcs.end(),
                            [](const ibv_wc& wc) { return wc.status != IBV_WC_SUCCESS; }),
            name + ": every posted receive completes in error",
            std::to_string(wcs.size()) + " completions");
  tap.Check(v.GuardsIntact(), name + ": guards intact");
}

// The peer's listening socket @fd for rddp's connect: bound to @addr's
// address on a port of its own, listening. The port (network order), 0 on
// failure.
inline uint16_t ListenOn(int fd, const sockaddr_in& addr) {
  sockaddr_in a = addr;
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) || listen(fd, 1) ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len))
    return 0;
  return a.sin_port;
}
// The connection the listening @lfd takes within @ms, or -1.
inline int AcceptWithin(int lfd, int ms) {
  pollfd pfd{lfd, POLLIN, 0};
  if (poll(&pfd, 1, ms) != 1) return -1;
  return accept(lfd, nullptr, nullptr);
}

// The victim's side of either transport: a librdmacm listener on ADDR
// (rddp listens on TCP, and on SCTP where the device's transport allows,
// on its port), the PDs of the victims' QPs and MRs (a second one for an
// SRQ's and another PD's MR), and rddp's active side towards the peer's
// listener. hostile_test.cc's Harness (MPA over TCP) and hostile_sctp.cc's
// SctpHarness add their transport's setup.
class VictimSide {
 public:
  explicit VictimSide(const char* addr) {
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
  ~VictimSide() {
    if (pd2_) ibv_dealloc_pd(pd2_);
    if (pd_) ibv_dealloc_pd(pd_);
    if (listen_) rdma_destroy_id(listen_);
    if (ch_) rdma_destroy_event_channel(ch_);
  }
  VictimSide(const VictimSide&) = delete;
  VictimSide& operator=(const VictimSide&) = delete;
  bool Ready() const { return pd_ != nullptr && pd2_ != nullptr; }
  const sockaddr_in& To() const { return to_; }
  rdma_event_channel* Ch() const { return ch_; }
  ibv_pd* Pd() const { return pd_; }

  // The victim's CQ, MRs and QP on v.id, receives posted.
  bool BuildVictim(Victim& v, const std::string& name) {
    return rddp_hostile::BuildVictim(v, pd_, pd2_, name);
  }
  // The victim takes the connection request @ev: its cm_id, QP, MRs and
  // receives; rdma_accept is the caller's.
  bool TakeRequest(CmEvent ev, Victim& v, const std::string& name) {
    v.id = ev->id;
    ev.reset();
    return BuildVictim(v, name);
  }
  // rddp as the active side: v.id resolves its way to @port (network
  // order; 0: the peer has no listener, @listener names it) on To()'s
  // address, and the victim's QP, MRs and receives are built on it;
  // rdma_connect is the caller's.
  bool Dial(Victim& v, uint16_t port, const std::string& name, const std::string& listener) {
    sockaddr_in dst = to_;
    dst.sin_port = port;
    sockaddr_in src = to_;
    src.sin_port = 0;
    if (!dst.sin_port || rdma_create_id(ch_, &v.id, nullptr, RDMA_PS_TCP) ||
        rdma_resolve_addr(v.id, reinterpret_cast<sockaddr*>(&src),
                          reinterpret_cast<sockaddr*>(&dst), kTimeoutMs)) {
      return tap.Check(false, name + ": " + listener + " and rdma_resolve_addr",
                       std::strerror(errno));
    }
    CmEvent ev = NextEvent(ch_, kTimeoutMs);
    if (!ev || ev->event != RDMA_CM_EVENT_ADDR_RESOLVED || rdma_resolve_route(v.id, kTimeoutMs))
      return tap.Check(false, name + ": address resolved");
    ev = NextEvent(ch_, kTimeoutMs);
    if (!ev || ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) return tap.Check(false, name + ": route");
    ev.reset();
    return BuildVictim(v, name);
  }
  // The listener's ULP hears of no connection request within @ms (one
  // that comes is rejected).
  void ExpectNoRequest(const std::string& name, int ms) {
    CmEvent ev = NextEvent(ch_, ms);
    tap.Check(!ev, name + ": the listener's ULP sees no connection request",
              ev ? rdma_event_str(ev->event) : "");
    if (ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
      rdma_cm_id* id = ev->id;
      ev.reset();
      rdma_reject(id, nullptr, 0);
      rdma_destroy_id(id);
    }
  }
  // Events left over (DISCONNECTED) are acknowledged and dropped.
  void Drain() {
    while (NextEvent(ch_, 50)) {
    }
  }
  // IRD = ORD = kDepth: the victim's rdma_accept and rdma_connect.
  static rdma_conn_param Depths() {
    rdma_conn_param cp{};
    cp.responder_resources = kDepth;
    cp.initiator_depth = kDepth;
    return cp;
  }

 private:
  rdma_event_channel* ch_ = nullptr;
  rdma_cm_id* listen_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_pd* pd2_ = nullptr;  // an SRQ's, and another PD's MR
  sockaddr_in to_{};
};

// rddp_hostile --sctp ADDR [FILTER] (hostile_sctp.cc): the SCTP mode;
// @peer_timeout_ms is the device's peer_timeout_ms. Returns the exit status.
int SctpMode(const char* addr, const std::string& filter, int peer_timeout_ms);

}  // namespace rddp_hostile

#endif  // RDDP_TESTS_VERBS_HOSTILE_H
