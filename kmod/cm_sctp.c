// SPDX-License-Identifier: GPL-2.0
/*
 * Connection setup over SCTP (draft-ietf-rddp-sctp-00, "SCTP RDMA/DDP
 * Adaptation"; Documentation/wire-sctp.md): iw_cm's calls mapped onto a
 * DDP Stream Session (§3) on a one-to-one SCTP association, with the
 * endpoint, timer and hand-over of cm.c.
 *
 * Active side:  iw_connect -> SCTP INIT with our Adaptation Layer
 *               Indication (DDP+RDMA, §4.1) -> COMM_UP and the peer's
 *               indication -> Initiate (DDP-SSN 1: IRD/ORD prefix and the
 *               ULP's private data) -> Accept: QP to RTS, CONNECT_REPLY;
 *               or Terminate: CONNECT_REPLY -ECONNREFUSED (§3.4).
 * Passive side: listener accepts the association -> the peer's indication
 *               -> Initiate -> CONNECT_REQUEST -> iw_accept: Accept, QP to
 *               RTS, ESTABLISHED; or iw_reject: Terminate (no private
 *               data: the draft's Terminate carries none), SHUTDOWN.
 *
 * What rddp refuses, each with a log line naming the section, the
 * association aborted and the attempt counted as a failure:
 *  - an association whose peer did not indicate DDP+RDMA (§4.1, §8.1):
 *    without the indication, or DDP alone (rddp needs RDMAP);
 *  - a Negotiate (§3.3): rddp has nothing to negotiate before Initiate;
 *  - active/active setup (§3.5), the peer's Initiate after ours: iw_cm
 *    has one active and one passive side per connection;
 *  - any message out of §3's sequences (§3.1), such as a Segment before
 *    the peer's Initiate or Accept.
 * The active side may send Segments once SCTP acknowledged its Initiate
 * (§3.6; rddp's waits for the Accept): the passive side leaves what
 * follows the Initiate in the socket for the QP's stream.
 * The active side learns these as CONNECT_REPLY -ECONNREFUSED, or
 * -EOPNOTSUPP for what the draft allows and rddp does not do (§3.3, §3.5).
 *
 * Chunks are unordered (§7): one of the peer's later chunks may come
 * before its Initiate or Accept. The link's window (sctp_link.h) holds it
 * and the QP's stream receives it, in DDP-SSN order, once at RTS.
 */
#include <linux/inetdevice.h>
#include <linux/sctp.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/sctp/constants.h>
#include <net/sctp/sctp.h>
#include <net/sock.h>

#include "cm_priv.h"
#include "sctp_link.h"

/* The peer's IRD/ORD prefix and ULP private data (wire-sctp.md). */
#define RDDP_SCTP_CONN_PD_MAX	(RDDP_SCTP_IRD_ORD_LEN + RDDP_SCTP_ULP_PD_MAX)

/* Why a setup is refused, for the log (draft-ietf-rddp-sctp-00's sections). */
static const char rddp_sctp_why_no_ali[] =
	"the peer did not indicate DDP+RDMA adaptation (draft-ietf-rddp-sctp §4.1)";
static const char rddp_sctp_why_negotiate[] =
	"Negotiate is not supported (draft-ietf-rddp-sctp §3.3)";
static const char rddp_sctp_why_active_active[] =
	"active/active setup is not supported (draft-ietf-rddp-sctp §3.5)";

/* Refuse the setup: @err for iw_cm (active side), the reason in the log. */
static int rddp_sctp_cm_refuse_err(struct rddp_cep *cep, const char *why,
				   int err)
{
	/* The peer writes this line: rate-limited. */
	pr_info_ratelimited("rddp: SCTP %s refused: %s\n",
			    cep->active ? "connection" : "association", why);
	return err;
}

static int rddp_sctp_cm_refuse(struct rddp_cep *cep, const char *why)
{
	return rddp_sctp_cm_refuse_err(cep, why, -ECONNREFUSED);
}

/* ---- multihoming (draft-ietf-rddp-sctp §4.2) ---- */

/* The addresses a multihomed socket adds to its first one, at most. */
#define RDDP_SCTP_MH_ADDRS	16

static bool rddp_sctp_mh_dev(const struct net_device *dev)
{
	return (dev->flags & IFF_UP) && !(dev->flags & IFF_LOOPBACK);
}

/* @net's IPv4 addresses on up, non-loopback devices, but @skip. RCU. */
static int rddp_sctp_mh_addrs4(struct net *net, __be32 skip,
			       struct sockaddr_in6 *out)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	struct net_device *dev;
	struct sockaddr_in *sin;
	int n = 0;

	for_each_netdev_rcu(net, dev) {
		in_dev = __in_dev_get_rcu(dev);
		if (!rddp_sctp_mh_dev(dev) || !in_dev)
			continue;
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (n == RDDP_SCTP_MH_ADDRS || ifa->ifa_local == skip)
				continue;
			sin = (struct sockaddr_in *)&out[n++];
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = ifa->ifa_local;
		}
	}
	return n;
}

/*
 * @net's usable IPv6 addresses but @skip: global scope only (a link-local
 * one needs its device's scope, which the peer's INIT cannot carry). RCU.
 */
static int rddp_sctp_mh_addrs6(struct net *net, const struct in6_addr *skip,
			       struct sockaddr_in6 *out)
{
	const u32 flags = IFA_F_TENTATIVE | IFA_F_DEPRECATED;
	const int types = IPV6_ADDR_LINKLOCAL | IPV6_ADDR_LOOPBACK;
	struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;
	struct net_device *dev;
	int n = 0;

	for_each_netdev_rcu(net, dev) {
		idev = __in6_dev_get(dev);
		if (!rddp_sctp_mh_dev(dev) || !idev)
			continue;
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (n == RDDP_SCTP_MH_ADDRS || (ifp->flags & flags) ||
			    (ipv6_addr_type(&ifp->addr) & types) ||
			    ipv6_addr_equal(&ifp->addr, skip))
				continue;
			out[n].sin6_family = AF_INET6;
			out[n++].sin6_addr = ifp->addr;
		}
		read_unlock_bh(&idev->lock);
	}
	return n;
}

/*
 * Multihoming, draft-ietf-rddp-sctp §4.2 (the device's `multihome`
 * setting): @sock, bound to @bound (the device's address, the one the
 * ULP's cm_id names) but neither connected nor listening yet, also binds
 * every other usable address of its network namespace in its family, as
 * sctp_bindx(SCTP_BINDX_ADD_ADDR) does. Its INIT or INIT ACK then lists
 * them all (RFC 4960 §3.3.2), and SCTP moves the association to another
 * path when the primary fails. The port is @bound's (0 in each address:
 * SCTP keeps the socket's port). Best effort: an address that cannot be
 * bound is logged and left out, the socket keeps the others. Sleeps (the
 * socket lock); the caller owns @sock alone. Loopback devices, devices
 * that are down and IPv6 link-local addresses are left out.
 */
void rddp_sctp_bind_more(struct rddp_device *rdev, struct socket *sock,
			 const struct sockaddr_storage *bound)
{
	const struct sockaddr_in6 *b6 = (const void *)bound;
	const struct sockaddr_in *b4 = (const void *)bound;
	struct net *net = dev_net(rdev->netdev);
	struct sockaddr_in6 *addrs;
	int i, n, len, ret;

	addrs = kcalloc(RDDP_SCTP_MH_ADDRS, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return;
	rcu_read_lock();
	n = bound->ss_family == AF_INET ?
	    rddp_sctp_mh_addrs4(net, b4->sin_addr.s_addr, addrs) :
	    rddp_sctp_mh_addrs6(net, &b6->sin6_addr, addrs);
	rcu_read_unlock();
	len = bound->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	for (i = 0; i < n; i++) {
		ret = sock->ops->setsockopt(sock, SOL_SCTP,
					    SCTP_SOCKOPT_BINDX_ADD,
					    KERNEL_SOCKPTR(&addrs[i]), len);
		if (ret)
			pr_info_ratelimited("rddp: %s: SCTP multihoming: %pISc not bound: %d\n",
					    dev_name(&rdev->ibdev.dev),
					    &addrs[i], ret);
	}
	kfree(addrs);
}

/* ---- active side ---- */

int rddp_sctp_cm_connect(struct rddp_cep *cep, struct iw_cm_id *id,
			 struct sockaddr_storage *laddr,
			 struct sockaddr_storage *raddr)
{
	struct socket *sock;
	int ret;

	cep->link = rddp_sctp_link_alloc();
	if (!cep->link)
		return -ENOMEM;
	cep->link->rdev = cep->rdev;
	ret = rddp_sctp_sock_create(dev_net(cep->rdev->netdev),
				    raddr->ss_family, &sock);
	if (ret == -EPROTONOSUPPORT || ret == -ESOCKTNOSUPPORT)
		pr_info_ratelimited("rddp: %s: transport sctp, but this kernel has no SCTP (sctp.ko)\n",
				    dev_name(&cep->rdev->ibdev.dev));
	if (ret)
		return ret;
	sock->sk->sk_sndtimeo = rddp_mpa_timeout();
	ret = rddp_cep_bind_connect(cep, id, sock, laddr, raddr);
	if (!ret)
		cep->link->sock = sock;
	return ret;
}

/* §3.2: the Initiate, DDP-SSN 1, with IRD/ORD and the ULP's private data. */
static int rddp_sctp_cm_initiate(struct rddp_cep *cep)
{
	u8 *buf = kmalloc(RDDP_SCTP_CONN_PD_MAX, GFP_KERNEL);
	int len, ret;

	if (!buf)
		return -ENOMEM;
	len = rddp_sctp_conn_build(cep->ird, cep->ord, cep->pd, cep->pd_len,
				   buf, RDDP_SCTP_CONN_PD_MAX);
	ret = len < 0 ? -EINVAL :
	      rddp_sctp_send_ctrl(cep->link, RDDP_SCTP_FC_INITIATE, buf, len,
				  true);
	kfree(buf);
	if (!ret)
		cep->state = RDDP_CEP_AWAIT_REPLY;
	return ret;
}

/* §3.2: the Accept; RFC 6581 §9.1.1's rules for IRD and ORD. */
static int rddp_sctp_cm_got_accept(struct rddp_cep *cep,
				   const struct rddp_sctp_conn *conn)
{
	struct rddp_stream_params p = { 0 };
	struct iw_cm_id *id = cep->cm_id;
	u16 pd_len = conn->ulp_len;
	int ret;

	p.tx_batch = cep->settings.tx_batch;
	p.peer_timeout_ms = cep->settings.peer_timeout_ms;
	p.ord = clamp_t(u16, min_t(u16, cep->ord, conn->ird), 1, RDDP_MAX_ORD);
	p.ird = clamp_t(u16, max_t(u16, cep->ird, conn->ord), 1, RDDP_MAX_IRD);
	/* The link is the stream's from RTS on: keep the data first. */
	if (pd_len)
		memcpy(cep->pd, conn->ulp, pd_len);
	ret = rddp_cep_go_rts(cep, &p);
	if (ret)
		return ret;
	rddp_cep_deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY, 0, cep->pd,
			 pd_len, NULL);
	return 1;
}

/* §3.4: the peer's Terminate answers our Initiate: rejected. */
static int rddp_sctp_cm_rejected(struct rddp_cep *cep)
{
	struct iw_cm_id *id = cep->cm_id;

	rddp_cep_deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
			 NULL, 0, cep->sock);
	id->rem_ref(id);
	cep->cm_id = NULL;
	rddp_cep_fail(cep, 0);
	return 1;
}

/* ---- passive side ---- */

/*
 * Whether the listening @sock has an association to accept: its
 * endpoint's list of associations, the one sctp_accept() takes from
 * (on a one-to-one socket that is listening, only those not yet
 * accepted are on it). Ask before every kernel_accept(): SCTP's
 * accept does not return at once when there is none, even without
 * blocking. Its wait (sctp_wait_for_accept(), Linux 6.1) then calls
 * schedule_timeout(0), which sleeps until the next timer tick unless
 * the socket's wait queue is woken, and nothing wakes it: the CM's
 * sk_data_ready only queues work (cm.c). The CM work that accepted
 * the last association thus slept a tick (10 ms at HZ=100) with the
 * listener's lock held, and an association that came meanwhile waited
 * for that tick: 7 ms of each rddp-bench connect on UML (9.1 ms
 * against 1.5 ms over TCP). An association that comes after this
 * answer queues the work again (its COMM_UP calls sk_data_ready).
 * Sleeps (the socket lock); the caller owns the listener.
 */
bool rddp_sctp_cm_accept_ready(struct socket *sock)
{
	struct sock *sk = sock->sk;
	bool ready;

	lock_sock(sk);
	ready = !list_empty(&sctp_sk(sk)->ep->asocs);
	release_sock(sk);
	return ready;
}

int rddp_sctp_cm_accept_one(struct rddp_cep *cep)
{
	cep->link = rddp_sctp_link_alloc();
	if (!cep->link)
		return -ENOMEM;
	cep->link->rdev = cep->rdev;
	cep->link->sock = cep->sock;
	/* the listener's settings are the association's; ours, to be sure */
	return rddp_sctp_sock_setup(cep->sock);
}

/* §3.2: the peer's Initiate: a connection request for the ULP. */
static int rddp_sctp_cm_got_initiate(struct rddp_cep *cep,
				     const struct rddp_sctp_conn *conn)
{
	cep->peer_conn = *conn;
	cep->pd_len = conn->ulp_len;
	if (cep->pd_len)
		memcpy(cep->pd, conn->ulp, cep->pd_len);
	cep->peer_conn.ulp = cep->pd;
	rddp_cep_got_request_event(cep, cep->pd, cep->pd_len, conn->ird,
				   conn->ord);
	return 1;
}

int rddp_sctp_cm_accept(struct rddp_cep *cep, struct iw_cm_conn_param *param)
{
	struct rddp_stream_params p = { 0 };
	struct rddp_qp *qp = cep->qp;
	int len, ret;
	u8 *buf;

	if (param->private_data_len > RDDP_SCTP_ULP_PD_MAX)
		return -EINVAL;
	p.tx_batch = cep->settings.tx_batch;
	p.peer_timeout_ms = cep->settings.peer_timeout_ms;
	p.ird = clamp_t(u16, param->ird, 1, RDDP_MAX_IRD);
	/* RFC 6581 §9.1.1: our ORD within the initiator's IRD */
	p.ord = clamp_t(u16, min_t(u16, param->ord, cep->peer_conn.ird), 1,
			RDDP_MAX_ORD);
	buf = kmalloc(RDDP_SCTP_CONN_PD_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = rddp_sctp_conn_build(p.ird, p.ord, param->private_data,
				   param->private_data_len, buf,
				   RDDP_SCTP_CONN_PD_MAX);
	ret = len < 0 ? -EINVAL :
	      rddp_sctp_send_ctrl(cep->link, RDDP_SCTP_FC_ACCEPT, buf, len,
				  true);
	kfree(buf);
	if (ret)
		return ret;
	qp->ird = p.ird;
	qp->ord = p.ord;
	return rddp_cep_go_rts(cep, &p);
}

/* §3.4: a Terminate answers the Initiate; the ULP's data cannot go with it. */
int rddp_sctp_cm_reject(struct rddp_cep *cep)
{
	int ret;

	ret = rddp_sctp_send_ctrl(cep->link, RDDP_SCTP_FC_TERMINATE, NULL, 0,
				  true);
	rddp_sctp_drop_unread(cep->link);	/* so that close is graceful */
	return ret;
}

/* ---- reading the association during setup ---- */

/* Initiate or Accept: the IRD/ORD prefix, then what the state expects. */
static int rddp_sctp_cm_conn(struct rddp_cep *cep,
			     const struct rddp_sctp_chunk *c)
{
	struct rddp_sctp_conn conn;
	enum rddp_sctp_err err;

	err = rddp_sctp_conn_parse(c->pd, c->pd_len, &conn);
	if (err != RDDP_SCTP_OK)
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[err]);
	if (c->msg == RDDP_SCTP_FC_INITIATE) {
		if (cep->active)	/* §3.5 */
			return rddp_sctp_cm_refuse_err(cep, rddp_sctp_why_active_active,
						       -EOPNOTSUPP);
		return rddp_sctp_cm_got_initiate(cep, &conn);
	}
	return rddp_sctp_cm_got_accept(cep, &conn);
}

/* One of the peer's messages during setup, in DDP-SSN order. */
static int rddp_sctp_cm_deliver(void *ctx, const struct rddp_sctp_chunk *c)
{
	struct rddp_cep *cep = ctx;
	enum rddp_sctp_err err;

	if (c->msg == RDDP_SCTP_FC_NEGOTIATE)
		return rddp_sctp_cm_refuse_err(cep, rddp_sctp_why_negotiate,
					       -EOPNOTSUPP);
	/* §3.1: a Segment before the peer's Initiate or Accept, and the like */
	err = rddp_sctp_sess_rx(&cep->link->sess, c->msg);
	if (err != RDDP_SCTP_OK)
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[err]);
	if (c->msg == RDDP_SCTP_FC_TERMINATE)
		return rddp_sctp_cm_rejected(cep);
	return rddp_sctp_cm_conn(cep, c);
}

static int rddp_sctp_cm_no_ali(struct rddp_cep *cep)
{
	return rddp_sctp_cm_refuse(cep, rddp_sctp_why_no_ali);
}

/* A notification: the association's start, the peer's indication, its end. */
static int rddp_sctp_cm_notification(struct rddp_cep *cep, const u8 *buf,
				     u32 len)
{
	const union sctp_notification *n = (const void *)buf;
	u32 ind;

	if (len < sizeof(n->sn_header))
		return 0;
	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		if (len < sizeof(n->sn_assoc_change))
			return 0;
		if (n->sn_assoc_change.sac_state == SCTP_COMM_UP) {
			cep->comm_up = true;
			return 0;
		}
		/* CANT_STR_ASSOC, COMM_LOST, SHUTDOWN_COMP, RESTART */
		return cep->comm_up ? -ECONNRESET : -ECONNREFUSED;
	case SCTP_ADAPTATION_INDICATION:
		if (len < sizeof(n->sn_adaptation_event))
			return 0;
		ind = n->sn_adaptation_event.sai_adaptation_ind;
		cep->peer_ali = rddp_sctp_ali_mode(RDDP_SCTP_ALI_DDP_RDMA, ind) ==
				RDDP_SCTP_MODE_DDP_RDMA;
		return cep->peer_ali ? 0 : rddp_sctp_cm_no_ali(cep);
	case SCTP_SHUTDOWN_EVENT:
		return -ECONNRESET;
	default:
		return 0;
	}
}

/*
 * Nothing more to read. SCTP queues COMM_UP and the peer's indication
 * together, under the socket lock, before anything else: once COMM_UP is
 * read with no indication after it, there is none (§4.1).
 */
static int rddp_sctp_cm_idle(struct rddp_cep *cep)
{
	if (!cep->comm_up)
		return 0;	/* still setting up the association */
	if (!cep->peer_ali)
		return rddp_sctp_cm_no_ali(cep);
	if (cep->state == RDDP_CEP_CONNECTING)
		return rddp_sctp_cm_initiate(cep);
	return 0;
}

/* One message; 1 when setup ended or handed the socket over. */
static int rddp_sctp_cm_read_one(struct rddp_cep *cep)
{
	struct rddp_sctp_link *l = cep->link;
	int flags = 0, n, ret;
	u32 ppid;
	u16 sid;

	n = rddp_sctp_recv(l, &ppid, &sid, &flags);
	if (n == -EAGAIN) {
		ret = rddp_sctp_cm_idle(cep);
		return ret ? ret : 1;
	}
	if (n < 0)
		return n;
	if (n == 0)
		return -ECONNRESET;
	if (flags & MSG_NOTIFICATION)
		return rddp_sctp_cm_notification(cep, l->buf, n);
	if (!cep->peer_ali)
		return rddp_sctp_cm_no_ali(cep);
	if (!(flags & MSG_EOR))
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[RDDP_SCTP_ERR_TOO_LONG]);
	if (sid != RDDP_SCTP_SID)	/* §5: one DDP Stream (sctp_link.h) */
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[RDDP_SCTP_ERR_STREAM]);
	ret = rddp_sctp_rx_chunk(l, ppid, n, rddp_sctp_cm_deliver, cep);
	if (ret == -EPROTO && l->err < RDDP_SCTP_LINK_ERR_END)
		/* malformed, an impossible DDP-SSN, or not to be held */
		return rddp_sctp_cm_refuse(cep, rddp_sctp_link_why(l->err));
	return ret;
}

/*
 * The CM work's socket event during setup (cm.c). Caller holds cep->lock.
 * Reads until the socket is empty or setup moves on: after the hand-over
 * to the QP (RTS) or a failure, nothing here touches the socket or link.
 */
void rddp_sctp_cm_setup_event(struct rddp_cep *cep)
{
	int ret = 0;

	if (cep->state == RDDP_CEP_AWAIT_ACCEPT) {
		/*
		 * What follows the Initiate stays queued for the QP's stream:
		 * §3.6 lets the active side send Segments before our Accept.
		 * Only the association's end matters here.
		 */
		if (cep->sock->sk->sk_state != SCTP_SS_ESTABLISHED)
			rddp_cep_fail(cep, -ECONNRESET);
		return;
	}
	while (!ret)
		ret = rddp_sctp_cm_read_one(cep);
	if (ret < 0)
		rddp_cep_fail(cep, ret);
}
