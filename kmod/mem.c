// SPDX-License-Identifier: GPL-2.0
/*
 * rddp protection domains, memory regions and STags (see mem.h for the
 * lookup API and the MR lifetime rules).
 */
#include <linux/log2.h>
#include <linux/mm.h>
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

static void rddp_mr_free(struct rddp_mr *mr)
{
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kvfree(mr->fr_pages);
	atomic_dec(&mr->rdev->num_mr);
	kfree_rcu(mr, rcu);
}

/*
 * MR frees queued by the last rddp_mr_put() after dereg_mr (mem.h): a queue
 * of their own, so that a device's teardown waits for its MRs and nothing
 * else.
 */
static struct workqueue_struct *rddp_mr_wq;

int rddp_mem_init(void)
{
	rddp_mr_wq = alloc_workqueue("rddp_mr", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return rddp_mr_wq ? 0 : -ENOMEM;
}

void rddp_mem_exit(void)
{
	destroy_workqueue(rddp_mr_wq);
}

/* Process context: ib_umem_release() may sleep. */
static void rddp_mr_free_work(struct work_struct *work)
{
	rddp_mr_free(container_of(work, struct rddp_mr, free_work));
}

void rddp_mr_flush_frees(void)
{
	flush_workqueue(rddp_mr_wq);
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
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	INIT_WORK(&mr->free_work, rddp_mr_free_work);
	return mr;
}

/*
 * Publishes a fully built MR under a new STag with the given key. The index
 * is random, not the next free one: a peer must not reach a remotely
 * accessible MR by guessing (RFC 5041 §8.1; RFC 5040 §8 and RFC 5042 on STag
 * guessing), so with the random key it has one chance in 2^32 per guess.
 * The search for a free slot starts at a random index and takes the first
 * free one from there (wrapping): with at most RDDP_MAX_MR of 2^24 slots in
 * use, that is nearly always the random index itself. Lookups stay
 * xa_load()s; the cost is memory, about one xarray node per MR.
 */
static int rddp_mr_publish(struct rddp_mr *mr, u8 key)
{
	struct rddp_device *rdev = mr->rdev;
	u32 next = get_random_u32_inclusive(1, RDDP_STAG_INDEX_MAX);
	u32 idx;
	int ret;

	ret = xa_alloc_cyclic(&rdev->mr_xa, &idx, mr,
			      XA_LIMIT(1, RDDP_STAG_INDEX_MAX), &next,
			      GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOMEM : ret;
	mr->base.lkey = (idx << 8) | key;
	mr->base.rkey = mr->base.lkey;
	WRITE_ONCE(mr->stag, mr->base.lkey);
	return 0;
}

/*
 * Take a published MR out of service without waiting for the network
 * (mem.h): no new lookups, no further chunk placed, the verbs reference
 * dropped; the memory goes with the last reference.
 */
static void rddp_mr_retire(struct rddp_mr *mr)
{
	xa_erase(&mr->rdev->mr_xa, mr->base.lkey >> 8);
	spin_lock_bh(&mr->lock);
	WRITE_ONCE(mr->dead, true);
	spin_unlock_bh(&mr->lock);
	/*
	 * @dead before the reference count; a lookup takes its reference
	 * before it reads @dead (rddp_mr_ref()): either it sees @dead, or we
	 * see its reference and wait out the chunk copies that started under
	 * RCU before @dead was set. Fast-register MRs copy under @lock.
	 */
	smp_mb();
	if (!mr->fr && refcount_read(&mr->ref) > 1)
		synchronize_rcu();
	if (refcount_dec_and_test(&mr->ref))
		rddp_mr_free(mr);
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
	/*
	 * libsiw always asks for key 0: that means "any", and the key is
	 * random too (see rddp_mr_publish()). A consumer's own key is kept.
	 */
	ret = rddp_mr_publish(mr, ureq.stag_key ?: get_random_u8());
	if (ret)
		goto err_free;

	if (udata && udata->outlen) {
		uresp.stag = mr->base.lkey;
		ret = ib_copy_to_udata(udata, &uresp,
				       min(sizeof(uresp), udata->outlen));
		if (ret) {
			/* Published: a peer's lookup may hold it already. */
			rddp_mr_retire(mr);
			return ERR_PTR(ret);
		}
	}
	return &mr->base;

err_free:
	rddp_mr_free(mr);
	return ERR_PTR(ret);
}

int rddp_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	rddp_mr_retire(to_rddp_mr(base));
	return 0;
}

/* Referenced MR in @stag's index slot, whatever its state, or NULL. */
static struct rddp_mr *rddp_mr_ref(struct rddp_device *rdev, u32 stag)
{
	struct rddp_mr *mr;

	rcu_read_lock();
	mr = xa_load(&rdev->mr_xa, stag >> 8);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	/* Reference before @dead: pairs with rddp_mr_retire(). */
	smp_mb();
	return mr;
}

/*
 * Whether @mr answers to @stag now. A fast-register MR's fields are read
 * after its valid bit, which rddp_mr_fast_reg() sets with release order.
 */
static bool rddp_mr_live(struct rddp_mr *mr, u32 stag)
{
	if (READ_ONCE(mr->dead))
		return false;
	if (mr->fr && !test_bit(RDDP_MR_VALID, &mr->fr_flags))
		return false;
	smp_rmb();	/* pairs with smp_mb__before_atomic() in fast_reg */
	return READ_ONCE(mr->stag) == stag;
}

/* The checks of a lookup (mem.h, rddp_mr_get()); a fast-register MR's under @lock. */
static int rddp_mr_check(struct rddp_mr *mr, u32 stag, struct ib_pd *pd,
			 int access, u64 to, u64 len)
{
	if (!rddp_mr_live(mr, stag))
		return -ENOENT;
	if (mr->base.pd != pd)
		return -EPERM;
	if ((mr->access & access) != access)
		return -EACCES;
	if (to + len < to)
		return -EOVERFLOW;
	if (!mr->dma_mr && (to < mr->va || to + len > mr->va + mr->len))
		return -ERANGE;
	return 0;
}

struct rddp_mr *rddp_mr_get_reg(struct rddp_device *rdev, u32 stag,
				struct ib_pd *pd, int access, u64 to, u64 len,
				u32 *gen)
{
	struct rddp_mr *mr;
	int ret;

	mr = rddp_mr_ref(rdev, stag);
	if (!mr)
		return ERR_PTR(-ENOENT);
	if (mr->fr) {
		/* One registration's fields, and which one (mem.h). */
		spin_lock_bh(&mr->lock);
		ret = rddp_mr_check(mr, stag, pd, access, to, len);
		*gen = mr->fr_gen;
		spin_unlock_bh(&mr->lock);
	} else {
		ret = rddp_mr_check(mr, stag, pd, access, to, len);
		*gen = 0;
	}
	if (!ret)
		return mr;
	rddp_mr_put(mr);
	return ERR_PTR(ret);
}

struct rddp_mr *rddp_mr_get(struct rddp_device *rdev, u32 stag,
			    struct ib_pd *pd, int access, u64 to, u64 len)
{
	u32 gen;

	return rddp_mr_get_reg(rdev, stag, pd, access, to, len, &gen);
}

void rddp_mr_put(struct rddp_mr *mr)
{
	/* Only after dereg_mr, which held the verbs reference (mem.h). */
	if (refcount_dec_and_test(&mr->ref))
		queue_work(rddp_mr_wq, &mr->free_work);
}

/*
 * Where @to lies in the MR's page list of @npages pages of 1 << @shift
 * bytes (the list starts first_off before va): the page's index in *@idx,
 * the offset in it in *@off, the bytes contiguous from there (to the end
 * of that page) in *@contig. The caller keeps the list still (mem.h: a
 * fast-register MR's under @lock). Return: false, *@contig untouched, when
 * @to is outside the MR or the list.
 */
static bool rddp_mr_locate(const struct rddp_mr *mr, u64 to, unsigned int shift,
			   u64 npages, u64 *idx, u64 *off, u32 *contig)
{
	u64 pos;

	if (to < mr->va || to - mr->va >= mr->len)
		return false;
	pos = to - mr->va + mr->first_off;
	*idx = pos >> shift;
	*off = pos & (BIT_ULL(shift) - 1);
	if (*idx >= npages)
		return false;
	*contig = min_t(u64, BIT_ULL(shift) - *off, U32_MAX);
	return true;
}

/* A fast-register MR's address of @to, contiguous for *@contig bytes; under @lock. */
static u8 *rddp_mr_fr_addr(struct rddp_mr *mr, u64 to, u32 *contig)
{
	u64 idx, off;

	lockdep_assert_held(&mr->lock);
	if (!rddp_mr_locate(mr, to, mr->fr_page_shift, mr->fr_npages, &idx,
			    &off, contig))
		return NULL;
	return (u8 *)(uintptr_t)mr->fr_pages[idx] + off;
}

static void rddp_mr_memcpy(u8 *p, u8 *buf, u32 len, bool into)
{
	if (into)
		memcpy(p, buf, len);
	else
		memcpy(buf, p, len);
}

/* A chunk of a fast-register MR: the holder's registration, under @lock. */
static u32 rddp_mr_fr_copy(struct rddp_mr *mr, u32 stag, u32 gen, u64 to,
			   u8 *buf, u32 len, bool into)
{
	u32 contig = 0;
	u8 *p = NULL;

	spin_lock_bh(&mr->lock);
	if (rddp_mr_live(mr, stag) && mr->fr_gen == gen)
		p = rddp_mr_fr_addr(mr, to, &contig);
	if (p) {
		len = min3(len, contig, (u32)(PAGE_SIZE - offset_in_page(p)));
		rddp_mr_memcpy(p, buf, len, into);
	}
	spin_unlock_bh(&mr->lock);
	return p ? len : 0;
}

u32 rddp_mr_copy(struct rddp_mr *mr, u32 stag, u32 gen, u64 to, u8 *buf,
		 u32 len, bool into)
{
	u32 contig = 0;
	u8 *p;

	if (!len)
		return 0;
	if (mr->fr)
		return rddp_mr_fr_copy(mr, stag, gen, to, buf, len, into);
	/* User MRs' page lists and DMA MRs' TOs never change. */
	if (mr->dma_mr) {
		p = (u8 *)(uintptr_t)to;
		contig = PAGE_SIZE - offset_in_page(p);
	} else {
		p = rddp_mr_addr(mr, to, &contig);
		if (WARN_ON_ONCE(!p))	/* rddp_mr_get() checked the range */
			return 0;
	}
	len = min(len, contig);
	rcu_read_lock();
	if (READ_ONCE(mr->dead))
		len = 0;
	else
		rddp_mr_memcpy(p, buf, len, into);
	rcu_read_unlock();
	return len;
}

u8 *rddp_mr_addr(struct rddp_mr *mr, u64 to, u32 *contig)
{
	u64 idx, off;

	if (mr->dma_mr || mr->fr ||
	    !rddp_mr_locate(mr, to, PAGE_SHIFT, mr->npages, &idx, &off, contig))
		return NULL;
	return (u8 *)page_address(mr->pages[idx]) + off;
}

/* ---- fast-register MRs (mem.h) ---- */

struct ib_mr *rddp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct rddp_mr *mr;
	int ret;

	/* Page lists only: no SG_GAPS or integrity MRs. */
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > RDDP_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = rddp_mr_alloc(pd, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->fr = true;
	mr->fr_max = max_num_sg;
	mr->fr_pages = kvcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->fr_pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	/* Published invalid: no lookup succeeds before a REG_MR. */
	ret = rddp_mr_publish(mr, get_random_u8());
	if (ret)
		goto err_free;
	return &mr->base;

err_free:
	rddp_mr_free(mr);
	return ERR_PTR(ret);
}

static int rddp_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rddp_mr *mr = to_rddp_mr(ibmr);

	if (mr->fr_npages == mr->fr_max)
		return -ENOMEM;
	mr->fr_pages[mr->fr_npages++] = addr;
	return 0;
}

/*
 * The page list holds ib_dma_map_sg() addresses, which are kernel virtual
 * addresses: rddp has no DMA device (ib_uses_virt_dma()). Rewritten under
 * @lock whatever holders an earlier registration has left (mem.h).
 */
int rddp_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct rddp_mr *mr = to_rddp_mr(ibmr);
	int n;

	if (!mr->fr || !is_power_of_2(ibmr->page_size))
		return -EINVAL;
	spin_lock_bh(&mr->lock);
	/* Never under a valid registration (verbs: map, then REG_MR). */
	if (test_bit(RDDP_MR_VALID, &mr->fr_flags)) {
		spin_unlock_bh(&mr->lock);
		return -EBUSY;
	}
	mr->fr_npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rddp_mr_set_page);
	mr->fr_page_shift = ilog2(ibmr->page_size);
	/* ULPs may rewrite iova's high bits (xprtrdma): keep the offset. */
	mr->first_off = ibmr->iova & (ibmr->page_size - 1);
	spin_unlock_bh(&mr->lock);
	return n;
}

int rddp_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key,
		     int access)
{
	struct rddp_mr *mr = to_rddp_mr(ibmr);
	u64 mapped;
	int ret = 0;

	if (ibmr->device != pd->device || !mr->fr)
		return -EINVAL;
	if (ibmr->pd != pd)
		return -EPERM;
	/* ib_inc_rkey() changes the key, never the index. */
	if ((key >> 8) != (mr->base.lkey >> 8) || rddp_mr_check_access(access))
		return -EINVAL;

	spin_lock_bh(&mr->lock);
	mapped = ((u64)mr->fr_npages << mr->fr_page_shift) - mr->first_off;
	if (test_bit(RDDP_MR_VALID, &mr->fr_flags)) {
		ret = -EINVAL;	/* verbs: Fast-Register needs an invalid STag */
	} else if (!mr->fr_npages || ibmr->length > mapped) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(mr->stag, key);
		mr->va = ibmr->iova;
		mr->len = ibmr->length;
		mr->access = access;
		/* A new registration, even under the same key (mem.h). */
		mr->fr_gen++;
		/* Release: a lookup that sees the bit sees the fields. */
		smp_mb__before_atomic();
		set_bit(RDDP_MR_VALID, &mr->fr_flags);
	}
	spin_unlock_bh(&mr->lock);
	return ret;
}

int rddp_mr_invalidate(struct rddp_device *rdev, u32 stag, struct ib_pd *pd)
{
	struct rddp_mr *mr;
	int ret = 0;

	mr = rddp_mr_ref(rdev, stag);
	if (!mr)
		return -ENOENT;
	spin_lock_bh(&mr->lock);
	if (READ_ONCE(mr->stag) != stag)
		ret = -ENOENT;
	else if (mr->base.pd != pd)
		ret = -EPERM;
	else if (!mr->fr)
		ret = -EINVAL;
	else
		clear_bit(RDDP_MR_VALID, &mr->fr_flags);
	spin_unlock_bh(&mr->lock);
	rddp_mr_put(mr);
	return ret;
}
