// SPDX-License-Identifier: GPL-2.0
/*
 * rddp verbs entry points.
 *
 * User contexts follow the siw user ABI (include/uapi/rdma/siw-abi.h), so that
 * Debian's unmodified libsiw provider opens rddp devices. Verbs the data path
 * does not implement yet return -EOPNOTSUPP: a consumer sees a clear error,
 * never a resource that silently does nothing.
 */
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rddp.h"

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

/* Queue and CQ rings are mapped once QPs and CQs exist (data path). */
static int rddp_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	return -EOPNOTSUPP;
}

static int rddp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int rddp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;	/* never reached: no PD can be allocated */
}

static int rddp_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int rddp_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;	/* never reached: no CQ can be created */
}

static int rddp_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

static int rddp_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static int rddp_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			  struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int rddp_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int rddp_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 struct ib_qp_init_attr *init_attr)
{
	return -EOPNOTSUPP;
}

static int rddp_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;	/* never reached: no QP can be created */
}

static int rddp_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int rddp_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *rddp_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *rddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
				      u64 virt, int access,
				      struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int rddp_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;	/* never reached: no MR can be registered */
}

/*
 * iw_cm entry points. rdma_cm calls iw_create_listen on every iWARP device
 * for a wildcard listen, so these must exist and fail cleanly.
 */
static int rddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

static int rddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

static int rddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	return -EOPNOTSUPP;
}

static int rddp_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	return -EOPNOTSUPP;
}

static int rddp_iw_destroy_listen(struct iw_cm_id *id)
{
	return 0;	/* never reached: no listener can be created */
}

static struct ib_qp *rddp_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	return NULL;	/* no QP exists */
}

static void rddp_iw_qp_ref(struct ib_qp *qp)
{
	/* no QP exists to hold a reference on */
}

const struct ib_device_ops rddp_verbs_ops = {
	.alloc_ucontext = rddp_alloc_ucontext,
	.dealloc_ucontext = rddp_dealloc_ucontext,
	.mmap = rddp_mmap,

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

	.iw_accept = rddp_iw_accept,
	.iw_add_ref = rddp_iw_qp_ref,
	.iw_connect = rddp_iw_connect,
	.iw_create_listen = rddp_iw_create_listen,
	.iw_destroy_listen = rddp_iw_destroy_listen,
	.iw_get_qp = rddp_iw_get_qp,
	.iw_reject = rddp_iw_reject,
	.iw_rem_ref = rddp_iw_qp_ref,

	INIT_RDMA_OBJ_SIZE(ib_cq, rddp_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, rddp_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, rddp_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rddp_ucontext, base),
};
