// SPDX-License-Identifier: GPL-2.0
/*
 * What every layer of rddp.ko uses and none owns, below them all (rddp.h):
 * the one notification entry point, rddp_notify(), and rddp_wq, the
 * workqueue connection setup and the LLPs run their work on.
 *
 * rddp_notify(): the code where things happen (device.c, qp.c, stream.c,
 * cm.c) reports them here, and the genl family (genl.c), which registers
 * itself at module init, hears them: neither side names a function of the
 * other, so the family stays above the code it observes.
 *
 * Lifetime: rddp_genl_init() registers the observer and rddp_genl_exit()
 * removes it, which main.c runs before rddp_device_init() and after
 * rddp_device_exit(). Every event concerns a device (rdev), and none is
 * raised before the first device exists or after the last is gone, so the
 * pointer never changes while an event runs: it needs no lock, only
 * READ_ONCE/WRITE_ONCE for the compiler. rddp_wq lives from
 * rddp_cm_init() to rddp_cm_exit(), which main.c runs around every device.
 */
#include <linux/workqueue.h>

#include "rddp.h"

static void (*rddp_observer)(const struct rddp_notify *n);

void rddp_notify_register(void (*fn)(const struct rddp_notify *n))
{
	WRITE_ONCE(rddp_observer, fn);
}

void rddp_notify(const struct rddp_notify *n)
{
	void (*fn)(const struct rddp_notify *n) = READ_ONCE(rddp_observer);

	if (fn)
		fn(n);
}

struct workqueue_struct *rddp_wq;

int rddp_wq_init(void)
{
	rddp_wq = alloc_workqueue("rddp", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return rddp_wq ? 0 : -ENOMEM;
}

void rddp_wq_exit(void)
{
	destroy_workqueue(rddp_wq);
}
