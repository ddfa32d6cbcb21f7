// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// libFuzzer target: the FPDU deframer (RFC 5044 §4) fed arbitrary bytes in
// arbitrary chunks. Byte 0 picks markers/CRC/initial position and chunking.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

extern "C" {
#include <rddp/mpa.h>
}

namespace {
int OnHeader(void*, const uint8_t* h, uint32_t len, uint32_t) {
  volatile uint8_t x = h[len - 1];  // must be readable
  (void)x;
  return 0;
}
int OnPayload(void*, const uint8_t* d, uint32_t len) {
  volatile uint8_t x = d[0] ^ d[len - 1];
  (void)x;
  return 0;
}
const rddp_mpa_rx_ops kOps = {OnHeader, OnPayload, nullptr};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  uint8_t cfg = data[0], chunk = data[1];
  data += 2;
  size -= 2;
  rddp_mpa_rx rx;
  rddp_mpa_rx_init(&rx, cfg & 1, cfg & 2, (cfg & 4) ? 65535 : 512);
  rx.pos = (cfg >> 3) * 4;
  size_t step = chunk ? chunk : size;
  for (size_t i = 0; i < size; i += step) {
    size_t n = size - i < step ? size - i : step;
    std::unique_ptr<uint8_t[]> buf(new uint8_t[n]);  // exact size: ASan sees over-reads
    memcpy(buf.get(), data + i, n);
    if (rddp_mpa_rx_feed(&rx, buf.get(), n, &kOps, nullptr)) break;
  }
  return 0;
}
