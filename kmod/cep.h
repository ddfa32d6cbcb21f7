/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection endpoint and the boundary between the transport-neutral
 * CM (cm.c: the iw_cm calls, endpoints, references, timers, events, the
 * hand-over to the QP) and each transport's connection setup below it, as
 * llp.h is for the data path:
 *
 *  - cm_mpa.c: MPA over TCP (RFC 5044 §7.1, RFC 6581), the iwpm mapping;
 *  - cm_sctp.c: DDP Stream Sessions over SCTP (draft-ietf-rddp-sctp-00
 *    §3): the association, the adaptation indication, Initiate, Accept
 *    and Terminate.
 *
 * The CM calls a transport through its table, struct rddp_cm_transport;
 * cm_transports.c lists the tables by the device's `transport` setting, so
 * a third transport is one file and one entry there. A transport calls the
 * CM back through what the CM gave each endpoint, cep->up (struct
 * rddp_cep_upcalls), never by name.
 *
 * Locking and lifetime are cm.c's (its header comment): every operation of
 * either table runs in process context with cep->lock held (the CM's work
 * or an iw_cm call), and may sleep; but listen, which runs before the
 * endpoint is shared, and release at the endpoint's free (the last
 * reference gone), which run without it. A
 * transport's state for one connection lives in the same allocation as
 * the endpoint (cep_size, struct rddp_cep first) and goes with it.
 */
#ifndef RDDP_CEP_H
#define RDDP_CEP_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <uapi/linux/rddp_netlink.h>

#include "cm.h"
#include "rddp.h"
#include "sk_hooks.h"
#include "stream.h"

struct rddp_cep;

/**
 * struct rddp_cep_upcalls - what the CM gives a transport's setup to call
 * back (cep->up, cm.c's rddp_cep_upcalls); each runs with cep->lock held
 * @bind_connect: bind @sock (created by the transport) to @laddr, give it
 *	to the endpoint and start connecting to @raddr, @id referenced; the
 *	transport's bound() runs between bind and connect. Takes @sock: on
 *	failure it is released or the endpoint's. Return: 0 or a negative
 *	errno
 * @deliver: deliver an iw_cm event of @type to @id, with private data
 *	@pd (@pd_len octets) and the addresses of @sock, or the endpoint's
 * @fail: end a connection attempt with the CM event it owes (status
 *	@status on the active side's CONNECT_REPLY) and close the socket
 * @got_request: the peer's request, to the listening cm_id, as
 *	CONNECT_REQUEST with @pd and the peer's @ird and @ord
 * @go_rts: hand the socket to the QP's stream with the negotiated @p: the
 *	QP reaches RTS. Return: 0 or a negative errno (the socket is still
 *	the endpoint's)
 */
struct rddp_cep_upcalls {
	int (*bind_connect)(struct rddp_cep *cep, struct iw_cm_id *id,
			    struct socket *sock, struct sockaddr_storage *laddr,
			    struct sockaddr_storage *raddr);
	void (*deliver)(struct rddp_cep *cep, struct iw_cm_id *id,
			enum iw_cm_event_type type, int status,
			const void *pd, u16 pd_len, struct socket *sock);
	void (*fail)(struct rddp_cep *cep, int status);
	void (*got_request)(struct rddp_cep *cep, const void *pd, u16 pd_len,
			    u16 ird, u16 ord);
	int (*go_rts)(struct rddp_cep *cep,
		      const struct rddp_stream_params *p);
};

/* Bound on the ULP's answer (accept/reject) to a connection request. */
#define RDDP_ACCEPT_TIMEOUT	(60 * HZ)
/* iw_cm_event.private_data_len is a u8. */
#define RDDP_EVENT_PD_MAX	255

/*
 * An endpoint's state. The names are the transports' common steps: a
 * transport's setup moves an endpoint between CONNECTING and AWAIT_ACCEPT
 * as its exchange goes; the CM moves it to LISTEN, CONNECTED and CLOSED.
 */
enum rddp_cep_state {
	RDDP_CEP_IDLE,
	RDDP_CEP_LISTEN,
	RDDP_CEP_CONNECTING,		/* active: the transport connects */
	RDDP_CEP_AWAIT_REPLY,		/* active: our request sent */
	RDDP_CEP_AWAIT_REQUEST,		/* passive: reading the peer's request */
	RDDP_CEP_AWAIT_ACCEPT,		/* passive: CONNECT_REQUEST delivered */
	RDDP_CEP_CONNECTED,		/* the QP's stream owns the socket */
	RDDP_CEP_CLOSED,
	RDDP_CEP_STATE_MAX
};

/* Internal event bits, after the public enum rddp_cep_event. */
enum {
	RDDP_CEP_EV_SOCK = 8,		/* socket readable or state changed */
	RDDP_CEP_EV_TIMEOUT,
};

/* The most private data either transport carries (cm_*.c check theirs). */
#define RDDP_CEP_PD_MAX		512

struct rddp_cm_transport;

struct rddp_cep {
	struct rddp_conn conn;		/* what the QP and stream call back */
	const struct rddp_cep_upcalls *up; /* what a transport calls back */
	const struct rddp_cm_transport *xp; /* its transport, for good */
	struct kref ref;
	struct rddp_device *rdev;	/* NULL once off rdev->cep_list */
	struct list_head dev_entry;
	struct list_head listen_entry;	/* in struct rddp_listen */
	struct mutex lock;		/* see above */
	enum rddp_cep_state state;
	bool active;
	bool peer_closed;		/* report DISCONNECT before CLOSE */
	int close_err;			/* CLOSE's status: 0, or -ECONNRESET
					 * after an abortive end
					 */
	struct socket *sock;		/* until closed or handed over */
	/* the connection's addresses, taken before the hand-over */
	struct sockaddr_storage laddr, raddr;
	struct iw_cm_id *cm_id;
	struct iw_cm_id *listen_id;	/* passive, until CONNECT_REQUEST */
	u32 req;			/* passive: its handle in iw_cm, or 0 */
	struct rddp_qp *qp;
	unsigned long events;
	struct work_struct work;
	struct delayed_work timer;

	struct rddp_settings settings;	/* the device's, at creation */
	u16 ird, ord;			/* what the ULP asked for */
	u16 pd_len;
	/* active: our private data; passive over SCTP: the Initiate's */
	u8 pd[RDDP_CEP_PD_MAX];

	struct rddp_sk_hooks saved_hooks;
};

/*
 * The sockets of one listening iw_cm_id (cm_id->provider_data). Its
 * children (endpoints reading a request) are not on @ceps: they hold @id
 * as their listen_id and sit on @rdev's endpoint list.
 */
struct rddp_listen {
	struct list_head ceps;
	struct rddp_device *rdev;
	struct iw_cm_id *id;
};

/**
 * struct rddp_cm_transport - a transport's connection setup, as the CM
 * calls it (cm_mpa.c, cm_sctp.c)
 * @name: the transport as the device's setting names it, for messages
 * @transport: the uapi's enum rddp_transport that picks it: a device set
 *	to it initiates its connections over it
 * @llp: the data path's LLP (llp.h) the QP's stream runs over at RTS
 * @cep_size: the endpoint's allocation: the transport's own structure,
 *	whose first member is the struct rddp_cep
 * @listen_always: every listen takes this transport, whatever the
 *	device's setting, and fails if it cannot (MPA over TCP, iWARP's
 *	own); another listens only where the device is set to it, and a
 *	failure to is logged, not returned
 * @listen_per_address: a wildcard listen is one listener per address the
 *	netdev has now (SCTP: a wildcard socket would list the namespace's
 *	every address in its INIT ACK, RFC 4960 §3.3.3); without it, one
 *	socket on the wildcard, which the transport binds to the netdev
 * @pd_max: the private data a ULP may give iw_connect under @set
 * @listen: create @cep's listening socket for @id on @addr (a wildcard
 *	only without @listen_per_address), bound and listening with
 *	@backlog. Return: 0 with *@sockp, or a negative errno and nothing
 *	bound
 * @accept_ready: whether the listener @lcep has a connection to accept
 *	without sleeping; NULL: kernel_accept() never sleeps
 * @accept_one: the listener accepted cep->sock for the new passive @cep
 *	(AWAIT_REQUEST): prepare to read the peer's request. Return: 0 or a
 *	negative errno (the CM fails @cep)
 * @connect: start @cep's connection to @raddr from @laddr for @id:
 *	create the socket and give it to up->bind_connect. Return: 0 or a
 *	negative errno
 * @bound: the socket @sock was bound to @laddr and is neither connected
 *	nor listening yet (SCTP: multihoming's other addresses); NULL: none
 * @setup_event: the CM work's socket event (readable, state changed) of
 *	an endpoint still setting up
 * @timeout: the setup timer fired (rddp_setup_timeout(), or the ULP's
 *	answer's bound): end setup, with up->fail at last
 * @accept: iw_accept: answer the peer's request with @param and go to
 *	RTS (up->go_rts). Return: 0 or a negative errno (the CM fails @cep)
 * @reject: refuse the peer's request, with @pd (@pd_len octets) where the
 *	transport carries it. Return: 0 or a negative errno; the CM closes
 * @release: the end of a setup (up->fail: @sock detached, about to be
 *	closed, @status its error) or of the endpoint (@sock NULL, status 0):
 *	free what the transport holds beyond the socket; NULL: nothing
 * @hand_over: RTS: give @s what the LLP needs beyond the socket
 *	(@to_stream), or take it back when the QP refused it; NULL: nothing
 */
struct rddp_cm_transport {
	const char *name;
	u8 transport;
	const struct rddp_llp_ops *llp;
	size_t cep_size;
	bool listen_always;
	bool listen_per_address;
	u16 (*pd_max)(const struct rddp_settings *set);
	int (*listen)(struct rddp_cep *cep, struct iw_cm_id *id,
		      struct sockaddr_storage *addr, int backlog,
		      struct socket **sockp);
	bool (*accept_ready)(struct rddp_cep *lcep);
	int (*accept_one)(struct rddp_cep *cep);
	int (*connect)(struct rddp_cep *cep, struct iw_cm_id *id,
		       struct sockaddr_storage *laddr,
		       struct sockaddr_storage *raddr);
	void (*bound)(struct rddp_cep *cep, struct socket *sock,
		      const struct sockaddr_storage *laddr);
	void (*setup_event)(struct rddp_cep *cep);
	void (*timeout)(struct rddp_cep *cep);
	int (*accept)(struct rddp_cep *cep, struct iw_cm_conn_param *param);
	int (*reject)(struct rddp_cep *cep, const void *pd, u8 pd_len);
	void (*release)(struct rddp_cep *cep, struct socket *sock, int status);
	void (*hand_over)(struct rddp_cep *cep, struct rddp_stream *s,
			  bool to_stream);
};

/* MPA over TCP (RFC 5044, RFC 6581), cm_mpa.c. */
extern const struct rddp_cm_transport rddp_cm_mpa;
/* DDP over SCTP (draft-ietf-rddp-sctp-00), cm_sctp.c. */
extern const struct rddp_cm_transport rddp_cm_sctp;

/*
 * The transports, indexed by the uapi's enum rddp_transport
 * (cm_transports.c); the CM's listeners open them in this order.
 */
extern const struct rddp_cm_transport *const
	rddp_cm_transports[RDDP_TRANSPORT_MAX + 1];

/**
 * rddp_addr_len() - the length of a socket address of either family
 * @a: the address
 *
 * Return: sizeof(struct sockaddr_in6) or sizeof(struct sockaddr_in).
 */
static inline int rddp_addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

/**
 * rddp_addr_any() - whether an address is the wildcard of its family
 * @a: the address
 *
 * Return: true for 0.0.0.0 and [::].
 */
static inline bool rddp_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       htonl(INADDR_ANY);
}

#endif /* RDDP_CEP_H */
