// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The RX side of the host-native benchmark: FpduSender's Writes deframed by
// the protocol core and placed as rddp's RX engine places them
// (kmod/qp_rx.c).
#ifndef RDDP_CORE_BENCH_FPDU_RECEIVER_H
#define RDDP_CORE_BENCH_FPDU_RECEIVER_H

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

extern "C" {
#include <rddp/mpa.h>
}

namespace rddp_core_bench {

struct RxResult {
  int mpa_err = RDDP_MPA_OK;  // enum rddp_mpa_err, the first one
  int sys_err = 0;            // errno of a failed read, else 0
  uint64_t fpdus = 0;         // FPDUs whose CRC (if on) checked
  uint64_t placed = 0;        // payload octets of those FPDUs
};

class FpduReceiver {
 public:
  // The bounce buffer's default size: one skb on loopback (64 KiB MTU),
  // what the kernel's deframer sees per call of its tcp_read_sock() actor.
  static constexpr size_t kBounce = size_t{64} << 10;

  // Writes to STag kStag land in `dst`, at their TO.
  FpduReceiver(int fd, bool crc, std::span<uint8_t> dst, size_t bounce = kBounce);

  // Reads until EOF: each read() into the bounce buffer goes to the
  // deframer, which checks ULPDU_Length and the CRC32c (RFC 5044 §4.1,
  // §4.4) and hands over each payload piece as it passes, to be copied to
  // its place at once, as the kernel's RX does from the skb. The read is
  // the copy out of the socket the kernel does not make. After an error the
  // rest of the stream is read and dropped, so a sender never blocks.
  RxResult Run();

 private:
  static int OnHeader(void* ctx, const uint8_t* hdr, uint32_t hdr_len, uint32_t payload_len);
  static int OnPayload(void* ctx, const uint8_t* data, uint32_t len);
  static int OnDone(void* ctx);

  int fd_;
  std::span<uint8_t> dst_;
  std::vector<uint8_t> bounce_;
  rddp_mpa_rx rx_{};
  size_t at_ = 0;         // where the next payload octet goes in dst_
  uint32_t seg_len_ = 0;  // payload octets of the current segment
  RxResult res_;
};

}  // namespace rddp_core_bench

#endif  // RDDP_CORE_BENCH_FPDU_RECEIVER_H
