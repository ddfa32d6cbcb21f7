// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Per-iteration timestamps without a syscall. User-Mode Linux traps every
// syscall through ptrace, clock_gettime(2) included (its vDSO makes the
// syscall), at tens of microseconds: two clock reads per round trip would
// time the clock more than the driver. On x86-64 the time-stamp counter is
// read in user space and scaled by a calibration against steady_clock
// (like perftest's cycle counter); elsewhere the ticks are steady_clock's
// nanoseconds.
#ifndef RDDP_BENCH_STOPWATCH_H
#define RDDP_BENCH_STOPWATCH_H

#include <cstdint>

namespace rddp_bench {

// A timestamp in ticks; only differences mean something.
uint64_t Ticks();

// Seconds per tick. The first call calibrates: it reads steady_clock and
// Ticks() around a 50 ms sleep, so a clock read's cost (twice) is an error
// under 0.1 %. Later calls return the same value.
double SecondsPerTick();

// Seconds between two timestamps.
inline double TicksToSeconds(uint64_t start, uint64_t end) {
  return static_cast<double>(end - start) * SecondsPerTick();
}

}  // namespace rddp_bench

#endif  // RDDP_BENCH_STOPWATCH_H
