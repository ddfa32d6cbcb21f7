// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rdma_disconnect() after the peer has closed the connection.
// librdmacm's rdma_disconnect() first moves an iWARP QP to SQD
// (ucma_shutdown()); once the peer's close has put the QP in ERROR, that
// move must succeed and leave the QP in ERROR, as on siw, or the
// application's disconnect fails with EINVAL and perftest prints "Failed to
// disconnect RDMA CM connection". Both ends run in this process:
//   1. the server disconnects, the client waits for DISCONNECTED (its QP in
//      ERROR, a posted receive flushed), then disconnects: 0, twice;
//   2. the server destroys its QP and cm_id without disconnecting (what a
//      process that exits does), then the client disconnects: 0;
//   3. both sides disconnect at once, on several connections: 0 on both.
// Prints TAP; the exit status is non-zero if a check failed.
//
//   rddp_disconnect ADDR [PORT]
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "qp_attr.h"
#include "tap.h"

namespace {

using rddp_test::Tap;

Tap tap;

[[noreturn]] void Die(const std::string& what) {
  int err = errno;
  tap.Check(false, what + ": " + std::strerror(err));
  std::printf("# aborted after a setup failure\n");
  tap.Finish();
  std::exit(2);
}

// The next event on @ch, which must be @type for @id (a setup step that
// does not produce it ends the program with a named failure, never a hang:
// iw_cm bounds connection setup and close well below 30 s).
void Expect(rdma_event_channel* ch, rdma_cm_event_type type, const rdma_cm_id* id,
            const std::string& what, rdma_cm_id** new_id = nullptr, int* status = nullptr) {
  pollfd pfd{ch->fd, POLLIN, 0};
  int n = poll(&pfd, 1, 30 * 1000);
  if (n == 0) {
    errno = ETIMEDOUT;
    Die(what + ": no " + rdma_event_str(type) + " within 30 s");
  }
  rdma_cm_event* ev = nullptr;
  if (n < 0 || rdma_get_cm_event(ch, &ev)) Die(what + ": rdma_get_cm_event");
  if (ev->event != type || (id && ev->id != id)) {
    std::string got = rdma_event_str(ev->event);
    got += " (status " + std::to_string(ev->status) + ")";
    if (id && ev->id != id) got += " of another cm_id";
    rdma_ack_cm_event(ev);
    errno = EPROTO;
    Die(what + ": expected " + rdma_event_str(type) + ", got " + got);
  }
  if (new_id) *new_id = ev->id;
  if (status) *status = ev->status;
  rdma_ack_cm_event(ev);
}

ibv_qp_state StateOf(ibv_qp* qp) {
  ibv_qp_attr a{};
  ibv_qp_init_attr ia{};
  if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) return static_cast<ibv_qp_state>(-1);
  return a.qp_state;
}

const char* StateName(ibv_qp_state s) {
  switch (s) {
    case IBV_QPS_RESET:
      return "RESET";
    case IBV_QPS_INIT:
      return "INIT";
    case IBV_QPS_RTR:
      return "RTR";
    case IBV_QPS_RTS:
      return "RTS";
    case IBV_QPS_SQD:
      return "SQD";
    case IBV_QPS_SQE:
      return "SQE";
    case IBV_QPS_ERR:
      return "ERROR";
    default:
      return "unknown (query failed)";
  }
}

bool InError(ibv_qp* qp, const std::string& name) {
  ibv_qp_state s = StateOf(qp);
  return tap.Check(s == IBV_QPS_ERR, name, std::string("state ") + StateName(s));
}

// Both ends of one connection, over one PD.
class Env {
 public:
  explicit Env(const sockaddr* addr) : addr_(addr) {
    sch_ = rdma_create_event_channel();
    cch_ = rdma_create_event_channel();
    if (!sch_ || !cch_) Die("rdma_create_event_channel");
    if (rdma_create_id(sch_, &listener_, nullptr, RDMA_PS_TCP)) Die("rdma_create_id (listener)");
    if (rdma_bind_addr(listener_, const_cast<sockaddr*>(addr))) Die("rdma_bind_addr");
    if (rdma_listen(listener_, 8)) Die("rdma_listen");
  }
  ~Env() {
    if (pd_) ibv_dealloc_pd(pd_);
    rdma_destroy_id(listener_);
    rdma_destroy_event_channel(cch_);
    rdma_destroy_event_channel(sch_);
  }
  rdma_event_channel* sch() const { return sch_; }
  rdma_event_channel* cch() const { return cch_; }

  struct Conn {
    rdma_cm_id* c = nullptr;
    rdma_cm_id* s = nullptr;
    ibv_cq* ccq = nullptr;
    ibv_cq* scq = nullptr;
  };

  Conn Connect(const std::string& what) {
    Conn k;
    if (rdma_create_id(cch_, &k.c, nullptr, RDMA_PS_TCP)) Die(what + ": rdma_create_id");
    if (rdma_resolve_addr(k.c, nullptr, const_cast<sockaddr*>(addr_), 5000))
      Die(what + ": rdma_resolve_addr");
    Expect(cch_, RDMA_CM_EVENT_ADDR_RESOLVED, k.c, what);
    if (rdma_resolve_route(k.c, 5000)) Die(what + ": rdma_resolve_route");
    Expect(cch_, RDMA_CM_EVENT_ROUTE_RESOLVED, k.c, what);
    if (!pd_ && !(pd_ = ibv_alloc_pd(k.c->verbs))) Die(what + ": ibv_alloc_pd");
    k.ccq = ibv_create_cq(k.c->verbs, 8, nullptr, nullptr, 0);
    k.scq = ibv_create_cq(k.c->verbs, 8, nullptr, nullptr, 0);
    if (!k.ccq || !k.scq) Die(what + ": ibv_create_cq");
    ibv_qp_init_attr ca = QpAttr(k.ccq);
    if (rdma_create_qp(k.c, pd_, &ca)) Die(what + ": rdma_create_qp (client)");
    rdma_conn_param cp{};
    cp.initiator_depth = 1;
    cp.responder_resources = 1;
    if (rdma_connect(k.c, &cp)) Die(what + ": rdma_connect");
    Expect(sch_, RDMA_CM_EVENT_CONNECT_REQUEST, nullptr, what + " (server)", &k.s);
    ibv_qp_init_attr sa = QpAttr(k.scq);
    if (rdma_create_qp(k.s, pd_, &sa)) Die(what + ": rdma_create_qp (server)");
    if (rdma_accept(k.s, &cp)) Die(what + ": rdma_accept");
    Expect(sch_, RDMA_CM_EVENT_ESTABLISHED, k.s, what + " (server)");
    Expect(cch_, RDMA_CM_EVENT_ESTABLISHED, k.c, what + " (client)");
    return k;
  }

  // Destroys what is left of @k (a side whose id is already gone is null).
  static void Release(Conn& k) {
    for (rdma_cm_id* id : {k.c, k.s}) {
      if (!id) continue;
      rdma_destroy_qp(id);
      rdma_destroy_id(id);
    }
    ibv_destroy_cq(k.ccq);
    ibv_destroy_cq(k.scq);
    k = Conn{};
  }

 private:
  static ibv_qp_init_attr QpAttr(ibv_cq* cq) { return rddp_test::SmallRcQpAttr(cq); }

  const sockaddr* addr_;
  rdma_event_channel* sch_ = nullptr;
  rdma_event_channel* cch_ = nullptr;
  rdma_cm_id* listener_ = nullptr;
  ibv_pd* pd_ = nullptr;
};

// Polls @cq for one completion for up to 5 s.
bool PollOne(ibv_cq* cq, ibv_wc* wc) {
  for (int i = 0; i < 500; i++) {
    int n = ibv_poll_cq(cq, 1, wc);
    if (n < 0) return false;
    if (n == 1) return true;
    poll(nullptr, 0, 10);
  }
  return false;
}

// 1. The server disconnects first; the client disconnects after its
// DISCONNECTED event, when its QP is in ERROR.
void ServerDisconnectsFirst(Env& env) {
  Env::Conn k = env.Connect("server disconnects first");
  // A receive posted before the close is flushed when the QP enters ERROR.
  static char buf[64];
  ibv_mr* mr = ibv_reg_mr(k.c->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
  if (!mr) Die("ibv_reg_mr");
  ibv_sge sge{reinterpret_cast<uintptr_t>(buf), sizeof(buf), mr->lkey};
  ibv_recv_wr rwr{}, *bad = nullptr;
  rwr.wr_id = 42;
  rwr.sg_list = &sge;
  rwr.num_sge = 1;
  if (int rc = ibv_post_recv(k.c->qp, &rwr, &bad)) {
    errno = rc < 0 ? -rc : rc;  // libsiw returns -errno
    Die("ibv_post_recv");
  }

  tap.Zero(rdma_disconnect(k.s), "the server's rdma_disconnect() returns 0");
  int cst = 1, sst = 1;
  Expect(env.cch(), RDMA_CM_EVENT_DISCONNECTED, k.c, "client after the server's disconnect",
         nullptr, &cst);
  Expect(env.sch(), RDMA_CM_EVENT_DISCONNECTED, k.s, "server after its disconnect", nullptr, &sst);
  tap.Check(true, "DISCONNECTED on both sides");
  // A graceful close is no reset: a synchronous rdma_disconnect() returns
  // the status of the DISCONNECTED it waits for as its error (rdma-core's
  // test_rdmacm_sync_traffic failed with ECONNRESET when it was -104).
  tap.Check(cst == 0 && sst == 0, "a graceful close: DISCONNECTED with status 0 on both sides",
            "client " + std::to_string(cst) + ", server " + std::to_string(sst));
  InError(k.c->qp, "the peer's close put the client's QP in ERROR");
  ibv_wc wc{};
  bool got = PollOne(k.ccq, &wc);
  tap.Check(got && wc.wr_id == 42 && wc.status == IBV_WC_WR_FLUSH_ERR,
            "the client's posted receive is flushed (IBV_WC_WR_FLUSH_ERR)",
            got ? std::string("wr_id ") + std::to_string(wc.wr_id) + ", status " +
                      ibv_wc_status_str(wc.status)
                : std::string("no completion within 5 s"));

  // The bug of issue 10: ucma_shutdown() moves the QP in ERROR to SQD.
  tap.Zero(rdma_disconnect(k.c),
           "the client's rdma_disconnect() after the peer's close returns 0 (ERROR -> SQD)");
  InError(k.c->qp, "the client's QP stays in ERROR");
  tap.Zero(rdma_disconnect(k.c), "a second rdma_disconnect() on the client returns 0");
  Env::Release(k);
  ibv_dereg_mr(mr);
}

// 2. The server goes away without rdma_disconnect(): QP and cm_id destroyed.
void ServerDestroysWithoutDisconnect(Env& env) {
  Env::Conn k = env.Connect("server destroys its cm_id");
  rdma_destroy_qp(k.s);
  tap.Zero(rdma_destroy_id(k.s), "the server destroys its QP and cm_id while connected");
  k.s = nullptr;
  Expect(env.cch(), RDMA_CM_EVENT_DISCONNECTED, k.c, "client after the server's destroy");
  tap.Check(true, "the client gets DISCONNECTED");
  InError(k.c->qp, "the client's QP is in ERROR");
  tap.Zero(rdma_disconnect(k.c), "the client's rdma_disconnect() afterwards returns 0");
  Env::Release(k);
}

// 3. Both sides disconnect at once: the client's call may find its QP in
// RTS or already in ERROR, both must succeed.
void BothDisconnect(Env& env, int rounds) {
  int bad_s = 0, bad_c = 0, err_c = 0;
  for (int i = 0; i < rounds; i++) {
    Env::Conn k = env.Connect("both disconnect, connection " + std::to_string(i + 1));
    if (rdma_disconnect(k.s)) bad_s++;
    if (rdma_disconnect(k.c)) {
      bad_c++;
      err_c = errno;
    }
    Expect(env.cch(), RDMA_CM_EVENT_DISCONNECTED, k.c, "client, both disconnect");
    Expect(env.sch(), RDMA_CM_EVENT_DISCONNECTED, k.s, "server, both disconnect");
    Env::Release(k);
  }
  tap.Check(bad_s == 0 && bad_c == 0,
            "both sides disconnect at once, " + std::to_string(rounds) +
                " connections: rdma_disconnect() returns 0 on both",
            std::to_string(bad_s) + " server and " + std::to_string(bad_c) +
                " client calls failed" +
                (bad_c ? std::string(" (client: ") + std::strerror(err_c) + ")" : ""));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ADDR [PORT]\n", argv[0]);
    return 64;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  addrinfo hints{}, *ai = nullptr;
  hints.ai_family = AF_UNSPEC;
  if (getaddrinfo(argv[1], argc > 2 ? argv[2] : "7400", &hints, &ai) || !ai) {
    std::printf("not ok - getaddrinfo %s\n", argv[1]);
    return 2;
  }
  {
    Env env(ai->ai_addr);
    ServerDisconnectsFirst(env);
    ServerDestroysWithoutDisconnect(env);
    BothDisconnect(env, 20);
  }
  freeaddrinfo(ai);
  return tap.Finish();
}
