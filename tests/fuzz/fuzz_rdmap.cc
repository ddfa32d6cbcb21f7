// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Fuzzes the DDP/RDMAP header parser and the Terminate parser (RFC 5040,
// RFC 5041): any input yields an error from the table or a header that
// re-encodes to the parsed bytes (reserved bits aside).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {
#include <rddp/rdmap.h>
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint32_t payload = (static_cast<uint32_t>(data[0]) << 8) | data[1];
  const bool term = data[2] & 1;
  data += 3;
  size -= 3;
  const auto len = static_cast<uint32_t>(size);

  if (term) {
    rddp_term t{};
    const rddp_err e = rddp_term_parse(data, len, &t);
    if (e != RDDP_ERR_NONE && e != RDDP_ERR_RDMAP_O_UNSPECIFIED) abort();
    if (e == RDDP_ERR_NONE && t.d && t.ddp_hdr_len != 14 && t.ddp_hdr_len != 18) abort();
    if (e == RDDP_ERR_NONE) (void)rddp_term_to_err(&t);
    return 0;
  }

  rddp_hdr h{};
  const rddp_err e = rddp_hdr_parse(data, len, payload, &h);
  if (e >= RDDP_ERR_MAX || rddp_errors[e].name == nullptr) abort();
  if (e != RDDP_ERR_NONE) {
    // The Terminate for it is well formed and names the same error.
    uint8_t buf[RDDP_TERM_MAX_LEN];
    const uint32_t hl = len >= h.hdr_len ? h.hdr_len : 0;
    const uint32_t n = rddp_term_build(e, hl ? data : nullptr, hl, payload, nullptr, buf);
    rddp_term t{};
    if (rddp_term_parse(buf, n, &t) != RDDP_ERR_NONE || rddp_term_to_err(&t) != e) abort();
    return 0;
  }
  uint8_t again[RDDP_DDP_UNTAGGED_HDR_LEN];
  const uint32_t n = rddp_hdr_build(&h, again);
  if (n != h.hdr_len) abort();
  uint8_t orig[RDDP_DDP_UNTAGGED_HDR_LEN];
  memcpy(orig, data, n);
  orig[0] &= 0xC3;  // DDP Rsvd is not checked (RFC 5041 §4.1)
  orig[1] &= 0xCF;  // nor RDMAP's
  if (memcmp(orig, again, n) != 0) abort();
  return 0;
}
