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
 * copies into and out of it go through rddp_mr_copy(), so a deregistered
 * or invalidated MR receives nothing more and gives nothing more, and a
 * fast-register MR's page list is read only there, under its lock.
 */
#ifndef RDDP_SG_H
#define RDDP_SG_H

#include <rddp/mpa.h>
#include <rdma/siw-abi.h>

#include "mem.h"

struct rddp_device;

/**
 * struct rddp_sg_ent - one buffer of a list
 * @mr: the referenced MR; NULL: @addr is a kernel virtual address
 * @stag: the STag @mr was looked up by
 * @gen: the registration it was looked up under (rddp_mr_get_reg())
 * @addr: TO (MR) or kernel virtual address
 * @len: bytes
 */
struct rddp_sg_ent {
	struct rddp_mr *mr;
	u32 stag;
	u32 gen;
	u64 addr;
	u32 len;
};

/**
 * struct rddp_sg - a local buffer list with its cursor
 * @nr: entries used in @e
 * @total: bytes in all entries
 * @idx: cursor: entry
 * @off: cursor: offset in that entry
 * @e: the entries, as many as a work request has SGEs
 */
struct rddp_sg {
	u32 nr;
	u32 total;
	u32 idx;
	u32 off;
	struct rddp_sg_ent e[SIW_MAX_SGE];
};

/**
 * rddp_sg_init() - an empty list, cursor at its start
 * @sg: the list (it holds no references)
 */
static inline void rddp_sg_init(struct rddp_sg *sg)
{
	sg->nr = 0;
	sg->total = 0;
	sg->idx = 0;
	sg->off = 0;
}

/**
 * rddp_sg_add() - append an MR's buffer to a list
 * @sg: the list
 * @rdev: the device whose MRs @stag names
 * @stag: the buffer's STag
 * @pd: the QP's PD, which must own the MR
 * @access: IB_ACCESS_* the transfer needs (see rddp_mr_get())
 * @addr: the buffer's first TO
 * @len: its bytes; a zero-length buffer is skipped without a lookup
 *
 * Return: 0 or rddp_mr_get()'s error (-ENOENT, -EPERM, -EACCES,
 * -EOVERFLOW, -ERANGE); -E2BIG if the list is full or the total exceeds
 * 4 GiB.
 */
int rddp_sg_add(struct rddp_sg *sg, struct rddp_device *rdev, u32 stag,
		struct ib_pd *pd, int access, u64 addr, u32 len);

/**
 * rddp_sg_add_kva() - append kernel memory (inline data of an SQE)
 * @sg: the list
 * @p: the memory
 * @len: its bytes; zero adds nothing
 *
 * Return: 0, or -E2BIG if the list is full or the total exceeds 4 GiB.
 */
int rddp_sg_add_kva(struct rddp_sg *sg, void *p, u32 len);

/**
 * rddp_sg_release() - drop the list's MR references and empty it
 * @sg: the list
 */
void rddp_sg_release(struct rddp_sg *sg);

/**
 * rddp_sg_seek() - move the cursor
 * @sg: the list
 * @off: the byte of the list to move to
 *
 * Return: 0, or -ERANGE beyond the list's end.
 */
int rddp_sg_seek(struct rddp_sg *sg, u32 off);

/**
 * rddp_sg_spans() - describe bytes from the cursor as spans for the FPDU
 * builder, and advance the cursor
 * @sg: the list
 * @len: bytes wanted
 * @out: the spans, one per page piece
 * @max: room in @out
 * @nr: set to the spans written
 *
 * Not for lists with a fast-register MR (rddp_sg_has_fr()): its page
 * list is read only by rddp_mr_copy(), under its lock (mem.h); the spans
 * stop there, with a warning.
 *
 * Return: the bytes described, which is less than @len when @max spans
 * were not enough.
 */
u32 rddp_sg_spans(struct rddp_sg *sg, u32 len, struct rddp_span *out,
		  u32 max, u32 *nr);

/**
 * rddp_sg_has_fr() - whether a list has a fast-register MR
 * @sg: the list
 *
 * Return: true if an entry's MR is a fast-register MR.
 */
bool rddp_sg_has_fr(const struct rddp_sg *sg);

/**
 * rddp_sg_copy_in() - copy received bytes to the cursor and advance
 * @sg: the list
 * @data: the bytes
 * @len: how many
 *
 * MR entries are written through rddp_mr_copy().
 *
 * Return: 0; -ERANGE past the end; -ENOENT if an MR of the list was
 * deregistered or invalidated meanwhile (the bytes before it were copied).
 */
int rddp_sg_copy_in(struct rddp_sg *sg, const u8 *data, u32 len);

/**
 * rddp_sg_copy_out() - copy bytes from the cursor and advance
 * @sg: the list
 * @out: where they go
 * @len: how many
 *
 * MR entries are read through rddp_mr_copy().
 *
 * Return: 0; -ERANGE past the end; -ENOENT if an MR of the list was
 * deregistered or invalidated meanwhile.
 */
int rddp_sg_copy_out(struct rddp_sg *sg, u8 *out, u32 len);

#endif /* RDDP_SG_H */
