// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The whole system's CPU time (/proc/stat) and memory (/proc/meminfo): a
// transfer's cost is spent mostly outside the benchmark's thread (softirq,
// work items, the peer's side in loopback), and a QP's memory in the
// kernel, so the process's own rusage would miss both.
#ifndef RDDP_BENCH_CPU_H
#define RDDP_BENCH_CPU_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rddp_bench {

// Clock ticks (USER_HZ) summed over every CPU.
struct CpuTimes {
  uint64_t busy = 0;    // user, nice, system, irq, softirq, steal
  uint64_t kernel = 0;  // system, irq, softirq
  uint64_t total = 0;   // busy, idle, iowait
  bool operator==(const CpuTimes&) const = default;
};

// The aggregate "cpu " line of /proc/stat's text; nullopt if it is missing
// or malformed.
std::optional<CpuTimes> ParseProcStat(std::string_view text);

// /proc/stat now; nullopt if it cannot be read (then no CPU counters).
std::optional<CpuTimes> ReadProcStat();

// /proc/meminfo's fields in KiB ("MemFree" -> 123456); malformed lines
// are skipped.
std::map<std::string, uint64_t> ParseMeminfo(std::string_view text);
std::map<std::string, uint64_t> ReadMeminfo();

}  // namespace rddp_bench

#endif  // RDDP_BENCH_CPU_H
