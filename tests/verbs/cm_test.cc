// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Connection management where the ULP or the peer does not answer
// (issue 26, tests/vm/cm.sh). Prints TAP; the exit status is non-zero if a
// check failed.
//
//   rddp_cm abort ADDR PORT
//     connects to a responder that never sends its MPA Reply, then
//     destroys its QP and cm_id while the connect is under way: the
//     connect ends at once with CONNECT_ERROR (ECONNABORTED), not with
//     the MPA timeout's UNREACHABLE, and both destroys return.
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "qp_attr.h"
#include "tap.h"

namespace {

using rddp_test::Tap;
using Clock = std::chrono::steady_clock;

Tap tap;

long MsSince(Clock::time_point t0) {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

// ---- abort ----

[[noreturn]] void Die(const std::string& what) {
  int err = errno;
  tap.Check(false, what + ": " + std::strerror(err));
  tap.Finish();
  std::exit(2);
}

// The next event on @ch within @ms, or nullptr.
rdma_cm_event* NextEvent(rdma_event_channel* ch, int ms) {
  pollfd pfd{ch->fd, POLLIN, 0};
  if (poll(&pfd, 1, ms) != 1) return nullptr;
  rdma_cm_event* ev = nullptr;
  return rdma_get_cm_event(ch, &ev) ? nullptr : ev;
}

void Expect(rdma_event_channel* ch, rdma_cm_event_type type, const std::string& what) {
  rdma_cm_event* ev = NextEvent(ch, 10 * 1000);
  if (!ev) Die(what + ": no " + rdma_event_str(type));
  bool ok = ev->event == type;
  rdma_ack_cm_event(ev);
  if (!ok) Die(what + ": another event than " + rdma_event_str(type));
}

int Abort(const addrinfo* ai) {
  rdma_event_channel* ch = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  if (!ch || rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
  if (rdma_resolve_addr(id, nullptr, ai->ai_addr, 5000)) Die("rdma_resolve_addr");
  Expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, "rdma_resolve_addr");
  if (rdma_resolve_route(id, 5000)) Die("rdma_resolve_route");
  Expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, "rdma_resolve_route");
  ibv_pd* pd = ibv_alloc_pd(id->verbs);
  ibv_cq* cq = pd ? ibv_create_cq(id->verbs, 8, nullptr, nullptr, 0) : nullptr;
  ibv_qp_init_attr qa = rddp_test::SmallRcQpAttr(cq);
  if (!cq || rdma_create_qp(id, pd, &qa)) Die("rdma_create_qp");
  rdma_conn_param cp{};
  cp.initiator_depth = 1;
  cp.responder_resources = 1;
  tap.Zero(rdma_connect(id, &cp), "rdma_connect to a responder that never replies");
  // Long enough for the MPA Request to go out; the responder never answers.
  rdma_cm_event* early = NextEvent(ch, 1000);
  tap.Check(!early, "the connect is still under way (no CM event)",
            early ? rdma_event_str(early->event) : "");
  if (early) rdma_ack_cm_event(early);

  auto t0 = Clock::now();
  rdma_destroy_qp(id);
  long qp_ms = MsSince(t0);
  std::printf("# rdma_destroy_qp returned after %ld ms\n", qp_ms);
  // The old module returned from destroy_qp only once the MPA timeout had
  // failed the connect (UNREACHABLE, ETIMEDOUT).
  rdma_cm_event* ev = NextEvent(ch, 10 * 1000);
  bool aborted = ev && ev->event == RDMA_CM_EVENT_CONNECT_ERROR && ev->status == -ECONNABORTED;
  tap.Check(aborted,
            "destroying the QP ends the connect at once: CONNECT_ERROR, ECONNABORTED "
            "(not the MPA timeout)",
            ev ? std::string(rdma_event_str(ev->event)) + ", status " + std::to_string(ev->status)
               : std::string("no event"));
  if (ev) rdma_ack_cm_event(ev);
  t0 = Clock::now();
  tap.Zero(rdma_destroy_id(id), "rdma_destroy_id afterwards returns 0");
  std::printf("# rdma_destroy_id returned after %ld ms\n", MsSince(t0));
  ibv_destroy_cq(cq);
  ibv_dealloc_pd(pd);
  rdma_destroy_event_channel(ch);
  return tap.Finish();
}

int Usage(const char* prog) {
  std::fprintf(stderr, "usage: %s abort ADDR PORT\n", prog);
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return Usage(argv[0]);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string mode = argv[1];
  addrinfo hints{}, *ai = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(argv[2], argv[3], &hints, &ai) || !ai) {
    std::printf("not ok 1 - getaddrinfo %s\n", argv[2]);
    return 2;
  }
  int rc = 64;
  if (mode == "abort" && argc == 4) {
    rc = Abort(ai);
  } else {
    Usage(argv[0]);
  }
  freeaddrinfo(ai);
  return rc;
}
