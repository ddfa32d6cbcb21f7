// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "fpdu_receiver.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fpdu_sender.h"

extern "C" {
#include <rddp/rdmap.h>
}

namespace rddp_core_bench {

FpduReceiver::FpduReceiver(int fd, bool crc, std::span<uint8_t> dst, size_t bounce)
    : fd_(fd), dst_(dst), bounce_(bounce) {
  rddp_mpa_rx_init(&rx_, false, crc, RDDP_FPDU_MAX_ULPDU);
}

// The segment's header, not yet CRC-checked: validated and bounds-checked
// before anything is placed (RFC 5041 §7.1), as kmod/qp_rx.c does.
int FpduReceiver::OnHeader(void* ctx, const uint8_t* hdr, uint32_t hdr_len, uint32_t payload_len) {
  auto* r = static_cast<FpduReceiver*>(ctx);
  rddp_hdr h{};
  if (rddp_hdr_parse(hdr, hdr_len, payload_len, &h) != RDDP_ERR_NONE || h.opcode != RDDP_OP_WRITE ||
      h.stag != kStag ||
      rddp_ddp_check_tagged(h.to, payload_len, 0, r->dst_.size(), false) != RDDP_ERR_NONE)
    return -1;
  r->at_ = h.to;
  r->seg_len_ = payload_len;
  return 0;
}

int FpduReceiver::OnPayload(void* ctx, const uint8_t* data, uint32_t len) {
  auto* r = static_cast<FpduReceiver*>(ctx);
  std::memcpy(r->dst_.subspan(r->at_, len).data(), data, len);
  r->at_ += len;
  return 0;
}

// RFC 5044 §4.4: only now is the segment known good.
int FpduReceiver::OnDone(void* ctx) {
  auto* r = static_cast<FpduReceiver*>(ctx);
  r->res_.fpdus++;
  r->res_.placed += r->seg_len_;
  return 0;
}

RxResult FpduReceiver::Run() {
  static const rddp_mpa_rx_ops ops = {OnHeader, OnPayload, OnDone};
  for (;;) {
    const ssize_t n = read(fd_, bounce_.data(), bounce_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      res_.sys_err = errno;
      break;
    }
    if (n == 0) break;
    if (res_.mpa_err == RDDP_MPA_OK)
      res_.mpa_err = rddp_mpa_rx_feed(&rx_, bounce_.data(), static_cast<uint32_t>(n), &ops, this);
  }
  return res_;
}

}  // namespace rddp_core_bench
