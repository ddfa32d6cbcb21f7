// SPDX-License-Identifier: GPL-2.0
/*
 * rddp connection management: the iw_cm provider calls over kernel TCP
 * sockets and MPA connection setup (RFC 5044 §7.1, RFC 6581).
 *
 * A connection endpoint (struct rddp_cep) is a listening socket, or one
 * TCP connection from its start until MPA setup ends. Then the socket is
 * handed to the QP's stream (stream.h) and the endpoint stays only to
 * report the connection's end to iw_cm (DISCONNECT, CLOSE).
 *
 * Active side:  iw_connect -> TCP connect (non-blocking) -> MPA Request ->
 *               Reply -> QP to RTS, RTR sent first -> CONNECT_REPLY.
 * Passive side: listener accepts -> MPA Request -> CONNECT_REQUEST ->
 *               iw_accept: Reply, QP to RTS (waits for the RTR)
 *               -> ESTABLISHED; or iw_reject: Reply with R set, close.
 * Setup is bounded by rddp_mpa_timeout() (the mpa_timeout_ms parameter); a
 * peer that sends a bad frame, or closes, ends it with the matching CM
 * event.
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
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rddp/mpa_frame.h>
#include <uapi/linux/rddp_netlink.h>

#include "cep.h"
#include "llp.h"
#include "sctp_link.h"
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

struct rddp_cep *rddp_cep_alloc(struct rddp_device *rdev)
{
	struct rddp_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	atomic_inc(&rddp_cep_count);
	cep->conn.ops = &rddp_cep_conn_ops;
	cep->up = &rddp_cep_upcalls;
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
	rddp_sctp_link_free(cep->link);
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

void rddp_cep_queue(struct rddp_cep *cep)
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

void rddp_cep_timer_start(struct rddp_cep *cep, unsigned long delay)
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
	 * TCP reads sk_data_ready and sk_state_change without this lock: a
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

void rddp_cep_sock_attach(struct rddp_cep *cep, struct socket *sock)
{
	struct sock *sk = sock->sk;

	cep->sock = sock;
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = cep;
	sk->sk_data_ready = rddp_cep_sk_event;
	sk->sk_state_change = rddp_cep_sk_event;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Give the socket back its own callbacks; the endpoint keeps it. */
struct socket *rddp_cep_sock_detach(struct rddp_cep *cep)
{
	struct socket *sock = cep->sock;
	struct sock *sk;

	if (!sock)
		return NULL;
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->sock = NULL;
	return sock;
}

static int rddp_sock_create(struct rddp_cep *cep, int family,
			    struct socket **sock)
{
	int ret;

	ret = sock_create_kern(dev_net(cep->rdev->netdev), family, SOCK_STREAM,
			       IPPROTO_TCP, sock);
	if (ret)
		return ret;
	sock_set_reuseaddr((*sock)->sk);
	tcp_sock_set_nodelay((*sock)->sk);
	(*sock)->sk->sk_sndtimeo = rddp_mpa_timeout();
	(*sock)->sk->sk_rcvtimeo = rddp_mpa_timeout();
	return 0;
}

int rddp_addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

static __be16 rddp_addr_port(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ?
		((const struct sockaddr_in6 *)a)->sin6_port :
		((const struct sockaddr_in *)a)->sin_port;
}

/*
 * The iWARP port mapper. With iwpmd running, iw_cm asks it for a mapping of
 * every cm_id's port (rddp does not set IW_F_NO_PORT_MAP) and hands us the
 * mapped address in m_local_addr. iwpmd reserves the mapped port by binding
 * a socket of its own to it (wildcard address, no SO_REUSEADDR, never
 * listening or connecting): that reservation is what keeps the host's TCP
 * from giving the port to anyone else, and our socket, which serves the
 * cm_id the port was reserved for, shares it (SK_FORCE_REUSE, the bind rule
 * TCP repair uses). rdma_cm still sees the port the ULP asked for, and a
 * peer learns the mapped one from its own iwpmd: so an iSER portal can
 * listen on 3260 while LIO's iSCSI/TCP portal holds TCP port 3260.
 * Without iwpmd, m_local_addr equals local_addr and nothing changes.
 */
static void rddp_sock_share_mapped_port(struct socket *sock,
					const struct iw_cm_id *id)
{
	if (id->mapped && rddp_addr_port(&id->m_local_addr) !=
			  rddp_addr_port(&id->local_addr))
		sock->sk->sk_reuse = SK_FORCE_REUSE;
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

/* ---- MPA frames ---- */

static int rddp_cep_send_frame(struct rddp_cep *cep,
			       const struct rddp_mpa_frame *f)
{
	u8 *buf = kmalloc(RDDP_MPA_FRAME_MAX, GFP_KERNEL);
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec vec;
	int len, ret;

	if (!buf)
		return -ENOMEM;
	len = rddp_mpa_frame_build(f, buf, RDDP_MPA_FRAME_MAX);
	if (len < 0) {
		kfree(buf);
		return -EINVAL;
	}
	vec.iov_base = buf;
	vec.iov_len = len;
	/* Before the write: the peer may have read it before we return. */
	trace_rddp_mpa_send(cep, f);
	ret = kernel_sendmsg(cep->sock, &msg, &vec, 1, len);
	kfree(buf);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EIO;
}

/*
 * Read what the socket holds of the expected frame, never beyond it (the
 * bytes after it are FPDUs). Returns RDDP_MPA_FRAME_MORE, _OK, a frame error
 * (> 0), or a negative errno (peer closed: -ECONNRESET).
 */
static int rddp_cep_read_frame(struct rddp_cep *cep)
{
	u8 buf[64];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct rddp_mpa_frame_rx *rx = &cep->mpa_rx;
	struct kvec vec;
	u32 used;
	int n, ret;

	for (;;) {
		vec.iov_base = buf;
		vec.iov_len = min_t(u32, sizeof(buf), rx->need - rx->have);
		n = kernel_recvmsg(cep->sock, &msg, &vec, 1, vec.iov_len,
				   MSG_DONTWAIT);
		if (n == -EAGAIN)
			return RDDP_MPA_FRAME_MORE;
		if (n < 0)
			return n;
		if (n == 0)
			return -ECONNRESET;
		ret = rddp_mpa_frame_rx_feed(rx, buf, n, &used, &cep->peer);
		if (ret != RDDP_MPA_FRAME_MORE)
			return ret;
	}
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

void rddp_cep_deliver(struct rddp_cep *cep, struct iw_cm_id *id,
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

	rddp_stat_inc(cep->rdev, status == -ETIMEDOUT ? RDDP_STAT_MPA_TIMEOUTS :
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
void rddp_cep_fail(struct rddp_cep *cep, int status)
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
	if (sock && cep->sctp && status && !cep->sctp_graceful)
		sock_no_linger(sock->sk);	/* SCTP: ABORT the association */
	/* SCTP: what the link holds is charged to the socket (sctp_link.h) */
	rddp_sctp_link_free(cep->link);
	cep->link = NULL;
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
		 * fatal for the QP; a broken LLP (a write failed: TCP writes
		 * fail after a reset, not after the peer's FIN) is an
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
int rddp_cep_go_rts(struct rddp_cep *cep, const struct rddp_stream_params *p)
{
	struct rddp_qp *qp = cep->qp;
	struct rddp_stream *s;
	struct socket *sock;
	bool closed;
	int ret;

	s = rddp_stream_alloc(qp, p, cep->sctp ? &rddp_llp_sctp : &rddp_llp_mpa);
	if (!s)
		return -ENOMEM;
	s->sctp = cep->link;	/* SCTP: the link goes with the socket */
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
		s->sctp = NULL;
		rddp_stream_free(s);
		return ret;
	}
	cep->link = NULL;
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

/* ---- active side ---- */

static void rddp_cep_send_request(struct rddp_cep *cep)
{
	struct rddp_mpa_frame f = {
		.type = RDDP_MPA_REQUEST,
		.rev = cep->settings.mpa_rev,
		.markers = cep->settings.markers,
		.crc = cep->settings.crc,
		.pd = cep->pd,
		.pd_len = cep->pd_len,
	};
	int ret;

	if (f.rev == 2) {
		/* RFC 6581 §9.1.1: peer-to-peer, offer Write and Read RTRs */
		f.enhanced = true;
		f.p2p = true;
		f.rtr = RDDP_MPA_RTR_WRITE | RDDP_MPA_RTR_READ;
		f.ird = cep->ird;
		f.ord = cep->ord;
	}
	ret = rddp_cep_send_frame(cep, &f);
	if (ret) {
		rddp_cep_fail(cep, ret);
		return;
	}
	rddp_mpa_frame_rx_init(&cep->mpa_rx, RDDP_MPA_REPLY, f.rev);
	cep->state = RDDP_CEP_AWAIT_REPLY;
}

static void rddp_cep_got_reply(struct rddp_cep *cep)
{
	struct rddp_mpa_frame *r = &cep->peer;
	struct rddp_stream_params p = { 0 };
	struct iw_cm_id *id = cep->cm_id;
	struct socket *sock = cep->sock;
	int ret;

	if (r->reject) {
		/* RFC 5044 §7.1.1: R set, the ULP's private data explains */
		rddp_cep_deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY,
				 -ECONNREFUSED, r->pd, r->pd_len, sock);
		id->rem_ref(id);
		cep->cm_id = NULL;
		rddp_cep_fail(cep, 0);
		return;
	}
	p.mpa_rev = r->rev;
	p.crc = cep->settings.crc || r->crc;	/* RFC 5044 §7.1.1 C */
	p.markers_tx = r->markers;		/* the responder wants them */
	p.markers_rx = cep->settings.markers;
	p.tx_batch = cep->settings.tx_batch;
	p.tx_zcopy = cep->settings.tx_zcopy;
	p.peer_timeout_ms = cep->settings.peer_timeout_ms;
	p.ird = cep->ird;
	p.ord = cep->ord;
	if (r->enhanced) {
		/* RFC 6581 §9.1.1: no more Reads than the responder takes */
		p.ord = min_t(u16, p.ord, r->ird);
		p.ird = clamp_t(u16, max_t(u16, p.ird, r->ord), 1,
				RDDP_MAX_IRD);
		if (r->p2p) {
			if (!(r->rtr & (RDDP_MPA_RTR_WRITE | RDDP_MPA_RTR_READ))) {
				/* RFC 6581 §9.1.2: no RTR we offered */
				rddp_cep_fail(cep, -ECONNREFUSED);
				return;
			}
			p.rtr = r->rtr;
		}
	}
	p.ord = max_t(u16, p.ord, 1);
	p.ird = max_t(u16, p.ird, 1);
	ret = rddp_cep_go_rts(cep, &p);
	if (ret) {
		rddp_cep_fail(cep, ret);
		return;
	}
	rddp_cep_deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY, 0, r->pd,
			 r->pd_len, NULL);
}

/* ---- passive side ---- */

/*
 * Refuse the peer's request (rddp_iw_reject(), or a request iw_cm did not
 * take): an MPA Reply with R set (RFC 5044 §7.1.1, no private data from
 * rddp), over SCTP the session Terminate (draft-ietf-rddp-sctp-00 §3.4).
 * Caller holds cep->lock; closing is the caller's.
 */
static int rddp_cep_send_reject(struct rddp_cep *cep, const void *pd,
				u8 pd_len)
{
	struct rddp_mpa_frame f = {
		.type = RDDP_MPA_REPLY,
		.reject = true,
		.rev = min_t(u8, cep->peer.rev, cep->settings.mpa_rev),
		.pd = pd,
		.pd_len = pd_len,
	};

	if (cep->sctp)
		return rddp_sctp_cm_reject(cep);
	return rddp_cep_send_frame(cep, &f);
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
void rddp_cep_got_request_event(struct rddp_cep *cep, const void *pd,
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

static void rddp_cep_got_request(struct rddp_cep *cep)
{
	const struct rddp_mpa_frame *r = &cep->peer;

	rddp_cep_got_request_event(cep, r->pd, r->pd_len,
				   r->enhanced ? r->ird : RDDP_MAX_IRD,
				   r->enhanced ? r->ord : RDDP_MAX_ORD);
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
	cep = rddp_cep_alloc(lcep->rdev);
	if (!cep) {
		rddp_sock_release(sock);
		return;
	}
	/* Listener before child: the only place two endpoint locks nest. */
	mutex_lock_nested(&cep->lock, SINGLE_DEPTH_NESTING);
	sock->sk->sk_sndtimeo = rddp_mpa_timeout();
	cep->listen_id = lcep->listen_id;
	cep->listen_id->add_ref(cep->listen_id);
	cep->state = RDDP_CEP_AWAIT_REQUEST;
	rddp_cep_sock_attach(cep, sock);
	if (lcep->sctp) {
		cep->sctp = true;
		ret = rddp_sctp_cm_accept_one(cep);
	} else {
		tcp_sock_set_nodelay(sock->sk);
		rddp_mpa_frame_rx_init(&cep->mpa_rx, RDDP_MPA_REQUEST, 2);
	}
	if (ret) {
		rddp_cep_fail(cep, ret);
		mutex_unlock(&cep->lock);
		rddp_cep_put(cep);
		return;
	}
	if (trace_rddp_cm_request_enabled())
		rddp_cep_trace_request(cep);
	rddp_cep_timer_start(cep, rddp_mpa_timeout());
	set_bit(RDDP_CEP_EV_SOCK, &cep->events);
	rddp_cep_queue(cep);
	mutex_unlock(&cep->lock);
	rddp_cep_put(cep);	/* the work, timer and socket hold it now */
}

/* SCTP's accept sleeps a tick when nothing is queued: ask first (cm_sctp.c). */
static bool rddp_cep_accept_ready(struct rddp_cep *lcep)
{
	return !lcep->sctp || rddp_sctp_cm_accept_ready(lcep->sock);
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
	struct sock *sk;
	int ret;

	if (test_bit(RDDP_CEP_EV_TIMEOUT, &ev)) {
		pr_debug("rddp: MPA setup timed out in %s\n",
			 rddp_cep_state_names[cep->state]);
		if (cep->sctp)
			rddp_sctp_cm_timeout(cep);	/* §3.1: a Terminate */
		else
			rddp_cep_fail(cep, -ETIMEDOUT);
		return;
	}
	if (test_bit(RDDP_CEP_EV_QP_DESTROYED, &ev)) {
		/* iw_cm gets CONNECT_REPLY and lets go of the QP */
		rddp_cep_fail(cep, -ECONNABORTED);
		return;
	}
	if (!cep->sock)
		return;
	if (cep->sctp) {
		rddp_sctp_cm_setup_event(cep);
		return;
	}
	sk = cep->sock->sk;
	switch (cep->state) {
	case RDDP_CEP_CONNECTING:
		if (sk->sk_state == TCP_ESTABLISHED) {
			rddp_cep_send_request(cep);
			return;
		}
		if (sk->sk_state == TCP_SYN_SENT)
			return;
		ret = sock_error(sk);
		rddp_cep_fail(cep, ret ? ret : -ECONNREFUSED);
		return;
	case RDDP_CEP_AWAIT_REPLY:
	case RDDP_CEP_AWAIT_REQUEST:
		ret = rddp_cep_read_frame(cep);
		if (ret == RDDP_MPA_FRAME_MORE)
			return;
		if (ret == RDDP_MPA_FRAME_OK) {
			trace_rddp_mpa_recv(cep, &cep->peer);
			if (cep->state == RDDP_CEP_AWAIT_REPLY)
				rddp_cep_got_reply(cep);
			else
				rddp_cep_got_request(cep);
			return;
		}
		if (ret > 0)
			trace_rddp_mpa_error(cep, ret,
					     rddp_mpa_frame_err_names[ret]);
		if (ret > 0)
			/* The peer writes this line: rate-limited. */
			pr_info_ratelimited("rddp: bad MPA %s: %s\n",
					    cep->active ? "Reply" : "Request",
					    rddp_mpa_frame_err_names[ret]);
		rddp_cep_fail(cep, ret < 0 ? ret : -ECONNREFUSED);
		return;
	case RDDP_CEP_AWAIT_ACCEPT:
		/* The peer gave up before the ULP answered. */
		if (sk->sk_state != TCP_ESTABLISHED)
			rddp_cep_fail(cep, -ECONNRESET);
		return;
	default:
		return;
	}
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
 * Bind @sock (TCP or SCTP, created by the caller) to @laddr, give it to the
 * endpoint and start connecting to @raddr, the cm_id referenced. Takes
 * @sock: on failure it is released or the endpoint's. Caller holds
 * cep->lock.
 */
int rddp_cep_bind_connect(struct rddp_cep *cep, struct iw_cm_id *id,
			  struct socket *sock, struct sockaddr_storage *laddr,
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
	if (cep->sctp && cep->settings.multihome)	/* §4.2 */
		rddp_sctp_bind_more(cep->rdev, sock, laddr);
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

/* The TCP connection of an active endpoint. Caller holds cep->lock. */
static int rddp_cep_tcp_connect(struct rddp_cep *cep, struct iw_cm_id *id,
				struct sockaddr_storage *laddr,
				struct sockaddr_storage *raddr)
{
	struct socket *sock;
	int ret;

	ret = rddp_sock_create(cep, raddr->ss_family, &sock);
	if (ret)
		return ret;
	rddp_sock_share_mapped_port(sock, id);
	return rddp_cep_bind_connect(cep, id, sock, laddr, raddr);
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
	u16 pd_max = RDDP_MPA_PD_MAX;
	struct rddp_settings set;
	struct rddp_qp *qp;
	struct rddp_cep *cep;
	int ret;

	if (laddr.ss_family != raddr->ss_family ||
	    (raddr->ss_family != AF_INET && raddr->ss_family != AF_INET6))
		return -EAFNOSUPPORT;
	rddp_settings_get(rdev, &set);
	if (set.transport == RDDP_TRANSPORT_SCTP)
		pd_max = RDDP_SCTP_ULP_PD_MAX;	/* as over MPA (wire-sctp.md) */
	else if (set.mpa_rev == 2)
		pd_max -= RDDP_MPA_V2_DATA_LEN;
	if (param->private_data_len > pd_max)
		return -EINVAL;
	if (param->ord > RDDP_MAX_ORD || param->ird > RDDP_MAX_IRD)
		return -EINVAL;
	qp = rddp_qp_get_by_qpn(rdev, param->qpn);
	if (!qp)
		return -EINVAL;
	cep = rddp_cep_alloc(rdev);
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

	cep->sctp = set.transport == RDDP_TRANSPORT_SCTP;
	if (cep->sctp)
		ret = rddp_sctp_cm_connect(cep, id, &laddr, raddr);
	else
		ret = rddp_cep_tcp_connect(cep, id, &laddr, raddr);
	if (ret)
		goto err;
	rddp_cep_timer_start(cep, rddp_mpa_timeout());
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

/* The MPA Reply (RFC 5044 §7.1, RFC 6581), then RTS. Caller holds cep->lock. */
static int rddp_cep_mpa_accept(struct rddp_cep *cep,
			       struct iw_cm_conn_param *param)
{
	struct rddp_mpa_frame *r = &cep->peer;
	struct rddp_stream_params p = { 0 };
	struct rddp_mpa_frame f = { .type = RDDP_MPA_REPLY };
	u16 pd_max = RDDP_MPA_PD_MAX;
	struct rddp_qp *qp = cep->qp;
	int ret;

	/* RFC 6581: answer with the lower revision */
	p.mpa_rev = min_t(u8, r->rev, cep->settings.mpa_rev);
	p.crc = cep->settings.crc || r->crc;
	p.markers_tx = r->markers;
	p.markers_rx = cep->settings.markers;
	p.tx_batch = cep->settings.tx_batch;
	p.tx_zcopy = cep->settings.tx_zcopy;
	p.peer_timeout_ms = cep->settings.peer_timeout_ms;
	p.ird = clamp_t(u16, param->ird, 1, RDDP_MAX_IRD);
	p.ord = clamp_t(u16, param->ord, 1, RDDP_MAX_ORD);
	f.rev = p.mpa_rev;
	f.crc = p.crc;
	f.markers = p.markers_rx;
	if (p.mpa_rev == 2 && r->enhanced) {
		pd_max -= RDDP_MPA_V2_DATA_LEN;
		/* RFC 6581 §9.1.1: our ORD within the initiator's IRD */
		p.ord = clamp_t(u16, min_t(u16, p.ord, r->ird), 1,
				RDDP_MAX_ORD);
		f.enhanced = true;
		f.ird = p.ird;
		f.ord = p.ord;
		if (r->p2p) {
			/* Pick one RTR kind: Write, else Read, else Send. */
			if (r->rtr & RDDP_MPA_RTR_WRITE)
				p.rtr = RDDP_MPA_RTR_WRITE;
			else if (r->rtr & RDDP_MPA_RTR_READ)
				p.rtr = RDDP_MPA_RTR_READ;
			else if (r->rtr & RDDP_MPA_RTR_SEND)
				p.rtr = RDDP_MPA_RTR_SEND;
			f.p2p = p.rtr != 0;
			f.rtr = p.rtr;
		}
	}
	if (param->private_data_len > pd_max)
		return -EINVAL;
	f.pd = param->private_data;
	f.pd_len = param->private_data_len;
	ret = rddp_cep_send_frame(cep, &f);
	if (ret)
		return ret;
	qp->ird = p.ird;
	qp->ord = p.ord;
	return rddp_cep_go_rts(cep, &p);
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
	if (cep->sctp)
		ret = rddp_sctp_cm_accept(cep, param);
	else
		ret = rddp_cep_mpa_accept(cep, param);
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

static bool rddp_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       htonl(INADDR_ANY);
}

/*
 * A listening socket for @id on @addr, TCP or SCTP, on @l. A TCP wildcard
 * listens on the device's netdev alone (SO_BINDTODEVICE, sk_bound_dev_if):
 * it takes connections to whatever address the netdev has now or later,
 * other devices may listen on the same port with their own, and IPv6's
 * [::] takes IPv4 too unless the cm_id is afonly (RFC 4291 §2.5.5.2's
 * mapped addresses, unmapped in rddp_sock_addrs()).
 */
static int rddp_listen_one(struct rddp_device *rdev, struct rddp_listen *l,
			   struct iw_cm_id *id, struct sockaddr_storage *addr,
			   int backlog, bool sctp)
{
	struct rddp_cep *cep;
	struct socket *sock;
	int ret;

	cep = rddp_cep_alloc(rdev);
	if (!cep)
		return -ENOMEM;
	if (sctp)
		ret = rddp_sctp_sock_create(dev_net(rdev->netdev),
					    addr->ss_family, &sock);
	else
		ret = rddp_sock_create(cep, addr->ss_family, &sock);
	if (ret)
		goto err;
	if (addr->ss_family == AF_INET6 && id->afonly)
		ip6_sock_set_v6only(sock->sk);
	if (!sctp)
		rddp_sock_share_mapped_port(sock, id);
	if (!sctp && rddp_addr_any(addr))
		ret = sock_bindtoindex(sock->sk, rdev->netdev->ifindex, true);
	if (!ret)
		ret = kernel_bind(sock, (struct sockaddr *)addr,
				  rddp_addr_len(addr));
	if (!ret && sctp && cep->settings.multihome)	/* draft-ietf-rddp-sctp §4.2 */
		rddp_sctp_bind_more(rdev, sock, addr);
	if (!ret)
		ret = kernel_listen(sock, backlog);
	if (ret) {
		sock_release(sock);
		goto err;
	}
	mutex_lock(&cep->lock);
	id->add_ref(id);
	cep->listen_id = id;
	cep->sctp = sctp;
	cep->state = RDDP_CEP_LISTEN;
	rddp_cep_sock_attach(cep, sock);
	trace_rddp_cm_listen(cep, addr);
	mutex_unlock(&cep->lock);
	/* the listen list holds the creator's reference */
	list_add_tail(&cep->listen_entry, &l->ceps);
	return 0;
err:
	rddp_cep_unlist(cep);
	rddp_cep_put(cep);
	return ret;
}

/*
 * Whether a new listen on @rdev opens SCTP listeners too: only where the
 * device's transport is SCTP. A device set to TCP opens none, so what a
 * remote host can send to one (Documentation/wire-sctp.md) stays off where
 * SCTP is not wanted. Read at the listen: an existing listener keeps what
 * it opened.
 */
static bool rddp_listen_wants_sctp(struct rddp_device *rdev)
{
	struct rddp_settings set;

	rddp_settings_get(rdev, &set);
	return set.transport == RDDP_TRANSPORT_SCTP;
}

/*
 * SCTP's listener on @addr (draft-ietf-rddp-sctp-00): the port spaces of
 * TCP and SCTP are separate, so the active side's transport decides which
 * one a connection takes. Best effort: without SCTP in the kernel
 * (sock_create tries to load sctp.ko), or with the port taken in SCTP's
 * space, the cm_id listens on TCP alone. It comes after TCP's: SCTP's
 * first listen may load modules (sctp.ko, the cookie's HMAC) or try to in
 * vain, which a TCP client should not wait for.
 */
static void rddp_listen_sctp(struct rddp_device *rdev, struct rddp_listen *l,
			     struct iw_cm_id *id, struct sockaddr_storage *addr,
			     int backlog)
{
	int ret = rddp_listen_one(rdev, l, id, addr, backlog, true);

	if (ret && ret != -EPROTONOSUPPORT && ret != -ESOCKTNOSUPPORT)
		pr_info_ratelimited("rddp: %s: %pISpc: listening on TCP only, SCTP failed: %d\n",
				    dev_name(&rdev->ibdev.dev), addr, ret);
}

/*
 * Listen on @addr with TCP (MPA) and, where the device wants it, SCTP. On
 * failure the caller closes @l.
 */
static int rddp_listen_addr(struct rddp_device *rdev, struct rddp_listen *l,
			    struct iw_cm_id *id, struct sockaddr_storage *addr,
			    int backlog)
{
	int ret = rddp_listen_one(rdev, l, id, addr, backlog, false);

	if (ret)
		return ret;
	if (rddp_listen_wants_sctp(rdev))
		rddp_listen_sctp(rdev, l, id, addr, backlog);
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
 * SCTP's listeners of a wildcard IPv4 listen: one per address the netdev
 * has now (at most 16). An SCTP socket bound to the wildcard would list
 * every address of the namespace in its INIT ACK (RFC 4960 §3.3.3), other
 * devices' included, which the device's `multihome off` forbids.
 */
static void rddp_listen_sctp_any4(struct rddp_device *rdev,
				  struct rddp_listen *l, struct iw_cm_id *id,
				  __be16 port, int backlog)
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
		rddp_listen_sctp(rdev, l, id, &a, backlog);
	}
}

/*
 * SCTP's listeners of a wildcard IPv6 listen, as rddp_listen_sctp_any4():
 * every usable address, link-local ones too, scoped to the netdev.
 */
static void rddp_listen_sctp_any6(struct rddp_device *rdev,
				  struct rddp_listen *l, struct iw_cm_id *id,
				  __be16 port, int backlog)
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
		rddp_listen_sctp(rdev, l, id, &a, backlog);
	}
}

/*
 * A wildcard listen: TCP on the wildcard, bound to the netdev, which never
 * fails for want of an address (rdma_cm fails a whole wildcard listen when
 * one device fails it, and leaves a new device that an existing wildcard
 * listener fails on out for good); SCTP on the addresses there are now.
 */
static int rddp_listen_any(struct rddp_device *rdev, struct rddp_listen *l,
			   struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage *la = &id->m_local_addr;
	int ret;

	ret = rddp_listen_one(rdev, l, id, la, backlog, false);
	if (ret || !rddp_listen_wants_sctp(rdev))
		return ret;
	if (la->ss_family == AF_INET)
		rddp_listen_sctp_any4(rdev, l, id,
				      ((struct sockaddr_in *)la)->sin_port,
				      backlog);
	else
		rddp_listen_sctp_any6(rdev, l, id,
				      ((struct sockaddr_in6 *)la)->sin6_port,
				      backlog);
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
