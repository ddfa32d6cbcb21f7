// SPDX-License-Identifier: GPL-2.0
/*
 * rddp_kverbs: verb-level tests with a kernel consumer, as the in-kernel
 * ULPs (NVMe-oF, NFS/RDMA, iSER) use an RNIC. Loaded in a test guest with
 * an rddp device whose netdev has the address @addr; connects pairs of RC
 * QPs to itself through rdma_cm and checks fast registration, local and
 * remote invalidation (RFC 5040 Send with Invalidate), Read with
 * invalidate, ib_drain_qp (also of a QP on an SRQ) and the refusals: a page list beyond the MR's,
 * REG_MR of a valid MR, map_mr_sg under a valid registration, use of an
 * invalidated STag and remote invalidation of an STag of another PD or of
 * one that cannot be invalidated. The peer's Terminate for each refusal is
 * in the kernel log (tests/vm/ulp.sh checks its codes). serve_read=1
 * serves a hostile peer instead (kv_serve_read()).
 *
 * Results are TAP lines in the kernel log ("rddp_kverbs: ok N - name");
 * loading fails with -EIO if any test failed. Test module only: built for
 * the test guests (make kmod-stock, kmod-debug), never installed. With
 * hold_backlog it only listens, as a slow ULP (kv_hold, tests/vm/cm.sh).
 */
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/delay.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

static char *addr = "198.51.100.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the rddp device's netdev");
static int port = 7174;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "TCP port the tests listen on");
static bool serve_read;
module_param(serve_read, bool, 0444);
MODULE_PARM_DESC(serve_read,
		 "instead of the tests: serve one peer a fast-register MR to read (kv_serve_read)");
/* Written by kv_serve_read() while the module loads; the peer reads it in sysfs. */
static int serve_stage;
module_param(serve_stage, int, 0444);
MODULE_PARM_DESC(serve_stage,
		 "serve_read's progress (read only): 2 once the invalidated MR is mapped and registered again");
static int hold_backlog;
module_param(hold_backlog, int, 0444);
MODULE_PARM_DESC(hold_backlog,
		 "instead of the tests: listen with this backlog until unloaded, hold the first connection request until release (kv_hold)");
static bool release;
module_param(release, bool, 0644);
MODULE_PARM_DESC(release, "with hold_backlog: let the held connection request go");

#define KV_TIMEOUT	(10 * HZ)
#define KV_BUF		(4 * PAGE_SIZE)
#define KV_OFF		200	/* MR buffers start inside their first page */
#define KV_LEN		(3 * PAGE_SIZE)
#define KV_WRS		32

/* A work request's completion, written by the CQ's softirq poller. */
struct kv_wr {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

/* One end of a connection: its cm_id, PD, CQ and the events seen. */
struct kv_ep {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	unsigned long seen;	/* BIT(enum rdma_cm_event_type) */
	bool failed;		/* an error event */
	bool pd_shared;		/* @pd is another end's (kv_srv_pd) */
	struct ib_mr *mrs[2];	/* deregistered with the QP, before the PD */
	int nr_mrs;
};

/*
 * A connected pair. Work request slots live here, not on a test's stack:
 * a WR that a test stopped waiting for still completes (flushed) before
 * the pair is torn down.
 */
struct kv_pair {
	struct kv_ep cli, srv;
	struct kv_wr wrs[KV_WRS];
	int nr_wrs;
};

static struct kv_ep kv_listen;
static struct kv_pair kv;
/* The end the listener's next connection request goes to (kv_pair_up()). */
static struct kv_ep *kv_accept = &kv.srv;
/* If set, the server end of the next pair uses this PD (kv_serve_remap()). */
static struct ib_pd *kv_srv_pd;
/* If set, the server end's QP of the next pair is on it (kv_test_srq_drain()). */
static struct ib_srq *kv_srv_srq;
/* IB_EVENT_QP_LAST_WQE_REACHED events seen on any QP of the tests. */
static atomic_t kv_last_wqe = ATOMIC_INIT(0);
/* The client's CQ poll context for the next pair (kv_test_direct). */
static enum ib_poll_context kv_cli_poll = IB_POLL_SOFTIRQ;
static DECLARE_WAIT_QUEUE_HEAD(kv_wq);
static u8 *kv_src, *kv_sbuf, *kv_cbuf;
static int kv_n, kv_failed;

static void kv_result(bool ok, const char *name)
{
	kv_n++;
	if (!ok)
		kv_failed++;
	pr_info("rddp_kverbs: %sok %d - %s\n", ok ? "" : "not ", kv_n, name);
}

/* ---- rdma_cm ---- */

static struct rdma_conn_param kv_conn_param = {
	.responder_resources = 4,
	.initiator_depth = 4,
};

static int kv_ep_qp(struct kv_ep *ep);

static int kv_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kv_ep *ep = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/*
		 * The new cm_id is the server end of the pair; rdma_accept()
		 * belongs in this handler (the core holds its mutex here).
		 */
		ep = kv_accept;
		ep->id = id;
		id->context = ep;
		if (kv_ep_qp(ep) || rdma_accept(id, &kv_conn_param))
			WRITE_ONCE(ep->failed, true);
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		pr_info("rddp_kverbs: cm event %s (%d)\n",
			rdma_event_msg(ev->event), ev->status);
		WRITE_ONCE(ep->failed, true);
		break;
	default:
		break;
	}
	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &ep->seen);
	wake_up_all(&kv_wq);
	return 0;
}

static int kv_wait_event(struct kv_ep *ep, enum rdma_cm_event_type t)
{
	if (!wait_event_timeout(kv_wq, test_bit(t, &ep->seen) ||
				READ_ONCE(ep->failed), KV_TIMEOUT))
		return -ETIMEDOUT;
	return test_bit(t, &ep->seen) ? 0 : -ECONNREFUSED;
}

static void kv_qp_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&kv_last_wqe);
}

static int kv_ep_qp(struct kv_ep *ep)
{
	struct ib_qp_init_attr a = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.event_handler = kv_qp_event,
		.cap = {
			.max_send_wr = KV_WRS,
			.max_recv_wr = KV_WRS,
			.max_send_sge = 2,
			.max_recv_sge = 2,
		},
	};

	if (ep == kv_accept && kv_srv_srq) {
		a.srq = kv_srv_srq;
		a.cap.max_recv_wr = 0;
		a.cap.max_recv_sge = 0;
	}

	if (!ep->pd)
		ep->pd = ib_alloc_pd(ep->id->device, 0);
	if (IS_ERR(ep->pd)) {
		int ret = PTR_ERR(ep->pd);

		ep->pd = NULL;
		return ret;
	}
	ep->cq = ib_alloc_cq(ep->id->device, ep, 2 * KV_WRS, 0,
			     ep == &kv.cli ? kv_cli_poll : IB_POLL_SOFTIRQ);
	if (IS_ERR(ep->cq)) {
		int ret = PTR_ERR(ep->cq);

		ep->cq = NULL;
		return ret;
	}
	a.send_cq = ep->cq;
	a.recv_cq = ep->cq;
	return rdma_create_qp(ep->id, ep->pd, &a);
}

static void kv_ep_down(struct kv_ep *ep)
{
	if (ep->id && ep->id->qp) {
		ib_drain_qp(ep->id->qp);
		rdma_destroy_qp(ep->id);
	}
	while (ep->nr_mrs)
		ib_dereg_mr(ep->mrs[--ep->nr_mrs]);
	if (ep->cq)
		ib_free_cq(ep->cq);
	if (ep->pd && !ep->pd_shared)
		ib_dealloc_pd(ep->pd);
	if (ep->id)
		rdma_destroy_id(ep->id);
	memset(ep, 0, sizeof(*ep));
}

static void kv_pair_down(struct kv_pair *p)
{
	if (p->cli.id)
		rdma_disconnect(p->cli.id);
	if (p->srv.id)
		rdma_disconnect(p->srv.id);
	kv_ep_down(&p->cli);
	kv_ep_down(&p->srv);
	p->nr_wrs = 0;
}

static int kv_resolve(struct kv_ep *cli, struct sockaddr_in *sin)
{
	int ret;

	ret = rdma_resolve_addr(cli->id, NULL, (struct sockaddr *)sin, 2000);
	if (!ret)
		ret = kv_wait_event(cli, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (!ret)
		ret = rdma_resolve_route(cli->id, 2000);
	if (!ret)
		ret = kv_wait_event(cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	return ret;
}

/* A new connected pair in @p (the listener runs for the whole module). */
static int kv_pair_up(struct kv_pair *p)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = in_aton(addr),
	};
	int ret;

	memset(p, 0, sizeof(*p));
	p->srv.pd = kv_srv_pd;
	p->srv.pd_shared = !!kv_srv_pd;
	kv_accept = &p->srv;
	clear_bit(RDMA_CM_EVENT_CONNECT_REQUEST, &kv_listen.seen);
	p->cli.id = rdma_create_id(&init_net, kv_cm_handler, &p->cli,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(p->cli.id)) {
		ret = PTR_ERR(p->cli.id);
		p->cli.id = NULL;
		return ret;
	}
	ret = kv_resolve(&p->cli, &sin);
	if (!ret)
		ret = kv_ep_qp(&p->cli);
	if (!ret)
		ret = rdma_connect(p->cli.id, &kv_conn_param);
	if (!ret)
		ret = kv_wait_event(&p->srv, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ret)
		ret = kv_wait_event(&p->cli, RDMA_CM_EVENT_ESTABLISHED);
	if (!ret)
		ret = kv_wait_event(&p->srv, RDMA_CM_EVENT_ESTABLISHED);
	if (ret) {
		pr_info("rddp_kverbs: connection setup failed: %d\n", ret);
		kv_pair_down(p);
	}
	return ret;
}

/* ---- work requests ---- */

static void kv_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_wr *w = container_of(wc->wr_cqe, struct kv_wr, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static struct kv_wr *kv_wr_new(struct kv_pair *p)
{
	struct kv_wr *w;

	if (WARN_ON(p->nr_wrs == KV_WRS))
		return NULL;
	w = &p->wrs[p->nr_wrs++];
	w->cqe.done = kv_wr_done;
	init_completion(&w->done);
	return w;
}

/*
 * The WR's completion status, or -ETIMEDOUT. A client CQ of IB_POLL_DIRECT
 * completes nothing until its consumer polls it: that is done here.
 */
static int kv_wr_wait(struct kv_wr *w, enum ib_wc_opcode opcode)
{
	unsigned long end = jiffies + KV_TIMEOUT;
	struct ib_cq *direct = kv.cli.cq;

	if (direct && direct->poll_ctx == IB_POLL_DIRECT)
		while (!completion_done(&w->done) && time_before(jiffies, end)) {
			ib_process_cq_direct(direct, 8);
			usleep_range(100, 200);
		}
	if (!wait_for_completion_timeout(&w->done, KV_TIMEOUT))
		return -ETIMEDOUT;
	if (w->wc.status != IB_WC_SUCCESS)
		pr_info("rddp_kverbs: completion status %s\n",
			ib_wc_status_msg(w->wc.status));
	else if (w->wc.opcode != opcode)
		return -EPROTO;
	return w->wc.status;
}

static int kv_post(struct kv_ep *ep, struct ib_send_wr *wr)
{
	return ib_post_send(ep->id->qp, wr, NULL);
}

/* A signalled REG_MR of @mr (mapped) under the key @key. */
static struct kv_wr *kv_reg_key(struct kv_pair *p, struct kv_ep *ep,
				struct ib_mr *mr, int access, u32 key)
{
	struct kv_wr *w = kv_wr_new(p);
	struct ib_reg_wr wr = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
			.wr_cqe = &w->cqe,
		},
		.mr = mr,
		.access = access,
	};

	ib_update_fast_reg_key(mr, key);
	wr.key = mr->rkey;
	return kv_post(ep, &wr.wr) ? NULL : w;
}

/* A signalled REG_MR of @mr (mapped) under its next key. */
static struct kv_wr *kv_reg(struct kv_pair *p, struct kv_ep *ep,
			    struct ib_mr *mr, int access)
{
	return kv_reg_key(p, ep, mr, access, ib_inc_rkey(mr->rkey));
}

static int kv_reg_wait(struct kv_pair *p, struct kv_ep *ep, struct ib_mr *mr,
		       int access)
{
	struct kv_wr *w = kv_reg(p, ep, mr, access);

	return w ? kv_wr_wait(w, IB_WC_REG_MR) : -EINVAL;
}

/* Map @len bytes at @buf into @mr's page list. */
static int kv_map(struct ib_mr *mr, void *buf, u32 len)
{
	struct scatterlist sg;
	int n;

	sg_init_one(&sg, buf, len);
	if (!ib_dma_map_sg(mr->device, &sg, 1, DMA_BIDIRECTIONAL))
		return -ENOMEM;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	return n == 1 ? 0 : n < 0 ? n : -ERANGE;
}

/* A fast-register MR of @ep mapping @buf, deregistered by kv_ep_down(). */
static struct ib_mr *kv_fr_mr(struct kv_ep *ep, void *buf, u32 len)
{
	struct ib_mr *mr;
	u32 pages;

	if (WARN_ON(ep->nr_mrs == ARRAY_SIZE(ep->mrs)))
		return ERR_PTR(-ENOSPC);
	pages = DIV_ROUND_UP(offset_in_page(buf) + len, PAGE_SIZE);
	mr = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG, max_t(u32, 8, pages));
	if (IS_ERR(mr))
		return mr;
	ep->mrs[ep->nr_mrs++] = mr;
	return kv_map(mr, buf, len) ? ERR_PTR(-EINVAL) : mr;
}

static void kv_sge(struct kv_ep *ep, struct ib_sge *sge, void *buf, u32 len)
{
	sge->addr = ib_dma_map_single(ep->id->device, buf, len,
				      DMA_BIDIRECTIONAL);
	sge->length = len;
	sge->lkey = ep->pd->local_dma_lkey;
}

static struct kv_wr *kv_recv(struct kv_pair *p, struct kv_ep *ep, void *buf,
			     u32 len)
{
	struct kv_wr *w = kv_wr_new(p);
	struct ib_sge sge;
	struct ib_recv_wr wr = { .wr_cqe = &w->cqe, .sg_list = &sge,
				 .num_sge = 1 };

	kv_sge(ep, &sge, buf, len);
	return ib_post_recv(ep->id->qp, &wr, NULL) ? NULL : w;
}

/* A signalled Send (with Invalidate of @inv unless 0) of @len bytes. */
static struct kv_wr *kv_send(struct kv_pair *p, struct kv_ep *ep, u32 len,
			     u32 inv)
{
	struct kv_wr *w = kv_wr_new(p);
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.opcode = inv ? IB_WR_SEND_WITH_INV : IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.ex.invalidate_rkey = inv,
	};

	kv_sge(ep, &sge, kv_src, len);
	return kv_post(ep, &wr) ? NULL : w;
}

static struct kv_wr *kv_write(struct kv_pair *p, struct kv_ep *ep, u64 raddr,
			      u32 rkey, u32 len)
{
	struct kv_wr *w = kv_wr_new(p);
	struct ib_sge sge;
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
			.wr_cqe = &w->cqe,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	kv_sge(ep, &sge, kv_src, len);
	return kv_post(ep, &wr.wr) ? NULL : w;
}

/*
 * The server's QP ended (a Terminate, and the close reached its CM), and
 * so did the client's once the Terminate reached it.
 */
static bool kv_srv_closed(struct kv_pair *p)
{
	return !kv_wait_event(&p->srv, RDMA_CM_EVENT_DISCONNECTED) &&
	       !kv_wait_event(&p->cli, RDMA_CM_EVENT_DISCONNECTED);
}

static void kv_fill(u8 seed)
{
	int i;

	for (i = 0; i < KV_BUF; i++)
		kv_src[i] = (u8)(i * 7 + seed);
}

/* ---- tests ---- */

static void kv_test_caps(struct kv_pair *p)
{
	const struct ib_device_attr *a = &p->cli.id->device->attrs;
	struct ib_mr *mr;

	kv_result((a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
		  a->max_fast_reg_page_list_len >= 256,
		  "query_device: memory management extensions with a page list of >= 256");
	mr = ib_alloc_mr(p->cli.pd, IB_MR_TYPE_MEM_REG,
			 a->max_fast_reg_page_list_len + 1);
	kv_result(IS_ERR(mr), "alloc_mr beyond max_fast_reg_page_list_len is refused");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(p->cli.pd, IB_MR_TYPE_SG_GAPS, 8);
	kv_result(IS_ERR(mr), "alloc_mr IB_MR_TYPE_SG_GAPS is refused (not advertised)");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);

	mr = ib_alloc_mr(p->cli.pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(mr)) {
		kv_result(false, "alloc_mr of 2 pages");
		return;
	}
	kv_result(kv_map(mr, kv_cbuf, KV_LEN) != 0,
		  "map_mr_sg beyond the MR's page list maps less than asked");
	ib_dereg_mr(mr);
}

/* REG_MR, Write into it, Read with invalidate, Send with Invalidate. */
static void kv_test_fast_reg(struct kv_pair *p)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		  IB_ACCESS_REMOTE_READ;
	struct ib_mr *smr, *cmr;
	struct kv_wr *r, *s;
	bool ok;

	smr = kv_fr_mr(&p->srv, kv_sbuf + KV_OFF, KV_LEN);
	cmr = kv_fr_mr(&p->cli, kv_cbuf + KV_OFF, KV_LEN);
	if (IS_ERR(smr) || IS_ERR(cmr)) {
		kv_result(false, "alloc_mr and map_mr_sg");
		goto out;
	}
	kv_result(!kv_reg_wait(p, &p->srv, smr, acc),
		  "REG_MR of 3 pages at an offset completes (IB_WC_REG_MR)");

	/* A Send after a Write is placed after it (RFC 5040 ordering). */
	kv_fill(1);
	r = kv_recv(p, &p->srv, kv_sbuf, 64);
	kv_write(p, &p->cli, smr->iova, smr->rkey, KV_LEN);
	s = kv_send(p, &p->cli, 16, 0);
	ok = r && s && !kv_wr_wait(r, IB_WC_RECV) &&
	     !memcmp(kv_sbuf + KV_OFF, kv_src, KV_LEN);
	kv_result(ok, "RDMA Write into the fast-registered MR lands in its pages");

	kv_fill(2);
	memcpy(kv_sbuf + KV_OFF, kv_src, KV_LEN);
	ok = !kv_reg_wait(p, &p->cli, cmr, IB_ACCESS_LOCAL_WRITE |
			  IB_ACCESS_REMOTE_WRITE);
	if (ok) {
		struct kv_wr *w = kv_wr_new(p);
		struct ib_sge sge = { .addr = cmr->iova, .length = KV_LEN,
				      .lkey = cmr->lkey };
		struct ib_rdma_wr wr = {
			.wr = {
				.opcode = IB_WR_RDMA_READ_WITH_INV,
				.send_flags = IB_SEND_SIGNALED,
				.wr_cqe = &w->cqe,
				.sg_list = &sge,
				.num_sge = 1,
				.ex.invalidate_rkey = cmr->lkey,
			},
			.remote_addr = smr->iova,
			.rkey = smr->rkey,
		};

		memset(kv_cbuf, 0, KV_BUF);
		ok = !kv_post(&p->cli, &wr.wr) &&
		     !kv_wr_wait(w, IB_WC_RDMA_READ) &&
		     !memcmp(kv_cbuf + KV_OFF, kv_src, KV_LEN);
	}
	kv_result(ok, "RDMA Read with invalidate into a fast-registered sink");
	/* Only an invalid STag can be fast-registered again. */
	kv_result(!kv_reg_wait(p, &p->cli, cmr, IB_ACCESS_LOCAL_WRITE),
		  "the Read's sink STag was invalidated (REG_MR again succeeds)");

	r = kv_recv(p, &p->srv, kv_sbuf, 64);
	s = kv_send(p, &p->cli, 16, smr->rkey);
	ok = r && s && !kv_wr_wait(r, IB_WC_RECV) &&
	     (r->wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
	     r->wc.ex.invalidate_rkey == smr->rkey && r->wc.byte_len == 16;
	kv_result(ok, "Send with Invalidate: receive reports IB_WC_WITH_INVALIDATE and the STag");

	kv_write(p, &p->cli, smr->iova, smr->rkey, 64);
	kv_result(kv_srv_closed(p),
		  "a Write to the remotely invalidated STag draws a Terminate (invalid STag)");
out:
	kv_pair_down(p);
}

/* A signalled LOCAL_INV of @mr, waited for; 0 when it completed. */
static int kv_local_inv(struct kv_pair *p, struct kv_ep *ep, struct ib_mr *mr)
{
	struct kv_wr *w = kv_wr_new(p);
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.wr_cqe = &w->cqe,
		.ex.invalidate_rkey = mr->rkey,
	};

	return kv_post(ep, &wr) ? -EINVAL : kv_wr_wait(w, IB_WC_LOCAL_INV);
}

/*
 * A Write of 64 bytes into the server's @mr, and a Send behind it, which
 * arrives once the Write is placed (RFC 5040 §5.5 ordering); the Send's
 * receive buffer is the last page of kv_sbuf. True when the Send came.
 */
static bool kv_write_placed(struct kv_pair *p, struct ib_mr *mr)
{
	struct kv_wr *r = kv_recv(p, &p->srv, kv_sbuf + 3 * PAGE_SIZE, 64);

	kv_write(p, &p->cli, mr->iova, mr->rkey, 64);
	return r && kv_send(p, &p->cli, 16, 0) && !kv_wr_wait(r, IB_WC_RECV);
}

/*
 * LOCAL_INV, then the peer's Write is refused. Before it, the MR takes a
 * Write, is invalidated, mapped onto another page and registered again
 * under the same key (the same STag): the next Write lands in the new
 * page and leaves the old one alone, since placement goes by the
 * registration current when the segment arrives (mem.h), however recently
 * the STag named the old one; once invalidated, the MR refuses the next
 * (RFC 5040 §7).
 */
static void kv_test_local_inv(struct kv_pair *p)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct ib_mr *smr = kv_fr_mr(&p->srv, kv_sbuf, PAGE_SIZE);
	u8 *old = kv_sbuf, *new = kv_sbuf + PAGE_SIZE;
	bool ok;

	if (IS_ERR(smr)) {
		kv_result(false, "alloc_mr and map_mr_sg");
		goto out;
	}
	kv_fill(3);
	memset(kv_sbuf, 0, KV_BUF);
	ok = !kv_reg_wait(p, &p->srv, smr, acc) && kv_write_placed(p, smr) &&
	     !memcmp(old, kv_src, 64);
	kv_result(ok, "a Write into a fast-registered MR lands in its page");
	ok = ok && !kv_local_inv(p, &p->srv, smr) && !kv_map(smr, new, PAGE_SIZE);
	if (ok) {
		struct kv_wr *w = kv_reg_key(p, &p->srv, smr, acc,
					     smr->rkey & 0xff);

		ok = w && !kv_wr_wait(w, IB_WC_REG_MR);
	}
	kv_fill(4);
	ok = ok && kv_write_placed(p, smr) && !memcmp(new, kv_src, 64) &&
	     memcmp(old, kv_src, 64);
	kv_result(ok, "the STag registered anew on another page: a Write lands there");
	kv_result(!kv_local_inv(p, &p->srv, smr),
		  "LOCAL_INV of a fast-registered STag completes (IB_WC_LOCAL_INV)");
	kv_write(p, &p->cli, smr->iova, smr->rkey, 64);
	kv_result(kv_srv_closed(p),
		  "a Write to the locally invalidated STag draws a Terminate");
out:
	kv_pair_down(p);
}

/* Remote invalidation the server must refuse: @which 0 another PD's, 1 a DMA MR. */
static void kv_test_bad_inval(struct kv_pair *p, int which)
{
	struct ib_mr *cmr = NULL;
	struct kv_wr *r;
	u32 stag;
	bool ok;

	if (which == 0) {
		cmr = kv_fr_mr(&p->cli, kv_cbuf, KV_LEN);
		if (IS_ERR(cmr) || kv_reg_wait(p, &p->cli, cmr,
					       IB_ACCESS_LOCAL_WRITE)) {
			kv_result(false, "REG_MR on the client");
			goto out;
		}
		stag = cmr->rkey;	/* valid, but of the client's PD */
	} else {
		stag = p->srv.pd->local_dma_lkey;	/* a DMA MR */
	}
	r = kv_recv(p, &p->srv, kv_sbuf, 64);
	kv_send(p, &p->cli, 16, stag);
	ok = kv_srv_closed(p) && r &&
	     kv_wr_wait(r, IB_WC_RECV) == IB_WC_WR_FLUSH_ERR;
	kv_result(ok, which == 0 ?
		  "Send with Invalidate of another PD's STag: Terminate, receive flushed" :
		  "Send with Invalidate of a non-fast-register STag: Terminate, receive flushed");
out:
	kv_pair_down(p);
}

/* REG_MR and map_mr_sg while the MR is valid. */
static void kv_test_busy(struct kv_pair *p)
{
	int acc = IB_ACCESS_LOCAL_WRITE;
	struct ib_mr *mr = kv_fr_mr(&p->srv, kv_sbuf, KV_LEN);
	struct kv_wr *w;
	bool ok;

	if (IS_ERR(mr) || kv_reg_wait(p, &p->srv, mr, acc)) {
		kv_result(false, "REG_MR");
		goto out;
	}
	kv_result(kv_map(mr, kv_sbuf, PAGE_SIZE) == -EBUSY,
		  "map_mr_sg of a valid MR is refused (-EBUSY)");
	w = kv_reg(p, &p->srv, mr, acc);
	ok = w && kv_wr_wait(w, IB_WC_REG_MR) == IB_WC_LOC_QP_OP_ERR &&
	     kv_srv_closed(p);
	kv_result(ok, "REG_MR of a valid MR completes with a local QP operation error");
out:
	kv_pair_down(p);
}

/* A Send posted with interrupts off; ib_drain_qp flushes what is left. */
static void kv_test_drain(struct kv_pair *p)
{
	struct kv_wr *r[4], *s;
	unsigned long fl;
	bool ok;
	int i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		r[i] = kv_recv(p, &p->srv, kv_sbuf + i * 64, 64);
	local_irq_save(fl);	/* as a ULP posting from its completion handler */
	s = kv_send(p, &p->cli, 16, 0);
	local_irq_restore(fl);
	ok = s && r[0] && !kv_wr_wait(s, IB_WC_SEND) &&
	     !kv_wr_wait(r[0], IB_WC_RECV);
	kv_result(ok, "ib_post_send with interrupts disabled");

	ib_drain_qp(p->srv.id->qp);
	for (i = 1, ok = true; i < ARRAY_SIZE(r); i++)
		ok = ok && r[i] && completion_done(&r[i]->done) &&
		     r[i]->wc.status == IB_WC_WR_FLUSH_ERR;
	kv_result(ok, "ib_drain_qp returns with the posted receives flushed");
	kv_pair_down(p);
}

/*
 * The server's QP on a shared receive queue, as nvmet-rdma's use_srq=1: a
 * Send lands in an RQE posted to the SRQ; ib_drain_qp() moves the QP to
 * ERROR, which raises IB_EVENT_QP_LAST_WQE_REACHED (kmod/qp.c,
 * rddp_qp_last_wqe()): 6.12's drain waits up to 60 s for it (6.1's waits
 * for nothing), and so does the drain of the teardown after it.
 */
static void kv_test_srq_drain(void)
{
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = KV_WRS, .max_sge = 1 },
	};
	struct ib_recv_wr rwr = { .num_sge = 1 };
	struct kv_wr *r, *s = NULL;
	struct ib_sge sge;
	unsigned long t0;
	bool ok;

	kv_srv_pd = ib_alloc_pd(kv_listen.id->device, 0);
	if (IS_ERR(kv_srv_pd)) {
		kv_srv_pd = NULL;
		kv_result(false, "a PD and an SRQ for the server's QP");
		return;
	}
	kv_srv_srq = ib_create_srq(kv_srv_pd, &sa);
	if (IS_ERR(kv_srv_srq)) {
		kv_srv_srq = NULL;
		kv_result(false, "a PD and an SRQ for the server's QP");
		goto out_pd;
	}
	atomic_set(&kv_last_wqe, 0);
	if (kv_pair_up(&kv)) {
		kv_result(false, "connection with the server's QP on an SRQ");
		goto out;
	}
	r = kv_wr_new(&kv);
	rwr.wr_cqe = &r->cqe;
	rwr.sg_list = &sge;
	kv_sge(&kv.srv, &sge, kv_sbuf, 64);
	if (!ib_post_srq_recv(kv_srv_srq, &rwr, NULL))
		s = kv_send(&kv, &kv.cli, 16, 0);
	ok = s && !kv_wr_wait(s, IB_WC_SEND) && !kv_wr_wait(r, IB_WC_RECV) &&
	     r->wc.byte_len == 16;
	kv_result(ok, "a Send lands in an RQE of the server QP's SRQ");
	t0 = jiffies;
	ib_drain_qp(kv.srv.id->qp);
	ok = atomic_read(&kv_last_wqe) > 0 && time_before(jiffies, t0 + 10 * HZ);
	kv_result(ok, "ib_drain_qp of a QP on an SRQ: IB_EVENT_QP_LAST_WQE_REACHED at once");
	t0 = jiffies;
	kv_pair_down(&kv);
	kv_result(time_before(jiffies, t0 + 10 * HZ),
		  "the teardown's second ib_drain_qp of it returns at once too");
out:
	ib_destroy_srq(kv_srv_srq);
	kv_srv_srq = NULL;
out_pd:
	ib_dealloc_pd(kv_srv_pd);
	kv_srv_pd = NULL;
}

/*
 * A CQ its consumer polls itself (IB_POLL_DIRECT, as nvme-rdma's poll
 * queues): both a send and a receive completion reaped by
 * ib_process_cq_direct(), and ib_drain_qp at teardown polls it too.
 */
static void kv_test_direct(void)
{
	struct kv_wr *r, *s;
	bool ok;

	kv_cli_poll = IB_POLL_DIRECT;
	if (kv_pair_up(&kv)) {
		kv_result(false, "connection with an IB_POLL_DIRECT CQ");
		goto out;
	}
	r = kv_recv(&kv, &kv.srv, kv_sbuf, 64);
	s = kv_send(&kv, &kv.cli, 16, 0);
	ok = r && s && !kv_wr_wait(s, IB_WC_SEND) &&
	     !kv_wr_wait(r, IB_WC_RECV);
	kv_result(ok, "IB_POLL_DIRECT CQ: a Send's completion reaped by ib_process_cq_direct");
	r = kv_recv(&kv, &kv.cli, kv_cbuf, 64);
	s = kv_send(&kv, &kv.srv, 24, 0);
	ok = r && s && !kv_wr_wait(s, IB_WC_SEND) &&
	     !kv_wr_wait(r, IB_WC_RECV) && r->wc.byte_len == 24;
	kv_result(ok, "IB_POLL_DIRECT CQ: a receive completion reaped by ib_process_cq_direct");
	kv_pair_down(&kv);
out:
	kv_cli_poll = IB_POLL_SOFTIRQ;
}

/*
 * serve_read=1: one connection from a peer that reads a 2 MiB fast-register
 * MR (tests/verbs/hostile_test.cc --kernel-read). The MR's STag, address
 * and length go to the peer in a 16-octet Send (big endian: STag u32, TO
 * u64, length u32), its content is byte i = i * 7 + 3. When the peer's
 * Send with Invalidate of that STag completes a receive, the consumer has
 * its memory back and rewrites it at once, as a ULP reusing a buffer does:
 * whatever the peer reads afterwards must not come from it (mem.h). Then
 * it maps and registers the MR again (kv_serve_remap()) and sets
 * serve_stage to 2, on which the peer reads on.
 */
#define KV_SERVE_LEN	(2U << 20)

static void kv_serve_put_be(u8 *p, u64 v, int n)
{
	while (n--) {
		p[n] = (u8)v;
		v >>= 8;
	}
}

/* kv_wait_event() three times over: the peer acts when it is ready. */
static int kv_wait_long(struct kv_ep *ep, enum rdma_cm_event_type t)
{
	int i, ret = -ETIMEDOUT;

	for (i = 0; i < 3 && ret == -ETIMEDOUT; i++)
		ret = kv_wait_event(ep, t);
	return ret;
}

/*
 * The MR the peer just invalidated is mapped at once onto other memory
 * (@other, byte i = i * 11 + 5), as a ULP's next I/O does, while the Read
 * Response of its previous registration is still parked in TX behind the
 * peer's shut window: a holder that the peer, not the ULP, keeps (mem.h).
 * The map must not fail for it (it did with -EBUSY, and xprtrdma turns
 * that into -EIO). Then REG_MR under the same key, through a second
 * connection in the MR's PD (the peer's QP has the parked response ahead
 * of any WQE), and a Write through it: it must land in @other, not in the
 * old memory. The peer, let go by serve_stage, then checks that the
 * parked response sends none of @other (the STag answers again, but to
 * another registration).
 */
static void kv_serve_remap(struct kv_ep *srv, struct ib_mr *mr, u8 *old,
			   u8 *other)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		  IB_ACCESS_REMOTE_READ;
	static struct kv_pair kv2;
	struct kv_wr *r, *s;
	u32 i, key = mr->rkey;
	bool ok;
	int ret;

	for (i = 0; i < KV_SERVE_LEN; i++)
		other[i] = (u8)(i * 11 + 5);
	ret = kv_map(mr, other, KV_SERVE_LEN);
	if (ret)
		pr_info("rddp_kverbs: map_mr_sg: %d\n", ret);
	kv_result(!ret, "serve_read: map_mr_sg of the MR under its parked Read Response");
	if (ret)
		return;
	kv_srv_pd = srv->pd;
	ret = kv_pair_up(&kv2);
	kv_srv_pd = NULL;
	kv_accept = &kv.srv;
	if (ret) {
		kv_result(false, "serve_read: a second connection in the MR's PD");
		return;
	}
	s = kv_reg_key(&kv2, &kv2.srv, mr, acc, key);
	kv_result(s && !kv_wr_wait(s, IB_WC_REG_MR) && mr->rkey == key,
		  "serve_read: REG_MR of the new mapping under the same STag");
	kv_fill(9);
	r = kv_recv(&kv2, &kv2.srv, kv_sbuf, 64);
	kv_write(&kv2, &kv2.cli, mr->iova, key, KV_LEN);
	s = kv_send(&kv2, &kv2.cli, 16, 0);
	ok = r && s && !kv_wr_wait(r, IB_WC_RECV) &&
	     !memcmp(other, kv_src, KV_LEN) &&
	     !memchr_inv(old, 0xee, KV_SERVE_LEN);
	kv_result(ok, "serve_read: a Write to the new registration lands in the new memory only");
	kv_pair_down(&kv2);
}

static void kv_serve_read(struct kv_pair *p)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	struct page *pages, *pages2;
	struct kv_wr *r, *s;
	bool ok = false, done;
	struct ib_mr *mr;
	u8 *buf;
	u32 i;

	pages = alloc_pages(GFP_KERNEL, get_order(KV_SERVE_LEN));
	pages2 = alloc_pages(GFP_KERNEL, get_order(KV_SERVE_LEN));
	if (!pages || !pages2) {
		kv_result(false, "serve_read: 2 x 2 MiB for the MR");
		goto out_free;
	}
	buf = page_address(pages);
	for (i = 0; i < KV_SERVE_LEN; i++)
		buf[i] = (u8)(i * 7 + 3);
	/* kv is still zero: the listener puts the peer's cm_id in kv.srv. */
	if (kv_wait_long(&p->srv, RDMA_CM_EVENT_ESTABLISHED)) {
		kv_result(false, "serve_read: the peer connects");
		goto out;
	}
	mr = kv_fr_mr(&p->srv, buf, KV_SERVE_LEN);
	if (IS_ERR(mr) || kv_reg_wait(p, &p->srv, mr, acc)) {
		kv_result(false, "serve_read: REG_MR of 2 MiB with remote read");
		goto out;
	}
	r = kv_recv(p, &p->srv, kv_sbuf, 64);
	kv_serve_put_be(kv_src, mr->rkey, 4);
	kv_serve_put_be(kv_src + 4, mr->iova, 8);
	kv_serve_put_be(kv_src + 12, KV_SERVE_LEN, 4);
	s = kv_send(p, &p->srv, 16, 0);
	if (!r || !s || kv_wr_wait(s, IB_WC_SEND)) {
		kv_result(false, "serve_read: the STag sent to the peer");
		goto out;
	}
	/* The peer reads, stops reading, then invalidates: up to 30 s. */
	for (i = 0, done = false; i < 3 && !done; i++)
		done = wait_for_completion_timeout(&r->done, KV_TIMEOUT);
	if (done) {
		memset(buf, 0xee, KV_SERVE_LEN);	/* the buffer's next use */
		ok = r->wc.status == IB_WC_SUCCESS &&
		     (r->wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
		     r->wc.ex.invalidate_rkey == mr->rkey;
		if (!ok)
			pr_info("rddp_kverbs: receive %s, flags %#x, STag %#x of %#x\n",
				ib_wc_status_msg(r->wc.status), r->wc.wc_flags,
				r->wc.ex.invalidate_rkey, mr->rkey);
	}
	kv_result(ok, "serve_read: the Send with Invalidate of the MR being read completes");
	if (ok)
		kv_serve_remap(&p->srv, mr, buf, page_address(pages2));
	WRITE_ONCE(serve_stage, 2);	/* the peer reads on */
	kv_result(!kv_wait_long(&p->srv, RDMA_CM_EVENT_DISCONNECTED),
		  "serve_read: the connection ends");
out:
	kv_pair_down(p);
out_free:
	WRITE_ONCE(serve_stage, 2);
	if (pages2)
		__free_pages(pages2, get_order(KV_SERVE_LEN));
	if (pages)
		__free_pages(pages, get_order(KV_SERVE_LEN));
}

/*
 * hold_backlog: a listener whose ULP is slow. Its handler keeps the first
 * CONNECT_REQUEST until the test writes Y to the release parameter (or
 * 120 s pass), which holds iw_cm's single-threaded event work: iw_cm
 * queues hold_backlog more requests for the listener and refuses the rest
 * (its event handler returns -ENOMEM to the driver), as it does when a
 * busy host's ULP falls behind. Every request is then rejected (a non-zero
 * return destroys the new cm_id; iw_cm rejects it). tests/vm/cm.sh.
 */
#define KV_HOLD_MAX	(120 * HZ)

static struct rdma_cm_id *kv_hold_id;
static atomic_t kv_hold_requests = ATOMIC_INIT(0);

static int kv_hold_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	unsigned long end = jiffies + KV_HOLD_MAX;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 0;
	if (atomic_inc_return(&kv_hold_requests) == 1) {
		pr_info("rddp_kverbs: holding the first connection request\n");
		while (!READ_ONCE(release) && time_before(jiffies, end))
			msleep(20);
	}
	return -ECONNREFUSED;
}

static int kv_hold(struct sockaddr_in *sin)
{
	int ret;

	kv_hold_id = rdma_create_id(&init_net, kv_hold_handler, NULL,
				    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(kv_hold_id)) {
		ret = PTR_ERR(kv_hold_id);
		kv_hold_id = NULL;
		return ret;
	}
	ret = rdma_bind_addr(kv_hold_id, (struct sockaddr *)sin);
	if (!ret)
		ret = rdma_listen(kv_hold_id, hold_backlog);
	if (ret) {
		rdma_destroy_id(kv_hold_id);
		kv_hold_id = NULL;
	}
	return ret;
}

static int __init kv_init(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = in_aton(addr),
	};
	void (*tests[])(struct kv_pair *p) = {
		kv_test_fast_reg, kv_test_local_inv, kv_test_busy,
		kv_test_drain,
	};
	int ret, i;

	if (hold_backlog)
		return kv_hold(&sin);
	kv_src = kzalloc(KV_BUF, GFP_KERNEL);
	kv_sbuf = kzalloc(KV_BUF, GFP_KERNEL);
	kv_cbuf = kzalloc(KV_BUF, GFP_KERNEL);
	ret = -ENOMEM;
	if (!kv_src || !kv_sbuf || !kv_cbuf)
		goto out_free;

	kv_listen.id = rdma_create_id(&init_net, kv_cm_handler, &kv_listen,
				      RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(kv_listen.id)) {
		ret = PTR_ERR(kv_listen.id);
		goto out_free;
	}
	ret = rdma_bind_addr(kv_listen.id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(kv_listen.id, 4);
	if (ret)
		goto out_listen;

	if (serve_read) {
		kv_serve_read(&kv);
		goto out_done;
	}
	if (kv_pair_up(&kv)) {
		kv_result(false, "connection through rdma_cm");
	} else {
		kv_test_caps(&kv);
		kv_pair_down(&kv);
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (kv_pair_up(&kv))
			kv_result(false, "connection through rdma_cm");
		else
			tests[i](&kv);
	}
	for (i = 0; i < 2; i++) {
		if (kv_pair_up(&kv))
			kv_result(false, "connection through rdma_cm");
		else
			kv_test_bad_inval(&kv, i);
	}
	kv_test_direct();
	kv_test_srq_drain();
out_done:
	pr_info("rddp_kverbs: %d passed, %d failed\n", kv_n - kv_failed,
		kv_failed);
	ret = kv_failed ? -EIO : 0;
out_listen:
	rdma_destroy_id(kv_listen.id);
out_free:
	kfree(kv_src);
	kfree(kv_sbuf);
	kfree(kv_cbuf);
	return ret;
}

static void __exit kv_exit(void)
{
	if (!kv_hold_id)
		return;
	WRITE_ONCE(release, true);
	rdma_destroy_id(kv_hold_id);
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("rddp verb-level tests with a kernel consumer");
MODULE_LICENSE("GPL");
