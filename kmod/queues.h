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
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

struct rddp_cep;
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

/*
 * struct rddp_cq - a completion queue (cq.c).
 * Lifetime: allocated by the core (INIT_RDMA_OBJ_SIZE); the core refuses to
 * destroy a CQ a QP still uses (usecnt), so a QP may push to its CQs without
 * references. @queue holds @num_cqe CQEs followed by the struct siw_cq_ctrl
 * (@ctrl) that libsiw writes to arm notification; for user CQs the memory
 * belongs to the mmap entry @mmap and is freed when the last mapping goes.
 * @lock serialises producers (rddp_cq_push) and the kernel poller; the
 * consumer index of a user CQ lives in libsiw.
 */
struct rddp_cq {
	struct ib_cq base;
	spinlock_t lock;		/* see above */
	struct siw_cqe *queue;
	struct siw_cq_ctrl *ctrl;
	u32 num_cqe;
	u32 cq_put;	/* producer index, under @lock */
	u32 cq_get;	/* kernel CQs: consumer index, under @lock */
	u32 id;
	bool user;
	struct rdma_user_mmap_entry *mmap;
};

/*
 * struct rddp_srq - a shared receive queue (srq.c).
 * Lifetime: allocated by the core; the core refuses to destroy an SRQ a QP
 * still uses. @lock protects @rq_get, @rq_put (kernel SRQs), @limit and
 * @armed. For user SRQs the ring belongs to the mmap entry @mmap.
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

/*
 * struct rddp_qp - an RC queue pair (qp.c).
 * Lifetime: allocated by the core; @ref starts at 1 (the verbs object) and
 * is taken by iw_add_ref/rddp_qp_get and dropped by iw_rem_ref/rddp_qp_put.
 * destroy_qp removes the QPN from rddp_device.qp_xa, drops the verbs
 * reference and sleeps on @freed until the count reaches 0, so the core
 * frees the memory only after every holder has let go.
 * @state_lock (mutex) serialises state changes (modify_qp, the CM calls);
 * @state is written with @state_lock, @sq_lock and @rq_lock all held, so it
 * is stable for anyone holding one of them.
 * @sq_lock protects the SQ indices, @rq_lock the RQ indices. For user QPs
 * the rings belong to the mmap entries and the producer indices live in
 * libsiw; the kernel only consumes.
 */
struct rddp_qp {
	struct ib_qp base;
	struct rddp_device *rdev;
	refcount_t ref;
	struct completion freed;

	struct mutex state_lock;	/* see above */
	enum ib_qp_state state;
	bool connected;		/* set by the CM (rddp_qp_connected) */
	bool user;
	bool sig_all;
	int access;		/* qp_access_flags */
	u8 ord;			/* max_rd_atomic */
	u8 ird;			/* max_dest_rd_atomic */
	u32 max_inline;

	struct rddp_cq *scq;
	struct rddp_cq *rcq;
	struct rddp_srq *srq;

	spinlock_t sq_lock;	/* see above */
	struct siw_sqe *sq;
	u32 num_sqe;
	u32 sq_get;
	u32 sq_put;		/* kernel QPs only */
	u32 sq_sges;
	struct rdma_user_mmap_entry *sq_mmap;

	/*
	 * The connection's data path (stream.h): set with the move to RTS by
	 * rddp_qp_connected(), stopped under @state_lock when the QP leaves
	 * RTS, freed by destroy_qp. Its TX engine runs under @tx_mutex, from
	 * @tx_work or inline from a user's doorbell (qp_tx.c); @stream is
	 * replaced only with @tx_mutex held too. Order: state_lock, tx_mutex.
	 */
	struct rddp_stream *stream;
	struct work_struct tx_work;
	struct mutex tx_mutex;		/* see above */

	spinlock_t rq_lock;	/* see above */
	struct siw_rqe *rq;	/* NULL with an SRQ */
	u32 num_rqe;
	u32 rq_get;
	u32 rq_put;		/* kernel QPs only */
	u32 rq_sges;
	struct rdma_user_mmap_entry *rq_mmap;
};

static inline struct rddp_cq *to_rddp_cq(struct ib_cq *cq)
{
	return container_of(cq, struct rddp_cq, base);
}

static inline struct rddp_qp *to_rddp_qp(struct ib_qp *qp)
{
	return container_of(qp, struct rddp_qp, base);
}

static inline struct rddp_srq *to_rddp_srq(struct ib_srq *srq)
{
	return container_of(srq, struct rddp_srq, base);
}

/* A completion as the data path reports it. */
struct rddp_cqe {
	u64 id;			/* wr_id */
	u8 opcode;		/* enum siw_opcode */
	u16 status;		/* enum siw_wc_status */
	u32 bytes;
	u32 inval_stag;		/* valid with SIW_WQE_REM_INVAL in flags */
	u8 flags;		/* 0 or SIW_WQE_REM_INVAL */
	struct rddp_qp *qp;
};

/*
 * rddp_cq_push - post one completion. Any context. If the CQ is armed
 * (NEXT_COMPLETION, or SOLICITED and @solicited) it is disarmed and its
 * comp_handler called. A full CQ loses the completion, raises
 * IB_EVENT_CQ_ERR and returns -EOVERFLOW.
 */
int rddp_cq_push(struct rddp_cq *cq, const struct rddp_cqe *cqe,
		 bool solicited);

/*
 * QP data-path API. Any context unless noted.
 *
 * rddp_qp_get_by_qpn - referenced QP of @qpn or NULL; rddp_qp_get/put take
 *   and drop references.
 * rddp_qp_sq_next - copy the SQE at the head of the SQ to @out and consume
 *   it (the slot returns to the producer). -ENOENT if the SQ is empty,
 *   -ENOTCONN unless the QP is RTS (nothing may be sent otherwise).
 * rddp_qp_rq_next - same for the next receive WQE, from the SRQ if the QP
 *   has one (which may raise IB_EVENT_SRQ_LIMIT_REACHED). -ENOENT if none,
 *   -ENOTCONN unless RTR/RTS.
 * rddp_qp_sq_complete - report the end of the SQE @id (@opcode, @flags): a
 *   CQE on the send CQ if it was signalled (or sq_sig_all) or failed.
 *   Returns rddp_cq_push()'s. The stream's sqw ring calls it in order.
 * rddp_qp_rq_complete - report the end of an RQE on the receive CQ;
 *   @inval_stag != 0 reports a Send with Invalidate of that STag, @solicited
 *   a message with the SE bit (wakes a CQ armed for solicited events).
 * rddp_qp_connected - the CM established the connection: INIT/RTR -> RTS
 *   with @s as the QP's stream over @sock (-EINVAL from any other state),
 *   and the bytes already queued on @sock received; *@closed tells whether
 *   TCP had already seen the peer's close. On success @sock and @s belong
 *   to the QP: the caller must not touch them again. Process context.
 * rddp_qp_to_error - move the QP to ERROR (flushing both queues) and, if
 *   @event is not 0, raise it (e.g. IB_EVENT_QP_FATAL). Process context.
 */
struct rddp_qp *rddp_qp_get_by_qpn(struct rddp_device *rdev, u32 qpn);
void rddp_qp_get(struct rddp_qp *qp);
void rddp_qp_put(struct rddp_qp *qp);
int rddp_qp_sq_next(struct rddp_qp *qp, struct siw_sqe *out);
int rddp_qp_rq_next(struct rddp_qp *qp, struct siw_rqe *out);
int rddp_qp_sq_complete(struct rddp_qp *qp, u64 id, u8 opcode, u16 flags,
			enum siw_wc_status status, u32 bytes);
int rddp_qp_rq_complete(struct rddp_qp *qp, const struct siw_rqe *rqe,
			enum siw_wc_status status, u32 bytes, u32 inval_stag,
			bool solicited);
int rddp_qp_connected(struct rddp_qp *qp, struct rddp_stream *s,
		      struct socket *sock, struct rddp_cep *cep, bool *closed);
void rddp_qp_to_error(struct rddp_qp *qp, enum ib_event_type event);

/*
 * rddp_srq_next - consume the next RQE of @srq into @out; -ENOENT if empty.
 * Raises IB_EVENT_SRQ_LIMIT_REACHED (once per arming) when fewer than the
 * armed limit of RQEs remain.
 */
int rddp_srq_next(struct rddp_srq *srq, struct siw_rqe *out);

/* verbs (cq.c, qp.c, srq.c) */
int rddp_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int rddp_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int rddp_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int rddp_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);

int rddp_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int rddp_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int rddp_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int rddp_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int rddp_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int rddp_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
struct ib_qp *rddp_iw_get_qp(struct ib_device *ibdev, int qpn);
void rddp_iw_add_ref(struct ib_qp *qp);
void rddp_iw_rem_ref(struct ib_qp *qp);

int rddp_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);
int rddp_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int rddp_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int rddp_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int rddp_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
/* Fills and consumes kernel-posted receive WRs; shared with qp.c. */
int rddp_rqe_from_wr(struct siw_rqe *rqe, const struct ib_recv_wr *wr,
		     u32 max_sge);

/* uring.c: user mappings of rings */
void *rddp_ring_alloc(size_t size);
int rddp_ring_map(struct ib_udata *udata, void *ring, size_t size,
		  struct rdma_user_mmap_entry **entry, u64 *key);
void rddp_ring_free(void *ring, struct rdma_user_mmap_entry *entry);
int rddp_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma);
void rddp_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* RDDP_QUEUES_H */
