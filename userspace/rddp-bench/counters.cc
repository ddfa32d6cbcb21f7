// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "counters.h"

#include "client.h"
#include "error.h"

namespace rddp_bench {

DeviceCounters::DeviceCounters(bool enabled) {
  if (!enabled) return;
  try {
    client_ = std::make_unique<rddpctl::RddpClient>();
  } catch (const rddpctl::Error&) {
    // No rddp family: another driver, or no netlink access. Not an error.
  }
}

DeviceCounters::~DeviceCounters() = default;

CounterValues DeviceCounters::Read(const std::string& dev) {
  CounterValues values;
  if (!client_) return values;
  try {
    for (const rddpctl::Device& d : client_->GetDevices(dev)) {
      for (const rddpctl::Counter& c : d.counters) values[std::string(c.name)] += c.value;
    }
  } catch (const rddpctl::Error&) {
    // ENODEV: `dev` belongs to another driver (siw).
  }
  return values;
}

CounterValues Delta(const CounterValues& before, const CounterValues& after) {
  CounterValues delta;
  for (const auto& [name, value] : after) {
    auto it = before.find(name);
    if (it != before.end()) delta[name] = value - it->second;
  }
  return delta;
}

}  // namespace rddp_bench
