// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Verbs object layer of rddp.ko as a libibverbs consumer sees it through
// Debian's unmodified libsiw: PDs, MRs, CQs, QPs, SRQs, the QP state machine,
// flushing on ERROR, CQ notification and the query_device limits.
// Usage: rddp_verbs_test [DEVICE [--leak]]   (default rddp0). Prints TAP; exit
// status is non-zero if any check failed. With --leak it builds one object of
// each kind, posts work, and exits without destroying anything, so that the
// caller can check that the kernel releases it all.
#include <infiniband/verbs.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tap.h"

namespace {

template <auto Fn>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    if (p) Fn(p);
  }
};

using DevList = std::unique_ptr<ibv_device*, Deleter<ibv_free_device_list>>;
using Ctx = std::unique_ptr<ibv_context, Deleter<ibv_close_device>>;
using Pd = std::unique_ptr<ibv_pd, Deleter<ibv_dealloc_pd>>;
using Mr = std::unique_ptr<ibv_mr, Deleter<ibv_dereg_mr>>;
using Cq = std::unique_ptr<ibv_cq, Deleter<ibv_destroy_cq>>;
using Qp = std::unique_ptr<ibv_qp, Deleter<ibv_destroy_qp>>;
using Srq = std::unique_ptr<ibv_srq, Deleter<ibv_destroy_srq>>;
using Channel = std::unique_ptr<ibv_comp_channel, Deleter<ibv_destroy_comp_channel>>;

using rddp_test::Tap;

Tap tap;

ibv_qp_init_attr QpAttr(ibv_cq* scq, ibv_cq* rcq, uint32_t wr, uint32_t sge,
                        ibv_srq* srq = nullptr) {
  ibv_qp_init_attr a{};
  a.send_cq = scq;
  a.recv_cq = rcq;
  a.srq = srq;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = wr;
  a.cap.max_recv_wr = wr;
  a.cap.max_send_sge = sge;
  a.cap.max_recv_sge = sge;
  return a;
}

int ToState(ibv_qp* qp, ibv_qp_state s, int extra_mask = 0) {
  ibv_qp_attr a{};
  a.qp_state = s;
  a.pkey_index = 0;
  a.port_num = 1;
  a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  return ibv_modify_qp(qp, &a, IBV_QP_STATE | extra_mask);
}

ibv_qp_state StateOf(ibv_qp* qp) {
  ibv_qp_attr a{};
  ibv_qp_init_attr ia{};
  if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) return static_cast<ibv_qp_state>(-1);
  return a.qp_state;
}

// Polls until `want` completions arrived (or ~2 s passed).
std::vector<ibv_wc> PollN(ibv_cq* cq, int want) {
  std::vector<ibv_wc> out;
  for (int tries = 0; tries < 200 && static_cast<int>(out.size()) < want; ++tries) {
    ibv_wc wc[16];
    int n = ibv_poll_cq(cq, 16, wc);
    if (n < 0) break;
    out.insert(out.end(), wc, wc + n);
    if (n == 0) poll(nullptr, 0, 10);
  }
  return out;
}

int PostRecv(ibv_qp* qp, ibv_srq* srq, ibv_mr* mr, uint64_t id) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(mr->addr), 64, mr->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return srq ? ibv_post_srq_recv(srq, &wr, &bad) : ibv_post_recv(qp, &wr, &bad);
}

int PostSend(ibv_qp* qp, ibv_mr* mr, uint64_t id) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(mr->addr), 64, mr->lkey};
  ibv_send_wr wr{};
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(qp, &wr, &bad);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "rddp0";
  const bool leak = argc > 2 && std::string(argv[2]) == "--leak";
  int num = 0;
  DevList list(ibv_get_device_list(&num));
  ibv_device* dev = nullptr;
  for (int i = 0; list && i < num; ++i)
    if (name == ibv_get_device_name(list.get()[i])) dev = list.get()[i];
  if (!tap.Check(dev != nullptr, "device " + name + " is listed")) return tap.Finish();
  Ctx ctx(ibv_open_device(dev));
  if (!tap.Check(ctx != nullptr, "ibv_open_device through libsiw")) return tap.Finish();

  if (leak) {
    // Objects the process never destroys: the uverbs file release must.
    ibv_pd* pd = ibv_alloc_pd(ctx.get());
    static char lbuf[8192];
    ibv_mr* mr = pd ? ibv_reg_mr(pd, lbuf, sizeof(lbuf), IBV_ACCESS_LOCAL_WRITE) : nullptr;
    ibv_cq* cq = ibv_create_cq(ctx.get(), 8, nullptr, nullptr, 0);
    ibv_srq_init_attr sa{};
    sa.attr.max_wr = 8;
    sa.attr.max_sge = 1;
    ibv_srq* srq = pd ? ibv_create_srq(pd, &sa) : nullptr;
    auto a = QpAttr(cq, cq, 8, 1);
    ibv_qp* qp = pd && cq ? ibv_create_qp(pd, &a) : nullptr;
    tap.Check(pd && mr && cq && srq && qp, "leak: create PD, MR, CQ, SRQ, QP");
    if (qp && mr && srq) {
      ToState(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
      tap.Check(PostRecv(qp, nullptr, mr, 1) == 0 && PostRecv(nullptr, srq, mr, 2) == 0 &&
                    PostSend(qp, mr, 3) != 0,
                "leak: post work");
    }
    std::fflush(stdout);
    std::_Exit(tap.Finish());
  }

  ibv_device_attr da{};
  tap.Rc(ibv_query_device(ctx.get(), &da), 0, "ibv_query_device");
  tap.Check(da.max_qp == 4096 && da.max_qp_wr == 4096 && da.max_sge == 6 && da.max_cq == 4096 &&
                da.max_cqe == 32768 && da.max_mr == 16384 && da.max_pd == 4096 &&
                da.max_srq == 1024 && da.max_srq_wr == 4096,
            "query_device reports the documented limits");

  // ---- PDs ----
  Pd pd(ibv_alloc_pd(ctx.get()));
  tap.Check(pd != nullptr, "alloc PD");
  {
    Pd p2(ibv_alloc_pd(ctx.get()));
    tap.Check(p2 != nullptr, "alloc a second PD");
    tap.Rc(ibv_dealloc_pd(p2.release()), 0, "dealloc PD");
  }
  {
    std::vector<Pd> pds;
    ibv_pd* p = nullptr;
    while (static_cast<int>(pds.size()) < da.max_pd && (p = ibv_alloc_pd(ctx.get())))
      pds.emplace_back(p);
    int err = errno;
    tap.Check(static_cast<int>(pds.size()) == da.max_pd - 1,
              "PDs up to max_pd (" + std::to_string(da.max_pd) + ") can be allocated",
              "allocated " + std::to_string(pds.size() + 1) + ": " + std::strerror(err));
    Pd over(ibv_alloc_pd(ctx.get()));
    tap.Fails(over, errno, ENOMEM, "PD beyond max_pd fails with ENOMEM");
  }

  // ---- MRs ----
  std::vector<char> buf(1 << 20);
  constexpr int kLw = IBV_ACCESS_LOCAL_WRITE;
  constexpr int kAllRemote = kLw | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  Mr mr(ibv_reg_mr(pd.get(), buf.data(), 4096, kLw));
  tap.Check(mr != nullptr, "reg_mr 4 KiB LOCAL_WRITE");
  tap.Check(mr && mr->lkey == mr->rkey && (mr->lkey >> 8) != 0,
            "lkey == rkey == STag with a non-zero index");
  {
    Mr ro(ibv_reg_mr(pd.get(), buf.data(), 4096, 0));
    tap.Check(ro != nullptr, "reg_mr read-only (access 0)");
    Mr big(ibv_reg_mr(pd.get(), buf.data(), buf.size(), kAllRemote));
    tap.Check(big != nullptr, "reg_mr 1 MiB LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ");
    Mr odd(ibv_reg_mr(pd.get(), buf.data() + 13, 1, kLw));
    tap.Check(odd != nullptr, "reg_mr 1 byte at an unaligned address");
    // The TO base may differ from the address, in the same page offset.
    const uint64_t to = 0x10000000ULL + (reinterpret_cast<uintptr_t>(buf.data() + 100) & 0xfff);
    Mr iova(ibv_reg_mr_iova(pd.get(), buf.data() + 100, 5000, to, kAllRemote));
    tap.Check(iova != nullptr, "reg_mr_iova with a different TO base");
    tap.Check(ro && big && odd && ro->lkey != big->lkey && big->lkey != odd->lkey,
              "every MR gets its own STag");
    tap.Check(ro && big && odd && mr && ((ro->lkey ^ big->lkey) >> 8) != 0, "STag indexes differ");
    Mr bad(ibv_reg_mr(pd.get(), buf.data(), 4096, IBV_ACCESS_REMOTE_WRITE));
    tap.Fails(bad, errno, EINVAL, "REMOTE_WRITE without LOCAL_WRITE fails with EINVAL");
    Mr bad2(ibv_reg_mr(pd.get(), buf.data(), 4096, IBV_ACCESS_REMOTE_ATOMIC));
    tap.Fails(bad2, errno, EINVAL, "REMOTE_ATOMIC without LOCAL_WRITE fails with EINVAL");
    Mr mw(ibv_reg_mr(pd.get(), buf.data(), 4096, kLw | IBV_ACCESS_MW_BIND));
    tap.Fails(mw, errno, EOPNOTSUPP, "MW_BIND access (no memory windows) fails with EOPNOTSUPP");
    Mr zero(ibv_reg_mr(pd.get(), buf.data(), 0, kLw));
    tap.Fails(zero, errno, EINVAL, "zero-length MR fails with EINVAL");
    Mr huge(ibv_reg_mr(pd.get(), buf.data(), da.max_mr_size + 4096, kLw));
    tap.Fails(huge, errno, EINVAL, "MR longer than max_mr_size fails with EINVAL");
    Mr unmapped(ibv_reg_mr(pd.get(), reinterpret_cast<void*>(0x1000), 4096, kLw));
    tap.Fails(unmapped, errno, EFAULT, "MR over unmapped memory fails with EFAULT");
    tap.Rc(ibv_dealloc_pd(pd.get()), EBUSY, "dealloc of a PD with MRs fails with EBUSY");
  }
  {
    std::vector<Mr> mrs;
    ibv_mr* m = nullptr;
    while (static_cast<int>(mrs.size()) < da.max_mr - 1 &&
           (m = ibv_reg_mr(pd.get(), buf.data(), 4096, 0)))
      mrs.emplace_back(m);
    int err = errno;
    tap.Check(static_cast<int>(mrs.size()) == da.max_mr - 1,
              "MRs up to max_mr (" + std::to_string(da.max_mr) + ") can be registered",
              "registered " + std::to_string(mrs.size() + 1) + ": " + std::strerror(err));
    Mr over(ibv_reg_mr(pd.get(), buf.data(), 4096, 0));
    tap.Fails(over, errno, ENOMEM, "MR beyond max_mr fails with ENOMEM");
    // RFC 5041 §8.1, RFC 5040 §8, RFC 5042: a peer must not guess a valid STag.
    // Sequential indices with libsiw's key 0 (0x100, 0x200, ...) hand every
    // remotely accessible MR to the first guesses; random ones spread over
    // the 24-bit index space and take all 256 keys.
    std::set<uint32_t> stags;
    std::set<uint32_t> keys;
    size_t adjacent = 0;
    uint32_t lo = UINT32_MAX;
    uint32_t hi = 0;
    for (size_t i = 0; i < mrs.size(); i++) {
      const uint32_t stag = mrs[i]->rkey;
      stags.insert(stag);
      keys.insert(stag & 0xff);
      lo = std::min(lo, stag >> 8);
      hi = std::max(hi, stag >> 8);
      if (i > 0 && (stag >> 8) == (mrs[i - 1]->rkey >> 8) + 1) adjacent++;
    }
    tap.Check(stags.size() == mrs.size(), "every registered MR has its own STag");
    tap.Check(adjacent * 100 < mrs.size() && hi - lo > (1U << 23),
              "STag indexes are not sequential but spread over 24 bits",
              std::to_string(adjacent) + " of " + std::to_string(mrs.size()) +
                  " follow their predecessor; indexes " + std::to_string(lo) + ".." +
                  std::to_string(hi));
    tap.Check(keys.size() > 200, "STag keys are random though libsiw asks for key 0",
              std::to_string(keys.size()) + " distinct keys");
  }

  // ---- CQs ----
  Cq cq(ibv_create_cq(ctx.get(), 16, nullptr, nullptr, 0));
  tap.Check(cq && cq->cqe >= 16, "create CQ with 16 CQEs");
  {
    Cq maxcq(ibv_create_cq(ctx.get(), da.max_cqe, nullptr, nullptr, 0));
    tap.Check(maxcq != nullptr, "create CQ with max_cqe CQEs");
    Cq over(ibv_create_cq(ctx.get(), da.max_cqe + 1, nullptr, nullptr, 0));
    tap.Fails(over, errno, EINVAL, "CQ with max_cqe + 1 CQEs fails with EINVAL");
    ibv_wc wc;
    tap.Check(ibv_poll_cq(cq.get(), 1, &wc) == 0, "a new CQ is empty");
  }
  {
    std::vector<Cq> cqs;
    ibv_cq* c = nullptr;
    while (static_cast<int>(cqs.size()) < da.max_cq - 1 &&
           (c = ibv_create_cq(ctx.get(), 1, nullptr, nullptr, 0)))
      cqs.emplace_back(c);
    int err = errno;
    tap.Check(static_cast<int>(cqs.size()) == da.max_cq - 1,
              "CQs up to max_cq (" + std::to_string(da.max_cq) + ") can be created",
              "created " + std::to_string(cqs.size() + 1) + ": " + std::strerror(err));
    Cq over(ibv_create_cq(ctx.get(), 1, nullptr, nullptr, 0));
    tap.Fails(over, errno, ENOMEM, "CQ beyond max_cq fails with ENOMEM");
  }

  // ---- QPs: creation and caps ----
  {
    auto a = QpAttr(cq.get(), cq.get(), 64, 2);
    Qp qp(ibv_create_qp(pd.get(), &a));
    tap.Check(qp != nullptr, "create RC QP (64 WRs, 2 SGEs)");
    tap.Check(a.cap.max_send_wr >= 64 && a.cap.max_recv_wr >= 64 && a.cap.max_send_sge >= 2 &&
                  a.cap.max_recv_sge >= 2,
              "create_qp reports caps at least as large as requested");
    // An RNIC's QP starts in Idle, reported as INIT (siw, cxgb4; rdma-core's
    // test_qp.test_query_rc_qp expects it of an IBV_NODE_RNIC device).
    tap.Check(qp && StateOf(qp.get()) == IBV_QPS_INIT, "a new QP is in INIT (an RNIC's Idle)");

    auto over_wr = QpAttr(cq.get(), cq.get(), da.max_qp_wr + 1, 1);
    Qp q1(ibv_create_qp(pd.get(), &over_wr));
    tap.Fails(q1, errno, EINVAL, "QP with max_qp_wr + 1 WRs fails with EINVAL");
    auto over_sge = QpAttr(cq.get(), cq.get(), 4, da.max_sge + 1);
    Qp q2(ibv_create_qp(pd.get(), &over_sge));
    tap.Fails(q2, errno, EINVAL, "QP with max_sge + 1 SGEs fails with EINVAL");
    auto inl = QpAttr(cq.get(), cq.get(), 4, 1);
    inl.cap.max_inline_data = 4096;
    Qp q3(ibv_create_qp(pd.get(), &inl));
    tap.Fails(q3, errno, EINVAL, "QP with 4 KiB inline data fails with EINVAL");
    auto ud = QpAttr(cq.get(), cq.get(), 4, 1);
    ud.qp_type = IBV_QPT_UD;
    Qp q4(ibv_create_qp(pd.get(), &ud));
    tap.Fails(q4, errno, EOPNOTSUPP, "UD QP fails with EOPNOTSUPP");
  }
  {
    std::vector<Qp> qps;
    Cq c(ibv_create_cq(ctx.get(), 1, nullptr, nullptr, 0));
    ibv_qp* q = nullptr;
    auto a = QpAttr(c.get(), c.get(), 1, 1);
    while (static_cast<int>(qps.size()) < da.max_qp && (q = ibv_create_qp(pd.get(), &a)))
      qps.emplace_back(q);
    int err = errno;
    tap.Check(static_cast<int>(qps.size()) == da.max_qp,
              "QPs up to max_qp (" + std::to_string(da.max_qp) + ") can be created",
              "created " + std::to_string(qps.size()) + ": " + std::strerror(err));
    Qp over(ibv_create_qp(pd.get(), &a));
    tap.Fails(over, errno, ENOMEM, "QP beyond max_qp fails with ENOMEM");
  }

  // ---- QP state machine ----
  {
    auto a = QpAttr(cq.get(), cq.get(), 8, 1);
    Qp qp(ibv_create_qp(pd.get(), &a));
    ibv_qp* q = qp.get();
    tap.Rc(ToState(q, IBV_QPS_RESET), 0, "INIT -> RESET");
    tap.Rc(ToState(q, IBV_QPS_RTR), EINVAL, "RESET -> RTR is refused (EINVAL)");
    tap.Rc(ToState(q, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0,
           "RESET -> INIT");
    tap.Check(StateOf(q) == IBV_QPS_INIT, "query_qp: INIT");
    tap.Rc(ToState(q, IBV_QPS_RTS), EINVAL, "INIT -> RTS is refused (EINVAL)");
    tap.Rc(ToState(q, IBV_QPS_INIT), 0, "INIT -> INIT");
    tap.Rc(ToState(q, IBV_QPS_RTR), 0, "INIT -> RTR");
    tap.Check(StateOf(q) == IBV_QPS_RTR, "query_qp: RTR");
    tap.Rc(ToState(q, IBV_QPS_INIT), EINVAL, "RTR -> INIT is refused (EINVAL)");
    tap.Rc(ToState(q, IBV_QPS_RTS), ENOTCONN,
           "RTR -> RTS without an iWARP connection fails with ENOTCONN");
    tap.Check(StateOf(q) == IBV_QPS_RTR, "a refused transition leaves the QP in RTR");
    tap.Rc(ToState(q, IBV_QPS_SQE), EINVAL, "RTR -> SQE is refused (EINVAL)");
    tap.Rc(ToState(q, IBV_QPS_ERR), 0, "RTR -> ERROR");
    // librdmacm's rdma_disconnect() moves an iWARP QP to SQD, also after
    // the peer's close has put it in ERROR: a no-op there, as on siw.
    tap.Rc(ToState(q, IBV_QPS_SQD), 0, "ERROR -> SQD (rdma_disconnect after the peer's close)");
    tap.Check(StateOf(q) == IBV_QPS_ERR, "the QP stays in ERROR");
    tap.Rc(ToState(q, IBV_QPS_INIT), EINVAL, "ERROR -> INIT is refused (EINVAL)");
    tap.Rc(ToState(q, IBV_QPS_RESET), 0, "ERROR -> RESET");
    tap.Rc(ToState(q, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0,
           "RESET -> INIT again after a reset");
    ibv_qp_attr at{};
    at.max_rd_atomic = 200;
    tap.Rc(ibv_modify_qp(q, &at, IBV_QP_MAX_QP_RD_ATOMIC), EINVAL,
           "max_rd_atomic above max_qp_rd_atom fails with EINVAL");
  }

  // ---- ERROR flushes posted WRs; CQ notification via the mapped ctrl word ----
  {
    Channel ch(ibv_create_comp_channel(ctx.get()));
    Cq rcq(ibv_create_cq(ctx.get(), 8, nullptr, ch.get(), 0));
    Cq scq(ibv_create_cq(ctx.get(), 8, nullptr, nullptr, 0));
    auto a = QpAttr(scq.get(), rcq.get(), 8, 1);
    Qp qp(ibv_create_qp(pd.get(), &a));
    ibv_qp* q = qp.get();
    tap.Check(ch && rcq && scq && qp, "create channel, CQs and QP for the flush test");
    ToState(q, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    bool posted = true;
    for (uint64_t id = 100; id < 103; ++id) posted &= PostRecv(q, nullptr, mr.get(), id) == 0;
    tap.Check(posted, "post 3 receives in INIT");
    tap.Check(PostSend(q, mr.get(), 7) != 0, "post_send before the connection fails (doorbell)");
    ibv_wc wc;
    tap.Check(ibv_poll_cq(rcq.get(), 1, &wc) == 0, "nothing completes before ERROR");
    tap.Rc(ibv_req_notify_cq(rcq.get(), 0), 0, "arm the receive CQ");
    tap.Rc(ToState(q, IBV_QPS_ERR), 0, "INIT -> ERROR");

    pollfd pfd{ch->fd, POLLIN, 0};
    bool woke = poll(&pfd, 1, 3000) == 1;
    tap.Check(woke, "armed CQ raises a completion event on the flush");
    if (woke) {
      ibv_cq* ev_cq = nullptr;
      void* ev_ctx = nullptr;
      tap.Check(ibv_get_cq_event(ch.get(), &ev_cq, &ev_ctx) == 0 && ev_cq == rcq.get(),
                "the event names the receive CQ");
      ibv_ack_cq_events(rcq.get(), 1);
    }
    auto rw = PollN(rcq.get(), 3);
    bool ok = rw.size() == 3;
    for (size_t i = 0; ok && i < rw.size(); ++i) {
      ok = rw[i].status == IBV_WC_WR_FLUSH_ERR && rw[i].wr_id == 100 + i &&
           rw[i].opcode == IBV_WC_RECV && rw[i].qp_num == q->qp_num;
    }
    tap.Check(ok, "ERROR flushes the 3 receives in order as IBV_WC_WR_FLUSH_ERR",
              "got " + std::to_string(rw.size()) + " completions");
    auto sw = PollN(scq.get(), 1);
    tap.Check(sw.size() == 1 && sw[0].status == IBV_WC_WR_FLUSH_ERR && sw[0].wr_id == 7 &&
                  sw[0].opcode == IBV_WC_SEND,
              "the unsent SQE is flushed as IBV_WC_WR_FLUSH_ERR");
    tap.Check(PostSend(q, mr.get(), 8) == 0, "post_send in ERROR is accepted");
    sw = PollN(scq.get(), 1);
    tap.Check(sw.size() == 1 && sw[0].status == IBV_WC_WR_FLUSH_ERR && sw[0].wr_id == 8,
              "a send posted in ERROR completes with IBV_WC_WR_FLUSH_ERR");
    tap.Check(ibv_poll_cq(rcq.get(), 1, &wc) == 0 && ibv_poll_cq(scq.get(), 1, &wc) == 0,
              "no further completions");
    tap.Rc(ToState(q, IBV_QPS_RESET), 0, "ERROR -> RESET after the flush");
  }

  // ---- SRQs ----
  {
    ibv_srq_init_attr sa{};
    sa.attr.max_wr = 16;
    sa.attr.max_sge = 1;
    Srq srq(ibv_create_srq(pd.get(), &sa));
    tap.Check(srq != nullptr, "create SRQ (16 WRs)");
    ibv_srq_init_attr big{};
    big.attr.max_wr = da.max_srq_wr + 1;
    big.attr.max_sge = 1;
    Srq over(ibv_create_srq(pd.get(), &big));
    tap.Fails(over, errno, EINVAL, "SRQ with max_srq_wr + 1 WRs fails with EINVAL");
    bool posted = true;
    for (uint64_t id = 0; id < 4; ++id) posted &= PostRecv(nullptr, srq.get(), mr.get(), id) == 0;
    tap.Check(posted, "post 4 receives to the SRQ");
    ibv_srq_attr at{};
    at.srq_limit = 2;
    tap.Rc(ibv_modify_srq(srq.get(), &at, IBV_SRQ_LIMIT), 0, "arm the SRQ limit at 2");
    // libsiw has no query_srq verb, so the kernel's query_srq is not reachable here.
    at.srq_limit = 1000;
    tap.Rc(ibv_modify_srq(srq.get(), &at, IBV_SRQ_LIMIT), EINVAL,
           "SRQ limit above its size fails with EINVAL");
    at.max_wr = 32;
    tap.Rc(ibv_modify_srq(srq.get(), &at, IBV_SRQ_MAX_WR), EOPNOTSUPP,
           "SRQ resize fails with EOPNOTSUPP");
    auto a = QpAttr(cq.get(), cq.get(), 8, 1, srq.get());
    Qp qp(ibv_create_qp(pd.get(), &a));
    tap.Check(qp != nullptr, "create a QP attached to the SRQ");
    tap.Rc(ibv_destroy_srq(srq.get()), EBUSY, "destroying an SRQ in use fails with EBUSY");
    if (qp) {
      ToState(qp.get(), IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
      tap.Rc(ToState(qp.get(), IBV_QPS_ERR), 0, "SRQ QP -> ERROR");
      auto wc = PollN(cq.get(), 1);
      tap.Check(wc.empty(), "SRQ receives are not flushed by a QP",
                wc.empty()
                    ? ""
                    : "wr_id " + std::to_string(wc[0].wr_id) + " status " +
                          std::to_string(wc[0].status) + " opcode " + std::to_string(wc[0].opcode));
    }
    tap.Rc(ibv_destroy_qp(qp.release()), 0, "destroy the SRQ's QP");
    tap.Rc(ibv_destroy_srq(srq.release()), 0, "destroy the SRQ");
  }

  // ---- teardown, in dependency order ----
  {
    // Last use of `cq`: libsiw unmaps a CQ's ring before asking the kernel to
    // destroy it, so after a refused destroy the CQ must not be polled again.
    auto a = QpAttr(cq.get(), cq.get(), 4, 1);
    Qp qp(ibv_create_qp(pd.get(), &a));
    tap.Rc(ibv_destroy_cq(cq.get()), EBUSY, "destroying a CQ in use fails with EBUSY");
  }
  tap.Rc(ibv_dereg_mr(mr.release()), 0, "dereg MR");
  tap.Rc(ibv_destroy_cq(cq.release()), 0, "destroy CQ");
  tap.Rc(ibv_dealloc_pd(pd.release()), 0, "dealloc PD");
  tap.Rc(ibv_close_device(ctx.release()), 0, "close device");
  return tap.Finish();
}
