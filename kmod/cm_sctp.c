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
 *               or the peer's Initiate (active/active, §3.5): QP to RTS
 *               once ours is acknowledged, CONNECT_REPLY; or Terminate:
 *               CONNECT_REPLY -ECONNREFUSED (§3.4). A Negotiate needs no
 *               answer: our Initiate ends the negotiation.
 * Passive side: listener accepts the association -> the peer's indication
 *               -> Negotiate*, each answered with an empty Negotiate
 *               (§3.3: nothing to negotiate) -> Initiate ->
 *               CONNECT_REQUEST -> iw_accept: Accept, QP to RTS,
 *               ESTABLISHED; or iw_reject: Terminate (no private data: the
 *               draft's Terminate carries none), SHUTDOWN.
 * Zero-length private data in an Initiate or Accept (§2.2.3) stands for
 * RDDP_SCTP_IRD_ORD_DEFAULT (1) as IRD and ORD.
 *
 * §3.6: none of our Session Control messages goes out before SCTP
 * acknowledged the previous one, nor our first DDP Segment before our
 * Initiate (rddp_sctp_cm_wait_acked()).
 *
 * How setup ends when it fails, each with a log line naming the section
 * and the attempt counted as a failure:
 *  - an association whose peer did not indicate DDP+RDMA (§4.1, §8.1):
 *    without the indication, or DDP alone (rddp needs RDMAP): ABORT, as
 *    no DDP procedure may run on it;
 *  - a message out of §3's sequences (§3.1), such as a Segment or an
 *    Accept before any Initiate, a malformed chunk, an impossible DDP-SSN,
 *    an Initiate whose private data rddp cannot read, or a peer that does
 *    not finish setup in time: the session MUST be terminated (§3.1): our
 *    session Terminate, then SCTP's graceful SHUTDOWN, so that the peer
 *    learns the session ended (an ABORT would end every DDP Stream the
 *    association could carry, §5, §8.3).
 * The active side learns these as CONNECT_REPLY -ECONNREFUSED (a timeout:
 * -ETIMEDOUT).
 * The active side may send Segments once SCTP acknowledged its Initiate
 * (§3.6; rddp's waits for the Accept): the passive side leaves what
 * follows the Initiate in the socket for the QP's stream.
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

#include "cep.h"
#include "llp.h"
#include "sctp_link.h"

/**
 * struct rddp_sctp_cep - an endpoint setting up a DDP Stream Session
 * @cep: the CM's endpoint; first, so that the CM allocates and frees the
 *	whole (rddp_cm_sctp.cep_size)
 * @comm_up: SCTP_COMM_UP seen
 * @peer_ali: the peer indicated DDP+RDMA (§4.1)
 * @graceful: ended by our Terminate or SHUTDOWN: no ABORT at close
 * @link: the association's DDP Stream (sctp_link.h), until handed to the
 *	QP's stream at RTS (rddp_sctp_cm_hand_over())
 * @peer_conn: the Initiate's or Accept's IRD/ORD
 */
struct rddp_sctp_cep {
	struct rddp_cep cep;
	bool comm_up;
	bool peer_ali;
	bool graceful;
	struct rddp_sctp_link *link;
	struct rddp_sctp_conn peer_conn;
};

static_assert(offsetof(struct rddp_sctp_cep, cep) == 0);
static_assert(RDDP_SCTP_ULP_PD_MAX <= RDDP_CEP_PD_MAX);

static struct rddp_sctp_cep *to_sctp_cep(struct rddp_cep *cep)
{
	return container_of(cep, struct rddp_sctp_cep, cep);
}

/* The peer's IRD/ORD prefix and ULP private data (wire-sctp.md). */
#define RDDP_SCTP_CONN_PD_MAX	(RDDP_SCTP_IRD_ORD_LEN + RDDP_SCTP_ULP_PD_MAX)

/* Why a setup is refused, for the log (draft-ietf-rddp-sctp-00's sections). */
static const char rddp_sctp_why_no_ali[] =
	"the peer did not indicate DDP+RDMA adaptation (draft-ietf-rddp-sctp §4.1)";

/* Messages one run of the CM work reads before a pending timeout is seen. */
#define RDDP_SCTP_CM_BUDGET	64

/* Refuse the setup: -ECONNREFUSED for iw_cm (active side), why in the log. */
static int rddp_sctp_cm_refuse(struct rddp_cep *cep, const char *why)
{
	/* The peer writes this line: rate-limited. */
	pr_info_ratelimited("rddp: SCTP %s refused: %s\n",
			    cep->active ? "connection" : "association", why);
	return -ECONNREFUSED;
}

/*
 * §3.6: a Session Control message MUST NOT be sent if it may be received
 * before our previous one, and an active side's first DDP Segment not
 * before its Initiate, "determined by SCTP acking". Chunks are unordered
 * (§7), so wait until SCTP has every chunk we sent acknowledged: during
 * setup we send Session Control only, and SCTP charges each chunk to
 * sk_wmem_queued until the SACK that frees it (sctp_wfree()), which wakes
 * the socket's wait queue. Bounded by the socket's send timeout (the
 * setup bound, rddp_setup_timeout()); the association's end stops it too.
 * Sleeps; caller holds cep->lock and owns the socket.
 */
static bool rddp_sctp_cm_acked(struct sock *sk)
{
	return !READ_ONCE(sk->sk_wmem_queued) ||
	       READ_ONCE(sk->sk_state) != SCTP_SS_ESTABLISHED;
}

static int rddp_sctp_cm_wait_acked(struct rddp_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	long left;

	left = wait_event_interruptible_timeout(*sk_sleep(sk),
						rddp_sctp_cm_acked(sk),
						sk->sk_sndtimeo);
	if (left < 0)
		return -EINTR;
	if (READ_ONCE(sk->sk_state) != SCTP_SS_ESTABLISHED)
		return -ECONNRESET;
	return READ_ONCE(sk->sk_wmem_queued) ? -ETIMEDOUT : 0;
}

/* One of our Session Control messages during setup, in §3.6's order. */
static int rddp_sctp_cm_send(struct rddp_cep *cep, u16 fc, const u8 *pd,
			     u32 pd_len)
{
	struct rddp_sctp_link *l = to_sctp_cep(cep)->link;
	int ret = 0;

	if (l->tx_ssn != RDDP_SCTP_SSN_FIRST)	/* one went before */
		ret = rddp_sctp_cm_wait_acked(cep);
	if (!ret)
		ret = rddp_sctp_send_ctrl(l, fc, pd, pd_len, true);
	return ret;
}

/**
 * enum rddp_sctp_cm_end - how a failed setup ends (rddp_sctp_cm_fail())
 * @RDDP_SCTP_CM_ABORT: ABORT the association: no DDP procedure may run on
 *	it (§4.1, §8.1), or it is gone or failed locally
 * @RDDP_SCTP_CM_SHUTDOWN: SCTP's graceful SHUTDOWN alone: no session began,
 *	and a negotiation-only session "does not have to proceed" (§3.3)
 * @RDDP_SCTP_CM_TERMINATE: our session Terminate, then SHUTDOWN: §3.1 (a
 *	session out of every legal sequence MUST be terminated), §3.4 (a
 *	refused Initiate is answered with one)
 */
enum rddp_sctp_cm_end {
	RDDP_SCTP_CM_ABORT,
	RDDP_SCTP_CM_SHUTDOWN,
	RDDP_SCTP_CM_TERMINATE,
};

/*
 * End a setup that failed with @status, as @end says, on an association
 * that speaks DDP+RDMA (the peer's indication seen) and is up; any other
 * is ABORTed, as is one whose Terminate cannot be sent. The peer learns
 * that the session ended where an ABORT would end every DDP Stream the
 * association could carry (§5, §8.3). Caller holds cep->lock.
 */
static void rddp_sctp_cm_fail(struct rddp_cep *cep, int status,
			      enum rddp_sctp_cm_end end)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);
	bool up = sc->link && cep->sock && sc->comm_up && sc->peer_ali &&
		  cep->sock->sk->sk_state == SCTP_SS_ESTABLISHED;

	if (up && end == RDDP_SCTP_CM_TERMINATE &&
	    rddp_sctp_cm_send(cep, RDDP_SCTP_FC_TERMINATE, NULL, 0))
		end = RDDP_SCTP_CM_ABORT;
	if (up && end != RDDP_SCTP_CM_ABORT) {
		rddp_sctp_drop_unread(sc->link);	/* else close ABORTs */
		sc->graceful = true;
	}
	cep->up->fail(cep, status);
}

/*
 * The setup timer (cm.c): a peer that did not finish setup in time (or a
 * ULP that did not answer). A session that began (an Initiate either way)
 * gets our Terminate; one that never got past negotiation, SHUTDOWN alone.
 */
static void rddp_sctp_cm_timeout(struct rddp_cep *cep)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);
	const struct rddp_sctp_sess *s = sc->link ? &sc->link->sess : NULL;
	bool began = s && (s->tx != RDDP_SCTP_PHASE_NEGOTIATE ||
			   s->rx != RDDP_SCTP_PHASE_NEGOTIATE);
	u32 unread = cep->sock ? skb_queue_len(&cep->sock->sk->sk_receive_queue) : 0;

	/*
	 * What was still queued says whether the peer was slow or we did
	 * not read what it sent (a wake-up lost): a well-behaved peer's
	 * session, refused so twice on loaded test hosts, is not explained.
	 */
	if (sc->comm_up)
		pr_info_ratelimited("rddp: SCTP %s refused: %s (%s adaptation indication, %u messages unread)\n",
				    cep->active ? "connection" : "association",
				    "session setup not finished in time (draft-ietf-rddp-sctp §3.1)",
				    sc->peer_ali ? "with" : "no", unread);
	rddp_sctp_cm_fail(cep, -ETIMEDOUT,
			  began ? RDDP_SCTP_CM_TERMINATE : RDDP_SCTP_CM_SHUTDOWN);
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
static void rddp_sctp_bind_more(struct rddp_device *rdev, struct socket *sock,
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

/* The endpoint's socket is bound: §4.2's other addresses, if multihomed. */
static void rddp_sctp_cm_bound(struct rddp_cep *cep, struct socket *sock,
			       const struct sockaddr_storage *laddr)
{
	if (cep->settings.multihome)
		rddp_sctp_bind_more(cep->rdev, sock, laddr);
}

/*
 * A listening SCTP socket for @id on @addr: one address, never the
 * wildcard (listen_per_address: the CM asks once per address of the
 * netdev), and the others of the namespace too when multihomed (§4.2).
 */
static int rddp_sctp_cm_listen(struct rddp_cep *cep, struct iw_cm_id *id,
			       struct sockaddr_storage *addr, int backlog,
			       struct socket **sockp)
{
	struct socket *sock;
	int ret;

	ret = rddp_sctp_sock_create(dev_net(cep->rdev->netdev),
				    addr->ss_family, &sock);
	if (ret)
		return ret;
	if (addr->ss_family == AF_INET6 && id->afonly)
		ip6_sock_set_v6only(sock->sk);
	ret = kernel_bind(sock, (struct sockaddr *)addr, rddp_addr_len(addr));
	if (!ret)
		rddp_sctp_cm_bound(cep, sock, addr);
	if (!ret)
		ret = kernel_listen(sock, backlog);
	if (ret) {
		sock_release(sock);
		return ret;
	}
	*sockp = sock;
	return 0;
}

/* ---- active side ---- */

static int rddp_sctp_cm_connect(struct rddp_cep *cep, struct iw_cm_id *id,
				struct sockaddr_storage *laddr,
				struct sockaddr_storage *raddr)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);
	struct socket *sock;
	int ret;

	sc->link = rddp_sctp_link_alloc();
	if (!sc->link)
		return -ENOMEM;
	sc->link->rdev = cep->rdev;
	ret = rddp_sctp_sock_create(dev_net(cep->rdev->netdev),
				    raddr->ss_family, &sock);
	if (ret == -EPROTONOSUPPORT || ret == -ESOCKTNOSUPPORT)
		pr_info_ratelimited("rddp: %s: transport sctp, but this kernel has no SCTP (sctp.ko)\n",
				    dev_name(&cep->rdev->ibdev.dev));
	if (ret)
		return ret;
	sock->sk->sk_sndtimeo = rddp_setup_timeout();
	ret = cep->up->bind_connect(cep, id, sock, laddr, raddr);
	if (!ret)
		sc->link->sock = sock;
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
	      rddp_sctp_cm_send(cep, RDDP_SCTP_FC_INITIATE, buf, len);
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
	ret = cep->up->go_rts(cep, &p);
	if (ret)
		return ret;
	cep->up->deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY, 0, cep->pd,
			 pd_len, NULL);
	return 1;
}

/*
 * §3.5, active/active: the peer's Initiate to our iw_connect. Each side
 * viewed itself as active and neither sends an Accept: the session is up
 * once both Initiates are out. Ours may still be to send (the peer's came
 * with the association's start). The peer's may have crossed ours, so it
 * answers nothing: our first Segment waits until SCTP acknowledged our
 * Initiate (§3.6). Then as for an Accept: the peer's IRD/ORD (RFC 6581
 * §9.1.1's rules, both sides computing the same from the two Initiates)
 * and its private data for CONNECT_REPLY.
 */
static int rddp_sctp_cm_both_active(struct rddp_cep *cep,
				    const struct rddp_sctp_conn *conn)
{
	int ret = 0;

	if (cep->state == RDDP_CEP_CONNECTING)
		ret = rddp_sctp_cm_initiate(cep);
	if (!ret)
		ret = rddp_sctp_cm_wait_acked(cep);
	if (ret)
		return ret;
	pr_debug("rddp: SCTP active/active session set up (draft-ietf-rddp-sctp §3.5)\n");
	return rddp_sctp_cm_got_accept(cep, conn);
}

/* §3.4: the peer's Terminate answers our Initiate: rejected. */
static int rddp_sctp_cm_rejected(struct rddp_cep *cep)
{
	struct iw_cm_id *id = cep->cm_id;

	cep->up->deliver(cep, id, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
			 NULL, 0, cep->sock);
	id->rem_ref(id);
	cep->cm_id = NULL;
	cep->up->fail(cep, 0);
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
static bool rddp_sctp_cm_accept_ready(struct rddp_cep *lcep)
{
	struct sock *sk = lcep->sock->sk;
	bool ready;

	lock_sock(sk);
	ready = !list_empty(&sctp_sk(sk)->ep->asocs);
	release_sock(sk);
	return ready;
}

static int rddp_sctp_cm_accept_one(struct rddp_cep *cep)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);

	sc->link = rddp_sctp_link_alloc();
	if (!sc->link)
		return -ENOMEM;
	sc->link->rdev = cep->rdev;
	sc->link->sock = cep->sock;
	/* the listener's settings are the association's; ours, to be sure */
	return rddp_sctp_sock_setup(cep->sock);
}

/* §3.2: the peer's Initiate: a connection request for the ULP. */
static int rddp_sctp_cm_got_initiate(struct rddp_cep *cep,
				     const struct rddp_sctp_conn *conn)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);

	sc->peer_conn = *conn;
	cep->pd_len = conn->ulp_len;
	if (cep->pd_len)
		memcpy(cep->pd, conn->ulp, cep->pd_len);
	sc->peer_conn.ulp = cep->pd;
	cep->up->got_request(cep, cep->pd, cep->pd_len, conn->ird, conn->ord);
	return 1;
}

static int rddp_sctp_cm_accept(struct rddp_cep *cep,
			       struct iw_cm_conn_param *param)
{
	u16 peer_ird = to_sctp_cep(cep)->peer_conn.ird;
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
	p.ord = clamp_t(u16, min_t(u16, param->ord, peer_ird), 1, RDDP_MAX_ORD);
	buf = kmalloc(RDDP_SCTP_CONN_PD_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = rddp_sctp_conn_build(p.ird, p.ord, param->private_data,
				   param->private_data_len, buf,
				   RDDP_SCTP_CONN_PD_MAX);
	ret = len < 0 ? -EINVAL :
	      rddp_sctp_cm_send(cep, RDDP_SCTP_FC_ACCEPT, buf, len);
	kfree(buf);
	if (ret)
		return ret;
	qp->ird = p.ird;
	qp->ord = p.ord;
	return cep->up->go_rts(cep, &p);
}

/*
 * §3.4: a Terminate answers the Initiate; the ULP's data (@pd) cannot go
 * with it: the draft's Terminate carries none.
 */
static int rddp_sctp_cm_reject(struct rddp_cep *cep, const void *pd,
			       u8 pd_len)
{
	int ret;

	ret = rddp_sctp_cm_send(cep, RDDP_SCTP_FC_TERMINATE, NULL, 0);
	/* so that close is graceful */
	rddp_sctp_drop_unread(to_sctp_cep(cep)->link);
	return ret;
}

/* ---- reading the association during setup ---- */

/* Initiate or Accept: the IRD/ORD prefix, then what setup asks (@what). */
static int rddp_sctp_cm_conn(struct rddp_cep *cep,
			     const struct rddp_sctp_chunk *c, int what)
{
	struct rddp_sctp_conn conn;
	enum rddp_sctp_err err;

	/* §2.2.3: zero-length private data: rddp's defaults (sctp.h) */
	err = rddp_sctp_conn_parse(c->pd, c->pd_len, &conn);
	if (err != RDDP_SCTP_OK)
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[err]);
	if (what == RDDP_SCTP_SETUP_REQUEST)
		return rddp_sctp_cm_got_initiate(cep, &conn);
	if (what == RDDP_SCTP_SETUP_BOTH_ACTIVE)
		return rddp_sctp_cm_both_active(cep, &conn);
	return rddp_sctp_cm_got_accept(cep, &conn);
}

/* One of the peer's messages during setup, in DDP-SSN order (§3). */
static int rddp_sctp_cm_deliver(void *ctx, const struct rddp_sctp_chunk *c)
{
	struct rddp_cep *cep = ctx;
	int what;

	what = rddp_sctp_setup_rx(&to_sctp_cep(cep)->link->sess, cep->active,
				  c->msg);
	if (what < 0)	/* §3.1: a Segment before any Initiate, and the like */
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[-what]);
	switch (what) {
	case RDDP_SCTP_SETUP_NONE:
		return 0;
	case RDDP_SCTP_SETUP_NEGOTIATE:
		/*
		 * §3.3: iw_cm has no negotiation to report the peer's private
		 * data to, nor anything to answer with: a round with nothing
		 * to negotiate lets the peer go on to its Initiate.
		 */
		return rddp_sctp_cm_send(cep, RDDP_SCTP_FC_NEGOTIATE, NULL, 0);
	case RDDP_SCTP_SETUP_REJECTED:
		return rddp_sctp_cm_rejected(cep);
	default:	/* REQUEST, ACCEPTED, BOTH_ACTIVE */
		return rddp_sctp_cm_conn(cep, c, what);
	}
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
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);
	u32 ind;

	if (len < sizeof(n->sn_header))
		return 0;
	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		if (len < sizeof(n->sn_assoc_change))
			return 0;
		if (n->sn_assoc_change.sac_state == SCTP_COMM_UP) {
			sc->comm_up = true;
			return 0;
		}
		/* CANT_STR_ASSOC, COMM_LOST, SHUTDOWN_COMP, RESTART */
		return sc->comm_up ? -ECONNRESET : -ECONNREFUSED;
	case SCTP_ADAPTATION_INDICATION:
		if (len < sizeof(n->sn_adaptation_event))
			return 0;
		ind = n->sn_adaptation_event.sai_adaptation_ind;
		sc->peer_ali = rddp_sctp_ali_mode(RDDP_SCTP_ALI_DDP_RDMA, ind) ==
			       RDDP_SCTP_MODE_DDP_RDMA;
		return sc->peer_ali ? 0 : rddp_sctp_cm_no_ali(cep);
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
	if (!to_sctp_cep(cep)->comm_up)
		return 0;	/* still setting up the association */
	if (!to_sctp_cep(cep)->peer_ali)
		return rddp_sctp_cm_no_ali(cep);
	if (cep->state == RDDP_CEP_CONNECTING)
		return rddp_sctp_cm_initiate(cep);
	return 0;
}

/* One message; 1 when setup ended or handed the socket over. */
static int rddp_sctp_cm_read_one(struct rddp_cep *cep)
{
	struct rddp_sctp_link *l = to_sctp_cep(cep)->link;
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
	if (!to_sctp_cep(cep)->peer_ali)
		return rddp_sctp_cm_no_ali(cep);
	if (!(flags & MSG_EOR))
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[RDDP_SCTP_ERR_TOO_LONG]);
	if (sid != RDDP_SCTP_SID)	/* §5: one DDP Stream (sctp_link.h) */
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[RDDP_SCTP_ERR_STREAM]);
	if (l->rx_ordered)		/* §7: U=1 on every chunk */
		return rddp_sctp_cm_refuse(cep, rddp_sctp_err_names[RDDP_SCTP_ERR_ORDERED]);
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
static void rddp_sctp_cm_setup_event(struct rddp_cep *cep)
{
	int i, ret = 0;

	if (cep->state == RDDP_CEP_AWAIT_ACCEPT) {
		/*
		 * What follows the Initiate stays queued for the QP's stream:
		 * §3.6 lets the active side send Segments before our Accept.
		 * Only the association's end matters here.
		 */
		if (cep->sock->sk->sk_state != SCTP_SS_ESTABLISHED)
			cep->up->fail(cep, -ECONNRESET);
		return;
	}
	for (i = 0; !ret && i < RDDP_SCTP_CM_BUDGET; i++)
		ret = rddp_sctp_cm_read_one(cep);
	if (!ret) {
		/*
		 * A peer that keeps negotiating: the work's loop comes back
		 * here, after a timeout that fired meanwhile (its work may
		 * need this CPU to run).
		 */
		cond_resched();
		set_bit(RDDP_CEP_EV_SOCK, &cep->events);
		return;
	}
	/* A refusal ends the session (§3.1); the association's end, not. */
	if (ret < 0)
		rddp_sctp_cm_fail(cep, ret, ret == -ECONNREFUSED ?
				  RDDP_SCTP_CM_TERMINATE : RDDP_SCTP_CM_ABORT);
}

/*
 * The end of a setup that failed (@sock, detached, about to be closed, or
 * NULL) and of the endpoint (no socket, status 0): an association ended
 * abortively is ABORTed rather than shut down, unless our Terminate or
 * SHUTDOWN ended it (rddp_sctp_cm_fail()); what the link holds is charged
 * to the socket, so it goes first (sctp_link.h).
 */
static void rddp_sctp_cm_release(struct rddp_cep *cep, struct socket *sock,
				 int status)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);

	if (sock && status && !sc->graceful)
		sock_no_linger(sock->sk);	/* ABORT the association */
	rddp_sctp_link_free(sc->link);
	sc->link = NULL;
}

/*
 * RTS: the link goes with the socket to the QP's stream (@to_stream), or
 * back to the endpoint when the QP refused it.
 */
static void rddp_sctp_cm_hand_over(struct rddp_cep *cep,
				   struct rddp_stream *s, bool to_stream)
{
	struct rddp_sctp_cep *sc = to_sctp_cep(cep);

	if (to_stream) {
		s->sctp = sc->link;
		sc->link = NULL;
	} else {
		sc->link = s->sctp;
		s->sctp = NULL;
	}
}

/* The ULP's private data, as over MPA (wire-sctp.md). */
static u16 rddp_sctp_cm_pd_max(const struct rddp_settings *set)
{
	return RDDP_SCTP_ULP_PD_MAX;
}

const struct rddp_cm_transport rddp_cm_sctp = {
	.name = "SCTP",
	.transport = RDDP_TRANSPORT_SCTP,
	.llp = &rddp_llp_sctp,
	.cep_size = sizeof(struct rddp_sctp_cep),
	.listen_per_address = true,
	.pd_max = rddp_sctp_cm_pd_max,
	.listen = rddp_sctp_cm_listen,
	.accept_ready = rddp_sctp_cm_accept_ready,
	.accept_one = rddp_sctp_cm_accept_one,
	.connect = rddp_sctp_cm_connect,
	.bound = rddp_sctp_cm_bound,
	.setup_event = rddp_sctp_cm_setup_event,
	.timeout = rddp_sctp_cm_timeout,
	.accept = rddp_sctp_cm_accept,
	.reject = rddp_sctp_cm_reject,
	.release = rddp_sctp_cm_release,
	.hand_over = rddp_sctp_cm_hand_over,
};
