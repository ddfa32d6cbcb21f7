/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp completion queues, queue pairs and shared receive queues, and the API
 * the data path (TX/RX engines) and the connection manager use on them.
 *
 * Work queues and CQs are rings in the siw user ABI format (struct siw_sqe,
 * siw_rqe, siw_cqe from <rdma/siw-abi.h>) for kernel and user objects alike;
 * for user objects the ring is vmalloc_user() memory mapped by libsiw
 * (uring.c). Every slot carries an ownership bit, SIW_WQE_VALID in its flags:
 * the producer fills a free slot and sets VALID last (store-release), the
 * consumer reads VALID (load-acquire), copies the slot and clears the flags
 * (store-release), which frees it. Producers of user rings are libsiw (SQ,
 * RQ, SRQ) or the kernel (CQ); indices are free-running u32 counters taken
 * modulo the ring size.
 *
 * Lock order (outermost first):
 *   qp->state_lock (mutex) -> qp->sq_lock / qp->rq_lock / srq->lock
 *   (spinlocks, irqsave) -> cq->lock (spinlock, irqsave).
 * sq_lock and rq_lock are never held together, except by the state change
 * in qp.c which takes sq_lock then rq_lock. A CQ's comp_handler and event
 * handler are called without cq->lock but possibly with a QP queue lock held.
 */
#ifndef RDDP_QUEUES_H
#define RDDP_QUEUES_H

#include <linux/completion.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "compat.h"

struct rddp_device;
struct rddp_stream;

/*
 * Ring slot ownership. The acquire load orders every later read of the slot
 * after its flags; the release store orders every earlier write to the slot
 * before its flags (pairs with libsiw's C11 seq_cst atomics on the same word).
 */
#define rddp_slot_flags(slot)	smp_load_acquire(&(slot)->flags)
#define rddp_slot_owned(slot)	(rddp_slot_flags(slot) & SIW_WQE_VALID)
/* See rddp_slot_flags(): publishes (or frees) a slot. */
#define rddp_slot_set(slot, f)	smp_store_release(&(slot)->flags, (f))

/**
 * struct rddp_cq - a completion queue (cq.c)
 * @base: the core's CQ
 * @lock: serialises producers (rddp_cq_push()) and the kernel poller
 * @queue: @num_cqe CQEs, followed by @ctrl
 * @ctrl: the struct siw_cq_ctrl that libsiw writes to arm notification
 * @num_cqe: slots in @queue
 * @cq_put: producer index, under @lock
 * @cq_get: kernel CQs: consumer index, under @lock (a user CQ's lives in
 *	libsiw)
 * @id: the CQ's number, handed to libsiw (siw_uresp_create_cq.cq_id)
 * @user: a user CQ, mapped by libsiw
 * @mmap: user CQs: the mmap entry the memory belongs to; it is freed when
 *	the last mapping goes
 *
 * Lifetime: allocated by the core (INIT_RDMA_OBJ_SIZE); the core refuses to
 * destroy a CQ a QP still uses (usecnt), so a QP may push to its CQs without
 * references.
 */
struct rddp_cq {
	struct ib_cq base;
	spinlock_t lock;		/* see above */
	struct siw_cqe *queue;
	struct siw_cq_ctrl *ctrl;
	u32 num_cqe;
	u32 cq_put;
	u32 cq_get;
	u32 id;
	bool user;
	struct rdma_user_mmap_entry *mmap;
};

/**
 * struct rddp_srq - a shared receive queue (srq.c)
 * @base: the core's SRQ
 * @lock: protects @rq_get, @rq_put (kernel SRQs), @limit and @armed
 * @queue: the ring of RQEs
 * @num_rqe: its slots
 * @rq_get: consumer index
 * @rq_put: kernel SRQs: producer index (a user SRQ's lives in libsiw)
 * @max_sge: SGEs an RQE may have
 * @limit: the SRQ limit armed by modify_srq
 * @armed: IB_EVENT_SRQ_LIMIT_REACHED is due when fewer than @limit RQEs
 *	remain
 * @user: a user SRQ, mapped by libsiw
 * @mmap: user SRQs: the mmap entry the ring belongs to
 *
 * Lifetime: allocated by the core; the core refuses to destroy an SRQ a QP
 * still uses.
 */
struct rddp_srq {
	struct ib_srq base;
	spinlock_t lock;	/* see above */
	struct siw_rqe *queue;
	u32 num_rqe;
	u32 rq_get;
	u32 rq_put;
	u32 max_sge;
	u32 limit;
	bool armed;
	bool user;
	struct rdma_user_mmap_entry *mmap;
};

/**
 * enum rddp_cep_event - events the QP, its stream and its LLP report to
 * the connection's CM work (struct rddp_conn)
 * @RDDP_CEP_EV_STREAM_ERROR: RX or TX detected an error
 * @RDDP_CEP_EV_PEER_CLOSED: the peer ended the connection gracefully in
 *	full operation (TCP FIN; SCTP SHUTDOWN or the session's Terminate)
 * @RDDP_CEP_EV_PEER_ABORTED: the connection ended abortively in full
 *	operation (TCP RST, SCTP ABORT, or the LLP's liveness bound: the
 *	socket's error is set); iw_cm's CLOSE then carries -ECONNRESET, as
 *	hardware RNICs report an abort, where a graceful end carries 0
 * @RDDP_CEP_EV_STREAM_CLOSED: the QP stopped its stream
 * @RDDP_CEP_EV_QP_DESTROYED: destroy_qp of the QP an active endpoint is
 *	connecting (rddp_qp_connect_begin()): the connect fails at once
 */
enum rddp_cep_event {
	RDDP_CEP_EV_STREAM_ERROR,
	RDDP_CEP_EV_PEER_CLOSED,
	RDDP_CEP_EV_PEER_ABORTED,
	RDDP_CEP_EV_STREAM_CLOSED,
	RDDP_CEP_EV_QP_DESTROYED,
};

struct rddp_conn;

/**
 * struct rddp_conn_ops - how a QP and its stream reach the connection
 * endpoint that set them up (struct rddp_conn)
 * @event: report @ev to the endpoint's CM work. Any context: it only
 *	queues work, so it may be called under qp->state_lock, which the CM
 *	takes after its own lock (cm.c's lock order)
 * @get: take a reference on the endpoint
 * @put: drop one; the last frees it. Process context or softirq
 */
struct rddp_conn_ops {
	void (*event)(struct rddp_conn *c, enum rddp_cep_event ev);
	void (*get)(struct rddp_conn *c);
	void (*put)(struct rddp_conn *c);
};

/**
 * struct rddp_conn - the connection endpoint as the QP and its stream see
 * it: the CM's endpoint (cm.c) embeds one and fills in @ops, and hands it
 * over with rddp_qp_connect_begin() and rddp_qp_connected(). The QP, the
 * stream and the LLPs call back through it and never into the CM by name,
 * so the CM sits above them.
 * @ops: the endpoint's operations, set at its allocation
 *
 * Lifetime: the endpoint's (cm.c): the stream holds a reference from
 * rddp_stream_start() until it is freed; qp->connecting holds none (the
 * endpoint clears it before it can be freed).
 */
struct rddp_conn {
	const struct rddp_conn_ops *ops;
};

/**
 * rddp_conn_event() - report an event to a connection's CM work
 * @c: the connection
 * @ev: the event
 *
 * Any context.
 */
static inline void rddp_conn_event(struct rddp_conn *c, enum rddp_cep_event ev)
{
	c->ops->event(c, ev);
}

/**
 * rddp_conn_get() - take a reference on a connection's endpoint
 * @c: the connection
 */
static inline void rddp_conn_get(struct rddp_conn *c)
{
	c->ops->get(c);
}

/**
 * rddp_conn_put() - drop a reference on a connection's endpoint
 * @c: the connection
 */
static inline void rddp_conn_put(struct rddp_conn *c)
{
	c->ops->put(c);
}

/**
 * struct rddp_qp - an RC queue pair (qp.c)
 * @base: the core's QP
 * @rdev: its device
 * @ref: references: 1 for the verbs object, taken by iw_add_ref and
 *	rddp_qp_get(), dropped by iw_rem_ref and rddp_qp_put()
 * @freed: completed when @ref reaches 0
 * @state_lock: serialises state changes (modify_qp, the CM calls)
 * @state: written with @state_lock, @sq_lock and @rq_lock all held, so it is
 *	stable for anyone holding one of them
 * @connected: set by the CM (rddp_qp_connected())
 * @connecting: the active endpoint setting up a connection for the QP,
 *	under @state_lock: set by rddp_qp_connect_begin(), cleared by
 *	rddp_qp_connect_end(), at RTS, or by destroy_qp, which reports
 *	RDDP_CEP_EV_QP_DESTROYED to it; the endpoint clears it before it can
 *	be freed, so it is alive while set
 * @destroyed: destroy_qp has begun (under @state_lock): no connect starts
 * @user: a user QP, its rings mapped by libsiw
 * @sig_all: sq_sig_type IB_SIGNAL_ALL_WR
 * @access: qp_access_flags
 * @ord: max_rd_atomic
 * @ird: max_dest_rd_atomic
 * @max_inline: inline data bytes an SQE may carry
 * @scq: the send CQ
 * @rcq: the receive CQ
 * @srq: the SRQ, or NULL
 * @sq_lock: protects the SQ indices
 * @sq: the SQ ring
 * @num_sqe: its slots
 * @sq_get: SQ consumer index
 * @sq_put: SQ producer index, kernel QPs only (a user QP's lives in libsiw)
 * @sq_sges: SGEs an SQE may have
 * @sq_mmap: user QPs: the mmap entry the SQ belongs to
 * @stream: the connection's data path (stream.h): set with the move to RTS
 *	by rddp_qp_connected(), stopped under @state_lock when the QP leaves
 *	RTS, freed by destroy_qp; replaced only with @tx_mutex held too
 * @tx_work: runs the TX engine on the rddp_tx workqueue (qp_tx.c)
 * @tx_mutex: the TX engine runs under it, from @tx_work or inline from a
 *	user's doorbell; order: @state_lock, then @tx_mutex
 * @rq_lock: protects the RQ indices
 * @rq: the RQ ring; NULL with an SRQ
 * @num_rqe: its slots
 * @rq_get: RQ consumer index
 * @rq_put: RQ producer index, kernel QPs only
 * @rq_sges: SGEs an RQE may have
 * @rq_mmap: user QPs: the mmap entry the RQ belongs to
 *
 * Lifetime: allocated by the core. destroy_qp removes the QPN from
 * rddp_device.qp_xa, drops the verbs reference and sleeps on @freed until
 * @ref reaches 0, so the core frees the memory only after every holder has
 * let go. For user QPs the rings belong to the mmap entries and the kernel
 * only consumes.
 */
struct rddp_qp {
	struct ib_qp base;
	struct rddp_device *rdev;
	refcount_t ref;
	struct completion freed;

	struct mutex state_lock;	/* see above */
	enum ib_qp_state state;
	bool connected;
	struct rddp_conn *connecting;
	bool destroyed;
	bool user;
	bool sig_all;
	int access;
	u8 ord;
	u8 ird;
	u32 max_inline;

	struct rddp_cq *scq;
	struct rddp_cq *rcq;
	struct rddp_srq *srq;

	spinlock_t sq_lock;	/* see above */
	struct siw_sqe *sq;
	u32 num_sqe;
	u32 sq_get;
	u32 sq_put;
	u32 sq_sges;
	struct rdma_user_mmap_entry *sq_mmap;

	struct rddp_stream *stream;
	struct work_struct tx_work;
	struct mutex tx_mutex;		/* see above */

	spinlock_t rq_lock;	/* see above */
	struct siw_rqe *rq;
	u32 num_rqe;
	u32 rq_get;
	u32 rq_put;
	u32 rq_sges;
	struct rdma_user_mmap_entry *rq_mmap;
};

/**
 * to_rddp_cq() - the rddp CQ of a core CQ
 * @cq: the core's CQ, one of rddp's
 *
 * Return: the struct rddp_cq it is embedded in.
 */
static inline struct rddp_cq *to_rddp_cq(struct ib_cq *cq)
{
	return container_of(cq, struct rddp_cq, base);
}

/**
 * to_rddp_qp() - the rddp QP of a core QP
 * @qp: the core's QP, one of rddp's
 *
 * Return: the struct rddp_qp it is embedded in.
 */
static inline struct rddp_qp *to_rddp_qp(struct ib_qp *qp)
{
	return container_of(qp, struct rddp_qp, base);
}

/**
 * to_rddp_srq() - the rddp SRQ of a core SRQ
 * @srq: the core's SRQ, one of rddp's
 *
 * Return: the struct rddp_srq it is embedded in.
 */
static inline struct rddp_srq *to_rddp_srq(struct ib_srq *srq)
{
	return container_of(srq, struct rddp_srq, base);
}

/**
 * struct rddp_cqe - a completion as the data path reports it
 * @id: the work request's wr_id
 * @opcode: enum siw_opcode
 * @status: enum siw_wc_status
 * @bytes: bytes transferred
 * @inval_stag: the STag a Send with Invalidate invalidated, valid with
 *	SIW_WQE_REM_INVAL in @flags
 * @flags: 0 or SIW_WQE_REM_INVAL
 * @qp: the QP
 */
struct rddp_cqe {
	u64 id;
	u8 opcode;
	u16 status;
	u32 bytes;
	u32 inval_stag;
	u8 flags;
	struct rddp_qp *qp;
};

/**
 * rddp_cq_push() - post one completion
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: the message had the SE bit
 *
 * If the CQ is armed (NEXT_COMPLETION, or SOLICITED and @solicited) it is
 * disarmed and its comp_handler called. Any context.
 *
 * Return: 0; -EOVERFLOW if the CQ was full: the completion is lost and
 * IB_EVENT_CQ_ERR raised.
 */
int rddp_cq_push(struct rddp_cq *cq, const struct rddp_cqe *cqe,
		 bool solicited);

/*
 * QP data-path API, for the TX/RX engines and the CM. Any context unless
 * noted. The SQ's two (rddp_qp_sq_next(), rddp_qp_sq_complete()) are
 * defined in qp_tx.c and the RQ's in qp_rx.c, the engines that use them,
 * so that neither calls up into qp.c.
 */

/**
 * rddp_qp_get_by_qpn() - look up and reference a QP by number
 * @rdev: the device
 * @qpn: the QP number
 *
 * Return: the referenced QP (release with rddp_qp_put()) or NULL.
 */
struct rddp_qp *rddp_qp_get_by_qpn(struct rddp_device *rdev, u32 qpn);

/**
 * rddp_qp_get() - take a reference on a QP
 * @qp: the QP
 */
static inline void rddp_qp_get(struct rddp_qp *qp)
{
	refcount_inc(&qp->ref);
}

/**
 * rddp_qp_put() - drop a reference on a QP; the last wakes destroy_qp
 * @qp: the QP
 *
 * Inline here, beside the reference's rule (struct rddp_qp), so that the
 * files that look QPs up (genl.c, res.c, the CM) drop what they took
 * without calling into qp.c.
 */
static inline void rddp_qp_put(struct rddp_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->freed);
}

/**
 * rddp_qp_sq_next() - take the SQE at the head of the SQ
 * @qp: the QP
 * @out: a copy of the SQE; its slot returns to the producer
 *
 * Return: 0; -ENOENT if the SQ is empty; -ENOTCONN unless the QP is RTS
 * (nothing may be sent otherwise).
 */
int rddp_qp_sq_next(struct rddp_qp *qp, struct siw_sqe *out);

/**
 * rddp_qp_rq_next() - take the next receive WQE
 * @qp: the QP
 * @out: a copy of the RQE, from the SRQ if the QP has one (which may raise
 *	IB_EVENT_SRQ_LIMIT_REACHED)
 *
 * Return: 0; -ENOENT if none is posted; -ENOTCONN unless the QP is RTR or
 * RTS.
 */
int rddp_qp_rq_next(struct rddp_qp *qp, struct siw_rqe *out);

/**
 * rddp_qp_sq_complete() - report the end of an SQE
 * @qp: the QP
 * @id: the SQE's wr_id
 * @opcode: its opcode
 * @flags: its flags (SIW_WQE_SIGNALLED ...)
 * @status: how it ended
 * @bytes: bytes transferred
 *
 * Writes a CQE on the send CQ if the SQE was signalled (or sq_sig_all) or
 * failed. The stream's sqw ring calls it in posting order.
 *
 * Return: 0, or rddp_cq_push()'s error.
 */
int rddp_qp_sq_complete(struct rddp_qp *qp, u64 id, u8 opcode, u16 flags,
			enum siw_wc_status status, u32 bytes);

/**
 * rddp_qp_rq_complete() - report the end of an RQE on the receive CQ
 * @qp: the QP
 * @rqe: the RQE
 * @status: how it ended
 * @bytes: bytes received
 * @inval_stag: not 0: the message was a Send with Invalidate of that STag
 * @solicited: the message had the SE bit (wakes a CQ armed for solicited
 *	events)
 *
 * Return: 0, or rddp_cq_push()'s error.
 */
int rddp_qp_rq_complete(struct rddp_qp *qp, const struct siw_rqe *rqe,
			enum siw_wc_status status, u32 bytes, u32 inval_stag,
			bool solicited);

/**
 * rddp_qp_connected() - the CM established the connection: INIT/RTR -> RTS
 * @qp: the QP
 * @s: its new stream
 * @sock: the connection's socket
 * @conn: the connection endpoint the stream reports to
 * @closed: set to whether TCP had already seen the peer's close
 *
 * The bytes already queued on @sock are received. Process context.
 *
 * Return: 0, after which @sock and @s belong to the QP: the caller must
 * not touch them again; -EINVAL from a state other than INIT or RTR.
 */
int rddp_qp_connected(struct rddp_qp *qp, struct rddp_stream *s,
		      struct socket *sock, struct rddp_conn *conn,
		      bool *closed);

/**
 * rddp_qp_connect_begin() - an active endpoint starts connecting the QP
 * @qp: the QP
 * @conn: the endpoint, which holds a QP reference
 *
 * Until rddp_qp_connect_end() or RTS, destroy_qp does not wait for the
 * network: it reports RDDP_CEP_EV_QP_DESTROYED to @conn, which fails the
 * connect. Process context; the caller may hold its endpoint's lock.
 *
 * Return: 0, or -EINVAL if the QP is being destroyed or already has a
 * connect under way.
 */
int rddp_qp_connect_begin(struct rddp_qp *qp, struct rddp_conn *conn);

/**
 * rddp_qp_connect_end() - @conn no longer connects @qp (it failed)
 * @qp: the QP
 * @conn: the endpoint; nothing happens if it is not the QP's connecting one
 */
void rddp_qp_connect_end(struct rddp_qp *qp, struct rddp_conn *conn);

/**
 * rddp_qp_to_error() - move a QP to ERROR, flushing both queues
 * @qp: the QP
 * @event: an event to raise (e.g. IB_EVENT_QP_FATAL), or 0 for none
 *
 * Process context.
 */
void rddp_qp_to_error(struct rddp_qp *qp, enum ib_event_type event);

/**
 * rddp_srq_next() - consume the next RQE of an SRQ
 * @srq: the SRQ
 * @out: a copy of the RQE
 *
 * Raises IB_EVENT_SRQ_LIMIT_REACHED (once per arming) when fewer than the
 * armed limit of RQEs remain.
 *
 * Return: 0, or -ENOENT if the SRQ is empty.
 */
int rddp_srq_next(struct rddp_srq *srq, struct siw_rqe *out);

/**
 * rddp_create_cq() - ib_device_ops.create_cq
 * @cq: the CQ the core allocated
 * @attr: its size (cqe)
 * @arg: the core's last argument (compat.h): for a user CQ, its udata
 *	takes libsiw's response (CQ id, size, the ring's mmap key)
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP for creation flags, -EINVAL
 * above RDDP_MAX_CQE, -ENOMEM at RDDP_MAX_CQ or without memory).
 */
int rddp_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		   struct rddp_cq_create_arg *arg);

/**
 * rddp_destroy_cq() - ib_device_ops.destroy_cq
 * @cq: the CQ, which no QP uses any more
 * @udata: user data (unused)
 *
 * Return: 0.
 */
int rddp_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);

/**
 * rddp_poll_cq() - ib_device_ops.poll_cq, for kernel CQs
 * @cq: the CQ
 * @num_entries: room in @wc
 * @wc: the completions
 *
 * Return: the completions written.
 */
int rddp_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);

/**
 * rddp_req_notify_cq() - ib_device_ops.req_notify_cq: arm a CQ
 * @cq: the CQ
 * @flags: IB_CQ_NEXT_COMP or IB_CQ_SOLICITED, and IB_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 0; with IB_CQ_REPORT_MISSED_EVENTS, 1 if a completion is already
 * waiting.
 */
int rddp_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);

/**
 * rddp_create_qp() - ib_device_ops.create_qp: an RC QP
 * @qp: the QP the core allocated
 * @attr: its CQs, SRQ, queue sizes and limits
 * @udata: for a user QP, libsiw's response (QP id, queue sizes, the rings'
 *	mmap keys)
 *
 * Return: 0 or a negative errno.
 */
int rddp_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);

/**
 * rddp_modify_qp() - ib_device_ops.modify_qp
 * @qp: the QP
 * @attr: the new attributes
 * @mask: which of them (IB_QP_*)
 * @udata: user data (unused)
 *
 * Return: 0 or a negative errno.
 */
int rddp_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);

/**
 * rddp_query_qp() - ib_device_ops.query_qp
 * @qp: the QP
 * @attr: its attributes
 * @mask: the attributes wanted (rddp fills all it has)
 * @init_attr: its creation attributes
 *
 * Return: 0.
 */
int rddp_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);

/**
 * rddp_destroy_qp() - ib_device_ops.destroy_qp
 * @qp: the QP
 * @udata: user data (unused)
 *
 * Stops the stream, moves the QP to RESET without completions (IB spec
 * 11.2.4.4), removes its QPN and waits until every reference is dropped.
 *
 * Return: 0.
 */
int rddp_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);

/**
 * rddp_post_send() - ib_device_ops.post_send, for kernel QPs
 * @qp: the QP
 * @wr: the work requests
 * @bad_wr: set to the first one not posted
 *
 * Return: 0 or a negative errno.
 */
int rddp_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);

/**
 * rddp_post_recv() - ib_device_ops.post_recv, for kernel QPs
 * @qp: the QP
 * @wr: the work requests
 * @bad_wr: set to the first one not posted
 *
 * Return: 0 or a negative errno.
 */
int rddp_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);

/**
 * rddp_iw_get_qp() - iw_cm's get_qp: the QP of a number
 * @ibdev: the device
 * @qpn: the QP number
 *
 * iw_cm looks a QP up by number on behalf of a consumer that owns it, then
 * takes its own reference with iw_add_ref.
 *
 * Return: the QP, unreferenced, or NULL.
 */
struct ib_qp *rddp_iw_get_qp(struct ib_device *ibdev, int qpn);

/**
 * rddp_iw_add_ref() - iw_cm's add_ref: rddp_qp_get()
 * @qp: the QP
 */
void rddp_iw_add_ref(struct ib_qp *qp);

/**
 * rddp_iw_rem_ref() - iw_cm's rem_ref: rddp_qp_put()
 * @qp: the QP
 */
void rddp_iw_rem_ref(struct ib_qp *qp);

/**
 * rddp_create_srq() - ib_device_ops.create_srq
 * @srq: the SRQ the core allocated
 * @attr: its size, SGEs and limit
 * @udata: for a user SRQ, libsiw's response (size, the ring's mmap key)
 *
 * Return: 0 or a negative errno.
 */
int rddp_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);

/**
 * rddp_modify_srq() - ib_device_ops.modify_srq: arm the SRQ limit
 * @srq: the SRQ
 * @attr: the limit
 * @mask: IB_SRQ_LIMIT; IB_SRQ_MAX_WR (resizing) is not supported
 * @udata: user data (unused)
 *
 * A limit of 0 disarms it.
 *
 * Return: 0; -EOPNOTSUPP for IB_SRQ_MAX_WR; -EINVAL for a limit above the
 * SRQ's size.
 */
int rddp_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);

/**
 * rddp_query_srq() - ib_device_ops.query_srq
 * @srq: the SRQ
 * @attr: its size, SGEs and limit
 *
 * Return: 0.
 */
int rddp_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);

/**
 * rddp_destroy_srq() - ib_device_ops.destroy_srq
 * @srq: the SRQ, which no QP uses any more
 * @udata: user data (unused)
 *
 * Return: 0.
 */
int rddp_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);

/**
 * rddp_post_srq_recv() - ib_device_ops.post_srq_recv, for kernel SRQs
 * @srq: the SRQ
 * @wr: the work requests
 * @bad_wr: set to the first one not posted
 *
 * Return: 0 or a negative errno.
 */
int rddp_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/**
 * rddp_rqe_from_wr() - fill an RQE from a kernel-posted receive WR
 * @rqe: the RQE
 * @wr: the work request
 * @max_sge: SGEs the queue allows
 *
 * Shared by the QPs' RQs (qp.c) and the SRQs.
 *
 * Return: 0, or -EINVAL for too many SGEs or more than 4 GiB in all.
 */
int rddp_rqe_from_wr(struct siw_rqe *rqe, const struct ib_recv_wr *wr,
		     u32 max_sge);

/**
 * rddp_ring_slots() - how many slots a ring of @wanted entries gets
 * @wanted: what the verb asked for (0 counts as 1)
 *
 * A power of two, as siw's rings, because the siw user ABI needs one:
 * libsiw and rddp index every ring with free-running u32 counters modulo
 * its size, and libsiw rings the SQ doorbell only if the slot before its
 * first new WQE, (sq_put - 1) % num_sqe, is idle. Both hold only for a
 * size that divides 2^32. With 5 slots (any divisor of 2^32 - 1: 5, 15,
 * 17, ...), the first post's "slot before" is slot 0, the WQE it has just
 * written: libsiw (rdma-core 44) took the SQ for busy, rang no doorbell,
 * and the QP never sent (perftest's -n 5 hung; tests/vm/rdma.sh). The
 * limits the verbs check first are powers of two, so the result stays
 * within them.
 *
 * Return: the slot count, at least @wanted.
 */
static inline u32 rddp_ring_slots(u32 wanted)
{
	return roundup_pow_of_two(max(wanted, 1U));
}

/**
 * rddp_ring_alloc() - memory for a ring that user space may map
 * @size: its bytes
 *
 * Return: vmalloc_user() memory, or NULL.
 */
void *rddp_ring_alloc(size_t size);

/**
 * rddp_ring_map() - make a ring mappable by a user context
 * @udata: the verb's user data: its context maps the ring
 * @ring: the ring, from rddp_ring_alloc()
 * @size: its bytes
 * @entry: set to the mmap entry, which owns the ring on success
 * @key: set to the mmap offset for user space
 *
 * Return: 0 or a negative errno.
 */
int rddp_ring_map(struct ib_udata *udata, void *ring, size_t size,
		  struct rdma_user_mmap_entry **entry, u64 *key);

/**
 * rddp_ring_free() - free a ring now (kernel object) or once unmapped
 * (user object)
 * @ring: the ring
 * @entry: its mmap entry, or NULL for a kernel object's ring
 */
void rddp_ring_free(void *ring, struct rdma_user_mmap_entry *entry);

/**
 * rddp_mmap() - ib_device_ops.mmap: map a ring into user space
 * @ctx: the user context
 * @vma: the mapping; its offset is a key from rddp_ring_map()
 *
 * Return: 0 or a negative errno (-EINVAL for an unknown key).
 */
int rddp_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma);

/**
 * rddp_mmap_free() - ib_device_ops.mmap_free: the last mapping of a ring
 * is gone; free it
 * @entry: its mmap entry
 */
void rddp_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* RDDP_QUEUES_H */
