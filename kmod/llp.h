/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lower-layer protocol (LLP) boundary of a connected QP's stream
 * (stream.h). RFC 5041 §1 and §4 place DDP over an LLP through a small
 * set of services: send a ULPDU (a DDP segment) whole, deliver received
 * ones whole and in order (or with their order recoverable), report the
 * LLP's errors and its close. rddp keeps the DDP/RDMAP engines above this
 * table (qp_tx.c builds segments, qp_rx.c checks and places them) and
 * each LLP below it in its own file:
 *
 *  - llp_mpa.c: MPA FPDUs (RFC 5044 §4: markers, pad, CRC32c) over a
 *    kernel TCP socket; RX in sk_data_ready through tcp_read_sock();
 *    zero-copy TX lending pages to TCP by reference.
 *  - llp_sctp.c: the SCTP adaptation, draft-ietf-rddp-sctp-00: one DATA
 *    chunk per DDP segment, PPID 1, U=1, delivered in DDP-SSN order
 *    (tagged ones that arrive early placed at once, RFC 5041 §5.3);
 *    RX in a work item through kernel_recvmsg(); no zero copy.
 *
 * Contexts and locks. The engines call the table with their own context's
 * lock held, as stream.h sets out:
 *  - tx_frame, tx_write, tx_push, tx_writeable, tx_mark: TX, under
 *    qp->tx_mutex
 *    (tx_write also from rddp_stream_stop() for the Terminate, blocking,
 *    with the engines halted);
 *  - tx_acked: any context, under the stream's @lock (spinlock, bh);
 *  - start, rx_drain, closed: the CM's work, under qp->state_lock and
 *    qp->tx_mutex (start) or qp->state_lock (rx_drain, closed);
 *  - detach, close: rddp_stream_stop(), process context, qp->state_lock
 *    held, in that order, with the Terminate and the flushes between them.
 * An LLP's own callbacks (the socket's) deliver received segments to the
 * DDP/RDMAP RX callbacks (rddp_ddp_rx_ops, qp_rx.c) one at a time: header,
 * payload spans, then fpdu_done once the segment is known to be intact
 * (MPA: CRC checked). Those callbacks run serialised (MPA: the socket
 * lock) and never concurrently with detach returning.
 *
 * Errors, the Terminate and liveness: a DDP/RDMAP error goes through
 * rddp_stream_error(); at stop the Terminate (RFC 5040 §5.3) is built by
 * rddp_tx_terminate_now() as a DDP segment like any other and written
 * through tx_frame and tx_write, and an LLP whose session has an end of
 * its own (draft-ietf-rddp-sctp §3.4, the session Terminate) sends that
 * in close. An LLP's own errors (MPA: framing, markers, CRC, RFC 5044 §8)
 * go through rddp_stream_error() too, as the stream's upcall (s->up->error,
 * struct rddp_llp_upcalls below): an LLP calls nothing above it by name.
 * start sets the LLP's liveness bound (peer_timeout_ms); every end of the
 * connection the LLP sees is reported with rddp_conn_event() on the
 * stream's endpoint (s->conn, queues.h): RDDP_CEP_EV_PEER_CLOSED for the
 * peer's graceful close, RDDP_CEP_EV_PEER_ABORTED for a reset or a peer
 * that stopped answering.
 *
 * Lifetime: the table is static and const; a stream points at its LLP's
 * table from rddp_stream_alloc() until it is freed. The socket is the
 * stream's (s->sock) from start until close releases it.
 */
#ifndef RDDP_LLP_H
#define RDDP_LLP_H

#include <linux/net.h>
#include <linux/types.h>
#include <rddp/mpa.h>
#include <rddp/rdmap.h>

#include "compat.h"

struct rddp_qp;
struct rddp_stream;
struct timer_list;

/**
 * struct rddp_llp_upcalls - what the stream gives its LLP to call back
 * @rx: the DDP/RDMAP RX callbacks each received segment is fed to, with
 *	the stream as context (qp_rx.c): header, payload per span, then
 *	fpdu_done once the segment is intact
 * @rx_batch_end: the end of one receive batch (qp_rx.c,
 *	rddp_rx_batch_end())
 * @rx_place_tagged: place a tagged segment that arrived ahead of its turn
 *	(qp_rx.c, rddp_rx_place_tagged(); SCTP)
 * @rx_tagged_placed: the in-order pass of a segment @rx_place_tagged
 *	placed (qp_rx.c, rddp_rx_tagged_placed())
 * @tx_kick: queue the QP's TX work (qp_tx.c, rddp_tx_kick())
 * @tx_reap: report the finished WQEs at the head of the sqw ring, on an
 *	acknowledgment (qp_tx.c, rddp_sqw_reap())
 * @error: record the stream's first error and have the CM stop it
 *	(stream.c, rddp_stream_error())
 * @peer_late: the check of an LLP's liveness timer (stream.c,
 *	rddp_stream_peer_late())
 * @tx_terminate_now: the stream's stop: send the Terminate (qp_tx.c,
 *	rddp_tx_terminate_now())
 * @tx_flush: the stream's stop: report every WQE TX took (qp_tx.c,
 *	rddp_tx_flush())
 * @rx_flush: the stream's stop: end the receive being filled (qp_rx.c,
 *	rddp_rx_flush())
 *
 * The engines' entry points, in one table that the QP (qp.c, which names
 * them) gives its stream at rddp_stream_start() (s->up): an LLP reaches
 * the engines above it through the table alone, never by name, and so
 * does the stream's stop (the last three); the LLP reports the end of its
 * connection through the stream's endpoint (rddp_conn_event(), queues.h).
 * Contexts: as the named functions say; each is called where it was
 * called by name before.
 */
struct rddp_llp_upcalls {
	const struct rddp_mpa_rx_ops *rx;
	void (*rx_batch_end)(struct rddp_stream *s);
	bool (*rx_place_tagged)(struct rddp_stream *s, const u8 *raw,
				u32 hdr_len, const u8 *payload, u32 len);
	int (*rx_tagged_placed)(struct rddp_stream *s, const u8 *raw,
				u32 hdr_len, u32 len);
	void (*tx_kick)(struct rddp_qp *qp);
	void (*tx_reap)(struct rddp_stream *s);
	void (*error)(struct rddp_stream *s, enum rddp_err err, const u8 *hdr,
		      u32 hdr_len, u32 seg_len, const u8 *rreq);
	bool (*peer_late)(struct rddp_stream *s, struct timer_list *t,
			  const unsigned long *since, const bool *waiting);
	int (*tx_terminate_now)(struct rddp_stream *s);
	void (*tx_flush)(struct rddp_stream *s);
	void (*rx_flush)(struct rddp_stream *s);
};

/**
 * rddp_sock_release() - close one of rddp's sockets (an LLP's, or one of
 * connection setup) so that the transport still finishes its close
 * @sock: the socket
 *
 * Our sockets are kernel sockets: they hold no reference to their network
 * namespace, and tcp_close() stops the retransmission timers of such a
 * socket (6.1.85: "tcp: properly terminate timers for kernel sockets"). A
 * graceful close's FIN, or the last data before it, is then sent once and
 * never again: if the network loses it, the peer never learns that the
 * connection is over, and its QP stays connected for good (seen with
 * tools/vm/uml-wire.py --loss 2: a server QP or two in 64 connections
 * closed). So the socket takes the reference a user socket has, as mptcp's
 * subflows do, for the rest of its life as an orphan: TCP retransmits and
 * times out as for any socket, and frees it, and the reference, when done
 * (compat.h: how the reference is taken differs between 6.1 and 6.12). A
 * namespace already being dismantled gives no reference: its sockets go
 * without retransmissions, as before. Here, below the CM and the LLPs,
 * because both close sockets.
 */
static inline void rddp_sock_release(struct socket *sock)
{
	rddp_sk_hold_net(sock->sk);
	sock_release(sock);
}

/**
 * struct rddp_llp_ops - what a stream asks of its lower-layer protocol
 * @name: the LLP's name, for messages
 * @transport: the uapi's enum rddp_transport of the LLP, which rddpctl
 *	and `rdma resource` report (rddp_stream_transport())
 * @mo_in_order: the LLP hands up a message's DDP segments in the order the
 *	sender sent them and senders send them in MO order (MPA over TCP),
 *	so each must start where the octets placed so far end; without it
 *	(SCTP) they may come in any MO order within their message
 *	(rddp_ddp_cover_add(), RFC 5041 §5.3)
 * @start: take over the connected socket: the liveness bound, MULPDU
 *	(s->mulpdu), the framing state, the socket's callbacks. Cannot
 *	fail: what may fail is done during connection setup
 * @rx_drain: receive what the LLP queued before start, in process context
 * @closed: whether the connection has already ended (checked once, right
 *	after start and rx_drain)
 * @detach: restore the socket's callbacks and wait until RX is over for
 *	good (s->rx_stopped set); TX may still write (the Terminate)
 * @close: release the socket, s->sock NULL afterwards; @graceful: read
 *	and drop what is queued and shut our side down first (orderly
 *	close rather than a reset)
 * @tx_frame: frame the DDP segment @hdr (@hdr_len octets) with the payload
 *	@frags (@nr pieces) into s->tx_fpdu as a gather list; the pieces
 *	stay referenced until written. Return: 0, or a negative errno for
 *	a segment the LLP cannot carry
 * @tx_copy_to: where TX may copy the payload of the next segment, @len
 *	octets behind a DDP header of @hdr_len, so that the LLP's write
 *	finds it in place and copies it no more (MPA: its stage; optional).
 *	NULL: TX copies it into s->tx_copy. The memory is the stream's
 *	until that segment is written; TX frames the segment before
 *	anything else is written
 * @tx_write: write what is left of s->tx_fpdu (from s->tx_fpdu_sent);
 *	@more: another segment may follow at once, so the LLP may hold
 *	these octets back to send them with it (until tx_push or a write
 *	without @more); @block: wait for room (the
 *	Terminate at stop). Return: 0 when all of it is written, -EAGAIN
 *	when the socket is full, -EMSGSIZE when the segment is too long
 *	for the LLP's path now (SCTP: the path MTU fell): nothing of it
 *	was written, the LLP took it back (its sequence number is unspent)
 *	and set s->mulpdu to what the path carries now, lower or not, and
 *	never so low that a DDP header and payload do not fit, so that TX
 *	builds it again, smaller, from the same point of the message
 *	(qp_tx.c; MPA never returns it); another negative errno when the
 *	LLP failed
 * @tx_push: send what writes with @more held back; TX calls it when a
 *	run has nothing more to write now (optional: an LLP that holds
 *	nothing back has none). Return: 0, -EAGAIN when the socket is full
 *	(TX parks and calls it again once there is room), or the LLP's error
 * @tx_writeable: whether a write would find room now (TX parks when not;
 *	the LLP's write-space callback kicks it)
 * @tx_mark: the LLP's sequence number after the last octet written (in
 *	the socket or held back by the LLP to write with the next ones), for
 *	a WQE whose pages the LLP holds (zero copy) until it is acknowledged
 * @tx_acked: the LLP's sequence acknowledged by the peer so far;
 *	@watch: a zero-copy WQE is waiting, so have every acknowledgment
 *	call the write-space callback
 */
struct rddp_llp_ops {
	const char *name;
	u8 transport;
	bool mo_in_order;
	void (*start)(struct rddp_stream *s);
	void (*rx_drain)(struct rddp_stream *s);
	bool (*closed)(struct rddp_stream *s);
	void (*detach)(struct rddp_stream *s);
	void (*close)(struct rddp_stream *s, bool graceful);
	int (*tx_frame)(struct rddp_stream *s, const u8 *hdr, u32 hdr_len,
			const struct rddp_span *frags, u32 nr);
	u8 *(*tx_copy_to)(struct rddp_stream *s, u32 hdr_len, u32 len);
	int (*tx_write)(struct rddp_stream *s, bool more, bool block);
	int (*tx_push)(struct rddp_stream *s);
	bool (*tx_writeable)(struct rddp_stream *s);
	u32 (*tx_mark)(struct rddp_stream *s);
	u32 (*tx_acked)(struct rddp_stream *s, bool watch);
};

/* MPA over TCP (RFC 5044), llp_mpa.c. */
extern const struct rddp_llp_ops rddp_llp_mpa;
/* DDP over SCTP (draft-ietf-rddp-sctp-00), llp_sctp.c. */
extern const struct rddp_llp_ops rddp_llp_sctp;

#endif /* RDDP_LLP_H */
