// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "rdma.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace rddp_bench {

namespace {

void SetNonBlocking(int fd, const char* what) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) ThrowErrno(what);
}

ibv_sge Sge(const Endpoint& ep, size_t offset, uint32_t len) {
  return {reinterpret_cast<uintptr_t>(ep.buffer() + offset), len, ep.lkey()};
}

}  // namespace

Buffer::Buffer(size_t len)
    : data_(static_cast<uint8_t*>(
          mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))),
      len_(len) {
  if (data_ == MAP_FAILED) ThrowErrno("mmap of " + std::to_string(len) + " bytes");
}

Buffer::~Buffer() { munmap(data_, len_); }

void ThrowErrno(const std::string& what) { throw BenchError(what + ": " + std::strerror(errno)); }

CmChannelPtr NewCmChannel() {
  CmChannelPtr channel(rdma_create_event_channel());
  // librdmacm answers ENODEV when the system has no RDMA device at all.
  if (!channel && errno == ENODEV)
    throw BenchError("no RDMA device (rdma link add NAME type rddp netdev NETDEV)");
  if (!channel) ThrowErrno("cannot open the rdma_cm device (is rdma_ucm loaded?)");
  SetNonBlocking(channel->fd, "rdma_cm channel");
  return channel;
}

std::optional<CmEvent> TakeCmEvent(rdma_event_channel* channel) {
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(channel, &ev) != 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
    ThrowErrno("rdma_get_cm_event");
  }
  CmEvent copy{ev->event, ev->status, ev->id, ev->listen_id, {}, 0, 0};
  // Connection events carry the peer's private data and IRD/ORD.
  if (ev->id != nullptr && ev->id->ps == RDMA_PS_TCP) {
    const rdma_conn_param& c = ev->param.conn;
    const auto* pd = static_cast<const uint8_t*>(c.private_data);
    if (pd != nullptr) copy.private_data.assign(pd, pd + c.private_data_len);
    copy.initiator_depth = c.initiator_depth;
    copy.responder_resources = c.responder_resources;
  }
  rdma_ack_cm_event(ev);
  return copy;
}

Endpoint::Endpoint(CmIdPtr id, QueueSizes queues, size_t buffer_len)
    : channel_(ibv_create_comp_channel(id->verbs)),
      pd_(ibv_alloc_pd(id->verbs)),
      buffer_(buffer_len),
      id_(std::move(id)) {
  if (!channel_) ThrowErrno("ibv_create_comp_channel");
  if (!pd_) ThrowErrno("ibv_alloc_pd");
  SetNonBlocking(channel_->fd, "completion channel");
  mr_.reset(ibv_reg_mr(pd_.get(), buffer_.data(), buffer_.size(),
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
  if (!mr_) ThrowErrno("ibv_reg_mr of " + std::to_string(buffer_.size()) + " bytes");
  const auto cqe = static_cast<int>(queues.send + queues.recv);
  cq_.reset(ibv_create_cq(id_->verbs, cqe, nullptr, channel_.get(), 0));
  if (!cq_) ThrowErrno("ibv_create_cq");
  ibv_qp_init_attr attr{};
  attr.send_cq = cq_.get();
  attr.recv_cq = cq_.get();
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 1;
  attr.cap.max_send_wr = queues.send;
  attr.cap.max_recv_wr = queues.recv;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  if (rdma_create_qp(id_.get(), pd_.get(), &attr) != 0) ThrowErrno("rdma_create_qp");
}

void Endpoint::PostRecv(uint64_t wr_id, size_t offset, uint32_t len) {
  ibv_sge sge = Sge(*this, offset, len);
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int err = ibv_post_recv(id_->qp, &wr, &bad); err != 0) {
    errno = err;
    ThrowErrno("ibv_post_recv");
  }
}

void Endpoint::PostSend(uint64_t wr_id, size_t offset, uint32_t len) {
  PostRdma(IBV_WR_SEND, wr_id, offset, len, 0, 0);
}

void Endpoint::PostRdma(ibv_wr_opcode opcode, uint64_t wr_id, size_t offset, uint32_t len,
                        uint64_t remote_addr, uint32_t rkey) {
  ibv_sge sge = Sge(*this, offset, len);
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = opcode;
  wr.wr.rdma.remote_addr = remote_addr;
  wr.wr.rdma.rkey = rkey;
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(id_->qp, &wr, &bad); err != 0) {
    errno = err;
    ThrowErrno("ibv_post_send");
  }
}

int Endpoint::PollCq() {
  std::array<ibv_wc, 16> wcs{};
  const int n = ibv_poll_cq(cq_.get(), static_cast<int>(wcs.size()), wcs.data());
  if (n < 0) throw BenchError("ibv_poll_cq failed");
  for (int i = 0; i < n; i++) {
    const ibv_wc& wc = wcs.at(static_cast<size_t>(i));
    // Work requests flushed when a connection ends are no news, unless
    // the connection was not meant to end.
    if (wc.status == IBV_WC_WR_FLUSH_ERR && !flush_is_error) continue;
    if (wc.status != IBV_WC_SUCCESS) {
      throw BenchError(std::string("work completion failed: ") + ibv_wc_status_str(wc.status) +
                       " (opcode " + std::to_string(wc.opcode) + ")");
    }
    if (on_completion) on_completion(wc);
  }
  if (n > 0 && after_poll) after_poll();
  return n;
}

void Endpoint::Arm() {
  if (ibv_req_notify_cq(cq_.get(), 0) != 0) ThrowErrno("ibv_req_notify_cq");
}

void Endpoint::ConsumeEvent() {
  ibv_cq* cq = nullptr;
  void* ctx = nullptr;
  if (ibv_get_cq_event(channel_.get(), &cq, &ctx) == 0) ibv_ack_cq_events(cq, 1);
}

void Engine::Add(Endpoint* ep) { endpoints_.push_back(ep); }

void Engine::Remove(Endpoint* ep) { std::erase(endpoints_, ep); }

void Engine::AddCmChannel(int fd, std::function<void()> service) {
  cm_channels_.emplace_back(fd, std::move(service));
}

void Engine::RemoveCmChannel(int fd) {
  std::erase_if(cm_channels_, [fd](const auto& ch) { return ch.first == fd; });
}

int Engine::PollAll() {
  int n = 0;
  // Completion handlers never add or remove endpoints: only rdma_cm
  // services do, and they run after this loop.
  for (Endpoint* ep : endpoints_) {
    n += ep->PollCq();
    if (ep->poll_memory && ep->poll_memory()) n++;
  }
  return n;
}

bool Engine::Sleep(const SleepBound& sleep_bound, bool& cm_ready) {
  for (Endpoint* ep : endpoints_) ep->Arm();
  // A completion that came before the CQ was armed raised no event.
  if (PollAll() > 0) return true;
  const std::chrono::milliseconds sleep = sleep_bound();
  std::vector<pollfd> fds;
  for (Endpoint* ep : endpoints_) fds.push_back({ep->channel_fd(), POLLIN, 0});
  for (const auto& ch : cm_channels_) fds.push_back({ch.first, POLLIN, 0});
  const int r = poll(fds.data(), fds.size(), static_cast<int>(sleep.count()));
  if (r < 0 && errno != EINTR) ThrowErrno("poll");
  for (size_t i = 0; r > 0 && i < fds.size(); i++) {
    if ((fds[i].revents & POLLIN) == 0) continue;
    if (i < endpoints_.size()) {
      endpoints_[i]->ConsumeEvent();
    } else {
      cm_ready = true;
    }
  }
  return r > 0;
}

bool Engine::Turn(const SleepBound& sleep_bound) {
  bool worked = PollAll() > 0;
  bool cm_ready = false;
  const bool memory = std::any_of(endpoints_.begin(), endpoints_.end(),
                                  [](const Endpoint* ep) { return bool(ep->poll_memory); });
  if (!worked) {
    if (busy_poll_ || memory || spin_once_) {
      // On one CPU (User-Mode Linux) a spinning process must let the
      // kernel's work items run: they carry Read Responses.
      sched_yield();
    } else {
      worked = Sleep(sleep_bound, cm_ready);
    }
  }
  // Services add and remove endpoints, never channels.
  if (cm_ready || ++turns_since_cm_ >= kCmServiceTurns) {
    turns_since_cm_ = 0;
    for (const auto& ch : cm_channels_) ch.second();
  }
  return worked;
}

void Engine::WaitFor(const std::string& what, const std::function<bool()>& done,
                     std::chrono::milliseconds timeout, bool spin) {
  std::optional<Clock::time_point> deadline;
  const SleepBound left = [&] {
    const Clock::time_point now = Clock::now();
    if (!deadline) deadline = now + timeout;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - now);
    if (ms.count() <= 0)
      throw BenchError("timed out after " + std::to_string(timeout.count()) + " ms: " + what);
    return ms;
  };
  // Restored on every exit, a failed completion's exception included.
  struct SpinScope {
    bool& flag;
    ~SpinScope() { flag = false; }
  } scope{spin_once_};
  spin_once_ = spin;
  for (unsigned turn = 1; !done(); turn++) {
    if (turn % kClockTurns == 0) left();
    Turn(left);
  }
}

}  // namespace rddp_bench
