// SPDX-License-Identifier: GPL-2.0
/*
 * Ring memory of CQs and work queues, and its mapping into libsiw.
 *
 * Rings are vmalloc_user() memory. A kernel object frees its ring itself; a
 * user object hands it to an rdma_user_mmap_entry, and the ring is freed by
 * rddp_mmap_free() once the object is destroyed (entry removed) and the last
 * user mapping is gone, so a process can never see freed memory.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rddp.h"
#include "queues.h"

#define RDDP_MMAP_MIN_PGOFF	(SIW_INVAL_UOBJ_KEY / PAGE_SIZE + 1)

struct rddp_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *ring;
};

void *rddp_ring_alloc(size_t size)
{
	return vmalloc_user(size);
}

int rddp_ring_map(struct ib_udata *udata, void *ring, size_t size,
		  struct rdma_user_mmap_entry **entry, u64 *key)
{
	struct rddp_ucontext *uctx;
	struct rddp_mmap_entry *e;
	int ret;

	uctx = rdma_udata_to_drv_context(udata, struct rddp_ucontext, base);
	if (!uctx)
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->ring = ring;
	/*
	 * libsiw takes the offset SIW_INVAL_UOBJ_KEY for "no mapping": hand
	 * out offsets above it only.
	 */
	ret = rdma_user_mmap_entry_insert_range(&uctx->base, &e->rdma,
						PAGE_ALIGN(size),
						RDDP_MMAP_MIN_PGOFF, U32_MAX);
	if (ret) {
		kfree(e);
		return ret;
	}
	*entry = &e->rdma;
	*key = rdma_user_mmap_get_offset(&e->rdma);
	return 0;
}

void rddp_ring_free(void *ring, struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	else
		vfree(ring);
}

int rddp_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct rddp_mmap_entry *e;
	int ret;

	entry = rdma_user_mmap_entry_get(ctx, vma);
	if (!entry)
		return -EINVAL;
	e = container_of(entry, struct rddp_mmap_entry, rdma);
	ret = remap_vmalloc_range(vma, e->ring, 0);
	rdma_user_mmap_entry_put(entry);
	return ret;
}

void rddp_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct rddp_mmap_entry *e =
		container_of(entry, struct rddp_mmap_entry, rdma);

	vfree(e->ring);
	kfree(e);
}
