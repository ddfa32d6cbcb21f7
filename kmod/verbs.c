// SPDX-License-Identifier: GPL-2.0
/*
 * rddp verbs entry points: the ops table and user contexts. The objects live
 * in mem.c (PDs, MRs), cq.c, qp.c, srq.c and uring.c (ring mappings); the
 * iw_cm calls in cm.c.
 *
 * User contexts follow the siw user ABI (include/uapi/rdma/siw-abi.h), so that
 * Debian's unmodified libsiw provider opens rddp devices. Verbs not
 * implemented yet return -EOPNOTSUPP: a consumer sees a clear error, never a
 * resource that silently does nothing. MRs are allocated by the driver (the
 * 6.1 core has no INIT_RDMA_OBJ_SIZE for ib_mr).
 */
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "cm.h"
#include "rddp.h"
#include "mem.h"
#include "queues.h"

static int rddp_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata)
{
	struct rddp_device *rdev = to_rddp_dev(base->device);
	struct siw_uresp_alloc_ctx uresp = {};
	int ret;

	if (atomic_inc_return(&rdev->num_ctx) > RDDP_MAX_CONTEXTS) {
		ret = -ENOMEM;
		goto err_count;
	}
	if (udata->outlen < sizeof(uresp)) {
		ret = -EINVAL;
		goto err_count;
	}
	uresp.dev_id = RDDP_VENDOR_PART_ID;
	ret = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (ret)
		goto err_count;
	return 0;

err_count:
	atomic_dec(&rdev->num_ctx);
	return ret;
}

static void rddp_dealloc_ucontext(struct ib_ucontext *base)
{
	atomic_dec(&to_rddp_dev(base->device)->num_ctx);
}

/*
 * The core calls this when the device must go (or move to another network
 * namespace, `rdma dev set DEV netns NS`) while user contexts are open; it
 * then destroys their objects through our destroy verbs and zaps their
 * mappings. Every user mapping of rddp is an rdma_user_mmap_entry whose
 * memory lives until its last mapping goes (rddp_mmap_free), and no
 * context holds anything else, so there is nothing more to release here.
 */
static void rddp_disassociate_ucontext(struct ib_ucontext *base)
{
}

const struct ib_device_ops rddp_verbs_ops = {
	.alloc_ucontext = rddp_alloc_ucontext,
	.dealloc_ucontext = rddp_dealloc_ucontext,
	.disassociate_ucontext = rddp_disassociate_ucontext,
	.mmap = rddp_mmap,
	.mmap_free = rddp_mmap_free,

	.alloc_pd = rddp_alloc_pd,
	.dealloc_pd = rddp_dealloc_pd,
	.create_cq = rddp_create_cq,
	.destroy_cq = rddp_destroy_cq,
	.poll_cq = rddp_poll_cq,
	.req_notify_cq = rddp_req_notify_cq,
	.create_qp = rddp_create_qp,
	.modify_qp = rddp_modify_qp,
	.query_qp = rddp_query_qp,
	.destroy_qp = rddp_destroy_qp,
	.post_send = rddp_post_send,
	.post_recv = rddp_post_recv,
	.get_dma_mr = rddp_get_dma_mr,
	.reg_user_mr = rddp_reg_user_mr,
	.dereg_mr = rddp_dereg_mr,
	.alloc_mr = rddp_alloc_mr,
	.map_mr_sg = rddp_map_mr_sg,
	.create_srq = rddp_create_srq,
	.modify_srq = rddp_modify_srq,
	.query_srq = rddp_query_srq,
	.destroy_srq = rddp_destroy_srq,
	.post_srq_recv = rddp_post_srq_recv,

	.iw_accept = rddp_iw_accept,
	.iw_add_ref = rddp_iw_add_ref,
	.iw_connect = rddp_iw_connect,
	.iw_create_listen = rddp_iw_create_listen,
	.iw_destroy_listen = rddp_iw_destroy_listen,
	.iw_get_qp = rddp_iw_get_qp,
	.iw_reject = rddp_iw_reject,
	.iw_rem_ref = rddp_iw_rem_ref,

	INIT_RDMA_OBJ_SIZE(ib_cq, rddp_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, rddp_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, rddp_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, rddp_srq, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rddp_ucontext, base),
};
