// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "fpdu_sender.h"

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <stdexcept>
#include <system_error>

extern "C" {
#include <rddp/rdmap.h>
}

namespace rddp_core_bench {

FpduSender::FpduSender(int fd, bool crc, uint32_t mulpdu)
    : fd_(fd), mulpdu_(mulpdu), fpdu_(std::make_unique<rddp_fpdu>()), iov_(RDDP_FPDU_MAX_SPANS) {
  tx_.crc = crc;
  tx_.markers = false;
}

void FpduSender::Send(std::span<const uint8_t> msg) {
  const auto len = static_cast<uint32_t>(msg.size());
  uint32_t off = 0;
  do {
    const uint32_t seg = rddp_ddp_seg_len(len, off, mulpdu_, RDDP_DDP_TAGGED_HDR_LEN);
    rddp_hdr h{};
    h.opcode = RDDP_OP_WRITE;
    h.stag = kStag;
    h.to = off;
    h.last = off + seg == len;
    std::array<uint8_t, RDDP_DDP_UNTAGGED_HDR_LEN> hdr{};
    const uint32_t hdr_len = rddp_hdr_build(&h, hdr.data());
    if (rddp_fpdu_build(&tx_, fpdu_.get(), hdr.data(), hdr_len, msg.data() + off, seg) != 0)
      throw std::invalid_argument("rddp_fpdu_build refused a segment");
    // As kmod/qp_tx.c with tx_batch: MSG_MORE but on a message's last FPDU.
    Write(!h.last);
    off += seg;
  } while (off < len);
}

// One sendmsg() per FPDU, as rddp_tx_write() calls kernel_sendmsg(); TCP
// copies the spans into its buffers, the kernel's TX copies them too.
void FpduSender::Write(bool more) {
  const rddp_fpdu& f = *fpdu_;
  const std::span<const rddp_span> spans(f.span, f.nr_spans);
  for (size_t i = 0; i < spans.size(); i++)
    iov_[i] = {const_cast<uint8_t*>(spans[i].base), spans[i].len};
  std::span<iovec> left(iov_.data(), spans.size());
  const int flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0);
  while (!left.empty()) {
    msghdr m{};
    m.msg_iov = left.data();
    m.msg_iovlen = left.size();
    ssize_t n = sendmsg(fd_, &m, flags);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "sendmsg");
    // A partial write: drop the spans TCP took whole, trim the next one.
    while (!left.empty() && static_cast<size_t>(n) >= left.front().iov_len) {
      n -= static_cast<ssize_t>(left.front().iov_len);
      left = left.subspan(1);
    }
    if (n > 0) {
      left.front().iov_base = static_cast<uint8_t*>(left.front().iov_base) + n;
      left.front().iov_len -= static_cast<size_t>(n);
    }
  }
}

}  // namespace rddp_core_bench
