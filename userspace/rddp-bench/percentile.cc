// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "percentile.h"

#include <algorithm>
#include <cmath>

namespace rddp_bench {

namespace {

// `sorted` is not empty.
double Rank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  // The small epsilon keeps 99.9 % of 1000 at rank 999, not 1000, where
  // 0.999 * 1000 comes out a hair above 999 in binary floating point.
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n - 1e-9));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

}  // namespace

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  return Rank(samples, p);
}

LatencySummary Summarize(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  return {samples.front(), Rank(samples, 50), Rank(samples, 99), Rank(samples, 99.9),
          samples.back()};
}

}  // namespace rddp_bench
