// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp_sock_setup: what a bare connection costs the kernel, TCP or SCTP,
// without rddp: the baseline under rddp-bench's `connect` and `qp_memory`
// (Documentation/performance.md, "What an SCTP association costs").
//
// In one process, over an address of this host: first H connections held
// open at once, and what they took from /proc/meminfo, per end (rddp-bench
// counts a QP per end too), for each H of --hold; then N times connect()
// to its own listener and accept() (timed: the handshake, three segments
// for TCP, four chunks with SCTP's signed cookie, RFC 4960 §5.1), then
// close both ends (not timed: the rate is N over the timed part, as
// rddp-bench's). SCTP sockets are one-to-one style and ask for one stream
// each way, as rddp's (draft-ietf-rddp-sctp §5). On stdout, JSON shaped
// as rddp-bench's (Google Benchmark's), with the same names and keys:
// `connect` (connects_per_second, p50_us, p99_us) and `qp_memory/qps:H`
// (kernel_kib_per_qp, used_kib_per_qp), so that tools/bench-report.py
// sets it beside rddp's figures.
#include <arpa/inet.h>
#include <linux/sctp.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fd.h"

namespace {

using rddp_core_bench::Fd;
using Clock = std::chrono::steady_clock;

struct Args {
  bool sctp = false;
  std::string address = "127.0.0.1";
  uint16_t port = 18600;
  int connects = 500;
  std::vector<int> hold{1000};
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "rddp_sock_setup: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "rddp_sock_setup: %s\n"
               "usage: rddp_sock_setup tcp|sctp [--address IPV4] [--port P]"
               " [--connects N] [--hold N[,N...]]\n",
               why.c_str());
  std::exit(2);
}

int ParseCount(std::string_view text, int max) {
  const std::string s(text);
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 1 || v > max) Usage("bad count '" + s + "'");
  return static_cast<int>(v);
}

std::vector<int> ParseCounts(std::string_view text, int max) {
  std::vector<int> out;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(ParseCount(text.substr(start, comma - start), max));
    start = comma + 1;
  }
  return out;
}

Args Parse(int argc, char** argv) {
  Args a;
  const std::vector<std::string_view> v(argv + 1, argv + argc);
  if (v.empty() || (v[0] != "tcp" && v[0] != "sctp")) Usage("transport tcp or sctp first");
  a.sctp = v[0] == "sctp";
  for (size_t i = 1; i < v.size(); i += 2) {
    if (i + 1 >= v.size()) Usage("no value after " + std::string(v[i]));
    const std::string_view val = v[i + 1];
    if (v[i] == "--address") {
      a.address = val;
    } else if (v[i] == "--port") {
      a.port = static_cast<uint16_t>(ParseCount(val, 65535));
    } else if (v[i] == "--connects") {
      a.connects = ParseCount(val, 100000);
    } else if (v[i] == "--hold") {
      a.hold = ParseCounts(val, 20000);
    } else {
      Usage("unknown option " + std::string(v[i]));
    }
  }
  return a;
}

Fd Socket(const Args& a) {
  Fd fd(socket(AF_INET, SOCK_STREAM, a.sctp ? IPPROTO_SCTP : IPPROTO_TCP));
  if (fd.get() < 0) Die(a.sctp ? "socket(SCTP) (is sctp.ko loaded?)" : "socket(TCP)");
  if (a.sctp) {
    sctp_initmsg init{};
    init.sinit_num_ostreams = 1;
    init.sinit_max_instreams = 1;
    if (setsockopt(fd.get(), IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof(init)) != 0)
      Die("SCTP_INITMSG");
  }
  return fd;
}

sockaddr_in Address(const Args& a) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(a.port);
  if (inet_pton(AF_INET, a.address.c_str(), &sin.sin_addr) != 1) Usage("bad address " + a.address);
  return sin;
}

Fd Listen(const Args& a) {
  Fd fd = Socket(a);
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  const sockaddr_in sin = Address(a);
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&sin), sizeof(sin)) != 0) Die("bind");
  if (listen(fd.get(), 4096) != 0) Die("listen");
  return fd;
}

struct Pair {
  Fd client;
  Fd server;
};

Pair Connect(const Args& a, const Fd& listener) {
  Pair p{Socket(a), Fd()};
  const sockaddr_in sin = Address(a);
  if (connect(p.client.get(), reinterpret_cast<const sockaddr*>(&sin), sizeof(sin)) != 0)
    Die("connect");
  p.server = Fd(accept(listener.get(), nullptr, nullptr));
  if (p.server.get() < 0) Die("accept");
  return p;
}

std::map<std::string, double> Meminfo() {
  std::map<std::string, double> m;
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string key;
    double kib = 0;
    if (s >> key >> kib && !key.empty()) m[key.substr(0, key.size() - 1)] = kib;
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = Parse(argc, argv);
  // Two descriptors per held connection: past the usual soft limit.
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);
  }
  const Fd listener = Listen(a);

  // Memory first, on caches no connection of this run has warmed: freed
  // sockets would leave their slab objects for the next to take, and the
  // held ones would seem to cost nothing. The counts cumulate: the
  // connections of a smaller count stay open while those of the next are
  // made, each figure is from the same start.
  std::vector<int> counts = a.hold;
  std::sort(counts.begin(), counts.end());
  std::vector<std::string> memory;
  std::vector<Pair> held;
  const std::map<std::string, double> before = Meminfo();
  for (const int n : counts) {
    while (held.size() < static_cast<size_t>(n)) held.push_back(Connect(a, listener));
    std::map<std::string, double> after = Meminfo();
    const double ends = 2.0 * n;
    auto delta = [&](const char* k) { return (after[k] - before.at(k)) / ends; };
    std::array<char, 256> line{};
    std::snprintf(line.data(), line.size(),
                  ",\n  {\"name\": \"qp_memory/qps:%d\", \"qps\": %.0f, "
                  "\"kernel_kib_per_qp\": %.2f, \"used_kib_per_qp\": %.2f}",
                  n, ends, delta("Slab") + delta("VmallocUsed"), -delta("MemFree"));
    memory.emplace_back(line.data());
  }
  held.clear();

  std::vector<double> us;
  for (int i = 0; i < a.connects; i++) {
    const Clock::time_point t = Clock::now();
    const Pair p = Connect(a, listener);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  double seconds = 0;
  for (const double u : us) seconds += u / 1e6;
  std::sort(us.begin(), us.end());

  std::printf(
      "{\"context\": {\"transport\": \"%s\", \"address\": \"%s\"}, \"benchmarks\": [\n"
      "  {\"name\": \"connect\", \"iterations\": %d, \"connects_per_second\": %.1f, "
      "\"p50_us\": %.1f, \"p99_us\": %.1f}",
      a.sctp ? "sctp" : "tcp", a.address.c_str(), a.connects, a.connects / seconds,
      us[us.size() / 2], us[us.size() * 99 / 100]);
  for (const std::string& m : memory) std::fputs(m.c_str(), stdout);
  std::printf("\n]}\n");
  return 0;
}
