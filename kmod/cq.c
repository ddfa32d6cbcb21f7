// SPDX-License-Identifier: GPL-2.0
/*
 * rddp completion queues: a ring of struct siw_cqe followed by the
 * struct siw_cq_ctrl notification word, shared with libsiw for user CQs.
 */
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rddp.h"
#include "queues.h"
#include "trace.h"

static const enum ib_wc_opcode rddp_wc_opcode[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = IB_WC_RDMA_WRITE,
	[SIW_OP_READ] = IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IB_WC_RDMA_READ,
	[SIW_OP_SEND] = IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP] = IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE] = IB_WC_RECV,
	[SIW_OP_READ_RESPONSE] = IB_WC_RDMA_READ,
	[SIW_OP_INVAL_STAG] = IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IB_WC_REG_MR,
};

static const enum ib_wc_status rddp_wc_status[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

int rddp_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		   struct rddp_cq_create_arg *arg)
{
	struct ib_udata *udata = rddp_cq_create_udata(arg);
	struct rddp_device *rdev = to_rddp_dev(base->device);
	struct rddp_cq *cq = to_rddp_cq(base);
	struct siw_uresp_create_cq uresp = {};
	size_t size;
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe > RDDP_MAX_CQE)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&rdev->num_cq) > RDDP_MAX_CQ) {
		ret = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&cq->lock);
	cq->num_cqe = rddp_ring_slots(attr->cqe);
	cq->id = atomic_inc_return(&rdev->next_cq_id);
	size = cq->num_cqe * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl);
	cq->queue = rddp_ring_alloc(size);
	if (!cq->queue) {
		ret = -ENOMEM;
		goto err_count;
	}
	cq->ctrl = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	base->cqe = cq->num_cqe;

	if (udata) {
		cq->user = true;
		ret = rddp_ring_map(udata, cq->queue, size, &cq->mmap,
				    &uresp.cq_key);
		if (ret)
			goto err_ring;
		uresp.cq_id = cq->id;
		uresp.num_cqe = cq->num_cqe;
		ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (ret)
			goto err_ring;
	}
	return 0;

err_ring:
	rddp_ring_free(cq->queue, cq->mmap);
err_count:
	atomic_dec(&rdev->num_cq);
	return ret;
}

int rddp_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct rddp_cq *cq = to_rddp_cq(base);

	rddp_ring_free(cq->queue, cq->mmap);
	atomic_dec(&to_rddp_dev(base->device)->num_cq);
	return 0;
}

int rddp_cq_push(struct rddp_cq *cq, const struct rddp_cqe *c, bool solicited)
{
	struct siw_cqe *slot;
	bool notify = false;
	unsigned long fl;
	u32 armed;

	spin_lock_irqsave(&cq->lock, fl);
	slot = &cq->queue[cq->cq_put % cq->num_cqe];
	if (rddp_slot_owned(slot)) {
		spin_unlock_irqrestore(&cq->lock, fl);
		if (cq->base.event_handler) {
			struct ib_event ev = {
				.device = cq->base.device,
				.element.cq = &cq->base,
				.event = IB_EVENT_CQ_ERR,
			};

			cq->base.event_handler(&ev, cq->base.cq_context);
		}
		return -EOVERFLOW;
	}
	trace_rddp_cqe(cq, c);
	slot->id = c->id;
	slot->opcode = c->opcode;
	slot->status = c->status;
	slot->bytes = c->bytes;
	slot->imm_data = 0;
	slot->inval_stag = c->inval_stag;
	if (cq->user)
		slot->qp_id = c->qp ? c->qp->base.qp_num : 0;
	else
		slot->base_qp = c->qp ? &c->qp->base : NULL;
	rddp_slot_set(slot, SIW_WQE_VALID | c->flags);
	cq->cq_put++;

	/* Order the CQE before reading the arm word libsiw may be writing. */
	smp_mb();
	armed = READ_ONCE(cq->ctrl->flags);
	if ((armed & SIW_NOTIFY_NEXT_COMPLETION) ||
	    ((armed & SIW_NOTIFY_SOLICITED) && solicited)) {
		WRITE_ONCE(cq->ctrl->flags, SIW_NOTIFY_NOT);
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, fl);

	if (notify && cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
	return 0;
}

int rddp_poll_cq(struct ib_cq *base, int num_entries, struct ib_wc *wc)
{
	struct rddp_cq *cq = to_rddp_cq(base);
	unsigned long fl;
	int n;

	spin_lock_irqsave(&cq->lock, fl);
	for (n = 0; n < num_entries; n++, wc++) {
		struct siw_cqe *cqe = &cq->queue[cq->cq_get % cq->num_cqe];
		u8 flags = rddp_slot_flags(cqe);

		if (!(flags & SIW_WQE_VALID))
			break;
		memset(wc, 0, sizeof(*wc));
		wc->wr_id = cqe->id;
		wc->byte_len = cqe->bytes;
		wc->opcode = cqe->opcode < SIW_NUM_OPCODES ?
			     rddp_wc_opcode[cqe->opcode] : IB_WC_SEND;
		wc->status = cqe->status < SIW_NUM_WC_STATUS ?
			     rddp_wc_status[cqe->status] : IB_WC_GENERAL_ERR;
		wc->qp = cq->user ? NULL : cqe->base_qp;
		if (flags & SIW_WQE_REM_INVAL) {
			wc->wc_flags = IB_WC_WITH_INVALIDATE;
			wc->ex.invalidate_rkey = cqe->inval_stag;
		}
		rddp_slot_set(cqe, 0);
		cq->cq_get++;
	}
	spin_unlock_irqrestore(&cq->lock, fl);
	return n;
}

int rddp_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags)
{
	struct rddp_cq *cq = to_rddp_cq(base);
	u32 arm = SIW_NOTIFY_SOLICITED;

	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		arm |= SIW_NOTIFY_NEXT_COMPLETION;
	/* Full barrier: arm before looking for completions already there. */
	smp_store_mb(cq->ctrl->flags, arm);

	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		struct siw_cqe *cqe = &cq->queue[READ_ONCE(cq->cq_get) %
						 cq->num_cqe];

		return rddp_slot_owned(cqe) ? 1 : 0;
	}
	return 0;
}
