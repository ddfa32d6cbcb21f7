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
 *    into a fast-register MR after its invalidation), and TX never reads
 *    a Read Response out of one: rddp_mr_copy() checks @dead (and a
 *    fast-register MR's validity and registration) for every chunk it
 *    copies, under RCU for user and DMA MRs and under @lock for
 *    fast-register MRs. dereg_mr waits for an RCU grace period when other
 *    holders exist, so a chunk copy that saw the MR alive has finished
 *    when dereg_mr returns; invalidation, which may run in softirq, takes
 *    @lock instead. Placement that finds the MR gone fails the segment
 *    (RFC 5041 §7.2 "invalid STag" for a tagged buffer).
 *  - A Read Response has no WQE: the peer that asked for it decides how
 *    long it stays parked behind its closed window, and the MR's owner
 *    gets the memory back when dereg_mr returns (an application may write
 *    the buffer again: its pinned pages stay pinned until the last put,
 *    but they are the application's again) or when the peer invalidates
 *    a fast-register STag (a kernel consumer reuses the memory). So TX
 *    copies every FPDU's payload of a Read Response, from an MR of any
 *    type, through rddp_mr_copy() into memory of its own, never lends
 *    those pages to TCP, and stops (Terminate, invalid STag, RFC 5040 §7)
 *    at the first FPDU after the deregistration or invalidation: the
 *    peer never receives an octet written after it.
 *  - TX reads a WQE's payload from user MRs' pinned pages, which outlive
 *    the last reference; it reads a kernel MR's memory (DMA and
 *    fast-register MRs) for its own WQEs until the message is in the
 *    socket, and in-kernel consumers keep that memory until the WQE
 *    completes or the QP is destroyed, as on any RNIC that reads by DMA.
 *    Fast-register MRs' payload goes through rddp_mr_copy() there too
 *    (their page list is only read under @lock, below).
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
 *  - rddp_mr_get() checks RDDP_MR_VALID, the STag, the PD, the access
 *    rights and the bounds of a fast-register MR under @lock, and
 *    rddp_mr_get_reg() hands the holder the registration it checked
 *    against (@fr_gen), so a holder always saw a valid registration and
 *    knows which one.
 *  - REG_MR (TX, rddp_mr_fast_reg()), invalidation (rddp_mr_invalidate()),
 *    map_mr_sg and chunk copies into and out of the MR (rddp_mr_copy())
 *    serialise on @lock. The page list, @first_off, @fr_page_shift, @va
 *    and @len of a fast-register MR are read only under @lock.
 *    REG_MR writes @stag, @va, @len and @access only while the MR is
 *    invalid, bumps @fr_gen, then sets RDDP_MR_VALID with release order.
 *  - Invalidation clears RDDP_MR_VALID under @lock: new lookups fail at
 *    once, and a placement that already holds a reference stops at its
 *    next chunk (rddp_mr_copy() fails), so once the invalidation is done
 *    no byte lands in the memory the consumer gets back, and TX reads no
 *    more of it for a Read Response.
 *  - map_mr_sg rewrites the page list under @lock while the MR is invalid
 *    (-EBUSY while it is valid, as verbs require), whatever holders are
 *    left: a holder is a placement or a Read Response of an earlier
 *    registration, which the peer may keep parked as long as it likes,
 *    and a ULP's next registration must not fail for it (xprtrdma turns
 *    the failure into -EIO). Such a holder copies nothing more: every
 *    copy checks, under @lock, that the MR is valid under the holder's
 *    STag and registration, and the registration after the new map has
 *    another @fr_gen even when the consumer reuses the key. So a holder
 *    never reads a page list being rewritten, never reaches the new
 *    pages, and a new registration becomes visible only with
 *    RDDP_MR_VALID.
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

/**
 * struct rddp_pd - a protection domain; the RDMA core's object is all it has
 * @base: the core's PD
 */
struct rddp_pd {
	struct ib_pd base;
};

/**
 * struct rddp_mr - a memory region (lifetime and locking rules above)
 * @base: the core's MR; base.lkey == base.rkey == the STag
 * @rdev: its device
 * @ref: references: the verbs object's and the data path's holders'
 * @dead: deregistered; written under @lock
 * @lock: see the rules above
 * @free_work: the last put after dereg_mr queues the free here
 * @rcu: the free waits for an RCU grace period
 * @va: first tagged offset (TO)
 * @len: bytes; a DMA MR covers all TOs
 * @access: IB_ACCESS_*
 * @dma_mr: get_dma_mr's: a TO is a kernel virtual address
 * @umem: user MRs: the pinned pages
 * @pages: @umem's pages in TO order
 * @npages: entries in @pages
 * @first_off: byte offset of @va in pages[0], or of the mapped iova in
 *	fr_pages[0]
 * @stag: the STag lookups match
 * @fr: a fast-register MR (alloc_mr)
 * @fr_flags: RDDP_MR_VALID
 * @fr_gen: registrations so far (REG_MRs executed), under @lock; a
 *	holder's copies check it (the rules above)
 * @fr_pages: kernel addresses, page-size aligned
 * @fr_max: slots in @fr_pages
 * @fr_npages: slots filled by the last map_mr_sg
 * @fr_page_shift: log2 of the mapped page size
 */
struct rddp_mr {
	struct ib_mr base;
	struct rddp_device *rdev;
	refcount_t ref;
	bool dead;
	spinlock_t lock;		/* see the rules above */
	struct work_struct free_work;
	struct rcu_head rcu;
	u64 va;
	u64 len;
	int access;
	bool dma_mr;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned int first_off;
	u32 stag;

	bool fr;
	unsigned long fr_flags;
	u32 fr_gen;
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_npages;
	u32 fr_page_shift;
};

#define RDDP_MR_VALID	0	/* bit in fr_flags */

/* Page-list length of a fast-register MR (query_device reports it). */
#define RDDP_MAX_FR_PAGES	512

/**
 * to_rddp_mr() - the rddp MR of a core MR
 * @mr: the core's MR, one of rddp's
 *
 * Return: the struct rddp_mr it is embedded in.
 */
static inline struct rddp_mr *to_rddp_mr(struct ib_mr *mr)
{
	return container_of(mr, struct rddp_mr, base);
}

/**
 * rddp_mr_get() - look up and reference the MR of an STag for a data
 * transfer
 * @rdev: the device
 * @stag: the STag
 * @pd: the PD of the QP doing the transfer (must be the MR's PD)
 * @access: IB_ACCESS_* the transfer needs (0 for a local read, LOCAL_WRITE
 *	to place into a receive buffer, REMOTE_WRITE/REMOTE_READ for a
 *	tagged buffer targeted by the peer)
 * @to: the tagged offset of the transfer
 * @len: its length
 *
 * Callable from any context (RCU lookup, no sleeping).
 *
 * Return: a referenced MR (release with rddp_mr_put()) or an ERR_PTR:
 *  -ENOENT     no valid MR has this STag (index unused or key mismatch):
 *              DDP "invalid STag" / RDMAP "invalid STag"
 *  -EPERM      STag not associated with @pd: DDP "STag not associated with
 *              RDMAP stream" / RDMAP "protection domain mismatch"
 *  -EACCES     MR lacks @access: RDMAP "access rights violation"
 *  -EOVERFLOW  @to + @len wraps: DDP "TO wrap"
 *  -ERANGE     [@to, @to + @len) outside the MR: DDP/RDMAP "base or bounds
 *              violation"
 */
struct rddp_mr *rddp_mr_get(struct rddp_device *rdev, u32 stag,
			    struct ib_pd *pd, int access, u64 to, u64 len);

/**
 * rddp_mr_get_reg() - rddp_mr_get(), and the registration it checked
 * @rdev: the device
 * @stag: the STag
 * @pd: the PD of the QP doing the transfer
 * @access: IB_ACCESS_* the transfer needs
 * @to: the tagged offset of the transfer
 * @len: its length
 * @gen: set to the registration the checks were made against (a
 *	fast-register MR's @fr_gen; 0 for other MRs), for rddp_mr_copy()
 *
 * Return: as rddp_mr_get().
 */
struct rddp_mr *rddp_mr_get_reg(struct rddp_device *rdev, u32 stag,
				struct ib_pd *pd, int access, u64 to, u64 len,
				u32 *gen);

/**
 * rddp_mr_put() - drop a data-path reference taken by rddp_mr_get()
 * @mr: the MR
 *
 * The last put after dereg_mr queues the free (@free_work). Any context.
 */
void rddp_mr_put(struct rddp_mr *mr);

/**
 * rddp_mr_copy() - copy a chunk into or out of an MR that still answers to
 * the registration a holder looked it up under
 * @mr: the MR, referenced by the caller
 * @stag: the STag the reference was taken for
 * @gen: the registration rddp_mr_get_reg() reported
 * @to: the tagged offset of the chunk's first byte, inside what the lookup
 *	checked (a DMA MR's TO is a kernel virtual address)
 * @buf: the other side of the copy
 * @len: bytes wanted
 * @into: copy @buf into the MR (placement); else out of it into @buf
 *	(TX)
 *
 * Copies from @to up to the end of that page (at most @len) if the MR
 * still answers: not deregistered, and a fast-register MR neither
 * invalidated nor registered again since (mem.h). Any context; the copy
 * runs under RCU or the MR's spinlock, a page at most: call again for the
 * rest.
 *
 * Return: the bytes copied, at least one when @len is not 0; 0, having
 * copied nothing, if the MR no longer answers.
 */
u32 rddp_mr_copy(struct rddp_mr *mr, u32 stag, u32 gen, u64 to, u8 *buf,
		 u32 len, bool into);

/**
 * rddp_mr_flush_frees() - process the MR frees queued by the last puts
 *
 * Called by rddp_dealloc_driver() once every QP, and so every holder, is
 * gone.
 */
void rddp_mr_flush_frees(void);

/**
 * rddp_mem_init() - module init: allocate the MR free queue
 *
 * Return: 0 or -ENOMEM.
 */
int rddp_mem_init(void);

/**
 * rddp_mem_exit() - module exit: destroy the MR free queue
 */
void rddp_mem_exit(void);

/**
 * rddp_mr_addr() - the kernel address of a byte of a user MR
 * @mr: the MR
 * @to: the byte's tagged offset, inside the MR (checked by rddp_mr_get())
 * @contig: set to the bytes contiguous from there, to the end of that page
 *	of the MR's page list
 *
 * A user MR's page list never changes. A DMA MR has no page list: its TOs
 * are kernel virtual addresses (rddp registers without a DMA device, so
 * ib_dma_map_*() hands out virtual addresses); use them directly. A
 * fast-register MR's page list is read only under its lock
 * (rddp_mr_copy()).
 *
 * Return: the address, or NULL if @to is not inside the MR or the MR is
 * not a user MR.
 */
u8 *rddp_mr_addr(struct rddp_mr *mr, u64 to, u32 *contig);

/**
 * rddp_mr_fast_reg() - execute an IB_WR_REG_MR (TX, in SQ order)
 * @ibmr: the fast-register MR, mapped by map_mr_sg
 * @pd: the PD of the QP executing it
 * @key: the STag it becomes valid under
 * @access: IB_ACCESS_* it gets
 *
 * Any context.
 *
 * Return: 0 or, as rddp_mr_invalidate(), -ENOENT, -EPERM, or -EINVAL: MR
 * still valid, key of another MR, or bad access flags.
 */
int rddp_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key,
		     int access);

/**
 * rddp_mr_invalidate() - execute an invalidation of an STag
 * @rdev: the device
 * @stag: the STag
 * @pd: the PD of the QP executing it
 *
 * For IB_WR_LOCAL_INV, a Read with local invalidate and a received Send
 * with Invalidate. Invalidating an STag that is already invalid succeeds
 * (verbs semantics). Any context.
 *
 * Return: 0 or:
 *  -ENOENT  no MR has this STag (index unused or key mismatch)
 *  -EPERM   the MR belongs to another PD (RFC 5040 §7: "STag not
 *           associated with RDMAP stream")
 *  -EINVAL  not a fast-register MR: it cannot be invalidated (RFC 5040
 *           §7, "STag cannot be invalidated")
 */
int rddp_mr_invalidate(struct rddp_device *rdev, u32 stag, struct ib_pd *pd);

/**
 * rddp_alloc_pd() - ib_device_ops.alloc_pd
 * @pd: the PD the core allocated
 * @udata: user data (unused)
 *
 * Return: 0, or -ENOMEM at RDDP_MAX_PD.
 */
int rddp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);

/**
 * rddp_dealloc_pd() - ib_device_ops.dealloc_pd
 * @pd: the PD
 * @udata: user data (unused)
 *
 * Return: 0.
 */
int rddp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);

/**
 * rddp_get_dma_mr() - ib_device_ops.get_dma_mr: an MR whose TOs are kernel
 * virtual addresses
 * @pd: its PD
 * @access: IB_ACCESS_*
 *
 * Return: the MR or an ERR_PTR (bad access flags, RDDP_MAX_MR, no STag).
 */
struct ib_mr *rddp_get_dma_mr(struct ib_pd *pd, int access);

/**
 * rddp_reg_user_mr() - ib_device_ops.reg_user_mr: pin and register user
 * memory
 * @pd: its PD
 * @start: the user address of the memory
 * @len: its bytes, at most RDDP_MAX_MR_SIZE
 * @virt: the TO of its first byte
 * @access: IB_ACCESS_*
 * @udata: libsiw's request (the STag key) and response (the STag)
 *
 * Return: the MR or an ERR_PTR.
 */
struct ib_mr *rddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			       u64 virt, int access, struct ib_udata *udata);

/**
 * rddp_dereg_mr() - ib_device_ops.dereg_mr
 * @mr: the MR
 * @udata: user data (unused)
 *
 * The STag stops answering at once; the memory is freed after the last
 * holder's put (the rules above). Never waits for the peer.
 *
 * Return: 0.
 */
int rddp_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

/**
 * rddp_alloc_mr() - ib_device_ops.alloc_mr: a fast-register MR
 * @pd: its PD
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: its page-list length, at most RDDP_MAX_FR_PAGES
 *
 * The MR is published invalid: no lookup succeeds before a REG_MR.
 *
 * Return: the MR or an ERR_PTR (-EOPNOTSUPP for another @type, -EINVAL,
 * -ENOMEM).
 */
struct ib_mr *rddp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg);

/**
 * rddp_map_mr_sg() - ib_device_ops.map_mr_sg: fill a fast-register MR's
 * page list
 * @mr: the MR
 * @sg: the scatterlist
 * @sg_nents: its entries
 * @sg_offset: byte offset into the first entry (ib_sg_to_pages())
 *
 * Holders of an earlier registration do not stop it (the rules above).
 *
 * Return: the entries mapped; -EINVAL, or -EBUSY while the MR is valid.
 */
int rddp_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);

#endif /* RDDP_MEM_H */
