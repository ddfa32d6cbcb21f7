// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The benchmark's two sides. A client connects one or more QPs (a Session
// of Drivers) and tells the server in its connect private data what it
// will do (a Spec); the server (a Server of Responders) answers with its
// buffer, posts receives and returns credits for Send bandwidth, echoes
// Sends and Writes for latency. In loopback both sides live in one process
// and one Engine drives them.
#ifndef RDDP_BENCH_SESSION_H
#define RDDP_BENCH_SESSION_H

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "options.h"
#include "rdma.h"

namespace rddp_bench {

enum class Kind : uint8_t { kBandwidth, kLatency, kProbe };

// What one benchmark runs on each of its QPs.
struct Config {
  Op op = Op::kWrite;
  Kind kind = Kind::kProbe;
  uint32_t size = 64;
  uint32_t depth = 1;
  uint32_t qps = 1;
  bool operator==(const Config&) const = default;
};

// The client's connect private data. Host byte order: client and server
// are meant to run on the same kind of machine (the test guests).
struct Spec {
  uint32_t magic = 0;
  uint8_t op = 0;
  uint8_t kind = 0;
  uint16_t reserved = 0;
  uint32_t size = 0;
  uint32_t depth = 0;
  uint64_t addr = 0;  // the client's receive region, for Write echoes
  uint32_t rkey = 0;
  uint32_t ird = 0;  // Read Requests the client accepts (not used yet)
};
// The server's accept private data.
struct Reply {
  uint32_t magic = 0;
  uint32_t rkey = 0;
  uint64_t addr = 0;     // the server's receive region
  uint32_t credits = 0;  // receives posted for Send bandwidth
  uint32_t ird = 0;      // Read Requests the server accepts at once
};
constexpr uint32_t kSpecMagic = 0x72646231;   // "rdb1"
constexpr uint32_t kReplyMagic = 0x72646232;  // "rdb2"

// An endpoint's buffer: a receive region (Recvs, Read targets, the peer's
// Writes), a transmit region (Sends, Write and Read sources) and 2 * depth
// 8-byte control slots: credit receives, then credit sends.
struct Layout {
  explicit Layout(uint32_t size, uint32_t depth)
      : size(size), depth(depth), tx((size_t{size} + 63) / 64 * 64), ctrl(tx * 2) {}
  uint32_t size;
  uint32_t depth;
  size_t tx;
  size_t ctrl;
  [[nodiscard]] size_t Total() const { return ctrl + 16ULL * depth; }
  [[nodiscard]] QueueSizes Queues() const { return {2 * depth + 2, depth + 2}; }
};

// One client QP.
class Driver {
 public:
  Driver(std::unique_ptr<Endpoint> ep, const Config& config);
  // `ord`: the Read Requests this side asked to have outstanding.
  void Connected(const Reply& reply, uint32_t ord);
  [[nodiscard]] Spec MakeSpec() const;
  [[nodiscard]] Endpoint& endpoint() { return *ep_; }

  // Bandwidth: another message fits (queue depth, credits, IRD).
  [[nodiscard]] bool CanPost() const;
  void PostOne();
  // Everything completed, every credit back.
  [[nodiscard]] bool Idle() const;

  // Latency: one round trip at a time.
  void StartRoundTrip();
  [[nodiscard]] bool RoundTripDone() const;
  // The round trip ends with an incoming Write, which only memory shows.
  [[nodiscard]] bool Spins() const { return config_.op == Op::kWrite; }

 private:
  void OnCompletion(const ibv_wc& wc);

  std::unique_ptr<Endpoint> ep_;
  Config config_;
  Layout layout_;
  Reply remote_{};
  uint32_t outstanding_ = 0;
  uint32_t window_;
  uint32_t credits_ = 0;
  uint8_t seq_ = 0;
  bool echoed_ = true;
};

// One server QP.
class Responder {
 public:
  Responder(std::unique_ptr<Endpoint> ep, const Spec& spec);
  [[nodiscard]] Reply MakeReply(uint32_t ird) const;
  [[nodiscard]] Endpoint& endpoint() { return *ep_; }

 private:
  void OnCompletion(const ibv_wc& wc);
  void ReturnCredits();
  bool PollWrite();

  std::unique_ptr<Endpoint> ep_;
  Spec spec_;
  Layout layout_;
  uint32_t pending_credits_ = 0;
  uint32_t credit_slot_ = 0;
  uint8_t last_seen_ = 0;
};

// A resolved address to listen on or connect to.
struct Address {
  sockaddr_storage storage{};
  std::string text;  // "ADDR:PORT" for messages
  [[nodiscard]] sockaddr* sa() { return reinterpret_cast<sockaddr*>(&storage); }
};
// Throws BenchError for a malformed or unknown address.
Address ResolveAddress(const std::string& host, uint16_t port);

// The listening side: accepts any number of clients.
class Server {
 public:
  // Throws BenchError: address taken, not local, or on no RDMA device.
  Server(Engine& engine, Address address);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  Server(Server&&) = delete;
  Server& operator=(Server&&) = delete;
  ~Server();

  [[nodiscard]] uint16_t port() const;
  [[nodiscard]] std::string device() const;
  [[nodiscard]] size_t connections() const { return responders_.size(); }

 private:
  void Service();
  void Accept(const CmEvent& ev);
  void Drop(rdma_cm_id* id);

  Engine& engine_;
  Address address_;
  CmChannelPtr channel_;
  CmIdPtr listener_;
  std::map<rdma_cm_id*, std::unique_ptr<Responder>> responders_;
};

// The client side of one benchmark configuration: `config.qps` connections.
class Session {
 public:
  Session(Engine& engine, Address server, const Config& config, std::chrono::milliseconds timeout);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) = delete;
  Session& operator=(Session&&) = delete;
  // Disconnects every QP and waits (bounded) for rdma_cm to confirm.
  ~Session();

  [[nodiscard]] std::vector<std::unique_ptr<Driver>>& drivers() { return drivers_; }
  // The local RDMA device's name (rddp0, siw0, ...).
  [[nodiscard]] std::string device() const;

 private:
  void Connect();
  void Detach();  // from the Engine
  CmEvent Expect(rdma_cm_event_type type, rdma_cm_id* id, const std::string& step);
  [[noreturn]] void Fail(const CmEvent& ev, const std::string& step) const;

  Engine& engine_;
  Address server_;
  Config config_;
  std::chrono::milliseconds timeout_;
  CmChannelPtr channel_;
  std::deque<CmEvent> events_;
  std::vector<std::unique_ptr<Driver>> drivers_;
};

}  // namespace rddp_bench

#endif  // RDDP_BENCH_SESSION_H
