// SPDX-License-Identifier: GPL-2.0
/* Local buffer lists of the data path (sg.h). */
#include <linux/highmem.h>
#include <linux/mm.h>

#include "rddp.h"
#include "sg.h"

/*
 * Payload is addressed through page_address(): rddp needs every page in the
 * kernel's direct map, which 64-bit kernels (the only ones RDMA drivers like
 * rddp are built for) guarantee.
 */
#ifdef CONFIG_HIGHMEM
#error "rddp addresses MR pages through the direct map; HIGHMEM is not supported"
#endif

int rddp_sg_add(struct rddp_sg *sg, struct rddp_device *rdev, u32 stag,
		struct ib_pd *pd, int access, u64 addr, u32 len)
{
	struct rddp_mr *mr;

	if (!len)
		return 0;
	if (sg->nr == SIW_MAX_SGE || (u64)sg->total + len > U32_MAX)
		return -E2BIG;
	mr = rddp_mr_get_reg(rdev, stag, pd, access, addr, len,
			     &sg->e[sg->nr].gen);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sg->e[sg->nr].mr = mr;
	sg->e[sg->nr].stag = stag;
	sg->e[sg->nr].addr = addr;
	sg->e[sg->nr].len = len;
	sg->nr++;
	sg->total += len;
	return 0;
}

int rddp_sg_add_kva(struct rddp_sg *sg, void *p, u32 len)
{
	if (!len)
		return 0;
	if (sg->nr == SIW_MAX_SGE || (u64)sg->total + len > U32_MAX)
		return -E2BIG;
	sg->e[sg->nr].mr = NULL;
	sg->e[sg->nr].stag = 0;
	sg->e[sg->nr].gen = 0;
	sg->e[sg->nr].addr = (uintptr_t)p;
	sg->e[sg->nr].len = len;
	sg->nr++;
	sg->total += len;
	return 0;
}

void rddp_sg_release(struct rddp_sg *sg)
{
	u32 i;

	for (i = 0; i < sg->nr; i++)
		if (sg->e[i].mr)
			rddp_mr_put(sg->e[i].mr);
	rddp_sg_init(sg);
}

int rddp_sg_seek(struct rddp_sg *sg, u32 off)
{
	u32 i;

	if (off > sg->total)
		return -ERANGE;
	for (i = 0; i < sg->nr && off >= sg->e[i].len; i++)
		off -= sg->e[i].len;
	sg->idx = i;
	sg->off = off;
	return 0;
}

/*
 * The kernel address of the cursor and how many bytes from there are
 * contiguous (at most @want), for spans. Never of a fast-register MR,
 * whose page list is read only under its lock (mem.h).
 */
static u8 *rddp_sg_chunk(struct rddp_sg *sg, u32 want, u32 *len)
{
	struct rddp_sg_ent *e = &sg->e[sg->idx];
	u32 n = min(want, e->len - sg->off);
	u64 to = e->addr + sg->off;
	u8 *p;

	if (!e->mr || e->mr->dma_mr) {
		/* Kernel virtual memory: inline data or a DMA MR's buffer. */
		*len = n;
		return (u8 *)(uintptr_t)to;
	}
	/* rddp_mr_get() checked the range, so the lookup cannot fail. */
	p = rddp_mr_addr(e->mr, to, len);
	if (WARN_ON_ONCE(!p)) {
		*len = 0;
		return NULL;
	}
	*len = min(*len, n);
	return p;
}

static void rddp_sg_advance(struct rddp_sg *sg, u32 n)
{
	sg->off += n;
	if (sg->off == sg->e[sg->idx].len) {
		sg->idx++;
		sg->off = 0;
	}
}

u32 rddp_sg_spans(struct rddp_sg *sg, u32 len, struct rddp_span *out,
		  u32 max, u32 *nr)
{
	u32 done = 0, n = 0, chunk;
	u8 *p;

	while (done < len && n < max && sg->idx < sg->nr) {
		p = rddp_sg_chunk(sg, len - done, &chunk);
		if (!chunk)
			break;
		out[n].base = p;
		out[n].len = chunk;
		n++;
		done += chunk;
		rddp_sg_advance(sg, chunk);
	}
	*nr = n;
	return done;
}

bool rddp_sg_has_fr(const struct rddp_sg *sg)
{
	u32 i;

	for (i = 0; i < sg->nr; i++)
		if (sg->e[i].mr && sg->e[i].mr->fr)
			return true;
	return false;
}

/* Copy @len bytes between the cursor and @buf: into the list if @into. */
static int rddp_sg_copy(struct rddp_sg *sg, u8 *buf, u32 len, bool into)
{
	struct rddp_sg_ent *e;
	u32 chunk;
	u8 *p;

	while (len) {
		if (sg->idx >= sg->nr)
			return -ERANGE;
		e = &sg->e[sg->idx];
		chunk = min(len, e->len - sg->off);
		if (!e->mr) {
			p = (u8 *)(uintptr_t)(e->addr + sg->off);
			memcpy(into ? p : buf, into ? buf : p, chunk);
		} else {
			/* A page at most, if the MR still answers (mem.h). */
			chunk = rddp_mr_copy(e->mr, e->stag, e->gen,
					     e->addr + sg->off, buf, chunk, into);
			if (!chunk)
				return -ENOENT;
		}
		buf += chunk;
		len -= chunk;
		rddp_sg_advance(sg, chunk);
	}
	return 0;
}

int rddp_sg_copy_in(struct rddp_sg *sg, const u8 *data, u32 len)
{
	/* Only read: rddp_sg_copy() writes @buf only when copying out. */
	return rddp_sg_copy(sg, (u8 *)data, len, true);
}

int rddp_sg_copy_out(struct rddp_sg *sg, u8 *out, u32 len)
{
	return rddp_sg_copy(sg, out, len, false);
}
