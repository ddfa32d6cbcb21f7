// SPDX-License-Identifier: GPL-2.0
/*
 * rddp protection domains, memory regions and STags (see mem.h for the
 * lookup API and the MR lifetime rules).
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/siw-abi.h>

#include "rddp.h"
#include "mem.h"

#define RDDP_STAG_INDEX_MAX	0xffffffU

int rddp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct rddp_device *rdev = to_rddp_dev(pd->device);

	if (atomic_inc_return(&rdev->num_pd) > RDDP_MAX_PD) {
		atomic_dec(&rdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int rddp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_rddp_dev(pd->device)->num_pd);
	return 0;
}

/* IB spec o10-37.2.x: remote write/atomic access needs local write. */
static int rddp_mr_check_access(int access)
{
	if (access & ~RDDP_MR_ACCESS)
		return -EOPNOTSUPP;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

static struct rddp_mr *rddp_mr_alloc(struct ib_pd *pd, int access)
{
	struct rddp_device *rdev = to_rddp_dev(pd->device);
	struct rddp_mr *mr;
	int ret;

	ret = rddp_mr_check_access(access);
	if (ret)
		return ERR_PTR(ret);
	if (atomic_inc_return(&rdev->num_mr) > RDDP_MAX_MR) {
		atomic_dec(&rdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&rdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->rdev = rdev;
	mr->access = access;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	return mr;
}

/* Publishes a fully built MR under a new STag with the given key. */
static int rddp_mr_publish(struct rddp_mr *mr, u8 key)
{
	struct rddp_device *rdev = mr->rdev;
	u32 idx;
	int ret;

	ret = xa_alloc_cyclic(&rdev->mr_xa, &idx, mr,
			      XA_LIMIT(1, RDDP_STAG_INDEX_MAX),
			      &rdev->next_stag_idx, GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOMEM : ret;
	mr->base.lkey = (idx << 8) | key;
	mr->base.rkey = mr->base.lkey;
	return 0;
}

static void rddp_mr_free(struct rddp_mr *mr)
{
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	atomic_dec(&mr->rdev->num_mr);
	kfree_rcu(mr, rcu);
}

struct ib_mr *rddp_get_dma_mr(struct ib_pd *pd, int access)
{
	struct rddp_mr *mr;
	int ret;

	mr = rddp_mr_alloc(pd, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->dma_mr = true;
	mr->len = U64_MAX;
	ret = rddp_mr_publish(mr, get_random_u8());
	if (ret) {
		rddp_mr_free(mr);
		return ERR_PTR(ret);
	}
	return &mr->base;
}

static int rddp_mr_build_pages(struct rddp_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter iter;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			return -EFAULT;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	if (WARN_ON_ONCE(i != mr->npages))
		return -EFAULT;
	mr->first_off = ib_umem_offset(umem);
	return 0;
}

struct ib_mr *rddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata)
{
	struct siw_ureq_reg_mr ureq = {};
	struct siw_uresp_reg_mr uresp = {};
	struct rddp_mr *mr;
	int ret;

	if (!len || len > RDDP_MAX_MR_SIZE || virt + len < virt ||
	    start + len < start)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen) {
		ret = ib_copy_from_udata(&ureq, udata,
					 min(sizeof(ureq), udata->inlen));
		if (ret)
			return ERR_PTR(ret);
	}
	mr = rddp_mr_alloc(pd, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->va = virt;
	mr->len = len;

	mr->umem = ib_umem_get(pd->device, start, len, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_free;
	}
	ret = rddp_mr_build_pages(mr);
	if (ret)
		goto err_free;
	ret = rddp_mr_publish(mr, ureq.stag_key);
	if (ret)
		goto err_free;

	if (udata && udata->outlen) {
		uresp.stag = mr->base.lkey;
		ret = ib_copy_to_udata(udata, &uresp,
				       min(sizeof(uresp), udata->outlen));
		if (ret) {
			xa_erase(&mr->rdev->mr_xa, mr->base.lkey >> 8);
			rddp_mr_put(mr);
			wait_for_completion(&mr->released);
			goto err_free;
		}
	}
	return &mr->base;

err_free:
	rddp_mr_free(mr);
	return ERR_PTR(ret);
}

int rddp_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	struct rddp_mr *mr = to_rddp_mr(base);

	xa_erase(&mr->rdev->mr_xa, base->lkey >> 8);
	rddp_mr_put(mr);
	wait_for_completion(&mr->released);
	rddp_mr_free(mr);
	return 0;
}

struct rddp_mr *rddp_mr_get(struct rddp_device *rdev, u32 stag,
			    struct ib_pd *pd, int access, u64 to, u64 len)
{
	struct rddp_mr *mr;
	int ret;

	rcu_read_lock();
	mr = xa_load(&rdev->mr_xa, stag >> 8);
	if (mr && (mr->base.lkey != stag || !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return ERR_PTR(-ENOENT);

	if (mr->base.pd != pd)
		ret = -EPERM;
	else if ((mr->access & access) != access)
		ret = -EACCES;
	else if (to + len < to)
		ret = -EOVERFLOW;
	else if (!mr->dma_mr && (to < mr->va || to + len > mr->va + mr->len))
		ret = -ERANGE;
	else
		return mr;

	rddp_mr_put(mr);
	return ERR_PTR(ret);
}

void rddp_mr_put(struct rddp_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

int rddp_mr_page(struct rddp_mr *mr, u64 to, struct page **page,
		 unsigned int *offset)
{
	u64 pos;

	if (mr->dma_mr || to < mr->va || to - mr->va >= mr->len)
		return -EINVAL;
	pos = to - mr->va + mr->first_off;
	if ((pos >> PAGE_SHIFT) >= mr->npages)
		return -EINVAL;
	*page = mr->pages[pos >> PAGE_SHIFT];
	*offset = pos & ~PAGE_MASK;
	return 0;
}
