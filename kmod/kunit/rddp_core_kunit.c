// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the rddp protocol core: RFC 3720 §B.4 CRC32c vectors,
 * RFC 5044 Figures 5 and 6 built and parsed back, chunked parsing and
 * malformed FPDUs, MPA Request/Reply frames (RFC 5044 §7.1, RFC 6581),
 * DDP/RDMAP header validation and Terminate messages (RFC 5040, 5041).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <rddp/crc32c.h>
#include <rddp/mpa.h>
#include <rddp/mpa_frame.h>
#include <rddp/rdmap.h>
#include <rddp/sctp.h>

static u32 crc_of(const u8 *p, size_t len)
{
	return ~rddp_crc32c(~0U, p, len);
}

static void rddp_crc_vectors(struct kunit *test)
{
	u8 buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, crc_of(buf, 32), 0x8a9136aaU);
	memset(buf, 0xff, sizeof(buf));
	KUNIT_EXPECT_EQ(test, crc_of(buf, 32), 0x62a8ab43U);
	for (i = 0; i < 32; i++)
		buf[i] = i;
	KUNIT_EXPECT_EQ(test, crc_of(buf, 32), 0x46dd794eU);
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	KUNIT_EXPECT_EQ(test, crc_of(buf, 32), 0x113fdb5cU);
}

static const u8 send_hdr1[18] = { 0x41, 0x43, [13] = 1 };
static const u8 send_hdr2[18] = { 0x41, 0x43, [13] = 2 };
static const u8 zeros[24];

/* Flatten the gather list; returns the length. */
static u32 flatten(const struct rddp_fpdu *f, u8 *out)
{
	u32 i, n = 0;

	for (i = 0; i < f->nr_spans; i++) {
		memcpy(out + n, f->span[i].base, f->span[i].len);
		n += f->span[i].len;
	}
	return n;
}

struct sink {
	u32 done;
	u32 pay;
	u8 msn;
};

static int on_hdr(void *ctx, const u8 *h, u32 len, u32 pay)
{
	((struct sink *)ctx)->msn = h[13];
	return 0;
}

static int on_pay(void *ctx, const u8 *d, u32 len)
{
	((struct sink *)ctx)->pay += len;
	return 0;
}

static int on_done(void *ctx)
{
	((struct sink *)ctx)->done++;
	return 0;
}

static const struct rddp_mpa_rx_ops sink_ops = {
	.header = on_hdr, .payload = on_pay, .fpdu_done = on_done,
};

static void rddp_fpdu_figures(struct kunit *test)
{
	static const u8 fig5_head[20] = { 0, 0, 0, 0, 0, 0x2a, 0x41, 0x43,
					  [19] = 1 };
	static const u8 fig6_head[24] = { 0, 0x2a, 0x41, 0x43, [15] = 2,
					  [23] = 0x14 };
	static const u8 crc5[4] = { 0x52, 0x23, 0x99, 0x83 };
	static const u8 crc6[4] = { 0x84, 0x92, 0x58, 0x98 };
	struct rddp_mpa_tx tx = { .markers = true, .crc = true };
	struct rddp_mpa_rx rx;
	struct sink s = {};
	struct rddp_fpdu *f;
	u8 wire[64];
	u32 n, i;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);

	KUNIT_ASSERT_EQ(test, rddp_fpdu_build(&tx, f, send_hdr1, 18, zeros,
					      24), 0);
	n = flatten(f, wire);
	KUNIT_ASSERT_EQ(test, n, 0x34U);
	KUNIT_EXPECT_EQ(test, memcmp(wire, fig5_head, 20), 0);
	KUNIT_EXPECT_EQ(test, memcmp(wire + 0x30, crc5, 4), 0);

	/* parse Figure 5 back one octet at a time */
	rddp_mpa_rx_init(&rx, true, true, 65535);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rddp_mpa_rx_feed(&rx, wire + i, 1,
						       &sink_ops, &s), 0);
	KUNIT_EXPECT_EQ(test, s.done, 1U);
	KUNIT_EXPECT_EQ(test, s.pay, 24U);
	KUNIT_EXPECT_EQ(test, s.msn, 1);

	tx.pos = 0x1ec;
	KUNIT_ASSERT_EQ(test, rddp_fpdu_build(&tx, f, send_hdr2, 18, zeros,
					      24), 0);
	n = flatten(f, wire);
	KUNIT_ASSERT_EQ(test, n, 0x34U);
	KUNIT_EXPECT_EQ(test, memcmp(wire, fig6_head, 24), 0);
	KUNIT_EXPECT_EQ(test, memcmp(wire + 0x30, crc6, 4), 0);

	rddp_mpa_rx_init(&rx, true, true, 65535);
	rx.pos = 0x1ec;
	KUNIT_EXPECT_EQ(test, rddp_mpa_rx_feed(&rx, wire, 7, &sink_ops, &s),
			0);
	KUNIT_EXPECT_EQ(test, rddp_mpa_rx_feed(&rx, wire + 7, n - 7,
					       &sink_ops, &s), 0);
	KUNIT_EXPECT_EQ(test, s.done, 2U);
	KUNIT_EXPECT_EQ(test, s.msn, 2);
}

static void rddp_fpdu_malformed(struct kunit *test)
{
	struct rddp_mpa_tx tx = { .markers = false, .crc = true };
	struct rddp_mpa_rx rx;
	struct sink s = {};
	struct rddp_fpdu *f;
	u8 wire[64];
	u32 n;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, rddp_fpdu_build(&tx, f, send_hdr1, 18, zeros,
					      24), 0);
	n = flatten(f, wire);

	wire[n - 1] ^= 1;
	rddp_mpa_rx_init(&rx, false, true, 65535);
	KUNIT_EXPECT_EQ(test, rddp_mpa_rx_feed(&rx, wire, n, &sink_ops, &s),
			(int)RDDP_MPA_ERR_CRC);
	wire[n - 1] ^= 1;

	wire[1] = 0;
	rddp_mpa_rx_init(&rx, false, true, 65535);
	KUNIT_EXPECT_EQ(test, rddp_mpa_rx_feed(&rx, wire, n, &sink_ops, &s),
			(int)RDDP_MPA_ERR_ULPDU_ZERO);

	wire[1] = 0x2a;
	rddp_mpa_rx_init(&rx, false, true, 41);
	KUNIT_EXPECT_EQ(test, rddp_mpa_rx_feed(&rx, wire, n, &sink_ops, &s),
			(int)RDDP_MPA_ERR_ULPDU_LONG);
	KUNIT_EXPECT_EQ(test, s.done, 0U);
}

/* RFC 6581 §9.1.1 enhanced Request, built then parsed a byte at a time. */
static void rddp_mpa_frame_roundtrip(struct kunit *test)
{
	static const u8 pd[3] = { 1, 2, 3 };
	struct rddp_mpa_frame f = {
		.type = RDDP_MPA_REQUEST, .rev = 2, .crc = true,
		.enhanced = true, .p2p = true, .rtr = RDDP_MPA_RTR_WRITE,
		.ird = 16, .ord = 8, .pd = pd, .pd_len = sizeof(pd),
	};
	struct rddp_mpa_frame_rx *rx;
	struct rddp_mpa_frame got;
	u32 i, used;
	int n, ret = RDDP_MPA_FRAME_MORE;
	u8 *wire;

	rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	wire = kunit_kzalloc(test, RDDP_MPA_FRAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	n = rddp_mpa_frame_build(&f, wire, RDDP_MPA_FRAME_MAX);
	KUNIT_ASSERT_EQ(test, n, 27);
	KUNIT_EXPECT_EQ(test, wire[16], 0x50);	/* C + enhanced */
	KUNIT_EXPECT_EQ(test, wire[20], 0x80);	/* A */
	KUNIT_EXPECT_EQ(test, wire[22], 0x80);	/* C: zero-length Write RTR */

	rddp_mpa_frame_rx_init(rx, RDDP_MPA_REQUEST, 2);
	for (i = 0; i < n && ret == RDDP_MPA_FRAME_MORE; i++)
		ret = rddp_mpa_frame_rx_feed(rx, wire + i, 1, &used, &got);
	KUNIT_ASSERT_EQ(test, ret, (int)RDDP_MPA_FRAME_OK);
	KUNIT_EXPECT_EQ(test, i, (u32)n);
	KUNIT_EXPECT_TRUE(test, got.p2p && got.crc && !got.markers);
	KUNIT_EXPECT_EQ(test, got.rtr, RDDP_MPA_RTR_WRITE);
	KUNIT_EXPECT_EQ(test, got.ird, 16);
	KUNIT_EXPECT_EQ(test, got.ord, 8);
	KUNIT_ASSERT_EQ(test, got.pd_len, 3);
	KUNIT_EXPECT_EQ(test, memcmp(got.pd, pd, 3), 0);

	/* A Reply key where a Request is due: RFC 5044 §7.1.2 rule 8 */
	wire[9] = 'p';
	rddp_mpa_frame_rx_init(rx, RDDP_MPA_REQUEST, 2);
	KUNIT_EXPECT_EQ(test, rddp_mpa_frame_rx_feed(rx, wire, n, &used, &got),
			(int)RDDP_MPA_FRAME_ERR_UNEXPECTED);
	wire[9] = 'q';
	wire[18] = 0x02;	/* PD_Length 0x207 > 512 */
	rddp_mpa_frame_rx_init(rx, RDDP_MPA_REQUEST, 2);
	KUNIT_EXPECT_EQ(test, rddp_mpa_frame_rx_feed(rx, wire, n, &used, &got),
			(int)RDDP_MPA_FRAME_ERR_PD_LEN);
	KUNIT_EXPECT_EQ(test, used, 20U);
}

/* RFC 5041 §7.2 / RFC 5040 §4.8: a bad QN becomes a DDP Terminate. */
static void rddp_rdmap_terminate(struct kunit *test)
{
	struct rddp_hdr h = {
		.opcode = RDDP_OP_SEND, .last = true, .qn = RDDP_QN_SEND,
		.msn = 1,
	};
	u8 hdr[RDDP_DDP_UNTAGGED_HDR_LEN], term[RDDP_TERM_MAX_LEN];
	struct rddp_hdr got;
	struct rddp_term t;
	u32 n;

	KUNIT_ASSERT_EQ(test, rddp_hdr_build(&h, hdr), 18U);
	KUNIT_EXPECT_EQ(test, rddp_hdr_parse(hdr, 18, 8, &got), RDDP_ERR_NONE);
	hdr[9] = 5;	/* QN 5 */
	KUNIT_EXPECT_EQ(test, rddp_hdr_parse(hdr, 18, 8, &got),
			RDDP_ERR_DDP_U_QN);
	n = rddp_term_build(RDDP_ERR_DDP_U_QN, hdr, 18, 26, NULL, term);
	KUNIT_ASSERT_EQ(test, n, 24U);
	KUNIT_EXPECT_EQ(test, term[0], 0x12);	/* layer DDP, untagged */
	KUNIT_EXPECT_EQ(test, term[1], 0x01);	/* invalid QN */
	KUNIT_EXPECT_EQ(test, rddp_term_parse(term, n, &t), RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, rddp_term_to_err(&t), RDDP_ERR_DDP_U_QN);
	KUNIT_EXPECT_EQ(test, memcmp(t.ddp_hdr, hdr, 18), 0);
	KUNIT_EXPECT_EQ(test, rddp_ddp_check_tagged(~0ULL, 2, 0, ~0ULL, false),
			RDDP_ERR_DDP_T_TO_WRAP);
}

/*
 * RFC 5041 §5.4, §7.2 "invalid MO": a Send completes only over octets its
 * segments placed. In MO order (MPA): a lone last segment at MO 4096 and a
 * gap are refused; in any order (SCTP) a backwards message is whole.
 */
static void rddp_rdmap_cover(struct kunit *test)
{
	struct rddp_ddp_cover c;
	u32 len = 0;

	rddp_ddp_cover_init(&c);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 4096, 16, true, true,
						 &len), RDDP_ERR_DDP_U_MO);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 0, 16, false, true, &len),
			RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 32, 16, true, true, &len),
			RDDP_ERR_DDP_U_MO);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 16, 16, true, true, &len),
			RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, len, 32U);

	rddp_ddp_cover_init(&c);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 32, 16, false, false,
						 &len), RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 0, 16, true, false, &len),
			RDDP_ERR_DDP_U_MO);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 16, 16, false, false,
						 &len), RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, rddp_ddp_cover_add(&c, 0, 16, true, false, &len),
			RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, len, 48U);
}

/*
 * draft-ietf-rddp-sctp-00 §2.2.2/§2.2.3: a Session Initiate and a DDP
 * Segment built and parsed back; a Terminate with private data refused.
 */
static void rddp_sctp_chunks(struct kunit *test)
{
	static const u8 pd[2] = { 0xaa, 0xbb };
	struct rddp_hdr h = { .opcode = RDDP_OP_WRITE, .last = true,
			      .stag = 0x11223344 };
	u8 hdr[RDDP_DDP_UNTAGGED_HDR_LEN], wire[RDDP_SCTP_SEG_PREFIX_MAX + 4];
	struct rddp_sctp_chunk c;
	struct rddp_hdr got;
	int n;

	n = rddp_sctp_ctrl_build(0x0102, RDDP_SCTP_FC_INITIATE, pd, 2, wire,
				 sizeof(wire));
	KUNIT_ASSERT_EQ(test, n, 6);
	KUNIT_EXPECT_EQ(test, wire[0], 0x01);
	KUNIT_EXPECT_EQ(test, wire[3], 0x02);	/* function code 0x002 */
	KUNIT_ASSERT_EQ(test, rddp_sctp_chunk_parse(RDDP_SCTP_PPID_CONTROL,
						    wire, n, &c), RDDP_SCTP_OK);
	KUNIT_EXPECT_EQ(test, c.ssn, 0x0102);
	KUNIT_EXPECT_EQ(test, c.msg, RDDP_SCTP_FC_INITIATE);
	KUNIT_EXPECT_EQ(test, c.pd_len, 2U);
	KUNIT_EXPECT_PTR_EQ(test, c.pd, (const u8 *)wire + 4);

	n = rddp_sctp_ctrl_build(7, RDDP_SCTP_FC_TERMINATE, NULL, 0, wire,
				 sizeof(wire));
	KUNIT_ASSERT_EQ(test, n, 4);
	wire[4] = 0;
	KUNIT_EXPECT_EQ(test, rddp_sctp_chunk_parse(RDDP_SCTP_PPID_CONTROL,
						    wire, 5, &c),
			RDDP_SCTP_ERR_TERM_PD);
	wire[3] = 5;
	KUNIT_EXPECT_EQ(test, rddp_sctp_chunk_parse(RDDP_SCTP_PPID_CONTROL,
						    wire, 4, &c),
			RDDP_SCTP_ERR_FUNC);

	KUNIT_ASSERT_EQ(test, rddp_hdr_build(&h, hdr), 14U);
	n = rddp_sctp_seg_build(0xffff, hdr, 14, 4, wire);
	KUNIT_ASSERT_EQ(test, n, 16);
	memset(wire + n, 0x5a, 4);
	KUNIT_ASSERT_EQ(test, rddp_sctp_chunk_parse(RDDP_SCTP_PPID_SEGMENT,
						    wire, n + 4, &c),
			RDDP_SCTP_OK);
	KUNIT_EXPECT_EQ(test, c.ssn, 0xffff);
	KUNIT_EXPECT_EQ(test, c.hdr_len, 14);
	KUNIT_EXPECT_EQ(test, c.ddp_len, 18U);
	KUNIT_EXPECT_EQ(test, rddp_hdr_parse(c.ddp, c.hdr_len,
					     c.ddp_len - c.hdr_len, &got),
			RDDP_ERR_NONE);
	KUNIT_EXPECT_EQ(test, got.stag, 0x11223344U);
	KUNIT_EXPECT_EQ(test, rddp_sctp_chunk_parse(RDDP_SCTP_PPID_SEGMENT,
						    wire, 15, &c),
			RDDP_SCTP_ERR_SEG_SHORT);
	KUNIT_EXPECT_EQ(test, rddp_sctp_chunk_parse(3, wire, n, &c),
			RDDP_SCTP_ERR_PPID);
}

/*
 * rddp's IRD/ORD prefix in an Initiate's private data (wire-sctp.md, after
 * RFC 6581 §9.1), carried by a Session Control chunk and parsed back; a
 * reserved bit refused; none at all, rddp's defaults.
 */
static void rddp_sctp_conn_prefix(struct kunit *test)
{
	static const u8 ulp[3] = { 1, 2, 3 };
	u8 pd[RDDP_SCTP_IRD_ORD_LEN + sizeof(ulp)];
	u8 wire[RDDP_SCTP_CTRL_HDR_LEN + sizeof(pd)];
	struct rddp_sctp_chunk c;
	struct rddp_sctp_conn conn;
	int n;

	n = rddp_sctp_conn_build(8, 4, ulp, sizeof(ulp), pd, sizeof(pd));
	KUNIT_ASSERT_EQ(test, n, 7);
	n = rddp_sctp_ctrl_build(1, RDDP_SCTP_FC_INITIATE, pd, n, wire,
				 sizeof(wire));
	KUNIT_ASSERT_EQ(test, n, 11);
	KUNIT_ASSERT_EQ(test, rddp_sctp_chunk_parse(RDDP_SCTP_PPID_CONTROL,
						    wire, n, &c), RDDP_SCTP_OK);
	KUNIT_ASSERT_EQ(test, rddp_sctp_conn_parse(c.pd, c.pd_len, &conn),
			RDDP_SCTP_OK);
	KUNIT_EXPECT_EQ(test, conn.ird, 8);
	KUNIT_EXPECT_EQ(test, conn.ord, 4);
	KUNIT_EXPECT_EQ(test, conn.ulp_len, 3U);
	KUNIT_EXPECT_EQ(test, memcmp(conn.ulp, ulp, sizeof(ulp)), 0);
	pd[2] |= 0x40;
	KUNIT_EXPECT_EQ(test, rddp_sctp_conn_parse(pd, sizeof(pd), &conn),
			RDDP_SCTP_ERR_CONN_RSVD);
	KUNIT_EXPECT_EQ(test, rddp_sctp_conn_parse(pd, 3, &conn),
			RDDP_SCTP_ERR_CONN_SHORT);
	/* §2.2.3: zero-length private data: rddp's defaults, 1 and 1 */
	KUNIT_ASSERT_EQ(test, rddp_sctp_conn_parse(NULL, 0, &conn),
			RDDP_SCTP_OK);
	KUNIT_EXPECT_EQ(test, conn.ird, RDDP_SCTP_IRD_ORD_DEFAULT);
	KUNIT_EXPECT_EQ(test, conn.ord, RDDP_SCTP_IRD_ORD_DEFAULT);
	KUNIT_EXPECT_EQ(test, conn.ulp_len, 0U);
}

/*
 * draft-ietf-rddp-sctp-00 §2.2.1/§7: DDP-SSNs 65534, 0, 65535 arrive out
 * of order across the wrap and are delivered 65534, 65535, 0; the edges of
 * the 32767-chunk window.
 */
static void rddp_sctp_ssn_window(struct kunit *test)
{
	struct rddp_sctp_ssn_rx *rx;
	u16 ssn;

	rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rx);
	rddp_sctp_ssn_rx_init(rx);
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 0),
			RDDP_SCTP_ERR_SSN_OLD);
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 32767),
			RDDP_SCTP_HELD);
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 32768),
			RDDP_SCTP_ERR_SSN_BEYOND);
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 32767),
			RDDP_SCTP_ERR_SSN_DUP);

	rddp_sctp_ssn_rx_init(rx);
	rx->next = 65534;
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 0), RDDP_SCTP_HELD);
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 65535),
			RDDP_SCTP_HELD);
	KUNIT_EXPECT_FALSE(test, rddp_sctp_ssn_rx_pop(rx, &ssn));
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 65534), RDDP_SCTP_OK);
	KUNIT_ASSERT_TRUE(test, rddp_sctp_ssn_rx_pop(rx, &ssn));
	KUNIT_EXPECT_EQ(test, ssn, 65535);
	KUNIT_ASSERT_TRUE(test, rddp_sctp_ssn_rx_pop(rx, &ssn));
	KUNIT_EXPECT_EQ(test, ssn, 0);
	KUNIT_EXPECT_FALSE(test, rddp_sctp_ssn_rx_pop(rx, &ssn));
	KUNIT_EXPECT_EQ(test, rx->next, 1);
	KUNIT_EXPECT_EQ(test, rx->nr_held, 0);
	KUNIT_EXPECT_EQ(test, rddp_sctp_ssn_rx_arrive(rx, 65535),
			RDDP_SCTP_ERR_SSN_OLD);
}

/*
 * draft-ietf-rddp-sctp-00 §3.2 then §3.4, seen from the passive side: each
 * message we receive (rx) or send (tx) and what the sequence check says.
 */
static void rddp_sctp_session(struct kunit *test)
{
	static const struct {
		bool restart;
		bool tx;
		u16 msg;
		enum rddp_sctp_err want;
	} steps[] = {
		{ true, false, RDDP_SCTP_MSG_SEGMENT, RDDP_SCTP_ERR_SEQ_SEGMENT },
		{ false, false, RDDP_SCTP_FC_NEGOTIATE, RDDP_SCTP_OK },
		{ false, false, RDDP_SCTP_FC_INITIATE, RDDP_SCTP_OK },
		{ false, true, RDDP_SCTP_FC_ACCEPT, RDDP_SCTP_OK },
		{ false, false, RDDP_SCTP_MSG_SEGMENT, RDDP_SCTP_OK },
		{ false, false, RDDP_SCTP_FC_TERMINATE, RDDP_SCTP_OK },
		{ false, false, RDDP_SCTP_MSG_SEGMENT, RDDP_SCTP_ERR_SEQ_CLOSED },
		/* §3.4: a Terminate rejects the peer's Initiate */
		{ true, true, RDDP_SCTP_FC_TERMINATE,
		  RDDP_SCTP_ERR_SEQ_TERMINATE },
		{ false, false, RDDP_SCTP_FC_INITIATE, RDDP_SCTP_OK },
		{ false, true, RDDP_SCTP_FC_TERMINATE, RDDP_SCTP_OK },
		{ false, true, RDDP_SCTP_FC_ACCEPT, RDDP_SCTP_ERR_SEQ_CLOSED },
	};
	struct rddp_sctp_sess s;
	enum rddp_sctp_err got;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (steps[i].restart)
			rddp_sctp_sess_init(&s);
		got = steps[i].tx ? rddp_sctp_sess_tx(&s, steps[i].msg) :
				    rddp_sctp_sess_rx(&s, steps[i].msg);
		KUNIT_EXPECT_EQ_MSG(test, got, steps[i].want, "step %u", i);
	}
	KUNIT_EXPECT_EQ(test, rddp_sctp_to_err(RDDP_SCTP_ERR_SEQ_CLOSED),
			RDDP_ERR_DDP_CATASTROPHIC);
}

static struct kunit_case rddp_core_cases[] = {
	KUNIT_CASE(rddp_crc_vectors),
	KUNIT_CASE(rddp_fpdu_figures),
	KUNIT_CASE(rddp_fpdu_malformed),
	KUNIT_CASE(rddp_mpa_frame_roundtrip),
	KUNIT_CASE(rddp_rdmap_terminate),
	KUNIT_CASE(rddp_rdmap_cover),
	KUNIT_CASE(rddp_sctp_chunks),
	KUNIT_CASE(rddp_sctp_conn_prefix),
	KUNIT_CASE(rddp_sctp_ssn_window),
	KUNIT_CASE(rddp_sctp_session),
	{}
};

static struct kunit_suite rddp_core_suite = {
	.name = "rddp_core",
	.test_cases = rddp_core_cases,
};

kunit_test_suites(&rddp_core_suite);
