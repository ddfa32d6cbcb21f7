// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "cpu.h"

#include <array>
#include <fstream>
#include <sstream>
#include <string>

namespace rddp_bench {

std::optional<CpuTimes> ParseProcStat(std::string_view text) {
  if (!text.starts_with("cpu ")) {
    const size_t pos = text.find("\ncpu ");
    if (pos == std::string_view::npos) return std::nullopt;
    text.remove_prefix(pos + 1);
  }
  std::istringstream line(std::string(text.substr(0, text.find('\n'))));
  std::string label;
  // user nice system idle iowait irq softirq steal; older kernels may
  // stop earlier, but never before iowait.
  std::array<uint64_t, 8> f{};
  line >> label;
  size_t n = 0;
  while (n < f.size() && line >> f.at(n)) n++;
  if (n < 5) return std::nullopt;
  const auto [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  CpuTimes t;
  t.kernel = system + irq + softirq;
  t.busy = user + nice + t.kernel + steal;
  t.total = t.busy + idle + iowait;
  return t;
}

std::optional<CpuTimes> ReadProcStat() {
  std::ifstream in("/proc/stat");
  if (!in.is_open()) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return ParseProcStat(text.str());
}

std::map<std::string, uint64_t> ParseMeminfo(std::string_view text) {
  std::map<std::string, uint64_t> fields;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    // "Slab:             123456 kB" (HugePages_* have no unit: skipped).
    std::istringstream words(line);
    std::string name, unit;
    uint64_t value = 0;
    if (!(words >> name >> value >> unit) || unit != "kB" || !name.ends_with(':')) continue;
    name.pop_back();
    fields[name] = value;
  }
  return fields;
}

std::map<std::string, uint64_t> ReadMeminfo() {
  std::ifstream in("/proc/meminfo");
  std::stringstream text;
  text << in.rdbuf();
  return ParseMeminfo(text.str());
}

}  // namespace rddp_bench
