/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data path of one connected QP: DDP segments (RFC 5041) of RDMAP
 * messages (RFC 5040) over a lower-layer protocol (llp.h); today MPA in
 * full operation over a kernel TCP socket (RFC 5044 §5, llp_mpa.c).
 *
 * Contexts and ownership:
 *  - TX (qp_tx.c) runs under qp->tx_mutex, in the QP's tx_work on the
 *    per-CPU rddp_tx workqueue or inline in a user's doorbell syscall; it
 *    owns the tx_* fields. It builds DDP segments and hands them to the
 *    LLP to frame and write (s->llp).
 *  - RX (qp_rx.c) runs where the LLP delivers segments: for MPA in the
 *    socket's sk_data_ready (softirq) or in process context under
 *    lock_sock(); the socket lock serialises it. It owns the rx_* fields.
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
 *    both engines for good: it has the LLP detach its callbacks and wait
 *    for RX (llp.h, detach), stops the stall timer, cancels tx_work and
 *    waits for an inline run (tx_mutex), then flushes what the engines
 *    held. Only then does the LLP release the socket (close).
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

#include "llp.h"
#include "queues.h"
#include "sg.h"
#include "sk_hooks.h"

/*
 * Segments with at most this much payload are copied into the stream before
 * their CRC is computed, so the CRC always matches the bytes sent even when
 * the application rewrites the buffer while the WQE is outstanding (perftest
 * sends and receives its handshake through one buffer).
 */
#define RDDP_TX_BOUNCE	1024

/*
 * Writes and Sends shorter than this are copied, never lent to TCP (zero
 * copy, llp_mpa.c): they complete as soon as TCP holds them, where waiting
 * for an ACK would cost more than the copy saves.
 */
#define RDDP_TX_ZCOPY_MIN	(16 * 1024)

/*
 * The MPA LLP's stage (llp_mpa.c): FPDUs a run writes with more to follow
 * are copied here and go to TCP together, in one call. 32 KiB holds a
 * 4 KiB storage I/O's Write and response Send many times over, and 22
 * FPDUs of a 1500-octet link's MSS: one doorbell for them instead of 22.
 */
#define RDDP_TX_STAGE	(32 * 1024)

/*
 * Zero copy's stage (llp_mpa.c): the same RDDP_TX_STAGE octets, held as
 * page references: a run's FPDUs reach TCP in one call with the pages
 * they lend. Each FPDU takes a bio_vec per page its lent payload touches
 * and per page-sized piece of the octets it copies (header, markers, pad,
 * CRC), copied octets joining the bio_vec before them when they follow it
 * in the copy page: 128 hold the 23 FPDUs of 32 KiB at a 1500-octet MSS
 * with room.
 */
#define RDDP_TX_ZC_VECS	128

/**
 * struct rddp_read - a Read Request we sent (ORQ) or received (IRQ)
 * @req: the Read Request header
 * @sqw: ORQ: the Read WQE's sqw index
 * @inval_stag: ORQ: Read with local invalidate of this STag, else 0
 * @rtr: ORQ: a zero-length RTR Read, no WQE
 * @resp_len: ORQ head: response bytes received (RX)
 */
struct rddp_read {
	struct rddp_read_req req;
	u32 sqw;
	u32 inval_stag;
	bool rtr;
	u32 resp_len;
};

/**
 * enum rddp_sqw_state - where a WQE taken from the SQ stands until its CQE
 * is written
 * @RDDP_SQW_SENDING: TX is framing it
 * @RDDP_SQW_READ: Read Request sent, response awaited (RX)
 * @RDDP_SQW_ACK: pages lent to TCP until it acks the entry's ack_seq
 * @RDDP_SQW_DONE: ready: report the entry's status
 *
 * The send CQ reports WQEs in the order they were posted (RFC 5040 §5.5:
 * completions reach the ULP in submission order), although a Read finishes
 * only when its response has been placed and a zero-copy Write or Send only
 * when TCP has acknowledged its last octet (qp_tx.c): the sqw ring keeps
 * the order.
 */
enum rddp_sqw_state {
	RDDP_SQW_SENDING,
	RDDP_SQW_READ,
	RDDP_SQW_ACK,
	RDDP_SQW_DONE,
};

/**
 * struct rddp_sqw - an entry of the sqw ring
 * @id: the WQE's wr_id
 * @bytes: its length
 * @ack_seq: RDDP_SQW_ACK: the TCP sequence after its last octet
 * @flags: its SIW_WQE_SIGNALLED etc.
 * @opcode: its opcode
 * @state: enum rddp_sqw_state
 * @status: enum siw_wc_status, once RDDP_SQW_DONE
 */
struct rddp_sqw {
	u64 id;
	u32 bytes;
	u32 ack_seq;
	u16 flags;
	u8 opcode;
	u8 state;
	u8 status;
};

/**
 * enum rddp_tx_kind - what TX is sending
 * @RDDP_TX_NONE: nothing
 * @RDDP_TX_SQE: a WQE from the SQ
 * @RDDP_TX_READ_RESP: a Read Response, answering the IRQ head
 * @RDDP_TX_RTR: the RFC 6581 ready-to-receive message
 */
enum rddp_tx_kind {
	RDDP_TX_NONE,
	RDDP_TX_SQE,
	RDDP_TX_READ_RESP,
	RDDP_TX_RTR,
};

/**
 * struct rddp_term_info - a Terminate's error fields, kept for rddpctl
 * (RFC 5040 §4.8)
 * @valid: a Terminate was sent or received
 * @layer: enum rddp_term_layer
 * @etype: the Error Type
 * @ecode: the Error Code
 */
struct rddp_term_info {
	bool valid;
	u8 layer;
	u8 etype;
	u8 ecode;
};

/**
 * struct rddp_stream_params - negotiated at connection setup (cm.c), fixed
 * afterwards
 * @mpa_rev: the MPA revision, 1 or 2
 * @crc: CRC32c in both directions (RFC 5044 §7.1.1 C bit)
 * @markers_tx: the peer asked for markers
 * @markers_rx: we asked for markers
 * @rtr: RDDP_MPA_RTR_* we send (initiator) or await (responder); 0: none
 * @ird: inbound Read Requests we accept
 * @ord: outbound Read Requests in flight
 * @tx_batch: a run's FPDUs in one send (MSG_MORE, MPA's stage)
 * @tx_zcopy: lend payload pages to TCP instead of copying them (compat.h):
 *	the device's tx_zcopy setting, and only without CRC
 *	(rddp_stream_alloc() clears it with CRC). The CRC is computed when
 *	an FPDU is built, and a page that changes before TCP has sent it (a
 *	buffer reused early, a page cache page written meanwhile) would put a
 *	bad CRC on the wire and end the connection; a copy pins the bytes the
 *	CRC covers.
 * @peer_timeout_ms: the device's peer_timeout_ms setting: the liveness
 *	bound, 0 off
 */
struct rddp_stream_params {
	u8 mpa_rev;
	bool crc;
	bool markers_tx;
	bool markers_rx;
	u8 rtr;
	u16 ird;
	u16 ord;
	bool tx_batch;
	bool tx_zcopy;
	u32 peer_timeout_ms;
};

/**
 * struct rddp_stream - the data path of one connected QP
 * @qp: its QP
 * @conn: the connection endpoint, referenced; for error reports to the CM
 *	(queues.h: the CM's callbacks, struct rddp_conn)
 * @llp: the lower-layer protocol's operations (llp.h)
 * @up: the engines' entry points (llp.h), which the LLP calls back and
 *	rddp_stream_stop() flushes with: the QP's table (qp.c), given at
 *	rddp_stream_start()
 * @sock: the connection's socket, the LLP's from start until close
 * @sctp: llp_sctp.c: the DDP Stream on the association (sctp_link.h), the
 *	stream's with @sock; NULL over MPA
 * @p: the parameters negotiated at connection setup
 * @stopped: rddp_stream_stop() ran; written under qp->state_lock
 * @rcu: rddp_stream_free() frees after a grace period
 * @saved_hooks: the socket's callbacks, given back by the LLP's detach
 * @lock: protects the orq, irq and sqw rings (see above)
 * @orq: Read Requests we sent, awaiting responses; @orq_slots >= p.ord
 * @orq_slots: slots in @orq, a power of two
 * @orq_put: @orq's producer index (TX)
 * @orq_get: @orq's consumer index (RX)
 * @irq: Read Requests received whose response has not started;
 *	@irq_slots >= p.ird
 * @irq_slots: slots in @irq, a power of two
 * @irq_put: @irq's producer index (RX)
 * @irq_get: @irq's consumer index (TX)
 * @sqw: WQEs taken from the SQ, until their CQE; @sqw_slots >= @sqw_size
 * @sqw_slots: slots in @sqw, a power of two
 * @sqw_size: the SQ depth, the limit on @sqw_put - @sqw_get
 * @sqw_put: @sqw's producer index (TX)
 * @sqw_get: @sqw's consumer index (whoever finishes its head)
 * @sqw_acks: entries in RDDP_SQW_ACK
 * @tx_sqw_full: TX waits for a free sqw entry
 * @tx_wants_read: TX waits for a Read Response (ORD, fence)
 * @term_set: the first error on the stream was recorded (cmpxchg from RX
 *	or TX); it is reported to the peer with a Terminate (RFC 5040 §5.3)
 *	when the stream stops
 * @term_err: that error
 * @term_hdr: the offending DDP header, copied into the Terminate
 * @term_hdr_len: its octets, 0 for none
 * @term_seg_len: the offending segment's length
 * @term_rreq: @term_rreq_hdr is valid
 * @term_rreq_hdr: the offending Read Request header
 * @peer_terminated: we received a Terminate
 * @term_tx: the Terminate sent (at stop), for rddpctl
 * @term_rx: the Terminate received (RX), for rddpctl
 * @laddr: the local endpoint, recorded at start, for rddpctl
 * @raddr: the remote endpoint, likewise
 * @tx_fpdus: FPDUs sent; written by TX only, read with READ_ONCE (genl.c)
 * @tx_bytes: bytes sent, likewise
 * @rx_fpdus: FPDUs received; written by RX only, read with READ_ONCE
 * @rx_bytes: bytes received, likewise
 * @tx_mpa: TX: the MPA framing state (llp_mpa.c)
 * @mulpdu: TX: the most octets one ULPDU holds (RFC 5044 §4.5), set by
 *	the LLP's start, lowered by its tx_write (llp.h: -EMSGSIZE) under
 *	qp->tx_mutex; read elsewhere with READ_ONCE
 * @tx_rtr_pending: TX, initiator: the RTR goes first
 * @tx_blocked: TX, responder: nothing goes before the RTR
 * @tx_kind: TX: what is being sent
 * @tx_sqe: TX: the WQE from the SQ (RDDP_TX_SQE)
 * @tx_sqw: TX: @tx_sqe's sqw index
 * @tx_lent: TX: a page of @tx_sqe went to TCP (zero copy)
 * @tx_read: TX: the Read Request answered (RDDP_TX_READ_RESP)
 * @tx_sg: TX: the message's local buffers
 * @tx_len: TX: the message's length
 * @tx_off: TX: message bytes framed so far
 * @tx_msn: TX: the next MSN per untagged queue (RFC 5041 §5.1)
 * @tx_fpdu: TX: the framed segment being written (the LLP's tx_frame)
 * @tx_vec: TX: RDDP_FPDU_MAX_SPANS + 1 kvecs, for kernel_sendmsg()
 * @tx_started: TX: the job's first FPDU was built
 * @tx_rreq: TX: a Read Request's payload, referenced by @tx_fpdu until
 *	written
 * @tx_bounce: TX: small payloads, copied before the CRC is computed
 *	(qp_tx.c)
 * @tx_copy: TX: an FPDU's payload copied out of its MRs while they
 *	answer to their STags: a Read Response's, or a WQE's from a
 *	fast-register MR (qp_tx.c, mem.h); RDDP_FPDU_MAX_ULPDU octets,
 *	allocated by TX on first use, freed with the stream
 * @tx_term: the Terminate's payload, built by rddp_tx_terminate_now():
 *	memory the stream owns, which is never lent to TCP
 * @tx_fpdu_sent: TX: @tx_fpdu's bytes already in the socket
 * @tx_fpdu_last: TX: @tx_fpdu ends the message
 * @tx_fpdu_payload: TX: @tx_fpdu's DDP payload octets
 * @tx_fpdu_pending: TX: @tx_fpdu is built and not yet fully written
 * @tx_wants_space: TX: parked on a full socket until write_space
 * @tx_unpushed: TX: this run wrote with @more (llp.h tx_write), so the
 *	LLP may hold the last octets back until tx_push
 * @tx_stage: TX, MPA: whole FPDUs written with @more, copied here until
 *	the next write without it or tx_push (llp_mpa.c); RDDP_TX_STAGE
 *	octets, allocated by TX on first use, freed with the stream
 * @tx_stage_len: TX, MPA: octets in @tx_stage, or in @tx_zv with zero copy
 * @tx_stage_sent: TX, MPA: of those, octets already in the socket
 * @tx_zv: TX, MPA with zero copy: the stage as RDDP_TX_ZC_VECS bio_vecs,
 *	each holding a reference on its page until TCP has taken the page
 *	(llp_mpa.c); allocated by TX on first use, freed with the stream,
 *	the references dropped by the LLP's close
 * @tx_zv_nr: TX: bio_vecs in @tx_zv
 * @tx_zv_done: TX: of those, the ones TCP took whole
 * @tx_zv_off: TX: octets TCP took of @tx_zv[@tx_zv_done]
 * @tx_zpage: TX: the page zero copy's stage copies octets into that it
 *	does not lend (header, markers, pad, CRC, the stream's own memory);
 *	a full one is left to the references its bio_vecs and TCP hold
 * @tx_zpage_off: TX: octets of @tx_zpage used
 * @tx_copy_page: TX, MPA with zero copy: the copy page TX copied the
 *	current FPDU's payload into (llp.h's tx_copy_to), referenced until
 *	the next one is built or the LLP's close: a stage that moves on to
 *	a new copy page before it has copied the payload must still read it
 * @rx_mpa: RX: the MPA deframer (llp_mpa.c)
 * @rx_stopped: RX: the stream stopped; nothing more is read
 * @rx_rtr_pending: RX, responder: the first message is the RTR
 * @rx_reads_queued: RX: this receive batch queued Read Requests; TX is
 *	kicked once, at the batch's end (rddp_rx_batch_end())
 * @rx_hdr: RX: the header of the segment being received
 * @rx_raw_hdr: RX: that header as received, for a Terminate
 * @rx_seg_len: RX: that segment's payload octets
 * @rx_target: RX: enum rddp_rx_target (qp_rx.c)
 * @rx_tsg: RX: the tagged sink of the current segment. Untagged and tagged
 *	placement have a context each: a tagged segment that arrives between
 *	two segments of a Send is placed through @rx_tsg and leaves the
 *	Send's @rx_sg and cursor alone
 * @rx_rqe_valid: RX: @rx_rqe holds the receive WQE of a Send in progress
 * @rx_rqe: RX: that WQE
 * @rx_sg: RX: its receive buffer
 * @rx_msn: RX: the expected MSN per untagged queue
 * @rx_cover: RX: the octets of that Send its segments placed so far
 *	(RFC 5041 §5.4; qp_rx.c)
 * @rx_msg_len: RX: that Send's length, set by its last segment once the
 *	segment is known to leave no octet of it unplaced
 * @rx_small: RX: small untagged messages (Read Request, Terminate)
 *	collected here
 * @rx_small_len: RX: octets in @rx_small
 * @rx_in_fpdu: an FPDU is left incomplete. RX writes this and the two
 *	below at the end of each read (llp_mpa.c, rddp_rx_watch()), the stall
 *	timer reads them (stream.c, READ_ONCE)
 * @rx_stall_fpdu: rx_fpdus when that FPDU began
 * @rx_stall_since: the time RX first saw it incomplete
 * @rx_stall_timer: bounds how long a peer may leave an FPDU incomplete
 *	(p.peer_timeout_ms)
 *
 * Rings with free-running u32 indices: each has a power-of-two number of
 * slots, so that index % slots stays continuous across the wrap at 2^32;
 * the limits (p.ord, p.ird, sqw_size) apply to put - get.
 */
struct rddp_stream {
	struct rddp_qp *qp;
	struct rddp_conn *conn;
	const struct rddp_llp_ops *llp;
	const struct rddp_llp_upcalls *up;
	struct socket *sock;
	struct rddp_sctp_link *sctp;
	struct rddp_stream_params p;
	bool stopped;
	struct rcu_head rcu;

	struct rddp_sk_hooks saved_hooks;

	spinlock_t lock;	/* orq, irq and sqw, see above */
	struct rddp_read *orq;
	u32 orq_slots, orq_put, orq_get;
	struct rddp_read *irq;
	u32 irq_slots, irq_put, irq_get;
	struct rddp_sqw *sqw;
	u32 sqw_slots, sqw_size, sqw_put, sqw_get;
	u32 sqw_acks;
	bool tx_sqw_full;
	bool tx_wants_read;

	atomic_t term_set;
	enum rddp_err term_err;
	u8 term_hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	u8 term_hdr_len;
	u16 term_seg_len;
	bool term_rreq;
	u8 term_rreq_hdr[RDDP_RDMAP_RREQ_LEN];
	bool peer_terminated;
	struct rddp_term_info term_tx;
	struct rddp_term_info term_rx;

	struct sockaddr_storage laddr;
	struct sockaddr_storage raddr;
	u64 tx_fpdus, tx_bytes;
	u64 rx_fpdus, rx_bytes;

	/* ---- TX (tx_work) ---- */
	struct rddp_mpa_tx tx_mpa;
	u32 mulpdu;
	bool tx_rtr_pending;
	bool tx_blocked;
	enum rddp_tx_kind tx_kind;
	struct siw_sqe tx_sqe;
	u32 tx_sqw;
	bool tx_lent;
	struct rddp_read tx_read;
	struct rddp_sg tx_sg;
	u32 tx_len;
	u32 tx_off;
	u32 tx_msn[RDDP_QN_MAX];
	struct rddp_fpdu *tx_fpdu;
	struct kvec *tx_vec;
	bool tx_started;
	u8 tx_rreq[RDDP_RDMAP_RREQ_LEN];
	u8 tx_bounce[RDDP_TX_BOUNCE];
	u8 *tx_copy;
	u8 tx_term[RDDP_TERM_MAX_LEN];
	u32 tx_fpdu_sent;
	bool tx_fpdu_last;
	u32 tx_fpdu_payload;
	bool tx_fpdu_pending;
	bool tx_wants_space;
	bool tx_unpushed;
	u8 *tx_stage;
	u32 tx_stage_len;
	u32 tx_stage_sent;
	struct bio_vec *tx_zv;
	u32 tx_zv_nr;
	u32 tx_zv_done;
	u32 tx_zv_off;
	struct page *tx_zpage;
	u32 tx_zpage_off;
	struct page *tx_copy_page;

	/* ---- RX (socket lock) ---- */
	struct rddp_mpa_rx rx_mpa;
	bool rx_stopped;
	bool rx_rtr_pending;
	bool rx_reads_queued;
	struct rddp_hdr rx_hdr;
	u8 rx_raw_hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	u32 rx_seg_len;
	u8 rx_target;
	struct rddp_sg rx_tsg;
	bool rx_rqe_valid;
	struct siw_rqe rx_rqe;
	struct rddp_sg rx_sg;
	u32 rx_msn[RDDP_QN_MAX];
	struct rddp_ddp_cover rx_cover;
	u32 rx_msg_len;
	u8 rx_small[RDDP_TERM_MAX_LEN];
	u32 rx_small_len;
	bool rx_in_fpdu;
	u64 rx_stall_fpdu;
	unsigned long rx_stall_since;
	struct timer_list rx_stall_timer;
};

/**
 * rddp_orq_slot() - an ORQ slot by free-running index
 * @s: the stream
 * @i: the index
 *
 * Return: the slot; the caller holds @s->lock.
 */
static inline struct rddp_read *rddp_orq_slot(struct rddp_stream *s, u32 i)
{
	return &s->orq[i & (s->orq_slots - 1)];
}

/**
 * rddp_irq_slot() - an IRQ slot by free-running index
 * @s: the stream
 * @i: the index
 *
 * Return: the slot; the caller holds @s->lock.
 */
static inline struct rddp_read *rddp_irq_slot(struct rddp_stream *s, u32 i)
{
	return &s->irq[i & (s->irq_slots - 1)];
}

/**
 * rddp_sqw_slot() - an sqw ring entry by free-running index
 * @s: the stream
 * @i: the index
 *
 * Return: the entry; the caller holds @s->lock.
 */
static inline struct rddp_sqw *rddp_sqw_slot(struct rddp_stream *s, u32 i)
{
	return &s->sqw[i & (s->sqw_slots - 1)];
}

/**
 * rddp_stream_alloc() - allocate a stream for a QP
 * @qp: the QP
 * @p: the parameters negotiated at connection setup
 * @llp: the lower-layer protocol it runs over (llp.h)
 *
 * Sizes the orq, irq and sqw rings (IRD, ORD, the SQ depth). Process
 * context.
 *
 * Return: the stream, or NULL without memory.
 */
struct rddp_stream *rddp_stream_alloc(struct rddp_qp *qp,
				      const struct rddp_stream_params *p,
				      const struct rddp_llp_ops *llp);

/**
 * rddp_stream_free() - free a stream after an RCU grace period
 * @s: the stream, stopped and its socket released; NULL does nothing
 */
void rddp_stream_free(struct rddp_stream *s);

/**
 * rddp_stream_start() - take over a connected socket: full operation
 * @s: the stream
 * @sock: the connection's socket, after MPA setup
 * @conn: the connection endpoint, referenced for error reports
 * @up: the engines (llp.h): what the LLP calls back and the stop's
 *	flushes; the QP's (qp.c), which names them
 *
 * Records the endpoints, then has the LLP take over (llp.h, start: the
 * liveness bound, MULPDU, the socket's callbacks). Process context, under
 * qp->state_lock and qp->tx_mutex; the LLP's rx_drain follows.
 *
 * Return: 0.
 */
int rddp_stream_start(struct rddp_stream *s, struct socket *sock,
		      struct rddp_conn *conn,
		      const struct rddp_llp_upcalls *up);

/**
 * rddp_stream_stop() - end both engines for good and close the socket
 * @s: the stream
 * @graceful: read and drop what the peer sent and shut down our side
 *	first, so that the close sends FIN rather than RST (a Terminate sent
 *	here makes it graceful)
 *
 * Has the LLP detach its callbacks and wait for RX, stops the stall
 * timer, cancels tx_work and waits for an inline run; then sends the
 * Terminate of a recorded error (RFC 5040 §5.3), flushes what the engines
 * held and has the LLP release the socket. Process context, with
 * qp->state_lock held; a second call does nothing.
 */
void rddp_stream_stop(struct rddp_stream *s, bool graceful);

/**
 * rddp_stream_term_account() - account a Terminate sent or received
 * @s: the stream
 * @rx: received (else sent)
 * @t: its error fields
 *
 * Counts it in the device's counters and reports it to rddpctl's monitor.
 */
void rddp_stream_term_account(struct rddp_stream *s, bool rx,
			      const struct rddp_term_info *t);

/**
 * rddp_stream_peer_late() - whether the peer kept RX waiting too long
 * @s: the stream
 * @t: the LLP's liveness timer for the wait, which fired
 * @since: when RX saw the wait begin (jiffies; RX writes it, WRITE_ONCE)
 * @waiting: whether RX still waits (RX writes it, WRITE_ONCE)
 *
 * The check of the LLPs' liveness timers: an FPDU left incomplete over MPA
 * (stream.c), a DDP-SSN missing over SCTP (llp_sctp.c), each bounded by
 * peer_timeout_ms while the LLP itself stays up. A wait that began less
 * than peer_timeout_ms ago re-arms @t for its end. Softirq; reads only what
 * RX recorded.
 *
 * Return: true when the stream must end with an error; false when it
 * stopped, already has an error, RX no longer waits, or the wait has time
 * left.
 */
bool rddp_stream_peer_late(struct rddp_stream *s, struct timer_list *t,
			   const unsigned long *since, const bool *waiting);

/**
 * rddp_stream_error() - record the stream's first error and have the CM
 * stop it
 * @s: the stream
 * @err: the error; RDDP_ERR_NONE or RDDP_ERR_LLP_CLOSED send no Terminate
 * @hdr: the offending DDP header, copied into the Terminate, or NULL
 * @hdr_len: its length (14 or 18; anything else copies nothing)
 * @seg_len: the offending segment's length
 * @rreq: the offending Read Request header, or NULL
 *
 * Only the first error counts. Any context.
 */
void rddp_stream_error(struct rddp_stream *s, enum rddp_err err,
		       const u8 *hdr, u32 hdr_len, u32 seg_len,
		       const u8 *rreq);

/**
 * rddp_rtr_uapi() - an RDDP_MPA_RTR_* value as the uapi's enum rddp_rtr
 * @rtr: the value (genl.c and res.c report it)
 *
 * Return: the enum rddp_rtr value; RDDP_RTR_NONE for none or a
 * combination.
 */
u8 rddp_rtr_uapi(u8 rtr);

/**
 * rddp_stream_transport() - a stream's LLP as the uapi's enum rddp_transport
 * @s: the stream (genl.c and res.c report it)
 *
 * Return: RDDP_TRANSPORT_SCTP over SCTP, else RDDP_TRANSPORT_TCP (MPA).
 */
u8 rddp_stream_transport(const struct rddp_stream *s);

/**
 * rddp_stream_ssns() - an SCTP stream's next DDP-SSN each way
 * @s: the stream; the caller holds s->qp->state_lock, which keeps its link
 * @tx: our next DDP-SSN
 * @rx: the next DDP-SSN the peer's chunks are delivered at
 *
 * A snapshot: TX and RX move them meanwhile.
 *
 * Return: true with *@tx and *@rx over SCTP while the link is there;
 * false over MPA or once the stream closed.
 */
bool rddp_stream_ssns(const struct rddp_stream *s, u16 *tx, u16 *rx);

#endif /* RDDP_STREAM_H */
