/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp memory objects: protection domains, memory regions and STags.
 *
 * STag layout (RFC 5040 section 2.4 leaves it to the RNIC): the upper 24 bits
 * index rddp_device.mr_xa, chosen at random (rddp_mr_publish()), the low 8
 * bits are the consumer-owned key (siw_ureq_reg_mr.stag_key from user space,
 * random when that is 0, as libsiw always sends; random for kernel MRs). The
 * lkey and the rkey of an MR are the same STag.
 *
 * Lifetime of struct rddp_mr:
 *  - allocated by get_dma_mr/reg_user_mr/alloc_mr with one reference
 *    (mr->ref) owned by the verbs object; published in mr_xa last, when
 *    fully built;
 *  - rddp_mr_get() takes a reference under RCU with refcount_inc_not_zero(),
 *    so a lookup racing with dereg either fails or holds a live MR;
 *  - holders are the data path's buffer lists (sg.h): a segment being
 *    placed, a Send's receive buffer until its last segment, a message TX
 *    has not yet handed to TCP. The peer decides how long those last (it
 *    may stop in the middle of an FPDU, or close its TCP window), so
 *    nothing waits for them:
 *  - dereg_mr erases the STag from mr_xa (new lookups fail with -ENOENT),
 *    marks the MR @dead under @lock, drops the verbs reference and returns.
 *    If it held the last reference it frees the MR at once; otherwise the
 *    last rddp_mr_put() queues @free_work, which unpins the user pages in
 *    process context (a put may come from softirq) and frees the MR after
 *    an RCU grace period. Until then the pages stay pinned, so a holder
 *    never touches freed memory.
 *  - Placement never writes into an MR that dereg has returned for (nor
 *    into a fast-register MR after its invalidation): rddp_mr_copy()
 *    checks @dead (and a fast-register MR's validity and STag) for every
 *    chunk it copies, under RCU for user and DMA MRs and under @lock for
 *    fast-register MRs. dereg_mr waits for an RCU grace period when other
 *    holders exist, so a chunk copy that saw the MR alive has finished
 *    when dereg_mr returns; invalidation, which may run in softirq, takes
 *    @lock instead. Placement that finds the MR gone fails the segment
 *    (RFC 5041 §7.2 "invalid STag" for a tagged buffer).
 *  - TX reads payload from user MRs' pinned pages, which outlive the last
 *    reference; it reads a kernel MR's memory (DMA and fast-register MRs)
 *    for its own WQEs until the message is in the socket, and in-kernel
 *    consumers keep that memory until the WQE completes or the QP is
 *    destroyed, as on any RNIC that reads by DMA. A Read Response has no
 *    WQE: the consumer gets a fast-register MR's memory back when the
 *    peer invalidates it, which a peer may do while the response is still
 *    parked behind its closed window. So TX copies a Read Response's
 *    payload out of a fast-register MR one FPDU at a time through
 *    rddp_mr_copy() into memory of its own, and stops (Terminate, invalid
 *    STag) at the first FPDU after the invalidation.
 *  - The free work runs on rddp_mr_wq; rddp_dealloc_driver() flushes it
 *    after the core destroyed every QP (so every holder is gone), before
 *    the device goes.
 *  - Fields other than ref and @dead are immutable while the MR is in
 *    mr_xa, except for fast-register MRs (below).
 *
 * Fast-register MRs (alloc_mr, RFC 5040 §5.1 and the verbs' Fast-Register
 * and Invalidate operations) have a page list filled by map_mr_sg and an
 * STag that is valid (RDDP_MR_VALID in @fr_flags) only between an
 * IB_WR_REG_MR and its invalidation (IB_WR_LOCAL_INV, Read with local
 * invalidate, or a received Send with Invalidate). Rules:
 *  - rddp_mr_get() takes its reference first and checks RDDP_MR_VALID and
 *    the STag afterwards, so a holder always saw a valid registration.
 *  - REG_MR (TX, rddp_mr_fast_reg()), invalidation (rddp_mr_invalidate())
 *    and chunk copies into and out of the MR (rddp_mr_copy()) serialise
 *    on @lock.
 *    REG_MR writes @stag, @va, @len and @access only while the MR is
 *    invalid, then sets RDDP_MR_VALID with release order.
 *  - Invalidation clears RDDP_MR_VALID under @lock: new lookups fail at
 *    once, and a placement that already holds a reference stops at its
 *    next chunk (rddp_mr_copy() fails), so once the invalidation is done
 *    no byte lands in the memory the consumer gets back, and TX reads no
 *    more of it for a Read Response.
 *  - map_mr_sg rewrites the page list only while the MR is invalid and no
 *    holder is left (ref == 1), else it fails with -EBUSY; a holder never
 *    reads a page list being rewritten, and a new registration becomes
 *    visible only with RDDP_MR_VALID.
 */
#ifndef RDDP_MEM_H
#define RDDP_MEM_H

#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
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
	bool dead;			/* deregistered; written under @lock */
	spinlock_t lock;		/* see the rules above */
	struct work_struct free_work;	/* the last put after dereg_mr */
	struct rcu_head rcu;
	u64 va;				/* first tagged offset (TO) */
	u64 len;			/* bytes; a DMA MR covers all TOs */
	int access;			/* IB_ACCESS_* */
	bool dma_mr;			/* get_dma_mr: TO = kernel virtual addr */
	struct ib_umem *umem;		/* user MRs: the pinned pages */
	struct page **pages;		/* umem's pages in TO order */
	unsigned long npages;
	/* byte offset of va in pages[0], or of the mapped iova in fr_pages[0] */
	unsigned int first_off;
	u32 stag;			/* the STag lookups match */

	/* fast-register MRs (alloc_mr), see above */
	bool fr;
	unsigned long fr_flags;		/* RDDP_MR_VALID */
	u64 *fr_pages;			/* kernel addresses, page-size aligned */
	u32 fr_max;			/* slots in fr_pages */
	u32 fr_npages;			/* filled by the last map_mr_sg */
	u32 fr_page_shift;		/* log2 of the mapped page size */
};

#define RDDP_MR_VALID	0	/* bit in fr_flags */

/* Page-list length of a fast-register MR (query_device reports it). */
#define RDDP_MAX_FR_PAGES	512

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
 * rddp_mr_copy - copy @len bytes from @src to @dst, one of which
 * rddp_mr_addr() (or a DMA MR's TO) gave for a chunk of @mr that the caller
 * holds a reference on for @stag (placement writes into the MR, TX reads a
 * Read Response out of it), if the MR still answers to @stag: not
 * deregistered, and a fast-register MR neither invalidated nor registered
 * again since. Returns false, having copied nothing, if it does not.
 * Any context; the copy runs under RCU or a spinlock, so keep chunks to a
 * page.
 */
bool rddp_mr_copy(struct rddp_mr *mr, u32 stag, u8 *dst, const u8 *src,
		  u32 len);

/* Process the MR frees queued by the last puts (rddp_dealloc_driver()). */
void rddp_mr_flush_frees(void);
/* The MR free queue: module init and exit. */
int rddp_mem_init(void);
void rddp_mem_exit(void);

/*
 * rddp_mr_addr - the kernel address of byte @to of a user or fast-register
 * MR and how many bytes are contiguous from there (@contig: to the end of
 * that page of the MR's page list). @to must lie inside the MR (checked by
 * rddp_mr_get()); NULL if it does not. A DMA MR has no page list: its TOs
 * are kernel virtual addresses (rddp registers without a DMA device, so
 * ib_dma_map_*() hands out virtual addresses); use them directly.
 */
u8 *rddp_mr_addr(struct rddp_mr *mr, u64 to, u32 *contig);

/*
 * rddp_mr_fast_reg - execute an IB_WR_REG_MR (TX, in SQ order): @ibmr,
 * mapped by map_mr_sg, becomes valid under STag @key with @access.
 * rddp_mr_invalidate - execute an invalidation of @stag for a QP of @pd
 * (IB_WR_LOCAL_INV, Read with local invalidate, received Send with
 * Invalidate). Any context. Both return 0 or:
 *  -ENOENT  no MR has this STag (index unused or key mismatch)
 *  -EPERM   the MR belongs to another PD (RFC 5040 §7: "STag not
 *           associated with RDMAP stream")
 *  -EINVAL  not a fast-register MR: it cannot be invalidated (RFC 5040
 *           §7, "STag cannot be invalidated"); REG_MR: MR still valid,
 *           key of another MR, or bad access flags
 * Invalidating an STag that is already invalid succeeds (verbs semantics).
 */
int rddp_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key,
		     int access);
int rddp_mr_invalidate(struct rddp_device *rdev, u32 stag, struct ib_pd *pd);

/* verbs (mem.c) */
int rddp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int rddp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *rddp_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *rddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata);
int rddp_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);
struct ib_mr *rddp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg);
int rddp_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);

#endif /* RDDP_MEM_H */
