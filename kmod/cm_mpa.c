// SPDX-License-Identifier: GPL-2.0
/*
 * Connection setup over TCP: MPA's exchange (RFC 5044 §7.1, RFC 6581)
 * below the transport-neutral CM (cm.c), which calls it through
 * rddp_cm_mpa (cep.h, struct rddp_cm_transport) and is called back through
 * cep->up alone.
 *
 * Active side:  TCP connect (non-blocking) -> MPA Request -> Reply -> QP
 *               to RTS, RTR sent first -> CONNECT_REPLY.
 * Passive side: the listener accepts -> MPA Request -> CONNECT_REQUEST ->
 *               accept: Reply, QP to RTS (waits for the RTR) ->
 *               ESTABLISHED; or reject: Reply with R set, close.
 * A peer that sends a bad frame, or closes, ends setup with the matching
 * CM event; the CM's timer bounds it (rddp_setup_timeout()).
 *
 * Every function here runs in the CM's work or an iw_cm call with
 * cep->lock held, the one lock of an endpoint (cm.c's rules); the socket
 * is the endpoint's until go_rts hands it to the QP's stream.
 */
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rddp/mpa_frame.h>
#include <uapi/linux/rddp_netlink.h>

#include "cep.h"
#include "cm_mpa.h"
#include "llp.h"
#include "trace.h"

/**
 * struct rddp_mpa_cep - an endpoint setting up MPA over TCP
 * @cep: the CM's endpoint; first, so that the CM allocates and frees the
 *	whole (rddp_cm_mpa.cep_size)
 * @mpa_rx: the frame being read: the peer's Request or Reply
 * @peer: that frame, once read; peer.pd points into @mpa_rx's buffer
 */
struct rddp_mpa_cep {
	struct rddp_cep cep;
	struct rddp_mpa_frame_rx mpa_rx;
	struct rddp_mpa_frame peer;
};

static_assert(offsetof(struct rddp_mpa_cep, cep) == 0);
static_assert(RDDP_MPA_PD_MAX <= RDDP_CEP_PD_MAX);

static struct rddp_mpa_cep *rddp_mpa_cep(struct rddp_cep *cep)
{
	return container_of(cep, struct rddp_mpa_cep, cep);
}

/* ---- sockets ---- */

static int rddp_mpa_sock_create(struct rddp_cep *cep, int family,
				struct socket **sock)
{
	int ret;

	ret = sock_create_kern(dev_net(cep->rdev->netdev), family, SOCK_STREAM,
			       IPPROTO_TCP, sock);
	if (ret)
		return ret;
	sock_set_reuseaddr((*sock)->sk);
	tcp_sock_set_nodelay((*sock)->sk);
	(*sock)->sk->sk_sndtimeo = rddp_setup_timeout();
	(*sock)->sk->sk_rcvtimeo = rddp_setup_timeout();
	return 0;
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
 * A listening TCP socket for @id on @addr. A wildcard listens on the
 * device's netdev alone (SO_BINDTODEVICE, sk_bound_dev_if): it takes
 * connections to whatever address the netdev has now or later, other
 * devices may listen on the same port with their own, and IPv6's [::]
 * takes IPv4 too unless the cm_id is afonly (RFC 4291 §2.5.5.2's mapped
 * addresses, unmapped by the CM).
 */
static int rddp_mpa_listen(struct rddp_cep *cep, struct iw_cm_id *id,
			   struct sockaddr_storage *addr, int backlog,
			   struct socket **sockp)
{
	struct socket *sock;
	int ret;

	ret = rddp_mpa_sock_create(cep, addr->ss_family, &sock);
	if (ret)
		return ret;
	if (addr->ss_family == AF_INET6 && id->afonly)
		ip6_sock_set_v6only(sock->sk);
	rddp_sock_share_mapped_port(sock, id);
	if (rddp_addr_any(addr))
		ret = sock_bindtoindex(sock->sk, cep->rdev->netdev->ifindex,
				       true);
	if (!ret)
		ret = kernel_bind(sock, (struct sockaddr *)addr,
				  rddp_addr_len(addr));
	if (!ret)
		ret = kernel_listen(sock, backlog);
	if (ret) {
		sock_release(sock);
		return ret;
	}
	*sockp = sock;
	return 0;
}

/* ---- MPA frames ---- */

static int rddp_mpa_send_frame(struct rddp_cep *cep,
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
static int rddp_mpa_read_frame(struct rddp_cep *cep)
{
	struct rddp_mpa_cep *mc = rddp_mpa_cep(cep);
	u8 buf[64];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct rddp_mpa_frame_rx *rx = &mc->mpa_rx;
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
		ret = rddp_mpa_frame_rx_feed(rx, buf, n, &used, &mc->peer);
		if (ret != RDDP_MPA_FRAME_MORE)
			return ret;
	}
}

/* ---- active side ---- */

/* The TCP connection of an active endpoint. */
static int rddp_mpa_connect(struct rddp_cep *cep, struct iw_cm_id *id,
			    struct sockaddr_storage *laddr,
			    struct sockaddr_storage *raddr)
{
	struct socket *sock;
	int ret;

	ret = rddp_mpa_sock_create(cep, raddr->ss_family, &sock);
	if (ret)
		return ret;
	rddp_sock_share_mapped_port(sock, id);
	return cep->up->bind_connect(cep, id, sock, laddr, raddr);
}

static void rddp_mpa_send_request(struct rddp_cep *cep)
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
	ret = rddp_mpa_send_frame(cep, &f);
	if (ret) {
		cep->up->fail(cep, ret);
		return;
	}
	rddp_mpa_frame_rx_init(&rddp_mpa_cep(cep)->mpa_rx, RDDP_MPA_REPLY,
			       f.rev);
	cep->state = RDDP_CEP_AWAIT_REPLY;
}

static void rddp_mpa_got_reply(struct rddp_cep *cep)
{
	struct rddp_mpa_frame *r = &rddp_mpa_cep(cep)->peer;
	struct rddp_stream_params p = { 0 };
	struct iw_cm_id *id = cep->cm_id;
	struct socket *sock = cep->sock;
	int ret;

	if (r->reject) {
		/* RFC 5044 §7.1.1: R set, the ULP's private data explains */
		cep->up->deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY,
				 -ECONNREFUSED, r->pd, r->pd_len, sock);
		id->rem_ref(id);
		cep->cm_id = NULL;
		cep->up->fail(cep, 0);
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
				cep->up->fail(cep, -ECONNREFUSED);
				return;
			}
			p.rtr = r->rtr;
		}
	}
	p.ord = max_t(u16, p.ord, 1);
	p.ird = max_t(u16, p.ird, 1);
	ret = cep->up->go_rts(cep, &p);
	if (ret) {
		cep->up->fail(cep, ret);
		return;
	}
	cep->up->deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY, 0, r->pd,
			 r->pd_len, NULL);
}

/* ---- passive side ---- */

/* A connection the listener accepted: read the peer's MPA Request. */
static int rddp_mpa_accept_one(struct rddp_cep *cep)
{
	tcp_sock_set_nodelay(cep->sock->sk);
	rddp_mpa_frame_rx_init(&rddp_mpa_cep(cep)->mpa_rx, RDDP_MPA_REQUEST, 2);
	return 0;
}

static void rddp_mpa_got_request(struct rddp_cep *cep)
{
	const struct rddp_mpa_frame *r = &rddp_mpa_cep(cep)->peer;

	cep->up->got_request(cep, r->pd, r->pd_len,
			     r->enhanced ? r->ird : RDDP_MAX_IRD,
			     r->enhanced ? r->ord : RDDP_MAX_ORD);
}

/*
 * Refuse the peer's request (iw_reject, or a request iw_cm did not take):
 * an MPA Reply with R set (RFC 5044 §7.1.1), with @pd for the peer.
 */
static int rddp_mpa_reject(struct rddp_cep *cep, const void *pd, u8 pd_len)
{
	struct rddp_mpa_frame f = {
		.type = RDDP_MPA_REPLY,
		.reject = true,
		.rev = min_t(u8, rddp_mpa_cep(cep)->peer.rev,
			     cep->settings.mpa_rev),
		.pd = pd,
		.pd_len = pd_len,
	};

	return rddp_mpa_send_frame(cep, &f);
}

/* RFC 6581 §9.1.1: the RTR kind the responder picks: Write, Read, Send. */
static u8 rddp_mpa_pick_rtr(u8 offered)
{
	if (offered & RDDP_MPA_RTR_WRITE)
		return RDDP_MPA_RTR_WRITE;
	if (offered & RDDP_MPA_RTR_READ)
		return RDDP_MPA_RTR_READ;
	if (offered & RDDP_MPA_RTR_SEND)
		return RDDP_MPA_RTR_SEND;
	return 0;
}

/* The MPA Reply (RFC 5044 §7.1, RFC 6581), then RTS. */
static int rddp_mpa_accept(struct rddp_cep *cep, struct iw_cm_conn_param *param)
{
	struct rddp_mpa_frame *r = &rddp_mpa_cep(cep)->peer;
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
			p.rtr = rddp_mpa_pick_rtr(r->rtr);
			f.p2p = p.rtr != 0;
			f.rtr = p.rtr;
		}
	}
	if (param->private_data_len > pd_max)
		return -EINVAL;
	f.pd = param->private_data;
	f.pd_len = param->private_data_len;
	ret = rddp_mpa_send_frame(cep, &f);
	if (ret)
		return ret;
	qp->ird = p.ird;
	qp->ord = p.ord;
	return cep->up->go_rts(cep, &p);
}

/* ---- the CM work's socket events ---- */

/* The peer's Request or Reply: read, checked, acted on. */
static void rddp_mpa_frame_event(struct rddp_cep *cep)
{
	int ret = rddp_mpa_read_frame(cep);

	if (ret == RDDP_MPA_FRAME_MORE)
		return;
	if (ret == RDDP_MPA_FRAME_OK) {
		trace_rddp_mpa_recv(cep, &rddp_mpa_cep(cep)->peer);
		if (cep->state == RDDP_CEP_AWAIT_REPLY)
			rddp_mpa_got_reply(cep);
		else
			rddp_mpa_got_request(cep);
		return;
	}
	if (ret > 0)
		trace_rddp_mpa_error(cep, ret, rddp_mpa_frame_err_names[ret]);
	if (ret > 0)
		/* The peer writes this line: rate-limited. */
		pr_info_ratelimited("rddp: bad MPA %s: %s\n",
				    cep->active ? "Reply" : "Request",
				    rddp_mpa_frame_err_names[ret]);
	cep->up->fail(cep, ret < 0 ? ret : -ECONNREFUSED);
}

/* The active side's TCP connection, as this work finds it (cm_mpa.h). */
static void rddp_mpa_connecting(struct rddp_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int ret;

	switch (rddp_mpa_connect_step(sk)) {
	case RDDP_MPA_CONNECT_SEND:
		rddp_mpa_send_request(cep);
		return;
	case RDDP_MPA_CONNECT_WAIT:
		return;	/* its state change queues the work again */
	case RDDP_MPA_CONNECT_FAIL:
		ret = sock_error(sk);
		cep->up->fail(cep, ret ? ret : -ECONNREFUSED);
	}
}

static void rddp_mpa_setup_event(struct rddp_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	switch (cep->state) {
	case RDDP_CEP_CONNECTING:
		rddp_mpa_connecting(cep);
		return;
	case RDDP_CEP_AWAIT_REPLY:
	case RDDP_CEP_AWAIT_REQUEST:
		rddp_mpa_frame_event(cep);
		return;
	case RDDP_CEP_AWAIT_ACCEPT:
		/* The peer gave up before the ULP answered. */
		if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED)
			cep->up->fail(cep, -ECONNRESET);
		return;
	default:
		return;
	}
}

static void rddp_mpa_cm_timeout(struct rddp_cep *cep)
{
	cep->up->fail(cep, -ETIMEDOUT);
}

/* The private data a ULP may send: RFC 6581 §9.1.1 takes 4 octets. */
static u16 rddp_mpa_pd_max(const struct rddp_settings *set)
{
	return set->mpa_rev == 2 ? RDDP_MPA_PD_MAX - RDDP_MPA_V2_DATA_LEN :
				   RDDP_MPA_PD_MAX;
}

const struct rddp_cm_transport rddp_cm_mpa = {
	.name = "TCP",
	.transport = RDDP_TRANSPORT_TCP,
	.llp = &rddp_llp_mpa,
	.cep_size = sizeof(struct rddp_mpa_cep),
	.listen_always = true,
	.pd_max = rddp_mpa_pd_max,
	.listen = rddp_mpa_listen,
	.accept_one = rddp_mpa_accept_one,
	.connect = rddp_mpa_connect,
	.setup_event = rddp_mpa_setup_event,
	.timeout = rddp_mpa_cm_timeout,
	.accept = rddp_mpa_accept,
	.reject = rddp_mpa_reject,
};
