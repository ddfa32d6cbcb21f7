// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "stopwatch.h"

#include <chrono>
#include <thread>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rddp_bench {

namespace {

using Clock = std::chrono::steady_clock;

#if !defined(__x86_64__)
uint64_t ClockNanoseconds() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}
#endif

double Calibrate() {
#if defined(__x86_64__)
  const Clock::time_point t0 = Clock::now();
  const uint64_t c0 = Ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const Clock::time_point t1 = Clock::now();
  const uint64_t c1 = Ticks();
  const double seconds = std::chrono::duration<double>(t1 - t0).count();
  // A counter that did not move (a hypervisor that stops it) falls back
  // to nanoseconds' scale, visibly wrong rather than a division by zero.
  if (c1 <= c0) return 1e-9;
  return seconds / static_cast<double>(c1 - c0);
#else
  return 1e-9;
#endif
}

}  // namespace

uint64_t Ticks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return ClockNanoseconds();
#endif
}

double SecondsPerTick() {
  static const double kScale = Calibrate();
  return kScale;
}

}  // namespace rddp_bench
