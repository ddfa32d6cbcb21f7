// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// FPDU deframer (RFC 5044 §4): round trips with random chunking, malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

extern "C" {
#include <rddp/mpa.h>
}

namespace {

struct Sink {
  std::vector<std::vector<uint8_t>> hdrs, payloads;
  std::vector<uint8_t> cur_hdr, cur_pay;
  uint32_t expect_pay = 0;
  int done = 0;
  const uint8_t* in_lo = nullptr;
  const uint8_t* in_hi = nullptr;
  bool outside = false;
};

int OnHeader(void* ctx, const uint8_t* h, uint32_t len, uint32_t pay) {
  auto* s = static_cast<Sink*>(ctx);
  s->cur_hdr.assign(h, h + len);
  s->cur_pay.clear();
  s->expect_pay = pay;
  return 0;
}
int OnPayload(void* ctx, const uint8_t* d, uint32_t len) {
  auto* s = static_cast<Sink*>(ctx);
  if (d < s->in_lo || d + len > s->in_hi) s->outside = true;  // must be a span of the input
  s->cur_pay.insert(s->cur_pay.end(), d, d + len);
  return 0;
}
int OnDone(void* ctx) {
  auto* s = static_cast<Sink*>(ctx);
  EXPECT_EQ(s->cur_pay.size(), s->expect_pay);
  s->hdrs.push_back(s->cur_hdr);
  s->payloads.push_back(s->cur_pay);
  s->done++;
  return 0;
}
const rddp_mpa_rx_ops kOps = {OnHeader, OnPayload, OnDone};

std::vector<uint8_t> Build(rddp_mpa_tx* tx, const std::vector<uint8_t>& hdr,
                           const std::vector<uint8_t>& pay) {
  auto f = std::make_unique<rddp_fpdu>();
  EXPECT_EQ(rddp_fpdu_build(tx, f.get(), hdr.data(), hdr.size(), pay.data(), pay.size()), 0);
  std::vector<uint8_t> out;
  for (uint32_t i = 0; i < f->nr_spans; i++)
    out.insert(out.end(), f->span[i].base, f->span[i].base + f->span[i].len);
  return out;
}

// Feed the stream in chunks copied to exact-size heap buffers (ASan catches over-reads).
int Feed(rddp_mpa_rx* rx, Sink* s, const std::vector<uint8_t>& w, std::mt19937* rng, int mode) {
  size_t i = 0;
  int err = 0;
  while (i < w.size() && !err) {
    size_t n = mode == 0 ? 1 : mode == 1 ? 1 + (*rng)() % 7 : 1 + (*rng)() % 65536;
    n = std::min(n, w.size() - i);
    std::unique_ptr<uint8_t[]> buf(new uint8_t[n]);
    const auto first = w.begin() + static_cast<std::ptrdiff_t>(i);
    std::copy(first, first + static_cast<std::ptrdiff_t>(n), buf.get());
    s->in_lo = buf.get();
    s->in_hi = buf.get() + n;
    err = rddp_mpa_rx_feed(rx, buf.get(), n, &kOps, s);
    i += n;
  }
  return err;
}

std::vector<uint8_t> RandHdr(std::mt19937* rng) {
  std::vector<uint8_t> h((*rng)() & 1 ? 14 : 18);
  for (auto& b : h) b = static_cast<uint8_t>((*rng)());
  h[0] = static_cast<uint8_t>((h[0] & 0x7f) | (h.size() == 14 ? 0x80 : 0));
  return h;
}

TEST(FpduRx, Rfc5044Figures5And6ParseBack) {
  std::vector<uint8_t> fig5 = {0, 0, 0, 0, 0, 0x2a, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  fig5.resize(0x30, 0);
  fig5.insert(fig5.end(), {0x52, 0x23, 0x99, 0x83});
  rddp_mpa_rx rx;
  rddp_mpa_rx_init(&rx, true, true, 65535);
  Sink s;
  std::mt19937 rng(1);
  ASSERT_EQ(Feed(&rx, &s, fig5, &rng, 0), 0);
  ASSERT_EQ(s.done, 1);
  EXPECT_EQ(s.hdrs[0].size(), 18U);
  EXPECT_EQ(s.hdrs[0][13], 1);
  EXPECT_EQ(s.payloads[0], std::vector<uint8_t>(24, 0));
  // Figure 6 at stream offset 0x1ec
  std::vector<uint8_t> fig6 = {0x00, 0x2a, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
                               0,    0,    0,    2,    0, 0, 0, 0, 0, 0, 0, 0x14};
  fig6.resize(0x21c - 0x1ec, 0);
  fig6.insert(fig6.end(), {0x84, 0x92, 0x58, 0x98});
  rddp_mpa_rx_init(&rx, true, true, 65535);
  rx.pos = 0x1ec;
  ASSERT_EQ(Feed(&rx, &s, fig6, &rng, 1), 0);
  ASSERT_EQ(s.done, 2);
  EXPECT_EQ(s.hdrs[1][13], 2);
  EXPECT_EQ(s.payloads[1], std::vector<uint8_t>(24, 0));
}

TEST(FpduRx, RandomRoundTripAnyChunking) {
  std::mt19937 rng(20261122);
  for (int it = 0; it < 600; it++) {
    bool markers = rng() & 1, crc = rng() & 1;
    uint32_t start = rng() % 100000 * 4;  // FPDUs keep 4-byte alignment of the stream
    rddp_mpa_tx tx = {markers, crc, start};
    std::vector<uint8_t> wire;
    std::vector<std::vector<uint8_t>> hdrs, pays;
    int nmsg = 1 + static_cast<int>(rng() % 6);
    for (int m = 0; m < nmsg; m++) {
      auto h = RandHdr(&rng);
      std::vector<uint8_t> p(rng() % 3 == 0 ? rng() % 8 : rng() % 9000);
      for (auto& b : p) b = static_cast<uint8_t>(rng());
      auto w = Build(&tx, h, p);
      wire.insert(wire.end(), w.begin(), w.end());
      hdrs.push_back(h);
      pays.push_back(p);
    }
    rddp_mpa_rx rx;
    rddp_mpa_rx_init(&rx, markers, crc, 65535);
    rx.pos = start;
    Sink s;
    ASSERT_EQ(Feed(&rx, &s, wire, &rng, it % 3), 0) << it;
    ASSERT_EQ(s.hdrs, hdrs);
    ASSERT_EQ(s.payloads, pays);
    ASSERT_FALSE(s.outside);
    ASSERT_EQ(rx.pos, tx.pos);
  }
}

struct Bad {
  const char* name;
  int err;
};

TEST(FpduRx, MalformedInputs) {
  std::mt19937 rng(3);
  std::vector<uint8_t> hdr(18, 0), pay(21, 7);
  hdr[0] = 0x41;
  for (bool markers : {false, true}) {
    auto make = [&]() {
      rddp_mpa_tx tx = {markers, true, 0};
      return Build(&tx, hdr, pay);
    };
    auto run = [&](const std::vector<uint8_t>& w, uint32_t max = 65535) {
      rddp_mpa_rx rx;
      rddp_mpa_rx_init(&rx, markers, true, max);
      Sink s;
      int e = Feed(&rx, &s, w, &rng, 1);
      // sticky
      uint8_t z = 0;
      if (e) {
        EXPECT_EQ(rddp_mpa_rx_feed(&rx, &z, 1, &kOps, &s), e);
      }
      EXPECT_STRNE(rddp_mpa_err_names[e], nullptr);
      return e;
    };
    size_t o = markers ? 4 : 0;  // offset of ULPDU_Length
    auto w = make();
    EXPECT_EQ(run(w), RDDP_MPA_OK);
    auto b = w;
    b[o] = 0;
    b[o + 1] = 0;
    EXPECT_EQ(run(b), RDDP_MPA_ERR_ULPDU_ZERO);
    EXPECT_EQ(run(w, 38), RDDP_MPA_ERR_ULPDU_LONG);
    b = w;
    b[o + 1] = 10;
    EXPECT_EQ(run(b), RDDP_MPA_ERR_ULPDU_SHORT);
    b = w;
    b[o + 2] |= 0x80;  // tagged: header 14, length still 39 -> fine framing, CRC now wrong
    EXPECT_EQ(run(b), RDDP_MPA_ERR_CRC);
    b = w;
    b[o + 2 + 39] = 1;  // pad octet (2 + 39 -> 1 pad): its value is not
    // checked (RFC 5044 §4.1), but the CRC covers it
    EXPECT_EQ(run(b), RDDP_MPA_ERR_CRC);
    b = w;
    b[b.size() - 1] ^= 1;
    EXPECT_EQ(run(b), RDDP_MPA_ERR_CRC);
    b = w;
    b[o + 25] ^= 0x10;  // payload bit flip
    EXPECT_EQ(run(b), RDDP_MPA_ERR_CRC);
    if (markers) {
      b = w;
      b[3] = 4;  // FPDUPTR of the leading marker must be 0
      EXPECT_EQ(run(b), RDDP_MPA_ERR_MARKER);
      b = w;
      b[0] = 1;  // reserved
      EXPECT_EQ(run(b), RDDP_MPA_ERR_MARKER);
    }
  }
}

// RFC 5044 §4.1: the receiver ignores the pad's value (Linux siw sends
// non-zero pad octets); without CRC such an FPDU is delivered unchanged.
TEST(FpduRx, NonZeroPadIsIgnored) {
  std::mt19937 rng(5);
  std::vector<uint8_t> hdr(18, 0), pay(2, 0x5a);
  hdr[0] = 0x43;
  rddp_mpa_tx tx = {false, false, 0};
  auto w = Build(&tx, hdr, pay);
  ASSERT_EQ(w.size(), 2u + 20u + 2u + 4u);
  w[22] = 0xab;
  w[23] = 0xcd;
  rddp_mpa_rx rx;
  rddp_mpa_rx_init(&rx, false, false, 65535);
  Sink s;
  EXPECT_EQ(Feed(&rx, &s, w, &rng, 1), RDDP_MPA_OK);
  ASSERT_EQ(s.payloads.size(), 1u);
  EXPECT_EQ(s.payloads[0], pay);
}

TEST(FpduRx, MarkerInsideFpduWrongPointer) {
  rddp_mpa_tx tx = {true, true, 500};
  std::vector<uint8_t> hdr(18, 0), pay(100, 1);
  hdr[0] = 0x41;
  auto w = Build(&tx, hdr, pay);
  ASSERT_EQ(w[12 + 3], 12);  // marker at stream 512, FPDU at 500
  w[12 + 3] = 11;
  rddp_mpa_rx rx;
  rddp_mpa_rx_init(&rx, true, false, 65535);
  rx.pos = 500;
  Sink s;
  std::mt19937 rng(4);
  EXPECT_EQ(Feed(&rx, &s, w, &rng, 0), RDDP_MPA_ERR_MARKER);
}

int Abort(void* /*ctx*/, const uint8_t* /*hdr*/, uint32_t /*hdr_len*/, uint32_t /*payload_len*/) {
  return 1;
}

// rddp_mpa_rx_in_fpdu(): true from an FPDU's first octet until its CRC
// field is in, so the kernel can bound a peer that stops mid-FPDU.
TEST(FpduRx, InFpduBetweenFirstAndLastOctet) {
  for (bool markers : {false, true}) {
    rddp_mpa_tx tx = {markers, true, 0};
    std::vector<uint8_t> hdr(18, 0), pay(1000, 3);
    hdr[0] = 0x41;
    std::vector<uint8_t> w = Build(&tx, hdr, pay);
    const size_t first = w.size();  // with markers the second one differs
    auto w2 = Build(&tx, hdr, pay);
    w.insert(w.end(), w2.begin(), w2.end());
    rddp_mpa_rx rx;
    rddp_mpa_rx_init(&rx, markers, true, 65535);
    Sink s;
    EXPECT_FALSE(rddp_mpa_rx_in_fpdu(&rx));
    for (size_t i = 0; i < w.size(); i++) {
      s.in_lo = &w[i];
      s.in_hi = &w[i] + 1;
      ASSERT_EQ(rddp_mpa_rx_feed(&rx, &w[i], 1, &kOps, &s), RDDP_MPA_OK);
      const bool boundary = i + 1 == first || i + 1 == w.size();
      EXPECT_EQ(rddp_mpa_rx_in_fpdu(&rx), !boundary) << "markers " << markers << " octet " << i;
    }
    EXPECT_EQ(s.done, 2);
  }
}

TEST(FpduRx, ConsumerAbortIsSticky) {
  rddp_mpa_tx tx = {false, false, 0};
  std::vector<uint8_t> hdr(18, 0), pay(4, 1);
  hdr[0] = 0x41;
  auto w = Build(&tx, hdr, pay);
  rddp_mpa_rx_ops ops = {Abort, nullptr, nullptr};
  rddp_mpa_rx rx;
  rddp_mpa_rx_init(&rx, false, false, 1 << 20);
  EXPECT_EQ(rx.max_ulpdu, 65535U);
  EXPECT_EQ(rddp_mpa_rx_feed(&rx, w.data(), w.size(), &ops, nullptr), RDDP_MPA_ERR_ABORTED);
}

}  // namespace
