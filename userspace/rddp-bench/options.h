// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp-bench's own command line (everything but Google Benchmark's
// --benchmark_* flags, which benchmark::Initialize() takes first). Pure:
// tested in tests/unit/rddp_bench_test.cc without a device.
#ifndef RDDP_BENCH_OPTIONS_H
#define RDDP_BENCH_OPTIONS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rddp_bench {

enum class Mode { kLoopback, kServer, kClient };
enum class Op : uint8_t { kWrite, kRead, kSend };
enum class Test : uint8_t { kBandwidth, kLatency, kConnect, kMemory };

struct Options {
  Mode mode = Mode::kLoopback;
  std::string address;
  uint16_t port = 18515;
  std::vector<Op> ops{Op::kWrite, Op::kRead, Op::kSend};
  std::vector<Test> tests{Test::kBandwidth, Test::kLatency};
  std::vector<uint32_t> bw_sizes{64, 4096, 65536, 1U << 20};
  std::vector<uint32_t> lat_sizes{64};
  std::vector<uint32_t> depths{16};
  std::vector<uint32_t> qps{1};
  std::vector<uint32_t> mem_qps{1, 100, 1000};
  int timeout_ms = 10000;  // bound on every CM event and completion wait
  bool busy_poll = false;  // spin on the CQs instead of sleeping on events
  bool counters = true;    // read rddp's netlink counters when it has them
  bool operator==(const Options&) const = default;
};

// The largest message: 64 MiB, so that one buffer per QP stays small
// enough for the guests.
constexpr uint32_t kMaxSize = 64U << 20;
constexpr uint32_t kMaxDepth = 1024;
constexpr uint32_t kMaxQps = 256;
constexpr uint32_t kMaxMemQps = 4096;

struct ParseResult {
  std::optional<Options> options{};  // empty: error (or help)
  std::string error{};               // "" with help
  bool help = false;
};

// `args` excludes argv[0].
ParseResult ParseOptions(const std::vector<std::string_view>& args);

// "64", "4K", "4k", "1M": bytes; nullopt if malformed, 0 or above kMaxSize.
std::optional<uint32_t> ParseSize(std::string_view text);

// "64,4K,1M" or "64..1M" (every power of two from 64 to 1 MiB), or both
// mixed: "64..256,1M". nullopt on any malformed element.
std::optional<std::vector<uint32_t>> ParseSizeList(std::string_view text);

std::string Usage();

std::string_view OpName(Op op);
std::string_view TestName(Test test);

}  // namespace rddp_bench

#endif  // RDDP_BENCH_OPTIONS_H
