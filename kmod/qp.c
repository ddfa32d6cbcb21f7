// SPDX-License-Identifier: GPL-2.0
/*
 * rddp queue pairs: RC only. Objects, the verbs state machine with its
 * iWARP twist (only the connection manager moves a QP to RTS), flushing,
 * kernel post_send/post_recv, the user doorbell and the data-path accessors.
 * Locking and lifetime rules are in queues.h.
 */
#include <linux/sched.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rddp.h"
#include "queues.h"
#include "qp_rx.h"
#include "qp_tx.h"
#include "stream.h"
#include "trace.h"

#define RDDP_QPN_MAX		0xffffffU

/* Attributes modify_qp accepts. The IB path attributes (AV, PSNs, timers,
 * MTU, P_Key, port, destination QPN) mean nothing on iWARP, where iw_cm
 * owns the connection; they are accepted and ignored so that consumers
 * written for IB RC keep working.
 */
#define RDDP_QP_ATTR_IGNORED	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_AV | \
				 IB_QP_PATH_MTU | IB_QP_TIMEOUT | \
				 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
				 IB_QP_RQ_PSN | IB_QP_SQ_PSN | \
				 IB_QP_MIN_RNR_TIMER | IB_QP_DEST_QPN)
#define RDDP_QP_ATTR_OK		(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_ACCESS_FLAGS | IB_QP_MAX_QP_RD_ATOMIC | \
				 IB_QP_MAX_DEST_RD_ATOMIC | \
				 IB_QP_EN_SQD_ASYNC_NOTIFY | \
				 RDDP_QP_ATTR_IGNORED)
#define RDDP_QP_ACCESS		(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/*
 * The verbs QP state diagram (IB spec 10.3.1, as ib_modify_qp_is_ok()
 * encodes it): which transitions a consumer may request. SQE is entered
 * only by the RNIC itself.
 */
static const u8 rddp_qp_next_ok[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = BIT(IB_QPS_RESET) | BIT(IB_QPS_INIT) |
			 BIT(IB_QPS_ERR),
	[IB_QPS_INIT] = BIT(IB_QPS_RESET) | BIT(IB_QPS_INIT) |
			BIT(IB_QPS_RTR) | BIT(IB_QPS_ERR),
	[IB_QPS_RTR] = BIT(IB_QPS_RESET) | BIT(IB_QPS_RTR) | BIT(IB_QPS_RTS) |
		       BIT(IB_QPS_ERR),
	[IB_QPS_RTS] = BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) | BIT(IB_QPS_SQD) |
		       BIT(IB_QPS_ERR),
	[IB_QPS_SQD] = BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) | BIT(IB_QPS_SQD) |
		       BIT(IB_QPS_ERR),
	[IB_QPS_SQE] = BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) | BIT(IB_QPS_ERR),
	[IB_QPS_ERR] = BIT(IB_QPS_RESET) | BIT(IB_QPS_ERR),
};

static void rddp_qp_event(struct rddp_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->base.device,
		.element.qp = &qp->base,
		.event = type,
	};

	if (qp->base.event_handler)
		qp->base.event_handler(&ev, qp->base.qp_context);
}

/* ---- flushing (caller holds the queue's lock) ---- */

static void rddp_sq_flush(struct rddp_qp *qp, bool complete)
{
	u32 n;

	lockdep_assert_held(&qp->sq_lock);
	/* Bounded: libsiw may keep producing into a user ring meanwhile. */
	for (n = 0; n < qp->num_sqe; n++) {
		struct siw_sqe *sqe = &qp->sq[qp->sq_get % qp->num_sqe];
		struct rddp_cqe cqe = { .status = SIW_WC_WR_FLUSH_ERR };

		if (!rddp_slot_owned(sqe))
			break;
		cqe.id = READ_ONCE(sqe->id);
		cqe.opcode = READ_ONCE(sqe->opcode);
		if (cqe.opcode >= SIW_OP_RECEIVE)
			cqe.opcode = SIW_OP_SEND;	/* garbage from user */
		cqe.qp = qp;
		rddp_slot_set(sqe, 0);
		qp->sq_get++;
		if (complete)
			rddp_cq_push(qp->scq, &cqe, false);
	}
	if (!qp->user)
		qp->sq_put = qp->sq_get;
}

static void rddp_rq_flush(struct rddp_qp *qp, bool complete)
{
	u32 n;

	lockdep_assert_held(&qp->rq_lock);
	if (!qp->rq)
		return;		/* SRQ entries belong to no QP */
	for (n = 0; n < qp->num_rqe; n++) {
		struct siw_rqe *rqe = &qp->rq[qp->rq_get % qp->num_rqe];
		struct rddp_cqe cqe = {
			.status = SIW_WC_WR_FLUSH_ERR,
			.opcode = SIW_OP_RECEIVE,
		};

		if (!rddp_slot_owned(rqe))
			break;
		cqe.id = READ_ONCE(rqe->id);
		cqe.qp = qp;
		rddp_slot_set(rqe, 0);
		qp->rq_get++;
		if (complete)
			rddp_cq_push(qp->rcq, &cqe, false);
	}
	if (!qp->user)
		qp->rq_put = qp->rq_get;
}

/*
 * A QP on a shared receive queue takes no more of its RQEs once in ERROR
 * (its stream has stopped before the state changes): the consumer learns
 * so from IB_EVENT_QP_LAST_WQE_REACHED (IB spec vol. 1, affiliated
 * asynchronous events; RFC 5040 has no SRQ), on which it may destroy the
 * QP without losing an RQE. 6.12's ib_drain_qp() moves such a QP to ERROR
 * and waits up to 60 s for the event, once per drain.
 */
static void rddp_qp_last_wqe(struct rddp_qp *qp)
{
	if (qp->srq)
		rddp_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/*
 * Sets the state with both queue locks held. ERROR flushes every posted WQE
 * with IB_WC_WR_FLUSH_ERR; RESET discards them without completions. Both
 * consume the ring from the kernel's index, so libsiw's producer index stays
 * in step.
 */
static void rddp_qp_set_state(struct rddp_qp *qp, enum ib_qp_state state)
{
	struct rddp_notify n = {
		.type = RDDP_NOTIFY_QP_STATE,
		.rdev = qp->rdev,
		.qpn = qp->base.qp_num,
		.qp_state = state,
	};
	unsigned long fl;

	lockdep_assert_held(&qp->state_lock);
	spin_lock_irqsave(&qp->sq_lock, fl);
	spin_lock(&qp->rq_lock);
	trace_rddp_qp_state(qp, state);
	WRITE_ONCE(qp->state, state);
	if (state == IB_QPS_ERR || state == IB_QPS_RESET) {
		rddp_sq_flush(qp, state == IB_QPS_ERR);
		rddp_rq_flush(qp, state == IB_QPS_ERR);
	}
	if (state == IB_QPS_RESET || state == IB_QPS_ERR)
		qp->connected = false;
	spin_unlock(&qp->rq_lock);
	spin_unlock_irqrestore(&qp->sq_lock, fl);
	rddp_notify(&n);
}

/*
 * Leaving RTS with a connection: stop the stream (a Terminate goes out
 * first if an error was detected) and tell the CM, which reports the close
 * to iw_cm. With @state_lock held, before the state change flushes the
 * rings, so that WQEs the engines held complete first, in order.
 */
static void rddp_qp_stream_end(struct rddp_qp *qp, bool graceful)
{
	struct rddp_stream *s = qp->stream;

	lockdep_assert_held(&qp->state_lock);
	if (!s || s->stopped)
		return;
	rddp_stream_stop(s, graceful);
	rddp_conn_event(s->conn, RDDP_CEP_EV_STREAM_CLOSED);
}

/* ---- create / destroy ---- */

static int rddp_qp_check_caps(struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;

	if (cap->max_send_wr > RDDP_MAX_QP_WR ||
	    cap->max_send_sge > RDDP_MAX_SGE ||
	    cap->max_recv_sge > RDDP_MAX_SGE ||
	    cap->max_inline_data > SIW_MAX_INLINE)
		return -EINVAL;
	if (!attr->srq && cap->max_recv_wr > RDDP_MAX_QP_WR)
		return -EINVAL;
	return 0;
}

static void rddp_qp_free_rings(struct rddp_qp *qp)
{
	if (qp->sq)
		rddp_ring_free(qp->sq, qp->sq_mmap);
	if (qp->rq)
		rddp_ring_free(qp->rq, qp->rq_mmap);
}

/*
 * The SQ and, without an SRQ, the RQ, sized as @attr asks, and for a user
 * QP their mmap entries, whose keys go into @uresp. On failure the caller
 * frees what was allocated (rddp_qp_free_rings()).
 */
static int rddp_qp_alloc_rings(struct rddp_qp *qp,
			       struct ib_qp_init_attr *attr,
			       struct ib_udata *udata,
			       struct siw_uresp_create_qp *uresp)
{
	size_t sq_size, rq_size = 0;
	int ret;

	qp->num_sqe = rddp_ring_slots(attr->cap.max_send_wr);
	sq_size = qp->num_sqe * sizeof(struct siw_sqe);
	qp->sq = rddp_ring_alloc(sq_size);
	if (!qp->sq)
		return -ENOMEM;
	if (!qp->srq) {
		qp->num_rqe = rddp_ring_slots(attr->cap.max_recv_wr);
		rq_size = qp->num_rqe * sizeof(struct siw_rqe);
		qp->rq = rddp_ring_alloc(rq_size);
		if (!qp->rq)
			return -ENOMEM;
	}
	if (!udata)
		return 0;
	ret = rddp_ring_map(udata, qp->sq, sq_size, &qp->sq_mmap,
			    &uresp->sq_key);
	if (ret || !qp->rq)
		return ret;
	return rddp_ring_map(udata, qp->rq, rq_size, &qp->rq_mmap,
			     &uresp->rq_key);
}

int rddp_create_qp(struct ib_qp *base, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata)
{
	struct rddp_device *rdev = to_rddp_dev(base->device);
	struct rddp_qp *qp = to_rddp_qp(base);
	struct siw_uresp_create_qp uresp = {};
	u32 qpn;
	int ret;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	ret = rddp_qp_check_caps(attr);
	if (ret)
		return ret;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&rdev->num_qp) > RDDP_MAX_QP) {
		ret = -ENOMEM;
		goto err_count;
	}

	qp->rdev = rdev;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->freed);
	mutex_init(&qp->state_lock);
	mutex_init(&qp->tx_mutex);
	INIT_WORK(&qp->tx_work, rddp_tx_work);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	/*
	 * An RNIC's QP is created in Idle (RDMAC verbs), which the verbs
	 * interface reports as INIT: siw and cxgb4 do, and rdma-core's
	 * test_qp expects it of every RNIC (IBV_NODE_RNIC). Receives may be
	 * posted before the connection, as iWARP ULPs do.
	 */
	qp->state = IB_QPS_INIT;
	qp->user = !!udata;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_rddp_cq(attr->send_cq);
	qp->rcq = to_rddp_cq(attr->recv_cq);
	qp->srq = attr->srq ? to_rddp_srq(attr->srq) : NULL;
	qp->max_inline = SIW_MAX_INLINE;
	qp->sq_sges = attr->cap.max_send_sge;
	qp->rq_sges = attr->cap.max_recv_sge;
	qp->ord = 1;
	qp->ird = 1;

	ret = rddp_qp_alloc_rings(qp, attr, udata, &uresp);
	if (ret)
		goto err_rings;

	/* Report what the QP really has. */
	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_inline_data = qp->max_inline;

	ret = xa_alloc_cyclic(&rdev->qp_xa, &qpn, qp,
			      XA_LIMIT(1, RDDP_QPN_MAX), &rdev->next_qpn,
			      GFP_KERNEL);
	if (ret < 0)
		goto err_rings;
	base->qp_num = qpn;

	if (udata) {
		uresp.qp_id = qpn;
		uresp.num_sqe = qp->num_sqe;
		uresp.num_rqe = qp->num_rqe;
		ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (ret)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase(&rdev->qp_xa, qpn);
	rddp_qp_put(qp);
	wait_for_completion(&qp->freed);
err_rings:
	rddp_qp_free_rings(qp);
err_count:
	atomic_dec(&rdev->num_qp);
	return ret;
}

int rddp_destroy_qp(struct ib_qp *base, struct ib_udata *udata)
{
	struct rddp_qp *qp = to_rddp_qp(base);

	/* Destroying generates no completions (IB spec 11.2.4.4). */
	mutex_lock(&qp->state_lock);
	qp->destroyed = true;
	/*
	 * A connect under way holds references (its endpoint's, iw_cm's)
	 * until its MPA exchange ends, up to mpa_timeout_ms: the endpoint
	 * fails it now instead, iw_cm drops its reference on that
	 * CONNECT_REPLY, and the wait below waits for local work only.
	 */
	if (qp->connecting)
		rddp_conn_event(qp->connecting, RDDP_CEP_EV_QP_DESTROYED);
	qp->connecting = NULL;
	rddp_qp_stream_end(qp, false);
	rddp_qp_set_state(qp, IB_QPS_RESET);
	mutex_unlock(&qp->state_lock);

	xa_erase(&qp->rdev->qp_xa, base->qp_num);
	rddp_qp_put(qp);
	wait_for_completion(&qp->freed);
	cancel_work_sync(&qp->tx_work);
	rddp_stream_free(qp->stream);
	qp->stream = NULL;

	rddp_qp_free_rings(qp);
	mutex_destroy(&qp->tx_mutex);
	mutex_destroy(&qp->state_lock);
	atomic_dec(&qp->rdev->num_qp);
	return 0;
}

/* ---- modify / query ---- */

int rddp_modify_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct rddp_qp *qp = to_rddp_qp(base);
	enum ib_qp_state cur, next;
	int ret = 0;

	if (mask & ~RDDP_QP_ATTR_OK)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~RDDP_QP_ACCESS))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > RDDP_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > RDDP_MAX_IRD)
		return -EINVAL;
	if ((mask & IB_QP_STATE) && attr->qp_state > IB_QPS_ERR)
		return -EINVAL;

	mutex_lock(&qp->state_lock);
	cur = qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * librdmacm's rdma_disconnect() moves an iWARP QP to SQD; after the
	 * peer's close (or a Terminate) the QP is in ERROR already and there
	 * is nothing left to drain: accepted and nothing changes, as on siw.
	 */
	if ((mask & IB_QP_STATE) && cur == IB_QPS_ERR && next == IB_QPS_SQD)
		next = cur;
	/* Without IB_QP_STATE only attributes change, in any state. */
	if ((mask & IB_QP_STATE) && !(rddp_qp_next_ok[cur] & BIT(next))) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * iWARP: a QP reaches RTS when iw_cm has established its connection
	 * (rddp_qp_connected()), never by request on an unconnected QP.
	 */
	if (next == IB_QPS_RTS && cur != IB_QPS_RTS && !qp->connected) {
		ret = -ENOTCONN;
		goto out;
	}

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;

	/*
	 * iWARP has no send-queue-drained state with a connection: a graceful
	 * disconnect (iw_cm moves the QP to SQD) closes the stream and the QP
	 * goes to ERROR, flushing what is left (RFC 5040 §5.3).
	 */
	if (cur == IB_QPS_RTS && next == IB_QPS_SQD && qp->stream) {
		rddp_qp_stream_end(qp, true);
		next = IB_QPS_ERR;
	} else if (cur == IB_QPS_RTS && next != IB_QPS_RTS) {
		rddp_qp_stream_end(qp, false);
	}

	if (next != cur) {
		rddp_qp_set_state(qp, next);
		/* Nothing is in flight: the SQ is drained at once. */
		if (next == IB_QPS_SQD && (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
		    attr->en_sqd_async_notify)
			rddp_qp_event(qp, IB_EVENT_SQ_DRAINED);
	}
	/* Also when already in ERROR: each ib_drain_qp() waits for one. */
	if (next == IB_QPS_ERR)
		rddp_qp_last_wqe(qp);
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}

int rddp_query_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	struct rddp_qp *qp = to_rddp_qp(base);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	mutex_lock(&qp->state_lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	mutex_unlock(&qp->state_lock);
	attr->path_mtu = IB_MTU_1024;
	attr->port_num = 1;
	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_send_sge = qp->sq_sges;
	attr->cap.max_recv_sge = qp->rq_sges;
	attr->cap.max_inline_data = qp->max_inline;

	init->qp_type = IB_QPT_RC;
	init->send_cq = base->send_cq;
	init->recv_cq = base->recv_cq;
	init->srq = base->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* ---- posting ---- */

static int rddp_sqe_from_wr(struct rddp_qp *qp, struct siw_sqe *sqe,
			    const struct ib_send_wr *wr)
{
	u16 flags = SIW_WQE_VALID;
	u64 total = 0;
	int i;

	if (wr->send_flags & ~(IB_SEND_FENCE | IB_SEND_SIGNALED |
			       IB_SEND_SOLICITED | IB_SEND_INLINE))
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > qp->sq_sges)
		return -EINVAL;

	memset(sqe, 0, sizeof(*sqe));
	switch (wr->opcode) {
	case IB_WR_SEND:
		sqe->opcode = SIW_OP_SEND;
		break;
	case IB_WR_SEND_WITH_INV:
		sqe->opcode = SIW_OP_SEND_REMOTE_INV;
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
		sqe->opcode = SIW_OP_WRITE;
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		/* One local SGE per READ (max_sge_rd), never inline. */
		if (wr->num_sge > 1 || (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		/*
		 * With invalidate, the sink's STag (sg_list[0].lkey, as
		 * hardware RNICs take it) is invalidated once the response
		 * is placed. ex.invalidate_rkey is not used: rdma_rw sets it
		 * before it moves the MR to its next key.
		 */
		if (wr->opcode == IB_WR_RDMA_READ_WITH_INV && wr->num_sge != 1)
			return -EINVAL;
		sqe->opcode = wr->opcode == IB_WR_RDMA_READ ?
			      SIW_OP_READ : SIW_OP_READ_LOCAL_INV;
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_LOCAL_INV:
		if (wr->num_sge)
			return -EINVAL;
		sqe->opcode = SIW_OP_INVAL_STAG;
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		/* Executed by TX in SQ order (rddp_mr_fast_reg()). */
		if (wr->num_sge || (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		sqe->opcode = SIW_OP_REG_MR;
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		break;
	default:
		/* Immediate data, atomics, ... are not supported. */
		return -EINVAL;
	}

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > U32_MAX)
		return -EINVAL;

	if (wr->send_flags & IB_SEND_INLINE) {
		char *data = (char *)&sqe->sge[1];

		if (total > qp->max_inline)
			return -EINVAL;
		/* Kernel SGE addresses are kernel virtual (no DMA device). */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			data += wr->sg_list[i].length;
		}
		sqe->sge[0].length = total;
		sqe->num_sge = total ? 1 : 0;
		flags |= SIW_WQE_INLINE;
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			sqe->sge[i].laddr = wr->sg_list[i].addr;
			sqe->sge[i].length = wr->sg_list[i].length;
			sqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		sqe->num_sge = wr->num_sge;
	}
	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sig_all)
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	sqe->id = wr->wr_id;
	/* The caller publishes the SQE by storing these flags last. */
	return flags;
}

/*
 * Whether the SQ accepts work in @state: RTS and SQD queue it (the TX engine
 * sends from RTS), SQE and ERROR complete it at once with a flush error.
 * Before RTS no connection exists and posting fails.
 */
static int rddp_sq_state_ok(enum ib_qp_state state)
{
	switch (state) {
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
	case IB_QPS_ERR:
		return 0;
	default:
		return -ENOTCONN;
	}
}

/* libsiw's doorbell: post_send with no WR after filling the mapped SQ. */
static int rddp_qp_doorbell(struct rddp_qp *qp)
{
	unsigned long fl;
	int ret;

	spin_lock_irqsave(&qp->sq_lock, fl);
	ret = rddp_sq_state_ok(qp->state);
	if (!ret && (qp->state == IB_QPS_ERR || qp->state == IB_QPS_SQE))
		rddp_sq_flush(qp, true);
	/* In RTS/SQD the WQEs stay queued for the TX engine. */
	spin_unlock_irqrestore(&qp->sq_lock, fl);
	if (!ret)
		rddp_tx_doorbell(qp);
	return ret;
}

int rddp_post_send(struct ib_qp *base, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct rddp_qp *qp = to_rddp_qp(base);
	unsigned long fl;
	int ret;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;	/* libsiw posts through the ring */
		}
		return rddp_qp_doorbell(qp);
	}

	spin_lock_irqsave(&qp->sq_lock, fl);
	ret = rddp_sq_state_ok(qp->state);
	for (; wr && !ret; wr = wr->next) {
		struct siw_sqe *sqe = &qp->sq[qp->sq_put % qp->num_sqe];
		int flags;

		if (rddp_slot_owned(sqe)) {
			ret = -ENOMEM;	/* SQ full */
			break;
		}
		flags = rddp_sqe_from_wr(qp, sqe, wr);
		if (flags < 0) {
			sqe->flags = 0;
			ret = flags;
			break;
		}
		rddp_slot_set(sqe, (u16)flags);
		qp->sq_put++;
	}
	if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_SQE)
		rddp_sq_flush(qp, true);
	spin_unlock_irqrestore(&qp->sq_lock, fl);
	rddp_tx_kick_posted(qp);
	if (ret)
		*bad_wr = wr;
	return ret;
}

int rddp_post_recv(struct ib_qp *base, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct rddp_qp *qp = to_rddp_qp(base);
	unsigned long fl;
	int ret = 0;

	if (qp->user || qp->srq) {
		/* libsiw fills the mapped RQ; SRQ users post to the SRQ. */
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, fl);
	if (qp->state == IB_QPS_RESET)
		ret = -EINVAL;
	for (; wr && !ret; wr = wr->next) {
		struct siw_rqe *rqe = &qp->rq[qp->rq_put % qp->num_rqe];

		if (rddp_slot_owned(rqe)) {
			ret = -ENOMEM;	/* RQ full */
			break;
		}
		ret = rddp_rqe_from_wr(rqe, wr, qp->rq_sges);
		if (ret)
			break;
		rddp_slot_set(rqe, SIW_WQE_VALID);
		qp->rq_put++;
	}
	if (qp->state == IB_QPS_ERR)
		rddp_rq_flush(qp, true);
	spin_unlock_irqrestore(&qp->rq_lock, fl);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* ---- references, iw_cm hooks ---- */

struct rddp_qp *rddp_qp_get_by_qpn(struct rddp_device *rdev, u32 qpn)
{
	struct rddp_qp *qp;

	rcu_read_lock();
	qp = xa_load(&rdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

struct ib_qp *rddp_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct rddp_qp *qp = xa_load(&to_rddp_dev(ibdev)->qp_xa, qpn);

	return qp ? &qp->base : NULL;
}

void rddp_iw_add_ref(struct ib_qp *qp)
{
	rddp_qp_get(to_rddp_qp(qp));
}

void rddp_iw_rem_ref(struct ib_qp *qp)
{
	rddp_qp_put(to_rddp_qp(qp));
}

/* ---- data path and CM API (queues.h) ---- */

/*
 * The engines' entry points (llp.h), named here, above them: the QP gives
 * them to each stream it starts (rddp_stream_start()), whose LLP calls
 * back through them and whose stop flushes with them, so that neither
 * the stream nor an LLP names qp_rx.c or qp_tx.c.
 */
static const struct rddp_llp_upcalls rddp_qp_engines = {
	.rx = &rddp_ddp_rx_ops,
	.rx_batch_end = rddp_rx_batch_end,
	.rx_place_tagged = rddp_rx_place_tagged,
	.rx_tagged_placed = rddp_rx_tagged_placed,
	.tx_kick = rddp_tx_kick,
	.tx_reap = rddp_sqw_reap,
	.error = rddp_stream_error,
	.peer_late = rddp_stream_peer_late,
	.tx_terminate_now = rddp_tx_terminate_now,
	.tx_flush = rddp_tx_flush,
	.rx_flush = rddp_rx_flush,
};

int rddp_qp_connected(struct rddp_qp *qp, struct rddp_stream *s,
		      struct socket *sock, struct rddp_conn *conn, bool *closed)
{
	int ret = 0;

	mutex_lock(&qp->state_lock);
	/* rdma_cm moves kernel QPs to RTR first; user QPs may still be INIT. */
	if ((qp->state == IB_QPS_RTR || qp->state == IB_QPS_INIT) &&
	    (!qp->stream || qp->stream->stopped)) {
		/* A QP reconnected after RESET: its old stream is over. */
		cancel_work_sync(&qp->tx_work);
		mutex_lock(&qp->tx_mutex);	/* no doorbell holds the old one */
		rddp_stream_free(qp->stream);
		rddp_stream_start(s, sock, conn, &rddp_qp_engines);
		WRITE_ONCE(qp->stream, s);
		mutex_unlock(&qp->tx_mutex);
		qp->connected = true;
		if (qp->connecting == conn)
			qp->connecting = NULL;	/* the stream reports now */
		rddp_qp_set_state(qp, IB_QPS_RTS);
		/*
		 * Bytes TCP queued before the callbacks were ours, and a close
		 * in between: under @state_lock, so no stop releases the
		 * socket meanwhile.
		 */
		s->llp->rx_drain(s);
		*closed = s->llp->closed(s);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&qp->state_lock);
	return ret;
}

int rddp_qp_connect_begin(struct rddp_qp *qp, struct rddp_conn *conn)
{
	int ret = 0;

	mutex_lock(&qp->state_lock);
	if (qp->destroyed || qp->connecting)
		ret = -EINVAL;
	else
		qp->connecting = conn;
	mutex_unlock(&qp->state_lock);
	return ret;
}

void rddp_qp_connect_end(struct rddp_qp *qp, struct rddp_conn *conn)
{
	mutex_lock(&qp->state_lock);
	if (qp->connecting == conn)
		qp->connecting = NULL;
	mutex_unlock(&qp->state_lock);
}

void rddp_qp_to_error(struct rddp_qp *qp, enum ib_event_type event)
{
	bool to_err = false;

	mutex_lock(&qp->state_lock);
	rddp_qp_stream_end(qp, false);
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET) {
		rddp_qp_set_state(qp, IB_QPS_ERR);
		to_err = true;
	}
	mutex_unlock(&qp->state_lock);
	if (event)
		rddp_qp_event(qp, event);
	if (to_err)
		rddp_qp_last_wqe(qp);
}
