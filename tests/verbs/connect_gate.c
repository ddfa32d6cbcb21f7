// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * librddp_connect_gate.so: an LD_PRELOAD shim for perftest's client in the
 * VM tests (tests/vm/lib.sh, `both`). perftest over rdma_cm connects twice,
 * its parameter exchange and then the test QPs, and its server listens
 * anew in between; a client that reaches the second listen first is
 * refused (TCP answers its SYN with a RST), and Debian's perftest 4.5-0.17
 * then crashes in its own retry (fixed upstream in perftest 3d9d8d0). The
 * server's guest marks the moment its second listener exists
 * (_t_mark_listening); this shim holds every rdma_connect() after the
 * process's first until that mark exists, so the connection is made once,
 * to a listener.
 *
 *   RDDP_CONNECT_GATE=FILE       the mark; unset: the shim only passes calls on
 *   RDDP_CONNECT_GATE_SECONDS=N  the longest wait (default 60); the call is
 *                                then made anyway, and its refusal reported
 *                                as before
 *
 * It waits in the caller's thread before the real call: perftest's event
 * loop has nothing else to do at that point.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct rdma_cm_id;
struct rdma_conn_param;

typedef int connect_fn(struct rdma_cm_id *id, struct rdma_conn_param *param);
connect_fn rdma_connect;

static atomic_int connects;

static void wait_for_gate(void)
{
	const char *mark = getenv("RDDP_CONNECT_GATE");
	const char *secs = getenv("RDDP_CONNECT_GATE_SECONDS");
	long limit_ms = (secs ? atol(secs) : 60) * 1000;
	const struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };
	long waited_ms;

	if (!mark || !*mark)
		return;
	for (waited_ms = 0; waited_ms < limit_ms; waited_ms += 20) {
		if (access(mark, F_OK) == 0)
			return;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "connect_gate: no %s after %ld s; connecting anyway\n",
		mark, limit_ms / 1000);
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	connect_fn *real = (connect_fn *)dlsym(RTLD_NEXT, "rdma_connect");

	if (!real) {
		fprintf(stderr, "connect_gate: no rdma_connect after the shim\n");
		abort();
	}
	if (atomic_fetch_add(&connects, 1) > 0)
		wait_for_gate();
	return real(id, conn_param);
}
