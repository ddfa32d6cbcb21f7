// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Latency percentiles from per-iteration round-trip times. Pure.
#ifndef RDDP_BENCH_PERCENTILE_H
#define RDDP_BENCH_PERCENTILE_H

#include <vector>

namespace rddp_bench {

struct LatencySummary {
  double min = 0;
  double p50 = 0;
  double p99 = 0;
  double p999 = 0;
  double max = 0;
  bool operator==(const LatencySummary&) const = default;
};

// The nearest-rank percentile (the smallest sample with at least p % of
// the samples at or below it), so every figure is a time that was measured,
// never an interpolation. `p` in (0, 100]. 0 for no samples.
double Percentile(std::vector<double> samples, double p);

// Sorts `samples` once for all figures; all 0 for no samples.
LatencySummary Summarize(std::vector<double> samples);

}  // namespace rddp_bench

#endif  // RDDP_BENCH_PERCENTILE_H
