/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection endpoint, what cm.c (the iw_cm calls, endpoints, MPA over
 * TCP) and cm_sctp.c (DDP Stream Sessions over SCTP,
 * draft-ietf-rddp-sctp-00 §3) share: struct rddp_cep and the callbacks
 * the CM gives a transport's setup (struct rddp_cep_upcalls), which reaches
 * the CM through them alone, never by name. The locking and lifetime rules
 * are cm.c's (its header comment).
 */
#ifndef RDDP_CEP_H
#define RDDP_CEP_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rddp/mpa_frame.h>
#include <rddp/sctp.h>

#include "cm.h"
#include "rddp.h"
#include "stream.h"

struct rddp_cep;
struct rddp_sctp_link;

/**
 * struct rddp_cep_upcalls - what the CM gives a transport's setup to call
 * back (cep->up, cm.c's rddp_cep_upcalls); each runs with cep->lock held
 * @bind_connect: bind @sock (created by the transport) to @laddr, give it
 *	to the endpoint and start connecting to @raddr, @id referenced. Takes
 *	@sock: on failure it is released or the endpoint's. Return: 0 or a
 *	negative errno
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

enum rddp_cep_state {
	RDDP_CEP_IDLE,
	RDDP_CEP_LISTEN,
	RDDP_CEP_CONNECTING,		/* active: TCP handshake */
	RDDP_CEP_AWAIT_REPLY,		/* active: MPA Request sent */
	RDDP_CEP_AWAIT_REQUEST,		/* passive: reading the MPA Request */
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

struct rddp_cep {
	struct rddp_conn conn;		/* what the QP and stream call back */
	const struct rddp_cep_upcalls *up; /* what a transport calls back */
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

	/* MPA setup */
	struct rddp_mpa_frame_rx mpa_rx;
	struct rddp_mpa_frame peer;	/* peer.pd points into mpa_rx.buf */
	struct rddp_settings settings;	/* the device's, at creation */
	u16 ird, ord;			/* what the ULP asked for */
	u16 pd_len;
	/* active: our private data; passive over SCTP: the Initiate's */
	u8 pd[RDDP_MPA_PD_MAX];

	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);

	/* DDP over SCTP (cm_sctp.c): the socket is SCTP's, setup is §3's */
	bool sctp;
	bool comm_up;			/* SCTP_COMM_UP seen */
	bool peer_ali;			/* the peer indicated DDP+RDMA (§4.1) */
	struct rddp_sctp_link *link;	/* until handed to the stream */
	struct rddp_sctp_conn peer_conn; /* the Initiate's or Accept's IRD/ORD */
	bool sctp_graceful;		/* ended by our Terminate: no ABORT */
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

/* cm.c: shared by both transports; the caller holds cep->lock where noted */
struct rddp_cep *rddp_cep_alloc(struct rddp_device *rdev);
void rddp_cep_queue(struct rddp_cep *cep);
void rddp_cep_timer_start(struct rddp_cep *cep, unsigned long delay);
void rddp_cep_sock_attach(struct rddp_cep *cep, struct socket *sock);
struct socket *rddp_cep_sock_detach(struct rddp_cep *cep);
int rddp_addr_len(const struct sockaddr_storage *a);
int rddp_cep_bind_connect(struct rddp_cep *cep, struct iw_cm_id *id,
			  struct socket *sock, struct sockaddr_storage *laddr,
			  struct sockaddr_storage *raddr);
void rddp_cep_deliver(struct rddp_cep *cep, struct iw_cm_id *id,
		      enum iw_cm_event_type type, int status,
		      const void *pd, u16 pd_len, struct socket *sock);
void rddp_cep_fail(struct rddp_cep *cep, int status);
void rddp_cep_got_request_event(struct rddp_cep *cep, const void *pd,
				u16 pd_len, u16 ird, u16 ord);
int rddp_cep_go_rts(struct rddp_cep *cep, const struct rddp_stream_params *p);

/* cm_sctp.c */
int rddp_sctp_cm_connect(struct rddp_cep *cep, struct iw_cm_id *id,
			 struct sockaddr_storage *laddr,
			 struct sockaddr_storage *raddr);
void rddp_sctp_cm_setup_event(struct rddp_cep *cep);
void rddp_sctp_cm_timeout(struct rddp_cep *cep);
int rddp_sctp_cm_accept(struct rddp_cep *cep, struct iw_cm_conn_param *param);
int rddp_sctp_cm_reject(struct rddp_cep *cep);
int rddp_sctp_cm_accept_one(struct rddp_cep *cep);
bool rddp_sctp_cm_accept_ready(struct socket *sock);
void rddp_sctp_bind_more(struct rddp_device *rdev, struct socket *sock,
			 const struct sockaddr_storage *bound);

#endif /* RDDP_CEP_H */
