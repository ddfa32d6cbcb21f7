// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Fuzzes the MPA Request/Reply parser (RFC 5044 §7.1, RFC 6581): arbitrary
// bytes in arbitrary pieces must give a result without reading past the
// input, and an accepted frame must re-encode to the bytes it was parsed from.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

extern "C" {
#include <rddp/mpa_frame.h>
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const auto expect = static_cast<rddp_mpa_frame_type>(data[0] & 1);
  const uint8_t max_rev = (data[0] & 2) ? 2 : 1;
  const size_t chunk = 1 + data[1] % 64;
  data += 2;
  size -= 2;

  auto rx = std::make_unique<rddp_mpa_frame_rx>();
  rddp_mpa_frame_rx_init(rx.get(), expect, max_rev);
  rddp_mpa_frame f{};
  size_t off = 0;
  int ret = RDDP_MPA_FRAME_MORE;
  while (ret == RDDP_MPA_FRAME_MORE && off < size) {
    const size_t n = chunk < size - off ? chunk : size - off;
    uint32_t used = 0;
    ret = rddp_mpa_frame_rx_feed(rx.get(), data + off, static_cast<uint32_t>(n), &used, &f);
    if (used > n) abort();
    off += used;
    if (ret == RDDP_MPA_FRAME_MORE && used != n) abort();
  }
  if (ret != RDDP_MPA_FRAME_OK) return 0;

  // Accepted: the frame is exactly what was consumed and re-encodes to it,
  // apart from bits the parser ignores (Res, and R in a Request).
  if (f.pd_len > RDDP_MPA_PD_MAX || off > RDDP_MPA_FRAME_MAX) abort();
  uint8_t again[RDDP_MPA_FRAME_MAX];
  const int n = rddp_mpa_frame_build(&f, again, sizeof(again));
  if (n < 0 || static_cast<size_t>(n) != off) abort();
  uint8_t orig[RDDP_MPA_FRAME_MAX];
  memcpy(orig, data, off);
  uint8_t keep = RDDP_MPA_FLAG_MARKERS | RDDP_MPA_FLAG_CRC |
                 (expect == RDDP_MPA_REPLY ? RDDP_MPA_FLAG_REJECT : 0) |
                 (orig[17] == 2 ? RDDP_MPA_FLAG_ENHANCED : 0);
  orig[16] &= keep;
  if (memcmp(orig, again, off) != 0) abort();
  return 0;
}
