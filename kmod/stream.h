/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data path of one connected QP: an MPA stream in full operation over a
 * kernel TCP socket (RFC 5044 §5), carrying DDP segments (RFC 5041) of
 * RDMAP messages (RFC 5040).
 *
 * Contexts and ownership:
 *  - TX (qp_tx.c) runs under qp->tx_mutex, in the QP's tx_work on the
 *    per-CPU rddp_tx workqueue or inline in a user's doorbell syscall; it
 *    owns the tx_* fields.
 *  - RX (qp_rx.c) runs in the socket's sk_data_ready (softirq) or in
 *    process context under lock_sock(); the socket lock serialises it. It
 *    owns the rx_* fields.
 *  - orq (Read Requests we sent, awaiting responses) is filled by TX and
 *    drained by RX; irq (Read Requests received whose response has not
 *    started; the one being answered is in tx_read) is filled by RX and
 *    drained by TX; sqw (WQEs taken from the SQ, until their CQE) is
 *    filled by TX and reaped by whichever context finishes its head: all
 *    under @lock (spinlock, bh). CQEs are pushed with @lock held, which
 *    keeps them in order; the lock order is lock -> the CQ's lock.
 *  - the stall timer (rx_stall_timer, softirq) only reads what RX
 *    recorded of an incomplete FPDU and reports through
 *    rddp_stream_error(), which any context may call.
 *  - rddp_stream_stop() (process context, with qp->state_lock held) ends
 *    both engines for good: it detaches the socket callbacks, waits for RX
 *    through the socket lock, stops the stall timer, cancels tx_work and
 *    waits for an inline run (tx_mutex), then flushes what the engines
 *    held. Only then is the socket released.
 *
 * Lifetime: allocated by the CM when the connection reaches full operation
 * (rddp_stream_start()), reachable as qp->stream until destroy_qp or a
 * reconnect of the QP (rddp_qp_connected()) frees it; the socket inside is
 * released by rddp_stream_stop(). Freed after an RCU grace period: code
 * that reads qp->stream without qp->state_lock or qp->tx_mutex (the CM's
 * event work, rddp_tx_kick()) does so under rcu_read_lock() and never
 * touches the socket.
 */
#ifndef RDDP_STREAM_H
#define RDDP_STREAM_H

#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <rddp/mpa.h>
#include <rddp/mpa_frame.h>
#include <rddp/rdmap.h>

#include "queues.h"
#include "sg.h"

struct rddp_cep;

/*
 * Segments with at most this much payload are copied into the stream before
 * their CRC is computed, so the CRC always matches the bytes sent even when
 * the application rewrites the buffer while the WQE is outstanding (perftest
 * sends and receives its handshake through one buffer).
 */
#define RDDP_TX_BOUNCE	1024

/* A Read Request we sent (ORQ) or received (IRQ). */
struct rddp_read {
	struct rddp_read_req req;
	u32 sqw;		/* ORQ: the Read WQE's sqw index */
	u32 inval_stag;		/* ORQ: Read with local invalidate, else 0 */
	bool rtr;		/* ORQ: a zero-length RTR Read, no WQE */
	u32 resp_len;		/* ORQ head: response bytes received (RX) */
};

/*
 * Where a WQE taken from the SQ stands until its CQE is written. The send
 * CQ reports WQEs in the order they were posted (RFC 5040 §5.5: completions
 * reach the ULP in submission order), although a Read finishes only when its
 * response has been placed and a zero-copy Write or Send only when TCP has
 * acknowledged its last octet (qp_tx.c): the sqw ring keeps the order.
 */
enum rddp_sqw_state {
	RDDP_SQW_SENDING,	/* TX is framing it */
	RDDP_SQW_READ,		/* Read Request sent, response awaited (RX) */
	RDDP_SQW_ACK,		/* pages lent to TCP until it acks @ack_seq */
	RDDP_SQW_DONE,		/* ready: report @status */
};

struct rddp_sqw {
	u64 id;
	u32 bytes;
	u32 ack_seq;		/* RDDP_SQW_ACK: TCP sequence after it */
	u16 flags;		/* SIW_WQE_SIGNALLED etc. */
	u8 opcode;
	u8 state;		/* enum rddp_sqw_state */
	u8 status;		/* enum siw_wc_status, once RDDP_SQW_DONE */
};

enum rddp_tx_kind {
	RDDP_TX_NONE,
	RDDP_TX_SQE,		/* a WQE from the SQ */
	RDDP_TX_READ_RESP,	/* answering the IRQ head */
	RDDP_TX_RTR,		/* RFC 6581 ready-to-receive message */
};

/* A Terminate's error fields, kept for rddpctl (RFC 5040 §4.8). */
struct rddp_term_info {
	bool valid;
	u8 layer;
	u8 etype;
	u8 ecode;
};

/* Negotiated at connection setup (cm.c), fixed afterwards. */
struct rddp_stream_params {
	u8 mpa_rev;
	bool crc;		/* both directions (RFC 5044 §7.1.1 C bit) */
	bool markers_tx;	/* the peer asked for markers */
	bool markers_rx;	/* we asked for markers */
	/* RDDP_MPA_RTR_* we send (initiator) or await (responder); 0: none */
	u8 rtr;
	u16 ird;		/* inbound Read Requests we accept */
	u16 ord;		/* outbound Read Requests in flight */
	bool tx_batch;		/* several FPDUs per send (MSG_MORE) */
	/*
	 * Lend payload pages to TCP instead of copying them (sendpage): the
	 * device's tx_zcopy setting, and only without CRC (rddp_stream_alloc()
	 * clears it with CRC). The CRC is computed when an FPDU is built, and
	 * a page that changes before TCP has sent it (a buffer reused early, a
	 * page cache page written meanwhile) would put a bad CRC on the wire
	 * and end the connection; a copy pins the bytes the CRC covers.
	 */
	bool tx_zcopy;
	/* the device's peer_timeout_ms setting: the liveness bound, 0 off */
	u32 peer_timeout_ms;
};

struct rddp_stream {
	struct rddp_qp *qp;
	struct rddp_cep *cep;	/* referenced; for error reports to the CM */
	struct socket *sock;
	struct rddp_stream_params p;
	bool stopped;		/* written under qp->state_lock */
	struct rcu_head rcu;	/* rddp_stream_free() */

	/* saved socket callbacks, restored by rddp_stream_stop() */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);

	spinlock_t lock;	/* orq and irq, see above */
	/*
	 * Rings with free-running u32 indices: each has a power-of-two number
	 * of slots, so that index % slots stays continuous across the wrap at
	 * 2^32; the limits (p.ord, p.ird, sqw_size) apply to put - get.
	 */
	struct rddp_read *orq;	/* orq_slots >= p.ord */
	u32 orq_slots, orq_put, orq_get;
	struct rddp_read *irq;	/* irq_slots >= p.ird */
	u32 irq_slots, irq_put, irq_get;
	struct rddp_sqw *sqw;	/* sqw_slots >= sqw_size, the SQ depth */
	u32 sqw_slots, sqw_size, sqw_put, sqw_get;
	u32 sqw_acks;		/* entries in RDDP_SQW_ACK */
	bool tx_sqw_full;	/* TX waits for a free sqw entry */
	bool tx_wants_read;	/* TX waits for a Read Response (ORD, fence) */

	/*
	 * The first error detected on the stream, reported to the peer with a
	 * Terminate (RFC 5040 §5.3) when the stream stops. Set once (cmpxchg
	 * on term_set) from RX or TX.
	 */
	atomic_t term_set;
	enum rddp_err term_err;
	u8 term_hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	u8 term_hdr_len;
	u16 term_seg_len;
	bool term_rreq;
	u8 term_rreq_hdr[RDDP_RDMAP_RREQ_LEN];
	bool peer_terminated;	/* we received a Terminate */
	/* what was sent (stop) and received (RX), for rddpctl */
	struct rddp_term_info term_tx;
	struct rddp_term_info term_rx;

	/* Endpoints, recorded at start; for rddpctl. */
	struct sockaddr_storage laddr;
	struct sockaddr_storage raddr;
	/*
	 * Per-QP counters: tx_* written by TX only, rx_* by RX only; readers
	 * (genl.c) use READ_ONCE.
	 */
	u64 tx_fpdus, tx_bytes;
	u64 rx_fpdus, rx_bytes;

	/* ---- TX (tx_work) ---- */
	struct rddp_mpa_tx tx_mpa;
	u32 mulpdu;
	bool tx_rtr_pending;	/* initiator: the RTR goes first */
	bool tx_blocked;	/* responder: nothing goes before the RTR */
	enum rddp_tx_kind tx_kind;
	struct siw_sqe tx_sqe;
	u32 tx_sqw;		/* tx_sqe's sqw index */
	bool tx_lent;		/* a page of tx_sqe went to TCP (zero copy) */
	struct rddp_read tx_read;	/* RDDP_TX_READ_RESP */
	struct rddp_sg tx_sg;
	u32 tx_len;		/* message length */
	u32 tx_off;		/* message bytes framed so far */
	u32 tx_msn[RDDP_QN_MAX];	/* next MSN per queue (RFC 5041 §5.1) */
	struct rddp_fpdu *tx_fpdu;	/* the FPDU being written */
	struct kvec *tx_vec;	/* RDDP_FPDU_MAX_SPANS, for kernel_sendmsg() */
	bool tx_started;	/* the job's first FPDU was built */
	/* a Read Request's payload, referenced by tx_fpdu until written */
	u8 tx_rreq[RDDP_RDMAP_RREQ_LEN];
	/* small payloads, copied before the CRC is computed (qp_tx.c) */
	u8 tx_bounce[RDDP_TX_BOUNCE];
	/*
	 * An FPDU's payload of a Read Response from a fast-register MR,
	 * copied while the MR is valid (mem.h); RDDP_FPDU_MAX_ULPDU octets,
	 * allocated by TX on first use, freed with the stream.
	 */
	u8 *tx_fr_copy;
	u32 tx_fpdu_sent;	/* its bytes already in the socket */
	bool tx_fpdu_last;	/* it ends the message */
	u32 tx_fpdu_payload;	/* its DDP payload octets */
	bool tx_fpdu_pending;	/* built and not yet fully written */
	bool tx_wants_space;	/* parked on a full socket until write_space */

	/* ---- RX (socket lock) ---- */
	struct rddp_mpa_rx rx_mpa;
	bool rx_stopped;
	bool rx_rtr_pending;	/* responder: the first message is the RTR */
	struct rddp_hdr rx_hdr;	/* the segment being received */
	u8 rx_raw_hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	u32 rx_seg_len;
	u8 rx_target;		/* enum rddp_rx_target (qp_rx.c) */
	/*
	 * Untagged and tagged placement have a context each: a tagged segment
	 * that arrives between two segments of a Send is placed through
	 * rx_tsg and leaves the Send's rx_sg and cursor alone.
	 */
	struct rddp_sg rx_tsg;	/* the tagged sink of the current segment */
	/* untagged Send being received */
	bool rx_rqe_valid;
	struct siw_rqe rx_rqe;
	struct rddp_sg rx_sg;	/* the receive buffer */
	u32 rx_msn[RDDP_QN_MAX];	/* expected MSN per queue */
	u32 rx_msg_len;		/* Send bytes placed so far */
	/* small untagged messages (Read Request, Terminate) collected here */
	u8 rx_small[RDDP_TERM_MAX_LEN];
	u32 rx_small_len;
	/*
	 * An FPDU left incomplete: RX writes these at the end of each read
	 * (qp_rx.c, rddp_rx_watch()), the stall timer reads them (stream.c,
	 * READ_ONCE). @rx_stall_fpdu is rx_fpdus when the FPDU began,
	 * @rx_stall_since the time RX first saw it incomplete.
	 */
	bool rx_in_fpdu;
	u64 rx_stall_fpdu;
	unsigned long rx_stall_since;
	struct timer_list rx_stall_timer;
};

static inline struct rddp_read *rddp_orq_slot(struct rddp_stream *s, u32 i)
{
	return &s->orq[i & (s->orq_slots - 1)];
}

static inline struct rddp_read *rddp_irq_slot(struct rddp_stream *s, u32 i)
{
	return &s->irq[i & (s->irq_slots - 1)];
}

static inline struct rddp_sqw *rddp_sqw_slot(struct rddp_stream *s, u32 i)
{
	return &s->sqw[i & (s->sqw_slots - 1)];
}

/* qp_tx.c */
void rddp_tx_work(struct work_struct *work);
void rddp_tx_kick(struct rddp_qp *qp);
void rddp_tx_doorbell(struct rddp_qp *qp);
int rddp_tx_terminate_now(struct rddp_stream *s);
void rddp_tx_flush(struct rddp_stream *s);
void rddp_sqw_reap(struct rddp_stream *s);

/* qp_rx.c */
void rddp_rx_data_ready(struct sock *sk);
void rddp_rx_drain(struct rddp_stream *s);
void rddp_rx_flush(struct rddp_stream *s);

/* stream.c */
struct rddp_stream *rddp_stream_alloc(struct rddp_qp *qp,
				      const struct rddp_stream_params *p);
void rddp_stream_free(struct rddp_stream *s);
int rddp_stream_start(struct rddp_stream *s, struct socket *sock,
		      struct rddp_cep *cep);
void rddp_stream_stop(struct rddp_stream *s, bool graceful);
void rddp_stream_term_account(struct rddp_stream *s, bool rx,
			      const struct rddp_term_info *t);
void rddp_stream_error(struct rddp_stream *s, enum rddp_err err,
		       const u8 *hdr, u32 hdr_len, u32 seg_len,
		       const u8 *rreq);

/* genl.c: an RDDP_MPA_RTR_* value as the uapi's enum rddp_rtr (res.c too) */
u8 rddp_rtr_uapi(u8 rtr);

extern struct workqueue_struct *rddp_wq;

#endif /* RDDP_STREAM_H */
