// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <system_error>

extern "C" {
#include <rddp/mpa.h>
}

namespace rddp_core_bench {
namespace {

[[noreturn]] void Fail(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

Fd Check(int fd, const char* what) {
  if (fd < 0) Fail(what);
  return Fd(fd);
}

void NoDelay(int fd) {
  const int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) Fail("TCP_NODELAY");
}

}  // namespace

Connection TcpLoopback() {
  Fd lsn = Check(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(sa);
  // sockaddr_in is a sockaddr by the sockets API's contract.
  auto* addr = reinterpret_cast<sockaddr*>(&sa);
  if (bind(lsn.get(), addr, len) != 0 || listen(lsn.get(), 1) != 0 ||
      getsockname(lsn.get(), addr, &len) != 0)
    Fail("listen on 127.0.0.1");
  Connection c;
  c.tx = Check(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
  if (connect(c.tx.get(), addr, len) != 0) Fail("connect to 127.0.0.1");
  c.rx = Check(accept4(lsn.get(), nullptr, nullptr, SOCK_CLOEXEC), "accept");
  NoDelay(c.tx.get());
  NoDelay(c.rx.get());
  return c;
}

Connection UnixPair() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) Fail("socketpair");
  return Connection{Fd(fds[0]), Fd(fds[1])};
}

uint32_t StreamMulpdu(int fd) {
  int mss = 0;
  socklen_t len = sizeof(mss);
  if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) != 0) Fail("TCP_MAXSEG");
  const uint32_t m = rddp_mpa_mulpdu(static_cast<uint32_t>(mss), false);
  return m < RDDP_FPDU_MAX_ULPDU - 3 ? m : RDDP_FPDU_MAX_ULPDU - 3;
}

}  // namespace rddp_core_bench
