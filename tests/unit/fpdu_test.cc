// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// FPDU builder: RFC 5044 Figures 5 and 6, markers, pad, CRC, MULPDU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

extern "C" {
#include <rddp/crc32c.h>
#include <rddp/mpa.h>
}

namespace {

std::vector<uint8_t> Flatten(const rddp_fpdu& f) {
  std::vector<uint8_t> out;
  for (uint32_t i = 0; i < f.nr_spans; i++)
    out.insert(out.end(), f.span[i].base, f.span[i].base + f.span[i].len);
  EXPECT_EQ(out.size(), f.len);
  return out;
}

// DDP untagged Send header, Last, QN 0 (RFC 5041 §4.3, RFC 5040 §4.2).
std::vector<uint8_t> SendHdr(uint32_t msn) {
  return {0x41,
          0x43,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          static_cast<uint8_t>(msn >> 24),
          static_cast<uint8_t>(msn >> 16),
          static_cast<uint8_t>(msn >> 8),
          static_cast<uint8_t>(msn),
          0,
          0,
          0,
          0};
}

TEST(FpduTx, Rfc5044Figure5) {
  // RFC 5044 §4.4 Figure 5: first FPDU of the stream, starts with a marker.
  std::vector<uint8_t> expect = {0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00};
  expect.resize(0x30, 0);
  expect.insert(expect.end(), {0x52, 0x23, 0x99, 0x83});
  auto f = std::make_unique<rddp_fpdu>();
  rddp_mpa_tx tx = {true, true, 0};
  std::vector<uint8_t> zeros(24, 0);
  auto hdr = SendHdr(1);
  ASSERT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), hdr.size(), zeros.data(), zeros.size()), 0);
  EXPECT_EQ(Flatten(*f), expect);
  EXPECT_EQ(tx.pos, 0x34U);
}

TEST(FpduTx, Rfc5044Figure6) {
  // RFC 5044 §4.4 Figure 6: second FPDU at 0x1ec, marker at 0x200 with FPDUPTR 0x14.
  std::vector<uint8_t> expect = {0x00, 0x2a, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0,    0,    0,    2,    0, 0, 0, 0, 0, 0, 0, 0x14};
  expect.resize(0x21c - 0x1ec, 0);
  expect.insert(expect.end(), {0x84, 0x92, 0x58, 0x98});
  auto f = std::make_unique<rddp_fpdu>();
  rddp_mpa_tx tx = {true, true, 0x1ec};
  std::vector<uint8_t> zeros(24, 0);
  auto hdr = SendHdr(2);
  ASSERT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), hdr.size(), zeros.data(), zeros.size()), 0);
  EXPECT_EQ(Flatten(*f), expect);
  EXPECT_EQ(tx.pos, 0x220U);
}

TEST(FpduTx, PayloadIsReferencedNotCopied) {
  auto f = std::make_unique<rddp_fpdu>();
  rddp_mpa_tx tx = {false, true, 0};
  std::vector<uint8_t> payload(1000, 0xab);
  auto hdr = SendHdr(1);
  ASSERT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), hdr.size(), payload.data(), 1000), 0);
  bool found = false;
  for (uint32_t i = 0; i < f->nr_spans; i++)
    if (f->span[i].base == payload.data() && f->span[i].len == 1000) found = true;
  EXPECT_TRUE(found);
  EXPECT_EQ(f->len, 2 + 18 + 1000 + 0 + 4U);
}

TEST(FpduTx, PadCrcOffAndMarkersEveryInterval) {
  std::mt19937 rng(7);
  auto f = std::make_unique<rddp_fpdu>();
  for (int it = 0; it < 2000; it++) {
    uint32_t start = rng() % 100000 * 4;
    rddp_mpa_tx tx = {static_cast<bool>(rng() & 1), static_cast<bool>(rng() & 1), start};
    std::vector<uint8_t> payload(rng() % 5000);
    for (auto& b : payload) b = static_cast<uint8_t>(rng());
    auto hdr = SendHdr(it);
    ASSERT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), hdr.size(), payload.data(), payload.size()),
              0);
    auto wire = Flatten(*f);
    ASSERT_EQ(tx.pos, start + wire.size());
    // strip markers, checking each FPDUPTR
    std::vector<uint8_t> plain;
    for (size_t i = 0; i < wire.size();) {
      if (tx.markers && (start + i) % 512 == 0) {
        ASSERT_EQ(wire[i], 0);
        ASSERT_EQ(wire[i + 1], 0);
        ASSERT_EQ(static_cast<uint32_t>(wire[i + 2] << 8 | wire[i + 3]), i);
        i += 4;
        continue;
      }
      plain.push_back(wire[i++]);
    }
    ASSERT_EQ(plain.size() % 4, 0U);
    size_t ulen = plain[0] << 8 | plain[1];
    ASSERT_EQ(ulen, hdr.size() + payload.size());
    ASSERT_TRUE(std::equal(payload.begin(), payload.end(), plain.begin() + 2 + hdr.size()));
    for (size_t i = 2 + ulen; i < plain.size() - 4; i++) ASSERT_EQ(plain[i], 0);
    uint32_t crc = 0;
    size_t crcpos = plain.size() - 4;
    for (int k = 3; k >= 0; k--) crc = crc << 8 | plain[crcpos + k];
    if (!tx.crc) {
      ASSERT_EQ(crc, 0U);
    } else {
      // CRC covers every wire byte (incl. markers) before the CRC field's first byte
      size_t wirecrc = 0;
      for (size_t i = 0, pi = 0;; i++) {
        if (tx.markers && (start + i) % 512 == 0) {
          i += 3;
          continue;
        }
        if (pi++ == crcpos) {
          wirecrc = i;
          break;
        }
      }
      ASSERT_EQ(crc, ~rddp_crc32c(~0U, wire.data(), wirecrc)) << it;
    }
  }
}

TEST(FpduTx, RejectsBadLengths) {
  auto f = std::make_unique<rddp_fpdu>();
  rddp_mpa_tx tx = {false, false, 0};
  std::vector<uint8_t> big(70000), hdr(29);
  EXPECT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), 29, nullptr, 0), -1);
  EXPECT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), 0, nullptr, 0), -1);
  EXPECT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), 18, big.data(), 65535 - 17), -1);
  EXPECT_EQ(rddp_fpdu_build(&tx, f.get(), hdr.data(), 18, big.data(), 70000), -1);
  EXPECT_EQ(tx.pos, 0U);
}

TEST(Mulpdu, Rfc5044Section45) {
  EXPECT_EQ(rddp_mpa_mulpdu(1460, false), 1460U - 6U);
  EXPECT_EQ(rddp_mpa_mulpdu(1460, true), 1460U - (6 + 4 * 3));
  EXPECT_EQ(rddp_mpa_mulpdu(1447, false), 1447U - (6 + 3));
  EXPECT_EQ(rddp_mpa_mulpdu(100, true), 128U);
  EXPECT_EQ(rddp_mpa_mulpdu(0, false), 128U);
}

}  // namespace
