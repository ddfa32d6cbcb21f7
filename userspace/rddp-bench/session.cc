// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "session.h"

#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>

namespace rddp_bench {

namespace {

// A work request's id: what it is in the upper half, a slot in the lower.
enum class Tag : uint32_t { kData = 1, kRecvData, kCredit, kRecvCredit, kEcho, kRecvEcho };
constexpr uint64_t WrId(Tag tag, uint32_t slot) {
  return (static_cast<uint64_t>(tag) << 32) | slot;
}
constexpr Tag TagOf(uint64_t wr_id) { return static_cast<Tag>(wr_id >> 32); }
constexpr uint32_t SlotOf(uint64_t wr_id) { return static_cast<uint32_t>(wr_id); }

// The last byte of a region as the peer's Write leaves it: read with
// acquire so that the payload before it is seen too.
uint8_t LoadLast(const Endpoint& ep, size_t offset, uint32_t size) {
  return std::atomic_ref<uint8_t>(ep.buffer()[offset + size - 1]).load(std::memory_order_acquire);
}

ibv_device_attr QueryDevice(ibv_context* verbs) {
  ibv_device_attr attr{};
  if (int err = ibv_query_device(verbs, &attr); err != 0) {
    errno = err;
    ThrowErrno("ibv_query_device");
  }
  return attr;
}

// rdma_conn_param holds IRD/ORD in a byte.
uint8_t ClampRd(uint64_t a, uint64_t b) { return static_cast<uint8_t>(std::min({a, b, 255UL})); }

bool IsWildcard(const sockaddr* sa) {
  if (sa->sa_family == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr == htonl(INADDR_ANY);
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
  return sa->sa_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);
}

std::string StatusText(int status) { return std::strerror(std::abs(status)); }

}  // namespace

Driver::Driver(std::unique_ptr<Endpoint> ep, const Config& config)
    : ep_(std::move(ep)),
      config_(config),
      layout_(config.size, config.depth),
      window_(config.depth) {
  ep_->on_completion = [this](const ibv_wc& wc) { OnCompletion(wc); };
  // A client's connection ends only when it says so: a flush before that
  // means the server or the link went away, which should fail the run at
  // once rather than at the timeout.
  ep_->flush_is_error = true;
  // Receives before the connection: the server's first credit or echo
  // may come at once, and iWARP has no receiver-not-ready retry.
  if (config_.op != Op::kSend) return;
  for (uint32_t i = 0; i < config_.depth; i++) {
    if (config_.kind == Kind::kBandwidth) {
      ep_->PostRecv(WrId(Tag::kRecvCredit, i), layout_.ctrl + 8ULL * i, 8);
    } else if (config_.kind == Kind::kLatency) {
      ep_->PostRecv(WrId(Tag::kRecvEcho, i), 0, config_.size);
    }
  }
}

Spec Driver::MakeSpec() const {
  return {kSpecMagic,
          static_cast<uint8_t>(config_.op),
          static_cast<uint8_t>(config_.kind),
          0,
          config_.size,
          config_.depth,
          reinterpret_cast<uintptr_t>(ep_->buffer()),
          ep_->rkey(),
          0};
}

void Driver::Connected(const Reply& reply, uint32_t ord) {
  remote_ = reply;
  credits_ = reply.credits;
  // More Read Requests than the responder's IRD would draw a Terminate.
  if (config_.op == Op::kRead) window_ = std::max(1U, std::min({window_, ord, reply.ird}));
}

bool Driver::CanPost() const {
  if (outstanding_ >= window_) return false;
  return config_.op != Op::kSend || config_.kind != Kind::kBandwidth || credits_ > 0;
}

void Driver::PostOne() {
  switch (config_.op) {
    case Op::kWrite:
      ep_->PostRdma(IBV_WR_RDMA_WRITE, WrId(Tag::kData, 0), layout_.tx, config_.size, remote_.addr,
                    remote_.rkey);
      break;
    case Op::kRead:
      ep_->PostRdma(IBV_WR_RDMA_READ, WrId(Tag::kData, 0), 0, config_.size, remote_.addr,
                    remote_.rkey);
      break;
    case Op::kSend:
      ep_->PostSend(WrId(Tag::kData, 0), layout_.tx, config_.size);
      if (config_.kind == Kind::kBandwidth) credits_--;
      break;
  }
  outstanding_++;
}

bool Driver::Idle() const {
  const bool credits_back =
      config_.op != Op::kSend || config_.kind != Kind::kBandwidth || credits_ == remote_.credits;
  return outstanding_ == 0 && credits_back;
}

void Driver::StartRoundTrip() {
  echoed_ = false;
  if (config_.op == Op::kWrite) {
    // 1..255: the receive region starts zeroed, so 0 would look echoed.
    seq_ = static_cast<uint8_t>(seq_ % 255 + 1);
    ep_->buffer()[layout_.tx + config_.size - 1] = seq_;
  }
  PostOne();
}

bool Driver::RoundTripDone() const {
  switch (config_.op) {
    case Op::kWrite:
      return LoadLast(*ep_, 0, config_.size) == seq_;
    case Op::kRead:
      return outstanding_ == 0;
    case Op::kSend:
      return echoed_;
  }
  return false;
}

void Driver::OnCompletion(const ibv_wc& wc) {
  const uint32_t slot = SlotOf(wc.wr_id);
  switch (TagOf(wc.wr_id)) {
    case Tag::kData:
      outstanding_--;
      break;
    case Tag::kRecvCredit: {
      uint64_t value = 0;
      std::memcpy(&value, ep_->buffer() + layout_.ctrl + 8ULL * slot, sizeof(value));
      credits_ += static_cast<uint32_t>(value);
      ep_->PostRecv(wc.wr_id, layout_.ctrl + 8ULL * slot, 8);
      break;
    }
    case Tag::kRecvEcho:
      echoed_ = true;
      ep_->PostRecv(wc.wr_id, 0, config_.size);
      break;
    default:
      break;
  }
}

Responder::Responder(std::unique_ptr<Endpoint> ep, const Spec& spec)
    : ep_(std::move(ep)), spec_(spec), layout_(spec.size, spec.depth) {
  ep_->on_completion = [this](const ibv_wc& wc) { OnCompletion(wc); };
  const auto op = static_cast<Op>(spec_.op);
  const auto kind = static_cast<Kind>(spec_.kind);
  if (op == Op::kSend && kind != Kind::kProbe) {
    for (uint32_t i = 0; i < spec_.depth; i++)
      ep_->PostRecv(WrId(Tag::kRecvData, i), 0, spec_.size);
  }
  if (op == Op::kSend && kind == Kind::kBandwidth) ep_->after_poll = [this] { ReturnCredits(); };
  if (op == Op::kWrite && kind == Kind::kLatency) ep_->poll_memory = [this] { return PollWrite(); };
}

Reply Responder::MakeReply(uint32_t ird) const {
  const bool send_bw =
      static_cast<Op>(spec_.op) == Op::kSend && static_cast<Kind>(spec_.kind) == Kind::kBandwidth;
  return {kReplyMagic, ep_->rkey(), reinterpret_cast<uintptr_t>(ep_->buffer()),
          send_bw ? spec_.depth : 0, ird};
}

void Responder::OnCompletion(const ibv_wc& wc) {
  if (TagOf(wc.wr_id) != Tag::kRecvData) return;
  ep_->PostRecv(wc.wr_id, 0, spec_.size);
  if (static_cast<Kind>(spec_.kind) == Kind::kBandwidth) {
    pending_credits_++;
  } else {
    ep_->PostSend(WrId(Tag::kEcho, 0), layout_.tx, spec_.size);
  }
}

// Credits go back once per CQ poll rather than per message: under load one
// credit Send carries many, and when the client stops none is held back.
void Responder::ReturnCredits() {
  if (pending_credits_ == 0) return;
  const size_t offset = layout_.ctrl + 8ULL * (spec_.depth + credit_slot_);
  const uint64_t value = pending_credits_;
  std::memcpy(ep_->buffer() + offset, &value, sizeof(value));
  ep_->PostSend(WrId(Tag::kCredit, credit_slot_), offset, 8);
  credit_slot_ = (credit_slot_ + 1) % spec_.depth;
  pending_credits_ = 0;
}

bool Responder::PollWrite() {
  const uint8_t seen = LoadLast(*ep_, 0, spec_.size);
  if (seen == last_seen_) return false;
  last_seen_ = seen;
  ep_->buffer()[layout_.tx + spec_.size - 1] = seen;
  ep_->PostRdma(IBV_WR_RDMA_WRITE, WrId(Tag::kEcho, 0), layout_.tx, spec_.size, spec_.addr,
                spec_.rkey);
  return true;
}

Address ResolveAddress(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int err = getaddrinfo(host.c_str(), service.c_str(), &hints, &res); err != 0)
    throw BenchError("bad address '" + host + "': " + gai_strerror(err));
  Address a;
  std::memcpy(&a.storage, res->ai_addr, res->ai_addrlen);
  a.text = (res->ai_family == AF_INET6 ? "[" + host + "]" : host) + ":" + service;
  freeaddrinfo(res);
  return a;
}

Server::Server(Engine& engine, Address address)
    : engine_(engine), address_(std::move(address)), channel_(NewCmChannel()) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP) != 0) ThrowErrno("rdma_create_id");
  listener_.reset(id);
  if (rdma_bind_addr(id, address_.sa()) != 0) ThrowErrno("cannot bind to " + address_.text);
  if (id->verbs == nullptr && !IsWildcard(address_.sa())) {
    throw BenchError("no RDMA device has the address " + address_.text +
                     " (rdma link add NAME type rddp netdev NETDEV)");
  }
  if (rdma_listen(id, 64) != 0) ThrowErrno("cannot listen on " + address_.text);
  engine_.AddCmChannel(channel_->fd, [this] { Service(); });
}

Server::~Server() {
  engine_.RemoveCmChannel(channel_->fd);
  for (auto& [id, r] : responders_) engine_.Remove(&r->endpoint());
  responders_.clear();
}

uint16_t Server::port() const { return ntohs(rdma_get_src_port(listener_.get())); }

std::string Server::device() const {
  if (listener_->verbs == nullptr) return "any";
  return ibv_get_device_name(listener_->verbs->device);
}

void Server::Service() {
  while (std::optional<CmEvent> ev = TakeCmEvent(channel_.get())) {
    switch (ev->type) {
      case RDMA_CM_EVENT_CONNECT_REQUEST:
        Accept(*ev);
        break;
      case RDMA_CM_EVENT_DISCONNECTED:
      case RDMA_CM_EVENT_CONNECT_ERROR:
      case RDMA_CM_EVENT_UNREACHABLE:
      case RDMA_CM_EVENT_REJECTED:
        Drop(ev->id);
        break;
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        if (ev->id == listener_.get()) throw BenchError("the RDMA device went away");
        Drop(ev->id);
        break;
      default:
        break;
    }
  }
}

void Server::Accept(const CmEvent& ev) {
  CmIdPtr id(ev.id);  // owned from here: a refused client's id goes with it
  Spec spec{};
  if (ev.private_data.size() >= sizeof(spec))
    std::memcpy(&spec, ev.private_data.data(), sizeof(spec));
  if (spec.magic != kSpecMagic || spec.size == 0 || spec.size > kMaxSize || spec.depth == 0 ||
      spec.depth > kMaxDepth || spec.op > static_cast<uint8_t>(Op::kSend)) {
    std::cerr << "rddp-bench: refused a client that is not rddp-bench\n";
    rdma_reject(id.get(), nullptr, 0);
    return;
  }
  try {
    const ibv_device_attr attr = QueryDevice(ev.id->verbs);
    const Layout layout(spec.size, spec.depth);
    auto r = std::make_unique<Responder>(
        std::make_unique<Endpoint>(std::move(id), layout.Queues(), layout.Total()), spec);
    rdma_conn_param param{};
    param.responder_resources = ClampRd(ev.initiator_depth, attr.max_qp_rd_atom);
    param.initiator_depth = ClampRd(ev.responder_resources, attr.max_qp_init_rd_atom);
    const Reply reply = r->MakeReply(param.responder_resources);
    param.private_data = &reply;
    param.private_data_len = sizeof(reply);
    if (rdma_accept(ev.id, &param) != 0) ThrowErrno("rdma_accept");
    engine_.Add(&r->endpoint());
    responders_[ev.id] = std::move(r);
  } catch (const BenchError& e) {
    std::cerr << "rddp-bench: cannot accept a client: " << e.what() << "\n";
  }
}

void Server::Drop(rdma_cm_id* id) {
  auto it = responders_.find(id);
  if (it == responders_.end()) return;
  engine_.Remove(&it->second->endpoint());
  responders_.erase(it);
}

Session::Session(Engine& engine, Address server, const Config& config,
                 std::chrono::milliseconds timeout)
    : engine_(engine),
      server_(std::move(server)),
      config_(config),
      timeout_(timeout),
      channel_(NewCmChannel()) {
  engine_.AddCmChannel(channel_->fd, [this] {
    while (std::optional<CmEvent> ev = TakeCmEvent(channel_.get())) events_.push_back(*ev);
  });
  try {
    for (uint32_t i = 0; i < config_.qps; i++) Connect();
  } catch (...) {
    Detach();
    throw;
  }
}

Session::~Session() {
  try {
    for (auto& d : drivers_) {
      d->endpoint().flush_is_error = false;
      rdma_disconnect(d->endpoint().id());
    }
    engine_.WaitFor(
        "disconnecting",
        [this] {
          return std::count_if(events_.begin(), events_.end(), [](const CmEvent& e) {
                   return e.type == RDMA_CM_EVENT_DISCONNECTED;
                 }) >= static_cast<long>(drivers_.size());
        },
        timeout_);
  } catch (const BenchError& e) {
    std::cerr << "rddp-bench: " << e.what() << "\n";
  }
  Detach();
}

void Session::Detach() {
  for (auto& d : drivers_) engine_.Remove(&d->endpoint());
  engine_.RemoveCmChannel(channel_->fd);
}

std::string Session::device() const {
  return ibv_get_device_name(drivers_.front()->endpoint().id()->verbs->device);
}

void Session::Connect() {
  rdma_cm_id* raw = nullptr;
  if (rdma_create_id(channel_.get(), &raw, nullptr, RDMA_PS_TCP) != 0) ThrowErrno("rdma_create_id");
  CmIdPtr id(raw);
  const auto ms = static_cast<int>(timeout_.count());
  if (rdma_resolve_addr(raw, nullptr, server_.sa(), ms) != 0)
    ThrowErrno("cannot resolve " + server_.text);
  Expect(RDMA_CM_EVENT_ADDR_RESOLVED, raw, "resolving the address");
  if (rdma_resolve_route(raw, ms) != 0) ThrowErrno("cannot resolve a route to " + server_.text);
  Expect(RDMA_CM_EVENT_ROUTE_RESOLVED, raw, "resolving the route");
  if (raw->verbs == nullptr) throw BenchError("no RDMA device reaches " + server_.text);

  const ibv_device_attr attr = QueryDevice(raw->verbs);
  const Layout layout(config_.size, config_.depth);
  auto d = std::make_unique<Driver>(
      std::make_unique<Endpoint>(std::move(id), layout.Queues(), layout.Total()), config_);
  const Spec spec = d->MakeSpec();
  rdma_conn_param param{};
  param.initiator_depth = ClampRd(config_.depth, attr.max_qp_init_rd_atom);
  param.responder_resources = ClampRd(config_.depth, attr.max_qp_rd_atom);
  param.private_data = &spec;
  param.private_data_len = sizeof(spec);
  if (rdma_connect(raw, &param) != 0) ThrowErrno("rdma_connect to " + server_.text);
  const CmEvent ev = Expect(RDMA_CM_EVENT_ESTABLISHED, raw, "connecting");
  Reply reply{};
  if (ev.private_data.size() >= sizeof(reply))
    std::memcpy(&reply, ev.private_data.data(), sizeof(reply));
  if (reply.magic != kReplyMagic)
    throw BenchError(server_.text + " is not an rddp-bench server (no reply in its MPA Reply)");
  d->Connected(reply, param.initiator_depth);
  engine_.Add(&d->endpoint());
  drivers_.push_back(std::move(d));
}

CmEvent Session::Expect(rdma_cm_event_type type, rdma_cm_id* id, const std::string& step) {
  // A little beyond rdma_cm's own timeouts, so that its verdict comes first.
  const std::chrono::milliseconds wait = timeout_ + std::chrono::seconds(1);
  for (;;) {
    engine_.WaitFor(
        step + " (" + server_.text + ")", [this] { return !events_.empty(); }, wait);
    CmEvent ev = events_.front();
    events_.pop_front();
    if (ev.id != id) continue;  // a late event of an earlier connection
    if (ev.type != type) Fail(ev, step);
    return ev;
  }
}

void Session::Fail(const CmEvent& ev, const std::string& step) const {
  const std::string& where = server_.text;
  switch (ev.type) {
    case RDMA_CM_EVENT_ADDR_ERROR:
      throw BenchError("cannot resolve " + where + " to an RDMA device (" + StatusText(ev.status) +
                       "); is there an iWARP device on its interface?");
    case RDMA_CM_EVENT_ROUTE_ERROR:
      throw BenchError("no route to " + where + " (" + StatusText(ev.status) + ")");
    case RDMA_CM_EVENT_REJECTED:
      throw BenchError("connection to " + where + " refused (" + StatusText(ev.status) +
                       "); is `rddp-bench --server` listening there?");
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
      throw BenchError("cannot connect to " + where + ": " + StatusText(ev.status));
    default:
      throw BenchError(std::string("unexpected rdma_cm event ") + rdma_event_str(ev.type) +
                       " (status " + std::to_string(ev.status) + ") while " + step + " (" + where +
                       ")");
  }
}

}  // namespace rddp_bench
