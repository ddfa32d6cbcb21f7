// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp's per-device counters (the rddp generic-netlink family, through
// rddpctl's client), read before and after each benchmark run. Optional:
// without rddp.ko, or for another driver's device (siw), there are none.
#ifndef RDDP_BENCH_COUNTERS_H
#define RDDP_BENCH_COUNTERS_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace rddpctl {
class RddpClient;
}

namespace rddp_bench {

using CounterValues = std::map<std::string, uint64_t>;

class DeviceCounters {
 public:
  explicit DeviceCounters(bool enabled);
  DeviceCounters(const DeviceCounters&) = delete;
  DeviceCounters& operator=(const DeviceCounters&) = delete;
  DeviceCounters(DeviceCounters&&) = delete;
  DeviceCounters& operator=(DeviceCounters&&) = delete;
  ~DeviceCounters();

  // `dev`'s counters by rddpctl's names (tx_fpdus, tx_zcopy_bytes, ...);
  // empty when rddp has no such device or is not loaded.
  CounterValues Read(const std::string& dev);

 private:
  std::unique_ptr<rddpctl::RddpClient> client_;
};

// after - before, by name, for the names in both.
CounterValues Delta(const CounterValues& before, const CounterValues& after);

}  // namespace rddp_bench

#endif  // RDDP_BENCH_COUNTERS_H
