// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp-bench: RDMA Write, Read and Send bandwidth and latency over any
// iWARP device (rddp, siw) through librdmacm, with Google Benchmark as the
// runner and reporter and rddp's netlink counters per run
// (Documentation/performance.md, "rddp-bench").
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counters.h"
#include "cpu.h"
#include "options.h"
#include "percentile.h"
#include "rdma.h"
#include "session.h"
#include "stopwatch.h"

namespace rddp_bench {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::atomic<bool> g_stop{false};

// What every benchmark function shares: the one event loop, where to
// connect, the loopback server, and the open connections of the last
// configuration (Google Benchmark calls a function several times while it
// sizes the iteration count; connecting once per configuration keeps
// connection setup out of the numbers and the run short).
struct Bench {
  explicit Bench(const Options& o) : options(o), engine(o.busy_poll), counters(o.counters) {}

  Session& SessionFor(const Config& config) {
    if (!session || session_config != config) {
      session.reset();
      session = std::make_unique<Session>(engine, *target, config, timeout());
      session_config = config;
    }
    return *session;
  }
  [[nodiscard]] milliseconds timeout() const { return milliseconds(options.timeout_ms); }

  Options options;
  Engine engine;
  DeviceCounters counters;
  std::unique_ptr<Server> loopback{};
  std::optional<Address> target{};
  std::unique_ptr<Session> session{};
  Config session_config{};
  bool failed = false;
};

// CPU seconds of the whole system per GB moved, busy and in the kernel:
// both ends' kernel work in loopback, this end's with a server elsewhere,
// and this process's own polling (little with completion events, all of
// a CPU with --busy-poll). Clock ticks: meaningful over 100s of ms.
void ReportCpu(benchmark::State& state, const std::optional<CpuTimes>& before, double bytes) {
  const std::optional<CpuTimes> after = ReadProcStat();
  if (!before || !after || bytes <= 0) return;
  const auto hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double gb = bytes / 1e9;
  state.counters["cpu_s_per_gb"] = static_cast<double>(after->busy - before->busy) / hz / gb;
  state.counters["kernel_cpu_s_per_gb"] =
      static_cast<double>(after->kernel - before->kernel) / hz / gb;
}

void Bandwidth(benchmark::State& state, Bench& b, Session& s, const Config& c) {
  auto& drivers = s.drivers();
  const size_t n = drivers.size();
  size_t next = 0;
  // Round robin over the QPs, skipping full ones.
  auto free_slot = [&] {
    for (size_t i = 0; i < n; i++) {
      if (drivers[(next + i) % n]->CanPost()) {
        next = (next + i) % n;
        return true;
      }
    }
    return false;
  };
  auto all_idle = [&] {
    return std::all_of(drivers.begin(), drivers.end(), [](const auto& d) { return d->Idle(); });
  };
  // Messages go in batches that fill every queue twice: Google Benchmark's
  // first trial of one iteration would otherwise time a lone message,
  // all latency and no pipelining.
  const auto batch = static_cast<benchmark::IterationCount>(std::max(16U, 2 * c.depth * c.qps));
  const std::optional<CpuTimes> cpu_before = ReadProcStat();
  while (state.KeepRunningBatch(batch)) {
    for (benchmark::IterationCount i = 0; i < batch; i++) {
      b.engine.WaitFor("a free send queue slot", free_slot, b.timeout());
      drivers[next]->PostOne();
      next = (next + 1) % n;
    }
    // Until the last message has arrived (and every credit is back) the
    // transfer is not over: that wait belongs in the measured time.
    if (state.iterations() >= state.max_iterations)
      b.engine.WaitFor("the last completions", all_idle, b.timeout());
  }
  const auto bytes = static_cast<double>(state.iterations()) * c.size;
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["Gbps"] = benchmark::Counter(bytes * 8 / 1e9, benchmark::Counter::kIsRate);
  state.counters["msgs_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  ReportCpu(state, cpu_before, bytes);
}

void ReportPercentiles(benchmark::State& state, std::vector<double> samples) {
  const LatencySummary sum = Summarize(std::move(samples));
  state.counters["min_us"] = sum.min * 1e6;
  state.counters["p50_us"] = sum.p50 * 1e6;
  state.counters["p99_us"] = sum.p99 * 1e6;
  state.counters["p999_us"] = sum.p999 * 1e6;
  state.counters["max_us"] = sum.max * 1e6;
}

void Latency(benchmark::State& state, Bench& b, Session& s) {
  Driver& d = *s.drivers().front();
  std::vector<double> samples;
  for (auto _ : state) {
    b.engine.WaitFor(
        "a free send queue slot", [&] { return d.CanPost(); }, b.timeout());
    // Ticks(), not the clock: a clock read is a syscall (stopwatch.h).
    const uint64_t start = Ticks();
    d.StartRoundTrip();
    b.engine.WaitFor(
        "a round trip", [&] { return d.RoundTripDone(); }, b.timeout(), d.Spins());
    const double seconds = TicksToSeconds(start, Ticks());
    state.SetIterationTime(seconds);
    samples.push_back(seconds);
  }
  ReportPercentiles(state, std::move(samples));
}

// Connection setup, one QP at a time: from rdma_create_id through address
// and route resolution and the MPA exchange to ESTABLISHED at the client
// (in loopback the server's accept is part of it). Teardown is not timed.
void ConnectRate(benchmark::State& state, Bench& b) {
  std::vector<double> samples;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    auto s = std::make_unique<Session>(b.engine, *b.target, Config{}, b.timeout());
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    state.SetIterationTime(seconds);
    samples.push_back(seconds);
    if (samples.size() == 1) state.SetLabel(s->device());
  }
  state.counters["connects_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  ReportPercentiles(state, std::move(samples));
}

// What N more connections cost the system, from /proc/meminfo: in the
// kernel Slab (QPs, CQs, sockets, MRs) plus VmallocUsed (queues mapped to
// user space), and MemFree for everything, this process's buffers and
// page tables included. In loopback each connection has a QP at both ends,
// both counted. The figures include whatever else the system allocated
// meanwhile: read them at hundreds of QPs, not one. Setup is the time.
void QpMemory(benchmark::State& state, Bench& b, uint32_t n) {
  const double qps = n * (b.options.mode == Mode::kLoopback ? 2.0 : 1.0);
  for (auto _ : state) {
    std::map<std::string, uint64_t> before = ReadMeminfo();
    const Clock::time_point start = Clock::now();
    Config c;
    c.qps = n;
    Session s(b.engine, *b.target, c, b.timeout());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
    std::map<std::string, uint64_t> after = ReadMeminfo();
    auto delta = [&](const char* k) {
      return static_cast<double>(after[k]) - static_cast<double>(before[k]);
    };
    state.counters["qps"] = qps;
    state.counters["kernel_kib_per_qp"] = (delta("Slab") + delta("VmallocUsed")) / qps;
    state.counters["used_kib_per_qp"] = -delta("MemFree") / qps;
    state.SetLabel(s.device());
  }
}

// rddp's counters as user counters: per iteration (a message, or a round
// trip) where they scale with traffic, totals where any is news. In
// loopback they count both ends, one device.
void ReportCounters(benchmark::State& state, const CounterValues& delta) {
  if (delta.empty()) return;
  auto get = [&](const char* name) {
    auto it = delta.find(name);
    return it == delta.end() ? 0.0 : static_cast<double>(it->second);
  };
  const auto per_iter = benchmark::Counter::kAvgIterations;
  state.counters["rddp_tx_fpdus_per_iter"] = benchmark::Counter(get("tx_fpdus"), per_iter);
  state.counters["rddp_rx_fpdus_per_iter"] = benchmark::Counter(get("rx_fpdus"), per_iter);
  state.counters["rddp_zcopy_bytes_per_iter"] = benchmark::Counter(get("tx_zcopy_bytes"), per_iter);
  state.counters["rddp_crc_errors"] = get("rx_crc_errors");
  state.counters["rddp_framing_errors"] = get("rx_marker_errors") + get("rx_framing_errors");
  double terminates = 0;
  for (const char* t : {"term_tx_rdmap", "term_tx_ddp", "term_tx_mpa", "term_rx_rdmap",
                        "term_rx_ddp", "term_rx_mpa"})
    terminates += get(t);
  state.counters["rddp_terminates"] = terminates;
  // DDP over SCTP (rddpctl dev set DEV transport sctp): its DATA chunks
  // per iteration, zero over TCP; chunks held for their DDP-SSN in all.
  state.counters["rddp_sctp_tx_chunks_per_iter"] =
      benchmark::Counter(get("sctp_tx_chunks"), per_iter);
  state.counters["rddp_sctp_rx_held"] = get("sctp_rx_held");
}

void RunOne(benchmark::State& state, Bench& b, Test test, const Config& c) {
  try {
    if (test == Test::kConnect || test == Test::kMemory) {
      b.session.reset();  // its QPs would share the device with the new ones
      if (test == Test::kConnect) {
        ConnectRate(state, b);
      } else {
        QpMemory(state, b, c.qps);
      }
      return;
    }
    Session& s = b.SessionFor(c);
    const std::string dev = s.device();
    state.SetLabel(dev);
    const CounterValues before = b.counters.Read(dev);
    if (c.kind == Kind::kBandwidth) {
      Bandwidth(state, b, s, c);
    } else {
      Latency(state, b, s);
    }
    ReportCounters(state, Delta(before, b.counters.Read(dev)));
  } catch (const BenchError& e) {
    // The connections are in doubt after a failure: the next run makes new.
    b.session.reset();
    b.failed = true;
    state.SkipWithError(e.what());
  }
}

// Every configuration of one benchmark family, in the order given.
std::vector<Config> Configs(const Options& o, Op op, Test test) {
  std::vector<Config> configs;
  // Connection setup and memory have no operation: they are registered
  // with the first.
  if (test == Test::kConnect || test == Test::kMemory) {
    if (op != o.ops.front()) return configs;
    if (test == Test::kConnect) return {Config{}};
    for (uint32_t qps : o.mem_qps) configs.push_back({Op::kWrite, Kind::kProbe, 64, 1, qps});
    return configs;
  }
  if (test == Test::kLatency) {
    // Depth 2: room for the next round trip's Send while the last one's
    // completion is still on its way.
    for (uint32_t size : o.lat_sizes) configs.push_back({op, Kind::kLatency, size, 2, 1});
    return configs;
  }
  for (uint32_t size : o.bw_sizes) {
    for (uint32_t depth : o.depths) {
      for (uint32_t qps : o.qps) configs.push_back({op, Kind::kBandwidth, size, depth, qps});
    }
  }
  return configs;
}

// "write_bw/size:65536/depth:16/qps:1", "send_lat/size:64", "connect",
// "qp_memory/qps:100" (Google Benchmark appends "/real_time" or
// "/manual_time").
std::string Name(Test test, const Config& c) {
  switch (test) {
    case Test::kConnect:
      return "connect";
    case Test::kMemory:
      return "qp_memory/qps:" + std::to_string(c.qps);
    case Test::kLatency:
      return std::string(OpName(c.op)) + "_lat/size:" + std::to_string(c.size);
    case Test::kBandwidth:
      break;
  }
  return std::string(OpName(c.op)) + "_bw/size:" + std::to_string(c.size) +
         "/depth:" + std::to_string(c.depth) + "/qps:" + std::to_string(c.qps);
}

void Register(Bench& b) {
  for (Op op : b.options.ops) {
    for (Test test : b.options.tests) {
      for (const Config& c : Configs(b.options, op, test)) {
        auto* bm = benchmark::RegisterBenchmark(
            Name(test, c).c_str(), [&b, test, c](benchmark::State& st) { RunOne(st, b, test, c); });
        bm->Unit(benchmark::kMicrosecond);
        // Bandwidth: wall time of the whole transfer (the kernel works in
        // softirq and work items, not on this thread's CPU time). Latency
        // and connection setup: each timed alone, for the percentiles.
        // Memory: one measurement of N connections.
        if (test == Test::kBandwidth) {
          bm->UseRealTime();
        } else {
          bm->UseManualTime();
        }
        if (test == Test::kMemory) bm->Iterations(1);
      }
    }
  }
}

// Every endpoint holds a completion channel: a thousand loopback
// connections need more descriptors than the usual soft limit of 1024.
void RaiseFileLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

bool Listing(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const std::string_view arg = argv[i];  // NOLINT(*-pointer-arithmetic)
    if (arg == "--benchmark_list_tests" || arg == "--benchmark_list_tests=true") return true;
  }
  return false;
}

int RunBenchmarks(const Options& o, bool listing) {
  RaiseFileLimit();
  Bench b(o);
  if (o.mode == Mode::kLoopback) {
    // The server side listens on an ephemeral port of the same address.
    b.loopback = std::make_unique<Server>(b.engine, ResolveAddress(o.address, 0));
    b.target = ResolveAddress(o.address, b.loopback->port());
  } else {
    b.target = ResolveAddress(o.address, o.port);
  }
  // One connection first, so that a bad address, a missing device or a
  // refused connection ends the program with its reason before any run.
  if (!listing) Session probe(b.engine, *b.target, Config{}, b.timeout());
  SecondsPerTick();  // calibrates (50 ms) before any run
  Register(b);
  benchmark::RunSpecifiedBenchmarks();
  b.session.reset();
  benchmark::Shutdown();
  return b.failed ? 1 : 0;
}

void OnSignal(int /*sig*/) { g_stop = true; }

int Serve(const Options& o) {
  RaiseFileLimit();
  Engine engine(o.busy_poll);
  Server server(engine, ResolveAddress(o.address, o.port));
  struct sigaction sa {};
  sa.sa_handler = OnSignal;  // no SA_RESTART: poll(2) returns at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::cout << "rddp-bench: serving on " << o.address << ":" << server.port() << " ("
            << server.device() << ")" << std::endl;
  while (!g_stop) {
    try {
      engine.Turn(milliseconds(100));
    } catch (const BenchError& e) {
      // One client's failure (its QP in error) is no reason to stop serving.
      std::cerr << "rddp-bench: " << e.what() << "\n";
    }
  }
  return 0;
}

}  // namespace

}  // namespace rddp_bench

int main(int argc, char** argv) {
  using rddp_bench::Usage;
  const bool listing = rddp_bench::Listing(argc, argv);
  // Before benchmark::Initialize(), which answers --help with its own.
  const std::vector<std::string_view> all(argv + 1, argv + argc);  // NOLINT(*-pointer-arithmetic)
  if (rddp_bench::ParseOptions(all).help) {
    std::cout << Usage();
    return 0;
  }
  benchmark::Initialize(&argc, argv);                               // takes the --benchmark_* flags
  const std::vector<std::string_view> args(argv + 1, argv + argc);  // NOLINT(*-pointer-arithmetic)
  const rddp_bench::ParseResult parsed = rddp_bench::ParseOptions(args);
  if (!parsed.options) {
    std::cerr << "rddp-bench: " << parsed.error << "\n" << Usage();
    return 2;
  }
  try {
    if (parsed.options->mode == rddp_bench::Mode::kServer)
      return rddp_bench::Serve(*parsed.options);
    return rddp_bench::RunBenchmarks(*parsed.options, listing);
  } catch (const rddp_bench::BenchError& e) {
    std::cerr << "rddp-bench: " << e.what() << "\n";
    return 1;
  }
}
