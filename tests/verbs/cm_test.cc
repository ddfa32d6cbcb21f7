// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Connection management where the ULP or the peer does not answer
// (issue 26, tests/vm/cm.sh). Prints TAP; the exit status is non-zero if a
// check failed.
//
//   rddp_cm burst ADDR PORT COUNT BACKLOG RELEASE
//     COUNT TCP peers send an MPA Request (RFC 5044 §7.1.1) each to a
//     listener with BACKLOG (rddp_kverbs hold_backlog=BACKLOG) whose ULP
//     holds the first request in iw_cm until "Y" is written to the file
//     RELEASE. iw_cm queues BACKLOG more and refuses the rest (its event
//     handler returns -ENOMEM): those peers must be answered while the
//     first is held, with a Reply with R set or a close; once released,
//     every peer must be (the ULP rejects all).
//   rddp_cm abort ADDR PORT
//     connects to a responder that never sends its MPA Reply, then
//     destroys its QP and cm_id while the connect is under way: the
//     connect ends at once with CONNECT_ERROR (ECONNABORTED), not with
//     the MPA timeout's UNREACHABLE, and both destroys return.
extern "C" {
#include <rddp/mpa_frame.h>
}

#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "qp_attr.h"
#include "tap.h"

namespace {

using rddp_test::Tap;
using Clock = std::chrono::steady_clock;

Tap tap;

// Bound on every wait for an answer: well below the 60 s rddp gives a ULP
// to answer a request (RDDP_ACCEPT_TIMEOUT), after which the old module
// closed the requests iw_cm had refused.
constexpr int kAnswerMs = 20 * 1000;

long MsSince(Clock::time_point t0) {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

// ---- burst ----

// One peer: a TCP connection that sent an MPA Request.
struct Peer {
  int fd = -1;
  bool answered = false;
  bool rejected = false;  // a Reply with R set
  bool accepted = false;  // a Reply without R
  rddp_mpa_frame_rx rx{};
};

bool SendRequest(int fd) {
  rddp_mpa_frame f{};
  f.type = RDDP_MPA_REQUEST;
  f.rev = 1;
  uint8_t buf[RDDP_MPA_FRAME_MAX];
  int n = rddp_mpa_frame_build(&f, buf, sizeof(buf));
  return n > 0 && write(fd, buf, static_cast<size_t>(n)) == n;
}

// Reads what @p's socket holds: the Reply (RFC 5044 §7.1.2), or the close.
void ReadAnswer(Peer& p) {
  uint8_t buf[RDDP_MPA_FRAME_MAX];
  ssize_t n = recv(p.fd, buf, sizeof(buf), MSG_DONTWAIT);
  if (n < 0 && errno == EAGAIN) return;
  if (n <= 0) {  // EOF or reset
    p.answered = true;
    return;
  }
  rddp_mpa_frame f{};
  uint32_t used = 0;
  int r = rddp_mpa_frame_rx_feed(&p.rx, buf, static_cast<uint32_t>(n), &used, &f);
  if (r == RDDP_MPA_FRAME_MORE) return;
  p.answered = true;
  p.rejected = r == RDDP_MPA_FRAME_OK && f.reject;
  p.accepted = r == RDDP_MPA_FRAME_OK && !f.reject;
}

int Answered(const std::vector<Peer>& peers) {
  int n = 0;
  for (const Peer& p : peers) n += p.answered;
  return n;
}

// Waits until @want peers are answered or @ms pass; returns how many are.
int WaitAnswers(std::vector<Peer>& peers, int want, int ms) {
  auto t0 = Clock::now();
  while (Answered(peers) < want && MsSince(t0) < ms) {
    std::vector<pollfd> pfds;
    for (const Peer& p : peers)
      if (!p.answered) pfds.push_back({p.fd, POLLIN, 0});
    poll(pfds.data(), pfds.size(), 100);
    for (Peer& p : peers)
      if (!p.answered) ReadAnswer(p);
  }
  return Answered(peers);
}

int Connect(const addrinfo* ai) {
  int fd = socket(ai->ai_family, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
    close(fd);
    return -1;
  }
  return fd;
}

void Release(const char* path) {
  std::ofstream f(path);
  f << "Y\n";
  tap.Check(static_cast<bool>(f),
            std::string("the listener's ULP is told to let go (") + path + ")");
}

int Burst(const addrinfo* ai, int count, int backlog, const char* release) {
  std::vector<Peer> peers(static_cast<size_t>(count));
  int sent = 0;
  for (Peer& p : peers) {
    p.fd = Connect(ai);
    rddp_mpa_frame_rx_init(&p.rx, RDDP_MPA_REPLY, 2);
    if (p.fd >= 0 && SendRequest(p.fd)) sent++;
    // One at a time: rddp reads each Request before the next connects,
    // so the listen socket's accept queue (BACKLOG deep) never overflows.
    pollfd pfd{p.fd, POLLIN, 0};
    poll(&pfd, 1, 200);
  }
  tap.Check(sent == count, std::to_string(count) + " peers connect and send an MPA Request",
            std::to_string(sent) + " did");
  // iw_cm holds the first in the ULP and at most BACKLOG more in its queue.
  int refused = count - backlog - 1;
  auto t0 = Clock::now();
  int got = WaitAnswers(peers, refused, kAnswerMs);
  tap.Check(got >= refused,
            "the requests iw_cm had no room for are answered at once, while the ULP holds the "
            "first (at least " +
                std::to_string(refused) + " of " + std::to_string(count) + ")",
            std::to_string(got) + " answered in " + std::to_string(MsSince(t0)) + " ms");
  Release(release);
  t0 = Clock::now();
  got = WaitAnswers(peers, count, kAnswerMs);
  tap.Check(got == count, "once the ULP lets go, every peer is answered",
            std::to_string(got) + " of " + std::to_string(count) + " in " +
                std::to_string(MsSince(t0)) + " ms");
  int rejected = 0, accepted = 0;
  for (Peer& p : peers) {
    rejected += p.rejected;
    accepted += p.accepted;
    if (p.fd >= 0) close(p.fd);
  }
  std::printf("# %d answered with a Reply with R set, the rest closed\n", rejected);
  tap.Check(accepted == 0, "no peer is accepted (the ULP rejects all)",
            std::to_string(accepted) + " got a Reply without R");
  return tap.Finish();
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
  std::fprintf(stderr,
               "usage: %s burst ADDR PORT COUNT BACKLOG RELEASE\n"
               "       %s abort ADDR PORT\n",
               prog, prog);
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
  if (mode == "burst" && argc == 7) {
    rc = Burst(ai, std::atoi(argv[4]), std::atoi(argv[5]), argv[6]);
  } else if (mode == "abort" && argc == 4) {
    rc = Abort(ai);
  } else {
    Usage(argv[0]);
  }
  freeaddrinfo(ai);
  return rc;
}
