// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// MPA Request/Reply frames: RFC 5044 §7.1 and RFC 6581 §9.1.1.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <rddp/mpa_frame.h>
}

namespace {

using Bytes = std::vector<uint8_t>;

Bytes Build(const rddp_mpa_frame& f) {
  Bytes buf(RDDP_MPA_FRAME_MAX);
  int n = rddp_mpa_frame_build(&f, buf.data(), static_cast<uint32_t>(buf.size()));
  EXPECT_GT(n, 0) << rddp_mpa_frame_err_names[-n];
  buf.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return buf;
}

struct ParseResult {
  int ret;
  uint32_t used;
  rddp_mpa_frame frame;
  Bytes pd;
};

// Feeds `wire` in pieces of `chunk` bytes (0: all at once).
ParseResult Parse(const Bytes& wire, rddp_mpa_frame_type expect, uint8_t max_rev = 2,
                  size_t chunk = 0) {
  auto rx = std::make_unique<rddp_mpa_frame_rx>();
  rddp_mpa_frame_rx_init(rx.get(), expect, max_rev);
  ParseResult r{RDDP_MPA_FRAME_MORE, 0, {}, {}};
  size_t off = 0;
  do {
    size_t n = chunk ? std::min(chunk, wire.size() - off) : wire.size() - off;
    uint32_t used = 0;
    r.ret = rddp_mpa_frame_rx_feed(rx.get(), wire.data() + off, static_cast<uint32_t>(n), &used,
                                   &r.frame);
    EXPECT_LE(used, n);
    r.used += used;
    off += n;
  } while (r.ret == RDDP_MPA_FRAME_MORE && off < wire.size());
  if (r.ret == RDDP_MPA_FRAME_OK && r.frame.pd_len)
    r.pd.assign(r.frame.pd, r.frame.pd + r.frame.pd_len);
  return r;
}

rddp_mpa_frame Frame(rddp_mpa_frame_type type, uint8_t rev) {
  rddp_mpa_frame f{};
  f.type = type;
  f.rev = rev;
  return f;
}

// RFC 5044 §7.1.1: the keys, in byte order.
TEST(MpaFrame, RequestKeyFlagsRevAndPrivateData) {
  const std::string pd = "hello";
  auto f = Frame(RDDP_MPA_REQUEST, 1);
  f.markers = true;
  f.crc = true;
  f.reject = true;  // R is zero in a Request, whatever the caller says
  f.pd = reinterpret_cast<const uint8_t*>(pd.data());
  f.pd_len = static_cast<uint16_t>(pd.size());
  const Bytes want = {0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72,
                      0x61, 0x6D, 0x65, 0xC0, 0x01, 0x00, 0x05, 'h',  'e',  'l',  'l',  'o'};
  EXPECT_EQ(Build(f), want);
}

TEST(MpaFrame, ReplyKeyAndReject) {
  auto f = Frame(RDDP_MPA_REPLY, 1);
  f.reject = true;
  const Bytes want = {0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70,
                      0x20, 0x46, 0x72, 0x61, 0x6D, 0x65, 0x20, 0x01, 0x00, 0x00};
  EXPECT_EQ(Build(f), want);
  auto r = Parse(want, RDDP_MPA_REPLY);
  ASSERT_EQ(r.ret, RDDP_MPA_FRAME_OK);
  EXPECT_TRUE(r.frame.reject);
  EXPECT_EQ(r.used, want.size());
  EXPECT_EQ(r.frame.pd_len, 0);
  EXPECT_EQ(r.frame.pd, nullptr);
}

// RFC 6581 §9.1.1: A B IRD | C D ORD ahead of the ULP's private data.
TEST(MpaFrame, Rev2EnhancedDataLayout) {
  const Bytes pd = {1, 2, 3};
  auto f = Frame(RDDP_MPA_REQUEST, 2);
  f.enhanced = true;
  f.p2p = true;
  f.rtr = RDDP_MPA_RTR_SEND | RDDP_MPA_RTR_WRITE | RDDP_MPA_RTR_READ;
  f.ird = 0x10;
  f.ord = 0x3fff;
  f.pd = pd.data();
  f.pd_len = 3;
  Bytes w = Build(f);
  ASSERT_EQ(w.size(), 20u + 4 + 3);
  EXPECT_EQ(w[16], 0x10);  // enhanced, no M/C
  EXPECT_EQ(w[17], 2);
  EXPECT_EQ(w[19], 7);  // PD_Length counts the enhanced data
  EXPECT_EQ(Bytes(w.begin() + 20, w.begin() + 24), (Bytes{0xC0, 0x10, 0xFF, 0xFF}));
  auto r = Parse(w, RDDP_MPA_REQUEST);
  ASSERT_EQ(r.ret, RDDP_MPA_FRAME_OK);
  EXPECT_TRUE(r.frame.enhanced);
  EXPECT_TRUE(r.frame.p2p);
  EXPECT_EQ(r.frame.rtr, RDDP_MPA_RTR_ALL);
  EXPECT_EQ(r.frame.ird, 0x10);
  EXPECT_EQ(r.frame.ord, 0x3fff);
  EXPECT_EQ(r.pd, pd);
}

// Revision 2 without the enhanced bit carries plain private data.
TEST(MpaFrame, Rev2WithoutEnhancedData) {
  const Bytes pd = {9, 9};
  auto f = Frame(RDDP_MPA_REPLY, 2);
  f.pd = pd.data();
  f.pd_len = 2;
  auto r = Parse(Build(f), RDDP_MPA_REPLY);
  ASSERT_EQ(r.ret, RDDP_MPA_FRAME_OK);
  EXPECT_FALSE(r.frame.enhanced);
  EXPECT_EQ(r.pd, pd);
}

TEST(MpaFrame, StopsAtFrameEnd) {
  auto f = Frame(RDDP_MPA_REPLY, 1);
  Bytes w = Build(f);
  w.insert(w.end(), {0xAA, 0xBB, 0xCC});  // the first FPDU's bytes
  auto r = Parse(w, RDDP_MPA_REPLY);
  ASSERT_EQ(r.ret, RDDP_MPA_FRAME_OK);
  EXPECT_EQ(r.used, 20u);
}

TEST(MpaFrame, FinalResultIsSticky) {
  auto rx = std::make_unique<rddp_mpa_frame_rx>();
  rddp_mpa_frame_rx_init(rx.get(), RDDP_MPA_REQUEST, 2);
  Bytes w = Build(Frame(RDDP_MPA_REQUEST, 1));
  rddp_mpa_frame f{};
  uint32_t used = 0;
  ASSERT_EQ(rddp_mpa_frame_rx_feed(rx.get(), w.data(), 20, &used, &f), RDDP_MPA_FRAME_OK);
  EXPECT_EQ(rddp_mpa_frame_rx_feed(rx.get(), w.data(), 20, &used, &f), RDDP_MPA_FRAME_ERR_DONE);
  EXPECT_EQ(used, 0u);
}

// Res is not checked on reception, nor R in a Request (RFC 5044 §7.1.1).
TEST(MpaFrame, ReservedBitsAndRequestRejectIgnored) {
  Bytes w = Build(Frame(RDDP_MPA_REQUEST, 1));
  w[16] |= 0x2F;  // R and the Res bits other than the enhanced bit
  auto r = Parse(w, RDDP_MPA_REQUEST);
  ASSERT_EQ(r.ret, RDDP_MPA_FRAME_OK);
  EXPECT_FALSE(r.frame.reject);
  EXPECT_FALSE(r.frame.enhanced);
}

struct BadFrame {
  const char* name;
  void (*mutate)(Bytes&);
  rddp_mpa_frame_type expect;
  uint8_t max_rev;
  int err;
};

class MpaFrameMalformed : public ::testing::TestWithParam<BadFrame> {};

TEST_P(MpaFrameMalformed, Rejected) {
  const BadFrame& c = GetParam();
  auto f = Frame(RDDP_MPA_REQUEST, 2);
  f.enhanced = true;
  f.ird = f.ord = 4;
  Bytes w = Build(f);
  c.mutate(w);
  for (size_t chunk : {0, 1, 7}) {
    auto r = Parse(w, c.expect, c.max_rev, chunk);
    EXPECT_EQ(r.ret, c.err) << c.name << " chunk " << chunk << ": "
                            << rddp_mpa_frame_err_names[r.ret];
    EXPECT_LE(r.used, 20u) << "must not read private data of a bad header";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rfc5044, MpaFrameMalformed,
    ::testing::Values(BadFrame{"bad key", [](Bytes& w) { w[3] = 'X'; }, RDDP_MPA_REQUEST, 2,
                               RDDP_MPA_FRAME_ERR_KEY},
                      BadFrame{"reply key at responder", [](Bytes& w) { w[9] = 0x70; },
                               RDDP_MPA_REQUEST, 2, RDDP_MPA_FRAME_ERR_UNEXPECTED},
                      BadFrame{"request key at initiator", [](Bytes&) {}, RDDP_MPA_REPLY, 2,
                               RDDP_MPA_FRAME_ERR_UNEXPECTED},
                      BadFrame{"revision 0", [](Bytes& w) { w[17] = 0; }, RDDP_MPA_REQUEST, 2,
                               RDDP_MPA_FRAME_ERR_REV},
                      BadFrame{"revision 3", [](Bytes& w) { w[17] = 3; }, RDDP_MPA_REQUEST, 2,
                               RDDP_MPA_FRAME_ERR_REV},
                      BadFrame{"revision 2 at a rev-1 endpoint", [](Bytes&) {}, RDDP_MPA_REQUEST, 1,
                               RDDP_MPA_FRAME_ERR_REV},
                      BadFrame{"PD_Length 513",
                               [](Bytes& w) {
                                 w[18] = 0x02;
                                 w[19] = 0x01;
                               },
                               RDDP_MPA_REQUEST, 2, RDDP_MPA_FRAME_ERR_PD_LEN},
                      BadFrame{"PD_Length 0xffff",
                               [](Bytes& w) {
                                 w[18] = 0xff;
                                 w[19] = 0xff;
                               },
                               RDDP_MPA_REQUEST, 2, RDDP_MPA_FRAME_ERR_PD_LEN},
                      BadFrame{"enhanced data truncated", [](Bytes& w) { w[19] = 2; },
                               RDDP_MPA_REQUEST, 2, RDDP_MPA_FRAME_ERR_V2_SHORT}),
    [](const ::testing::TestParamInfo<BadFrame>& i) {
      std::string n = i.param.name;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(MpaFrame, ReplyMustPickOneRtrKind) {
  auto f = Frame(RDDP_MPA_REPLY, 2);
  f.enhanced = true;
  f.p2p = true;
  f.rtr = RDDP_MPA_RTR_WRITE | RDDP_MPA_RTR_READ;
  EXPECT_EQ(Parse(Build(f), RDDP_MPA_REPLY).ret, RDDP_MPA_FRAME_ERR_V2_RTR);
  f.rtr = RDDP_MPA_RTR_READ;
  EXPECT_EQ(Parse(Build(f), RDDP_MPA_REPLY).ret, RDDP_MPA_FRAME_OK);
  // A Request offers any set of kinds.
  f.type = RDDP_MPA_REQUEST;
  f.rtr = RDDP_MPA_RTR_ALL;
  EXPECT_EQ(Parse(Build(f), RDDP_MPA_REQUEST).ret, RDDP_MPA_FRAME_OK);
}

TEST(MpaFrame, BuildRejectsInvalidFields) {
  Bytes buf(RDDP_MPA_FRAME_MAX);
  const auto n = static_cast<uint32_t>(buf.size());
  Bytes pd(RDDP_MPA_PD_MAX + 1);
  auto f = Frame(RDDP_MPA_REQUEST, 3);
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_INVAL);
  f = Frame(RDDP_MPA_REQUEST, 0);
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_INVAL);
  f = Frame(RDDP_MPA_REQUEST, 1);
  f.enhanced = true;  // enhanced data needs revision 2
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_INVAL);
  f = Frame(RDDP_MPA_REQUEST, 2);
  f.enhanced = true;
  f.ird = 0x4000;
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_INVAL);
  f.ird = 1;
  f.rtr = 0x8;
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_INVAL);
  f.rtr = 0;
  f.pd = pd.data();
  f.pd_len = RDDP_MPA_PD_MAX - 3;  // 4 octets of enhanced data + 509 > 512
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_PD_LEN);
  f.pd_len = RDDP_MPA_PD_MAX - 4;
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), RDDP_MPA_FRAME_MAX);
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n - 1), -RDDP_MPA_FRAME_ERR_INVAL);
  f.pd = nullptr;
  EXPECT_EQ(rddp_mpa_frame_build(&f, buf.data(), n), -RDDP_MPA_FRAME_ERR_INVAL);
}

// Every field combination survives build + parse, whatever the chunking.
TEST(MpaFrame, RandomRoundTrip) {
  std::mt19937 rng(5044);
  for (int i = 0; i < 3000; i++) {
    auto f =
        Frame(rng() % 2 ? RDDP_MPA_REQUEST : RDDP_MPA_REPLY, static_cast<uint8_t>(1 + rng() % 2));
    f.markers = rng() % 2;
    f.crc = rng() % 2;
    f.reject = f.type == RDDP_MPA_REPLY && rng() % 2;
    f.enhanced = f.rev == 2 && rng() % 2;
    if (f.enhanced) {
      f.p2p = rng() % 2;
      f.ird = static_cast<uint16_t>(rng() & 0x3fff);
      f.ord = static_cast<uint16_t>(rng() & 0x3fff);
      f.rtr = static_cast<uint8_t>(f.type == RDDP_MPA_REQUEST ? rng() % 8 : 1u << (rng() % 3));
    }
    Bytes pd(rng() % (RDDP_MPA_PD_MAX - (f.enhanced ? 4 : 0) + 1));
    for (auto& b : pd) b = static_cast<uint8_t>(rng());
    f.pd = pd.data();
    f.pd_len = static_cast<uint16_t>(pd.size());
    Bytes w = Build(f);
    auto r = Parse(w, static_cast<rddp_mpa_frame_type>(f.type), 2, 1 + rng() % 40);
    ASSERT_EQ(r.ret, RDDP_MPA_FRAME_OK) << "iteration " << i;
    EXPECT_EQ(r.used, w.size());
    EXPECT_EQ(r.frame.rev, f.rev);
    EXPECT_EQ(r.frame.markers, f.markers);
    EXPECT_EQ(r.frame.crc, f.crc);
    EXPECT_EQ(r.frame.reject, f.reject);
    EXPECT_EQ(r.frame.enhanced, f.enhanced);
    EXPECT_EQ(r.frame.p2p, f.p2p);
    EXPECT_EQ(r.frame.rtr, f.rtr);
    EXPECT_EQ(r.frame.ird, f.ird);
    EXPECT_EQ(r.frame.ord, f.ord);
    EXPECT_EQ(r.pd, pd);
  }
}

}  // namespace
