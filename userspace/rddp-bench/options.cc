// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "options.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>

namespace rddp_bench {

namespace {

std::optional<uint64_t> ParseNumber(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::optional<uint32_t> ParseBounded(std::string_view text, uint32_t min, uint32_t max) {
  std::optional<uint64_t> v = ParseNumber(text);
  if (!v || *v < min || *v > max) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

std::optional<std::vector<uint32_t>> ParseNumberList(std::string_view text, uint32_t max) {
  std::vector<uint32_t> values;
  for (std::string_view part : Split(text, ',')) {
    std::optional<uint32_t> v = ParseBounded(part, 1, max);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

template <typename T>
std::optional<std::vector<T>> ParseNames(std::string_view text,
                                         const std::map<std::string_view, T>& names) {
  std::vector<T> values;
  for (std::string_view part : Split(text, ',')) {
    auto it = names.find(part);
    if (it == names.end()) return std::nullopt;
    values.push_back(it->second);
  }
  return values;
}

// One option with its value: sets the field or returns the error text.
using Setter = std::function<std::string(Options&, std::string_view)>;

std::string SetMode(Options& o, Mode mode, std::string_view value) {
  o.mode = mode;
  o.address = std::string(value);
  return value.empty() ? "an address is needed" : "";
}

const std::map<std::string_view, Setter>& ValueOptions() {
  static const std::map<std::string_view, Setter> kOptions = {
      {"--loopback", [](Options& o, auto v) { return SetMode(o, Mode::kLoopback, v); }},
      {"--server", [](Options& o, auto v) { return SetMode(o, Mode::kServer, v); }},
      {"--client", [](Options& o, auto v) { return SetMode(o, Mode::kClient, v); }},
      {"--port",
       [](Options& o, auto v) -> std::string {
         auto p = ParseBounded(v, 1, 65535);
         if (!p) return "takes a port number 1..65535";
         o.port = static_cast<uint16_t>(*p);
         return "";
       }},
      {"--ops",
       [](Options& o, auto v) -> std::string {
         auto ops =
             ParseNames<Op>(v, {{"write", Op::kWrite}, {"read", Op::kRead}, {"send", Op::kSend}});
         if (!ops) return "takes a list of write, read, send";
         o.ops = *ops;
         return "";
       }},
      {"--tests",
       [](Options& o, auto v) -> std::string {
         auto t = ParseNames<Test>(v, {{"bw", Test::kBandwidth},
                                       {"lat", Test::kLatency},
                                       {"conn", Test::kConnect},
                                       {"mem", Test::kMemory}});
         if (!t) return "takes a list of bw, lat, conn, mem";
         o.tests = *t;
         return "";
       }},
      {"--sizes",
       [](Options& o, auto v) -> std::string {
         auto s = ParseSizeList(v);
         if (!s) return "takes sizes like 64,4K,1M or 64..1M (1 B to 64 MiB)";
         o.bw_sizes = *s;
         return "";
       }},
      {"--lat-sizes",
       [](Options& o, auto v) -> std::string {
         auto s = ParseSizeList(v);
         if (!s) return "takes sizes like 64,4K,1M or 64..1M (1 B to 64 MiB)";
         o.lat_sizes = *s;
         return "";
       }},
      {"--depth",
       [](Options& o, auto v) -> std::string {
         auto d = ParseNumberList(v, kMaxDepth);
         if (!d) return "takes queue depths 1..1024, comma-separated";
         o.depths = *d;
         return "";
       }},
      {"--qps",
       [](Options& o, auto v) -> std::string {
         auto q = ParseNumberList(v, kMaxQps);
         if (!q) return "takes QP counts 1..256, comma-separated";
         o.qps = *q;
         return "";
       }},
      {"--mem-qps",
       [](Options& o, auto v) -> std::string {
         auto q = ParseNumberList(v, kMaxMemQps);
         if (!q) return "takes QP counts 1..4096, comma-separated";
         o.mem_qps = *q;
         return "";
       }},
      {"--timeout-ms",
       [](Options& o, auto v) -> std::string {
         auto t = ParseBounded(v, 100, 3600000);
         if (!t) return "takes milliseconds 100..3600000";
         o.timeout_ms = static_cast<int>(*t);
         return "";
       }},
  };
  return kOptions;
}

const std::map<std::string_view, std::function<void(Options&)>>& FlagOptions() {
  static const std::map<std::string_view, std::function<void(Options&)>> kFlags = {
      {"--busy-poll", [](Options& o) { o.busy_poll = true; }},
      {"--no-counters", [](Options& o) { o.counters = false; }},
  };
  return kFlags;
}

ParseResult Fail(std::string message) { return {std::nullopt, std::move(message), false}; }

}  // namespace

std::optional<uint32_t> ParseSize(std::string_view text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    const char last = text.back();
    if (last == 'K' || last == 'k') scale = 1024;
    if (last == 'M' || last == 'm') scale = 1024ULL * 1024;
    if (scale != 1) text.remove_suffix(1);
  }
  std::optional<uint64_t> v = ParseNumber(text);
  if (!v || *v == 0 || *v > kMaxSize / scale) return std::nullopt;
  return static_cast<uint32_t>(*v * scale);
}

std::optional<std::vector<uint32_t>> ParseSizeList(std::string_view text) {
  std::vector<uint32_t> sizes;
  for (std::string_view part : Split(text, ',')) {
    const size_t dots = part.find("..");
    if (dots == std::string_view::npos) {
      std::optional<uint32_t> s = ParseSize(part);
      if (!s) return std::nullopt;
      sizes.push_back(*s);
      continue;
    }
    std::optional<uint32_t> lo = ParseSize(part.substr(0, dots));
    std::optional<uint32_t> hi = ParseSize(part.substr(dots + 2));
    if (!lo || !hi || *lo > *hi) return std::nullopt;
    for (uint64_t s = *lo; s <= *hi; s *= 2) sizes.push_back(static_cast<uint32_t>(s));
  }
  return sizes;
}

ParseResult ParseOptions(const std::vector<std::string_view>& args) {
  // Help wins over anything wrong beside it.
  if (std::any_of(args.begin(), args.end(), [](auto a) { return a == "-h" || a == "--help"; }))
    return {std::nullopt, "", true};
  Options o;
  bool mode_seen = false;
  for (size_t i = 0; i < args.size(); i++) {
    std::string_view arg = args[i];
    if (auto flag = FlagOptions().find(arg); flag != FlagOptions().end()) {
      flag->second(o);
      continue;
    }
    // --name=value or --name value.
    std::string_view name = arg.substr(0, arg.find('='));
    auto opt = ValueOptions().find(name);
    if (opt == ValueOptions().end()) return Fail("unknown option '" + std::string(arg) + "'");
    std::string_view value;
    if (name.size() < arg.size()) {
      value = arg.substr(name.size() + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Fail(std::string(name) + ": a value is needed");
    }
    const bool is_mode = name == "--loopback" || name == "--server" || name == "--client";
    if (is_mode && mode_seen) return Fail("--loopback, --server and --client exclude each other");
    mode_seen = mode_seen || is_mode;
    if (std::string err = opt->second(o, value); !err.empty())
      return Fail(std::string(name) + ": " + err + " (got '" + std::string(value) + "')");
  }
  if (!mode_seen) return Fail("one of --loopback ADDR, --server ADDR, --client ADDR is needed");
  return {o, "", false};
}

std::string Usage() {
  return "usage: rddp-bench --loopback ADDR | --server ADDR | --client ADDR [OPTION...]\n"
         "                  [--benchmark_*=...]\n"
         "  --loopback ADDR   client and server QPs in this process, through rdma_cm to\n"
         "                    ADDR (an address of the device's netdev, e.g. 198.51.100.1)\n"
         "  --server ADDR     serve clients on ADDR until SIGINT/SIGTERM\n"
         "  --client ADDR     run the benchmarks against a server at ADDR\n"
         "  --port N          server port (default 18515)\n"
         "  --ops LIST        write,read,send (default all)\n"
         "  --tests LIST      bw,lat,conn,mem (default bw,lat; conn: connection setup,\n"
         "                    mem: kernel memory per QP)\n"
         "  --sizes LIST      bandwidth message sizes, e.g. 64,4K,1M or 64..1M\n"
         "                    (default 64,4K,64K,1M)\n"
         "  --lat-sizes LIST  latency message sizes (default 64)\n"
         "  --depth LIST      bandwidth queue depths per QP (default 16)\n"
         "  --qps LIST        bandwidth QP counts (default 1)\n"
         "  --mem-qps LIST    QP counts of the memory benchmark (default 1,100,1000)\n"
         "  --timeout-ms MS   bound on every connection step and completion wait\n"
         "                    (default 10000)\n"
         "  --busy-poll       spin on completion queues instead of sleeping on events\n"
         "  --no-counters     do not read rddp's netlink counters\n"
         "Google Benchmark's flags (--benchmark_filter, --benchmark_min_time,\n"
         "--benchmark_repetitions, --benchmark_out=FILE --benchmark_out_format=json, ...)\n"
         "apply; --benchmark_list_tests lists the benchmarks.\n";
}

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kWrite:
      return "write";
    case Op::kRead:
      return "read";
    case Op::kSend:
      return "send";
  }
  return "?";
}

std::string_view TestName(Test test) {
  switch (test) {
    case Test::kBandwidth:
      return "bw";
    case Test::kLatency:
      return "lat";
    case Test::kConnect:
      return "conn";
    case Test::kMemory:
      return "mem";
  }
  return "?";
}

}  // namespace rddp_bench
