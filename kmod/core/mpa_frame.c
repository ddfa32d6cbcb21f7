// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * MPA Request/Reply frames (RFC 5044 §7.1) with the revision-2 enhanced
 * connection data of RFC 6581 §9.1.1. See include/rddp/mpa_frame.h.
 */
#include <rddp/mpa_frame.h>
#include <rddp/wire.h>

static const u8 rddp_mpa_key_req[RDDP_MPA_KEY_LEN] = "MPA ID Req Frame";
static const u8 rddp_mpa_key_rep[RDDP_MPA_KEY_LEN] = "MPA ID Rep Frame";

#define RDDP_MPA_V2_HI	0x8000	/* A (in IRD) and C (in ORD) */
#define RDDP_MPA_V2_LO	0x4000	/* B (in IRD) and D (in ORD) */

const char *const rddp_mpa_frame_err_names[RDDP_MPA_FRAME_ERR_MAX] = {
	[RDDP_MPA_FRAME_OK] = "ok",
	[RDDP_MPA_FRAME_MORE] = "incomplete",
	[RDDP_MPA_FRAME_ERR_KEY] = "bad key",
	[RDDP_MPA_FRAME_ERR_UNEXPECTED] = "unexpected frame type",
	[RDDP_MPA_FRAME_ERR_REV] = "unsupported revision",
	[RDDP_MPA_FRAME_ERR_PD_LEN] = "private data too long",
	[RDDP_MPA_FRAME_ERR_V2_SHORT] = "enhanced data missing",
	[RDDP_MPA_FRAME_ERR_V2_RTR] = "reply selects several RTR kinds",
	[RDDP_MPA_FRAME_ERR_INVAL] = "invalid frame field",
	[RDDP_MPA_FRAME_ERR_DONE] = "parser already finished",
};

int rddp_mpa_frame_build(const struct rddp_mpa_frame *f, u8 *buf, u32 buf_len)
{
	u32 v2 = f->enhanced ? RDDP_MPA_V2_DATA_LEN : 0;
	u32 pd_total = v2 + f->pd_len;
	u16 ird, ord;
	u8 flags = 0;

	if (f->rev < 1 || f->rev > 2 || (f->enhanced && f->rev != 2))
		return -RDDP_MPA_FRAME_ERR_INVAL;
	if (f->ird > RDDP_MPA_IRD_ORD_MAX || f->ord > RDDP_MPA_IRD_ORD_MAX ||
	    (f->rtr & ~RDDP_MPA_RTR_ALL))
		return -RDDP_MPA_FRAME_ERR_INVAL;
	if (pd_total > RDDP_MPA_PD_MAX)
		return -RDDP_MPA_FRAME_ERR_PD_LEN;
	if (buf_len < RDDP_MPA_FRAME_HDR_LEN + pd_total ||
	    (f->pd_len && !f->pd))
		return -RDDP_MPA_FRAME_ERR_INVAL;

	memcpy(buf, f->type == RDDP_MPA_REQUEST ? rddp_mpa_key_req :
		    rddp_mpa_key_rep, RDDP_MPA_KEY_LEN);
	if (f->markers)
		flags |= RDDP_MPA_FLAG_MARKERS;
	if (f->crc)
		flags |= RDDP_MPA_FLAG_CRC;
	/* RFC 5044 §7.1.1: R is zero in a Request. */
	if (f->reject && f->type == RDDP_MPA_REPLY)
		flags |= RDDP_MPA_FLAG_REJECT;
	if (f->enhanced)
		flags |= RDDP_MPA_FLAG_ENHANCED;
	buf[16] = flags;
	buf[17] = f->rev;
	rddp_put_be16(buf + 18, (u16)pd_total);
	if (v2) {
		ird = f->ird;
		ord = f->ord;
		if (f->p2p)
			ird |= RDDP_MPA_V2_HI;
		if (f->rtr & RDDP_MPA_RTR_SEND)
			ird |= RDDP_MPA_V2_LO;
		if (f->rtr & RDDP_MPA_RTR_WRITE)
			ord |= RDDP_MPA_V2_HI;
		if (f->rtr & RDDP_MPA_RTR_READ)
			ord |= RDDP_MPA_V2_LO;
		rddp_put_be16(buf + 20, ird);
		rddp_put_be16(buf + 22, ord);
	}
	if (f->pd_len)
		memcpy(buf + RDDP_MPA_FRAME_HDR_LEN + v2, f->pd, f->pd_len);
	return (int)(RDDP_MPA_FRAME_HDR_LEN + pd_total);
}

void rddp_mpa_frame_rx_init(struct rddp_mpa_frame_rx *rx,
			    enum rddp_mpa_frame_type expect, u8 max_rev)
{
	rx->expect = expect;
	rx->max_rev = max_rev;
	rx->result = RDDP_MPA_FRAME_MORE;
	rx->have = 0;
	rx->need = RDDP_MPA_FRAME_HDR_LEN;
}

/* The fixed header is complete: validate it and learn the frame length. */
static int rddp_mpa_frame_check_hdr(struct rddp_mpa_frame_rx *rx)
{
	const u8 *want = rx->expect == RDDP_MPA_REQUEST ? rddp_mpa_key_req :
							   rddp_mpa_key_rep;
	const u8 *other = rx->expect == RDDP_MPA_REQUEST ? rddp_mpa_key_rep :
							    rddp_mpa_key_req;
	u8 rev = rx->buf[17];
	u16 pd_len = rddp_get_be16(rx->buf + 18);

	/* RFC 5044 §7.1.2 rules 5 and 8 */
	if (memcmp(rx->buf, want, RDDP_MPA_KEY_LEN)) {
		if (!memcmp(rx->buf, other, RDDP_MPA_KEY_LEN))
			return RDDP_MPA_FRAME_ERR_UNEXPECTED;
		return RDDP_MPA_FRAME_ERR_KEY;
	}
	/* RFC 5044 §7.1.1 Rev; RFC 6581 adds revision 2 */
	if (rev < 1 || rev > 2 || rev > rx->max_rev)
		return RDDP_MPA_FRAME_ERR_REV;
	/* RFC 5044 §7.1.1 PD_Length, §7.1.2 rule 9 */
	if (pd_len > RDDP_MPA_PD_MAX)
		return RDDP_MPA_FRAME_ERR_PD_LEN;
	if (rev == 2 && (rx->buf[16] & RDDP_MPA_FLAG_ENHANCED) &&
	    pd_len < RDDP_MPA_V2_DATA_LEN)
		return RDDP_MPA_FRAME_ERR_V2_SHORT;
	rx->need = RDDP_MPA_FRAME_HDR_LEN + pd_len;
	return RDDP_MPA_FRAME_MORE;
}

static int rddp_mpa_frame_decode(struct rddp_mpa_frame_rx *rx,
				 struct rddp_mpa_frame *f)
{
	u8 flags = rx->buf[16];
	u16 pd_len = rx->need - RDDP_MPA_FRAME_HDR_LEN;
	u16 ird, ord;

	memset(f, 0, sizeof(*f));
	f->type = rx->expect;
	f->rev = rx->buf[17];
	f->markers = flags & RDDP_MPA_FLAG_MARKERS;
	f->crc = flags & RDDP_MPA_FLAG_CRC;
	/* RFC 5044 §7.1.1: R is not checked in a Request; Res never is. */
	f->reject = rx->expect == RDDP_MPA_REPLY && (flags & RDDP_MPA_FLAG_REJECT);
	f->pd = rx->buf + RDDP_MPA_FRAME_HDR_LEN;
	f->pd_len = pd_len;
	if (f->rev == 2 && (flags & RDDP_MPA_FLAG_ENHANCED)) {
		ird = rddp_get_be16(rx->buf + 20);
		ord = rddp_get_be16(rx->buf + 22);
		f->enhanced = true;
		f->p2p = ird & RDDP_MPA_V2_HI;
		if (ird & RDDP_MPA_V2_LO)
			f->rtr |= RDDP_MPA_RTR_SEND;
		if (ord & RDDP_MPA_V2_HI)
			f->rtr |= RDDP_MPA_RTR_WRITE;
		if (ord & RDDP_MPA_V2_LO)
			f->rtr |= RDDP_MPA_RTR_READ;
		f->ird = ird & RDDP_MPA_IRD_ORD_MAX;
		f->ord = ord & RDDP_MPA_IRD_ORD_MAX;
		f->pd += RDDP_MPA_V2_DATA_LEN;
		f->pd_len -= RDDP_MPA_V2_DATA_LEN;
		/* RFC 6581 §9.1.1: a Reply picks one of the offered kinds. */
		if (rx->expect == RDDP_MPA_REPLY && !f->reject && f->p2p &&
		    (f->rtr & (f->rtr - 1)))
			return RDDP_MPA_FRAME_ERR_V2_RTR;
	}
	if (!f->pd_len)
		f->pd = NULL;
	return RDDP_MPA_FRAME_OK;
}

int rddp_mpa_frame_rx_feed(struct rddp_mpa_frame_rx *rx, const u8 *data,
			   u32 len, u32 *used, struct rddp_mpa_frame *f)
{
	u32 take, done = 0;
	int ret;

	*used = 0;
	if (rx->result != RDDP_MPA_FRAME_MORE)
		return RDDP_MPA_FRAME_ERR_DONE;

	while (done < len) {
		take = rx->need - rx->have;
		if (take > len - done)
			take = len - done;
		memcpy(rx->buf + rx->have, data + done, take);
		rx->have += take;
		done += take;
		if (rx->have < rx->need)
			break;
		if (rx->need == RDDP_MPA_FRAME_HDR_LEN) {
			ret = rddp_mpa_frame_check_hdr(rx);
			if (ret != RDDP_MPA_FRAME_MORE) {
				rx->result = ret;
				*used = done;
				return ret;
			}
			if (rx->need > RDDP_MPA_FRAME_HDR_LEN)
				continue;
		}
		rx->result = rddp_mpa_frame_decode(rx, f);
		*used = done;
		return rx->result;
	}
	*used = done;
	return RDDP_MPA_FRAME_MORE;
}
