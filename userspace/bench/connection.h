// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The byte streams the host-native benchmark and its test run over: a real
// TCP connection on 127.0.0.1, or a Unix socketpair the test can tamper with.
#ifndef RDDP_CORE_BENCH_CONNECTION_H
#define RDDP_CORE_BENCH_CONNECTION_H

#include <cstdint>

#include "fd.h"

namespace rddp_core_bench {

// One direction is used: the sender writes to `tx`, the receiver reads `rx`.
struct Connection {
  Fd tx;
  Fd rx;
};

// TCP over 127.0.0.1 on an ephemeral port, TCP_NODELAY on both ends as
// rddp's connection manager sets it (kmod/cm.c). Throws std::system_error.
Connection TcpLoopback();

// socketpair(AF_UNIX, SOCK_STREAM). Throws std::system_error.
Connection UnixPair();

// The MULPDU rddp's TX engine would use on this TCP socket: RFC 5044 §4.5
// from the connection's EMSS (TCP_MAXSEG, the kernel's mss_cache), without
// markers, capped as kmod/stream.c caps it. Throws std::system_error.
uint32_t StreamMulpdu(int fd);

}  // namespace rddp_core_bench

#endif  // RDDP_CORE_BENCH_CONNECTION_H
