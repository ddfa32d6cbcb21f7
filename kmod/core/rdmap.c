// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040) headers, validation, segmentation and
 * Terminate messages. See include/rddp/rdmap.h.
 */
#include <rddp/mpa.h>
#include <rddp/rdmap.h>
#include <rddp/wire.h>

#define RDDP_CTRL_T		0x8000
#define RDDP_CTRL_L		0x4000
#define RDDP_CTRL_DV_SHIFT	8
#define RDDP_CTRL_DV_MASK	0x0300
#define RDDP_CTRL_RV_SHIFT	6
#define RDDP_CTRL_RV_MASK	0x00c0
#define RDDP_CTRL_OPCODE	0x000f

#define RDDP_TERM_M		0x8000
#define RDDP_TERM_D		0x4000
#define RDDP_TERM_R		0x2000

const struct rddp_opcode_info rddp_opcodes[RDDP_OP_MAX] = {
	[RDDP_OP_WRITE] = { "RDMA Write", true, 0, false, false },
	[RDDP_OP_READ_REQ] = { "RDMA Read Request", false, RDDP_QN_READ_REQ,
			       false, false },
	[RDDP_OP_READ_RESP] = { "RDMA Read Response", true, 0, false, false },
	[RDDP_OP_SEND] = { "Send", false, RDDP_QN_SEND, false, false },
	[RDDP_OP_SEND_INV] = { "Send with Invalidate", false, RDDP_QN_SEND,
			       true, false },
	[RDDP_OP_SEND_SE] = { "Send with Solicited Event", false,
			      RDDP_QN_SEND, false, true },
	[RDDP_OP_SEND_SE_INV] = { "Send with SE and Invalidate", false,
				  RDDP_QN_SEND, true, true },
	[RDDP_OP_TERMINATE] = { "Terminate", false, RDDP_QN_TERMINATE, false,
				false },
};

#define E(_name, _layer, _etype, _ecode, _hdr) \
	{ _name, RDDP_TERM_LAYER_##_layer, _etype, _ecode, _hdr }

/* RFC 5044 §8 (LLP, error type 0), RFC 5041 §7.2, RFC 5040 §7. */
const struct rddp_err_info rddp_errors[RDDP_ERR_MAX] = {
	[RDDP_ERR_NONE] = { "none", 0, 0, 0, false },
	[RDDP_ERR_LLP_CLOSED] = E("TCP connection lost", LLP, 0, 0x01, false),
	[RDDP_ERR_LLP_CRC] = E("MPA CRC error", LLP, 0, 0x02, false),
	[RDDP_ERR_LLP_MARKER] = E("MPA marker and ULPDU length disagree",
				  LLP, 0, 0x03, false),
	[RDDP_ERR_LLP_FRAME] = E("invalid MPA Request or Reply", LLP, 0, 0x04,
				 false),
	/* RFC 6581 adds 0x05-0x07 to RFC 5044 §8's codes */
	[RDDP_ERR_LLP_CATASTROPHIC] = E("MPA local catastrophic", LLP, 0, 0x05,
					false),
	[RDDP_ERR_LLP_INSUFFICIENT_IRD] = E("insufficient IRD", LLP, 0, 0x06,
					    false),
	[RDDP_ERR_LLP_NO_MATCHING_RTR] = E("no matching RTR", LLP, 0, 0x07,
					   false),
	[RDDP_ERR_DDP_CATASTROPHIC] = E("DDP local catastrophic", DDP, 0, 0x00,
					false),
	[RDDP_ERR_DDP_T_INVALID_STAG] = E("invalid STag", DDP, 1, 0x00, true),
	[RDDP_ERR_DDP_T_BASE_BOUNDS] = E("base or bounds violation", DDP, 1,
					 0x01, true),
	[RDDP_ERR_DDP_T_STAG_STREAM] = E("STag not associated with stream",
					 DDP, 1, 0x02, true),
	[RDDP_ERR_DDP_T_TO_WRAP] = E("TO wrap", DDP, 1, 0x03, true),
	[RDDP_ERR_DDP_T_VERSION] = E("invalid DDP version (tagged)", DDP, 1,
				     0x04, true),
	[RDDP_ERR_DDP_U_QN] = E("invalid QN", DDP, 2, 0x01, true),
	[RDDP_ERR_DDP_U_NO_BUF] = E("invalid MSN: no buffer", DDP, 2, 0x02,
				    true),
	[RDDP_ERR_DDP_U_MSN_RANGE] = E("invalid MSN: out of range", DDP, 2,
				       0x03, true),
	[RDDP_ERR_DDP_U_MO] = E("invalid MO", DDP, 2, 0x04, true),
	[RDDP_ERR_DDP_U_TOO_LONG] = E("message too long for buffer", DDP, 2,
				      0x05, true),
	[RDDP_ERR_DDP_U_VERSION] = E("invalid DDP version (untagged)", DDP, 2,
				     0x06, true),
	[RDDP_ERR_RDMAP_CATASTROPHIC] = E("RDMAP local catastrophic", RDMAP, 0,
					  0x00, false),
	[RDDP_ERR_RDMAP_P_INVALID_STAG] = E("invalid STag", RDMAP, 1, 0x00,
					    true),
	[RDDP_ERR_RDMAP_P_BASE_BOUNDS] = E("base or bounds violation", RDMAP, 1,
					   0x01, true),
	[RDDP_ERR_RDMAP_P_ACCESS] = E("access rights violation", RDMAP, 1,
				      0x02, true),
	[RDDP_ERR_RDMAP_P_STAG_STREAM] = E("STag not associated with stream",
					   RDMAP, 1, 0x03, true),
	[RDDP_ERR_RDMAP_P_TO_WRAP] = E("TO wrap", RDMAP, 1, 0x04, true),
	[RDDP_ERR_RDMAP_P_INVALIDATE] = E("STag cannot be invalidated", RDMAP,
					  1, 0x09, true),
	[RDDP_ERR_RDMAP_O_VERSION] = E("invalid RDMAP version", RDMAP, 2, 0x05,
				       true),
	[RDDP_ERR_RDMAP_O_OPCODE] = E("unexpected opcode", RDMAP, 2, 0x06,
				      true),
	[RDDP_ERR_RDMAP_O_STREAM] = E("catastrophic error in stream", RDMAP, 2,
				      0x07, true),
	[RDDP_ERR_RDMAP_O_GLOBAL] = E("catastrophic global error", RDMAP, 2,
				      0x08, false),
	[RDDP_ERR_RDMAP_O_INVALIDATE] = E("STag cannot be invalidated", RDMAP,
					  2, 0x09, true),
	[RDDP_ERR_RDMAP_O_UNSPECIFIED] = E("unspecified error", RDMAP, 2, 0xff,
					   true),
};

#undef E

u32 rddp_hdr_build(const struct rddp_hdr *h, u8 *buf)
{
	bool tagged = h->opcode < RDDP_OP_MAX ? rddp_opcodes[h->opcode].tagged :
						 h->tagged;
	u16 ctrl = (RDDP_DDP_VERSION << RDDP_CTRL_DV_SHIFT) |
		   (RDDP_RDMAP_VERSION << RDDP_CTRL_RV_SHIFT) |
		   (h->opcode & RDDP_CTRL_OPCODE);

	if (tagged)
		ctrl |= RDDP_CTRL_T;
	if (h->last)
		ctrl |= RDDP_CTRL_L;
	rddp_put_be16(buf, ctrl);
	if (tagged) {
		rddp_put_be32(buf + 2, h->stag);
		rddp_put_be32(buf + 6, (u32)(h->to >> 32));
		rddp_put_be32(buf + 10, (u32)h->to);
		return RDDP_DDP_TAGGED_HDR_LEN;
	}
	rddp_put_be32(buf + 2, h->inval_stag);
	rddp_put_be32(buf + 6, h->qn);
	rddp_put_be32(buf + 10, h->msn);
	rddp_put_be32(buf + 14, h->mo);
	return RDDP_DDP_UNTAGGED_HDR_LEN;
}

enum rddp_err rddp_hdr_parse(const u8 *buf, u32 len, u32 payload_len,
			     struct rddp_hdr *h)
{
	const struct rddp_opcode_info *op;
	u16 ctrl;

	memset(h, 0, sizeof(*h));
	if (len < 2)
		return RDDP_ERR_DDP_CATASTROPHIC;
	ctrl = rddp_get_be16(buf);
	h->tagged = ctrl & RDDP_CTRL_T;
	h->last = ctrl & RDDP_CTRL_L;
	h->opcode = ctrl & RDDP_CTRL_OPCODE;
	h->hdr_len = h->tagged ? RDDP_DDP_TAGGED_HDR_LEN :
				 RDDP_DDP_UNTAGGED_HDR_LEN;
	if (len < h->hdr_len)
		return RDDP_ERR_DDP_CATASTROPHIC;
	if (h->tagged) {
		h->stag = rddp_get_be32(buf + 2);
		h->to = ((u64)rddp_get_be32(buf + 6) << 32) |
			rddp_get_be32(buf + 10);
	} else {
		h->inval_stag = rddp_get_be32(buf + 2);
		h->qn = rddp_get_be32(buf + 6);
		h->msn = rddp_get_be32(buf + 10);
		h->mo = rddp_get_be32(buf + 14);
	}

	/* RFC 5041 §4.1: DV must be 1; reserved bits are not checked. */
	if (((ctrl & RDDP_CTRL_DV_MASK) >> RDDP_CTRL_DV_SHIFT) !=
	    RDDP_DDP_VERSION)
		return h->tagged ? RDDP_ERR_DDP_T_VERSION :
				   RDDP_ERR_DDP_U_VERSION;
	/* RFC 5041 §7.1: the QN is valid for this stream (RFC 5040 §5.1). */
	if (!h->tagged && h->qn >= RDDP_QN_MAX)
		return RDDP_ERR_DDP_U_QN;
	/* RFC 5040 §4.2: RV must be 1. */
	if (((ctrl & RDDP_CTRL_RV_MASK) >> RDDP_CTRL_RV_SHIFT) !=
	    RDDP_RDMAP_VERSION)
		return RDDP_ERR_RDMAP_O_VERSION;
	if (h->opcode >= RDDP_OP_MAX)
		return RDDP_ERR_RDMAP_O_OPCODE;
	op = &rddp_opcodes[h->opcode];
	/* The buffer model and queue must be the opcode's (RFC 5040 §5). */
	if (op->tagged != h->tagged || (!h->tagged && op->qn != h->qn))
		return RDDP_ERR_RDMAP_O_OPCODE;

	switch (h->opcode) {
	case RDDP_OP_READ_REQ:
		/* RFC 5040 §4.4: one complete 28-octet segment. */
		if (!h->last || h->mo || payload_len != RDDP_RDMAP_RREQ_LEN)
			return RDDP_ERR_RDMAP_O_UNSPECIFIED;
		break;
	case RDDP_OP_TERMINATE:
		/* RFC 5040 §4.8: one segment with the Terminate control. */
		if (!h->last || h->mo || payload_len < RDDP_TERM_CTRL_LEN)
			return RDDP_ERR_RDMAP_O_UNSPECIFIED;
		break;
	default:
		break;
	}
	return RDDP_ERR_NONE;
}

enum rddp_err rddp_ddp_check_untagged(const struct rddp_hdr *h,
				      u32 payload_len, u32 msn_first,
				      u32 nr_bufs, u64 buf_len)
{
	/* RFC 5041 §7.1 untagged items 2 and 5, then 3 and 4. */
	if (!nr_bufs)
		return RDDP_ERR_DDP_U_NO_BUF;
	if ((u32)(h->msn - msn_first) >= nr_bufs)	/* serial arithmetic */
		return RDDP_ERR_DDP_U_MSN_RANGE;
	if (h->mo > buf_len)
		return RDDP_ERR_DDP_U_MO;
	if ((u64)h->mo + payload_len > buf_len)
		return RDDP_ERR_DDP_U_TOO_LONG;
	return RDDP_ERR_NONE;
}

/* Merge [a, b), b > a, into @c; false if that needs one run too many. */
static bool rddp_ddp_cover_merge(struct rddp_ddp_cover *c, u32 a, u32 b)
{
	u32 i = 0, j, k, gone;

	while (i < c->nr && c->run[i].end < a)
		i++;
	/* runs i .. j - 1 overlap or touch [a, b): they become one */
	for (j = i; j < c->nr && c->run[j].start <= b; j++) {
		a = a < c->run[j].start ? a : c->run[j].start;
		b = b > c->run[j].end ? b : c->run[j].end;
	}
	if (i == j) {
		if (c->nr == RDDP_DDP_COVER_RUNS)
			return false;
		for (k = c->nr; k > i; k--)
			c->run[k] = c->run[k - 1];
		c->nr++;
	} else {
		gone = j - i - 1;
		for (k = j; k < c->nr; k++)
			c->run[k - gone] = c->run[k];
		c->nr -= gone;
	}
	c->run[i].start = a;
	c->run[i].end = b;
	return true;
}

enum rddp_err rddp_ddp_cover_add(struct rddp_ddp_cover *c, u32 mo, u32 len,
				 bool last, bool in_order, u32 *msg_len)
{
	struct rddp_ddp_cover next = *c;
	u32 end;

	if (len > 0xffffffffu - mo)
		return RDDP_ERR_DDP_U_TOO_LONG;
	/* placed so far: [0, run[0].end) when in order */
	if (in_order && mo != (c->nr ? c->run[0].end : 0))
		return RDDP_ERR_DDP_U_MO;
	if (len && !rddp_ddp_cover_merge(&next, mo, mo + len))
		return RDDP_ERR_DDP_U_MO;
	if (last) {
		end = mo + len;
		if (next.nr && next.run[next.nr - 1].end > end)
			end = next.run[next.nr - 1].end;
		/* RFC 5041 §5.4: delivered only when all of it is placed */
		if (end && (next.nr != 1 || next.run[0].start ||
			    next.run[0].end != end))
			return RDDP_ERR_DDP_U_MO;
		*msg_len = end;
	}
	*c = next;
	return RDDP_ERR_NONE;
}

enum rddp_err rddp_ddp_check_tagged(u64 to, u32 len, u64 base, u64 size,
				    bool rdmap)
{
	/* RFC 5041 §7.1 tagged item 5, then items 3 and 4. */
	if (to + len < to)
		return rdmap ? RDDP_ERR_RDMAP_P_TO_WRAP : RDDP_ERR_DDP_T_TO_WRAP;
	if (to < base || to - base > size || len > size - (to - base))
		return rdmap ? RDDP_ERR_RDMAP_P_BASE_BOUNDS :
			       RDDP_ERR_DDP_T_BASE_BOUNDS;
	return RDDP_ERR_NONE;
}

u32 rddp_ddp_seg_len(u32 msg_len, u32 off, u32 mulpdu, u32 hdr_len)
{
	u32 room = mulpdu > hdr_len ? mulpdu - hdr_len : 0;
	u32 left = off < msg_len ? msg_len - off : 0;

	return left < room ? left : room;
}

void rddp_read_req_build(const struct rddp_read_req *r, u8 *buf)
{
	rddp_put_be32(buf, r->sink_stag);
	rddp_put_be32(buf + 4, (u32)(r->sink_to >> 32));
	rddp_put_be32(buf + 8, (u32)r->sink_to);
	rddp_put_be32(buf + 12, r->size);
	rddp_put_be32(buf + 16, r->src_stag);
	rddp_put_be32(buf + 20, (u32)(r->src_to >> 32));
	rddp_put_be32(buf + 24, (u32)r->src_to);
}

void rddp_read_req_parse(const u8 *buf, struct rddp_read_req *r)
{
	r->sink_stag = rddp_get_be32(buf);
	r->sink_to = ((u64)rddp_get_be32(buf + 4) << 32) |
		     rddp_get_be32(buf + 8);
	r->size = rddp_get_be32(buf + 12);
	r->src_stag = rddp_get_be32(buf + 16);
	r->src_to = ((u64)rddp_get_be32(buf + 20) << 32) |
		    rddp_get_be32(buf + 24);
}

u32 rddp_term_build(enum rddp_err err, const u8 *bad_hdr, u32 bad_hdr_len,
		    u32 seg_len, const u8 *rreq, u8 *buf)
{
	const struct rddp_err_info *e = &rddp_errors[err];
	bool d = e->ddp_hdr && bad_hdr &&
		 (bad_hdr_len == RDDP_DDP_TAGGED_HDR_LEN ||
		  bad_hdr_len == RDDP_DDP_UNTAGGED_HDR_LEN);
	u16 flags = 0;
	u32 len = RDDP_TERM_CTRL_LEN;

	buf[0] = (u8)((e->layer << 4) | (e->etype & 0xf));
	buf[1] = e->ecode;
	if (d) {
		flags |= RDDP_TERM_M | RDDP_TERM_D;
		rddp_put_be16(buf + len, (u16)seg_len);
		memcpy(buf + len + 2, bad_hdr, bad_hdr_len);
		len += 2 + bad_hdr_len;
	}
	if (rreq) {
		flags |= RDDP_TERM_R;
		memcpy(buf + len, rreq, RDDP_RDMAP_RREQ_LEN);
		len += RDDP_RDMAP_RREQ_LEN;
	}
	rddp_put_be16(buf + 2, flags);
	return len;
}

enum rddp_err rddp_term_parse(const u8 *buf, u32 len, struct rddp_term *t)
{
	u32 off = RDDP_TERM_CTRL_LEN;
	u16 flags;

	memset(t, 0, sizeof(*t));
	if (len < RDDP_TERM_CTRL_LEN)
		return RDDP_ERR_RDMAP_O_UNSPECIFIED;
	t->layer = buf[0] >> 4;
	t->etype = buf[0] & 0xf;
	t->ecode = buf[1];
	flags = rddp_get_be16(buf + 2);
	t->m = flags & RDDP_TERM_M;
	t->d = flags & RDDP_TERM_D;
	t->r = flags & RDDP_TERM_R;
	if (t->layer > RDDP_TERM_LAYER_LLP)
		return RDDP_ERR_RDMAP_O_UNSPECIFIED;
	if (t->m || t->d) {
		if (len - off < 2)
			return RDDP_ERR_RDMAP_O_UNSPECIFIED;
		t->seg_len = rddp_get_be16(buf + off);
		off += 2;
	}
	if (t->d) {
		/* The copied header's own T bit gives its length. */
		if (len - off < 1)
			return RDDP_ERR_RDMAP_O_UNSPECIFIED;
		t->ddp_hdr_len = (buf[off] & 0x80) ? RDDP_DDP_TAGGED_HDR_LEN :
						     RDDP_DDP_UNTAGGED_HDR_LEN;
		if (len - off < t->ddp_hdr_len)
			return RDDP_ERR_RDMAP_O_UNSPECIFIED;
		memcpy(t->ddp_hdr, buf + off, t->ddp_hdr_len);
		off += t->ddp_hdr_len;
	}
	if (t->r) {
		if (len - off < RDDP_RDMAP_RREQ_LEN)
			return RDDP_ERR_RDMAP_O_UNSPECIFIED;
		memcpy(t->rdmap_hdr, buf + off, RDDP_RDMAP_RREQ_LEN);
	}
	return RDDP_ERR_NONE;
}

enum rddp_err rddp_mpa_rx_err(int mpa_err)
{
	switch (mpa_err) {
	case RDDP_MPA_OK:
		return RDDP_ERR_NONE;
	case RDDP_MPA_ERR_CRC:
		return RDDP_ERR_LLP_CRC;
	case RDDP_MPA_ERR_MARKER:
		return RDDP_ERR_LLP_MARKER;
	default:
		return RDDP_ERR_DDP_CATASTROPHIC;
	}
}

enum rddp_err rddp_term_to_err(const struct rddp_term *t)
{
	u32 i;

	for (i = RDDP_ERR_NONE + 1; i < RDDP_ERR_MAX; i++) {
		if (rddp_errors[i].layer == t->layer &&
		    rddp_errors[i].etype == t->etype &&
		    rddp_errors[i].ecode == t->ecode)
			return i;
	}
	return RDDP_ERR_MAX;
}
