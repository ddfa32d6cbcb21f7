// SPDX-License-Identifier: GPL-2.0
/*
 * rddp shared receive queues: a ring of struct siw_rqe, written by libsiw
 * for user SRQs and by post_srq_recv for kernel SRQs, consumed by the data
 * path through rddp_srq_next().
 */
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rddp.h"
#include "queues.h"

int rddp_create_srq(struct ib_srq *base, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct rddp_device *rdev = to_rddp_dev(base->device);
	struct rddp_srq *srq = to_rddp_srq(base);
	struct siw_uresp_create_srq uresp = {};
	size_t size;
	int ret;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (attr->attr.max_wr > RDDP_MAX_SRQ_WR ||
	    attr->attr.max_sge > RDDP_MAX_SGE ||
	    attr->attr.srq_limit > attr->attr.max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&rdev->num_srq) > RDDP_MAX_SRQ) {
		ret = -ENOMEM;
		goto err_count;
	}
	spin_lock_init(&srq->lock);
	srq->num_rqe = rddp_ring_slots(attr->attr.max_wr);
	srq->max_sge = attr->attr.max_sge;
	srq->limit = attr->attr.srq_limit;
	srq->armed = srq->limit != 0;
	size = srq->num_rqe * sizeof(struct siw_rqe);
	srq->queue = rddp_ring_alloc(size);
	if (!srq->queue) {
		ret = -ENOMEM;
		goto err_count;
	}
	attr->attr.max_wr = srq->num_rqe;

	if (udata) {
		srq->user = true;
		ret = rddp_ring_map(udata, srq->queue, size, &srq->mmap,
				    &uresp.srq_key);
		if (ret)
			goto err_ring;
		uresp.num_rqe = srq->num_rqe;
		ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (ret)
			goto err_ring;
	}
	return 0;

err_ring:
	rddp_ring_free(srq->queue, srq->mmap);
err_count:
	atomic_dec(&rdev->num_srq);
	return ret;
}

int rddp_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rddp_srq *srq = to_rddp_srq(base);
	unsigned long fl;

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no resizing */
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->num_rqe)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, fl);
	srq->limit = attr->srq_limit;
	srq->armed = srq->limit != 0;
	spin_unlock_irqrestore(&srq->lock, fl);
	return 0;
}

int rddp_query_srq(struct ib_srq *base, struct ib_srq_attr *attr)
{
	struct rddp_srq *srq = to_rddp_srq(base);
	unsigned long fl;

	spin_lock_irqsave(&srq->lock, fl);
	attr->max_wr = srq->num_rqe;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->armed ? srq->limit : 0;
	spin_unlock_irqrestore(&srq->lock, fl);
	return 0;
}

int rddp_destroy_srq(struct ib_srq *base, struct ib_udata *udata)
{
	struct rddp_srq *srq = to_rddp_srq(base);

	rddp_ring_free(srq->queue, srq->mmap);
	atomic_dec(&to_rddp_dev(base->device)->num_srq);
	return 0;
}

int rddp_rqe_from_wr(struct siw_rqe *rqe, const struct ib_recv_wr *wr,
		     u32 max_sge)
{
	u64 total = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		total += wr->sg_list[i].length;
		rqe->sge[i].laddr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	if (total > U32_MAX)
		return -EINVAL;
	rqe->id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	rqe->opcode = SIW_OP_RECEIVE;
	return 0;
}

int rddp_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct rddp_srq *srq = to_rddp_srq(base);
	unsigned long fl;
	int ret = 0;

	if (srq->user) {
		/* libsiw writes the ring itself; the kernel never posts. */
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, fl);
	for (; wr; wr = wr->next) {
		struct siw_rqe *rqe = &srq->queue[srq->rq_put % srq->num_rqe];

		if (rddp_slot_owned(rqe)) {
			ret = -ENOMEM;
			break;
		}
		ret = rddp_rqe_from_wr(rqe, wr, srq->max_sge);
		if (ret)
			break;
		rddp_slot_set(rqe, SIW_WQE_VALID);
		srq->rq_put++;
	}
	spin_unlock_irqrestore(&srq->lock, fl);
	if (ret)
		*bad_wr = wr;
	return ret;
}

int rddp_srq_next(struct rddp_srq *srq, struct siw_rqe *out)
{
	bool limit_reached = false;
	struct siw_rqe *rqe;
	unsigned long fl;

	spin_lock_irqsave(&srq->lock, fl);
	rqe = &srq->queue[srq->rq_get % srq->num_rqe];
	if (!rddp_slot_owned(rqe)) {
		spin_unlock_irqrestore(&srq->lock, fl);
		return -ENOENT;
	}
	memcpy(out, rqe, sizeof(*out));
	out->num_sge = min_t(u8, out->num_sge, SIW_MAX_SGE);
	rddp_slot_set(rqe, 0);
	srq->rq_get++;
	if (srq->armed) {
		/* Posted RQEs are contiguous from rq_get: fewer than limit
		 * remain iff the limit-th one from here is not valid.
		 */
		rqe = &srq->queue[(srq->rq_get + srq->limit - 1) %
				  srq->num_rqe];
		if (!rddp_slot_owned(rqe)) {
			srq->armed = false;
			limit_reached = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, fl);

	if (limit_reached && srq->base.event_handler) {
		struct ib_event ev = {
			.device = srq->base.device,
			.element.srq = &srq->base,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->base.event_handler(&ev, srq->base.srq_context);
	}
	return 0;
}
