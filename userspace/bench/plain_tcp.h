// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The baseline of the host-native benchmark: the same payload octets over
// the same kind of connection with plain send() and recv(), no framing.
#ifndef RDDP_CORE_BENCH_PLAIN_TCP_H
#define RDDP_CORE_BENCH_PLAIN_TCP_H

#include <cstdint>
#include <span>

#include "fpdu_receiver.h"

namespace rddp_core_bench {

// One send() per message (more only after a partial write). Throws
// std::system_error on a socket error.
void SendPlain(int fd, std::span<const uint8_t> msg);

// recv() straight into `dst` until EOF, message after message: the n-th
// octet of the stream lands at dst[n % dst.size()]. `placed` counts them.
RxResult RecvPlain(int fd, std::span<uint8_t> dst);

}  // namespace rddp_core_bench

#endif  // RDDP_CORE_BENCH_PLAIN_TCP_H
