// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp-bench's pure parts (userspace/rddp-bench): its command line and the
// latency percentiles it reports, its stopwatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cpu.h"
#include "options.h"
#include "percentile.h"
#include "stopwatch.h"

namespace rddp_bench {
namespace {

ParseResult Parse(const std::vector<std::string_view>& args) { return ParseOptions(args); }

// The error text for `args`; fails the test if they parse.
std::string ErrorOf(const std::vector<std::string_view>& args) {
  ParseResult r = Parse(args);
  EXPECT_FALSE(r.options.has_value());
  EXPECT_FALSE(r.help);
  return r.error;
}

TEST(RddpBenchOptions, Modes) {
  ParseResult r = Parse({"--loopback", "198.51.100.1"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->mode, Mode::kLoopback);
  EXPECT_EQ(r.options->address, "198.51.100.1");
  r = Parse({"--server=192.0.2.1", "--port", "7000"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->mode, Mode::kServer);
  EXPECT_EQ(r.options->address, "192.0.2.1");
  EXPECT_EQ(r.options->port, 7000);
  r = Parse({"--client", "192.0.2.2"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->mode, Mode::kClient);
  EXPECT_EQ(r.options->port, 18515);
}

TEST(RddpBenchOptions, Defaults) {
  ParseResult r = Parse({"--loopback", "x"});
  ASSERT_TRUE(r.options);
  Options want;
  want.address = "x";
  EXPECT_EQ(*r.options, want);
  EXPECT_EQ(want.bw_sizes, (std::vector<uint32_t>{64, 4096, 65536, 1048576}));
  EXPECT_EQ(want.lat_sizes, (std::vector<uint32_t>{64}));
  EXPECT_EQ(want.ops, (std::vector<Op>{Op::kWrite, Op::kRead, Op::kSend}));
  EXPECT_EQ(want.timeout_ms, 10000);
  EXPECT_TRUE(want.counters);
  EXPECT_FALSE(want.busy_poll);
}

TEST(RddpBenchOptions, Lists) {
  ParseResult r = Parse({"--client", "h", "--ops", "send,read", "--tests=lat", "--sizes",
                         "64..1K,1M", "--lat-sizes", "64,4k", "--depth", "1,16", "--qps=1,8",
                         "--timeout-ms", "500", "--busy-poll", "--no-counters"});
  ASSERT_TRUE(r.options) << r.error;
  const Options& o = *r.options;
  EXPECT_EQ(o.ops, (std::vector<Op>{Op::kSend, Op::kRead}));
  EXPECT_EQ(o.tests, (std::vector<rddp_bench::Test>{rddp_bench::Test::kLatency}));
  EXPECT_EQ(o.bw_sizes, (std::vector<uint32_t>{64, 128, 256, 512, 1024, 1048576}));
  EXPECT_EQ(o.lat_sizes, (std::vector<uint32_t>{64, 4096}));
  EXPECT_EQ(o.depths, (std::vector<uint32_t>{1, 16}));
  EXPECT_EQ(o.qps, (std::vector<uint32_t>{1, 8}));
  EXPECT_EQ(o.timeout_ms, 500);
  EXPECT_TRUE(o.busy_poll);
  EXPECT_FALSE(o.counters);
}

TEST(RddpBenchOptions, Tests) {
  ParseResult r = Parse({"--loopback", "a", "--tests", "conn,bw,lat,mem", "--mem-qps", "10,4096"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->tests,
            (std::vector<rddp_bench::Test>{rddp_bench::Test::kConnect, rddp_bench::Test::kBandwidth,
                                           rddp_bench::Test::kLatency, rddp_bench::Test::kMemory}));
  EXPECT_EQ(r.options->mem_qps, (std::vector<uint32_t>{10, 4096}));
  EXPECT_EQ(Options{}.mem_qps, (std::vector<uint32_t>{1, 100, 1000}));
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--mem-qps", "4097"}),
            "--mem-qps: takes QP counts 1..4096, comma-separated (got '4097')");
}

TEST(RddpBenchOptions, Sizes) {
  EXPECT_EQ(ParseSize("1"), 1U);
  EXPECT_EQ(ParseSize("4K"), 4096U);
  EXPECT_EQ(ParseSize("64M"), 64U << 20);
  EXPECT_EQ(ParseSize("64m"), 64U << 20);
  for (std::string_view bad : {"", "0", "0K", "K", "65M", "67108865", "1G", "-1", "1.5K", " 1"})
    EXPECT_FALSE(ParseSize(bad)) << bad;
  EXPECT_EQ(ParseSizeList("1M..1M"), (std::vector<uint32_t>{1U << 20}));
  // A range starts at its low end and doubles up to the high one, inclusive
  // only when the high end is on the way.
  EXPECT_EQ(ParseSizeList("3..12"), (std::vector<uint32_t>{3, 6, 12}));
  EXPECT_EQ(ParseSizeList("3..10"), (std::vector<uint32_t>{3, 6}));
  for (std::string_view bad : {"", ",", "64,", "2..1", "..4", "4..", "64...128"})
    EXPECT_FALSE(ParseSizeList(bad)) << bad;
}

TEST(RddpBenchOptions, Errors) {
  EXPECT_EQ(ErrorOf({}), "one of --loopback ADDR, --server ADDR, --client ADDR is needed");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--client", "b"}),
            "--loopback, --server and --client exclude each other");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--frob"}), "unknown option '--frob'");
  EXPECT_EQ(ErrorOf({"--loopback"}), "--loopback: a value is needed");
  EXPECT_EQ(ErrorOf({"--loopback="}), "--loopback: an address is needed (got '')");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--port", "0"}),
            "--port: takes a port number 1..65535 (got '0')");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--ops", "write,atomic"}),
            "--ops: takes a list of write, read, send (got 'write,atomic')");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--tests", "bw,"}),
            "--tests: takes a list of bw, lat, conn, mem (got 'bw,')");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--depth", "1025"}),
            "--depth: takes queue depths 1..1024, comma-separated (got '1025')");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--qps", "0"}),
            "--qps: takes QP counts 1..256, comma-separated (got '0')");
  EXPECT_EQ(ErrorOf({"--loopback", "a", "--timeout-ms", "99"}),
            "--timeout-ms: takes milliseconds 100..3600000 (got '99')");
  EXPECT_NE(ErrorOf({"--loopback", "a", "--sizes", "1G"}).find("--sizes: takes sizes"),
            std::string::npos);
}

TEST(RddpBenchOptions, Help) {
  for (std::string_view h : {"-h", "--help"}) {
    ParseResult r = Parse({"--frob", h});
    EXPECT_TRUE(r.help);
    EXPECT_FALSE(r.options);
  }
  const std::string usage = Usage();
  for (const char* word :
       {"--loopback ADDR", "--server ADDR", "--client ADDR", "--port", "--mem-qps", "--ops",
        "--tests", "--sizes", "--lat-sizes", "--depth", "--qps", "--timeout-ms", "--busy-poll",
        "--no-counters", "--benchmark_out"})
    EXPECT_NE(usage.find(word), std::string::npos) << word;
}

TEST(RddpBenchOptions, Names) {
  EXPECT_EQ(OpName(Op::kWrite), "write");
  EXPECT_EQ(OpName(Op::kRead), "read");
  EXPECT_EQ(OpName(Op::kSend), "send");
  EXPECT_EQ(TestName(rddp_bench::Test::kBandwidth), "bw");
  EXPECT_EQ(TestName(rddp_bench::Test::kLatency), "lat");
  EXPECT_EQ(TestName(rddp_bench::Test::kConnect), "conn");
  EXPECT_EQ(TestName(rddp_bench::Test::kMemory), "mem");
}

TEST(RddpBenchPercentile, NearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; i++) v.push_back(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(1));  // fixed seed: the same order every run
  EXPECT_EQ(Percentile(v, 50), 500);
  EXPECT_EQ(Percentile(v, 99), 990);
  EXPECT_EQ(Percentile(v, 99.9), 999);
  EXPECT_EQ(Percentile(v, 100), 1000);
  EXPECT_EQ(Percentile(v, 0.001), 1);
  EXPECT_EQ(Summarize(v), (LatencySummary{1, 500, 990, 999, 1000}));
}

TEST(RddpBenchPercentile, FewSamples) {
  EXPECT_EQ(Summarize({}), LatencySummary{});
  EXPECT_EQ(Percentile({}, 50), 0);
  EXPECT_EQ(Summarize({7}), (LatencySummary{7, 7, 7, 7, 7}));
  // Two samples: the median is the lower (nearest rank 1), the tail the higher.
  EXPECT_EQ(Summarize({9, 3}), (LatencySummary{3, 3, 9, 9, 9}));
  // 99 fast round trips and one slow one: p99 is still fast, p99.9 is not.
  std::vector<double> v(99, 1.0);
  v.push_back(100.0);
  EXPECT_EQ(Summarize(v), (LatencySummary{1, 1, 1, 100, 100}));
}

TEST(RddpBenchCpu, ProcStat) {
  // user nice system idle iowait irq softirq steal guest guest_nice
  const char* text =
      "cpu  100 5 40 1000 7 3 2 1 0 0\n"
      "cpu0 50 2 20 500 3 1 1 0 0 0\n"
      "intr 12345\n";
  EXPECT_EQ(ParseProcStat(text), (CpuTimes{151, 45, 1158}));
  // Not first in the text, and a kernel without irq/softirq/steal fields.
  EXPECT_EQ(ParseProcStat("ctxt 1\ncpu  10 0 5 100 1\n"), (CpuTimes{15, 5, 116}));
  EXPECT_FALSE(ParseProcStat(""));
  EXPECT_FALSE(ParseProcStat("cpu0 1 2 3 4 5\n"));
  EXPECT_FALSE(ParseProcStat("cpu  1 2 3 4\n"));
  EXPECT_FALSE(ParseProcStat("cpu  a b c d e\n"));
}

TEST(RddpBenchCpu, Meminfo) {
  const auto m = ParseMeminfo(
      "MemTotal:        2030000 kB\n"
      "MemFree:         1500000 kB\n"
      "Slab:              40000 kB\n"
      "HugePages_Total:       0\n"
      "garbage\n"
      "VmallocUsed:        9000 kB\n");
  EXPECT_EQ(
      m, (std::map<std::string, uint64_t>{
             {"MemTotal", 2030000}, {"MemFree", 1500000}, {"Slab", 40000}, {"VmallocUsed", 9000}}));
  EXPECT_TRUE(ParseMeminfo("").empty());
}

// Ticks never go back, and a 20 ms sleep measures at least 20 ms less the
// calibration's error (a bound on correctness, not on speed: no upper one).
TEST(RddpBenchStopwatch, TicksScaleToSeconds) {
  EXPECT_GT(SecondsPerTick(), 0.0);
  EXPECT_EQ(SecondsPerTick(), SecondsPerTick());
  const uint64_t a = Ticks();
  const uint64_t b = Ticks();
  EXPECT_LE(a, b);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(TicksToSeconds(a, Ticks()), 0.019);
  EXPECT_EQ(TicksToSeconds(b, b), 0.0);
}

}  // namespace
}  // namespace rddp_bench
