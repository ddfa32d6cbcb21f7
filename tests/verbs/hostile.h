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

#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
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
// rddp_hostile --sctp ADDR [FILTER] (hostile_sctp.cc): the SCTP mode;
// @peer_timeout_ms is the device's peer_timeout_ms. Returns the exit status.
int SctpMode(const char* addr, const std::string& filter, int peer_timeout_ms);

}  // namespace rddp_hostile

#endif  // RDDP_TESTS_VERBS_HOSTILE_H
