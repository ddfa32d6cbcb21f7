/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp memory objects: protection domains, memory regions and STags.
 *
 * STag layout (RFC 5040 section 2.4 leaves it to the RNIC): the upper 24 bits
 * index rddp_device.mr_xa, the low 8 bits are the consumer-owned key
 * (siw_ureq_reg_mr.stag_key from user space, random for kernel MRs). The lkey
 * and the rkey of an MR are the same STag.
 *
 * Lifetime of struct rddp_mr:
 *  - allocated by get_dma_mr/reg_user_mr with one reference (mr->ref) owned
 *    by the verbs object; published in mr_xa last, when fully built;
 *  - rddp_mr_get() takes a reference under RCU with refcount_inc_not_zero(),
 *    so a lookup racing with dereg either fails or holds a live MR;
 *  - dereg_mr erases the STag from mr_xa (new lookups fail with -ENOENT),
 *    drops the verbs reference and sleeps until every rddp_mr_put() is done
 *    (mr->released), then unpins the user pages and frees the MR after an RCU
 *    grace period. Holders must therefore drop their references in bounded
 *    time (at the end of the DDP segment or WQE they are placing).
 *  - Fields other than ref are immutable while the MR is in mr_xa.
 */
#ifndef RDDP_MEM_H
#define RDDP_MEM_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct rddp_device;

/* Access flags an MR may carry; anything else is refused with -EOPNOTSUPP. */
#define RDDP_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_OPTIONAL)

struct rddp_pd {
	struct ib_pd base;
};

struct rddp_mr {
	struct ib_mr base;		/* base.lkey == base.rkey == STag */
	struct rddp_device *rdev;
	refcount_t ref;
	struct completion released;	/* completed when ref drops to 0 */
	struct rcu_head rcu;
	u64 va;				/* first tagged offset (TO) */
	u64 len;			/* bytes; a DMA MR covers all TOs */
	int access;			/* IB_ACCESS_* */
	bool dma_mr;			/* get_dma_mr: TO = kernel virtual addr */
	struct ib_umem *umem;		/* user MRs: the pinned pages */
	struct page **pages;		/* umem's pages in TO order */
	unsigned long npages;
	unsigned int first_off;		/* byte offset of va in pages[0] */
};

static inline struct rddp_mr *to_rddp_mr(struct ib_mr *mr)
{
	return container_of(mr, struct rddp_mr, base);
}

/*
 * rddp_mr_get - look up and reference the MR of @stag for a data transfer.
 * @pd:     the PD of the QP doing the transfer (must be the MR's PD)
 * @access: IB_ACCESS_* the transfer needs (0 for a local read, LOCAL_WRITE
 *          to place into a receive buffer, REMOTE_WRITE/REMOTE_READ for a
 *          tagged buffer targeted by the peer)
 * @to, @len: the tagged offset and length of the transfer
 *
 * Returns a referenced MR (release with rddp_mr_put()) or an ERR_PTR:
 *  -ENOENT     no valid MR has this STag (index unused or key mismatch):
 *              DDP "invalid STag" / RDMAP "invalid STag"
 *  -EPERM      STag not associated with @pd: DDP "STag not associated with
 *              RDMAP stream" / RDMAP "protection domain mismatch"
 *  -EACCES     MR lacks @access: RDMAP "access rights violation"
 *  -EOVERFLOW  @to + @len wraps: DDP "TO wrap"
 *  -ERANGE     [@to, @to + @len) outside the MR: DDP/RDMAP "base or bounds
 *              violation"
 * Callable from any context (RCU lookup, no sleeping).
 */
struct rddp_mr *rddp_mr_get(struct rddp_device *rdev, u32 stag,
			    struct ib_pd *pd, int access, u64 to, u64 len);
void rddp_mr_put(struct rddp_mr *mr);

/*
 * rddp_mr_page - the page holding byte @to of a user MR and the offset of
 * @to in it. @to must lie inside the MR (checked by rddp_mr_get()). A DMA MR
 * has no page list: its TOs are kernel virtual addresses (rddp registers
 * without a DMA device, so ib_dma_map_*() hands out virtual addresses), for
 * which -EINVAL is returned; use the address directly.
 */
int rddp_mr_page(struct rddp_mr *mr, u64 to, struct page **page,
		 unsigned int *offset);

/* verbs (mem.c) */
int rddp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int rddp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *rddp_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *rddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata);
int rddp_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

#endif /* RDDP_MEM_H */
