// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// The host-native benchmark's pipeline (userspace/bench): FPDUs framed into a
// socket and deframed and placed out of it (RFC 5044 §4), CRC32c on and off.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "connection.h"
#include "fpdu_receiver.h"
#include "fpdu_sender.h"
#include "plain_tcp.h"

namespace rddp_core_bench {
namespace {

std::vector<uint8_t> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

uint64_t Segments(uint64_t len, uint32_t mulpdu) {
  const uint32_t room = mulpdu - 14;  // the tagged DDP header (RFC 5041 §4.2)
  return (len + room - 1) / room;
}

// Everything the peer of `fd` wrote until it shut down its side.
std::vector<uint8_t> ReadAll(int fd) {
  std::vector<uint8_t> out, buf(4096);
  ssize_t n = 0;
  while ((n = read(fd, buf.data(), buf.size())) > 0)
    out.insert(out.end(), buf.begin(), buf.begin() + n);
  EXPECT_EQ(n, 0);
  return out;
}

class LoopbackTest : public ::testing::TestWithParam<bool> {};

// Two different messages over real TCP: both placed, the second over the
// first, in exactly the segments MULPDU allows.
TEST_P(LoopbackTest, TcpRoundTrip) {
  const bool crc = GetParam();
  for (const uint32_t mulpdu : {1000U, 0U}) {
    const Connection c = TcpLoopback();
    const uint32_t m = mulpdu ? mulpdu : StreamMulpdu(c.tx.get());
    ASSERT_GE(m, 128U);
    ASSERT_LE(m, 65532U);
    const auto a = Random(200000, 1), b = Random(200000, 2);
    std::vector<uint8_t> dst(a.size());
    RxResult rx;
    std::jthread reader([&] { rx = FpduReceiver(c.rx.get(), crc, dst).Run(); });
    FpduSender tx(c.tx.get(), crc, m);
    tx.Send(a);
    tx.Send(b);
    shutdown(c.tx.get(), SHUT_WR);
    reader.join();
    EXPECT_EQ(rx.mpa_err, RDDP_MPA_OK) << rddp_mpa_err_names[rx.mpa_err];
    EXPECT_EQ(rx.sys_err, 0);
    EXPECT_EQ(rx.placed, 2 * a.size());
    EXPECT_EQ(rx.fpdus, 2 * Segments(a.size(), m));
    EXPECT_EQ(dst, b) << "MULPDU " << m;
  }
}

// One octet of an FPDU's payload flipped on the wire: with CRC the deframer
// reports it (RFC 5044 §4.4) and nothing after the bad FPDU completes;
// without CRC it goes through unnoticed, which is what CRC is for.
TEST_P(LoopbackTest, CorruptedOctet) {
  const bool crc = GetParam();
  const Connection in = UnixPair(), out = UnixPair();
  const auto msg = Random(4096, 3);
  FpduSender tx(in.tx.get(), crc, 1000);
  tx.Send(msg);
  shutdown(in.tx.get(), SHUT_WR);
  std::vector<uint8_t> wire = ReadAll(in.rx.get());
  // Four full FPDUs (ULPDU_Length, 1000 octets of ULPDU, 2 of pad, CRC) and
  // one of the last 152 payload octets; flip one in the third's payload.
  constexpr size_t kFull = 2 + 1000 + 2 + 4;
  ASSERT_EQ(wire.size(), 4 * kFull + (2 + 14 + 152 + 4));
  wire[2 * kFull + 500] ^= 0x10;
  SendPlain(out.tx.get(), wire);
  shutdown(out.tx.get(), SHUT_WR);
  std::vector<uint8_t> dst(msg.size());
  const RxResult rx = FpduReceiver(out.rx.get(), crc, dst).Run();
  if (crc) {
    EXPECT_EQ(rx.mpa_err, RDDP_MPA_ERR_CRC) << rddp_mpa_err_names[rx.mpa_err];
    EXPECT_EQ(rx.fpdus, 2U);
    EXPECT_EQ(rx.placed, 2 * 986U);
  } else {
    EXPECT_EQ(rx.mpa_err, RDDP_MPA_OK);
    EXPECT_EQ(rx.placed, msg.size());
    EXPECT_NE(dst, msg);
  }
}

INSTANTIATE_TEST_SUITE_P(Crc, LoopbackTest, ::testing::Bool());

// A Write past the end of the destination is refused before placement
// (RFC 5041 §7.1 base and bounds), not written out of bounds.
TEST(Loopback, WriteOutOfBounds) {
  const Connection c = UnixPair();
  const auto msg = Random(3000, 4);
  FpduSender tx(c.tx.get(), true, 1000);
  tx.Send(msg);
  shutdown(c.tx.get(), SHUT_WR);
  std::vector<uint8_t> dst(2000);
  const RxResult rx = FpduReceiver(c.rx.get(), true, dst).Run();
  EXPECT_EQ(rx.mpa_err, RDDP_MPA_ERR_ABORTED);
  EXPECT_EQ(rx.placed, 2 * 986U);
}

// The baseline: plain TCP places the stream message after message.
TEST(Loopback, PlainTcp) {
  const Connection c = TcpLoopback();
  const auto a = Random(70000, 5), b = Random(70000, 6);
  std::vector<uint8_t> dst(a.size());
  RxResult rx;
  std::jthread reader([&] { rx = RecvPlain(c.rx.get(), dst); });
  SendPlain(c.tx.get(), a);
  SendPlain(c.tx.get(), b);
  shutdown(c.tx.get(), SHUT_WR);
  reader.join();
  EXPECT_EQ(rx.placed, 2 * a.size());
  EXPECT_EQ(dst, b);
}

}  // namespace
}  // namespace rddp_core_bench
