// SPDX-License-Identifier: GPL-2.0
/*
 * The RX engine of a connected QP (stream.h): DDP and RDMAP above the LLP
 * (llp.h). The LLP (llp_mpa.c: the core's deframer over TCP) hands over
 * each DDP segment's header and payload as spans of its buffers
 * (rddp_ddp_rx_ops), which are checked (RFC 5041 §7.1, RFC 5040 §5) and
 * copied once, straight into the target memory. Nothing is completed
 * before the LLP has found the segment intact (fpdu_done: MPA's CRC
 * verified). Every error becomes a Terminate (rddp_stream_error()), and
 * nothing more is read from the stream.
 */
#include <linux/skbuff.h>
#include <net/sock.h>
#include <rddp/wire.h>

#include "qp_rx.h"
#include "qp_tx.h"
#include "rddp.h"
#include "stream.h"
#include "trace.h"

enum rddp_rx_target {
	RDDP_RX_NONE,
	RDDP_RX_TAGGED,		/* Write or Read Response into rx_tsg */
	RDDP_RX_SEND,		/* Send into the receive buffer */
	RDDP_RX_SMALL,		/* Read Request or Terminate into rx_small */
	RDDP_RX_DISCARD,	/* zero-length RTR Send */
};

static enum rddp_err rddp_rx_mr_err(int err, bool rdmap)
{
	switch (err) {
	case -EACCES:
		return RDDP_ERR_RDMAP_P_ACCESS;
	case -EPERM:
		return rdmap ? RDDP_ERR_RDMAP_P_STAG_STREAM :
			       RDDP_ERR_DDP_T_STAG_STREAM;
	case -EOVERFLOW:
		return rdmap ? RDDP_ERR_RDMAP_P_TO_WRAP : RDDP_ERR_DDP_T_TO_WRAP;
	case -ERANGE:
		return rdmap ? RDDP_ERR_RDMAP_P_BASE_BOUNDS :
			       RDDP_ERR_DDP_T_BASE_BOUNDS;
	default:
		return rdmap ? RDDP_ERR_RDMAP_P_INVALID_STAG :
			       RDDP_ERR_DDP_T_INVALID_STAG;
	}
}

/*
 * Report @err for the segment being received and stop reading. The
 * Terminate's DDP Segment Length is the length of that segment's ULPDU,
 * header included (RFC 5040 §4.8).
 */
static int rddp_rx_fail(struct rddp_stream *s, enum rddp_err err,
			const u8 *rreq)
{
	rddp_sg_release(&s->rx_tsg);
	rddp_sg_release(&s->rx_sg);
	rddp_stream_error(s, err, s->rx_raw_hdr, s->rx_hdr.hdr_len,
			  s->rx_hdr.hdr_len + s->rx_seg_len, rreq);
	return -1;
}

/*
 * A Read Response segment against the Read at the head of the ORQ (RFC 5040
 * §5.4: responses arrive in request order). The response fills the sink
 * [sink_to, sink_to + size) front to back (RFC 5040 §4.5: the Data Source
 * sends the requested bytes in order; RFC 5041 §7.2 base/bounds): each
 * segment must start where the previous one ended and the last one must end
 * at the sink's end, or the Read would complete over bytes never received.
 */
static enum rddp_err rddp_rx_read_resp_check(struct rddp_stream *s, u32 len)
{
	struct rddp_hdr *h = &s->rx_hdr;
	struct rddp_read *o = NULL;
	enum rddp_err err;

	spin_lock(&s->lock);
	if (s->orq_get != s->orq_put)
		o = rddp_orq_slot(s, s->orq_get);
	spin_unlock(&s->lock);
	if (!o)
		return RDDP_ERR_RDMAP_O_OPCODE;
	if (h->stag != o->req.sink_stag)
		return RDDP_ERR_DDP_T_INVALID_STAG;
	err = rddp_ddp_check_tagged(h->to, len, o->req.sink_to, o->req.size,
				    false);
	if (err)
		return err;
	/* The head slot is RX's until orq_get moves past it. */
	if (h->to != o->req.sink_to + o->resp_len ||
	    (h->last && o->resp_len + len != o->req.size))
		return RDDP_ERR_DDP_T_BASE_BOUNDS;
	o->resp_len += len;
	return RDDP_ERR_NONE;
}

static int rddp_rx_tagged(struct rddp_stream *s, u32 len)
{
	struct rddp_hdr *h = &s->rx_hdr;
	struct rddp_qp *qp = s->qp;
	enum rddp_err err;
	int access = IB_ACCESS_REMOTE_WRITE;
	int ret;

	if (h->opcode == RDDP_OP_READ_RESP) {
		err = rddp_rx_read_resp_check(s, len);
		if (err)
			return rddp_rx_fail(s, err, NULL);
		access = IB_ACCESS_LOCAL_WRITE;
	}
	s->rx_target = RDDP_RX_TAGGED;
	rddp_sg_init(&s->rx_tsg);
	if (!len)
		return 0;	/* nothing to place: no buffer is validated */
	ret = rddp_sg_add(&s->rx_tsg, qp->rdev, h->stag, qp->base.pd, access,
			  h->to, len);
	if (ret)
		return rddp_rx_fail(s, rddp_rx_mr_err(ret, false), NULL);
	return 0;
}

/*
 * Whether a Send's segments must come in MO order, each starting where
 * the octets placed so far end, or may come in any (rddp_ddp_cover_add(),
 * RFC 5041 §5.3: the Data Source SHOULD send them in increasing MO).
 * Over TCP the stream is the sender's order and MO order is required, as
 * siw does. Over SCTP the LLP restores the sender's order by DDP-SSN
 * (draft-ietf-rddp-sctp-00 §2.2.1, §7) before handing segments up, so
 * only a sender that submitted them out of MO order shows one; it is
 * taken, within RDDP_DDP_COVER_RUNS runs. Either way the segment with L
 * set must leave the message whole (RFC 5041 §5.4), or the receive never
 * completes: a Terminate, "invalid MO" (RFC 5041 §7.2).
 */
static bool rddp_rx_mo_in_order(const struct rddp_stream *s)
{
	return s->llp->mo_in_order;	/* llp.h */
}

static int rddp_rx_send(struct rddp_stream *s, u32 len)
{
	struct rddp_hdr *h = &s->rx_hdr;
	struct rddp_qp *qp = s->qp;
	struct siw_rqe *rqe = &s->rx_rqe;
	struct ib_pd *pd;
	enum rddp_err err;
	int i, ret = 0;

	if (!s->rx_rqe_valid) {
		if (h->msn != s->rx_msn[RDDP_QN_SEND])
			return rddp_rx_fail(s, RDDP_ERR_DDP_U_MSN_RANGE, NULL);
		if (rddp_qp_rq_next(qp, rqe))
			return rddp_rx_fail(s, RDDP_ERR_DDP_U_NO_BUF, NULL);
		s->rx_rqe_valid = true;
		rddp_ddp_cover_init(&s->rx_cover);
		rddp_sg_init(&s->rx_sg);
		/* An SRQ's receives belong to the SRQ's PD, not the QP's. */
		pd = qp->srq ? qp->srq->base.pd : qp->base.pd;
		for (i = 0; i < rqe->num_sge && !ret; i++)
			ret = rddp_sg_add(&s->rx_sg, qp->rdev, rqe->sge[i].lkey,
					  pd, IB_ACCESS_LOCAL_WRITE,
					  rqe->sge[i].laddr, rqe->sge[i].length);
		if (ret) {
			/* A local error: the receive completes in error. */
			rddp_sg_release(&s->rx_sg);
			s->rx_rqe_valid = false;
			rddp_qp_rq_complete(qp, rqe, SIW_WC_LOC_PROT_ERR, 0, 0,
					    false);
			return rddp_rx_fail(s, RDDP_ERR_DDP_CATASTROPHIC, NULL);
		}
	}
	/* RFC 5041 §7.1: MSN window, MO and length against the buffer */
	err = rddp_ddp_check_untagged(h, len, s->rx_msn[RDDP_QN_SEND], 1,
				      s->rx_sg.total);
	if (!err)
		err = rddp_ddp_cover_add(&s->rx_cover, h->mo, len, h->last,
					 rddp_rx_mo_in_order(s), &s->rx_msg_len);
	if (err)
		return rddp_rx_fail(s, err, NULL);
	if (rddp_sg_seek(&s->rx_sg, h->mo))
		return rddp_rx_fail(s, RDDP_ERR_DDP_U_MO, NULL);
	s->rx_target = RDDP_RX_SEND;
	return 0;
}

/*
 * RFC 6581 §9.1.1: the responder's first FPDU must be the zero-length RTR
 * message it selected in its Reply: a Send (the first Send message, MSN 1),
 * an RDMA Write, or a Read Request (its size, zero, is checked once its
 * payload is in: rddp_rx_read_req()). Anything else is "no matching RTR"
 * (RFC 6581 §3.2, Terminate LLP code 0x07); a Send that is not the RTR
 * never consumes a receive.
 */
static bool rddp_rx_is_rtr(const struct rddp_stream *s, u32 payload_len)
{
	const struct rddp_hdr *h = &s->rx_hdr;

	switch (s->p.rtr) {
	case RDDP_MPA_RTR_SEND:
		return !h->tagged && h->opcode == RDDP_OP_SEND && h->last &&
		       !payload_len && !h->mo &&
		       h->msn == s->rx_msn[RDDP_QN_SEND];
	case RDDP_MPA_RTR_WRITE:
		return h->tagged && h->opcode == RDDP_OP_WRITE && h->last &&
		       !payload_len;
	case RDDP_MPA_RTR_READ:
		return !h->tagged && h->opcode == RDDP_OP_READ_REQ &&
		       h->qn == RDDP_QN_READ_REQ;
	default:
		return false;
	}
}

/* Deframer: a segment's header (not yet CRC-checked). */
static int rddp_rx_header(void *ctx, const u8 *raw, u32 hdr_len,
			  u32 payload_len)
{
	struct rddp_stream *s = ctx;
	struct rddp_hdr *h = &s->rx_hdr;
	enum rddp_err err;

	memcpy(s->rx_raw_hdr, raw, min_t(u32, hdr_len, sizeof(s->rx_raw_hdr)));
	s->rx_seg_len = payload_len;
	s->rx_small_len = 0;
	s->rx_target = RDDP_RX_NONE;
	err = rddp_hdr_parse(raw, hdr_len, payload_len, h);
	if (err)
		return rddp_rx_fail(s, err, NULL);

	if (s->rx_rtr_pending) {
		if (!rddp_rx_is_rtr(s, payload_len))
			return rddp_rx_fail(s, RDDP_ERR_LLP_NO_MATCHING_RTR,
					    NULL);
		if (s->p.rtr != RDDP_MPA_RTR_READ) {
			/* nothing to place, no receive consumed */
			if (!h->tagged)
				s->rx_msn[RDDP_QN_SEND]++;
			s->rx_target = RDDP_RX_DISCARD;
			return 0;
		}
		/* a zero-length Read Request: answered as any other */
	}

	if (h->tagged)
		return rddp_rx_tagged(s, payload_len);
	switch (h->qn) {
	case RDDP_QN_SEND:
		return rddp_rx_send(s, payload_len);
	case RDDP_QN_READ_REQ:
	case RDDP_QN_TERMINATE:
		/* rddp_hdr_parse() bounded these messages' shape. */
		if (h->msn != s->rx_msn[h->qn] || h->mo ||
		    payload_len > sizeof(s->rx_small))
			return rddp_rx_fail(s, RDDP_ERR_DDP_U_MSN_RANGE, NULL);
		s->rx_target = RDDP_RX_SMALL;
		return 0;
	default:
		return rddp_rx_fail(s, RDDP_ERR_DDP_U_QN, NULL);
	}
}

/* Deframer: payload bytes of the current segment, as a span of the skb. */
static int rddp_rx_payload(void *ctx, const u8 *data, u32 len)
{
	struct rddp_stream *s = ctx;
	int ret;

	switch (s->rx_target) {
	case RDDP_RX_TAGGED:
		/*
		 * The tagged buffer was deregistered or invalidated while
		 * the segment was arriving: RFC 5041 §7.2 "invalid STag".
		 */
		ret = rddp_sg_copy_in(&s->rx_tsg, data, len);
		if (ret)
			return rddp_rx_fail(s, ret == -ENOENT ?
					    RDDP_ERR_DDP_T_INVALID_STAG :
					    RDDP_ERR_DDP_CATASTROPHIC, NULL);
		return 0;
	case RDDP_RX_SEND:
		/* A receive buffer that went away is a local error. */
		if (rddp_sg_copy_in(&s->rx_sg, data, len))
			return rddp_rx_fail(s, RDDP_ERR_DDP_CATASTROPHIC, NULL);
		return 0;
	case RDDP_RX_SMALL:
		if (s->rx_small_len + len > sizeof(s->rx_small))
			return rddp_rx_fail(s, RDDP_ERR_DDP_CATASTROPHIC, NULL);
		memcpy(s->rx_small + s->rx_small_len, data, len);
		s->rx_small_len += len;
		return 0;
	default:
		return 0;
	}
}

/* A Read Request is in; @rtr: it is the first FPDU of a Read-RTR stream. */
static int rddp_rx_read_req(struct rddp_stream *s, bool rtr)
{
	struct rddp_qp *qp = s->qp;
	struct rddp_read_req r;
	struct rddp_read *slot;
	struct rddp_mr *mr;
	bool full;

	if (s->rx_small_len != RDDP_RDMAP_RREQ_LEN)
		return rddp_rx_fail(s, RDDP_ERR_RDMAP_O_UNSPECIFIED, NULL);
	rddp_read_req_parse(s->rx_small, &r);
	if (rtr && r.size)	/* a Read RTR reads nothing */
		return rddp_rx_fail(s, RDDP_ERR_LLP_NO_MATCHING_RTR,
				    s->rx_small);
	s->rx_msn[RDDP_QN_READ_REQ]++;
	/* A zero-length Read (e.g. the RFC 6581 RTR) names no buffer. */
	if (r.size) {
		mr = rddp_mr_get(qp->rdev, r.src_stag, qp->base.pd,
				 IB_ACCESS_REMOTE_READ, r.src_to, r.size);
		if (IS_ERR(mr))
			return rddp_rx_fail(s, rddp_rx_mr_err(PTR_ERR(mr), true),
					    s->rx_small);
		rddp_mr_put(mr);
	}
	spin_lock(&s->lock);
	/* RFC 5040 §6.3: no more than IRD Read Requests outstanding */
	full = s->irq_put - s->irq_get >= s->p.ird;
	if (!full) {
		slot = rddp_irq_slot(s, s->irq_put);
		slot->req = r;
		slot->rtr = false;
		s->irq_put++;
	}
	spin_unlock(&s->lock);
	if (full) {
		/* Told apart from a Send without a receive in the log. */
		pr_info_ratelimited("rddp: QP %u: Read Request beyond IRD %u\n",
				    qp->base.qp_num, s->p.ird);
		return rddp_rx_fail(s, RDDP_ERR_DDP_U_NO_BUF, s->rx_small);
	}
	s->rx_reads_queued = true;	/* TX at the batch's end */
	return 0;
}

void rddp_rx_batch_end(struct rddp_stream *s)
{
	if (!s->rx_reads_queued)
		return;
	s->rx_reads_queued = false;
	rddp_tx_kick(s->qp);
}

static int rddp_rx_terminate(struct rddp_stream *s)
{
	struct rddp_term t;
	enum rddp_err err;

	s->rx_msn[RDDP_QN_TERMINATE]++;
	trace_rddp_term_recv(s->qp->base.qp_num, s->rx_small, s->rx_small_len);
	err = rddp_term_parse(s->rx_small, s->rx_small_len, &t);
	s->peer_terminated = true;
	if (!err) {
		s->term_rx.layer = t.layer;
		s->term_rx.etype = t.etype;
		s->term_rx.ecode = t.ecode;
		s->term_rx.valid = true;
		rddp_stream_term_account(s, true, &s->term_rx);
	}
	/* The peer writes these lines: rate-limited. */
	if (err)
		pr_info_ratelimited("rddp: QP %u: malformed Terminate received\n",
				    s->qp->base.qp_num);
	else
		pr_info_ratelimited("rddp: QP %u: Terminate received: layer %u type %u code 0x%02x (%s)\n",
				    s->qp->base.qp_num, t.layer, t.etype,
				    t.ecode,
				    rddp_term_to_err(&t) < RDDP_ERR_MAX ?
				    rddp_errors[rddp_term_to_err(&t)].name :
				    "unknown");
	/* RFC 5040 §5.3: the stream is over; no Terminate in return. */
	rddp_stream_error(s, RDDP_ERR_NONE, NULL, 0, 0, NULL);
	return -1;
}

/*
 * The last Read Response segment is placed: the Read is done, and with
 * local invalidate its sink's STag is invalidated first (IB_WR_RDMA_READ_
 * WITH_INV, which rdma_rw uses on iWARP). A failed invalidation completes
 * the Read in error and stops the stream.
 */
static int rddp_rx_read_resp_done(struct rddp_stream *s)
{
	struct rddp_read *o;
	struct rddp_sqw *w;
	int inval = 0;
	bool kick;

	/* The head slot is RX's until orq_get moves past it. */
	o = rddp_orq_slot(s, s->orq_get);
	if (!o->rtr && o->inval_stag) {
		inval = rddp_mr_invalidate(s->qp->rdev, o->inval_stag,
					   s->qp->base.pd);
		if (!inval)
			rddp_stat_inc(s->qp->rdev, RDDP_STAT_MR_LOCAL_INVALS);
	}
	spin_lock(&s->lock);
	s->orq_get++;
	if (!o->rtr) {
		w = rddp_sqw_slot(s, o->sqw);
		w->state = RDDP_SQW_DONE;
		w->status = inval ? SIW_WC_LOC_PROT_ERR : SIW_WC_SUCCESS;
		w->bytes = inval ? 0 : o->req.size;
	}
	/*
	 * An ORD slot is free again: TX, if it waits for one (or for every
	 * Read to finish before a fenced WQE), may go on. Set and read under
	 * the lock with orq_get, so no wakeup is lost and none is wasted.
	 */
	kick = s->tx_wants_read;
	s->tx_wants_read = false;
	spin_unlock(&s->lock);
	/* In order: earlier WQEs may still wait (RFC 5040 §5.5). */
	rddp_sqw_reap(s);
	if (inval) {
		rddp_stream_error(s, RDDP_ERR_RDMAP_CATASTROPHIC, NULL, 0, 0,
				  NULL);
		return -1;
	}
	if (kick)
		rddp_tx_kick(s->qp);
	return 0;
}

/*
 * A Send with Invalidate ends (RFC 5040 §5.1, Invalidate STag): the STag
 * is invalidated before the receive completes; one that is unknown, of
 * another PD or not invalidatable (not a fast-register MR) draws the
 * Terminate of RFC 5040 §7 and the receive is flushed with the stream.
 */
static int rddp_rx_send_inval(struct rddp_stream *s)
{
	switch (rddp_mr_invalidate(s->qp->rdev, s->rx_hdr.inval_stag,
				   s->qp->base.pd)) {
	case 0:
		rddp_stat_inc(s->qp->rdev, RDDP_STAT_MR_REMOTE_INVALS);
		return 0;
	case -ENOENT:
		return rddp_rx_fail(s, RDDP_ERR_RDMAP_P_INVALID_STAG, NULL);
	case -EPERM:
		return rddp_rx_fail(s, RDDP_ERR_RDMAP_P_STAG_STREAM, NULL);
	default:
		return rddp_rx_fail(s, RDDP_ERR_RDMAP_P_INVALIDATE, NULL);
	}
}

/* A good FPDU, in the QP's and the device's counters. */
static void rddp_rx_account(struct rddp_stream *s)
{
	struct rddp_device *rdev = s->qp->rdev;
	u32 bytes = s->rx_target == RDDP_RX_TAGGED ||
		    s->rx_target == RDDP_RX_SEND ? s->rx_seg_len : 0;

	WRITE_ONCE(s->rx_fpdus, s->rx_fpdus + 1);
	WRITE_ONCE(s->rx_bytes, s->rx_bytes + bytes);
	rddp_stat_inc(rdev, RDDP_STAT_RX_FPDUS);
	rddp_stat_add(rdev, RDDP_STAT_RX_BYTES, bytes);
}

/* Deframer: the FPDU's CRC is good; complete what it ends. */
static int rddp_rx_fpdu_done(void *ctx)
{
	struct rddp_stream *s = ctx;
	struct rddp_hdr *h = &s->rx_hdr;
	bool rtr = s->rx_rtr_pending, inval;
	u32 bytes;

	rddp_rx_account(s);
	if (rtr) {
		/* The responder may send from now on (RFC 6581 §9.1.1). */
		s->rx_rtr_pending = false;
		WRITE_ONCE(s->tx_blocked, false);
		rddp_tx_kick(s->qp);
	}
	switch (s->rx_target) {
	case RDDP_RX_TAGGED:
		rddp_sg_release(&s->rx_tsg);
		if (h->opcode == RDDP_OP_READ_RESP && h->last)
			return rddp_rx_read_resp_done(s);
		return 0;
	case RDDP_RX_SEND:
		if (!h->last)
			return 0;
		inval = h->opcode == RDDP_OP_SEND_INV ||
			h->opcode == RDDP_OP_SEND_SE_INV;
		if (inval && rddp_rx_send_inval(s))
			return -1;
		bytes = s->rx_msg_len;	/* rddp_rx_send(): all of it placed */
		rddp_sg_release(&s->rx_sg);
		s->rx_rqe_valid = false;
		s->rx_msn[RDDP_QN_SEND]++;
		rddp_qp_rq_complete(s->qp, &s->rx_rqe, SIW_WC_SUCCESS, bytes,
				    inval ? h->inval_stag : 0,
				    rddp_opcodes[h->opcode].solicited);
		return 0;
	case RDDP_RX_SMALL:
		if (h->qn == RDDP_QN_TERMINATE)
			return rddp_rx_terminate(s);
		return rddp_rx_read_req(s, rtr);
	default:
		return 0;
	}
}

const struct rddp_mpa_rx_ops rddp_ddp_rx_ops = {
	.header = rddp_rx_header,
	.payload = rddp_rx_payload,
	.fpdu_done = rddp_rx_fpdu_done,
};

/*
 * Whether [to, to + len) of @stag lies in the sink of a Read still awaiting
 * its response (RFC 5040 §4.5): a Read Response may only write there, not
 * into any local buffer. Slots orq_get .. orq_put are TX's until orq_put
 * passes them and RX's until orq_get does: read under s->lock.
 */
static bool rddp_rx_read_resp_sink(struct rddp_stream *s, u32 stag, u64 to,
				   u32 len)
{
	struct rddp_read *o;
	bool found = false;
	u32 i;

	spin_lock(&s->lock);
	for (i = s->orq_get; i != s->orq_put && !found; i++) {
		o = rddp_orq_slot(s, i);
		found = !o->rtr && o->req.sink_stag == stag &&
			!rddp_ddp_check_tagged(to, len, o->req.sink_to,
					       o->req.size, false);
	}
	spin_unlock(&s->lock);
	return found;
}

bool rddp_rx_place_tagged(struct rddp_stream *s, const u8 *raw, u32 hdr_len,
			  const u8 *payload, u32 len)
{
	struct rddp_qp *qp = s->qp;
	struct rddp_sg sg;
	struct rddp_hdr h;
	int access, ret;

	if (!len || s->rx_rtr_pending || atomic_read(&s->term_set) ||
	    rddp_hdr_parse(raw, hdr_len, len, &h) || !h.tagged)
		return false;
	if (h.opcode == RDDP_OP_WRITE)
		access = IB_ACCESS_REMOTE_WRITE;
	else if (h.opcode == RDDP_OP_READ_RESP &&
		 rddp_rx_read_resp_sink(s, h.stag, h.to, len))
		access = IB_ACCESS_LOCAL_WRITE;
	else
		return false;
	/* RFC 5041 §7.1: STag, PD, access, TO and length, before placing */
	rddp_sg_init(&sg);
	ret = rddp_sg_add(&sg, qp->rdev, h.stag, qp->base.pd, access, h.to,
			  len);
	if (!ret)
		ret = rddp_sg_copy_in(&sg, payload, len);
	rddp_sg_release(&sg);
	return !ret;
}

int rddp_rx_tagged_placed(struct rddp_stream *s, const u8 *raw, u32 hdr_len,
			  u32 len)
{
	int ret;

	/* The header's checks again: the STag may have gone meanwhile. */
	ret = rddp_rx_header(s, raw, hdr_len, len);
	if (ret)
		return ret;
	/* Not reachable: the same header was a tagged one when placed. */
	if (s->rx_target != RDDP_RX_TAGGED)
		return rddp_rx_fail(s, RDDP_ERR_DDP_CATASTROPHIC, NULL);
	return rddp_rx_fpdu_done(s);
}

void rddp_rx_flush(struct rddp_stream *s)
{
	rddp_sg_release(&s->rx_tsg);
	rddp_sg_release(&s->rx_sg);
	if (s->rx_rqe_valid) {
		s->rx_rqe_valid = false;
		rddp_qp_rq_complete(s->qp, &s->rx_rqe, SIW_WC_WR_FLUSH_ERR, 0,
				    0, false);
	}
}

/* ---- the RQ, for RX (queues.h) ---- */

int rddp_qp_rq_next(struct rddp_qp *qp, struct siw_rqe *out)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct siw_rqe *rqe;
	unsigned long fl;
	int ret = 0;

	if (state != IB_QPS_RTR && state != IB_QPS_RTS)
		return -ENOTCONN;
	if (qp->srq) {
		ret = rddp_srq_next(qp->srq, out);
		if (!ret)
			trace_rddp_rq_wqe(qp, out);
		return ret;
	}

	spin_lock_irqsave(&qp->rq_lock, fl);
	rqe = &qp->rq[qp->rq_get % qp->num_rqe];
	if (!rddp_slot_owned(rqe)) {
		ret = -ENOENT;
		goto out;
	}
	memcpy(out, rqe, sizeof(*out));
	out->num_sge = min_t(u8, out->num_sge, SIW_MAX_SGE);
	rddp_slot_set(rqe, 0);
	qp->rq_get++;
	trace_rddp_rq_wqe(qp, out);
out:
	spin_unlock_irqrestore(&qp->rq_lock, fl);
	return ret;
}

int rddp_qp_rq_complete(struct rddp_qp *qp, const struct siw_rqe *rqe,
			enum siw_wc_status status, u32 bytes, u32 inval_stag,
			bool solicited)
{
	struct rddp_cqe cqe = {
		.id = rqe->id,
		.opcode = SIW_OP_RECEIVE,
		.status = status,
		.bytes = bytes,
		.inval_stag = inval_stag,
		.flags = inval_stag ? SIW_WQE_REM_INVAL : 0,
		.qp = qp,
	};

	return rddp_cq_push(qp->rcq, &cqe, solicited);
}
