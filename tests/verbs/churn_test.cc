// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Connection churn and device removal under load, for rddp through
// librdmacm (tests/vm/churn.sh). Both ends run in this process over ADDR
// (an rddp device's address); output is TAP (tap.h).
//
//   rddp_churn ADDR cycles N [SEED]
//       N cycles, each with every object new: cm_ids, PDs, CQs, MRs and
//       QPs on both sides; connect; a Write, a Send and a Read of random
//       sizes, every byte checked; then the connection ends, in turn by
//       the client's rdma_disconnect(), by the server's, and by the client
//       destroying its QP and cm_id without a disconnect; everything is
//       destroyed. The listener stays.
//   rddp_churn ADDR live QPS
//       QPS connections with Writes, Sends and Reads running on each (all
//       checked), until the device goes away under them (`rdma link
//       delete`, `rmmod rddp`): prints "# traffic running" once every
//       connection has moved data, then waits for rdma_cm's
//       DEVICE_REMOVAL; every traffic thread must stop (a flushed or
//       failed completion, a refused post, or the removal seen) and the
//       program must destroy what it holds and exit.
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "qp_attr.h"
#include "tap.h"

namespace {

constexpr uint16_t kPort = 7998;
constexpr uint32_t kBufSize = 64 * 1024;

[[noreturn]] void Die(const std::string& what) {
  std::printf("not ok - churn: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(2);
}

struct PdDeleter {
  void operator()(ibv_pd* pd) const { ibv_dealloc_pd(pd); }
};
struct CqDeleter {
  void operator()(ibv_cq* cq) const { ibv_destroy_cq(cq); }
};
struct MrDeleter {
  void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
};
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;

// A cm_id and, once created, its QP; destroyed in that order.
struct IdDeleter {
  void operator()(rdma_cm_id* id) const {
    if (id->qp) rdma_destroy_qp(id);
    rdma_destroy_id(id);
  }
};
using IdPtr = std::unique_ptr<rdma_cm_id, IdDeleter>;

struct Buffer {
  std::vector<uint8_t> mem;
  MrPtr mr;
  Buffer(ibv_pd* pd, size_t size) : mem(size) {
    mr.reset(ibv_reg_mr(pd, mem.data(), mem.size(),
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
    if (!mr) Die("ibv_reg_mr");
  }
  uint8_t* at(size_t off) { return mem.data() + off; }
  ibv_sge Sge(size_t off, uint32_t len) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uintptr_t>(at(off));
    sge.length = len;
    sge.lkey = mr->lkey;
    return sge;
  }
};

// The next event on @ch within 30 s, which must be @type (of @id, when
// given); else nullptr and the reason in @why.
rdma_cm_event* Await(rdma_event_channel* ch, rdma_cm_event_type type, const char* side,
                     const rdma_cm_id* id, std::string& why) {
  pollfd pfd{ch->fd, POLLIN, 0};
  const int n = poll(&pfd, 1, 30 * 1000);
  rdma_cm_event* ev = nullptr;
  if (n <= 0 || rdma_get_cm_event(ch, &ev)) {
    why = std::string("no ") + rdma_event_str(type) + " on the " + side + " side within 30 s";
    return nullptr;
  }
  if (ev->event != type || (id && ev->id != id)) {
    why = std::string(side) + " side: " + rdma_event_str(ev->event) + " (status " +
          std::to_string(ev->status) + ")" + (id && ev->id != id ? " of another cm_id" : "") +
          " where " + rdma_event_str(type) + " was due";
    rdma_ack_cm_event(ev);
    return nullptr;
  }
  return ev;
}
bool AwaitAck(rdma_event_channel* ch, rdma_cm_event_type type, const char* side,
              const rdma_cm_id* id, std::string& why) {
  rdma_cm_event* ev = Await(ch, type, side, id, why);
  if (ev) rdma_ack_cm_event(ev);
  return ev != nullptr;
}

// One completion within @seconds, spinning (one connection at a time, or
// threads that must notice @stop); false on a timeout, a poll error or
// once *stop is set.
bool Poll(ibv_cq* cq, ibv_wc* wc, int seconds, const std::atomic<bool>* stop = nullptr) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    const int n = ibv_poll_cq(cq, 1, wc);
    if (n != 0) return n == 1;
    if ((stop && stop->load()) || std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
}

ibv_qp_init_attr QpAttr(ibv_cq* cq) { return rddp_test::SmallRcQpAttr(cq); }

void Fill(std::mt19937_64& rng, uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = static_cast<uint8_t>(rng());
}

// Both ends of one connection: client c, server s.
struct Conn {
  IdPtr c, s;
  CqPtr ccq, scq;
  std::unique_ptr<Buffer> cbuf, sbuf;
};

bool PostRecv(rdma_cm_id* id, Buffer& buf, size_t off, uint32_t len) {
  ibv_sge sge = buf.Sge(off, len);
  ibv_recv_wr wr{}, *bad = nullptr;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  return ibv_post_recv(id->qp, &wr, &bad) == 0;
}
bool PostSend(rdma_cm_id* id, ibv_wr_opcode op, ibv_sge sge, uint64_t raddr = 0,
              uint32_t rkey = 0) {
  ibv_send_wr wr{}, *bad = nullptr;
  wr.opcode = op;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.wr.rdma.remote_addr = raddr;
  wr.wr.rdma.rkey = rkey;
  return ibv_post_send(id->qp, &wr, &bad) == 0;
}

// What one exchange ended in: success; data that differs; or a failed
// connection (a completion in error, a refused post, a completion that
// never came or a wait ended by @stop).
enum class Outcome { kOk, kBad, kFailed };

// A Write of random data into the server's buffer, then a Send that says
// it is there (RFC 5040 §5.5) carrying more random data, then a Read of
// random data from the server's buffer; every byte compared. @stop, for
// the live mode, ends a wait early.
Outcome Exchange(Conn& k, std::mt19937_64& rng, std::string& why,
                 const std::atomic<bool>* stop = nullptr) {
  const uint32_t wlen = 1 + static_cast<uint32_t>(rng() % (kBufSize / 4));
  const auto slen = static_cast<uint32_t>(rng() % (kBufSize / 4));
  const uint32_t rlen = 1 + static_cast<uint32_t>(rng() % (kBufSize / 4));
  const size_t q = kBufSize / 4;  // four quarters: Write, Send, Read, spare
  Fill(rng, k.cbuf->at(0), wlen);
  Fill(rng, k.cbuf->at(q), slen);
  Fill(rng, k.sbuf->at(2 * q), rlen);
  std::memset(k.cbuf->at(2 * q), 0, rlen);
  const int seconds = stop ? 600 : 30;
  ibv_wc wc{};
  auto done = [&](ibv_cq* cq, const char* what) {
    if (!Poll(cq, &wc, seconds, stop)) {
      why = std::string("no completion of the ") + what;
      return false;
    }
    if (wc.status != IBV_WC_SUCCESS) {
      why = std::string(what) + " completed with " + ibv_wc_status_str(wc.status);
      return false;
    }
    return true;
  };
  if (!PostRecv(k.s.get(), *k.sbuf, q, static_cast<uint32_t>(q)) ||
      !PostSend(k.c.get(), IBV_WR_RDMA_WRITE, k.cbuf->Sge(0, wlen),
                reinterpret_cast<uintptr_t>(k.sbuf->at(0)), k.sbuf->mr->rkey) ||
      !PostSend(k.c.get(), IBV_WR_SEND, k.cbuf->Sge(q, slen))) {
    why = std::string("post refused: ") + std::strerror(errno);
    return Outcome::kFailed;
  }
  if (!done(k.ccq.get(), "Write") || !done(k.ccq.get(), "Send") || !done(k.scq.get(), "receive")) {
    return Outcome::kFailed;
  }
  if (wc.byte_len != slen || std::memcmp(k.sbuf->at(q), k.cbuf->at(q), slen) != 0) {
    why = "the Send's data differs (" + std::to_string(wc.byte_len) + " of " +
          std::to_string(slen) + " bytes)";
    return Outcome::kBad;
  }
  if (std::memcmp(k.sbuf->at(0), k.cbuf->at(0), wlen) != 0) {
    why = "the Write's data differs (" + std::to_string(wlen) + " bytes)";
    return Outcome::kBad;
  }
  if (!PostSend(k.c.get(), IBV_WR_RDMA_READ, k.cbuf->Sge(2 * q, rlen),
                reinterpret_cast<uintptr_t>(k.sbuf->at(2 * q)), k.sbuf->mr->rkey)) {
    why = std::string("Read refused: ") + std::strerror(errno);
    return Outcome::kFailed;
  }
  if (!done(k.ccq.get(), "Read")) return Outcome::kFailed;
  if (std::memcmp(k.cbuf->at(2 * q), k.sbuf->at(2 * q), rlen) != 0) {
    why = "the Read's data differs (" + std::to_string(rlen) + " bytes)";
    return Outcome::kBad;
  }
  return Outcome::kOk;
}

struct Ends {
  rdma_event_channel* sch = nullptr;  // the listener's and the server's
  rdma_event_channel* cch = nullptr;  // the clients'
  const addrinfo* ai = nullptr;
};

// Connects @k: a new client cm_id, PD, CQ, QP and buffer; the server's
// side the same from its CONNECT_REQUEST. @spd/@cpd: the PDs to use.
bool Connect(const Ends& e, Conn& k, ibv_pd*& cpd, ibv_pd*& spd, PdPtr* own_c, PdPtr* own_s,
             std::string& why) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(e.cch, &id, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
  k.c.reset(id);
  if (rdma_resolve_addr(id, nullptr, e.ai->ai_addr, 5000) ||
      !AwaitAck(e.cch, RDMA_CM_EVENT_ADDR_RESOLVED, "client", id, why) ||
      rdma_resolve_route(id, 5000) ||
      !AwaitAck(e.cch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client", id, why)) {
    if (why.empty()) why = std::string("resolving: ") + std::strerror(errno);
    return false;
  }
  if (own_c) {
    own_c->reset(ibv_alloc_pd(id->verbs));
    cpd = own_c->get();
  }
  k.ccq.reset(ibv_create_cq(id->verbs, 8, nullptr, nullptr, 0));
  if (!cpd || !k.ccq) Die("ibv_alloc_pd/ibv_create_cq (client)");
  ibv_qp_init_attr ca = QpAttr(k.ccq.get());
  if (rdma_create_qp(id, cpd, &ca)) Die("rdma_create_qp (client)");
  k.cbuf = std::make_unique<Buffer>(cpd, kBufSize);
  rdma_conn_param cp{};
  cp.initiator_depth = 1;
  cp.responder_resources = 1;
  if (rdma_connect(id, &cp)) Die("rdma_connect");
  rdma_cm_event* req = Await(e.sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", nullptr, why);
  if (!req) return false;
  k.s.reset(req->id);
  rdma_ack_cm_event(req);
  rdma_cm_id* s = k.s.get();
  if (own_s) {
    own_s->reset(ibv_alloc_pd(s->verbs));
    spd = own_s->get();
  }
  k.scq.reset(ibv_create_cq(s->verbs, 8, nullptr, nullptr, 0));
  if (!spd || !k.scq) Die("ibv_alloc_pd/ibv_create_cq (server)");
  ibv_qp_init_attr sa = QpAttr(k.scq.get());
  if (rdma_create_qp(s, spd, &sa)) Die("rdma_create_qp (server)");
  k.sbuf = std::make_unique<Buffer>(spd, kBufSize);
  if (rdma_accept(s, &cp)) Die("rdma_accept");
  return AwaitAck(e.sch, RDMA_CM_EVENT_ESTABLISHED, "server", s, why) &&
         AwaitAck(e.cch, RDMA_CM_EVENT_ESTABLISHED, "client", id, why);
}

// Releases a connection's objects in the order the verbs need: QPs and
// cm_ids, then MRs, CQs (and the PDs, the caller's).
void Release(Conn& k) {
  k.c.reset();
  k.s.reset();
  k.cbuf.reset();
  k.sbuf.reset();
  k.ccq.reset();
  k.scq.reset();
}

// One cycle; "" or what went wrong.
std::string Cycle(const Ends& e, int n, std::mt19937_64& rng) {
  std::string why;
  PdPtr cpd_own, spd_own;
  ibv_pd* cpd = nullptr;
  ibv_pd* spd = nullptr;
  Conn k;
  bool ok = Connect(e, k, cpd, spd, &cpd_own, &spd_own, why);
  if (ok && Exchange(k, rng, why) != Outcome::kOk) ok = false;
  if (ok) {
    switch (n % 3) {
      case 0:  // the client disconnects
        ok = rdma_disconnect(k.c.get()) == 0 &&
             AwaitAck(e.cch, RDMA_CM_EVENT_DISCONNECTED, "client", k.c.get(), why) &&
             AwaitAck(e.sch, RDMA_CM_EVENT_DISCONNECTED, "server", k.s.get(), why);
        break;
      case 1:  // the server disconnects
        ok = rdma_disconnect(k.s.get()) == 0 &&
             AwaitAck(e.sch, RDMA_CM_EVENT_DISCONNECTED, "server", k.s.get(), why) &&
             AwaitAck(e.cch, RDMA_CM_EVENT_DISCONNECTED, "client", k.c.get(), why);
        break;
      default:  // the client goes without a word: its QP and cm_id destroyed
        k.c.reset();
        ok = AwaitAck(e.sch, RDMA_CM_EVENT_DISCONNECTED, "server", k.s.get(), why);
    }
    if (!ok && why.empty()) why = std::string("rdma_disconnect: ") + std::strerror(errno);
  }
  Release(k);
  return ok ? "" : why;
}

int RunCycles(const Ends& e, int cycles, uint64_t seed) {
  rddp_test::Tap tap;
  std::mt19937_64 rng(seed);
  auto t0 = std::chrono::steady_clock::now();
  int done = 0;
  std::string why;
  for (; done < cycles; done++) {
    why = Cycle(e, done, rng);
    if (!why.empty()) break;
    if ((done + 1) % 250 == 0) std::printf("# %d cycles\n", done + 1);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("# %d cycles in %.1f s (%.1f ms each)\n", done, secs,
              done ? 1000 * secs / done : 0.0);
  tap.Check(done == cycles,
            std::to_string(cycles) +
                " cycles: connect, Write + Send + Read checked, disconnect (client, server, "
                "destroy in turn), every object new",
            "cycle " + std::to_string(done) + ": " + why);
  return tap.Finish();
}

// ---- live: the device goes away under traffic ----

struct LiveStats {
  std::atomic<uint64_t> ok{0}, bad{0};
  std::atomic<uint64_t> failed{0};   // ended by a failed exchange
  std::atomic<uint64_t> noticed{0};  // ended on seeing the removal between two
};

int RunLive(const Ends& e, rdma_cm_id* listener, int nqp) {
  rddp_test::Tap tap;
  std::vector<Conn> conns(static_cast<size_t>(nqp));
  PdPtr cpd_own, spd_own;
  ibv_pd* cpd = nullptr;
  ibv_pd* spd = nullptr;
  for (int i = 0; i < nqp; i++) {
    std::string why;
    const bool first = i == 0;
    if (!Connect(e, conns[static_cast<size_t>(i)], cpd, spd, first ? &cpd_own : nullptr,
                 first ? &spd_own : nullptr, why)) {
      tap.Check(false, "live: " + std::to_string(nqp) + " connections", why);
      return tap.Finish();
    }
  }
  tap.Check(true, "live: " + std::to_string(nqp) + " connections");

  // rdma_cm's events, both channels: the removal stops the traffic.
  std::atomic<bool> stop{false}, quit{false};
  std::atomic<int> removals{0}, others{0};
  std::thread events([&] {
    pollfd pfd[2] = {{e.sch->fd, POLLIN, 0}, {e.cch->fd, POLLIN, 0}};
    while (!quit.load()) {
      if (poll(pfd, 2, 100) <= 0) continue;
      for (auto& p : pfd) {
        if (!(p.revents & POLLIN)) continue;
        rdma_event_channel* ch = p.fd == e.sch->fd ? e.sch : e.cch;
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(ch, &ev)) continue;
        if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
          removals++;
        } else {
          others++;  // DISCONNECTED: the connection went first
        }
        stop = true;
        rdma_ack_cm_event(ev);
      }
    }
  });

  LiveStats st;
  std::vector<std::string> why(conns.size());
  std::vector<std::thread> traffic;
  traffic.reserve(conns.size());
  for (size_t i = 0; i < conns.size(); i++) {
    traffic.emplace_back([&, i] {
      std::mt19937_64 rng(i + 1);
      while (!stop.load()) {
        switch (Exchange(conns[i], rng, why[i], &stop)) {
          case Outcome::kOk:
            st.ok++;
            continue;
          case Outcome::kFailed:
            st.failed++;
            return;
          case Outcome::kBad:
            st.bad++;
            return;
        }
      }
      st.noticed++;
    });
  }
  // Running once every connection has had time to move data.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (st.ok.load() < 2U * conns.size() && !stop.load() && st.bad.load() == 0 &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::printf("# traffic running: %llu exchanges checked\n",
              static_cast<unsigned long long>(st.ok.load()));
  // Nothing may have failed before the removal (which starts after that
  // line): a connection that fails then fails on its own.
  const uint64_t early = st.failed.load() + st.bad.load();
  std::string early_why;
  for (auto& w : why) {
    if (early_why.empty() && !w.empty()) early_why = w;
  }
  // The removal comes from outside; 300 s at most.
  until = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!stop.load() && st.bad.load() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  for (auto& t : traffic) t.join();
  tap.Check(early == 0, "live: no connection failed before the removal",
            std::to_string(early) + " did: " + early_why);
  std::string bad_why = "the data of " + std::to_string(st.bad.load()) + " differed";
  for (auto& w : why) {
    if (w.find("differs") != std::string::npos) {
      bad_why += ": " + w;
      break;
    }
  }
  tap.Check(st.ok.load() > 0 && st.bad.load() == 0,
            "live: traffic checked until the device went (" + std::to_string(st.ok.load()) +
                " exchanges, none with other data)",
            bad_why);
  tap.Check(removals.load() > 0, "live: rdma_cm reported the device's removal (" +
                                     std::to_string(removals.load()) + " DEVICE_REMOVAL, " +
                                     std::to_string(others.load()) + " other events)");
  const uint64_t ended = st.failed.load() + st.noticed.load() + st.bad.load();
  tap.Check(ended == conns.size(),
            "live: every traffic thread stopped (" + std::to_string(st.failed.load()) +
                " on a failed " + "completion or post, " + std::to_string(st.noticed.load()) +
                " on the removal event, of " + std::to_string(conns.size()) + ")");
  // The objects are gone from the kernel (disassociated): their destroy
  // calls may fail, librdmacm and libibverbs still free their side.
  for (auto& k : conns) Release(k);
  cpd_own.reset();
  spd_own.reset();
  rdma_destroy_id(listener);
  quit = true;
  events.join();
  tap.Check(true, "live: objects released after the removal");
  return tap.Finish();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 2 ? argv[2] : "";
  if (argc < 4 || (mode != "cycles" && mode != "live")) {
    std::fprintf(stderr, "usage: %s ADDR cycles N [SEED]\n       %s ADDR live QPS\n", argv[0],
                 argv[0]);
    return 64;
  }
  const int n = std::atoi(argv[3]);
  const uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 1;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  addrinfo hints{}, *ai = nullptr;
  hints.ai_family = AF_INET;
  const std::string port = std::to_string(kPort);
  if (getaddrinfo(argv[1], port.c_str(), &hints, &ai)) Die("getaddrinfo");
  Ends e;
  e.ai = ai;
  e.sch = rdma_create_event_channel();
  e.cch = rdma_create_event_channel();
  if (!e.sch || !e.cch) Die("rdma_create_event_channel");
  rdma_cm_id* listener = nullptr;
  if (rdma_create_id(e.sch, &listener, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
  if (rdma_bind_addr(listener, ai->ai_addr)) Die("rdma_bind_addr");
  if (rdma_listen(listener, 64)) Die("rdma_listen");

  int rc = 0;
  if (mode == "cycles") {
    rc = RunCycles(e, n, seed);
    rdma_destroy_id(listener);
  } else {
    rc = RunLive(e, listener, n);  // destroys the listener
  }
  rdma_destroy_event_channel(e.cch);
  rdma_destroy_event_channel(e.sch);
  freeaddrinfo(ai);
  return rc;
}
