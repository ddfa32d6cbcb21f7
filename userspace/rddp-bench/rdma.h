// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// librdmacm and libibverbs objects owned by std::unique_ptr, one QP's
// resources (Endpoint), and the event loop that drives every endpoint of
// the process (Engine): it polls the CQs and sleeps on their completion
// channels and on the rdma_cm channels with a deadline, so that no wait
// can hang.
#ifndef RDDP_BENCH_RDMA_H
#define RDDP_BENCH_RDMA_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rddp_bench {

// Every failure of a verb, a connection step or a wait: what() says what
// and why, for the user.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "WHAT: strerror(errno)".
[[noreturn]] void ThrowErrno(const std::string& what);

struct CmChannelDeleter {
  void operator()(rdma_event_channel* c) const noexcept { rdma_destroy_event_channel(c); }
};
struct CmIdDeleter {
  void operator()(rdma_cm_id* id) const noexcept {
    if (id->qp != nullptr) rdma_destroy_qp(id);
    rdma_destroy_id(id);
  }
};
struct PdDeleter {
  void operator()(ibv_pd* pd) const noexcept { ibv_dealloc_pd(pd); }
};
struct MrDeleter {
  void operator()(ibv_mr* mr) const noexcept { ibv_dereg_mr(mr); }
};
struct CqDeleter {
  void operator()(ibv_cq* cq) const noexcept { ibv_destroy_cq(cq); }
};
struct CompChannelDeleter {
  void operator()(ibv_comp_channel* ch) const noexcept { ibv_destroy_comp_channel(ch); }
};
using CmChannelPtr = std::unique_ptr<rdma_event_channel, CmChannelDeleter>;
using CmIdPtr = std::unique_ptr<rdma_cm_id, CmIdDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;

// Anonymous memory, page aligned (as RDMA buffers usually are: pinning and
// zero-copy TX see whole pages) and zeroed. Throws BenchError.
class Buffer {
 public:
  explicit Buffer(size_t len);
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&&) = delete;
  Buffer& operator=(Buffer&&) = delete;
  ~Buffer();
  [[nodiscard]] uint8_t* data() const { return data_; }
  [[nodiscard]] size_t size() const { return len_; }

 private:
  uint8_t* data_;
  size_t len_;
};

// A non-blocking rdma_cm event channel (O_NONBLOCK, so that the Engine can
// drain it without ever blocking outside poll(2)).
CmChannelPtr NewCmChannel();

// A copy of an rdma_cm event, taken and acknowledged at once: an id cannot
// be destroyed while an event of it is unacknowledged, and handlers destroy
// ids.
struct CmEvent {
  rdma_cm_event_type type{};
  int status = 0;
  rdma_cm_id* id = nullptr;
  rdma_cm_id* listen_id = nullptr;
  std::vector<uint8_t> private_data{};
  uint8_t initiator_depth = 0;
  uint8_t responder_resources = 0;
};
// The next queued event of `channel`, nullopt if none is queued.
std::optional<CmEvent> TakeCmEvent(rdma_event_channel* channel);

// The resources of one QP: a protection domain, a CQ with its own
// completion channel (both queues complete there), and one registered
// buffer of `buffer_len` bytes, page aligned, both for local access and
// for the peer's Writes and Reads.
struct QueueSizes {
  uint32_t send = 0;
  uint32_t recv = 0;
};
class Endpoint {
 public:
  Endpoint(CmIdPtr id, QueueSizes queues, size_t buffer_len);
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  Endpoint(Endpoint&&) = delete;
  Endpoint& operator=(Endpoint&&) = delete;
  ~Endpoint() = default;

  [[nodiscard]] rdma_cm_id* id() const { return id_.get(); }
  [[nodiscard]] uint8_t* buffer() const { return buffer_.data(); }
  [[nodiscard]] uint32_t lkey() const { return mr_->lkey; }
  [[nodiscard]] uint32_t rkey() const { return mr_->rkey; }
  [[nodiscard]] int channel_fd() const { return channel_->fd; }

  // Posting; `len` bytes at `offset` of the buffer. Throws BenchError.
  void PostRecv(uint64_t wr_id, size_t offset, uint32_t len);
  void PostSend(uint64_t wr_id, size_t offset, uint32_t len);
  void PostRdma(ibv_wr_opcode opcode, uint64_t wr_id, size_t offset, uint32_t len,
                uint64_t remote_addr, uint32_t rkey);

  // Polls the CQ once and hands each completion to on_completion; returns
  // how many. A failed completion throws BenchError.
  int PollCq();
  // Asks for an event on the next completion.
  void Arm();
  // Takes (and acknowledges) the channel's pending event, if any.
  void ConsumeEvent();

  std::function<void(const ibv_wc&)> on_completion;
  // Called after each PollCq() that found completions: batching of replies.
  std::function<void()> after_poll;
  // Work that no completion announces (an incoming Write changes memory
  // only): true if it found some. Its presence makes the Engine spin.
  std::function<bool()> poll_memory;
  // A flushed work request fails the wait (the connection broke) rather
  // than being dropped (a connection being closed).
  bool flush_is_error = false;

 private:
  CompChannelPtr channel_;
  PdPtr pd_;
  Buffer buffer_;
  MrPtr mr_;
  CqPtr cq_;
  CmIdPtr id_;  // last: its QP goes first
};

// The process's event loop over every endpoint and rdma_cm channel.
class Engine {
 public:
  using Clock = std::chrono::steady_clock;
  // How long the next sleep may last; asked only when the Engine is about
  // to sleep. May throw (a deadline that has passed).
  using SleepBound = std::function<std::chrono::milliseconds()>;

  explicit Engine(bool busy_poll) : busy_poll_(busy_poll) {}

  void Add(Endpoint* ep);
  void Remove(Endpoint* ep);
  // `service` drains the channel at `fd` (a non-blocking rdma_cm channel).
  void AddCmChannel(int fd, std::function<void()> service);
  void RemoveCmChannel(int fd);

  // One round: every CQ and memory poll once; when none had work, either
  // yields the CPU (spinning: busy poll, or a memory poll is present) or
  // arms the CQs and sleeps in poll(2) up to sleep_bound() for any of them
  // or an rdma_cm channel. The rdma_cm channels are serviced when poll(2)
  // reported one and otherwise every kCmServiceTurns turns: their events
  // are rare, and every look costs a syscall, which User-Mode Linux traps
  // through ptrace at tens of microseconds. Returns whether anything
  // happened.
  bool Turn(const SleepBound& sleep_bound);
  bool Turn(std::chrono::milliseconds sleep) {
    return Turn([sleep] { return sleep; });
  }

  // Turns until done(); throws BenchError("timed out after N ms: WHAT") at
  // the deadline. `spin` for a wait that no event announces (an incoming
  // Write). The clock (a syscall too) is read only before a sleep and
  // every kClockTurns turns; the deadline counts from the first read.
  void WaitFor(const std::string& what, const std::function<bool()>& done,
               std::chrono::milliseconds timeout, bool spin = false);

  static constexpr unsigned kCmServiceTurns = 64;
  static constexpr unsigned kClockTurns = 64;

 private:
  int PollAll();
  // Sleeps in poll(2); `cm_ready`: an rdma_cm channel has events.
  bool Sleep(const SleepBound& sleep_bound, bool& cm_ready);

  bool busy_poll_;
  bool spin_once_ = false;
  unsigned turns_since_cm_ = 0;
  std::vector<Endpoint*> endpoints_;
  std::vector<std::pair<int, std::function<void()>>> cm_channels_;
};

}  // namespace rddp_bench

#endif  // RDDP_BENCH_RDMA_H
