// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// RFC 3720 §B.4 CRC32c test vectors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

extern "C" {
#include <rddp/crc32c.h>
void rddp_crc32c_force_impl(int which);
}

namespace {

uint32_t Crc(const std::vector<uint8_t>& v) { return ~rddp_crc32c(~0U, v.data(), v.size()); }

// Bit by bit, from the polynomial: the reference for every implementation.
uint32_t Bitwise(uint32_t crc, const uint8_t* p, size_t len) {
  for (size_t i = 0; i < len; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78U : crc >> 1;
  }
  return crc;
}

class Crc32cTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { rddp_crc32c_force_impl(GetParam()); }
  void TearDown() override { rddp_crc32c_force_impl(0); }
};

TEST_P(Crc32cTest, Rfc3720Zeros) { EXPECT_EQ(Crc(std::vector<uint8_t>(32, 0)), 0x8a9136aaU); }

TEST_P(Crc32cTest, Rfc3720Ones) { EXPECT_EQ(Crc(std::vector<uint8_t>(32, 0xff)), 0x62a8ab43U); }

TEST_P(Crc32cTest, Rfc3720Incrementing) {
  std::vector<uint8_t> v(32);
  for (int i = 0; i < 32; i++) v[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(Crc(v), 0x46dd794eU);
}

TEST_P(Crc32cTest, Rfc3720Decrementing) {
  std::vector<uint8_t> v(32);
  for (int i = 0; i < 32; i++) v[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(Crc(v), 0x113fdb5cU);
}

TEST_P(Crc32cTest, Rfc3720IscsiReadPdu) {
  // RFC 3720 §B.4: an iSCSI - SCSI Read (10) Command PDU
  std::vector<uint8_t> v = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                            0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
                            0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
                            0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Crc(v), 0xd9963a56U);
}

TEST_P(Crc32cTest, ChainingAndAlignmentMatchOneShot) {
  std::mt19937 rng(12345);
  std::vector<uint8_t> buf(4096 + 16);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (int it = 0; it < 500; it++) {
    size_t off = rng() % 16, len = rng() % 4096, cut = len ? rng() % len : 0;
    uint32_t one = rddp_crc32c(~0U, buf.data() + off, len);
    uint32_t two = rddp_crc32c(~0U, buf.data() + off, cut);
    two = rddp_crc32c(two, buf.data() + off + cut, len - cut);
    ASSERT_EQ(one, two);
    // bitwise reference
    uint32_t ref = ~0U;
    for (size_t i = 0; i < len; i++) {
      ref ^= buf[off + i];
      for (int k = 0; k < 8; k++) ref = (ref & 1) ? (ref >> 1) ^ 0x82F63B78U : ref >> 1;
    }
    ASSERT_EQ(one, ref);
  }
}

// Lengths around the SSE4.2 code's three-stream rounds (192, 768 and 12288
// octets), up to past a 64 KiB FPDU, at several alignments; and chained
// calls that cut a round.
TEST_P(Crc32cTest, LongBuffersMatchBitwise) {
  std::mt19937 rng(777);
  std::vector<uint8_t> buf(70000 + 8);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (const size_t len : {191, 192, 193, 383, 508, 767, 768, 769, 1536, 2311, 12287, 12288, 12289,
                           13056, 24576, 65535, 65536, 70000}) {
    for (const size_t off : {0, 1, 7}) {
      const uint8_t* p = buf.data() + off;
      ASSERT_EQ(rddp_crc32c(~0U, p, len), Bitwise(~0U, p, len)) << len << " octets at +" << off;
      const size_t cut = len / 3 + 1;
      ASSERT_EQ(rddp_crc32c(rddp_crc32c(~0U, p, cut), p + cut, len - cut), Bitwise(~0U, p, len))
          << len << " octets at +" << off << " cut at " << cut;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Impl, Crc32cTest, ::testing::Values(0, 1));

}  // namespace
