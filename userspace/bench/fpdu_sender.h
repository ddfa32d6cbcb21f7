// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The TX side of the host-native benchmark: messages framed by the protocol
// core exactly as rddp's TX engine frames an RDMA Write (kmod/qp_tx.c).
#ifndef RDDP_CORE_BENCH_FPDU_SENDER_H
#define RDDP_CORE_BENCH_FPDU_SENDER_H

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

extern "C" {
#include <rddp/mpa.h>
}

namespace rddp_core_bench {

// The STag every Write names; FpduReceiver accepts only this one.
inline constexpr uint32_t kStag = 0x1234500;

class FpduSender {
 public:
  // Frames for a stream with or without CRC32c (markers off, as rddp
  // negotiates by default) in segments of at most `mulpdu` octets.
  FpduSender(int fd, bool crc, uint32_t mulpdu);

  // Sends `msg` as one RDMA Write to TO 0 (RFC 5040 §4.3): tagged DDP
  // segments of at most MULPDU octets (RFC 5041 §5.1), each one FPDU
  // (RFC 5044 §4: ULPDU_Length, header, payload, pad, CRC32c) built in one
  // pass by rddp_fpdu_build(), which computes the CRC over the payload in
  // place and returns a gather list. Blocks until TCP took it all; throws
  // std::system_error on a socket error.
  void Send(std::span<const uint8_t> msg);

 private:
  void Write(bool more);

  int fd_;
  uint32_t mulpdu_;
  rddp_mpa_tx tx_{};
  std::unique_ptr<rddp_fpdu> fpdu_;
  std::vector<iovec> iov_;
};

}  // namespace rddp_core_bench

#endif  // RDDP_CORE_BENCH_FPDU_SENDER_H
