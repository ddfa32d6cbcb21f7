// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// DDP (RFC 5041) and RDMAP (RFC 5040) headers, checks, segmentation and
// Terminate messages, and the error -> Terminate table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

extern "C" {
#include <rddp/mpa.h>
#include <rddp/rdmap.h>
}

namespace {

using Bytes = std::vector<uint8_t>;

Bytes Hdr(const rddp_hdr& h) {
  Bytes b(RDDP_DDP_UNTAGGED_HDR_LEN);
  b.resize(rddp_hdr_build(&h, b.data()));
  return b;
}

rddp_hdr Untagged(uint8_t opcode, uint32_t qn) {
  rddp_hdr h{};
  h.opcode = opcode;
  h.last = true;
  h.qn = qn;
  return h;
}

// RFC 5041 §4.2/§4.3 and RFC 5040 §4.2: exact octets.
TEST(Rdmap, TaggedWriteHeaderBytes) {
  rddp_hdr h{};
  h.opcode = RDDP_OP_WRITE;
  h.last = true;
  h.stag = 0x11223344;
  h.to = 0x0102030405060708ULL;
  EXPECT_EQ(Hdr(h), (Bytes{0xC1, 0x40, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Rdmap, UntaggedSendInvalidateHeaderBytes) {
  rddp_hdr h = Untagged(RDDP_OP_SEND_SE_INV, RDDP_QN_SEND);
  h.last = false;
  h.inval_stag = 0xAABBCCDD;
  h.msn = 7;
  h.mo = 0x1000;
  EXPECT_EQ(Hdr(h),
            (Bytes{0x01, 0x46, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0x10, 0}));
}

TEST(Rdmap, EveryOpcodeRoundTrips) {
  for (uint8_t op = 0; op < RDDP_OP_MAX; op++) {
    rddp_hdr h = Untagged(op, rddp_opcodes[op].qn);
    h.stag = 5;
    h.to = 99;
    h.msn = 3;
    const uint32_t payload = op == RDDP_OP_READ_REQ ? RDDP_RDMAP_RREQ_LEN : 4;
    Bytes b = Hdr(h);
    EXPECT_EQ(b.size(), rddp_opcodes[op].tagged ? 14u : 18u);
    rddp_hdr got{};
    ASSERT_EQ(rddp_hdr_parse(b.data(), static_cast<uint32_t>(b.size()), payload, &got),
              RDDP_ERR_NONE)
        << rddp_opcodes[op].name;
    EXPECT_EQ(got.opcode, op);
    EXPECT_EQ(got.tagged, rddp_opcodes[op].tagged);
    EXPECT_TRUE(got.last);
    if (got.tagged) {
      EXPECT_EQ(got.stag, 5u);
      EXPECT_EQ(got.to, 99u);
    } else {
      EXPECT_EQ(got.qn, rddp_opcodes[op].qn);
      EXPECT_EQ(got.msn, 3u);
    }
  }
}

// Each malformed header gives the error of RFC 5041 §7.2 / RFC 5040 §7.
struct BadHdr {
  const char* name;
  Bytes hdr;
  uint32_t payload;
  rddp_err err;
  uint8_t layer, etype, ecode;
};

class RdmapMalformed : public ::testing::TestWithParam<BadHdr> {};

TEST_P(RdmapMalformed, ErrorAndTerminateFields) {
  const BadHdr& c = GetParam();
  rddp_hdr h{};
  EXPECT_EQ(rddp_hdr_parse(c.hdr.data(), static_cast<uint32_t>(c.hdr.size()), c.payload, &h), c.err)
      << c.name;
  const rddp_err_info& e = rddp_errors[c.err];
  EXPECT_EQ(e.layer, c.layer) << c.name;
  EXPECT_EQ(e.etype, c.etype) << c.name;
  EXPECT_EQ(e.ecode, c.ecode) << c.name;
}

const Bytes kSend = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
const Bytes kWrite = {0xC1, 0x40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};

Bytes With(Bytes b, size_t i, uint8_t v) {
  b[i] = v;
  return b;
}

INSTANTIATE_TEST_SUITE_P(
    Rfc5040And5041, RdmapMalformed,
    ::testing::Values(
        BadHdr{"DDP version 2 untagged", With(kSend, 0, 0x42), 8, RDDP_ERR_DDP_U_VERSION, 1, 2,
               0x06},
        BadHdr{"DDP version 0 tagged", With(kWrite, 0, 0xC0), 8, RDDP_ERR_DDP_T_VERSION, 1, 1,
               0x04},
        BadHdr{"QN 3", With(kSend, 9, 3), 8, RDDP_ERR_DDP_U_QN, 1, 2, 0x01},
        BadHdr{"RDMAP version 2", With(kSend, 1, 0x83), 8, RDDP_ERR_RDMAP_O_VERSION, 0, 2, 0x05},
        BadHdr{"unknown opcode 8", With(kSend, 1, 0x48), 8, RDDP_ERR_RDMAP_O_OPCODE, 0, 2, 0x06},
        BadHdr{"unknown opcode 15", With(kWrite, 1, 0x4f), 8, RDDP_ERR_RDMAP_O_OPCODE, 0, 2, 0x06},
        BadHdr{"Send on the tagged model", With(kWrite, 1, 0x43), 8, RDDP_ERR_RDMAP_O_OPCODE, 0, 2,
               0x06},
        BadHdr{"Write on the untagged model", With(kSend, 1, 0x40), 8, RDDP_ERR_RDMAP_O_OPCODE, 0,
               2, 0x06},
        BadHdr{"Send on the Read Request queue", With(kSend, 9, 1), 8, RDDP_ERR_RDMAP_O_OPCODE, 0,
               2, 0x06},
        BadHdr{"Read Request of 27 octets", With(With(kSend, 1, 0x41), 9, 1), 27,
               RDDP_ERR_RDMAP_O_UNSPECIFIED, 0, 2, 0xff},
        BadHdr{"Read Request not last", With(With(With(kSend, 0, 0x01), 1, 0x41), 9, 1), 28,
               RDDP_ERR_RDMAP_O_UNSPECIFIED, 0, 2, 0xff},
        BadHdr{"Terminate of 3 octets", With(With(kSend, 1, 0x47), 9, 2), 3,
               RDDP_ERR_RDMAP_O_UNSPECIFIED, 0, 2, 0xff},
        BadHdr{"Terminate at MO 4", With(With(With(kSend, 1, 0x47), 9, 2), 17, 4), 8,
               RDDP_ERR_RDMAP_O_UNSPECIFIED, 0, 2, 0xff},
        BadHdr{"truncated untagged header", Bytes(kSend.begin(), kSend.begin() + 17), 0,
               RDDP_ERR_DDP_CATASTROPHIC, 1, 0, 0x00},
        BadHdr{"one octet", Bytes{0xC1}, 0, RDDP_ERR_DDP_CATASTROPHIC, 1, 0, 0x00}));

TEST(Rdmap, ReservedBitsNotChecked) {
  rddp_hdr h{};
  // DDP Rsvd (RFC 5041 §4.1) and RDMAP Rsvd bits set.
  Bytes b = With(With(kSend, 0, 0x41 | 0x3C), 1, 0x43 | 0x30);
  EXPECT_EQ(rddp_hdr_parse(b.data(), 18, 8, &h), RDDP_ERR_NONE);
  EXPECT_EQ(h.opcode, RDDP_OP_SEND);
}

TEST(Rdmap, UntaggedPlacementChecks) {
  rddp_hdr h = Untagged(RDDP_OP_SEND, 0);
  h.msn = 10;
  h.mo = 100;
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 10, 0, 4096), RDDP_ERR_DDP_U_NO_BUF);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 11, 4, 4096), RDDP_ERR_DDP_U_MSN_RANGE);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 7, 3, 4096), RDDP_ERR_DDP_U_MSN_RANGE);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 7, 4, 4096), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 10, 1, 99), RDDP_ERR_DDP_U_MO);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 10, 1, 149), RDDP_ERR_DDP_U_TOO_LONG);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 50, 10, 1, 150), RDDP_ERR_NONE);
  // MSN window across the 2^32 wrap (serial arithmetic).
  h.msn = 1;
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 0, 0xFFFFFFFEu, 4, 150), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 0, 0xFFFFFFFEu, 3, 150), RDDP_ERR_DDP_U_MSN_RANGE);
  h.mo = 0xFFFFFFFFu;
  EXPECT_EQ(rddp_ddp_check_untagged(&h, 0xFFFFFFFFu, 0xFFFFFFFEu, 4, 1ULL << 33), RDDP_ERR_NONE);
}

// RFC 5041 §5.4, §7.2 "invalid MO": a Send completes only over octets its
// segments placed (issue 26 item 4). In order (MPA over TCP): each MO is
// the octets placed so far.
TEST(Rdmap, CoverInOrder) {
  rddp_ddp_cover c;
  uint32_t len = 7;
  rddp_ddp_cover_init(&c);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 4096, 16, true, true, &len), RDDP_ERR_DDP_U_MO);
  EXPECT_EQ(len, 7u);  // untouched on error
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 16, false, true, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 32, 16, true, true, &len), RDDP_ERR_DDP_U_MO);  // a gap
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 16, false, true, &len), RDDP_ERR_DDP_U_MO);  // again
  EXPECT_EQ(rddp_ddp_cover_add(&c, 8, 16, false, true, &len), RDDP_ERR_DDP_U_MO);  // overlap
  EXPECT_EQ(rddp_ddp_cover_add(&c, 16, 0, false, true, &len), RDDP_ERR_NONE);      // empty
  EXPECT_EQ(rddp_ddp_cover_add(&c, 16, 100, false, true, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 116, 4, true, true, &len), RDDP_ERR_NONE);
  EXPECT_EQ(len, 120u);
  // A zero-length message; a last empty segment after a gap.
  rddp_ddp_cover_init(&c);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 0, true, true, &len), RDDP_ERR_NONE);
  EXPECT_EQ(len, 0u);
  rddp_ddp_cover_init(&c);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 5, 0, true, true, &len), RDDP_ERR_DDP_U_MO);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0xFFFFFFF0u, 0x20, true, false, &len), RDDP_ERR_DDP_U_TOO_LONG);
}

// Any MO order (DDP over SCTP): duplicates and overlaps are placed again,
// the last segment must leave [0, highest end) whole.
TEST(Rdmap, CoverAnyOrder) {
  rddp_ddp_cover c;
  uint32_t len = 0;
  rddp_ddp_cover_init(&c);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 4096, 16, true, false, &len), RDDP_ERR_DDP_U_MO);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 16, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 32, 16, true, false, &len), RDDP_ERR_DDP_U_MO);
  // backwards, with a duplicate and an overlap, then the last segment
  rddp_ddp_cover_init(&c);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 32, 16, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 32, 16, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 10, 30, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(c.nr, 1u);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 10, true, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(len, 48u);
  // A last empty segment beyond what is placed leaves a gap.
  rddp_ddp_cover_init(&c);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 16, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 32, 0, true, false, &len), RDDP_ERR_DDP_U_MO);
  // Bounded: RDDP_DDP_COVER_RUNS disjoint runs, not one more.
  rddp_ddp_cover_init(&c);
  for (uint32_t i = 0; i < RDDP_DDP_COVER_RUNS; i++)
    EXPECT_EQ(rddp_ddp_cover_add(&c, 100 * (i + 1), 10, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 5000, 10, false, false, &len), RDDP_ERR_DDP_U_MO);
  EXPECT_EQ(c.nr, static_cast<uint32_t>(RDDP_DDP_COVER_RUNS));
  // ... but one that merges runs is still taken.
  EXPECT_EQ(rddp_ddp_cover_add(&c, 0, 1000, false, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(c.nr, 1u);
  EXPECT_EQ(rddp_ddp_cover_add(&c, 1000, 0, true, false, &len), RDDP_ERR_NONE);
  EXPECT_EQ(len, 1000u);
}

// Against a model: an octet map of a 256-octet message.
TEST(Rdmap, CoverMatchesModel) {
  std::mt19937 rng(26);
  for (int round = 0; round < 20000; round++) {
    rddp_ddp_cover c;
    rddp_ddp_cover_init(&c);
    std::vector<bool> placed(256, false);
    int nseg = 1 + static_cast<int>(rng() % 10);
    for (int k = 0; k < nseg; k++) {
      uint32_t mo = rng() % 256;
      uint32_t len = rng() % (257 - mo);
      bool last = k == nseg - 1;
      uint32_t got = 0;
      rddp_err err = rddp_ddp_cover_add(&c, mo, len, last, false, &got);
      std::vector<bool> next = placed;
      for (uint32_t o = mo; o < mo + len; o++) next[o] = true;
      size_t runs = 0;
      for (size_t o = 0; o < 256; o++) runs += next[o] && (o == 0 || !next[o - 1]);
      if (runs > RDDP_DDP_COVER_RUNS) {
        ASSERT_EQ(err, RDDP_ERR_DDP_U_MO);
        break;
      }
      if (!last) {
        ASSERT_EQ(err, RDDP_ERR_NONE);
        placed = next;
        continue;
      }
      uint32_t end = mo + len;
      for (uint32_t o = 0; o < 256; o++)
        if (next[o]) end = std::max(end, o + 1);
      bool whole = true;
      for (uint32_t o = 0; o < end; o++) whole = whole && next[o];
      ASSERT_EQ(err, whole ? RDDP_ERR_NONE : RDDP_ERR_DDP_U_MO) << "round " << round;
      if (whole) {
        ASSERT_EQ(got, end);
      }
    }
  }
}

TEST(Rdmap, TaggedBoundsChecks) {
  EXPECT_EQ(rddp_ddp_check_tagged(0x1000, 0x100, 0x1000, 0x100, false), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_check_tagged(0x1000, 0x101, 0x1000, 0x100, false), RDDP_ERR_DDP_T_BASE_BOUNDS);
  EXPECT_EQ(rddp_ddp_check_tagged(0xFFF, 1, 0x1000, 0x100, false), RDDP_ERR_DDP_T_BASE_BOUNDS);
  EXPECT_EQ(rddp_ddp_check_tagged(0x1100, 0, 0x1000, 0x100, false), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_ddp_check_tagged(0x1101, 0, 0x1000, 0x100, false), RDDP_ERR_DDP_T_BASE_BOUNDS);
  EXPECT_EQ(rddp_ddp_check_tagged(~0ULL - 3, 8, 0, ~0ULL, false), RDDP_ERR_DDP_T_TO_WRAP);
  EXPECT_EQ(rddp_ddp_check_tagged(~0ULL - 3, 8, 0, ~0ULL, true), RDDP_ERR_RDMAP_P_TO_WRAP);
  EXPECT_EQ(rddp_ddp_check_tagged(0, 1, 1, 8, true), RDDP_ERR_RDMAP_P_BASE_BOUNDS);
}

// RFC 5041 §5.1: segments fill MULPDU; a zero-length message is one segment.
TEST(Rdmap, Segmentation) {
  EXPECT_EQ(rddp_ddp_seg_len(0, 0, 1000, 18), 0u);
  EXPECT_EQ(rddp_ddp_seg_len(5000, 0, 1000, 18), 982u);
  EXPECT_EQ(rddp_ddp_seg_len(5000, 4910, 1000, 14), 90u);
  EXPECT_EQ(rddp_ddp_seg_len(5000, 6000, 1000, 14), 0u);
  EXPECT_EQ(rddp_ddp_seg_len(5000, 0, 10, 14), 0u);
  std::mt19937 rng(5041);
  for (int i = 0; i < 1000; i++) {
    const uint32_t len = rng() % 200000, mulpdu = 128 + rng() % 9000, hdr = rng() % 2 ? 14 : 18;
    uint32_t off = 0, segs = 0;
    do {
      const uint32_t n = rddp_ddp_seg_len(len, off, mulpdu, hdr);
      ASSERT_LE(n + hdr, mulpdu);
      off += n;
      segs++;
      ASSERT_TRUE(n > 0 || len == 0);
    } while (off < len);
    EXPECT_EQ(off, len);
    EXPECT_EQ(segs, len ? (len + mulpdu - hdr - 1) / (mulpdu - hdr) : 1u);
  }
}

TEST(Rdmap, ReadRequestRoundTrip) {
  rddp_read_req r{0x01020304, 0x1122334455667788ULL, 0x10000, 0x0A0B0C0D, 42};
  uint8_t b[RDDP_RDMAP_RREQ_LEN];
  rddp_read_req_build(&r, b);
  EXPECT_EQ(b[0], 0x01);
  EXPECT_EQ(b[4], 0x11);
  EXPECT_EQ(b[13], 0x01);  // size 0x10000, big-endian
  EXPECT_EQ(b[15], 0x00);
  rddp_read_req got{};
  rddp_read_req_parse(b, &got);
  EXPECT_EQ(got.sink_stag, r.sink_stag);
  EXPECT_EQ(got.sink_to, r.sink_to);
  EXPECT_EQ(got.size, r.size);
  EXPECT_EQ(got.src_stag, r.src_stag);
  EXPECT_EQ(got.src_to, r.src_to);
}

// One table: every error has distinct Terminate fields, and a Terminate
// built for it parses back to it (RFC 5040 §4.8).
TEST(Rdmap, EveryErrorTerminateRoundTrip) {
  std::set<std::tuple<int, int, int>> seen;
  uint8_t rreq[RDDP_RDMAP_RREQ_LEN];
  for (int i = 0; i < RDDP_RDMAP_RREQ_LEN; i++) rreq[i] = static_cast<uint8_t>(i);
  for (int e = RDDP_ERR_NONE + 1; e < RDDP_ERR_MAX; e++) {
    const rddp_err_info& info = rddp_errors[e];
    ASSERT_NE(info.name, nullptr);
    EXPECT_TRUE(seen.insert({info.layer, info.etype, info.ecode}).second) << info.name;
    for (const Bytes* bad : {&kSend, &kWrite}) {
      uint8_t buf[RDDP_TERM_MAX_LEN];
      const bool with_rreq = e == RDDP_ERR_RDMAP_P_INVALID_STAG;
      const uint32_t n =
          rddp_term_build(static_cast<rddp_err>(e), bad->data(), static_cast<uint32_t>(bad->size()),
                          1234, with_rreq ? rreq : nullptr, buf);
      rddp_term t{};
      ASSERT_EQ(rddp_term_parse(buf, n, &t), RDDP_ERR_NONE) << info.name;
      EXPECT_EQ(rddp_term_to_err(&t), e) << info.name;
      EXPECT_EQ(t.d, info.ddp_hdr);
      EXPECT_EQ(t.m, info.ddp_hdr);
      EXPECT_EQ(t.r, with_rreq);
      if (info.ddp_hdr) {
        EXPECT_EQ(t.seg_len, 1234);
        EXPECT_EQ(Bytes(t.ddp_hdr, t.ddp_hdr + t.ddp_hdr_len), *bad);
      }
      if (with_rreq) {
        EXPECT_EQ(Bytes(t.rdmap_hdr, t.rdmap_hdr + 28), Bytes(rreq, rreq + 28));
      }
      EXPECT_EQ(n, 4u + (info.ddp_hdr ? 2 + bad->size() : 0) + (with_rreq ? 28 : 0));
    }
  }
}

TEST(Rdmap, TerminateControlBytes) {
  uint8_t buf[RDDP_TERM_MAX_LEN];
  // DDP untagged "invalid MSN - no buffer": layer 1, type 2, code 2, M+D.
  ASSERT_EQ(rddp_term_build(RDDP_ERR_DDP_U_NO_BUF, kSend.data(), 18, 26, nullptr, buf), 24u);
  EXPECT_EQ(Bytes(buf, buf + 6), (Bytes{0x12, 0x02, 0xC0, 0x00, 0x00, 26}));
  // LLP CRC error: layer 2, type 0, code 2, no headers.
  ASSERT_EQ(rddp_term_build(RDDP_ERR_LLP_CRC, kSend.data(), 18, 26, nullptr, buf), 4u);
  EXPECT_EQ(Bytes(buf, buf + 4), (Bytes{0x20, 0x02, 0x00, 0x00}));
}

TEST(Rdmap, MalformedTerminate) {
  rddp_term t{};
  const Bytes cases[] = {
      {0x12, 0x02, 0x00},                                // shorter than the control
      {0x32, 0x02, 0x00, 0x00},                          // layer 3
      {0x12, 0x02, 0x80, 0x00, 0x00},                    // M without the length
      {0x12, 0x02, 0x40, 0x00, 0x00, 0x10},              // D without a header
      {0x12, 0x02, 0x40, 0x00, 0x00, 0x10, 0x41, 0x43},  // D, header cut
      {0x02, 0x00, 0x20, 0x00, 1, 2, 3},                 // R, Read Request cut
  };
  for (const Bytes& c : cases) {
    EXPECT_EQ(rddp_term_parse(c.data(), static_cast<uint32_t>(c.size()), &t),
              RDDP_ERR_RDMAP_O_UNSPECIFIED);
  }
  const Bytes unknown = {0x02, 0x77, 0x00, 0x00};
  ASSERT_EQ(rddp_term_parse(unknown.data(), 4, &t), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_term_to_err(&t), RDDP_ERR_MAX);
}

// Deframer errors map onto the table (RFC 5044 §8).
TEST(Rdmap, DeframerErrorsToTerminate) {
  EXPECT_EQ(rddp_mpa_rx_err(RDDP_MPA_OK), RDDP_ERR_NONE);
  EXPECT_EQ(rddp_mpa_rx_err(RDDP_MPA_ERR_CRC), RDDP_ERR_LLP_CRC);
  EXPECT_EQ(rddp_errors[RDDP_ERR_LLP_CRC].layer, RDDP_TERM_LAYER_LLP);
  EXPECT_EQ(rddp_errors[RDDP_ERR_LLP_CRC].ecode, 0x02);
  EXPECT_EQ(rddp_mpa_rx_err(RDDP_MPA_ERR_MARKER), RDDP_ERR_LLP_MARKER);
  EXPECT_EQ(rddp_errors[RDDP_ERR_LLP_MARKER].ecode, 0x03);
  for (int e : {RDDP_MPA_ERR_ULPDU_ZERO, RDDP_MPA_ERR_ULPDU_LONG, RDDP_MPA_ERR_ULPDU_SHORT,
                RDDP_MPA_ERR_ABORTED})
    EXPECT_EQ(rddp_mpa_rx_err(e), RDDP_ERR_DDP_CATASTROPHIC) << rddp_mpa_err_names[e];
}

}  // namespace
