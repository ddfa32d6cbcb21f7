// SPDX-License-Identifier: GPL-2.0
/*
 * The TX engine of a connected QP (stream.h): turns SQ work requests, Read
 * Responses and the RTR into DDP segments (RFC 5041 §5.1) of at most MULPDU
 * octets and hands each to the stream's LLP (llp.h) to frame (MPA: an FPDU,
 * RFC 5044 §4) and write without blocking; a full socket parks the engine
 * until the LLP's write-space callback kicks it.
 *
 * Order (RFC 5040 §5.5): messages leave in the order they are taken. The
 * engine finishes the message it started before taking the next; between
 * messages, pending Read Responses go first, then the SQ. Completions leave
 * in the order WQEs were taken, through the stream's sqw ring.
 *
 * Zero copy (the device's tx_zcopy setting, on streams without CRC; see
 * struct rddp_stream_params; the writing is llp_mpa.c's): payload in pages
 * TCP may reference is lent to it by reference, the FPDU's own header,
 * markers, pad and CRC are copied. A Write or Send sent so completes only
 * when the LLP reports its last octet acknowledged (tx_mark, tx_acked):
 * until then a retransmission reads the application's buffer, which the
 * completion hands back. Writes and Sends below RDDP_TX_ZCOPY_MIN are
 * copied: they complete as soon as TCP holds them, where waiting for an ACK
 * would cost more than the copy saves (a peer that delays its ACKs holds
 * them up to 40 ms). Read Responses are never lent, nor read in place: each
 * FPDU's payload is copied out of the MR while it still answers to the STag
 * (rddp_tx_copy(), mem.h), so that the peer never gets an octet written
 * after ibv_dereg_mr or an invalidation returned.
 */
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/sched/isolation.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "qp_tx.h"
#include "rddp.h"
#include "stream.h"
#include "trace.h"

/* FPDUs written per run of the work item before yielding the worker. */
#define RDDP_TX_BUDGET	256
/*
 * FPDUs a doorbell writes in the poster's syscall before it hands the rest
 * to the work item: small messages leave without a worker's wakeup (the
 * latency siw gets by sending in the poster's context), large ones do not
 * hold the caller long.
 */
#define RDDP_TX_INLINE_BUDGET	16

/*
 * The TX work items' queue: per CPU and high priority, so a work item runs
 * on the CPU that kicked it (RX answering a Read Request in softirq, a
 * doorbell, TCP's write_space) as soon as that CPU leaves softirq, instead
 * of waiting for an unbound worker to be woken elsewhere or for a busy
 * poller's time slice to end (a user task's post is the exception:
 * rddp_tx_kick_posted()). Each run is bounded by RDDP_TX_BUDGET and
 * stops when the socket is full, so it does not monopolise the CPU.
 */
static struct workqueue_struct *rddp_tx_wq;

/*
 * The CPU whose worker runs the TX for a post a user task made: the next
 * online CPU after this one that takes unbound kernel work (not isolated:
 * HK_TYPE_WQ), or WORK_CPU_UNBOUND (queue_work(): this CPU) if there is
 * none but this one. A CPU that goes offline after the choice runs the
 * work on another (queue_work_on()).
 */
static int rddp_tx_far_cpu(void)
{
	const struct cpumask *hk = housekeeping_cpumask(HK_TYPE_WQ);
	int here = raw_smp_processor_id();	/* a hint: we may move */
	int cpu;

	cpu = cpumask_next_and(here, cpu_online_mask, hk);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first_and(cpu_online_mask, hk);
	return cpu < nr_cpu_ids && cpu != here ? cpu : WORK_CPU_UNBOUND;
}

/* Queue @qp's TX work on @cpu's worker; false if queued already or stopped. */
static bool rddp_tx_queue(struct rddp_qp *qp, int cpu)
{
	struct rddp_stream *s;
	bool queued = false;

	/* RCU: a reconnect of the QP frees its old stream (stream.h). */
	rcu_read_lock();
	s = READ_ONCE(qp->stream);
	if (s && !READ_ONCE(s->stopped))
		queued = queue_work_on(cpu, rddp_tx_wq, &qp->tx_work);
	rcu_read_unlock();
	return queued;
}

void rddp_tx_kick(struct rddp_qp *qp)
{
	rddp_tx_queue(qp, WORK_CPU_UNBOUND);
}

void rddp_tx_kick_posted(struct rddp_qp *qp)
{
	int cpu = WORK_CPU_UNBOUND;

	if (in_task() && !(current->flags & PF_KTHREAD))
		cpu = rddp_tx_far_cpu();
	if (rddp_tx_queue(qp, cpu) && cpu != WORK_CPU_UNBOUND)
		rddp_stat_inc(qp->rdev, RDDP_STAT_TX_FAR_KICKS);
}

int rddp_tx_init(void)
{
	rddp_tx_wq = alloc_workqueue("rddp_tx", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return rddp_tx_wq ? 0 : -ENOMEM;
}

void rddp_tx_exit(void)
{
	destroy_workqueue(rddp_tx_wq);
}

/* ---- completions, in order (stream.h: struct rddp_sqw) ---- */

/* A zero-copy WQE whose last octet TCP has acknowledged (@una) is done. */
static void rddp_sqw_check_ack(struct rddp_stream *s, struct rddp_sqw *w,
			       u32 una)
{
	if (w->state == RDDP_SQW_ACK && !before(una, w->ack_seq)) {
		trace_rddp_zcopy_ack(s->qp, w->id, w->bytes, w->ack_seq);
		w->state = RDDP_SQW_DONE;
		w->status = SIW_WC_SUCCESS;
		s->sqw_acks--;
	}
}

/* tx_acked() watches before it reads: an ACK after the read finds it. */
void rddp_sqw_reap(struct rddp_stream *s)
{
	struct rddp_qp *qp = s->qp;
	bool kick = false;
	u32 una;

	spin_lock_bh(&s->lock);
	una = s->llp->tx_acked(s, s->sqw_acks);
	while (s->sqw_get != s->sqw_put) {
		struct rddp_sqw *w = rddp_sqw_slot(s, s->sqw_get);

		rddp_sqw_check_ack(s, w, una);
		if (w->state != RDDP_SQW_DONE)
			break;
		rddp_qp_sq_complete(qp, w->id, w->opcode, w->flags, w->status,
				    w->bytes);
		s->sqw_get++;
		if (s->tx_sqw_full) {
			s->tx_sqw_full = false;
			kick = true;
		}
	}
	spin_unlock_bh(&s->lock);
	if (kick)
		rddp_tx_kick(qp);
}

/* Take a sqw entry for the SQE TX is about to take; false if none free. */
static bool rddp_sqw_reserve(struct rddp_stream *s)
{
	bool ok;

	spin_lock_bh(&s->lock);
	ok = s->sqw_put - s->sqw_get < s->sqw_size;
	s->tx_sqw_full = !ok;
	spin_unlock_bh(&s->lock);
	return ok;
}

static void rddp_sqw_push(struct rddp_stream *s)
{
	struct rddp_sqw *w;

	spin_lock_bh(&s->lock);
	s->tx_sqw = s->sqw_put++;
	w = rddp_sqw_slot(s, s->tx_sqw);
	w->id = s->tx_sqe.id;
	w->opcode = s->tx_sqe.opcode;
	w->flags = s->tx_sqe.flags;
	w->bytes = 0;
	w->state = RDDP_SQW_SENDING;
	spin_unlock_bh(&s->lock);
}

/* The current SQE is finished (@status, @bytes) or waits for TCP's ACK. */
static void rddp_sqw_finish(struct rddp_stream *s, enum siw_wc_status status,
			    u32 bytes, bool wait_ack)
{
	struct rddp_sqw *w;

	spin_lock_bh(&s->lock);
	w = rddp_sqw_slot(s, s->tx_sqw);
	w->bytes = bytes;
	w->status = status;
	if (wait_ack) {
		/* TX is the only writer: the LLP's mark ends this message. */
		w->ack_seq = s->llp->tx_mark(s);
		w->state = RDDP_SQW_ACK;
		s->sqw_acks++;
	} else {
		w->state = RDDP_SQW_DONE;
	}
	spin_unlock_bh(&s->lock);
	rddp_sqw_reap(s);
}

/* ---- jobs ---- */

static bool rddp_tx_sqe_is_read(const struct siw_sqe *sqe)
{
	return sqe->opcode == SIW_OP_READ ||
	       sqe->opcode == SIW_OP_READ_LOCAL_INV;
}

/* Complete an SQE that failed locally and stop the QP (RFC 5040 §7.1). */
static void rddp_tx_local_error(struct rddp_stream *s,
				enum siw_wc_status status)
{
	rddp_sqw_finish(s, status, 0, false);
	s->tx_kind = RDDP_TX_NONE;
	rddp_sg_release(&s->tx_sg);
	rddp_stream_error(s, RDDP_ERR_RDMAP_CATASTROPHIC, NULL, 0, 0, NULL);
}

static int rddp_mr_err_to_wc(int err)
{
	return err == -EACCES || err == -EPERM ? SIW_WC_LOC_ACCESS_ERR :
						 SIW_WC_LOC_PROT_ERR;
}

/*
 * A memory-management WQE (IB_WR_REG_MR, IB_WR_LOCAL_INV): executed here,
 * in SQ order, so that a later WQE of the same SQ (a Send advertising the
 * STag) sees its effect (mem.h gives the rules). A failure completes the
 * WQE in error and stops the QP, as every local error does.
 */
static int rddp_tx_mem_op(struct rddp_stream *s)
{
	struct rddp_qp *qp = s->qp;
	struct siw_sqe *sqe = &s->tx_sqe;
	int ret;

	if (sqe->opcode == SIW_OP_REG_MR) {
		/* base_mr is a kernel pointer: kernel QPs only. */
		ret = qp->user ? -EINVAL :
		      rddp_mr_fast_reg((struct ib_mr *)(uintptr_t)sqe->base_mr,
				       qp->base.pd, sqe->rkey, (int)sqe->access);
	} else {
		ret = rddp_mr_invalidate(qp->rdev, sqe->rkey, qp->base.pd);
	}
	if (ret) {
		rddp_tx_local_error(s, ret == -EINVAL ? SIW_WC_LOC_QP_OP_ERR :
					rddp_mr_err_to_wc(ret));
		return ret;
	}
	rddp_stat_inc(qp->rdev, sqe->opcode == SIW_OP_REG_MR ?
				RDDP_STAT_MR_FAST_REGS :
				RDDP_STAT_MR_LOCAL_INVALS);
	rddp_sqw_finish(s, SIW_WC_SUCCESS, 0, false);
	return 1;
}

/*
 * Resolve the local buffers of the SQE just taken. Returns 0 when it is a
 * message to send, > 0 when it was a local operation that is finished
 * already, < 0 when it failed (and was completed).
 */
static int rddp_tx_sqe_setup(struct rddp_stream *s)
{
	struct rddp_qp *qp = s->qp;
	struct siw_sqe *sqe = &s->tx_sqe;
	int i, ret = 0;

	rddp_sg_init(&s->tx_sg);
	s->tx_off = 0;
	s->tx_started = false;
	s->tx_lent = false;
	switch (sqe->opcode) {
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_WRITE:
		break;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		s->tx_len = sqe->num_sge ? sqe->sge[0].length : 0;
		return 0;	/* the sink is checked when data arrives */
	case SIW_OP_REG_MR:
	case SIW_OP_INVAL_STAG:
		return rddp_tx_mem_op(s);
	default:
		/* Immediate data, atomics: not supported. */
		rddp_sqw_finish(s, SIW_WC_LOC_QP_OP_ERR, 0, false);
		return -EOPNOTSUPP;
	}
	if (sqe->flags & SIW_WQE_INLINE) {
		ret = rddp_sg_add_kva(&s->tx_sg, &sqe->sge[1],
				      min_t(u32, sqe->sge[0].length,
					    SIW_MAX_INLINE));
	} else {
		for (i = 0; i < sqe->num_sge && !ret; i++)
			ret = rddp_sg_add(&s->tx_sg, qp->rdev, sqe->sge[i].lkey,
					  qp->base.pd, 0, sqe->sge[i].laddr,
					  sqe->sge[i].length);
	}
	if (ret) {
		rddp_tx_local_error(s, ret == -E2BIG ? SIW_WC_LOC_LEN_ERR :
				       rddp_mr_err_to_wc(ret));
		return ret;
	}
	s->tx_len = s->tx_sg.total;
	return 0;
}

/* The Read Response for the IRQ head (RFC 5040 §4.5). */
static int rddp_tx_read_resp_setup(struct rddp_stream *s)
{
	struct rddp_qp *qp = s->qp;
	struct rddp_read_req *r = &s->tx_read.req;
	u8 raw[RDDP_RDMAP_RREQ_LEN];
	int ret;

	rddp_sg_init(&s->tx_sg);
	s->tx_off = 0;
	s->tx_started = false;
	s->tx_len = r->size;
	ret = rddp_sg_add(&s->tx_sg, qp->rdev, r->src_stag, qp->base.pd,
			  IB_ACCESS_REMOTE_READ, r->src_to, r->size);
	if (ret) {
		/* Deregistered since RX checked it. */
		rddp_read_req_build(r, raw);
		s->tx_kind = RDDP_TX_NONE;
		rddp_stream_error(s, RDDP_ERR_RDMAP_P_INVALID_STAG, NULL, 0, 0,
				  raw);
	}
	return ret;
}

/* Pick the next message; false when there is nothing to send now. */
static bool rddp_tx_next_job(struct rddp_stream *s)
{
	bool have = false;

	if (s->tx_rtr_pending) {
		s->tx_kind = RDDP_TX_RTR;
		s->tx_len = 0;
		s->tx_off = 0;
		s->tx_started = false;
		rddp_sg_init(&s->tx_sg);
		return true;
	}
	if (READ_ONCE(s->tx_blocked))
		return false;	/* RX clears it when the RTR arrives */

	/*
	 * The Read Request is copied out and its IRQ slot freed now, before
	 * any of the response is written: once the last byte reaches the
	 * requester it may send its next Read (RFC 5040 §6.3, ORD), and over
	 * a fast link (loopback) that Read can arrive while this run is still
	 * inside kernel_sendmsg().
	 */
	spin_lock_bh(&s->lock);
	if (s->irq_get != s->irq_put) {
		s->tx_read = *rddp_irq_slot(s, s->irq_get);
		s->irq_get++;
		have = true;
	}
	spin_unlock_bh(&s->lock);
	if (have) {
		s->tx_kind = RDDP_TX_READ_RESP;
		return !rddp_tx_read_resp_setup(s);
	}

	while (rddp_sqw_reserve(s) && !rddp_qp_sq_next(s->qp, &s->tx_sqe)) {
		rddp_sqw_push(s);
		s->tx_kind = RDDP_TX_SQE;
		/* A local operation (> 0) is done: take the next SQE. */
		if (!rddp_tx_sqe_setup(s))
			return true;
		s->tx_kind = RDDP_TX_NONE;
		if (READ_ONCE(s->qp->state) != IB_QPS_RTS ||
		    atomic_read(&s->term_set))
			return false;
	}
	return false;
}

/*
 * Whether an SQE may start: a Read needs a free ORD slot (RFC 5040 §6.3,
 * ORD) and a fenced WQE waits for every outstanding Read (IB_SEND_FENCE).
 */
static bool rddp_tx_may_start(struct rddp_stream *s)
{
	bool ok = true;
	u32 inflight;

	if (s->tx_kind != RDDP_TX_SQE || s->tx_started)
		return true;
	spin_lock_bh(&s->lock);
	inflight = s->orq_put - s->orq_get;
	if (rddp_tx_sqe_is_read(&s->tx_sqe) && inflight >= s->p.ord)
		ok = false;
	if ((s->tx_sqe.flags & SIW_WQE_READ_FENCE) && inflight)
		ok = false;
	/* RX kicks TX at the next Read Response only if it must. */
	s->tx_wants_read = !ok;
	spin_unlock_bh(&s->lock);
	return ok;
}

/* ---- segments ---- */

static void rddp_tx_push_orq(struct rddp_stream *s, const struct rddp_read_req *r,
			     bool rtr)
{
	struct rddp_read *o;

	spin_lock_bh(&s->lock);
	o = rddp_orq_slot(s, s->orq_put);
	o->req = *r;
	o->rtr = rtr;
	o->inval_stag = 0;
	o->resp_len = 0;
	if (!rtr && s->tx_sqe.opcode == SIW_OP_READ_LOCAL_INV)
		o->inval_stag = s->tx_sqe.sge[0].lkey;
	if (!rtr) {
		o->sqw = s->tx_sqw;
		rddp_sqw_slot(s, s->tx_sqw)->state = RDDP_SQW_READ;
	}
	s->orq_put++;
	spin_unlock_bh(&s->lock);
}

/*
 * Whether the job's payload is copied out of its MRs one FPDU at a time
 * (rddp_tx_copy()): a Read Response from any MR, and a WQE's payload from
 * a fast-register MR, whose page list is read only under its lock (mem.h).
 */
static bool rddp_tx_copies(const struct rddp_stream *s)
{
	return s->tx_kind == RDDP_TX_READ_RESP ||
	       (s->tx_kind == RDDP_TX_SQE && rddp_sg_has_fr(&s->tx_sg));
}

/*
 * The next @seg octets of the job, copied out of its MRs while they still
 * answer to their STags (mem.h). A Read Response has no WQE: the peer that
 * asked for it may keep it parked behind its closed window while the
 * application deregisters the MR and writes the buffer again, or while a
 * kernel consumer gets a fast-register MR's memory back by the peer's own
 * Send with Invalidate (RFC 5040 §5.1). Copied here, checked per chunk,
 * never lent to TCP, its FPDUs carry only octets from before that; the
 * first FPDU after it ends the stream as a Read Request for an invalid
 * STag does (RFC 5040 §7, Remote Protection Error, RFC 5041 §7.2). A WQE
 * whose fast-register MR was invalidated under it fails locally.
 */
static int rddp_tx_copy(struct rddp_stream *s, u32 hdr_len, u32 seg,
			struct rddp_span *frag)
{
	u8 raw[RDDP_RDMAP_RREQ_LEN];
	u8 *to = NULL;

	/* Where the LLP's write finds it in place, if it has such a place. */
	if (s->llp->tx_copy_to)
		to = s->llp->tx_copy_to(s, hdr_len, seg);
	if (!to && !s->tx_copy) {
		s->tx_copy = kvmalloc(RDDP_FPDU_MAX_ULPDU, GFP_KERNEL);
		if (!s->tx_copy)
			return -ENOMEM;
	}
	if (!to)
		to = s->tx_copy;
	if (rddp_sg_copy_out(&s->tx_sg, to, seg)) {
		if (s->tx_kind == RDDP_TX_SQE) {
			rddp_tx_local_error(s, SIW_WC_LOC_PROT_ERR);
			return -ENOENT;
		}
		rddp_read_req_build(&s->tx_read.req, raw);
		rddp_stream_error(s, RDDP_ERR_RDMAP_P_INVALID_STAG, NULL, 0, 0,
				  raw);
		return -ENOENT;
	}
	frag->base = to;
	frag->len = seg;
	return 0;
}

/*
 * The job's Read Request (RFC 5040 §4.4: untagged, QN 1) into s->tx_fpdu:
 * the Read WQE's, or the RTR's zero-length Read (@rtr_read, RFC 6581
 * §9.1.1). @h is the header so far. Not inlined: its header buffer and
 * request would add to rddp_tx_build()'s frame, which KASAN's redzones
 * take past 1024 bytes.
 */
static noinline_for_stack int rddp_tx_build_read_req(struct rddp_stream *s,
						     struct rddp_hdr *h,
						     bool rtr_read)
{
	u8 hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	struct rddp_read_req r = { 0 };
	struct rddp_span frag;
	u32 hdr_len;
	int ret;

	if (!rtr_read) {
		r.sink_stag = s->tx_sqe.sge[0].lkey;
		r.sink_to = s->tx_sqe.sge[0].laddr;
		r.size = s->tx_len;
		r.src_stag = s->tx_sqe.rkey;
		r.src_to = s->tx_sqe.raddr;
	}
	/* The FPDU's spans point at it until it is written. */
	rddp_read_req_build(&r, s->tx_rreq);
	h->opcode = RDDP_OP_READ_REQ;
	h->qn = RDDP_QN_READ_REQ;
	h->msn = s->tx_msn[RDDP_QN_READ_REQ];
	h->last = true;
	hdr_len = rddp_hdr_build(h, hdr);
	frag.base = s->tx_rreq;
	frag.len = RDDP_RDMAP_RREQ_LEN;
	ret = s->llp->tx_frame(s, hdr, hdr_len, &frag, 1);
	if (ret)
		return ret;
	rddp_tx_push_orq(s, &r, rtr_read);
	s->tx_msn[RDDP_QN_READ_REQ]++;
	s->tx_fpdu_last = true;
	s->tx_fpdu_payload = 0;	/* a request, not data */
	s->tx_started = true;
	return 0;
}

/* Build the job's next FPDU into s->tx_fpdu. */
static int rddp_tx_build(struct rddp_stream *s)
{
	struct rddp_span frags[RDDP_FPDU_MAX_FRAGS];
	u8 hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	struct rddp_hdr h = { 0 };
	u32 hdr_len, seg, got, nr = 0;
	bool read_req = false, rtr_read = false, copied;
	int ret;

	switch (s->tx_kind) {
	case RDDP_TX_RTR:
		/* RFC 6581 §9.1.1: zero-length Write, Read or Send */
		if (s->p.rtr == RDDP_MPA_RTR_READ) {
			read_req = true;
			rtr_read = true;
		} else if (s->p.rtr == RDDP_MPA_RTR_SEND) {
			h.opcode = RDDP_OP_SEND;
			h.qn = RDDP_QN_SEND;
			h.msn = s->tx_msn[RDDP_QN_SEND];
		} else {
			h.opcode = RDDP_OP_WRITE;
		}
		break;
	case RDDP_TX_READ_RESP:
		h.opcode = RDDP_OP_READ_RESP;
		h.stag = s->tx_read.req.sink_stag;
		h.to = s->tx_read.req.sink_to + s->tx_off;
		break;
	case RDDP_TX_SQE:
		switch (s->tx_sqe.opcode) {
		case SIW_OP_WRITE:
			h.opcode = RDDP_OP_WRITE;
			h.stag = s->tx_sqe.rkey;
			h.to = s->tx_sqe.raddr + s->tx_off;
			break;
		case SIW_OP_READ:
		case SIW_OP_READ_LOCAL_INV:
			read_req = true;
			break;
		case SIW_OP_SEND_REMOTE_INV:
			h.opcode = (s->tx_sqe.flags & SIW_WQE_SOLICITED) ?
					   RDDP_OP_SEND_SE_INV : RDDP_OP_SEND_INV;
			h.inval_stag = s->tx_sqe.rkey;
			fallthrough;
		default:
			if (s->tx_sqe.opcode == SIW_OP_SEND)
				h.opcode = (s->tx_sqe.flags & SIW_WQE_SOLICITED) ?
						   RDDP_OP_SEND_SE : RDDP_OP_SEND;
			h.qn = RDDP_QN_SEND;
			h.msn = s->tx_msn[RDDP_QN_SEND];
			h.mo = s->tx_off;
			break;
		}
		break;
	default:
		return -EINVAL;
	}

	if (read_req)
		return rddp_tx_build_read_req(s, &h, rtr_read);

	hdr_len = rddp_opcodes[h.opcode].tagged ? RDDP_DDP_TAGGED_HDR_LEN :
						  RDDP_DDP_UNTAGGED_HDR_LEN;
	seg = rddp_ddp_seg_len(s->tx_len, s->tx_off, s->mulpdu, hdr_len);
	copied = rddp_tx_copies(s);
	if (copied) {
		ret = rddp_tx_copy(s, hdr_len, seg, &frags[0]);
		if (ret)
			return ret;
		got = seg;
		nr = 1;
	} else {
		got = rddp_sg_spans(&s->tx_sg, seg, frags, RDDP_FPDU_MAX_FRAGS,
				    &nr);
	}
	if (got && got <= RDDP_TX_BOUNCE && !copied) {
		u32 i, at = 0;

		for (i = 0; i < nr; i++) {
			memcpy(s->tx_bounce + at, frags[i].base, frags[i].len);
			at += frags[i].len;
		}
		frags[0].base = s->tx_bounce;
		frags[0].len = got;
		nr = 1;
	}
	h.last = s->tx_off + got == s->tx_len;
	hdr_len = rddp_hdr_build(&h, hdr);
	ret = s->llp->tx_frame(s, hdr, hdr_len, frags, nr);
	if (ret)
		return ret;
	s->tx_off += got;
	s->tx_fpdu_last = h.last;
	s->tx_fpdu_payload = got;
	s->tx_started = true;
	return 0;
}

/* The job's last FPDU is in the socket. */
static void rddp_tx_job_done(struct rddp_stream *s)
{
	switch (s->tx_kind) {
	case RDDP_TX_RTR:
		s->tx_rtr_pending = false;
		if (s->p.rtr == RDDP_MPA_RTR_SEND)
			s->tx_msn[RDDP_QN_SEND]++;
		break;
	case RDDP_TX_SQE:
		if (s->tx_sqe.opcode == SIW_OP_SEND ||
		    s->tx_sqe.opcode == SIW_OP_SEND_REMOTE_INV)
			s->tx_msn[RDDP_QN_SEND]++;
		/* A Read completes when its response has been placed (RX). */
		if (!rddp_tx_sqe_is_read(&s->tx_sqe))
			rddp_sqw_finish(s, SIW_WC_SUCCESS, s->tx_len,
					s->tx_lent);
		break;
	default:
		break;
	}
	rddp_sg_release(&s->tx_sg);
	s->tx_kind = RDDP_TX_NONE;
}

/* The FPDU just written, in the QP's and the device's counters. */
static void rddp_tx_account(struct rddp_stream *s)
{
	struct rddp_device *rdev = s->qp->rdev;

	WRITE_ONCE(s->tx_fpdus, s->tx_fpdus + 1);
	WRITE_ONCE(s->tx_bytes, s->tx_bytes + s->tx_fpdu_payload);
	rddp_stat_inc(rdev, RDDP_STAT_TX_FPDUS);
	rddp_stat_add(rdev, RDDP_STAT_TX_BYTES, s->tx_fpdu_payload);
}

/*
 * The LLP refused the segment just built (@ret, from tx_write): -EMSGSIZE
 * with MULPDU lowered from @mulpdu means the LLP's path now carries less
 * (SCTP: the path MTU fell, draft-ietf-rddp-sctp §6) and it took the
 * segment back, sequence number and all (llp.h). Take back the build too,
 * so that the next one starts at the same point of the message and cuts
 * a smaller segment at the new MULPDU (RFC 5041 §5.1): same offset, TO or
 * MO, and the DDP-SSN the refused one had (draft §2.2.1, §7). Only a
 * segment with payload can shrink; a Read Request or a zero-length
 * message cannot. Return: whether the segment is to be built again.
 */
static bool rddp_tx_unbuild(struct rddp_stream *s, int ret, u32 mulpdu)
{
	if (ret != -EMSGSIZE)
		return false;
	s->tx_fpdu_pending = false;	/* the LLP took it back */
	if (s->mulpdu >= mulpdu || !s->tx_fpdu_payload)
		return false;
	s->tx_off -= s->tx_fpdu_payload;
	return !WARN_ON_ONCE(rddp_sg_seek(&s->tx_sg, s->tx_off));
}

/*
 * The socket is full: sk_write_space kicks us; unless room came back
 * before it could see the flag (it frees room, then reads it). Returns
 * true when parked, false when there is room again (go on at once).
 */
static bool rddp_tx_park(struct rddp_stream *s)
{
	WRITE_ONCE(s->tx_wants_space, true);
	/* Flag before room: write_space does room, then flag. */
	smp_mb();
	if (!s->llp->tx_writeable(s)) {
		trace_rddp_tx_park(s->qp, s->sock->sk);
		return true;
	}
	WRITE_ONCE(s->tx_wants_space, false);
	return false;
}

/*
 * The TX engine: writes FPDUs until there is nothing to send, the socket is
 * full, an error stops the stream or @budget FPDUs are out. Returns false
 * only in the last case (more to send now). Caller holds qp->tx_mutex.
 *
 * Every FPDU is written with @more, the end of a message's too, and the
 * LLP pushed once the run has nothing more to write (rddp_tx_run()): the
 * messages a run finds queued leave together, as a ULP's chained work
 * requests mean them to (NVMe-oF's and iSER's Write and the response Send
 * behind it, in one TCP write, which MPA's stage makes of a run's FPDUs,
 * and one transmit), and none waits past the run.
 */
static bool rddp_tx_run_fpdus(struct rddp_stream *s, int budget)
{
	u32 mulpdu;
	int ret;

	lockdep_assert_held(&s->qp->tx_mutex);
	if (READ_ONCE(s->stopped))
		return true;
	while (!atomic_read(&s->term_set)) {
		if (!s->tx_fpdu_pending) {
			/* Between FPDUs: continue the message or take a new one. */
			if (s->tx_kind == RDDP_TX_NONE && !rddp_tx_next_job(s))
				return true;
			if (!rddp_tx_may_start(s))
				return true;	/* RX kicks us: tx_wants_read */
			if (rddp_tx_build(s)) {
				/* unless the build set a more precise error */
				rddp_stream_error(s, RDDP_ERR_RDMAP_CATASTROPHIC,
						  NULL, 0, 0, NULL);
				return true;
			}
			s->tx_fpdu_sent = 0;
			s->tx_fpdu_pending = true;
		}
		mulpdu = s->mulpdu;
		s->tx_unpushed = true;
		ret = s->llp->tx_write(s, true, false);
		if (ret == -EAGAIN)
			return rddp_tx_park(s);
		if (rddp_tx_unbuild(s, ret, mulpdu))
			continue;	/* MULPDU fell: build it again, smaller */
		if (ret) {
			rddp_stream_error(s, RDDP_ERR_LLP_CLOSED, NULL, 0, 0,
					  NULL);
			return true;
		}
		s->tx_fpdu_pending = false;
		rddp_tx_account(s);
		if (s->tx_fpdu_last)
			rddp_tx_job_done(s);
		if (--budget == 0)
			return false;
	}
	return true;
}

/*
 * The TX engine's run: FPDUs, then a push of what they held back. A push
 * that finds the socket full parks the engine like a write, and the run
 * after write_space pushes again (@tx_unpushed stays set). Each push is a
 * batch in the device's counters: tx_fpdus / tx_batches is how many FPDUs
 * a run found to hand the LLP at once.
 */
static bool rddp_tx_run(struct rddp_stream *s, int budget)
{
	bool done = rddp_tx_run_fpdus(s, budget);
	int ret;

	/* Not done: the run goes on at once (the worker's next turn). */
	if (!done || !s->tx_unpushed || READ_ONCE(s->stopped))
		return done;
	ret = s->llp->tx_push ? s->llp->tx_push(s) : 0;
	if (ret == -EAGAIN)
		return rddp_tx_park(s);
	s->tx_unpushed = false;
	if (ret)
		rddp_stream_error(s, RDDP_ERR_LLP_CLOSED, NULL, 0, 0, NULL);
	else
		rddp_stat_inc(s->qp->rdev, RDDP_STAT_TX_BATCHES);
	return true;
}

void rddp_tx_work(struct work_struct *work)
{
	struct rddp_qp *qp = container_of(work, struct rddp_qp, tx_work);
	struct rddp_stream *s;
	bool done = true;

	mutex_lock(&qp->tx_mutex);
	s = qp->stream;
	if (s)
		done = rddp_tx_run(s, RDDP_TX_BUDGET);
	mutex_unlock(&qp->tx_mutex);
	if (!done)
		rddp_tx_kick(qp);	/* yield the worker, then go on */
}

void rddp_tx_doorbell(struct rddp_qp *qp)
{
	bool done;

	if (!mutex_trylock(&qp->tx_mutex)) {
		rddp_tx_kick(qp);
		return;
	}
	done = !qp->stream || rddp_tx_run(qp->stream, RDDP_TX_INLINE_BUDGET);
	mutex_unlock(&qp->tx_mutex);
	if (!done)
		rddp_tx_kick(qp);
}

int rddp_tx_terminate_now(struct rddp_stream *s)
{
	u8 *payload = s->tx_term;
	u8 hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	struct rddp_hdr h = {
		.opcode = RDDP_OP_TERMINATE,
		.last = true,
		.qn = RDDP_QN_TERMINATE,
		.msn = s->tx_msn[RDDP_QN_TERMINATE],
	};
	u32 len, hdr_len, mulpdu;
	struct rddp_span frag;
	int ret;

	if (s->tx_fpdu_pending) {
		ret = s->llp->tx_write(s, true, true);
		/* -EMSGSIZE: the LLP took it back (llp.h); the Terminate goes */
		if (ret && ret != -EMSGSIZE)
			return ret;
		s->tx_fpdu_pending = false;
	}
	len = rddp_term_build(s->term_err, s->term_hdr_len ? s->term_hdr : NULL,
			      s->term_hdr_len, s->term_seg_len,
			      s->term_rreq ? s->term_rreq_hdr : NULL, payload);
	hdr_len = rddp_hdr_build(&h, hdr);
	/*
	 * The stream's memory, not this stack frame: with zero copy a span
	 * may be lent to TCP (llp_mpa.c), which sends it after we return.
	 */
	frag.base = payload;
	frag.len = len;
	/*
	 * One segment whatever MULPDU is (RFC 5040 §4.8): refused as too
	 * long, it is framed again while it fits the lowered MULPDU; each
	 * refusal lowers it, so this ends.
	 */
	do {
		mulpdu = s->mulpdu;
		ret = s->llp->tx_frame(s, hdr, hdr_len, &frag, 1);
		if (ret)
			return ret;
		s->tx_fpdu_sent = 0;
		ret = s->llp->tx_write(s, false, true);
	} while (ret == -EMSGSIZE && s->mulpdu < mulpdu &&
		 hdr_len + len <= s->mulpdu);
	if (ret)
		return ret;
	s->tx_msn[RDDP_QN_TERMINATE]++;
	trace_rddp_term_send(s->qp->base.qp_num, payload, len);
	return 0;
}

void rddp_tx_flush(struct rddp_stream *s)
{
	struct rddp_sqw *w;
	u32 una;

	spin_lock_bh(&s->lock);
	una = s->llp->tx_acked(s, false);
	s->orq_get = s->orq_put;
	for (; s->sqw_get != s->sqw_put; s->sqw_get++) {
		w = rddp_sqw_slot(s, s->sqw_get);
		rddp_sqw_check_ack(s, w, una);
		if (w->state != RDDP_SQW_DONE) {
			w->status = SIW_WC_WR_FLUSH_ERR;
			w->bytes = 0;
		}
		rddp_qp_sq_complete(s->qp, w->id, w->opcode, w->flags,
				    w->status, w->bytes);
	}
	s->sqw_acks = 0;
	spin_unlock_bh(&s->lock);
	rddp_sg_release(&s->tx_sg);
	s->tx_kind = RDDP_TX_NONE;
}

/* ---- the SQ, for TX (queues.h) ---- */

int rddp_qp_sq_next(struct rddp_qp *qp, struct siw_sqe *out)
{
	struct siw_sqe *sqe;
	unsigned long fl;
	int ret = 0;

	spin_lock_irqsave(&qp->sq_lock, fl);
	if (qp->state != IB_QPS_RTS) {
		ret = -ENOTCONN;
		goto out;
	}
	sqe = &qp->sq[qp->sq_get % qp->num_sqe];
	if (!rddp_slot_owned(sqe)) {
		ret = -ENOENT;
		goto out;
	}
	memcpy(out, sqe, sizeof(*out));
	out->num_sge = min_t(u8, out->num_sge, SIW_MAX_SGE);
	rddp_slot_set(sqe, 0);
	qp->sq_get++;
	trace_rddp_sq_wqe(qp, out);
out:
	spin_unlock_irqrestore(&qp->sq_lock, fl);
	return ret;
}

int rddp_qp_sq_complete(struct rddp_qp *qp, u64 id, u8 opcode, u16 flags,
			enum siw_wc_status status, u32 bytes)
{
	struct rddp_cqe cqe = {
		.id = id,
		.opcode = opcode,
		.status = status,
		.bytes = bytes,
		.qp = qp,
	};

	if (status == SIW_WC_SUCCESS && !(flags & SIW_WQE_SIGNALLED) &&
	    !qp->sig_all)
		return 0;
	return rddp_cq_push(qp->scq, &cqe, false);
}
