/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Local buffer lists of the data path: the SGEs of a work request (or the
 * one tagged buffer of a Read Response or RDMA Write) resolved to referenced
 * MRs, with a cursor that the TX side turns into spans for the FPDU builder
 * and the RX side copies received payload to.
 *
 * Lifetime: rddp_sg_add() takes a reference on each MR (rddp_mr_get());
 * rddp_sg_release() drops them. A list is owned by one engine (TX work or
 * RX under the socket lock) and never shared, so it needs no lock. A list
 * may be held as long as the peer likes (mem.h: nothing waits for it);
 * copies into it go through rddp_mr_copy(), so a deregistered or
 * invalidated MR receives nothing more.
 */
#ifndef RDDP_SG_H
#define RDDP_SG_H

#include <rddp/mpa.h>
#include <rdma/siw-abi.h>

#include "mem.h"

struct rddp_device;

struct rddp_sg_ent {
	struct rddp_mr *mr;	/* NULL: @addr is a kernel virtual address */
	u32 stag;		/* the STag @mr was looked up by */
	u64 addr;		/* TO (user MR) or kernel virtual address */
	u32 len;
};

struct rddp_sg {
	u32 nr;
	u32 total;		/* bytes in all entries */
	u32 idx;		/* cursor: entry */
	u32 off;		/* cursor: offset in entry */
	struct rddp_sg_ent e[SIW_MAX_SGE];
};

static inline void rddp_sg_init(struct rddp_sg *sg)
{
	sg->nr = 0;
	sg->total = 0;
	sg->idx = 0;
	sg->off = 0;
}

/*
 * Append the buffer [@addr, @addr + @len) of STag @stag, which the QP's @pd
 * must own with @access. A zero-length buffer is skipped without a lookup.
 * Returns 0 or rddp_mr_get()'s error (-ENOENT, -EPERM, -EACCES, -EOVERFLOW,
 * -ERANGE); -E2BIG if the list is full or the total exceeds 4 GiB.
 */
int rddp_sg_add(struct rddp_sg *sg, struct rddp_device *rdev, u32 stag,
		struct ib_pd *pd, int access, u64 addr, u32 len);
/* Append kernel memory (inline data of an SQE). */
int rddp_sg_add_kva(struct rddp_sg *sg, void *p, u32 len);
void rddp_sg_release(struct rddp_sg *sg);

/* Move the cursor to byte @off of the list; -ERANGE beyond its end. */
int rddp_sg_seek(struct rddp_sg *sg, u32 off);

/*
 * Describe up to @len bytes from the cursor as at most @max spans (one per
 * page piece) and advance the cursor. Returns the bytes described, which is
 * less than @len when @max spans were not enough.
 */
u32 rddp_sg_spans(struct rddp_sg *sg, u32 len, struct rddp_span *out,
		  u32 max, u32 *nr);

/*
 * Copy @len bytes to the cursor and advance; -ERANGE past the end, -ENOENT
 * if an MR of the list was deregistered or invalidated meanwhile (the
 * bytes before it were copied).
 */
int rddp_sg_copy_in(struct rddp_sg *sg, const u8 *data, u32 len);

/*
 * Copy @len bytes from the cursor to @out and advance, through
 * rddp_mr_copy() for MR entries; -ERANGE past the end, -ENOENT if an MR of
 * the list was deregistered or invalidated meanwhile.
 */
int rddp_sg_copy_out(struct rddp_sg *sg, u8 *out, u32 len);

#endif /* RDDP_SG_H */
