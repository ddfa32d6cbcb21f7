// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Data integrity over rddp through librdmacm: RDMA Write, RDMA Read and
// Send/Recv with random sizes (0 B to 8 MiB), 1 to max SGEs on both sides,
// unaligned offsets, on many QPs at once; and a Read, a Write and a Send
// posted together, whose completions must come in posting order (RFC 5040
// §5.5) and whose Write source may be rewritten as soon as the Write has
// completed (zero-copy TX lends those pages to TCP until they are
// acknowledged). Both ends run in this process,
// over the address given (an rddp device's address). Every transfer is
// checked byte for byte; the last line is TAP-like: `integrity: N ok, N bad`.
//
//   rddp_integrity ADDR [QPS] [OPS_PER_QP] [SEED]
//
// Across two hosts (tests/vm/faults.sh, over a lossy link) the two ends run
// in two processes, and the client checks everything itself:
//
//   rddp_integrity --serve ADDR [QPS]          listens on ADDR, serves QPS
//                                              connections, then exits
//   rddp_integrity --connect ADDR [QPS] [OPS_PER_QP] [SEED] [MAX_KIB]
//                                              MAX_KIB: the largest transfer
//                                              (64 to 8192, default 8192)
//
// The server gives each connection a target buffer, filled with a pattern
// both ends know, in its accept's private data, and sends every message it
// receives back to the client. The client keeps a copy of what the target
// must hold: it reads back each region it writes, compares each Read with
// that copy and each echoed Send with what it sent; the ordered and fenced
// exchanges are those of the one-process mode, checked the same way.
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr uint32_t kMaxSize = 8U << 20;   // the largest transfer
constexpr uint32_t kSmallMax = 1U << 20;  // other QPs: up to 1 MiB
constexpr uint16_t kPort = 7999;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "integrity: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(2);
}

struct MrDeleter {
  void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
};
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;

// One registered buffer with slack for unaligned offsets.
struct Buffer {
  std::vector<uint8_t> mem;
  MrPtr mr;
  Buffer(ibv_pd* pd, size_t size) : mem(size + 8192) {
    mr.reset(ibv_reg_mr(pd, mem.data(), mem.size(),
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
    if (!mr) Die("ibv_reg_mr");
  }
  uint8_t* at(size_t off) { return mem.data() + off; }
};

// Waits for the next event on @ch, which must be @type. A connection step
// that never produces its event is a failure with a name, not a hang: iw_cm
// bounds connection setup (the MPA timeout) and close well below this.
// @id, when given, must be the event's cm_id: a pair that failed earlier
// leaves its own DISCONNECTED queued, which must not pass for another's.
// @other, when given, is the other side's channel: an event waiting there
// when this side's never came says which end gave up (a client's
// REJECTED or CONNECT_ERROR explains a server's missing CONNECT_REQUEST).
void ReportOther(rdma_event_channel* other) {
  pollfd pfd{other->fd, POLLIN, 0};
  rdma_cm_event* ev = nullptr;
  if (poll(&pfd, 1, 0) != 1 || rdma_get_cm_event(other, &ev)) {
    std::printf("# the other side has no event waiting either\n");
    return;
  }
  std::printf("# the other side has %s waiting (status %d)\n", rdma_event_str(ev->event),
              ev->status);
  rdma_ack_cm_event(ev);
}

rdma_cm_event* Expect(rdma_event_channel* ch, rdma_cm_event_type type, const char* side, int pair,
                      const rdma_cm_id* id = nullptr, rdma_event_channel* other = nullptr) {
  pollfd pfd{ch->fd, POLLIN, 0};
  int n = poll(&pfd, 1, 60 * 1000);
  if (n == 0) {
    std::printf("not ok - QP pair %d: no %s event on the %s side within 60 s\n", pair,
                rdma_event_str(type), side);
    if (other) ReportOther(other);
    std::exit(2);
  }
  rdma_cm_event* ev = nullptr;
  if (n < 0 || rdma_get_cm_event(ch, &ev)) Die("rdma_get_cm_event");
  if (ev->event != type || (id && ev->id != id)) {
    std::printf("not ok - QP pair %d: expected %s on the %s side, got %s (status %d)%s\n", pair,
                rdma_event_str(type), side, rdma_event_str(ev->event), ev->status,
                id && ev->id != id ? " of another connection" : "");
    std::exit(2);
  }
  return ev;
}

// A completion queue with its own completion channel: waiting for a
// completion sleeps in poll(2) instead of spinning, so that waiting threads
// leave the CPU to TCP: 64 of them on a slow link (--connect), 512 on
// User-Mode Linux's one CPU (loopback), where threads spinning on
// sched_yield() starved ksoftirqd, which carries loopback TCP, long enough
// on a loaded host for connections to go a minute without an ACK, past
// rddp's peer_timeout_ms.
class EventCq {
 public:
  EventCq(ibv_context* ctx, int cqe) : ch_(ibv_create_comp_channel(ctx)) {
    if (!ch_) Die("ibv_create_comp_channel");
    cq_ = ibv_create_cq(ctx, cqe, nullptr, ch_, 0);
    if (!cq_) Die("ibv_create_cq");
  }
  EventCq(const EventCq&) = delete;
  EventCq& operator=(const EventCq&) = delete;
  EventCq(EventCq&&) = delete;
  EventCq& operator=(EventCq&&) = delete;
  ~EventCq() {
    ibv_ack_cq_events(cq_, unacked_);
    ibv_destroy_cq(cq_);
    ibv_destroy_comp_channel(ch_);
  }
  ibv_cq* cq() const { return cq_; }

  // The next completion within @seconds (false: none, or an error). With
  // @stop, gives up too once *stop is set and nothing is left to poll.
  bool Next(ibv_wc* wc, int seconds, const std::atomic<bool>* stop = nullptr) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
      int n = ibv_poll_cq(cq_, 1, wc);
      if (n != 0) return n == 1;
      if (ibv_req_notify_cq(cq_, 0)) return false;
      // A completion that came before the request raised no event.
      n = ibv_poll_cq(cq_, 1, wc);
      if (n != 0) return n == 1;
      pollfd pfd{ch_->fd, POLLIN, 0};
      if (poll(&pfd, 1, 100) > 0) {
        ibv_cq* ev_cq = nullptr;
        void* ev_ctx = nullptr;
        if (ibv_get_cq_event(ch_, &ev_cq, &ev_ctx) == 0) unacked_++;
      }
      if ((stop && stop->load()) || std::chrono::steady_clock::now() > end) {
        return ibv_poll_cq(cq_, 1, wc) == 1;
      }
    }
  }

 private:
  ibv_comp_channel* ch_;
  ibv_cq* cq_ = nullptr;
  unsigned unacked_ = 0;
};

// One connected pair: client side c, server side s.
struct Pair {
  int index = 0;
  uint32_t max_size = kSmallMax;
  rdma_cm_id* c = nullptr;
  rdma_cm_id* s = nullptr;
  std::unique_ptr<EventCq> ccq, scq;
  std::unique_ptr<Buffer> cbuf, sbuf;
};

ibv_qp_init_attr QpAttr(ibv_cq* cq, const ibv_device_attr& da) {
  ibv_qp_init_attr a{};
  a.send_cq = cq;
  a.recv_cq = cq;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = 8;
  a.cap.max_recv_wr = 8;
  a.cap.max_send_sge = static_cast<uint32_t>(da.max_sge);
  a.cap.max_recv_sge = static_cast<uint32_t>(da.max_sge);
  return a;
}

// One completion within 120 s (none: false, wc->status then reads
// "success" from the zeroed wc, the step name says what is missing).
bool Poll(EventCq& cq, ibv_wc* wc) { return cq.Next(wc, 120); }

struct Stats {
  std::atomic<uint64_t> ok{0}, bad{0}, bytes{0};
};

// Split [off, off + len) of @buf into n SGEs of random lengths.
std::vector<ibv_sge> Split(std::mt19937_64& rng, Buffer& buf, size_t off, uint32_t len, int n) {
  std::vector<uint32_t> cuts{0, len};
  for (int i = 1; i < n; i++) cuts.push_back(len ? static_cast<uint32_t>(rng() % (len + 1)) : 0);
  std::sort(cuts.begin(), cuts.end());
  std::vector<ibv_sge> sges;
  for (size_t i = 0; i + 1 < cuts.size(); i++) {
    ibv_sge sg{};
    sg.addr = reinterpret_cast<uintptr_t>(buf.at(off + cuts[i]));
    sg.length = cuts[i + 1] - cuts[i];
    sg.lkey = buf.mr->lkey;
    sges.push_back(sg);
  }
  return sges;
}

void Fill(std::mt19937_64& rng, uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = static_cast<uint8_t>(rng());
}

// Log-uniform sizes with zero, tiny and the largest size included.
uint32_t PickSize(std::mt19937_64& rng, uint32_t max) {
  switch (rng() % 8) {
    case 0:
      return 0;
    case 1:
      return 1 + static_cast<uint32_t>(rng() % 64);
    default: {
      double e = std::uniform_real_distribution<double>(0, std::log2(double(max)))(rng);
      return std::min(max, static_cast<uint32_t>(std::exp2(e)));
    }
  }
}

bool RunOp(Pair& p, std::mt19937_64& rng, int op, uint32_t len, int max_sge, Stats& st) {
  size_t coff = rng() % 4096 + 1, soff = rng() % 4096 + 3;  // unaligned
  ibv_send_wr wr{}, *bad = nullptr;
  ibv_recv_wr rwr{}, *rbad = nullptr;
  ibv_wc wc{};
  std::vector<ibv_sge> csg, ssg;
  uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  const char* name = "";

  switch (op) {
    case 0:  // RDMA Write: client -> server, then a Send to know it is placed
      name = "write";
      Fill(rng, p.cbuf->at(coff), len);
      csg = Split(rng, *p.cbuf, coff, len, 1 + static_cast<int>(rng() % max_sge));
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(p.sbuf->at(soff));
      wr.wr.rdma.rkey = p.sbuf->mr->rkey;
      src = p.cbuf->at(coff);
      dst = p.sbuf->at(soff);
      break;
    case 1:  // RDMA Read: server memory -> client (one SGE: max_sge_rd)
      name = "read";
      Fill(rng, p.sbuf->at(soff), len);
      csg = Split(rng, *p.cbuf, coff, len, 1);
      wr.opcode = IBV_WR_RDMA_READ;
      wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(p.sbuf->at(soff));
      wr.wr.rdma.rkey = p.sbuf->mr->rkey;
      src = p.sbuf->at(soff);
      dst = p.cbuf->at(coff);
      break;
    default:  // Send into a receive of several SGEs
      name = "send";
      Fill(rng, p.cbuf->at(coff), len);
      csg = Split(rng, *p.cbuf, coff, len, 1 + static_cast<int>(rng() % max_sge));
      ssg = Split(rng, *p.sbuf, soff, len, 1 + static_cast<int>(rng() % max_sge));
      rwr.sg_list = ssg.data();
      rwr.num_sge = static_cast<int>(ssg.size());
      if ((errno = ibv_post_recv(p.s->qp, &rwr, &rbad))) Die("ibv_post_recv");
      wr.opcode = IBV_WR_SEND;
      src = p.cbuf->at(coff);
      dst = p.sbuf->at(soff);
      break;
  }
  wr.sg_list = csg.data();
  wr.num_sge = static_cast<int>(csg.size());
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_sge note_sge{};
  if (op == 0) {
    // libsiw refuses a receive without SGEs: one empty SGE.
    rwr = {};
    note_sge.lkey = p.sbuf->mr->lkey;
    note_sge.addr = reinterpret_cast<uintptr_t>(p.sbuf->at(0));
    rwr.sg_list = &note_sge;
    rwr.num_sge = 1;
    if ((errno = ibv_post_recv(p.s->qp, &rwr, &rbad))) Die("ibv_post_recv (write note)");
  }
  if ((errno = ibv_post_send(p.c->qp, &wr, &bad))) Die("ibv_post_send");
  // Each step names itself so a failure says where it stopped.
  const char* step = "client completion";
  bool good = Poll(*p.ccq, &wc) && wc.status == IBV_WC_SUCCESS;
  if (good && op == 0) {
    ibv_send_wr note{}, *nbad = nullptr;
    note.opcode = IBV_WR_SEND;
    note.send_flags = IBV_SEND_SIGNALED;
    if (ibv_post_send(p.c->qp, &note, &nbad)) Die("ibv_post_send");
    step = "client completion of the note";
    good = Poll(*p.ccq, &wc) && wc.status == IBV_WC_SUCCESS;
  }
  if (good && op != 1) {
    step = "server completion";
    good = Poll(*p.scq, &wc) && wc.status == IBV_WC_SUCCESS;
    if (good && op == 2 && wc.byte_len != len) good = false;
  }
  if (good) {
    step = "data compare";
    good = std::memcmp(src, dst, len) == 0;
  }
  if (!good) {
    std::printf("not ok - QP pair %d: %s of %u bytes in %zu SGEs: %s failed (status %s)\n", p.index,
                name, len, csg.size(), step, ibv_wc_status_str(wc.status));
    st.bad++;
    return false;
  }
  st.ok++;
  st.bytes += len;
  return true;
}

// A one-SGE receive on the server for the Send that ends an exchange
// (libsiw refuses a receive without SGEs).
void PostNoteRecv(Pair& p, const char* what) {
  ibv_sge sge{};
  sge.lkey = p.sbuf->mr->lkey;
  sge.addr = reinterpret_cast<uintptr_t>(p.sbuf->at(0));
  ibv_recv_wr rwr{}, *bad = nullptr;
  rwr.sg_list = &sge;
  rwr.num_sge = 1;
  if ((errno = ibv_post_recv(p.s->qp, &rwr, &bad))) Die(std::string("ibv_post_recv ") + what);
}

// An RDMA Read or Write WR over @sg with the server's buffer at @remote.
void SetRdma(ibv_send_wr& wr, ibv_wr_opcode opcode, std::vector<ibv_sge>& sg, const Pair& p,
             const uint8_t* remote) {
  wr.opcode = opcode;
  wr.sg_list = sg.data();
  wr.num_sge = static_cast<int>(sg.size());
  wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(remote);
  wr.wr.rdma.rkey = p.sbuf->mr->rkey;
}

// A Read, a Write and a Send posted in one call: the send CQ reports them
// in that order although the Read finishes last on the wire (its response
// comes back after the Write and the Send have gone). The Write's source is
// rewritten as soon as its completion is seen; the server must still have
// received what was there when it was posted.
bool RunOrdered(Pair& p, std::mt19937_64& rng, Stats& st) {
  const size_t half = p.max_size / 2;
  const uint32_t rlen = PickSize(rng, static_cast<uint32_t>(half - 8192));
  const uint32_t wlen = PickSize(rng, static_cast<uint32_t>(half - 8192));
  const size_t roff = rng() % 4096 + 1, woff = half + rng() % 4096 + 5;
  const size_t sroff = rng() % 4096 + 3, swoff = half + rng() % 4096 + 7;
  Fill(rng, p.sbuf->at(sroff), rlen);
  Fill(rng, p.cbuf->at(woff), wlen);
  const std::vector<uint8_t> wrote(p.cbuf->at(woff), p.cbuf->at(woff) + wlen);

  PostNoteRecv(p, "(ordered)");

  std::vector<ibv_sge> rsg = Split(rng, *p.cbuf, roff, rlen, 1);
  std::vector<ibv_sge> wsg = Split(rng, *p.cbuf, woff, wlen, 1);
  ibv_send_wr wr[3]{}, *bad = nullptr;
  wr[0].wr_id = 1;
  SetRdma(wr[0], IBV_WR_RDMA_READ, rsg, p, p.sbuf->at(sroff));
  wr[1].wr_id = 2;
  SetRdma(wr[1], IBV_WR_RDMA_WRITE, wsg, p, p.sbuf->at(swoff));
  wr[2].wr_id = 3;
  wr[2].opcode = IBV_WR_SEND;
  for (int i = 0; i < 3; i++) {
    wr[i].send_flags = IBV_SEND_SIGNALED;
    wr[i].next = i < 2 ? &wr[i + 1] : nullptr;
  }
  if ((errno = ibv_post_send(p.c->qp, wr, &bad))) Die("ibv_post_send (ordered)");

  static constexpr ibv_wc_opcode kOpcodes[3] = {IBV_WC_RDMA_READ, IBV_WC_RDMA_WRITE, IBV_WC_SEND};
  ibv_wc wc{};
  std::string failed;
  for (uint64_t i = 0; i < 3 && failed.empty(); i++) {
    if (!Poll(*p.ccq, &wc) || wc.status != IBV_WC_SUCCESS) {
      failed = "client completion " + std::to_string(i + 1) + " (status " +
               ibv_wc_status_str(wc.status) + ")";
    } else if (wc.wr_id != i + 1 || wc.opcode != kOpcodes[i]) {
      failed = "completion " + std::to_string(i + 1) + " is WR " + std::to_string(wc.wr_id) +
               " (out of order)";
    } else if (i == 1) {
      std::memset(p.cbuf->at(woff), 0xa5, wlen);  // the Write's buffer is ours again
    }
  }
  if (failed.empty() && (!Poll(*p.scq, &wc) || wc.status != IBV_WC_SUCCESS)) {
    failed = "server completion of the Send";
  }
  if (failed.empty() && std::memcmp(p.cbuf->at(roff), p.sbuf->at(sroff), rlen) != 0) {
    failed = "Read data compare";
  }
  if (failed.empty() && std::memcmp(p.sbuf->at(swoff), wrote.data(), wlen) != 0) {
    failed = "Write data compare (source rewritten after its completion)";
  }
  if (!failed.empty()) {
    std::printf("not ok - QP pair %d: ordered Read %u B, Write %u B, Send: %s\n", p.index, rlen,
                wlen, failed.c_str());
    st.bad++;
    return false;
  }
  st.ok++;
  st.bytes += rlen + wlen;
  return true;
}

// A Read and, right behind it, a Write with IBV_SEND_FENCE that sends back
// what the Read fetches, then a Send. The fence (libsiw's
// SIW_WQE_READ_FENCE) holds the Write until the Read has completed, so the
// server gets the Read's data, not what the buffer held before (0x5a). The
// Send goes last: its arrival tells the server that the Write is placed
// (RFC 5040 §5.5); the client's completion only says it was sent.
bool RunFenced(Pair& p, std::mt19937_64& rng, Stats& st) {
  const size_t half = p.max_size / 2;
  const uint32_t len = 1 + PickSize(rng, static_cast<uint32_t>(half - 8192));
  const size_t coff = rng() % 4096 + 1;
  const size_t sroff = rng() % 4096 + 3, swoff = half + rng() % 4096 + 7;
  Fill(rng, p.sbuf->at(sroff), len);
  std::memset(p.cbuf->at(coff), 0x5a, len);
  std::memset(p.sbuf->at(swoff), 0xc3, len);

  PostNoteRecv(p, "(fenced)");

  std::vector<ibv_sge> rsg = Split(rng, *p.cbuf, coff, len, 1);
  std::vector<ibv_sge> wsg = Split(rng, *p.cbuf, coff, len, 1);
  ibv_send_wr wr[3]{}, *bad = nullptr;
  SetRdma(wr[0], IBV_WR_RDMA_READ, rsg, p, p.sbuf->at(sroff));
  SetRdma(wr[1], IBV_WR_RDMA_WRITE, wsg, p, p.sbuf->at(swoff));
  wr[1].send_flags = IBV_SEND_FENCE;
  wr[2].opcode = IBV_WR_SEND;
  for (int i = 0; i < 3; i++) {
    wr[i].wr_id = static_cast<uint64_t>(i) + 1;
    wr[i].send_flags |= IBV_SEND_SIGNALED;
    wr[i].next = i < 2 ? &wr[i + 1] : nullptr;
  }
  if ((errno = ibv_post_send(p.c->qp, wr, &bad))) Die("ibv_post_send (fenced)");

  ibv_wc wc{};
  std::string failed;
  for (int i = 0; i < 3 && failed.empty(); i++) {
    if (!Poll(*p.ccq, &wc) || wc.status != IBV_WC_SUCCESS) {
      failed = "client completion " + std::to_string(i + 1) + " (status " +
               ibv_wc_status_str(wc.status) + ")";
    }
  }
  if (failed.empty() && (!Poll(*p.scq, &wc) || wc.status != IBV_WC_SUCCESS)) {
    failed = "server completion of the Send";
  }
  if (failed.empty() && std::memcmp(p.sbuf->at(swoff), p.sbuf->at(sroff), len) != 0) {
    failed = "Write data compare (sent before the Read completed)";
  }
  if (!failed.empty()) {
    std::printf("not ok - QP pair %d: Read %u B, fenced Write of it, Send: %s\n", p.index, len,
                failed.c_str());
    st.bad++;
    return false;
  }
  st.ok++;
  st.bytes += 2ULL * len;
  return true;
}

// ---- Two hosts: --serve and --connect ----

// The client's connect private data: which pair, how large its buffers.
struct Hello {
  uint32_t index;
  uint32_t max_size;
};
// The server's accept private data: the pair's target buffer.
struct Target {
  uint64_t addr;
  uint32_t rkey;
  uint32_t len;
};

// What the server's target buffer holds before the client writes to it.
uint8_t Pattern(uint32_t index, size_t i) {
  return static_cast<uint8_t>((i * 131U) ^ (i >> 9) ^ (index * 7U + 1));
}

// Waits for @ch's next event (600 s at most: the server waits on clients
// that connect one after another over a slow link); nullptr on a timeout.
rdma_cm_event* NextEvent(rdma_event_channel* ch) {
  pollfd pfd{ch->fd, POLLIN, 0};
  int n = poll(&pfd, 1, 600 * 1000);
  if (n == 0) return nullptr;
  rdma_cm_event* ev = nullptr;
  if (n < 0 || rdma_get_cm_event(ch, &ev)) Die("rdma_get_cm_event");
  return ev;
}

// One connection of the server: its target, two receive buffers that take
// turns (the next receive is posted before the echo of the last one goes),
// and the thread that echoes.
struct Served {
  uint32_t index = 0;
  uint32_t max_size = 0;
  rdma_cm_id* id = nullptr;
  std::unique_ptr<EventCq> cq;
  std::unique_ptr<Buffer> target, echo[2];
  size_t echo_off[2] = {0, 0};
  int cur = 0;
  int max_sge = 1;
  std::mt19937_64 rng;
  std::thread thread;
  std::atomic<bool> gone{false};
  uint64_t echoes = 0;
  std::string error;

  void PostRecv() {
    echo_off[cur] = rng() % 4096 + 3;
    std::vector<ibv_sge> sg =
        Split(rng, *echo[cur], echo_off[cur], max_size, 1 + static_cast<int>(rng() % max_sge));
    ibv_recv_wr wr{}, *bad = nullptr;
    wr.sg_list = sg.data();
    wr.num_sge = static_cast<int>(sg.size());
    if ((errno = ibv_post_recv(id->qp, &wr, &bad))) Die("ibv_post_recv (server)");
  }

  // Until the connection ends (its receive flushed): each message received
  // goes back to the client from where it landed, in other SGEs.
  void Echo() {
    ibv_wc wc{};
    while (cq->Next(&wc, 3600, &gone)) {
      if (wc.status == IBV_WC_WR_FLUSH_ERR) return;
      if (wc.status != IBV_WC_SUCCESS) {
        error = std::string(wc.opcode & IBV_WC_RECV ? "receive" : "echo") + " completed with " +
                ibv_wc_status_str(wc.status);
        return;
      }
      if (!(wc.opcode & IBV_WC_RECV)) continue;  // an echo's send completion
      const int got = cur;
      cur ^= 1;
      PostRecv();
      std::vector<ibv_sge> sg =
          Split(rng, *echo[got], echo_off[got], wc.byte_len, 1 + static_cast<int>(rng() % max_sge));
      ibv_send_wr wr{}, *bad = nullptr;
      wr.opcode = IBV_WR_SEND;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.sg_list = sg.data();
      wr.num_sge = static_cast<int>(sg.size());
      if ((errno = ibv_post_send(id->qp, &wr, &bad))) {
        error = std::string("ibv_post_send (echo): ") + std::strerror(errno);
        return;
      }
      echoes++;
    }
  }
};

int RunServer(const addrinfo* ai, int nqp) {
  rdma_event_channel* ch = rdma_create_event_channel();
  if (!ch) Die("rdma_create_event_channel");
  rdma_cm_id* listener = nullptr;
  if (rdma_create_id(ch, &listener, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
  if (rdma_bind_addr(listener, ai->ai_addr)) Die("rdma_bind_addr");
  if (rdma_listen(listener, nqp)) Die("rdma_listen");
  std::printf("# listening for %d connections\n", nqp);

  ibv_pd* pd = nullptr;
  ibv_device_attr da{};
  std::vector<std::unique_ptr<Served>> served;
  int closed = 0, bad = 0;
  uint64_t echoes = 0;
  while (closed < nqp) {
    rdma_cm_event* ev = NextEvent(ch);
    if (!ev) {
      std::printf("not ok - server: no connection event for 600 s (%d of %d closed)\n", closed,
                  nqp);
      std::exit(2);  // echo threads may run: no unwinding
    }
    auto* s = static_cast<Served*>(ev->id->context);
    switch (ev->event) {
      case RDMA_CM_EVENT_CONNECT_REQUEST: {
        Hello hello{};
        if (ev->param.conn.private_data_len < sizeof(hello)) {
          std::printf("not ok - server: a connection request without its hello\n");
          std::exit(2);  // echo threads may run: no unwinding
        }
        std::memcpy(&hello, ev->param.conn.private_data, sizeof(hello));
        if (hello.max_size > kMaxSize) {
          std::printf("not ok - server: pair %u asks for %u bytes\n", hello.index, hello.max_size);
          std::exit(2);  // echo threads may run: no unwinding
        }
        if (!pd) {
          pd = ibv_alloc_pd(ev->id->verbs);
          if (!pd || ibv_query_device(ev->id->verbs, &da)) Die("ibv_alloc_pd/query_device");
        }
        served.push_back(std::make_unique<Served>());
        s = served.back().get();
        s->index = hello.index;
        s->max_size = hello.max_size;
        s->id = ev->id;
        s->id->context = s;
        s->max_sge = da.max_sge;
        s->rng.seed(hello.index + 77);
        s->cq = std::make_unique<EventCq>(ev->id->verbs, 32);
        ibv_qp_init_attr qa = QpAttr(s->cq->cq(), da);
        if (rdma_create_qp(s->id, pd, &qa)) Die("rdma_create_qp (server)");
        s->target = std::make_unique<Buffer>(pd, s->max_size);
        for (size_t i = 0; i < s->target->mem.size(); i++) s->target->mem[i] = Pattern(s->index, i);
        for (auto& e : s->echo) e = std::make_unique<Buffer>(pd, s->max_size);
        s->PostRecv();
        Target t{reinterpret_cast<uintptr_t>(s->target->at(0)), s->target->mr->rkey,
                 static_cast<uint32_t>(s->target->mem.size())};
        rdma_conn_param cp{};
        cp.initiator_depth = 1;
        cp.responder_resources = 1;
        cp.private_data = &t;
        cp.private_data_len = sizeof(t);
        if (rdma_accept(s->id, &cp)) Die("rdma_accept");
        s->thread = std::thread([s] { s->Echo(); });
        break;
      }
      case RDMA_CM_EVENT_ESTABLISHED:
        break;
      case RDMA_CM_EVENT_DISCONNECTED: {
        rdma_ack_cm_event(ev);
        ev = nullptr;
        s->gone = true;
        s->thread.join();
        if (!s->error.empty()) {
          std::printf("not ok - server, pair %u: %s\n", s->index, s->error.c_str());
          bad++;
        }
        echoes += s->echoes;
        rdma_destroy_qp(s->id);
        rdma_destroy_id(s->id);
        s->cq.reset();
        s->target.reset();
        for (auto& e : s->echo) e.reset();
        closed++;
        break;
      }
      default:
        std::printf("not ok - server: unexpected %s (status %d)\n", rdma_event_str(ev->event),
                    ev->status);
        std::exit(2);  // echo threads may run: no unwinding
    }
    if (ev) rdma_ack_cm_event(ev);
  }
  ibv_dealloc_pd(pd);
  rdma_destroy_id(listener);
  rdma_destroy_event_channel(ch);
  std::printf("integrity-server: %d connections, %llu echoes, %d bad\n", closed,
              static_cast<unsigned long long>(echoes), bad);
  return bad ? 1 : 0;
}

// The client's side of one connection: its own buffers (src: what it
// writes and sends, and where Reads land; chk: read-backs; echo: the
// server's echoes), the target's address and what the target must hold.
struct Client {
  int index = 0;
  uint32_t max_size = kSmallMax;
  int max_sge = 1;
  rdma_cm_id* id = nullptr;
  std::unique_ptr<EventCq> scq, rcq;
  std::unique_ptr<Buffer> src, chk, echo;
  Target target{};
  std::vector<uint8_t> shadow;
  double seconds = 0;  // how long its exchanges took

  // The next send completion, which must be WR @wr_id and succeed.
  bool SendDone(uint64_t wr_id, std::string& failed) const {
    ibv_wc wc{};
    if (!scq->Next(&wc, 300)) {
      failed = "no send completion within 300 s";
    } else if (wc.status != IBV_WC_SUCCESS) {
      failed = std::string("send completion ") + ibv_wc_status_str(wc.status);
    } else if (wc.wr_id != wr_id) {
      failed = "completion of WR " + std::to_string(wc.wr_id) + " where " + std::to_string(wr_id) +
               " was due (out of order)";
    }
    return failed.empty();
  }
  // The echo of a Send of @len bytes, received at @off of echo.
  bool EchoDone(uint32_t len, std::string& failed) const {
    ibv_wc wc{};
    if (!rcq->Next(&wc, 300)) {
      failed = "no echo within 300 s";
    } else if (wc.status != IBV_WC_SUCCESS) {
      failed = std::string("echo completion ") + ibv_wc_status_str(wc.status);
    } else if (wc.byte_len != len) {
      failed = "echo of " + std::to_string(wc.byte_len) + " bytes";
    }
    return failed.empty();
  }
  void PostEchoRecv(std::mt19937_64& rng, size_t off, uint32_t len) const {
    // Room to spare; a zero-length receive still gets one (empty) SGE:
    // libsiw refuses a receive without SGEs.
    const auto room = static_cast<uint32_t>(len + rng() % 64);
    std::vector<ibv_sge> sg = Split(rng, *echo, off, room, 1 + static_cast<int>(rng() % max_sge));
    ibv_recv_wr wr{}, *bad = nullptr;
    wr.sg_list = sg.data();
    wr.num_sge = static_cast<int>(sg.size());
    if ((errno = ibv_post_recv(id->qp, &wr, &bad))) Die("ibv_post_recv (client)");
  }
  // An RDMA Write or Read of the target at @toff over @sg.
  ibv_send_wr Rdma(ibv_wr_opcode opcode, std::vector<ibv_sge>& sg, size_t toff,
                   uint64_t wr_id) const {
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.opcode = opcode;
    wr.sg_list = sg.data();
    wr.num_sge = static_cast<int>(sg.size());
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = target.addr + toff;
    wr.wr.rdma.rkey = target.rkey;
    return wr;
  }
  void Post(ibv_send_wr* wr) const {
    ibv_send_wr* bad = nullptr;
    if ((errno = ibv_post_send(id->qp, wr, &bad))) Die("ibv_post_send (client)");
  }
  // Reads [toff, toff + len) of the target into chk and compares it with
  // @want (the shadow, or what was just written).
  bool ReadBack(std::mt19937_64& rng, size_t toff, uint32_t len, const uint8_t* want,
                std::string& failed) const {
    const size_t off = rng() % 4096 + 5;
    std::memset(chk->at(off), 0xee, len);
    std::vector<ibv_sge> sg = Split(rng, *chk, off, len, 1);
    ibv_send_wr wr = Rdma(IBV_WR_RDMA_READ, sg, toff, 99);
    Post(&wr);
    if (!SendDone(99, failed)) {
      failed = "read-back: " + failed;
      return false;
    }
    if (std::memcmp(chk->at(off), want, len) != 0) {
      failed = "read-back differs from what the target must hold";
      return false;
    }
    return true;
  }
};

bool Report(const Client& c, const char* what, uint32_t len, const std::string& failed, Stats& st,
            uint64_t bytes) {
  if (!failed.empty()) {
    std::printf("not ok - QP pair %d: %s of %u bytes: %s\n", c.index, what, len, failed.c_str());
    st.bad++;
    return false;
  }
  st.ok++;
  st.bytes += bytes;
  return true;
}

// A Write of random data in random SGEs to a random place in the target,
// read back.
bool TwoWrite(Client& c, std::mt19937_64& rng, uint32_t len, Stats& st) {
  const size_t off = rng() % 4096 + 1, toff = rng() % 4096 + 3;
  Fill(rng, c.src->at(off), len);
  std::vector<ibv_sge> sg = Split(rng, *c.src, off, len, 1 + static_cast<int>(rng() % c.max_sge));
  ibv_send_wr wr = c.Rdma(IBV_WR_RDMA_WRITE, sg, toff, 1);
  c.Post(&wr);
  std::string failed;
  if (c.SendDone(1, failed)) {
    std::memcpy(c.shadow.data() + toff, c.src->at(off), len);
    c.ReadBack(rng, toff, len, c.shadow.data() + toff, failed);
  }
  return Report(c, "write", len, failed, st, 2ULL * len);
}

// A Read of a random place in the target, compared with what it must hold.
bool TwoRead(Client& c, std::mt19937_64& rng, uint32_t len, Stats& st) {
  const size_t off = rng() % 4096 + 1, toff = rng() % 4096 + 3;
  std::memset(c.src->at(off), 0x77, len);
  std::vector<ibv_sge> sg = Split(rng, *c.src, off, len, 1);
  ibv_send_wr wr = c.Rdma(IBV_WR_RDMA_READ, sg, toff, 2);
  c.Post(&wr);
  std::string failed;
  if (c.SendDone(2, failed) && std::memcmp(c.src->at(off), c.shadow.data() + toff, len) != 0) {
    failed = "data compare";
  }
  return Report(c, "read", len, failed, st, len);
}

// A Send in random SGEs, echoed by the server into other random SGEs.
bool TwoSend(Client& c, std::mt19937_64& rng, uint32_t len, Stats& st) {
  const size_t off = rng() % 4096 + 1, eoff = rng() % 4096 + 3;
  Fill(rng, c.src->at(off), len);
  std::memset(c.echo->at(eoff), 0x33, len);
  c.PostEchoRecv(rng, eoff, len);
  std::vector<ibv_sge> sg = Split(rng, *c.src, off, len, 1 + static_cast<int>(rng() % c.max_sge));
  ibv_send_wr wr{};
  wr.wr_id = 3;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = sg.data();
  wr.num_sge = static_cast<int>(sg.size());
  c.Post(&wr);
  std::string failed;
  if (c.SendDone(3, failed) && c.EchoDone(len, failed) &&
      std::memcmp(c.echo->at(eoff), c.src->at(off), len) != 0) {
    failed = "echo differs from what was sent";
  }
  return Report(c, "send", len, failed, st, 2ULL * len);
}

// Read (first half of the target) + Write (second half) + Send in one
// post, completed in that order; the Write's source rewritten once its
// completion is seen, the Write read back. With @fence, the Write sends
// what the Read fetched and waits for it (IBV_SEND_FENCE).
bool TwoOrdered(Client& c, std::mt19937_64& rng, bool fence, Stats& st) {
  const size_t half = c.max_size / 2;
  const uint32_t rlen = (fence ? 1 : 0) + PickSize(rng, static_cast<uint32_t>(half - 8192));
  const uint32_t wlen = fence ? rlen : PickSize(rng, static_cast<uint32_t>(half - 8192));
  const size_t roff = rng() % 4096 + 1;
  const size_t woff = fence ? roff : half + rng() % 4096 + 5;
  const size_t troff = rng() % 4096 + 3, twoff = half + rng() % 4096 + 7;
  const size_t eoff = rng() % 4096;
  std::memset(c.src->at(roff), 0x5a, rlen);
  if (!fence) Fill(rng, c.src->at(woff), wlen);
  const std::vector<uint8_t> wrote(c.src->at(woff), c.src->at(woff) + wlen);
  c.PostEchoRecv(rng, eoff, 0);

  std::vector<ibv_sge> rsg = Split(rng, *c.src, roff, rlen, 1);
  std::vector<ibv_sge> wsg = Split(rng, *c.src, woff, wlen, 1);
  ibv_send_wr wr[3] = {c.Rdma(IBV_WR_RDMA_READ, rsg, troff, 1),
                       c.Rdma(IBV_WR_RDMA_WRITE, wsg, twoff, 2), ibv_send_wr{}};
  if (fence) wr[1].send_flags |= IBV_SEND_FENCE;
  wr[2].wr_id = 3;
  wr[2].opcode = IBV_WR_SEND;
  wr[2].send_flags = IBV_SEND_SIGNALED;
  wr[0].next = &wr[1];
  wr[1].next = &wr[2];
  c.Post(wr);

  std::string failed;
  for (uint64_t i = 1; i <= 3 && failed.empty(); i++) {
    if (c.SendDone(i, failed) && i == 2 && !fence) {
      std::memset(c.src->at(woff), 0xa5, wlen);  // the Write's buffer is ours again
    }
  }
  if (failed.empty()) c.EchoDone(0, failed);
  if (failed.empty() && std::memcmp(c.src->at(roff), c.shadow.data() + troff, rlen) != 0) {
    failed = "Read data compare";
  }
  if (failed.empty()) {
    // Fenced: the Write carried what the Read fetched, not 0x5a.
    const uint8_t* w = fence ? c.shadow.data() + troff : wrote.data();
    std::memmove(c.shadow.data() + twoff, w, wlen);
    if (!c.ReadBack(rng, twoff, wlen, c.shadow.data() + twoff, failed)) {
      failed = fence ? "fenced Write sent before the Read completed (" + failed + ")"
                     : "Write data (source rewritten after its completion): " + failed;
    }
  }
  return Report(c, fence ? "Read, fenced Write of it, Send" : "ordered Read, Write, Send",
                rlen + wlen, failed, st, 2ULL * (rlen + wlen));
}

int RunClient(const addrinfo* ai, int nqp, int ops, uint64_t seed, uint32_t max_size) {
  rdma_event_channel* ch = rdma_create_event_channel();
  if (!ch) Die("rdma_create_event_channel");
  ibv_pd* pd = nullptr;
  ibv_device_attr da{};
  std::vector<Client> clients(static_cast<size_t>(nqp));
  for (int i = 0; i < nqp; i++) {
    Client& c = clients[static_cast<size_t>(i)];
    c.index = i;
    c.max_size = i == 0 ? max_size : std::min(kSmallMax, max_size);
    if (rdma_create_id(ch, &c.id, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
    if (rdma_resolve_addr(c.id, nullptr, ai->ai_addr, 5000)) Die("rdma_resolve_addr");
    rdma_ack_cm_event(Expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, "client", i));
    if (rdma_resolve_route(c.id, 5000)) Die("rdma_resolve_route");
    rdma_ack_cm_event(Expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client", i));
    if (!pd) {
      pd = ibv_alloc_pd(c.id->verbs);
      if (!pd || ibv_query_device(c.id->verbs, &da)) Die("ibv_alloc_pd/query_device");
    }
    c.max_sge = da.max_sge;
    c.scq = std::make_unique<EventCq>(c.id->verbs, 16);
    c.rcq = std::make_unique<EventCq>(c.id->verbs, 16);
    ibv_qp_init_attr qa = QpAttr(c.scq->cq(), da);
    qa.recv_cq = c.rcq->cq();
    if (rdma_create_qp(c.id, pd, &qa)) Die("rdma_create_qp (client)");
    c.src = std::make_unique<Buffer>(pd, c.max_size);
    c.chk = std::make_unique<Buffer>(pd, c.max_size);
    c.echo = std::make_unique<Buffer>(pd, c.max_size);

    Hello hello{static_cast<uint32_t>(i), c.max_size};
    rdma_conn_param cp{};
    cp.initiator_depth = 1;
    cp.responder_resources = 1;
    cp.private_data = &hello;
    cp.private_data_len = sizeof(hello);
    if (rdma_connect(c.id, &cp)) Die("rdma_connect");
    rdma_cm_event* ev = Expect(ch, RDMA_CM_EVENT_ESTABLISHED, "client", i, c.id);
    if (ev->param.conn.private_data_len < sizeof(Target)) {
      std::printf("not ok - QP pair %d: the server's accept carries no target\n", i);
      return 2;
    }
    std::memcpy(&c.target, ev->param.conn.private_data, sizeof(Target));
    rdma_ack_cm_event(ev);
    if (c.target.len != c.max_size + 8192) {
      std::printf("not ok - QP pair %d: target of %u bytes\n", i, c.target.len);
      return 2;
    }
    c.shadow.resize(c.target.len);
    for (size_t k = 0; k < c.shadow.size(); k++) c.shadow[k] = Pattern(c.index, k);
  }
  std::printf("# %d QP pairs connected to the server (max SGEs %d)\n", nqp, da.max_sge);

  Stats st;
  std::vector<std::thread> threads;
  threads.reserve(clients.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& c : clients) {
    threads.emplace_back([&c, &st, ops, seed, t0] {
      struct Timer {
        Client& c;
        std::chrono::steady_clock::time_point t0;
        ~Timer() {
          c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
      } timer{c, t0};
      std::mt19937_64 rng(seed * 1000003 + static_cast<uint64_t>(c.index));
      // Pair 0 moves the largest size once with each operation.
      if (c.index == 0 && !(TwoWrite(c, rng, c.max_size, st) && TwoRead(c, rng, c.max_size, st) &&
                            TwoSend(c, rng, c.max_size, st))) {
        return;
      }
      for (int k = 0; k < ops; k++) {
        bool good = false;
        switch (rng() % 5) {
          case 0:
            good = TwoWrite(c, rng, PickSize(rng, c.max_size), st);
            break;
          case 1:
            good = TwoRead(c, rng, PickSize(rng, c.max_size), st);
            break;
          case 2:
            good = TwoSend(c, rng, PickSize(rng, c.max_size), st);
            break;
          default:
            good = TwoOrdered(c, rng, k % 2 == 0, st);
        }
        if (!good) return;
      }
    });
  }
  for (auto& t : threads) t.join();
  const Client* slowest = &clients.back();
  for (const auto& c : clients) {
    if (c.index != 0 && c.seconds > slowest->seconds) slowest = &c;
  }
  std::printf(
      "# transfers done: %llu ok, %llu bad in %.1f s (pair 0: %.1f s, slowest other: "
      "pair %d, %.1f s); disconnecting\n",
      static_cast<unsigned long long>(st.ok.load()), static_cast<unsigned long long>(st.bad.load()),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
      clients[0].seconds, slowest->index, slowest->seconds);
  for (auto& c : clients) {
    rdma_disconnect(c.id);
    rdma_ack_cm_event(Expect(ch, RDMA_CM_EVENT_DISCONNECTED, "client", c.index, c.id));
    rdma_destroy_qp(c.id);
    c.src.reset();
    c.chk.reset();
    c.echo.reset();
    c.scq.reset();
    c.rcq.reset();
    rdma_destroy_id(c.id);
  }
  ibv_dealloc_pd(pd);
  rdma_destroy_event_channel(ch);
  std::printf("integrity: %llu ok, %llu bad, %llu bytes verified\n",
              static_cast<unsigned long long>(st.ok.load()),
              static_cast<unsigned long long>(st.bad.load()),
              static_cast<unsigned long long>(st.bytes.load()));
  return st.bad.load() || st.ok.load() == 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool serve = mode == "--serve", connect = mode == "--connect";
  const int a = serve || connect ? 2 : 1;  // ADDR's place
  if (argc <= a) {
    std::fprintf(stderr,
                 "usage: %s ADDR [QPS] [OPS_PER_QP] [SEED]\n"
                 "       %s --serve ADDR [QPS]\n"
                 "       %s --connect ADDR [QPS] [OPS_PER_QP] [SEED] [MAX_KIB]\n",
                 argv[0], argv[0], argv[0]);
    return 64;
  }
  const int nqp = argc > a + 1 ? std::atoi(argv[a + 1]) : 64;
  const int ops = argc > a + 2 ? std::atoi(argv[a + 2]) : 6;
  const uint64_t seed = argc > a + 3 ? std::strtoull(argv[a + 3], nullptr, 0) : 1;
  // Line-buffered: a run killed from outside still shows how far it got.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  addrinfo hints{}, *ai = nullptr;
  hints.ai_family = AF_UNSPEC;  // IPv4 or IPv6, as ADDR is written
  std::string port = std::to_string(kPort);
  if (getaddrinfo(argv[a], port.c_str(), &hints, &ai)) Die("getaddrinfo");
  if (serve || connect) {
    // --connect: pair 0's largest transfer (8 MiB by default; the others
    // stay at 1 MiB or below it).
    const uint64_t max_kib = argc > a + 4 ? std::strtoull(argv[a + 4], nullptr, 0) : 0;
    const uint32_t max_size = max_kib >= 64 && max_kib <= kMaxSize / 1024
                                  ? static_cast<uint32_t>(max_kib * 1024)
                                  : kMaxSize;
    const int rc = serve ? RunServer(ai, nqp) : RunClient(ai, nqp, ops, seed, max_size);
    freeaddrinfo(ai);
    return rc;
  }

  rdma_event_channel* sch = rdma_create_event_channel();
  rdma_event_channel* cch = rdma_create_event_channel();
  if (!sch || !cch) Die("rdma_create_event_channel");
  rdma_cm_id* listener = nullptr;
  if (rdma_create_id(sch, &listener, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
  if (rdma_bind_addr(listener, ai->ai_addr)) Die("rdma_bind_addr");
  if (rdma_listen(listener, nqp)) Die("rdma_listen");

  ibv_pd* pd = nullptr;
  ibv_device_attr da{};
  std::vector<Pair> pairs(static_cast<size_t>(nqp));
  for (int i = 0; i < nqp; i++) {
    Pair& p = pairs[static_cast<size_t>(i)];
    p.index = i;
    p.max_size = i == 0 ? kMaxSize : kSmallMax;
    if (rdma_create_id(cch, &p.c, nullptr, RDMA_PS_TCP)) Die("rdma_create_id");
    if (rdma_resolve_addr(p.c, nullptr, ai->ai_addr, 5000)) Die("rdma_resolve_addr");
    rdma_ack_cm_event(Expect(cch, RDMA_CM_EVENT_ADDR_RESOLVED, "client", i));
    if (rdma_resolve_route(p.c, 5000)) Die("rdma_resolve_route");
    rdma_ack_cm_event(Expect(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client", i));
    if (!pd) {
      pd = ibv_alloc_pd(p.c->verbs);
      if (!pd || ibv_query_device(p.c->verbs, &da)) Die("ibv_alloc_pd/query_device");
    }
    p.ccq = std::make_unique<EventCq>(p.c->verbs, 16);
    p.scq = std::make_unique<EventCq>(p.c->verbs, 16);
    ibv_qp_init_attr ca = QpAttr(p.ccq->cq(), da);
    if (rdma_create_qp(p.c, pd, &ca)) Die("rdma_create_qp (client)");
    p.cbuf = std::make_unique<Buffer>(pd, p.max_size);
    p.sbuf = std::make_unique<Buffer>(pd, p.max_size);

    rdma_conn_param cp{};
    cp.initiator_depth = 1;
    cp.responder_resources = 1;
    if (rdma_connect(p.c, &cp)) Die("rdma_connect");
    rdma_cm_event* req = Expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", i, nullptr, cch);
    p.s = req->id;
    rdma_ack_cm_event(req);
    ibv_qp_init_attr sa = QpAttr(p.scq->cq(), da);
    if (rdma_create_qp(p.s, pd, &sa)) Die("rdma_create_qp (server)");
    if (rdma_accept(p.s, &cp)) Die("rdma_accept");
    rdma_ack_cm_event(Expect(sch, RDMA_CM_EVENT_ESTABLISHED, "server", i, p.s, cch));
    rdma_ack_cm_event(Expect(cch, RDMA_CM_EVENT_ESTABLISHED, "client", i, p.c, sch));
  }
  std::printf("# %d QP pairs connected (max SGEs %d)\n", nqp, da.max_sge);

  Stats st;
  std::vector<std::thread> threads;
  threads.reserve(pairs.size());
  for (auto& p : pairs) {
    threads.emplace_back([&p, &st, ops, seed, &da] {
      std::mt19937_64 rng(seed * 1000003 + static_cast<uint64_t>(p.index));
      // Pair 0 moves the largest size once with each operation.
      if (p.index == 0) {
        for (int op = 0; op < 3; op++)
          if (!RunOp(p, rng, op, kMaxSize, da.max_sge, st)) return;
      }
      for (int k = 0; k < ops; k++) {
        const int op = static_cast<int>(rng() % 5);
        bool good = false;
        switch (op) {
          case 3:
            good = RunOrdered(p, rng, st);
            break;
          case 4:
            good = RunFenced(p, rng, st);
            break;
          default:
            good = RunOp(p, rng, op, PickSize(rng, p.max_size), da.max_sge, st);
        }
        if (!good) return;
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("# transfers done: %llu ok, %llu bad; disconnecting\n",
              static_cast<unsigned long long>(st.ok.load()),
              static_cast<unsigned long long>(st.bad.load()));

  for (auto& p : pairs) {
    rdma_disconnect(p.c);
    rdma_ack_cm_event(Expect(cch, RDMA_CM_EVENT_DISCONNECTED, "client", p.index, p.c));
    rdma_ack_cm_event(Expect(sch, RDMA_CM_EVENT_DISCONNECTED, "server", p.index, p.s));
    rdma_destroy_qp(p.c);
    rdma_destroy_qp(p.s);
    p.cbuf.reset();
    p.sbuf.reset();
    p.ccq.reset();
    p.scq.reset();
    rdma_destroy_id(p.c);
    rdma_destroy_id(p.s);
  }
  ibv_dealloc_pd(pd);
  rdma_destroy_id(listener);
  rdma_destroy_event_channel(cch);
  rdma_destroy_event_channel(sch);
  freeaddrinfo(ai);
  std::printf("integrity: %llu ok, %llu bad, %llu bytes verified\n",
              static_cast<unsigned long long>(st.ok.load()),
              static_cast<unsigned long long>(st.bad.load()),
              static_cast<unsigned long long>(st.bytes.load()));
  return st.bad.load() || st.ok.load() == 0 ? 1 : 0;
}
