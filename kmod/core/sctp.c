// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * DDP/RDMAP over SCTP (draft-ietf-rddp-sctp-00): chunk payloads, DDP-SSN
 * ordering and DDP Stream Session sequences. See include/rddp/sctp.h.
 */
#include <rddp/sctp.h>
#include <rddp/wire.h>

#define RDDP_SCTP_DDP_T		0x80	/* RFC 5041 §4.1: T, first octet */
#define RDDP_SCTP_WINDOW_MASK	(RDDP_SCTP_SSN_WINDOW - 1)

const char *const rddp_sctp_err_names[RDDP_SCTP_ERR_MAX] = {
	[RDDP_SCTP_OK] = "ok",
	[RDDP_SCTP_HELD] = "held for in-order delivery",
	[RDDP_SCTP_ERR_PPID] = "unknown payload protocol identifier",
	[RDDP_SCTP_ERR_TOO_LONG] = "longer than one DATA chunk",
	[RDDP_SCTP_ERR_SEG_SHORT] = "DDP Segment shorter than its header",
	[RDDP_SCTP_ERR_CTRL_SHORT] = "Session Control shorter than 4 octets",
	[RDDP_SCTP_ERR_FUNC] = "unknown Session Control function code",
	[RDDP_SCTP_ERR_TERM_PD] = "Session Terminate with private data",
	[RDDP_SCTP_ERR_SSN_DUP] = "DDP-SSN already received",
	[RDDP_SCTP_ERR_SSN_OLD] = "DDP-SSN before the next expected",
	[RDDP_SCTP_ERR_SSN_BEYOND] = "DDP-SSN beyond the in-flight window",
	[RDDP_SCTP_ERR_SSN_INFLIGHT] = "32767 chunks unacknowledged",
	[RDDP_SCTP_ERR_SEQ_NEGOTIATE] = "Negotiate after Initiate or Accept",
	[RDDP_SCTP_ERR_SEQ_INITIATE] = "Initiate out of sequence",
	[RDDP_SCTP_ERR_SEQ_ACCEPT] = "Accept without an Initiate to accept",
	[RDDP_SCTP_ERR_SEQ_SEGMENT] = "DDP Segment before Initiate or Accept",
	[RDDP_SCTP_ERR_SEQ_TERMINATE] = "Terminate before any Initiate",
	[RDDP_SCTP_ERR_SEQ_CLOSED] = "message after the sender's Terminate",
	[RDDP_SCTP_ERR_INVAL] = "invalid argument",
	[RDDP_SCTP_ERR_CONN_SHORT] = "Initiate or Accept without IRD/ORD",
	[RDDP_SCTP_ERR_CONN_RSVD] = "IRD/ORD with a reserved bit set",
	[RDDP_SCTP_ERR_CONN_LONG] = "ULP private data over 512 octets",
	[RDDP_SCTP_ERR_STREAM] = "chunk on an SCTP stream with no DDP Stream Session (§5)",
	[RDDP_SCTP_ERR_ORDERED] = "ordered DATA chunk (U=0, §7)",
};

enum rddp_err rddp_sctp_to_err(int sctp_err)
{
	if (sctp_err == RDDP_SCTP_OK || sctp_err == RDDP_SCTP_HELD)
		return RDDP_ERR_NONE;
	return RDDP_ERR_DDP_CATASTROPHIC;
}

/* §8.1: an indication other than DDP or DDP+RDMA is NONE's. */
static enum rddp_sctp_mode rddp_sctp_ali_level(u32 ind)
{
	if (ind == RDDP_SCTP_ALI_DDP_RDMA)
		return RDDP_SCTP_MODE_DDP_RDMA;
	if (ind == RDDP_SCTP_ALI_DDP)
		return RDDP_SCTP_MODE_DDP;
	return RDDP_SCTP_MODE_NONE;
}

/* §8.1: RDMAP only when both sides indicated DDP+RDMA, DDP when both DDP. */
enum rddp_sctp_mode rddp_sctp_ali_mode(u32 local, u32 peer)
{
	enum rddp_sctp_mode l = rddp_sctp_ali_level(local);
	enum rddp_sctp_mode p = rddp_sctp_ali_level(peer);

	return l < p ? l : p;
}

/* §2.2.2: DDP-SSN, then an RFC 5041 segment with its whole header. */
static enum rddp_sctp_err rddp_sctp_seg_parse(const u8 *buf, u32 len,
					      struct rddp_sctp_chunk *c)
{
	if (len < RDDP_SCTP_SSN_LEN + 1)
		return RDDP_SCTP_ERR_SEG_SHORT;
	c->ssn = rddp_get_be16(buf);
	c->msg = RDDP_SCTP_MSG_SEGMENT;
	c->hdr_len = (buf[RDDP_SCTP_SSN_LEN] & RDDP_SCTP_DDP_T) ?
		     RDDP_DDP_TAGGED_HDR_LEN : RDDP_DDP_UNTAGGED_HDR_LEN;
	if (len - RDDP_SCTP_SSN_LEN < c->hdr_len)
		return RDDP_SCTP_ERR_SEG_SHORT;
	c->ddp = buf + RDDP_SCTP_SSN_LEN;
	c->ddp_len = len - RDDP_SCTP_SSN_LEN;
	return RDDP_SCTP_OK;
}

/* §2.2.3: DDP-SSN, function code, private data (none in a Terminate). */
static enum rddp_sctp_err rddp_sctp_ctrl_parse(const u8 *buf, u32 len,
					       struct rddp_sctp_chunk *c)
{
	if (len < RDDP_SCTP_CTRL_HDR_LEN)
		return RDDP_SCTP_ERR_CTRL_SHORT;
	c->ssn = rddp_get_be16(buf);
	c->msg = rddp_get_be16(buf + RDDP_SCTP_SSN_LEN);
	if (c->msg < RDDP_SCTP_FC_NEGOTIATE || c->msg >= RDDP_SCTP_FC_MAX)
		return RDDP_SCTP_ERR_FUNC;
	if (c->msg == RDDP_SCTP_FC_TERMINATE && len > RDDP_SCTP_CTRL_HDR_LEN)
		return RDDP_SCTP_ERR_TERM_PD;
	c->pd_len = len - RDDP_SCTP_CTRL_HDR_LEN;
	if (c->pd_len)
		c->pd = buf + RDDP_SCTP_CTRL_HDR_LEN;
	return RDDP_SCTP_OK;
}

enum rddp_sctp_err rddp_sctp_chunk_parse(u32 ppid, const u8 *buf, u32 len,
					 struct rddp_sctp_chunk *c)
{
	memset(c, 0, sizeof(*c));
	if (ppid != RDDP_SCTP_PPID_SEGMENT && ppid != RDDP_SCTP_PPID_CONTROL)
		return RDDP_SCTP_ERR_PPID;
	if (len > RDDP_SCTP_PAYLOAD_MAX)
		return RDDP_SCTP_ERR_TOO_LONG;
	if (ppid == RDDP_SCTP_PPID_SEGMENT)
		return rddp_sctp_seg_parse(buf, len, c);
	return rddp_sctp_ctrl_parse(buf, len, c);
}

int rddp_sctp_seg_build(u16 ssn, const u8 *hdr, u32 hdr_len, u32 payload_len,
			u8 *buf)
{
	if (hdr_len != RDDP_DDP_TAGGED_HDR_LEN &&
	    hdr_len != RDDP_DDP_UNTAGGED_HDR_LEN)
		return -RDDP_SCTP_ERR_INVAL;
	if (payload_len > RDDP_SCTP_PAYLOAD_MAX - RDDP_SCTP_SSN_LEN - hdr_len)
		return -RDDP_SCTP_ERR_TOO_LONG;
	rddp_put_be16(buf, ssn);
	memcpy(buf + RDDP_SCTP_SSN_LEN, hdr, hdr_len);
	return (int)(RDDP_SCTP_SSN_LEN + hdr_len);
}

int rddp_sctp_ctrl_build(u16 ssn, u16 fc, const u8 *pd, u32 pd_len, u8 *buf,
			 u32 buf_len)
{
	if (fc < RDDP_SCTP_FC_NEGOTIATE || fc >= RDDP_SCTP_FC_MAX)
		return -RDDP_SCTP_ERR_FUNC;
	if (fc == RDDP_SCTP_FC_TERMINATE && pd_len)
		return -RDDP_SCTP_ERR_TERM_PD;
	if (pd_len > RDDP_SCTP_PD_MAX)
		return -RDDP_SCTP_ERR_TOO_LONG;
	if (buf_len < RDDP_SCTP_CTRL_HDR_LEN + pd_len || (pd_len && !pd))
		return -RDDP_SCTP_ERR_INVAL;
	rddp_put_be16(buf, ssn);
	rddp_put_be16(buf + RDDP_SCTP_SSN_LEN, fc);
	if (pd_len)
		memcpy(buf + RDDP_SCTP_CTRL_HDR_LEN, pd, pd_len);
	return (int)(RDDP_SCTP_CTRL_HDR_LEN + pd_len);
}

int rddp_sctp_conn_build(u16 ird, u16 ord, const u8 *ulp, u32 ulp_len,
			 u8 *buf, u32 buf_len)
{
	if (ird > RDDP_SCTP_IRD_ORD_MAX || ord > RDDP_SCTP_IRD_ORD_MAX)
		return -RDDP_SCTP_ERR_CONN_RSVD;
	if (ulp_len > RDDP_SCTP_ULP_PD_MAX)
		return -RDDP_SCTP_ERR_CONN_LONG;
	if (buf_len < RDDP_SCTP_IRD_ORD_LEN + ulp_len || (ulp_len && !ulp))
		return -RDDP_SCTP_ERR_INVAL;
	rddp_put_be16(buf, ird);
	rddp_put_be16(buf + 2, ord);
	if (ulp_len)
		memcpy(buf + RDDP_SCTP_IRD_ORD_LEN, ulp, ulp_len);
	return (int)(RDDP_SCTP_IRD_ORD_LEN + ulp_len);
}

/*
 * The reserved bits are the top two of each 16-bit half (RFC 6581 §9.1).
 * §2.2.3: the private data may be of zero length: no IRD or ORD stated.
 */
enum rddp_sctp_err rddp_sctp_conn_parse(const u8 *pd, u32 pd_len,
					struct rddp_sctp_conn *c)
{
	u16 ird, ord;

	if (!pd_len) {
		c->ird = RDDP_SCTP_IRD_ORD_DEFAULT;
		c->ord = RDDP_SCTP_IRD_ORD_DEFAULT;
		c->ulp = NULL;
		c->ulp_len = 0;
		return RDDP_SCTP_OK;
	}
	if (!pd || pd_len < RDDP_SCTP_IRD_ORD_LEN)
		return RDDP_SCTP_ERR_CONN_SHORT;
	if (pd_len - RDDP_SCTP_IRD_ORD_LEN > RDDP_SCTP_ULP_PD_MAX)
		return RDDP_SCTP_ERR_CONN_LONG;
	ird = rddp_get_be16(pd);
	ord = rddp_get_be16(pd + 2);
	if (ird > RDDP_SCTP_IRD_ORD_MAX || ord > RDDP_SCTP_IRD_ORD_MAX)
		return RDDP_SCTP_ERR_CONN_RSVD;
	c->ird = ird;
	c->ord = ord;
	c->ulp_len = pd_len - RDDP_SCTP_IRD_ORD_LEN;
	c->ulp = c->ulp_len ? pd + RDDP_SCTP_IRD_ORD_LEN : NULL;
	return RDDP_SCTP_OK;
}

void rddp_sctp_ssn_tx_init(struct rddp_sctp_ssn_tx *tx)
{
	tx->next = RDDP_SCTP_SSN_FIRST;
	tx->inflight = 0;
}

/* §7: never more than 32767 chunks of a stream unacknowledged. */
enum rddp_sctp_err rddp_sctp_ssn_tx_take(struct rddp_sctp_ssn_tx *tx, u16 *ssn)
{
	if (tx->inflight >= RDDP_SCTP_SSN_INFLIGHT_MAX)
		return RDDP_SCTP_ERR_SSN_INFLIGHT;
	*ssn = tx->next++;	/* §2.2.1: 65535 wraps to 0 */
	tx->inflight++;
	return RDDP_SCTP_OK;
}

void rddp_sctp_ssn_tx_acked(struct rddp_sctp_ssn_tx *tx, u32 n)
{
	tx->inflight -= n < tx->inflight ? (u16)n : tx->inflight;
}

void rddp_sctp_ssn_rx_init(struct rddp_sctp_ssn_rx *rx)
{
	rx->next = RDDP_SCTP_SSN_FIRST;
	rx->nr_held = 0;
	memset(rx->held, 0, sizeof(rx->held));
}

static bool rddp_sctp_ssn_held(const struct rddp_sctp_ssn_rx *rx, u16 ssn)
{
	u32 i = ssn & RDDP_SCTP_WINDOW_MASK;

	return rx->held[i / 32] & (1U << (i % 32));
}

static void rddp_sctp_ssn_flip(struct rddp_sctp_ssn_rx *rx, u16 ssn)
{
	u32 i = ssn & RDDP_SCTP_WINDOW_MASK;

	rx->held[i / 32] ^= 1U << (i % 32);
}

/*
 * §7: with at most 32767 chunks in flight, a legal DDP-SSN is at most
 * 32766 after the next one (serial arithmetic modulo 2^16, §2.2.1 wrap);
 * the other half of the circle, 32768 .. 65535 after it, is behind it.
 */
enum rddp_sctp_err rddp_sctp_ssn_rx_arrive(struct rddp_sctp_ssn_rx *rx,
					   u16 ssn)
{
	u16 ahead = (u16)(ssn - rx->next);

	if (ahead >= RDDP_SCTP_SSN_WINDOW)
		return RDDP_SCTP_ERR_SSN_OLD;
	if (ahead >= RDDP_SCTP_SSN_INFLIGHT_MAX)
		return RDDP_SCTP_ERR_SSN_BEYOND;
	if (rddp_sctp_ssn_held(rx, ssn))
		return RDDP_SCTP_ERR_SSN_DUP;
	if (ahead) {
		rddp_sctp_ssn_flip(rx, ssn);
		rx->nr_held++;
		return RDDP_SCTP_HELD;
	}
	rx->next++;
	return RDDP_SCTP_OK;
}

bool rddp_sctp_ssn_rx_pop(struct rddp_sctp_ssn_rx *rx, u16 *ssn)
{
	if (!rddp_sctp_ssn_held(rx, rx->next))
		return false;
	rddp_sctp_ssn_flip(rx, rx->next);
	rx->nr_held--;
	*ssn = rx->next++;
	return true;
}

void rddp_sctp_sess_init(struct rddp_sctp_sess *s)
{
	s->tx = RDDP_SCTP_PHASE_NEGOTIATE;
	s->rx = RDDP_SCTP_PHASE_NEGOTIATE;
}

/*
 * One message from the side in phase @own while the other side is in
 * @other (§3.2-§3.5). Returns the sender's new phase, or -error.
 */
static int rddp_sctp_sess_step(u8 own, u8 other, u16 msg)
{
	if (msg >= RDDP_SCTP_FC_MAX)
		return -RDDP_SCTP_ERR_FUNC;
	if (own == RDDP_SCTP_PHASE_CLOSED)
		return -RDDP_SCTP_ERR_SEQ_CLOSED;	/* §3.2: the final one */
	switch (msg) {
	case RDDP_SCTP_FC_NEGOTIATE:	/* §3.2-§3.5: before the others */
		if (own != RDDP_SCTP_PHASE_NEGOTIATE)
			return -RDDP_SCTP_ERR_SEQ_NEGOTIATE;
		return own;
	case RDDP_SCTP_FC_INITIATE:	/* §3.2; both sides: §3.5 */
		if (own != RDDP_SCTP_PHASE_NEGOTIATE ||
		    other > RDDP_SCTP_PHASE_INITIATED)
			return -RDDP_SCTP_ERR_SEQ_INITIATE;
		return RDDP_SCTP_PHASE_INITIATED;
	case RDDP_SCTP_FC_ACCEPT:	/* §3.2: answers an Initiate */
		if (own != RDDP_SCTP_PHASE_NEGOTIATE ||
		    other != RDDP_SCTP_PHASE_INITIATED)
			return -RDDP_SCTP_ERR_SEQ_ACCEPT;
		return RDDP_SCTP_PHASE_ACCEPTED;
	case RDDP_SCTP_FC_TERMINATE:	/* §3.2, §3.5; rejection: §3.4 */
		if (own == RDDP_SCTP_PHASE_NEGOTIATE &&
		    other != RDDP_SCTP_PHASE_INITIATED &&
		    other != RDDP_SCTP_PHASE_CLOSED)
			return -RDDP_SCTP_ERR_SEQ_TERMINATE;
		return RDDP_SCTP_PHASE_CLOSED;
	default:			/* a DDP Segment: §3.2, §3.5 */
		if (own == RDDP_SCTP_PHASE_NEGOTIATE)
			return -RDDP_SCTP_ERR_SEQ_SEGMENT;
		return own;
	}
}

/* Apply @msg from the side whose phase is *@own; unchanged on error. */
static enum rddp_sctp_err rddp_sctp_sess_apply(u8 *own, u8 other, u16 msg)
{
	int ret = rddp_sctp_sess_step(*own, other, msg);

	if (ret < 0)
		return (enum rddp_sctp_err)-ret;
	*own = (u8)ret;
	return RDDP_SCTP_OK;
}

enum rddp_sctp_err rddp_sctp_sess_rx(struct rddp_sctp_sess *s, u16 msg)
{
	return rddp_sctp_sess_apply(&s->rx, s->tx, msg);
}

enum rddp_sctp_err rddp_sctp_sess_tx(struct rddp_sctp_sess *s, u16 msg)
{
	return rddp_sctp_sess_apply(&s->tx, s->rx, msg);
}

/* §3.1, §3.2, §3.4, §3.5: a Terminate ends the session; only one per side. */
enum rddp_sctp_err rddp_sctp_sess_end(struct rddp_sctp_sess *s)
{
	if (s->tx == RDDP_SCTP_PHASE_CLOSED)
		return RDDP_SCTP_ERR_SEQ_CLOSED;
	s->tx = RDDP_SCTP_PHASE_CLOSED;
	return RDDP_SCTP_OK;
}

/* What a legal @msg, now in the peer's phase, asks of our side (§3.2-§3.5). */
static int rddp_sctp_setup_what(const struct rddp_sctp_sess *s, bool active,
				u16 msg)
{
	switch (msg) {
	case RDDP_SCTP_FC_NEGOTIATE:
		/* §3.3: a passive side answers a round before its Accept */
		return !active && s->tx == RDDP_SCTP_PHASE_NEGOTIATE ?
		       RDDP_SCTP_SETUP_NEGOTIATE : RDDP_SCTP_SETUP_NONE;
	case RDDP_SCTP_FC_INITIATE:
		return active ? RDDP_SCTP_SETUP_BOTH_ACTIVE :
				RDDP_SCTP_SETUP_REQUEST;
	case RDDP_SCTP_FC_ACCEPT:
		return RDDP_SCTP_SETUP_ACCEPTED;
	case RDDP_SCTP_FC_TERMINATE:
		return RDDP_SCTP_SETUP_REJECTED;
	default:
		/* a Segment: sess_rx took it only after the peer's Initiate */
		return -RDDP_SCTP_ERR_SEQ_SEGMENT;
	}
}

int rddp_sctp_setup_rx(struct rddp_sctp_sess *s, bool active, u16 msg)
{
	struct rddp_sctp_sess before = *s;
	enum rddp_sctp_err err;
	int what;

	err = rddp_sctp_sess_rx(s, msg);
	if (err != RDDP_SCTP_OK)
		return -(int)err;
	what = rddp_sctp_setup_what(s, active, msg);
	if (what < 0)
		*s = before;
	return what;
}
