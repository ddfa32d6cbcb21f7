// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// DDP/RDMAP over SCTP (draft-ietf-rddp-sctp-00): Adaptation Layer
// Indication, DATA chunk payloads, DDP-SSN ordering and DDP Stream Session
// sequences. Section numbers are the draft's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <regex>
#include <string>
#include <vector>

extern "C" {
#include <rddp/rdmap.h>
#include <rddp/sctp.h>
}

namespace {

using Bytes = std::vector<uint8_t>;

// §2.1, §2.2, §2.2.3 and §9: the code points.
TEST(Sctp, Section9CodePoints) {
  EXPECT_EQ(RDDP_SCTP_ALI_PARAM_TYPE, 0xC006);
  EXPECT_EQ(RDDP_SCTP_ALI_DDP, 0x00000001u);
  EXPECT_EQ(RDDP_SCTP_ALI_DDP_RDMA, 0x00000002u);
  EXPECT_EQ(RDDP_SCTP_PPID_SEGMENT, 0x00000001u);
  EXPECT_EQ(RDDP_SCTP_PPID_CONTROL, 0x00000002u);
  EXPECT_EQ(RDDP_SCTP_FC_NEGOTIATE, 1);
  EXPECT_EQ(RDDP_SCTP_FC_INITIATE, 2);
  EXPECT_EQ(RDDP_SCTP_FC_ACCEPT, 3);
  EXPECT_EQ(RDDP_SCTP_FC_TERMINATE, 4);
  EXPECT_EQ(RDDP_SCTP_SSN_FIRST, 1);
  EXPECT_EQ(RDDP_SCTP_SSN_INFLIGHT_MAX, 32767);
  EXPECT_EQ(RDDP_SCTP_PAYLOAD_MAX, 65519);  // RFC 2960 §3.3.1: 65535 - 16
}

// §8.1's table: NONE and ANY-OTHER disable DDP; DDP+RDMA only if both.
TEST(Sctp, Section8_1AdaptationIndicationTable) {
  const uint32_t none = 0, ddp = 1, rdma = 2;
  for (uint32_t other : {none, 3u, 0x00000200u, 0x02000000u, 0xffffffffu}) {
    for (uint32_t x : {none, ddp, rdma, 3u, 0xffffffffu}) {
      EXPECT_EQ(rddp_sctp_ali_mode(x, other), RDDP_SCTP_MODE_NONE) << x << " " << other;
      EXPECT_EQ(rddp_sctp_ali_mode(other, x), RDDP_SCTP_MODE_NONE) << x << " " << other;
    }
  }
  EXPECT_EQ(rddp_sctp_ali_mode(ddp, ddp), RDDP_SCTP_MODE_DDP);
  EXPECT_EQ(rddp_sctp_ali_mode(rdma, ddp), RDDP_SCTP_MODE_DDP);
  EXPECT_EQ(rddp_sctp_ali_mode(ddp, rdma), RDDP_SCTP_MODE_DDP);  // "ONLY [DDP-Draft]"
  EXPECT_EQ(rddp_sctp_ali_mode(rdma, rdma), RDDP_SCTP_MODE_DDP_RDMA);
}

// rddp's IRD/ORD prefix in Initiate and Accept (wire-sctp.md): 14-bit IRD
// and ORD under 2 reserved bits each, as RFC 6581 §9.1, then the ULP's
// private data.
TEST(Sctp, ConnPrefixRoundTrip) {
  const Bytes ulp = {'h', 'e', 'l', 'l', 'o'};
  uint8_t buf[RDDP_SCTP_IRD_ORD_LEN + RDDP_SCTP_ULP_PD_MAX] = {};
  int n = rddp_sctp_conn_build(16, 0x3fff, ulp.data(), ulp.size(), buf, sizeof(buf));
  ASSERT_EQ(n, 9);
  EXPECT_EQ(Bytes(buf, buf + 4), (Bytes{0x00, 0x10, 0x3f, 0xff}));  // network order
  EXPECT_EQ(Bytes(buf + 4, buf + n), ulp);
  rddp_sctp_conn c{};
  ASSERT_EQ(rddp_sctp_conn_parse(buf, n, &c), RDDP_SCTP_OK);
  EXPECT_EQ(c.ird, 16);
  EXPECT_EQ(c.ord, 0x3fff);
  ASSERT_EQ(c.ulp_len, ulp.size());
  EXPECT_EQ(c.ulp, buf + 4);  // points into the buffer, not copied
  // No ULP data: the prefix alone.
  n = rddp_sctp_conn_build(1, 1, nullptr, 0, buf, sizeof(buf));
  ASSERT_EQ(n, RDDP_SCTP_IRD_ORD_LEN);
  ASSERT_EQ(rddp_sctp_conn_parse(buf, n, &c), RDDP_SCTP_OK);
  EXPECT_EQ(c.ulp, nullptr);
  EXPECT_EQ(c.ulp_len, 0u);
  // The longest ULP data, as over MPA (RFC 5044 §7.1).
  const Bytes big(RDDP_SCTP_ULP_PD_MAX, 0xa5);
  n = rddp_sctp_conn_build(2, 3, big.data(), big.size(), buf, sizeof(buf));
  ASSERT_EQ(n, RDDP_SCTP_IRD_ORD_LEN + RDDP_SCTP_ULP_PD_MAX);
  ASSERT_EQ(rddp_sctp_conn_parse(buf, n, &c), RDDP_SCTP_OK);
  EXPECT_EQ(Bytes(c.ulp, c.ulp + c.ulp_len), big);
}

TEST(Sctp, ConnPrefixErrors) {
  uint8_t buf[RDDP_SCTP_IRD_ORD_LEN + RDDP_SCTP_ULP_PD_MAX + 1] = {};
  const uint8_t one = 1;
  EXPECT_EQ(rddp_sctp_conn_build(0x4000, 1, nullptr, 0, buf, sizeof(buf)),
            -RDDP_SCTP_ERR_CONN_RSVD);
  EXPECT_EQ(rddp_sctp_conn_build(1, 0x4000, nullptr, 0, buf, sizeof(buf)),
            -RDDP_SCTP_ERR_CONN_RSVD);
  EXPECT_EQ(rddp_sctp_conn_build(1, 1, buf, RDDP_SCTP_ULP_PD_MAX + 1, buf, sizeof(buf)),
            -RDDP_SCTP_ERR_CONN_LONG);
  EXPECT_EQ(rddp_sctp_conn_build(1, 1, &one, 1, buf, 4), -RDDP_SCTP_ERR_INVAL);  // no room
  EXPECT_EQ(rddp_sctp_conn_build(1, 1, nullptr, 1, buf, sizeof(buf)), -RDDP_SCTP_ERR_INVAL);

  rddp_sctp_conn c{.ird = 7, .ord = 7, .ulp = nullptr, .ulp_len = 0};
  for (uint32_t len = 1; len < RDDP_SCTP_IRD_ORD_LEN; len++)
    EXPECT_EQ(rddp_sctp_conn_parse(buf, len, &c), RDDP_SCTP_ERR_CONN_SHORT) << len;
  EXPECT_EQ(rddp_sctp_conn_parse(buf, sizeof(buf), &c), RDDP_SCTP_ERR_CONN_LONG);
  // Each reserved bit on its own is refused.
  for (int bit : {0x80, 0x40}) {
    for (int at : {0, 2}) {
      const uint8_t pd[RDDP_SCTP_IRD_ORD_LEN] = {static_cast<uint8_t>(at == 0 ? bit : 0), 1,
                                                 static_cast<uint8_t>(at == 2 ? bit : 0), 1};
      EXPECT_EQ(rddp_sctp_conn_parse(pd, sizeof(pd), &c), RDDP_SCTP_ERR_CONN_RSVD)
          << bit << " at " << at;
    }
  }
  EXPECT_EQ(c.ird, 7);  // a refused prefix leaves the result alone
  EXPECT_EQ(c.ord, 7);
}

// §2.2.3: "the ULP supplied Private Data MAY be of zero length" in an
// Initiate or Accept: no IRD or ORD stated, rddp's defaults, 1 and 1 (the
// least that lets Reads run: our ORD stays within any IRD the peer has).
TEST(Sctp, Section2_2_3ZeroLengthPrivateDataMeansTheDefaults) {
  EXPECT_EQ(RDDP_SCTP_IRD_ORD_DEFAULT, 1);
  const uint8_t junk[4] = {0xff, 0xff, 0xff, 0xff};
  for (const uint8_t* pd : {static_cast<const uint8_t*>(nullptr), junk}) {
    rddp_sctp_conn c{.ird = 7, .ord = 9, .ulp = junk, .ulp_len = 3};
    ASSERT_EQ(rddp_sctp_conn_parse(pd, 0, &c), RDDP_SCTP_OK);
    EXPECT_EQ(c.ird, RDDP_SCTP_IRD_ORD_DEFAULT);
    EXPECT_EQ(c.ord, RDDP_SCTP_IRD_ORD_DEFAULT);
    EXPECT_EQ(c.ulp, nullptr);
    EXPECT_EQ(c.ulp_len, 0u);
  }
  // As the chunk parser hands it over: an Initiate of 4 octets, no data.
  const Bytes init = {0, 1, 0, RDDP_SCTP_FC_INITIATE};
  rddp_sctp_chunk ch{};
  ASSERT_EQ(rddp_sctp_chunk_parse(RDDP_SCTP_PPID_CONTROL, init.data(), 4, &ch), RDDP_SCTP_OK);
  EXPECT_EQ(ch.pd, nullptr);
  EXPECT_EQ(ch.pd_len, 0u);
  rddp_sctp_conn c{};
  ASSERT_EQ(rddp_sctp_conn_parse(ch.pd, ch.pd_len, &c), RDDP_SCTP_OK);
  EXPECT_EQ(c.ird, 1);
  EXPECT_EQ(c.ord, 1);
}

// §7: every DATA chunk is unordered; an ordered one has its own error,
// named with its section, and ends the session as the others do.
TEST(Sctp, Section7OrderedChunkIsAnError) {
  EXPECT_GT(RDDP_SCTP_ERR_ORDERED, RDDP_SCTP_HELD);
  EXPECT_LT(RDDP_SCTP_ERR_ORDERED, RDDP_SCTP_ERR_MAX);
  EXPECT_NE(std::strstr(rddp_sctp_err_names[RDDP_SCTP_ERR_ORDERED], "§7"), nullptr);
  EXPECT_EQ(rddp_sctp_to_err(RDDP_SCTP_ERR_ORDERED), RDDP_ERR_DDP_CATASTROPHIC);
}

// §5: a chunk on a stream that carries no DDP Stream Session is an error of
// its own, named with its section for the kernel log, and ends the session
// as every other one does (DDP local catastrophic).
TEST(Sctp, ChunkOnAStreamWithoutSessionIsAnError) {
  EXPECT_GT(RDDP_SCTP_ERR_STREAM, RDDP_SCTP_HELD);
  EXPECT_LT(RDDP_SCTP_ERR_STREAM, RDDP_SCTP_ERR_MAX);
  EXPECT_NE(std::strstr(rddp_sctp_err_names[RDDP_SCTP_ERR_STREAM], "stream"), nullptr);
  EXPECT_NE(std::strstr(rddp_sctp_err_names[RDDP_SCTP_ERR_STREAM], "§5"), nullptr);
  EXPECT_EQ(rddp_sctp_to_err(RDDP_SCTP_ERR_STREAM), RDDP_ERR_DDP_CATASTROPHIC);
}

TEST(Sctp, EveryResultHasANameAndATerminateEntry) {
  for (int e = 0; e < RDDP_SCTP_ERR_MAX; e++) {
    ASSERT_NE(rddp_sctp_err_names[e], nullptr) << e;
    const rddp_err want = e <= RDDP_SCTP_HELD ? RDDP_ERR_NONE : RDDP_ERR_DDP_CATASTROPHIC;
    EXPECT_EQ(rddp_sctp_to_err(e), want) << rddp_sctp_err_names[e];
  }
  // §3.1: the session MUST be terminated; a DDP local catastrophic error.
  const rddp_err_info& info = rddp_errors[RDDP_ERR_DDP_CATASTROPHIC];
  EXPECT_EQ(info.layer, RDDP_TERM_LAYER_DDP);
  EXPECT_EQ(info.etype, 0);
  EXPECT_EQ(info.ecode, 0);
}

// ---- DDP Segment payloads (§2.2.2) ----------------------------------------

Bytes DdpHdr(bool tagged) {
  rddp_hdr h{};
  h.opcode = tagged ? RDDP_OP_WRITE : RDDP_OP_SEND;
  h.last = true;
  h.stag = 0x11223344;
  h.to = 0x0102030405060708ULL;
  h.qn = RDDP_QN_SEND;
  h.msn = 1;
  Bytes b(RDDP_DDP_UNTAGGED_HDR_LEN);
  b.resize(rddp_hdr_build(&h, b.data()));
  return b;
}

// A whole DDP Segment payload: the built prefix, then the payload.
Bytes Segment(uint16_t ssn, const Bytes& hdr, const Bytes& payload) {
  Bytes b(RDDP_SCTP_SEG_PREFIX_MAX);
  const int n = rddp_sctp_seg_build(ssn, hdr.data(), static_cast<uint32_t>(hdr.size()),
                                    static_cast<uint32_t>(payload.size()), b.data());
  EXPECT_EQ(n, static_cast<int>(2 + hdr.size()));
  b.resize(n > 0 ? static_cast<size_t>(n) : 0);
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

int Parse(uint32_t ppid, const Bytes& b, rddp_sctp_chunk* c) {
  return rddp_sctp_chunk_parse(ppid, b.data(), static_cast<uint32_t>(b.size()), c);
}

// §2.2.2: DDP-SSN in network order, then the RFC 5041 segment unchanged.
TEST(Sctp, Section2_2_2SegmentBytes) {
  const Bytes wire = Segment(0xABCD, DdpHdr(true), {9, 8, 7});
  Bytes want = {0xAB, 0xCD};
  const Bytes hdr = DdpHdr(true);
  want.insert(want.end(), hdr.begin(), hdr.end());
  want.insert(want.end(), {9, 8, 7});
  EXPECT_EQ(wire, want);
  EXPECT_EQ(wire[2], 0xC1);  // T, L, DV 1: no MPA length, marker or CRC
}

TEST(Sctp, Section2_2_2SegmentRoundTrips) {
  for (bool tagged : {true, false}) {
    for (uint16_t ssn : {0, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff}) {
      for (size_t plen : {0, 1, 3, 1000}) {
        Bytes payload(plen);
        for (size_t i = 0; i < plen; i++) payload[i] = static_cast<uint8_t>(i * 7);
        const Bytes hdr = DdpHdr(tagged);
        const Bytes wire = Segment(ssn, hdr, payload);
        rddp_sctp_chunk c{};
        ASSERT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, wire, &c), RDDP_SCTP_OK);
        EXPECT_EQ(c.ssn, ssn);
        EXPECT_EQ(c.msg, RDDP_SCTP_MSG_SEGMENT);
        EXPECT_EQ(c.hdr_len, hdr.size());
        EXPECT_EQ(c.ddp, wire.data() + 2);
        EXPECT_EQ(c.ddp_len, hdr.size() + plen);
        EXPECT_EQ(c.pd, nullptr);
        rddp_hdr h{};
        ASSERT_EQ(rddp_hdr_parse(c.ddp, c.hdr_len, c.ddp_len - c.hdr_len, &h), RDDP_ERR_NONE);
        EXPECT_EQ(h.tagged, tagged);
        EXPECT_EQ(Bytes(c.ddp + c.hdr_len, c.ddp + c.ddp_len), payload);
      }
    }
  }
}

// RFC 5041 §5.3, §7: what the LLP holds of a tagged segment it placed on
// arrival, its DDP-SSN and header only, parses as that segment without
// payload; the parse clears @placed, which the LLP then sets.
TEST(Sctp, Section7PlacedSegmentRecordParses) {
  const Bytes wire = Segment(9, DdpHdr(true), Bytes(100, 0x5a));
  const Bytes rec(wire.begin(), wire.begin() + 2 + RDDP_DDP_TAGGED_HDR_LEN);
  rddp_sctp_chunk c;
  std::memset(&c, 0xff, sizeof(c));
  ASSERT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, rec, &c), RDDP_SCTP_OK);
  EXPECT_EQ(c.placed, 0U);
  EXPECT_EQ(c.ssn, 9);
  EXPECT_EQ(c.hdr_len, RDDP_DDP_TAGGED_HDR_LEN);
  EXPECT_EQ(c.ddp_len, c.hdr_len);
  EXPECT_EQ(Bytes(c.ddp, c.ddp + c.hdr_len), DdpHdr(true));
}

// §2.2.2: every length below DDP-SSN + the header the T bit announces.
TEST(Sctp, Section2_2_2SegmentShorterThanItsHeader) {
  for (bool tagged : {true, false}) {
    const Bytes full = Segment(5, DdpHdr(tagged), {});
    for (size_t len = 0; len < full.size(); len++) {
      const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
      rddp_sctp_chunk c{};
      EXPECT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, cut, &c), RDDP_SCTP_ERR_SEG_SHORT)
          << tagged << " " << len;
    }
    rddp_sctp_chunk c{};
    EXPECT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, full, &c), RDDP_SCTP_OK);
  }
  // An untagged header's length is 18 even where 14 octets would do.
  Bytes cut = Segment(5, DdpHdr(false), {});
  cut.resize(2 + RDDP_DDP_TAGGED_HDR_LEN);
  rddp_sctp_chunk c{};
  EXPECT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, cut, &c), RDDP_SCTP_ERR_SEG_SHORT);
}

// §6 and RFC 2960 §3.3.1: one DATA chunk carries at most 65519 octets.
TEST(Sctp, Section6OneDataChunkAtMost) {
  for (bool tagged : {true, false}) {
    const Bytes hdr = DdpHdr(tagged);
    const uint32_t most = RDDP_SCTP_PAYLOAD_MAX - 2 - static_cast<uint32_t>(hdr.size());
    Bytes wire = Segment(1, hdr, Bytes(most));
    ASSERT_EQ(wire.size(), RDDP_SCTP_PAYLOAD_MAX);
    rddp_sctp_chunk c{};
    EXPECT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, wire, &c), RDDP_SCTP_OK);
    wire.push_back(0);
    EXPECT_EQ(Parse(RDDP_SCTP_PPID_SEGMENT, wire, &c), RDDP_SCTP_ERR_TOO_LONG);
    Bytes prefix(RDDP_SCTP_SEG_PREFIX_MAX);
    EXPECT_EQ(rddp_sctp_seg_build(1, hdr.data(), static_cast<uint32_t>(hdr.size()), most + 1,
                                  prefix.data()),
              -RDDP_SCTP_ERR_TOO_LONG);
  }
  Bytes ctrl(RDDP_SCTP_PAYLOAD_MAX + 1);
  ctrl[3] = RDDP_SCTP_FC_NEGOTIATE;
  rddp_sctp_chunk c{};
  EXPECT_EQ(Parse(RDDP_SCTP_PPID_CONTROL, ctrl, &c), RDDP_SCTP_ERR_TOO_LONG);
  ctrl.pop_back();
  ASSERT_EQ(Parse(RDDP_SCTP_PPID_CONTROL, ctrl, &c), RDDP_SCTP_OK);
  EXPECT_EQ(c.pd_len, RDDP_SCTP_PD_MAX);
}

TEST(Sctp, SegmentBuildRefusesAHeaderOfAnotherLength) {
  const Bytes hdr(RDDP_DDP_UNTAGGED_HDR_LEN + 1);
  Bytes prefix(RDDP_SCTP_SEG_PREFIX_MAX + 1);
  for (uint32_t len : {0u, 1u, 13u, 15u, 17u, 19u}) {
    EXPECT_EQ(rddp_sctp_seg_build(1, hdr.data(), len, 0, prefix.data()), -RDDP_SCTP_ERR_INVAL)
        << len;
  }
}

// §2.2: only PPIDs 1 and 2 are DDP's (host order: 1 byte-swapped is not 1).
TEST(Sctp, Section2_2UnknownPpid) {
  const Bytes any = Segment(1, DdpHdr(true), {});
  for (uint32_t ppid : {0u, 3u, 0x01000000u, 0x02000000u, 0xffffffffu}) {
    rddp_sctp_chunk c{};
    EXPECT_EQ(Parse(ppid, any, &c), RDDP_SCTP_ERR_PPID) << ppid;
  }
}

// ---- Stream Session Control payloads (§2.2.3) ------------------------------

Bytes Control(uint16_t ssn, uint16_t fc, const Bytes& pd) {
  Bytes b(RDDP_SCTP_CTRL_HDR_LEN + pd.size());
  const int n = rddp_sctp_ctrl_build(ssn, fc, pd.empty() ? nullptr : pd.data(),
                                     static_cast<uint32_t>(pd.size()), b.data(),
                                     static_cast<uint32_t>(b.size()));
  EXPECT_EQ(n, static_cast<int>(b.size())) << fc;
  return b;
}

TEST(Sctp, Section2_2_3ControlBytes) {
  EXPECT_EQ(Control(0x0102, RDDP_SCTP_FC_INITIATE, {0xAA, 0xBB}),
            (Bytes{0x01, 0x02, 0x00, 0x02, 0xAA, 0xBB}));
  EXPECT_EQ(Control(0xFFFF, RDDP_SCTP_FC_TERMINATE, {}), (Bytes{0xFF, 0xFF, 0x00, 0x04}));
}

// §2.2.3: Negotiate, Initiate and Accept carry private data, possibly of
// zero length; all of it reaches the ULP.
TEST(Sctp, Section2_2_3ControlRoundTrips) {
  for (uint16_t fc = RDDP_SCTP_FC_NEGOTIATE; fc < RDDP_SCTP_FC_MAX; fc++) {
    for (size_t len : {0, 1, 2, 3, 4, 5, 512, 513, 4096}) {
      if (fc == RDDP_SCTP_FC_TERMINATE && len) continue;
      Bytes pd(len);
      for (size_t i = 0; i < len; i++) pd[i] = static_cast<uint8_t>(i + fc);
      const Bytes wire = Control(static_cast<uint16_t>(len * 31), fc, pd);
      rddp_sctp_chunk c{};
      ASSERT_EQ(Parse(RDDP_SCTP_PPID_CONTROL, wire, &c), RDDP_SCTP_OK) << fc << " " << len;
      EXPECT_EQ(c.ssn, static_cast<uint16_t>(len * 31));
      EXPECT_EQ(c.msg, fc);
      EXPECT_EQ(c.pd_len, len);
      EXPECT_EQ(c.pd, len ? wire.data() + 4 : nullptr);
      if (len) {
        EXPECT_EQ(Bytes(c.pd, c.pd + c.pd_len), pd);
      }
      EXPECT_EQ(c.ddp, nullptr);
    }
  }
}

TEST(Sctp, Section2_2_3ControlShorterThanItsHeader) {
  const Bytes full = Control(7, RDDP_SCTP_FC_TERMINATE, {});
  for (size_t len = 0; len < RDDP_SCTP_CTRL_HDR_LEN; len++) {
    rddp_sctp_chunk c{};
    EXPECT_EQ(Parse(RDDP_SCTP_PPID_CONTROL,
                    Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len)), &c),
              RDDP_SCTP_ERR_CTRL_SHORT)
        << len;
  }
}

// §2.2.3 defines codes 0x001-0x004 in a 16-bit field; every other is refused.
TEST(Sctp, Section2_2_3EveryOtherFunctionCode) {
  Bytes wire = {0, 1, 0, 0, 0xEE};
  uint32_t refused = 0;
  for (uint32_t fc = 0; fc <= 0xffff; fc++) {
    wire[2] = static_cast<uint8_t>(fc >> 8);
    wire[3] = static_cast<uint8_t>(fc);
    rddp_sctp_chunk c{};
    const int want = fc >= 1 && fc <= 3 ? RDDP_SCTP_OK
                     : fc == 4          ? RDDP_SCTP_ERR_TERM_PD
                                        : RDDP_SCTP_ERR_FUNC;
    ASSERT_EQ(Parse(RDDP_SCTP_PPID_CONTROL, wire, &c), want) << fc;
    refused += want == RDDP_SCTP_ERR_FUNC;
    if (fc > 4) {
      uint8_t out[8];
      ASSERT_EQ(rddp_sctp_ctrl_build(1, static_cast<uint16_t>(fc), nullptr, 0, out, sizeof(out)),
                -RDDP_SCTP_ERR_FUNC);
    }
  }
  EXPECT_EQ(refused, 65536u - 4u);
}

// §2.2.3: "Private Data MUST NOT be included" in a Terminate.
TEST(Sctp, Section2_2_3TerminateWithPrivateData) {
  for (size_t extra : {1, 2, 3, 4, 100}) {
    Bytes wire = Control(9, RDDP_SCTP_FC_TERMINATE, {});
    wire.resize(wire.size() + extra);
    rddp_sctp_chunk c{};
    EXPECT_EQ(Parse(RDDP_SCTP_PPID_CONTROL, wire, &c), RDDP_SCTP_ERR_TERM_PD) << extra;
  }
  const uint8_t pd[1] = {1};
  uint8_t out[8];
  EXPECT_EQ(rddp_sctp_ctrl_build(1, RDDP_SCTP_FC_TERMINATE, pd, 1, out, sizeof(out)),
            -RDDP_SCTP_ERR_TERM_PD);
}

TEST(Sctp, ControlBuildChecksItsArguments) {
  Bytes out(RDDP_SCTP_PAYLOAD_MAX + 1);
  const Bytes pd(RDDP_SCTP_PD_MAX + 1, 0x5A);
  const auto build = [&](uint16_t fc, const uint8_t* p, uint32_t len, uint32_t buf_len) {
    return rddp_sctp_ctrl_build(3, fc, p, len, out.data(), buf_len);
  };
  const auto size = static_cast<uint32_t>(out.size());
  EXPECT_EQ(build(0, nullptr, 0, size), -RDDP_SCTP_ERR_FUNC);
  EXPECT_EQ(build(RDDP_SCTP_FC_ACCEPT, pd.data(), RDDP_SCTP_PD_MAX, size),
            static_cast<int>(RDDP_SCTP_PAYLOAD_MAX));
  EXPECT_EQ(build(RDDP_SCTP_FC_ACCEPT, pd.data(), RDDP_SCTP_PD_MAX + 1, size),
            -RDDP_SCTP_ERR_TOO_LONG);
  EXPECT_EQ(build(RDDP_SCTP_FC_ACCEPT, pd.data(), 4, 7), -RDDP_SCTP_ERR_INVAL);
  EXPECT_EQ(build(RDDP_SCTP_FC_ACCEPT, pd.data(), 4, 8), 8);
  EXPECT_EQ(build(RDDP_SCTP_FC_TERMINATE, nullptr, 0, 3), -RDDP_SCTP_ERR_INVAL);
  EXPECT_EQ(build(RDDP_SCTP_FC_TERMINATE, nullptr, 0, 4), 4);
  EXPECT_EQ(build(RDDP_SCTP_FC_NEGOTIATE, nullptr, 1, size), -RDDP_SCTP_ERR_INVAL);
}

// ---- DDP-SSN, sending side (§2.2.1, §7) ------------------------------------

TEST(Sctp, Section2_2_1SendSsnStartsAtOneAndWrapsToZero) {
  rddp_sctp_ssn_tx tx{};
  rddp_sctp_ssn_tx_init(&tx);
  uint16_t ssn = 0;
  for (uint32_t i = 0; i < 3 * 65536; i++) {
    ASSERT_EQ(rddp_sctp_ssn_tx_take(&tx, &ssn), RDDP_SCTP_OK);
    ASSERT_EQ(ssn, static_cast<uint16_t>(1 + i)) << i;  // ..., 65535, 0, 1, ...
    rddp_sctp_ssn_tx_acked(&tx, 1);
  }
}

TEST(Sctp, Section7AtMost32767Unacknowledged) {
  rddp_sctp_ssn_tx tx{};
  rddp_sctp_ssn_tx_init(&tx);
  uint16_t ssn = 0;
  for (uint32_t i = 0; i < RDDP_SCTP_SSN_INFLIGHT_MAX; i++)
    ASSERT_EQ(rddp_sctp_ssn_tx_take(&tx, &ssn), RDDP_SCTP_OK);
  EXPECT_EQ(ssn, 32767);
  EXPECT_EQ(rddp_sctp_ssn_tx_take(&tx, &ssn), RDDP_SCTP_ERR_SSN_INFLIGHT);
  EXPECT_EQ(ssn, 32767);  // unchanged
  rddp_sctp_ssn_tx_acked(&tx, 1);
  EXPECT_EQ(rddp_sctp_ssn_tx_take(&tx, &ssn), RDDP_SCTP_OK);
  EXPECT_EQ(ssn, 32768);
  EXPECT_EQ(rddp_sctp_ssn_tx_take(&tx, &ssn), RDDP_SCTP_ERR_SSN_INFLIGHT);
  rddp_sctp_ssn_tx_acked(&tx, 100000);  // more than in flight: none left
  EXPECT_EQ(tx.inflight, 0);
  rddp_sctp_ssn_tx_acked(&tx, 1);
  EXPECT_EQ(tx.inflight, 0);
}

// ---- DDP-SSN, receiving side (§2.2.1, §3.1, §7) ----------------------------

class SsnRx : public ::testing::Test {
 protected:
  void SetUp() override { rddp_sctp_ssn_rx_init(rx_.get()); }

  // Arrivals in order of `ssns`; returns the DDP-SSNs delivered, in order.
  std::vector<uint16_t> Feed(const std::vector<uint16_t>& ssns) {
    std::vector<uint16_t> out;
    for (uint16_t s : ssns) {
      const int r = rddp_sctp_ssn_rx_arrive(rx_.get(), s);
      EXPECT_TRUE(r == RDDP_SCTP_OK || r == RDDP_SCTP_HELD) << s << ": " << rddp_sctp_err_names[r];
      if (r != RDDP_SCTP_OK) continue;
      out.push_back(s);
      uint16_t next = 0;
      while (rddp_sctp_ssn_rx_pop(rx_.get(), &next)) out.push_back(next);
    }
    return out;
  }

  // Advance to `next` by in-order arrivals.
  void Skip(uint16_t next) {
    while (rx_->next != next) ASSERT_EQ(rddp_sctp_ssn_rx_arrive(rx_.get(), rx_->next), 0);
  }

  int Arrive(uint16_t ssn) { return rddp_sctp_ssn_rx_arrive(rx_.get(), ssn); }

  std::unique_ptr<rddp_sctp_ssn_rx> rx_ = std::make_unique<rddp_sctp_ssn_rx>();
};

// §2.2.1: 1 first, 65535 then 0 then 1 again; nothing is ever held.
TEST_F(SsnRx, Section2_2_1InOrderAcrossTheWrap) {
  for (uint32_t i = 0; i < 3 * 65536; i++) {
    const auto ssn = static_cast<uint16_t>(1 + i);
    ASSERT_EQ(Arrive(ssn), RDDP_SCTP_OK) << i;
    uint16_t s = 0;
    ASSERT_FALSE(rddp_sctp_ssn_rx_pop(rx_.get(), &s));
  }
  EXPECT_EQ(rx_->nr_held, 0);
}

// §3.1: a session starts at 1; 0 is only the successor of 65535.
TEST_F(SsnRx, Section3_1SessionStartsAtOne) {
  EXPECT_EQ(Arrive(0), RDDP_SCTP_ERR_SSN_OLD);
  EXPECT_EQ(Arrive(65535), RDDP_SCTP_ERR_SSN_OLD);
  EXPECT_EQ(Arrive(1), RDDP_SCTP_OK);
  Skip(65535);
  EXPECT_EQ(Arrive(0), RDDP_SCTP_HELD);
  EXPECT_EQ(Feed({65535}), (std::vector<uint16_t>{65535, 0}));
  EXPECT_EQ(rx_->next, 1);
}

// §7: the next one plus 32766 is the last a legal sender can have in flight.
TEST_F(SsnRx, Section7WindowEdges) {
  for (uint16_t next : {1, 2, 100, 32767, 32768, 40000, 65534, 65535, 0}) {
    SetUp();
    Skip(next);
    const auto at = [&](uint32_t d) { return static_cast<uint16_t>(next + d); };
    EXPECT_EQ(Arrive(at(32767)), RDDP_SCTP_ERR_SSN_BEYOND) << next;
    EXPECT_EQ(Arrive(at(32768)), RDDP_SCTP_ERR_SSN_OLD) << next;
    EXPECT_EQ(Arrive(at(65535)), RDDP_SCTP_ERR_SSN_OLD) << next;
    EXPECT_EQ(Arrive(at(32766)), RDDP_SCTP_HELD) << next;
    EXPECT_EQ(Arrive(at(1)), RDDP_SCTP_HELD) << next;
    EXPECT_EQ(rx_->nr_held, 2);
    EXPECT_EQ(rx_->next, next);  // errors change nothing
  }
}

// Every distance from the next DDP-SSN, at a next that is not 1.
TEST_F(SsnRx, Section7EveryDistance) {
  Skip(60000);
  for (uint32_t d = 0; d < 65536; d++) {
    const auto ssn = static_cast<uint16_t>(60000 + d);
    const int want = d == 0       ? RDDP_SCTP_OK
                     : d < 32767  ? RDDP_SCTP_HELD
                     : d == 32767 ? RDDP_SCTP_ERR_SSN_BEYOND
                                  : RDDP_SCTP_ERR_SSN_OLD;
    auto fresh = std::make_unique<rddp_sctp_ssn_rx>(*rx_);
    ASSERT_EQ(rddp_sctp_ssn_rx_arrive(fresh.get(), ssn), want) << d;
  }
}

// §7: a DDP-SSN seen twice is not a chunk "unreceived": held, or delivered.
TEST_F(SsnRx, Section7Duplicates) {
  EXPECT_EQ(Arrive(3), RDDP_SCTP_HELD);
  EXPECT_EQ(Arrive(3), RDDP_SCTP_ERR_SSN_DUP);
  EXPECT_EQ(rx_->nr_held, 1);
  EXPECT_EQ(Feed({1}), (std::vector<uint16_t>{1}));
  EXPECT_EQ(Arrive(1), RDDP_SCTP_ERR_SSN_OLD);
  EXPECT_EQ(Feed({2}), (std::vector<uint16_t>{2, 3}));
  EXPECT_EQ(Arrive(3), RDDP_SCTP_ERR_SSN_OLD);
  EXPECT_EQ(Arrive(2), RDDP_SCTP_ERR_SSN_OLD);
  // The next one, held but not yet popped: arriving again is a duplicate.
  EXPECT_EQ(Arrive(5), RDDP_SCTP_HELD);
  EXPECT_EQ(Arrive(4), RDDP_SCTP_OK);
  EXPECT_EQ(Arrive(5), RDDP_SCTP_ERR_SSN_DUP);
  uint16_t s = 0;
  ASSERT_TRUE(rddp_sctp_ssn_rx_pop(rx_.get(), &s));
  EXPECT_EQ(s, 5);
  EXPECT_FALSE(rddp_sctp_ssn_rx_pop(rx_.get(), &s));
}

TEST_F(SsnRx, Section7OutOfOrderDelivery) {
  EXPECT_EQ(Feed({3, 2, 5, 1, 4, 7}), (std::vector<uint16_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(rx_->nr_held, 1);
  EXPECT_EQ(Feed({6}), (std::vector<uint16_t>{6, 7}));
  // Across the wrap: 65534 .. 2 backwards.
  Skip(65534);
  EXPECT_EQ(Feed({2, 1, 0, 65535, 65534}), (std::vector<uint16_t>{65534, 65535, 0, 1, 2}));
}

// §7: the whole window held, then delivered in order by one arrival.
TEST_F(SsnRx, Section7FullWindow) {
  Skip(50000);
  for (uint32_t d = RDDP_SCTP_SSN_INFLIGHT_MAX - 1; d >= 1; d--)
    ASSERT_EQ(Arrive(static_cast<uint16_t>(50000 + d)), RDDP_SCTP_HELD) << d;
  EXPECT_EQ(rx_->nr_held, 32766);
  const std::vector<uint16_t> got = Feed({50000});
  ASSERT_EQ(got.size(), 32767u);
  for (uint32_t i = 0; i < got.size(); i++) ASSERT_EQ(got[i], static_cast<uint16_t>(50000 + i));
  EXPECT_EQ(rx_->nr_held, 0);
}

// §7 against a reference: a sender with at most 32767 in flight whose chunks
// arrive in random order; every chunk is delivered once, in DDP-SSN order.
TEST_F(SsnRx, Section7RandomReordering) {
  std::mt19937 rng(5041);
  for (uint32_t window : {2u, 17u, 1000u, 32767u}) {
    SetUp();
    uint32_t sent = 0, delivered = 0;
    std::vector<uint16_t> pending;
    while (delivered < 3 * 65536) {
      // Send while fewer than `window` sent after the oldest undelivered.
      while (sent - delivered < window && sent < 3 * 65536 + window)
        pending.push_back(static_cast<uint16_t>(1 + sent++));
      std::uniform_int_distribution<size_t> pick(0, pending.size() - 1);
      const size_t i = pick(rng);
      const uint16_t ssn = pending[i];
      pending[i] = pending.back();
      pending.pop_back();
      const int r = Arrive(ssn);
      ASSERT_TRUE(r == RDDP_SCTP_OK || r == RDDP_SCTP_HELD) << window << " " << ssn;
      if (r != RDDP_SCTP_OK) continue;
      ASSERT_EQ(ssn, static_cast<uint16_t>(1 + delivered++));
      uint16_t s = 0;
      while (rddp_sctp_ssn_rx_pop(rx_.get(), &s))
        ASSERT_EQ(s, static_cast<uint16_t>(1 + delivered++));
      ASSERT_EQ(rx_->nr_held, sent - delivered - pending.size());
    }
  }
}

// ---- DDP Stream Session sequences (§3) -------------------------------------

// Two endpoints, A and B; a step is a message sent by one and received by
// the other. Both views must agree on every step.
struct Pair {
  rddp_sctp_sess a{}, b{};
  Pair() {
    rddp_sctp_sess_init(&a);
    rddp_sctp_sess_init(&b);
  }
  int Send(bool from_a, uint16_t msg) {
    rddp_sctp_sess& tx = from_a ? a : b;
    rddp_sctp_sess& rx = from_a ? b : a;
    const int t = rddp_sctp_sess_tx(&tx, msg);
    const int r = rddp_sctp_sess_rx(&rx, msg);
    EXPECT_EQ(t, r) << "tx and rx disagree on " << msg;
    return r;
  }
};

struct Step {
  bool from_a;
  uint16_t msg;
};

// "aI bA aS bT": A sends Initiate, B Accept, A a Segment, B Terminate (N:
// Negotiate; 5 and F: the unknown codes 5 and 0xffff).
std::vector<Step> Steps(const std::string& seq) {
  std::vector<Step> out;
  for (size_t i = 0; i + 1 < seq.size(); i += 3) {
    const std::string msgs = "SNIAT5";
    const size_t m = msgs.find(seq[i + 1]);
    out.push_back({seq[i] == 'a', static_cast<uint16_t>(m == std::string::npos ? 0xffff : m)});
  }
  return out;
}

void ExpectLegal(const std::string& seq) {
  Pair p;
  for (const Step& s : Steps(seq)) ASSERT_EQ(p.Send(s.from_a, s.msg), RDDP_SCTP_OK) << seq;
}

TEST(SctpSession, Section3_2ActivePassiveAccepted) {
  ExpectLegal("aI bA aS bS aT");
  ExpectLegal("aN bN aN aI bN bA bS aS aS bT aS aT");  // negotiated, both terminate
  ExpectLegal("aI bA bT");                             // no segments
  ExpectLegal("aI aS bA");  // a segment after Initiate (§3.6: Initiate acked)
}

TEST(SctpSession, Section3_3NegotiationOnly) {
  ExpectLegal("");
  ExpectLegal("aN bN aN bN");
}

TEST(SctpSession, Section3_4ActivePassiveRejected) {
  ExpectLegal("aI bT");
  ExpectLegal("bN aN aI bN bT");
  ExpectLegal("aI aT bT");  // withdrawn, then rejected
}

TEST(SctpSession, Section3_5ActiveActiveAccepted) {
  ExpectLegal("aI bI aS bS bT aT");
  ExpectLegal("aN bN bI aI aT");
}

struct Illegal {
  const char* before;
  const char* bad;
  rddp_sctp_err err;
};

void PrintTo(const Illegal& c, std::ostream* os) {
  *os << '"' << c.before << "\" then " << c.bad << " -> " << rddp_sctp_err_names[c.err];
}

class SctpSessionIllegal : public ::testing::TestWithParam<Illegal> {};

// §3.1: a chunk that fits none of the patterns; the state stays as it was.
TEST_P(SctpSessionIllegal, RefusedByBothViews) {
  const Illegal& c = GetParam();
  Pair p;
  for (const Step& s : Steps(c.before)) ASSERT_EQ(p.Send(s.from_a, s.msg), RDDP_SCTP_OK);
  const rddp_sctp_sess a = p.a, b = p.b;
  const Step bad = Steps(c.bad).at(0);
  EXPECT_EQ(p.Send(bad.from_a, bad.msg), c.err) << c.before << " then " << c.bad;
  EXPECT_EQ(p.a.tx, a.tx);
  EXPECT_EQ(p.a.rx, a.rx);
  EXPECT_EQ(p.b.tx, b.tx);
  EXPECT_EQ(p.b.rx, b.rx);
}

INSTANTIATE_TEST_SUITE_P(
    Section3, SctpSessionIllegal,
    ::testing::Values(Illegal{"", "aS", RDDP_SCTP_ERR_SEQ_SEGMENT},
                      Illegal{"aN", "aS", RDDP_SCTP_ERR_SEQ_SEGMENT},
                      Illegal{"aI", "bS", RDDP_SCTP_ERR_SEQ_SEGMENT},  // before Accept
                      Illegal{"", "bA", RDDP_SCTP_ERR_SEQ_ACCEPT},
                      Illegal{"aI", "aA", RDDP_SCTP_ERR_SEQ_ACCEPT},     // its own Initiate
                      Illegal{"aI bA", "bA", RDDP_SCTP_ERR_SEQ_ACCEPT},  // twice
                      Illegal{"aI bI", "bA", RDDP_SCTP_ERR_SEQ_ACCEPT},  // active/active
                      Illegal{"aI aT", "bA", RDDP_SCTP_ERR_SEQ_ACCEPT},  // withdrawn
                      Illegal{"aI", "aI", RDDP_SCTP_ERR_SEQ_INITIATE},
                      Illegal{"aI bA", "bI", RDDP_SCTP_ERR_SEQ_INITIATE},
                      Illegal{"aI aT", "bI", RDDP_SCTP_ERR_SEQ_INITIATE},
                      Illegal{"aI", "aN", RDDP_SCTP_ERR_SEQ_NEGOTIATE},
                      Illegal{"aI bA", "bN", RDDP_SCTP_ERR_SEQ_NEGOTIATE},
                      Illegal{"aN", "bT", RDDP_SCTP_ERR_SEQ_TERMINATE},  // negotiation only
                      Illegal{"", "aT", RDDP_SCTP_ERR_SEQ_TERMINATE},
                      Illegal{"aI bA aT", "aS", RDDP_SCTP_ERR_SEQ_CLOSED},
                      Illegal{"aI bT", "bT", RDDP_SCTP_ERR_SEQ_CLOSED},
                      Illegal{"aI bT", "bN", RDDP_SCTP_ERR_SEQ_CLOSED},
                      Illegal{"", "a5", RDDP_SCTP_ERR_FUNC},
                      Illegal{"aI bA", "bF", RDDP_SCTP_ERR_FUNC}));

// §3.2-§3.5 restated on strings: what one side sent (N, I, A, S, T) must
// match N*((I|A)S*T?|T)?, an Accept or a rejecting Terminate answers an
// Initiate the other side sent (an Accept one it has not withdrawn), and
// an Initiate meets no Accept or Terminate from the other side.
bool LegalByPattern(const std::string& own, const std::string& other, char m) {
  static const std::regex kOneSide("N*(([IA]S*T?)|T)?");
  if (!std::regex_match(own + m, kOneSide)) return false;
  const bool other_initiated = other.find('I') != std::string::npos;
  const bool other_terminated = other.find('T') != std::string::npos;
  const bool opened = own.find_first_of("IA") != std::string::npos;
  if (m == 'A') return other_initiated && !other_terminated;
  if (m == 'I') return other.find_first_of("AT") == std::string::npos;
  if (m == 'T' && !opened) return other_initiated;
  return true;
}

// ---- our Terminate and session setup (§3.1-§3.5) ----------------------------

// Our Terminate ends the session whatever its phase: the last message of a
// sequence, a rejection (§3.4), or §3.1's end of a session the peer broke,
// even before any Initiate; nothing after it, not a second one.
TEST(SctpSession, OurTerminateEndsAnySessionOnce) {
  for (const char* before :
       {"", "aN", "bN aN", "aI", "bI", "aI bA", "aI bA aS bS", "aI bI", "aI bT", "bI aT"}) {
    Pair p;
    for (const Step& s : Steps(before)) ASSERT_EQ(p.Send(s.from_a, s.msg), RDDP_SCTP_OK) << before;
    const rddp_sctp_sess b = p.b;
    const bool closed = p.a.tx == RDDP_SCTP_PHASE_CLOSED;
    ASSERT_EQ(rddp_sctp_sess_end(&p.a), closed ? RDDP_SCTP_ERR_SEQ_CLOSED : RDDP_SCTP_OK) << before;
    EXPECT_EQ(p.a.tx, RDDP_SCTP_PHASE_CLOSED) << before;
    EXPECT_EQ(rddp_sctp_sess_end(&p.a), RDDP_SCTP_ERR_SEQ_CLOSED) << before;
    EXPECT_EQ(rddp_sctp_sess_tx(&p.a, RDDP_SCTP_MSG_SEGMENT), RDDP_SCTP_ERR_SEQ_CLOSED) << before;
    EXPECT_EQ(p.b.tx, b.tx);  // the peer's view is its own
    EXPECT_EQ(p.b.rx, b.rx);
  }
}

struct SetupStep {
  char msg;  // N I A T S 5, as Steps()
  int want;  // enum rddp_sctp_setup, or -enum rddp_sctp_err
};

// One side's setup: @ours, what it sent first (sess_tx), then the peer's
// messages in DDP-SSN order through rddp_sctp_setup_rx().
void ExpectSetup(bool active, const std::string& ours, const std::vector<SetupStep>& peer) {
  rddp_sctp_sess s{};
  rddp_sctp_sess_init(&s);
  for (char m : ours) {
    const std::string msgs = "SNIAT";
    ASSERT_EQ(rddp_sctp_sess_tx(&s, static_cast<uint16_t>(msgs.find(m))), RDDP_SCTP_OK);
  }
  std::string seen;
  for (const SetupStep& st : peer) {
    const uint16_t msg = Steps(std::string("b") + st.msg + " ").at(0).msg;
    const rddp_sctp_sess before = s;
    const int got = rddp_sctp_setup_rx(&s, active, msg);
    seen += st.msg;
    EXPECT_EQ(got, st.want) << (active ? "active" : "passive") << " after " << ours << " / "
                            << seen;
    if (got < 0) {  // refused: the state is as it was
      EXPECT_EQ(s.tx, before.tx);
      EXPECT_EQ(s.rx, before.rx);
    }
  }
}

constexpr int kNone = RDDP_SCTP_SETUP_NONE;
constexpr int kNegotiate = RDDP_SCTP_SETUP_NEGOTIATE;
constexpr int kRequest = RDDP_SCTP_SETUP_REQUEST;
constexpr int kAccepted = RDDP_SCTP_SETUP_ACCEPTED;
constexpr int kBoth = RDDP_SCTP_SETUP_BOTH_ACTIVE;
constexpr int kRejected = RDDP_SCTP_SETUP_REJECTED;

// A passive side answers each Negotiate with one of its own (§3.3) and
// hands the Initiate to its ULP (§3.2); what fits no sequence before it
// is an error (§3.1).
TEST(SctpSetup, PassiveSide) {
  ExpectSetup(false, "", {{'I', kRequest}});
  ExpectSetup(false, "", {{'N', kNegotiate}, {'N', kNegotiate}, {'I', kRequest}});
  ExpectSetup(false, "N", {{'N', kNegotiate}, {'I', kRequest}});  // ours first
  ExpectSetup(false, "", {{'S', -RDDP_SCTP_ERR_SEQ_SEGMENT}});
  ExpectSetup(false, "", {{'N', kNegotiate}, {'S', -RDDP_SCTP_ERR_SEQ_SEGMENT}});
  ExpectSetup(false, "", {{'A', -RDDP_SCTP_ERR_SEQ_ACCEPT}});
  ExpectSetup(false, "", {{'T', -RDDP_SCTP_ERR_SEQ_TERMINATE}});
  ExpectSetup(false, "", {{'5', -RDDP_SCTP_ERR_FUNC}});
}

// An active side: the Accept or a Terminate answers its Initiate (§3.2,
// §3.4); an Initiate is active/active (§3.5), also before its own went out;
// a Negotiate needs no answer, its Initiate ends the negotiation.
TEST(SctpSetup, ActiveSide) {
  ExpectSetup(true, "I", {{'A', kAccepted}});
  ExpectSetup(true, "I", {{'N', kNone}, {'N', kNone}, {'A', kAccepted}});
  ExpectSetup(true, "I", {{'T', kRejected}});
  ExpectSetup(true, "I", {{'I', kBoth}});
  ExpectSetup(true, "", {{'I', kBoth}});  // crossed: its Initiate still to send
  ExpectSetup(true, "NI", {{'N', kNone}, {'I', kBoth}});
  ExpectSetup(true, "I", {{'S', -RDDP_SCTP_ERR_SEQ_SEGMENT}});
  ExpectSetup(true, "", {{'A', -RDDP_SCTP_ERR_SEQ_ACCEPT}});
  ExpectSetup(true, "", {{'T', -RDDP_SCTP_ERR_SEQ_TERMINATE}});
  ExpectSetup(true, "IT", {{'A', -RDDP_SCTP_ERR_SEQ_ACCEPT}});  // withdrawn
  ExpectSetup(true, "I", {{'F', -RDDP_SCTP_ERR_FUNC}});
}

// Active/active before our Initiate: it may still be sent, and the
// session is then up both ways (§3.5).
TEST(SctpSetup, Section3_5CrossedInitiates) {
  rddp_sctp_sess s{};
  rddp_sctp_sess_init(&s);
  ASSERT_EQ(rddp_sctp_setup_rx(&s, true, RDDP_SCTP_FC_INITIATE), kBoth);
  EXPECT_EQ(s.tx, RDDP_SCTP_PHASE_NEGOTIATE);
  ASSERT_EQ(rddp_sctp_sess_tx(&s, RDDP_SCTP_FC_INITIATE), RDDP_SCTP_OK);
  EXPECT_EQ(rddp_sctp_sess_tx(&s, RDDP_SCTP_MSG_SEGMENT), RDDP_SCTP_OK);
  EXPECT_EQ(rddp_sctp_sess_rx(&s, RDDP_SCTP_MSG_SEGMENT), RDDP_SCTP_OK);
}

// Every sequence of up to 8 messages from A and B: the state machine and
// the pattern agree on each step (§3.1).
TEST(SctpSession, Section3EverySequenceUpTo8) {
  const std::string kMsgs = "SNIAT";
  uint64_t checked = 0;
  std::vector<uint32_t> seq;  // each: 2 * message index + side
  const std::function<void(Pair&, const std::string&, const std::string&)> walk =
      [&](Pair& p, const std::string& a, const std::string& b) {
        if (seq.size() == 8) return;
        for (uint32_t e = 0; e < 2 * kMsgs.size(); e++) {
          const bool from_a = e % 2 == 0;
          const char m = kMsgs[e / 2];
          const bool legal = LegalByPattern(from_a ? a : b, from_a ? b : a, m);
          Pair q = p;
          const int r = q.Send(from_a, static_cast<uint16_t>(e / 2));
          checked++;
          ASSERT_EQ(r == RDDP_SCTP_OK, legal) << a << " / " << b << " then " << (from_a ? "a" : "b")
                                              << m << ": " << rddp_sctp_err_names[r];
          if (!legal) continue;
          seq.push_back(e);
          walk(q, from_a ? a + m : a, from_a ? b : b + m);
          seq.pop_back();
          if (HasFatalFailure()) return;
        }
      };
  Pair p;
  walk(p, "", "");
  EXPECT_GT(checked, 100000u);
}

// The receive path as the module will drive it: parse, order by DDP-SSN,
// then check the session sequence in that order (§3.1, §7).
TEST(SctpSession, Section3_1ChunksCheckedInSsnOrder) {
  std::vector<Bytes> chunks;  // the active side's chunks, DDP-SSN 1..
  std::vector<uint32_t> ppids;
  chunks.push_back(Control(1, RDDP_SCTP_FC_INITIATE, {1, 2, 3}));
  ppids.push_back(RDDP_SCTP_PPID_CONTROL);
  for (uint16_t ssn = 2; ssn < 40; ssn++) {
    chunks.push_back(Segment(ssn, DdpHdr(ssn % 2 == 0), {static_cast<uint8_t>(ssn)}));
    ppids.push_back(RDDP_SCTP_PPID_SEGMENT);
  }
  chunks.push_back(Control(40, RDDP_SCTP_FC_TERMINATE, {}));
  ppids.push_back(RDDP_SCTP_PPID_CONTROL);

  std::vector<size_t> order(chunks.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::mt19937 rng(2960);
  std::shuffle(order.begin(), order.end(), rng);

  auto rx = std::make_unique<rddp_sctp_ssn_rx>();
  rddp_sctp_ssn_rx_init(rx.get());
  rddp_sctp_sess passive{};
  rddp_sctp_sess_init(&passive);
  std::vector<uint16_t> msgs(chunks.size() + 1);
  std::vector<uint16_t> seen;
  const auto deliver = [&](uint16_t ssn) {
    seen.push_back(ssn);
    ASSERT_EQ(rddp_sctp_sess_rx(&passive, msgs[ssn]), RDDP_SCTP_OK) << ssn;
    if (ssn == 1) {
      ASSERT_EQ(rddp_sctp_sess_tx(&passive, RDDP_SCTP_FC_ACCEPT), RDDP_SCTP_OK);
    }
  };
  for (size_t i : order) {
    rddp_sctp_chunk c{};
    ASSERT_EQ(Parse(ppids[i], chunks[i], &c), RDDP_SCTP_OK);
    msgs[c.ssn] = c.msg;
    const int r = rddp_sctp_ssn_rx_arrive(rx.get(), c.ssn);
    ASSERT_TRUE(r == RDDP_SCTP_OK || r == RDDP_SCTP_HELD);
    if (r != RDDP_SCTP_OK) continue;
    deliver(c.ssn);
    uint16_t s = 0;
    while (rddp_sctp_ssn_rx_pop(rx.get(), &s)) deliver(s);
  }
  ASSERT_EQ(seen.size(), chunks.size());
  for (size_t i = 0; i < seen.size(); i++) EXPECT_EQ(seen[i], i + 1);
  EXPECT_EQ(passive.rx, RDDP_SCTP_PHASE_CLOSED);
  EXPECT_EQ(passive.tx, RDDP_SCTP_PHASE_ACCEPTED);
}

}  // namespace
