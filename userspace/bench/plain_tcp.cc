// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "plain_tcp.h"

#include <sys/socket.h>

#include <cerrno>
#include <system_error>

namespace rddp_core_bench {

void SendPlain(int fd, std::span<const uint8_t> msg) {
  while (!msg.empty()) {
    const ssize_t n = send(fd, msg.data(), msg.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "send");
    msg = msg.subspan(static_cast<size_t>(n));
  }
}

RxResult RecvPlain(int fd, std::span<uint8_t> dst) {
  RxResult res;
  size_t at = 0;
  for (;;) {
    const ssize_t n = recv(fd, dst.data() + at, dst.size() - at, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) res.sys_err = errno;
    if (n <= 0) return res;
    res.placed += static_cast<uint64_t>(n);
    at = (at + static_cast<size_t>(n)) % dst.size();
  }
}

}  // namespace rddp_core_bench
