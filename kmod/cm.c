// SPDX-License-Identifier: GPL-2.0
/*
 * rddp connection management, the same over every transport: the iw_cm
 * provider calls, the connection endpoints (struct rddp_cep, cep.h), their
 * states, references, timer and events, and the hand-over of an
 * established connection to the QP's stream (stream.h). Each transport's
 * own setup (its socket and exchange) is below, behind its table (cep.h,
 * struct rddp_cm_transport), which the endpoint keeps (cep->xp): this file
 * names none.
 *
 * A connection endpoint is a listening socket, or one connection from its
 * start until setup ends. Then the socket is handed to the QP's stream and
 * the endpoint stays only to report the connection's end to iw_cm
 * (DISCONNECT, CLOSE).
 *
 * Active side:  iw_connect -> the transport connects and exchanges its
 *               request and reply -> QP to RTS (go_rts) -> CONNECT_REPLY.
 * Passive side: listener accepts -> the transport reads the request ->
 *               CONNECT_REQUEST -> iw_accept: the transport answers, QP to
 *               RTS -> ESTABLISHED; or iw_reject: the transport refuses,
 *               close.
 * Setup is bounded by rddp_setup_timeout() (a module parameter); a peer
 * that sends a bad message, or closes, ends it with the matching CM event.
 *
 * Locking and lifetime:
 *  - cep->lock (mutex) serialises the endpoint's state: the CM work, the
 *    iw_* calls and device stop. Lock order: cep->lock -> qp->state_lock
 *    (the CM moves the QP with rddp_qp_connected() and rddp_qp_to_error()).
 *    Code under qp->state_lock never takes cep->lock: the QP reports the
 *    end of its stream through the endpoint's struct rddp_conn
 *    (queues.h, rddp_conn_event()), which only queues work.
 *  - Socket callbacks and the timer only set bits in cep->events and queue
 *    cep->work; all decisions are made in the work, in process context.
 *  - cep->ref (kref): one for the creator until close, one per queued work
 *    or armed timer, one for the request table while a connection request
 *    waits for the ULP's answer (see rddp_cep_requests), one for the QP's
 *    stream.
 *  - cep->cm_id is referenced with cm_id->add_ref() while set; cep->qp
 *    with rddp_qp_get(). An active endpoint is also the QP's connecting
 *    one (rddp_qp_connect_begin()) until it fails or reaches RTS: a
 *    destroy_qp meanwhile reports RDDP_CEP_EV_QP_DESTROYED instead of
 *    waiting for the network.
 *  - A child of a listener (passive, reading the peer's request) holds
 *    the listening cm_id as cep->listen_id until it delivers the request;
 *    closing the listener fails the children still holding it.
 *  - rddp_cep_count counts live endpoints: module exit finds it 0.
 */
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/sock.h>
#include <uapi/linux/rddp_netlink.h>

#include "cep.h"
#include "llp.h"
#include "qp_tx.h"
#include "trace.h"

static const char *const rddp_cep_state_names[RDDP_CEP_STATE_MAX] = {
	[RDDP_CEP_IDLE] = "IDLE",
	[RDDP_CEP_LISTEN] = "LISTEN",
	[RDDP_CEP_CONNECTING] = "CONNECTING",
	[RDDP_CEP_AWAIT_REPLY] = "AWAIT_REPLY",
	[RDDP_CEP_AWAIT_REQUEST] = "AWAIT_REQUEST",
	[RDDP_CEP_AWAIT_ACCEPT] = "AWAIT_ACCEPT",
	[RDDP_CEP_CONNECTED] = "CONNECTED",
	[RDDP_CEP_CLOSED] = "CLOSED",
};

static void rddp_cep_work(struct work_struct *work);
static void rddp_cep_timer(struct work_struct *work);
static const struct rddp_conn_ops rddp_cep_conn_ops;
static const struct rddp_cep_upcalls rddp_cep_upcalls;

/* Live endpoints; every one is freed before module exit (rddp_cm_exit()). */
static atomic_t rddp_cep_count = ATOMIC_INIT(0);

/*
 * Connection requests delivered to iw_cm and not answered yet. iw_cm gives
 * the new cm_id the event's provider_data and calls iw_accept or iw_reject
 * with it once, whenever the ULP answers, or never: it drops the events of
 * a listener being destroyed, and ignores a request it cannot allocate a
 * cm_id for. So provider_data is not a pointer but this table's index
 * (cep->req): the entry holds a reference, taken off by the answer, by the
 * endpoint's end (the accept timeout, the peer's close, device stop) or by
 * a delivery iw_cm refused. An answer that comes after the end finds no
 * entry. Indices are allocated cyclically, so a stale one is not reused
 * for 2^32 requests.
 */
static DEFINE_XARRAY_ALLOC(rddp_cep_requests);
static u32 rddp_cep_next_req;

/* ---- endpoint lifetime ---- */

/*
 * An endpoint over @xp, with the transport's state in the same allocation
 * (cep.h, cep_size): zeroed, and freed whole with the endpoint.
 */
static struct rddp_cep *rddp_cep_alloc(struct rddp_device *rdev,
				       const struct rddp_cm_transport *xp)
{
	struct rddp_cep *cep = kzalloc(xp->cep_size, GFP_KERNEL);

	if (!cep)
		return NULL;
	atomic_inc(&rddp_cep_count);
	cep->conn.ops = &rddp_cep_conn_ops;
	cep->up = &rddp_cep_upcalls;
	cep->xp = xp;
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	INIT_LIST_HEAD(&cep->listen_entry);
	INIT_WORK(&cep->work, rddp_cep_work);
	INIT_DELAYED_WORK(&cep->timer, rddp_cep_timer);
	cep->rdev = rdev;
	rddp_settings_get(rdev, &cep->settings);
	spin_lock(&rdev->cep_lock);
	list_add_tail(&cep->dev_entry, &rdev->cep_list);
	spin_unlock(&rdev->cep_lock);
	return cep;
}

static void rddp_cep_free(struct kref *ref)
{
	struct rddp_cep *cep = container_of(ref, struct rddp_cep, ref);

	WARN_ON(cep->sock || cep->cm_id || cep->qp || cep->listen_id ||
		cep->req);
	if (cep->xp->release)
		cep->xp->release(cep, NULL, 0);
	mutex_destroy(&cep->lock);
	kfree(cep);
	atomic_dec(&rddp_cep_count);
}

static void rddp_cep_get(struct rddp_cep *cep)
{
	kref_get(&cep->ref);
}

static void rddp_cep_put(struct rddp_cep *cep)
{
	kref_put(&cep->ref, rddp_cep_free);
}

/* Enter @cep in the request table (cep->req), which takes a reference. */
static int rddp_cep_request_add(struct rddp_cep *cep)
{
	int ret;

	rddp_cep_get(cep);
	ret = xa_alloc_cyclic(&rddp_cep_requests, &cep->req, cep,
			      XA_LIMIT(1, U32_MAX), &rddp_cep_next_req,
			      GFP_KERNEL);
	if (ret >= 0)
		return 0;
	cep->req = 0;
	rddp_cep_put(cep);
	return ret;
}

/*
 * The request iw_cm answers for @id (iw_accept, iw_reject) with the table's
 * reference, or NULL if the endpoint has ended. The caller puts it.
 */
static struct rddp_cep *rddp_cep_request_take(struct iw_cm_id *id)
{
	return xa_erase(&rddp_cep_requests, (unsigned long)id->provider_data);
}

/*
 * Take @cep out of the request table if still there (nobody will answer
 * it). Caller holds cep->lock and a reference of its own.
 */
static void rddp_cep_request_drop(struct rddp_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (!cep->req)
		return;
	if (xa_cmpxchg(&rddp_cep_requests, cep->req, cep, NULL, 0) == cep)
		rddp_cep_put(cep);
	cep->req = 0;
}

static void rddp_cep_queue(struct rddp_cep *cep)
{
	rddp_cep_get(cep);
	if (!queue_work(rddp_wq, &cep->work))
		rddp_cep_put(cep);
}

static void rddp_cep_event(struct rddp_cep *cep, enum rddp_cep_event ev)
{
	set_bit(ev, &cep->events);
	rddp_cep_queue(cep);
}

/*
 * The endpoint as the QP and its stream see it (struct rddp_conn,
 * queues.h): they report through these and never call the CM by name.
 */
static void rddp_cep_conn_event(struct rddp_conn *c, enum rddp_cep_event ev)
{
	rddp_cep_event(container_of(c, struct rddp_cep, conn), ev);
}

static void rddp_cep_conn_get(struct rddp_conn *c)
{
	rddp_cep_get(container_of(c, struct rddp_cep, conn));
}

static void rddp_cep_conn_put(struct rddp_conn *c)
{
	rddp_cep_put(container_of(c, struct rddp_cep, conn));
}

static const struct rddp_conn_ops rddp_cep_conn_ops = {
	.event = rddp_cep_conn_event,
	.get = rddp_cep_conn_get,
	.put = rddp_cep_conn_put,
};

static void rddp_cep_timer_start(struct rddp_cep *cep, unsigned long delay)
{
	rddp_cep_get(cep);
	if (!mod_delayed_work(rddp_wq, &cep->timer, delay))
		return;	/* was idle: the new arming keeps the reference */
	rddp_cep_put(cep);	/* re-armed: one reference is enough */
}

static void rddp_cep_timer_stop(struct rddp_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		rddp_cep_put(cep);
}

static void rddp_cep_timer(struct work_struct *work)
{
	struct rddp_cep *cep = container_of(to_delayed_work(work),
					    struct rddp_cep, timer);

	set_bit(RDDP_CEP_EV_TIMEOUT, &cep->events);
	rddp_cep_queue(cep);
	rddp_cep_put(cep);	/* the timer's reference */
}

/* ---- sockets ---- */

static void rddp_cep_sk_event(struct sock *sk)
{
	struct rddp_cep *cep = NULL;

	read_lock_bh(&sk->sk_callback_lock);
	/*
	 * The kernel's transport calls sk_data_ready and sk_state_change
	 * without this lock: a
	 * call that began before rddp_cep_go_rts() handed the socket to the
	 * QP's stream can get here after it, and sk_user_data is then the
	 * stream. Taken for an endpoint, the stream had its QP pointer
	 * incremented (kref_get) and a bit and a work item written into it
	 * (seen on 2 vCPUs in tests/vm/churn.sh: KASAN, wild access through
	 * s->qp->rdev). Under the lock, sk_user_data is ours only while our
	 * callback is installed; the stream reads what came meanwhile itself
	 * (the LLP's rx_drain, llp.h).
	 */
	if (sk->sk_data_ready == rddp_cep_sk_event)
		cep = sk->sk_user_data;
	if (cep) {
		set_bit(RDDP_CEP_EV_SOCK, &cep->events);
		rddp_cep_queue(cep);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static const struct rddp_sk_hooks rddp_cep_hooks = {
	.data_ready = rddp_cep_sk_event,
	.state_change = rddp_cep_sk_event,
};

static void rddp_cep_sock_attach(struct rddp_cep *cep, struct socket *sock)
{
	struct sock *sk = sock->sk;

	cep->sock = sock;
	rddp_sk_hooks_install(sk, cep, &rddp_cep_hooks, &cep->saved_hooks);
}

/* Give the socket back its own callbacks; the endpoint keeps it. */
static struct socket *rddp_cep_sock_detach(struct rddp_cep *cep)
{
	struct socket *sock = cep->sock;
	struct sock *sk;

	if (!sock)
		return NULL;
	sk = sock->sk;
	rddp_sk_hooks_remove(sk, &cep->saved_hooks);
	cep->sock = NULL;
	return sock;
}

/*
 * An IPv4 peer of an IPv6 wildcard listener (not afonly) has an
 * IPv4-mapped address (RFC 4291 §2.5.5.2): iw_cm and rdma_cm get it as
 * the IPv4 address it is, which rdma_cm finds its device by.
 */
static void rddp_addr_unmap(struct sockaddr_storage *a)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)a;
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (a->ss_family != AF_INET6 || !ipv6_addr_v4mapped(&sin6->sin6_addr))
		return;
	sin.sin_port = sin6->sin6_port;
	sin.sin_addr.s_addr = sin6->sin6_addr.s6_addr32[3];
	memset(a, 0, sizeof(*a));
	memcpy(a, &sin, sizeof(sin));
}

/* A connection's local and remote addresses, as iw_cm reports them. */
static void rddp_sock_addrs(struct socket *sock, struct sockaddr_storage *la,
			    struct sockaddr_storage *ra)
{
	kernel_getsockname(sock, (struct sockaddr *)la);
	kernel_getpeername(sock, (struct sockaddr *)ra);
	rddp_addr_unmap(la);
	rddp_addr_unmap(ra);
}

static void rddp_cep_addrs(struct rddp_cep *cep, struct iw_cm_event *ev,
			   struct socket *sock)
{
	rddp_sock_addrs(sock, &ev->local_addr, &ev->remote_addr);
}

/* ---- closing ---- */

/* Leave the device's list: the endpoint no longer touches the device. */
static void rddp_cep_unlist(struct rddp_cep *cep)
{
	struct rddp_device *rdev = cep->rdev;

	if (!rdev)
		return;
	spin_lock(&rdev->cep_lock);
	list_del_init(&cep->dev_entry);
	spin_unlock(&rdev->cep_lock);
	cep->rdev = NULL;
}

static void rddp_cep_deliver(struct rddp_cep *cep, struct iw_cm_id *id,
			     enum iw_cm_event_type type, int status,
			     const void *pd, u16 pd_len, struct socket *sock)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.private_data = (void *)pd,
		.private_data_len = min_t(u16, pd_len, RDDP_EVENT_PD_MAX),
	};

	if (sock) {
		rddp_cep_addrs(cep, &ev, sock);
	} else if (cep->laddr.ss_family) {
		/* connected: the socket is the stream's, which may be gone */
		ev.local_addr = cep->laddr;
		ev.remote_addr = cep->raddr;
	} else {
		ev.local_addr = id->m_local_addr;
		ev.remote_addr = id->m_remote_addr;
	}
	if (cep->qp) {
		ev.ird = cep->qp->ird;
		ev.ord = cep->qp->ord;
	}
	id->event_handler(id, &ev);
}

/* A setup that failed, in the counters and on the monitor group. */
static void rddp_cep_account_failure(struct rddp_cep *cep, int status)
{
	struct rddp_notify n = { .type = RDDP_NOTIFY_CONN_FAILED };
	struct sockaddr_storage peer = { 0 };
	const struct sockaddr_storage *remote = NULL;

	rddp_stat_inc(cep->rdev, status == -ETIMEDOUT ? RDDP_STAT_SETUP_TIMEOUTS :
							RDDP_STAT_CONN_FAILURES);
	if (cep->active && cep->cm_id)
		remote = &cep->cm_id->m_remote_addr;
	else if (cep->sock &&
		 kernel_getpeername(cep->sock, (struct sockaddr *)&peer) > 0)
		remote = &peer;
	n.rdev = cep->rdev;
	n.remote = remote;
	n.err = status;
	rddp_notify(&n);
}

/*
 * End a connection attempt (any state before CONNECTED), with the CM event
 * it owes: CONNECT_REPLY with @status on the active side. Caller holds
 * cep->lock.
 */
static void rddp_cep_fail(struct rddp_cep *cep, int status)
{
	struct socket *sock;

	lockdep_assert_held(&cep->lock);
	if (cep->state == RDDP_CEP_CLOSED)
		return;
	rddp_cep_timer_stop(cep);
	if (status)
		trace_rddp_cm_fail(cep, rddp_cep_state_names[cep->state], status);
	if (status && cep->rdev)
		rddp_cep_account_failure(cep, status);
	if (cep->active && cep->cm_id)
		rddp_cep_deliver(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY,
				 status, NULL, 0, NULL);
	if (cep->cm_id) {
		cep->cm_id->rem_ref(cep->cm_id);
		cep->cm_id = NULL;
	}
	if (cep->listen_id) {
		cep->listen_id->rem_ref(cep->listen_id);
		cep->listen_id = NULL;
	}
	if (cep->qp) {
		rddp_qp_connect_end(cep->qp, &cep->conn);
		rddp_qp_put(cep->qp);
		cep->qp = NULL;
	}
	rddp_cep_request_drop(cep);
	sock = rddp_cep_sock_detach(cep);
	/* the transport's last word on the socket, and what it holds beyond */
	if (cep->xp->release)
		cep->xp->release(cep, sock, status);
	if (sock)
		rddp_sock_release(sock);
	cep->state = RDDP_CEP_CLOSED;
	rddp_cep_unlist(cep);
}

/* ---- connected: the stream's end ---- */

static void rddp_cep_connected_events(struct rddp_cep *cep, unsigned long ev)
{
	struct rddp_qp *qp = cep->qp;
	struct rddp_stream *s;
	enum ib_event_type fatal = 0;

	if (!qp)
		return;
	/* RCU: a reconnect of the QP frees its old stream (stream.h). */
	rcu_read_lock();
	s = READ_ONCE(qp->stream);
	if (test_bit(RDDP_CEP_EV_STREAM_ERROR, &ev) && s) {
		/*
		 * RFC 5040 §5.3: a detected error or a received Terminate is
		 * fatal for the QP; a broken LLP (a write failed: writes fail
		 * after a reset, not after the peer's graceful close) is an
		 * abortive close.
		 */
		if (s->peer_terminated || s->term_err != RDDP_ERR_LLP_CLOSED) {
			fatal = IB_EVENT_QP_FATAL;
		} else {
			cep->peer_closed = true;
			cep->close_err = -ECONNRESET;
		}
	}
	rcu_read_unlock();
	if (test_bit(RDDP_CEP_EV_STREAM_ERROR, &ev) && s)
		rddp_qp_to_error(qp, fatal);
	/*
	 * The peer's end: CLOSE's status tells a graceful one (0) from an
	 * abort (-ECONNRESET). A synchronous rdma_disconnect() returns the
	 * status of the DISCONNECTED event it waits for as its error, so a
	 * graceful close reported as a reset fails the application's own
	 * disconnect (rdma-core's test_rdmacm_sync_traffic).
	 */
	if (test_bit(RDDP_CEP_EV_PEER_ABORTED, &ev))
		cep->close_err = -ECONNRESET;
	if (test_bit(RDDP_CEP_EV_PEER_CLOSED, &ev) ||
	    test_bit(RDDP_CEP_EV_PEER_ABORTED, &ev)) {
		cep->peer_closed = true;
		rddp_qp_to_error(qp, 0);
	}
	if (test_bit(RDDP_CEP_EV_STREAM_CLOSED, &ev) && cep->cm_id) {
		struct iw_cm_id *id = cep->cm_id;

		if (cep->peer_closed)
			rddp_cep_deliver(cep, id, IW_CM_EVENT_DISCONNECT, 0,
					 NULL, 0, NULL);
		rddp_cep_deliver(cep, id, IW_CM_EVENT_CLOSE, cep->close_err,
				 NULL, 0, NULL);
		id->rem_ref(id);
		cep->cm_id = NULL;
		cep->qp = NULL;
		rddp_qp_put(qp);
		cep->state = RDDP_CEP_CLOSED;
	}
}

/* ---- the QP goes to RTS ---- */

/*
 * Hand the socket to the QP's stream with the negotiated parameters. The
 * QP reaches RTS (rddp_qp_connected()) and the engines start. Caller holds
 * cep->lock.
 */
static int rddp_cep_go_rts(struct rddp_cep *cep,
			   const struct rddp_stream_params *p)
{
	struct rddp_qp *qp = cep->qp;
	struct rddp_stream *s;
	struct socket *sock;
	bool closed;
	int ret;

	s = rddp_stream_alloc(qp, p, cep->xp->llp);
	if (!s)
		return -ENOMEM;
	/* what the LLP needs beyond the socket goes with it */
	if (cep->xp->hand_over)
		cep->xp->hand_over(cep, s, true);
	/*
	 * RFC 6581 §9.1.1: the initiator's RTR goes first; the responder
	 * sends nothing before it has received it.
	 */
	if (p->rtr && cep->active)
		s->tx_rtr_pending = true;
	if (p->rtr && !cep->active) {
		s->rx_rtr_pending = true;
		s->tx_blocked = true;
	}
	rddp_sock_addrs(cep->sock, &cep->laddr, &cep->raddr);
	sock = rddp_cep_sock_detach(cep);
	ret = rddp_qp_connected(qp, s, sock, &cep->conn, &closed);
	if (ret) {
		cep->sock = sock;	/* still ours: closed by the caller */
		rddp_cep_sock_attach(cep, sock);
		if (cep->xp->hand_over)
			cep->xp->hand_over(cep, s, false);
		rddp_stream_free(s);
		return ret;
	}
	rddp_cep_timer_stop(cep);
	trace_rddp_cm_established(cep, qp->base.qp_num, cep->active, p);
	rddp_stat_inc(cep->rdev, RDDP_STAT_CONN_ESTABLISHED);
	cep->state = RDDP_CEP_CONNECTED;
	rddp_cep_unlist(cep);
	/*
	 * From here the stream owns the socket: a concurrent move to ERROR
	 * or destroy may release it at any time, so neither it nor @s is
	 * touched (rddp_qp_connected() drained and looked under the lock).
	 */
	if (closed)
		rddp_cep_event(cep, RDDP_CEP_EV_PEER_CLOSED);
	rddp_tx_kick(qp);
	return 0;
}

/* ---- passive side ---- */

/*
 * Refuse the peer's request (rddp_iw_reject(), or a request iw_cm did not
 * take) as the transport does (cep.h, reject). Caller holds cep->lock;
 * closing is the caller's.
 */
static int rddp_cep_send_reject(struct rddp_cep *cep, const void *pd,
				u8 pd_len)
{
	return cep->xp->reject(cep, pd, pd_len);
}

/*
 * iw_cm did not take a request (@err: -ENOMEM once the listener's backlog
 * of event entries is used up): the ULP never sees it and nobody answers
 * it, so rddp refuses it at once and closes, and the attempt counts as a
 * failure. Caller holds cep->lock.
 */
static void rddp_cep_refuse(struct rddp_cep *cep, int err)
{
	rddp_cep_request_drop(cep);
	/* The peer's requests decide how often: rate-limited. */
	pr_info_ratelimited("rddp: %s: connection request refused, the listener took no more: %d\n",
			    dev_name(&cep->rdev->ibdev.dev), err);
	rddp_cep_send_reject(cep, NULL, 0);
	trace_rddp_cm_fail(cep, rddp_cep_state_names[cep->state], err);
	rddp_cep_account_failure(cep, err);
	rddp_cep_fail(cep, 0);	/* graceful: the Reply goes out first */
}

/* Either transport: the peer's request, to the listening cm_id. */
static void rddp_cep_got_request_event(struct rddp_cep *cep, const void *pd,
				       u16 pd_len, u16 ird, u16 ord)
{
	struct iw_cm_id *lid = cep->listen_id;
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.private_data = (void *)pd,
		.private_data_len = min_t(u16, pd_len, RDDP_EVENT_PD_MAX),
		.ird = min_t(u16, ird, RDDP_MAX_IRD),
		.ord = min_t(u16, ord, RDDP_MAX_ORD),
	};
	int ret;

	rddp_cep_addrs(cep, &ev, cep->sock);
	rddp_stat_inc(cep->rdev, RDDP_STAT_CONN_REQUESTS);
	cep->listen_id = NULL;	/* a listener's close leaves it alone now */
	ret = rddp_cep_request_add(cep);
	if (!ret) {
		ev.provider_data = (void *)(unsigned long)cep->req;
		cep->state = RDDP_CEP_AWAIT_ACCEPT;
		rddp_cep_timer_start(cep, RDDP_ACCEPT_TIMEOUT);
		ret = lid->event_handler(lid, &ev);
	}
	if (ret)
		rddp_cep_refuse(cep, ret);
	lid->rem_ref(lid);
}

/* The peer's address exists only in the socket: asked for when traced. */
static void rddp_cep_trace_request(struct rddp_cep *cep)
{
	struct sockaddr_storage peer = { 0 };

	if (kernel_getpeername(cep->sock, (struct sockaddr *)&peer) < 0)
		peer.ss_family = AF_UNSPEC;
	trace_rddp_cm_request(cep, &peer);
}

static void rddp_cep_accept_one(struct rddp_cep *lcep, struct socket *sock)
{
	struct rddp_cep *cep;
	int ret = 0;

	if (!lcep->rdev) {
		rddp_sock_release(sock);
		return;
	}
	cep = rddp_cep_alloc(lcep->rdev, lcep->xp);
	if (!cep) {
		rddp_sock_release(sock);
		return;
	}
	/* Listener before child: the only place two endpoint locks nest. */
	mutex_lock_nested(&cep->lock, SINGLE_DEPTH_NESTING);
	sock->sk->sk_sndtimeo = rddp_setup_timeout();
	cep->listen_id = lcep->listen_id;
	cep->listen_id->add_ref(cep->listen_id);
	cep->state = RDDP_CEP_AWAIT_REQUEST;
	rddp_cep_sock_attach(cep, sock);
	ret = cep->xp->accept_one(cep);
	if (ret) {
		rddp_cep_fail(cep, ret);
		mutex_unlock(&cep->lock);
		rddp_cep_put(cep);
		return;
	}
	if (trace_rddp_cm_request_enabled())
		rddp_cep_trace_request(cep);
	rddp_cep_timer_start(cep, rddp_setup_timeout());
	set_bit(RDDP_CEP_EV_SOCK, &cep->events);
	rddp_cep_queue(cep);
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);	/* the work, timer and socket hold it now */
}

/* An accept that would sleep with nothing queued: ask first (accept_ready). */
static bool rddp_cep_accept_ready(struct rddp_cep *lcep)
{
	return !lcep->xp->accept_ready || lcep->xp->accept_ready(lcep);
}

static void rddp_cep_listen_work(struct rddp_cep *lcep)
{
	struct socket *sock;

	while (lcep->sock && rddp_cep_accept_ready(lcep) &&
	       !kernel_accept(lcep->sock, &sock, O_NONBLOCK))
		rddp_cep_accept_one(lcep, sock);
}

/* ---- the CM work ---- */

static void rddp_cep_setup_event(struct rddp_cep *cep, unsigned long ev)
{
	if (test_bit(RDDP_CEP_EV_TIMEOUT, &ev)) {
		pr_debug("rddp: %s setup timed out in %s\n", cep->xp->name,
			 rddp_cep_state_names[cep->state]);
		cep->xp->timeout(cep);
		return;
	}
	if (test_bit(RDDP_CEP_EV_QP_DESTROYED, &ev)) {
		/* iw_cm gets CONNECT_REPLY and lets go of the QP */
		rddp_cep_fail(cep, -ECONNABORTED);
		return;
	}
	if (cep->sock)
		cep->xp->setup_event(cep);
}

static void rddp_cep_work(struct work_struct *work)
{
	struct rddp_cep *cep = container_of(work, struct rddp_cep, work);
	unsigned long ev;

	mutex_lock(&cep->lock);
	while ((ev = xchg(&cep->events, 0))) {
		switch (cep->state) {
		case RDDP_CEP_LISTEN:
			rddp_cep_listen_work(cep);
			break;
		case RDDP_CEP_CONNECTED:
			rddp_cep_connected_events(cep, ev);
			break;
		case RDDP_CEP_CLOSED:
		case RDDP_CEP_IDLE:
			break;
		default:
			rddp_cep_setup_event(cep, ev);
			break;
		}
	}
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);
}

/* ---- iw_cm provider calls ---- */

/*
 * Bind @sock (created by the transport) to @laddr, give it to the endpoint
 * and start connecting to @raddr, the cm_id referenced. Takes @sock: on
 * failure it is released or the endpoint's. Caller holds cep->lock.
 */
static int rddp_cep_bind_connect(struct rddp_cep *cep, struct iw_cm_id *id,
				 struct socket *sock,
				 struct sockaddr_storage *laddr,
				 struct sockaddr_storage *raddr)
{
	int ret;

	ret = kernel_bind(sock, (struct sockaddr *)laddr, rddp_addr_len(laddr));
	if (ret == -EADDRINUSE) {
		/* rdma_cm's port is taken in this port space: any port. */
		if (laddr->ss_family == AF_INET)
			((struct sockaddr_in *)laddr)->sin_port = 0;
		else
			((struct sockaddr_in6 *)laddr)->sin6_port = 0;
		ret = kernel_bind(sock, (struct sockaddr *)laddr,
				  rddp_addr_len(laddr));
	}
	if (ret) {
		sock_release(sock);
		return ret;
	}
	if (cep->xp->bound)
		cep->xp->bound(cep, sock, laddr);
	rddp_cep_sock_attach(cep, sock);
	id->add_ref(id);
	cep->cm_id = id;
	id->provider_data = cep;
	cep->state = RDDP_CEP_CONNECTING;
	ret = kernel_connect(sock, (struct sockaddr *)raddr,
			     rddp_addr_len(raddr), O_NONBLOCK);
	if (ret && ret != -EINPROGRESS) {
		id->rem_ref(id);
		cep->cm_id = NULL;
		return ret;
	}
	return 0;
}

/* What a transport's setup calls back (cep.h): cep->up. */
static const struct rddp_cep_upcalls rddp_cep_upcalls = {
	.bind_connect = rddp_cep_bind_connect,
	.deliver = rddp_cep_deliver,
	.fail = rddp_cep_fail,
	.got_request = rddp_cep_got_request_event,
	.go_rts = rddp_cep_go_rts,
};

int rddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct rddp_device *rdev = to_rddp_dev(id->device);
	struct sockaddr_storage laddr = id->m_local_addr;
	struct sockaddr_storage *raddr = &id->m_remote_addr;
	const struct rddp_cm_transport *xp;
	struct rddp_settings set;
	struct rddp_qp *qp;
	struct rddp_cep *cep;
	int ret;

	if (laddr.ss_family != raddr->ss_family ||
	    (raddr->ss_family != AF_INET && raddr->ss_family != AF_INET6))
		return -EAFNOSUPPORT;
	rddp_settings_get(rdev, &set);
	/* the device's transport initiates (genl.c checks the value) */
	xp = rddp_cm_transports[set.transport];
	if (param->private_data_len > xp->pd_max(&set))
		return -EINVAL;
	if (param->ord > RDDP_MAX_ORD || param->ird > RDDP_MAX_IRD)
		return -EINVAL;
	qp = rddp_qp_get_by_qpn(rdev, param->qpn);
	if (!qp)
		return -EINVAL;
	cep = rddp_cep_alloc(rdev, xp);
	if (!cep) {
		rddp_qp_put(qp);
		return -ENOMEM;
	}
	mutex_lock(&cep->lock);
	trace_rddp_cm_connect(cep, param->qpn, raddr, param->ird, param->ord,
			      param->private_data_len);
	rddp_stat_inc(rdev, RDDP_STAT_CONN_ATTEMPTS);
	cep->settings = set;	/* the one pd_max was checked against */
	cep->active = true;
	cep->qp = qp;
	ret = rddp_qp_connect_begin(qp, &cep->conn);
	if (ret)
		goto err;
	cep->ird = param->ird ? param->ird : 1;
	cep->ord = param->ord ? param->ord : 1;
	cep->pd_len = param->private_data_len;
	if (cep->pd_len)
		memcpy(cep->pd, param->private_data, cep->pd_len);
	ret = xp->connect(cep, id, &laddr, raddr);
	if (ret)
		goto err;
	rddp_cep_timer_start(cep, rddp_setup_timeout());
	set_bit(RDDP_CEP_EV_SOCK, &cep->events);
	rddp_cep_queue(cep);
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);
	return 0;

err:
	cep->active = false;	/* no CONNECT_REPLY: the call fails */
	rddp_cep_fail(cep, ret);
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);
	return ret;
}

int rddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct rddp_cep *cep = rddp_cep_request_take(id);
	struct rddp_device *rdev = to_rddp_dev(id->device);
	struct rddp_qp *qp;
	int ret;

	if (!cep)
		return -ECONNRESET;	/* the peer or the timeout ended it */
	mutex_lock(&cep->lock);
	cep->req = 0;
	if (cep->state != RDDP_CEP_AWAIT_ACCEPT) {
		ret = -ECONNRESET;
		goto out;
	}
	/* iw_cm sends no reject after a failed accept: close here. */
	if (param->ord > RDDP_MAX_ORD || param->ird > RDDP_MAX_IRD) {
		ret = -EINVAL;
		goto err_qp;
	}
	trace_rddp_cm_accept(cep, param->qpn, param->ird, param->ord,
			     param->private_data_len);
	rddp_stat_inc(rdev, RDDP_STAT_CONN_ACCEPTS);
	qp = rddp_qp_get_by_qpn(rdev, param->qpn);
	if (!qp) {
		ret = -EINVAL;
		goto err_qp;
	}
	cep->qp = qp;
	ret = cep->xp->accept(cep, param);
	if (ret)
		goto err_qp;
	id->add_ref(id);
	cep->cm_id = id;
	rddp_cep_deliver(cep, id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL);
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);	/* the request table's */
	return 0;

err_qp:
	/* No events after a failed accept: close quietly. */
	rddp_cep_fail(cep, ret);
out:
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);
	return ret;
}

int rddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pd_len)
{
	struct rddp_cep *cep = rddp_cep_request_take(id);
	int ret = -ECONNRESET;

	if (!cep)
		return ret;
	mutex_lock(&cep->lock);
	cep->req = 0;
	if (cep->state == RDDP_CEP_AWAIT_ACCEPT) {
		/* RFC 5044 §7.1.1: a Reply with R set, then close */
		trace_rddp_cm_reject(cep, pd_len);
		rddp_stat_inc(cep->rdev, RDDP_STAT_CONN_REJECTS);
		ret = rddp_cep_send_reject(cep, pdata, pd_len);
		rddp_cep_fail(cep, 0);
	}
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);	/* the request table's */
	return ret;
}

/* ---- listening ---- */

/*
 * A listening endpoint for @id on @addr over @xp, on @l: the transport
 * makes the socket (cep.h, listen); the endpoint takes it.
 */
static int rddp_listen_one(struct rddp_device *rdev, struct rddp_listen *l,
			   struct iw_cm_id *id, struct sockaddr_storage *addr,
			   int backlog, const struct rddp_cm_transport *xp)
{
	struct rddp_cep *cep;
	struct socket *sock;
	int ret;

	cep = rddp_cep_alloc(rdev, xp);
	if (!cep)
		return -ENOMEM;
	ret = xp->listen(cep, id, addr, backlog, &sock);
	if (ret) {
		rddp_cep_unlist(cep);
		rddp_cep_put(cep);
		return ret;
	}
	mutex_lock(&cep->lock);
	id->add_ref(id);
	cep->listen_id = id;
	cep->state = RDDP_CEP_LISTEN;
	rddp_cep_sock_attach(cep, sock);
	trace_rddp_cm_listen(cep, addr);
	mutex_unlock(&cep->lock);
	/* the listen list holds the creator's reference */
	list_add_tail(&cep->listen_entry, &l->ceps);
	return 0;
}

/*
 * Whether a new listen on @rdev opens @xp's listeners: always for the
 * transport every listen takes (listen_always), else only where the device
 * is set to it, so that what a remote host can send to a listener of
 * another transport stays off where that transport is not wanted. Read
 * at the listen: an existing listener keeps what it opened.
 */
static bool rddp_listen_wants(struct rddp_device *rdev,
			      const struct rddp_cm_transport *xp)
{
	struct rddp_settings set;

	if (xp->listen_always)
		return true;
	rddp_settings_get(rdev, &set);
	return rddp_cm_transports[set.transport] == xp;
}

/*
 * A listener of @xp. Each transport has a port space of its own, so the
 * active side's transport decides which one a connection takes. One that
 * not every listen takes is best effort: without it in the kernel
 * (sock_create tries to load its module), or with the port taken in its
 * space, the cm_id listens on the others alone (logged, unless the kernel
 * lacks it). The table's order puts it after the first
 * (cm_transports.c).
 */
static int rddp_listen_xp(struct rddp_device *rdev, struct rddp_listen *l,
			  struct iw_cm_id *id, struct sockaddr_storage *addr,
			  int backlog, const struct rddp_cm_transport *xp)
{
	int ret = rddp_listen_one(rdev, l, id, addr, backlog, xp);

	if (!ret || xp->listen_always)
		return ret;
	if (ret != -EPROTONOSUPPORT && ret != -ESOCKTNOSUPPORT)
		pr_info_ratelimited("rddp: %s: %pISpc: listening on %s only, %s failed: %d\n",
				    dev_name(&rdev->ibdev.dev), addr,
				    rddp_cm_transports[0]->name, xp->name, ret);
	return 0;
}

/*
 * Listen on @addr with every transport the device wants (the table's
 * order). On failure the caller closes @l.
 */
static int rddp_listen_addr(struct rddp_device *rdev, struct rddp_listen *l,
			    struct iw_cm_id *id, struct sockaddr_storage *addr,
			    int backlog)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rddp_cm_transports); i++) {
		if (!rddp_listen_wants(rdev, rddp_cm_transports[i]))
			continue;
		ret = rddp_listen_xp(rdev, l, id, addr, backlog,
				     rddp_cm_transports[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The children of a listener: endpoints of @rdev still reading a request
 * for @id. Returns the next one, referenced, or NULL.
 */
static struct rddp_cep *rddp_listen_next_child(struct rddp_device *rdev,
					       struct iw_cm_id *id)
{
	struct rddp_cep *cep, *child = NULL;

	spin_lock(&rdev->cep_lock);
	list_for_each_entry(cep, &rdev->cep_list, dev_entry) {
		/* a hint, checked again under cep->lock */
		if (READ_ONCE(cep->listen_id) == id) {
			child = cep;
			rddp_cep_get(child);
			break;
		}
	}
	spin_unlock(&rdev->cep_lock);
	return child;
}

/*
 * Fail the children of a listener being closed: a request they delivered
 * now would reach a cm_id whose events iw_cm drops. Their peers see the
 * connection closed at once. Each failure takes the child off the list.
 */
static void rddp_listen_fail_children(struct rddp_device *rdev,
				      struct iw_cm_id *id)
{
	struct rddp_cep *cep;

	while ((cep = rddp_listen_next_child(rdev, id))) {
		mutex_lock(&cep->lock);
		if (cep->listen_id == id)
			rddp_cep_fail(cep, -ECONNABORTED);
		mutex_unlock(&cep->lock);
		rddp_cep_put(cep);
	}
}

/* Close one listening socket of a listener; its work has run when done. */
static void rddp_listen_close_one(struct rddp_cep *cep)
{
	struct socket *sock;

	list_del_init(&cep->listen_entry);
	mutex_lock(&cep->lock);
	sock = rddp_cep_sock_detach(cep);
	cep->state = RDDP_CEP_CLOSED;
	rddp_cep_unlist(cep);
	mutex_unlock(&cep->lock);
	if (sock)
		sock_release(sock);
	flush_work(&cep->work);	/* no child is created after this */
	mutex_lock(&cep->lock);
	if (cep->listen_id) {
		cep->listen_id->rem_ref(cep->listen_id);
		cep->listen_id = NULL;
	}
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);
}

static void rddp_listen_close(struct rddp_listen *l)
{
	struct rddp_cep *cep, *next;

	list_for_each_entry_safe(cep, next, &l->ceps, listen_entry)
		rddp_listen_close_one(cep);
	rddp_listen_fail_children(l->rdev, l->id);
	kfree(l);
}

/*
 * The listeners of a wildcard IPv4 listen over a transport that listens
 * per address (listen_per_address, cep.h says why): one per address the
 * netdev has now (at most 16).
 */
static void rddp_listen_each4(struct rddp_device *rdev, struct rddp_listen *l,
			      struct iw_cm_id *id, __be16 port, int backlog,
			      const struct rddp_cm_transport *xp)
{
	struct sockaddr_storage a;
	struct sockaddr_in *sin = (struct sockaddr_in *)&a;
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	__be32 addrs[16];
	int i, cnt = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(rdev->netdev);
	if (in_dev)
		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (cnt < ARRAY_SIZE(addrs))
				addrs[cnt++] = ifa->ifa_local;
	rcu_read_unlock();
	for (i = 0; i < cnt; i++) {
		memset(&a, 0, sizeof(a));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		sin->sin_addr.s_addr = addrs[i];
		rddp_listen_xp(rdev, l, id, &a, backlog, xp);
	}
}

/*
 * The same for a wildcard IPv6 listen, as rddp_listen_each4(): every
 * usable address, link-local ones too, scoped to the netdev.
 */
static void rddp_listen_each6(struct rddp_device *rdev, struct rddp_listen *l,
			      struct iw_cm_id *id, __be16 port, int backlog,
			      const struct rddp_cm_transport *xp)
{
	struct inet6_dev *idev = in6_dev_get(rdev->netdev);
	struct sockaddr_storage a;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a;
	struct in6_addr addrs[16];
	struct inet6_ifaddr *ifp;
	int i, cnt = 0;

	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list)
			if (cnt < ARRAY_SIZE(addrs) &&
			    !(ifp->flags & (IFA_F_TENTATIVE | IFA_F_DEPRECATED)))
				addrs[cnt++] = ifp->addr;
		read_unlock_bh(&idev->lock);
		in6_dev_put(idev);
	}
	for (i = 0; i < cnt; i++) {
		memset(&a, 0, sizeof(a));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		sin6->sin6_addr = addrs[i];
		if (ipv6_addr_type(&addrs[i]) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = rdev->netdev->ifindex;
		rddp_listen_xp(rdev, l, id, &a, backlog, xp);
	}
}

/*
 * A wildcard listen: a transport that listens on the wildcard gets it
 * (bound to the netdev by the transport, which never fails for want of an
 * address: rdma_cm fails a whole wildcard listen when one device fails
 * it, and leaves a new device that an existing wildcard listener fails on
 * out for good); one that listens per address gets the addresses there
 * are now.
 */
static int rddp_listen_any(struct rddp_device *rdev, struct rddp_listen *l,
			   struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage *la = &id->m_local_addr;
	const struct rddp_cm_transport *xp;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rddp_cm_transports); i++) {
		xp = rddp_cm_transports[i];
		if (!rddp_listen_wants(rdev, xp))
			continue;
		if (!xp->listen_per_address) {
			ret = rddp_listen_xp(rdev, l, id, la, backlog, xp);
			if (ret)
				return ret;
		} else if (la->ss_family == AF_INET) {
			rddp_listen_each4(rdev, l, id,
					  ((struct sockaddr_in *)la)->sin_port,
					  backlog, xp);
		} else {
			rddp_listen_each6(rdev, l, id,
					  ((struct sockaddr_in6 *)la)->sin6_port,
					  backlog, xp);
		}
	}
	return 0;
}

/*
 * On failure nothing stays bound and id->provider_data stays NULL, so
 * iw_cm's later destroy_listen finds nothing to close.
 */
int rddp_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct rddp_device *rdev = to_rddp_dev(id->device);
	struct sockaddr_storage *la = &id->m_local_addr;
	struct rddp_listen *l;
	int ret;

	if (la->ss_family != AF_INET && la->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	INIT_LIST_HEAD(&l->ceps);
	l->rdev = rdev;
	l->id = id;

	if (rddp_addr_any(la))
		ret = rddp_listen_any(rdev, l, id, backlog);
	else
		ret = rddp_listen_addr(rdev, l, id, la, backlog);
	if (ret) {
		rddp_listen_close(l);
		return ret;
	}
	id->provider_data = l;
	return 0;
}

int rddp_iw_destroy_listen(struct iw_cm_id *id)
{
	struct rddp_listen *l = id->provider_data;

	if (l)
		rddp_listen_close(l);
	id->provider_data = NULL;
	return 0;
}

/* ---- device and module ---- */

void rddp_cm_device_stop(struct rddp_device *rdev)
{
	struct rddp_cep *cep;

	for (;;) {
		spin_lock(&rdev->cep_lock);
		cep = list_first_entry_or_null(&rdev->cep_list,
					       struct rddp_cep, dev_entry);
		if (cep)
			rddp_cep_get(cep);
		spin_unlock(&rdev->cep_lock);
		if (!cep)
			break;
		mutex_lock(&cep->lock);
		if (cep->rdev)
			rddp_cep_fail(cep, -ENODEV);
		mutex_unlock(&cep->lock);
		rddp_cep_put(cep);
	}
}

int rddp_cm_init(void)
{
	return rddp_wq_init();
}

void rddp_cm_exit(void)
{
	rddp_wq_exit();
	/* Every device is gone and the work has run: a leak is a bug. */
	WARN(atomic_read(&rddp_cep_count), "rddp: %d connection endpoints leaked\n",
	     atomic_read(&rddp_cep_count));
	WARN_ON(!xa_empty(&rddp_cep_requests));
}
