/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One DDP Stream over an SCTP association (draft-ietf-rddp-sctp-00), the
 * state the SCTP CM (cm_sctp.c) and the SCTP LLP (llp_sctp.c) share:
 * sending and receiving whole DATA chunks on a one-to-one kernel SCTP
 * socket, the DDP-SSN of each direction (§2.2.1) with the receive window
 * that puts unordered chunks (§7) back in DDP-SSN order, and the DDP
 * Stream Session's phases (§3).
 *
 * Ownership: the CM allocates a link with the connection's socket and uses
 * it for the session messages (Initiate, Accept, Terminate); when the QP
 * goes to RTS the link moves to the QP's stream (s->sctp) with the socket,
 * and the LLP's close frees it. One owner at a time: the CM under
 * cep->lock, then the stream (llp.h's contexts). Chunks that arrive ahead
 * of their turn are held in the link (copied; a tagged segment the LLP
 * placed on arrival, its header only): they move with it. What they take
 * is charged to the socket as receive memory, within its receive buffer
 * (llp_sctp.c, "Holding chunks"): free the link, which uncharges it,
 * before releasing the socket.
 */
#ifndef RDDP_SCTP_LINK_H
#define RDDP_SCTP_LINK_H

#include <linux/xarray.h>
#include <linux/net.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rddp/sctp.h>

/*
 * One DDP Stream per association (§5): every chunk uses stream id
 * RDDP_SCTP_SID, and an association has RDDP_SCTP_STREAMS streams each
 * way. §5 pairs the inbound and outbound SCTP stream of one id into one
 * DDP Stream and asks for equal inbound and outbound counts: every rddp
 * socket asks for RDDP_SCTP_STREAMS of each in its INIT or INIT ACK
 * (SCTP_INITMSG), and SCTP negotiates the smaller of ours and the
 * peer's, so one each way whatever the peer asked. A peer that would
 * share an association among several DDP Streams learns there is one,
 * and SCTP itself refuses a chunk on another stream (RFC 4960 §6.5: an
 * Invalid Stream Identifier ERROR; the chunk is dropped). One that gets
 * through anyway (a peer that added streams, RFC 6525) carries no
 * session: RDDP_SCTP_ERR_STREAM (cm_sctp.c, llp_sctp.c).
 */
#define RDDP_SCTP_SID		0
#define RDDP_SCTP_STREAMS	1
/* Socket buffers: the association's window, and a bound on chunks in flight. */
#define RDDP_SCTP_SOCKBUF	(4 << 20)
/*
 * A link's receive buffer to start with: one chunk on a path MTU of 1500
 * octets, and SCTP's notifications. The first longer message grows it to
 * RDDP_SCTP_PAYLOAD_MAX (a path of 64 KiB, as loopback's). From the start,
 * that size was 64 of the 76 KiB a QP over SCTP took beyond one over TCP,
 * where the association itself took 4 (Documentation/performance.md).
 */
#define RDDP_SCTP_BUF_MIN	2048

/*
 * Why the link refused a chunk or ended the stream itself, beyond the
 * core's enum rddp_sctp_err (@err of struct rddp_sctp_link holds either;
 * rddp_sctp_link_why() names both; rddp_sctp_to_err() maps them, as the
 * core's, onto DDP's local catastrophic error).
 * @RDDP_SCTP_LINK_ERR_EARLY: a chunk ahead of its turn before any
 *	Initiate: §3.6 lets nothing overtake the Initiate, so nothing is held
 *	for a peer whose session has not begun
 * @RDDP_SCTP_LINK_ERR_HELD_MAX: holding it would take the chunks held past
 *	the socket's receive buffer, where SCTP would refuse the missing one
 * @RDDP_SCTP_LINK_ERR_NOMEM: no socket memory to hold it (the host's SCTP
 *	limit, net.sctp.sctp_mem, or the socket's memory cgroup)
 * @RDDP_SCTP_LINK_ERR_GAP: a DDP-SSN missing for peer_timeout_ms
 * @RDDP_SCTP_LINK_ERR_END: one past the last
 */
enum rddp_sctp_link_err {
	RDDP_SCTP_LINK_ERR_EARLY = RDDP_SCTP_ERR_MAX,
	RDDP_SCTP_LINK_ERR_HELD_MAX,
	RDDP_SCTP_LINK_ERR_NOMEM,
	RDDP_SCTP_LINK_ERR_GAP,
	RDDP_SCTP_LINK_ERR_END,
};

struct rddp_device;
struct rddp_stream;

/**
 * struct rddp_sctp_link - a DDP Stream on one association
 * @sock: the association's socket (not owned: the CM's, then the stream's)
 * @tx_ssn: our next DDP-SSN (§2.2.1: 1 first, 65535 wraps to 0)
 * @rx: the receive window in DDP-SSN order (§7)
 * @sess: the DDP Stream Session's phases, ours and the peer's (§3)
 * @held: chunks held until their turn (struct rddp_sctp_held, llp_sctp.c),
 *	indexed by DDP-SSN
 * @held_charge: the socket memory they are charged (@sock's
 *	sk_rmem_alloc and forward allocation), at most its sk_rcvbuf
 * @buf: one message as received (a DATA chunk's payload, a notification)
 * @buf_len: @buf's size: RDDP_SCTP_BUF_MIN, or RDDP_SCTP_PAYLOAD_MAX once
 *	a message was longer (rddp_sctp_recv())
 * @rx_work: the LLP's receive work (llp_sctp.c)
 * @wait: the LLP's entry on the socket's wait queue, for write space
 * @stream: the stream that owns the link, once it does
 * @err: why the last call returned -EPROTO (enum rddp_sctp_err or
 *	enum rddp_sctp_link_err)
 * @rdev: the device whose counters the link's chunks bump; set by the CM
 *	with the link, for the session messages it sends before the stream
 * @peer_ended: the peer sent its session Terminate or SCTP's SHUTDOWN:
 *	our close is graceful too (llp_sctp.c)
 * @resegmented: TX lowered MULPDU once already (the path MTU fell), under
 *	qp->tx_mutex: its debug line is written
 * @gap: in full operation, chunks are held: DDP-SSN @gap_ssn is missing.
 *	RX writes it and the two below at the end of each run of its work,
 *	@gap_timer reads them (READ_ONCE)
 * @gap_ssn: the DDP-SSN missing when RX first saw the gap
 * @gap_since: when that was (jiffies)
 * @gap_timer: ends the stream when a DDP-SSN stays missing for
 *	peer_timeout_ms (llp_sctp.c); stopped by the LLP's detach
 * @rx_ordered: the message rddp_sctp_recv() read last came in an ordered
 *	DATA chunk (U=0), which §7 rules out; its reader's (the CM's, then
 *	the receive work's)
 */
struct rddp_sctp_link {
	struct socket *sock;
	u16 tx_ssn;
	struct rddp_sctp_ssn_rx rx;
	struct rddp_sctp_sess sess;
	struct xarray held;
	u32 held_charge;
	u8 *buf;
	u32 buf_len;
	struct work_struct rx_work;
	struct wait_queue_entry wait;
	struct rddp_stream *stream;
	u8 err;
	struct rddp_device *rdev;
	bool peer_ended;
	bool resegmented;
	bool gap;
	u16 gap_ssn;
	unsigned long gap_since;
	struct timer_list gap_timer;
	bool rx_ordered;
};

/**
 * typedef rddp_sctp_deliver_t - take one chunk, in DDP-SSN order
 * @ctx: the caller's context
 * @c: the parsed chunk (pointers valid during the call only)
 *
 * Return: 0 to go on, a positive value to stop delivering (what is still
 * held stays held, in order, for the next call), or a negative errno,
 * returned to the caller: -EPROTO with the link's @err set for a chunk
 * that breaks the draft's rules.
 */
typedef int (*rddp_sctp_deliver_t)(void *ctx, const struct rddp_sctp_chunk *c);

struct rddp_sctp_link *rddp_sctp_link_alloc(void);
void rddp_sctp_link_free(struct rddp_sctp_link *l);
const char *rddp_sctp_link_why(u8 err);

/* Create a one-to-one SCTP socket set up for DDP+RDMA (§4.1, §6). */
int rddp_sctp_sock_create(struct net *net, int family, struct socket **sock);
/* Set what an accepted socket must have as well as its listener. */
int rddp_sctp_sock_setup(struct socket *sock);

int rddp_sctp_send_ctrl(struct rddp_sctp_link *l, u16 fc, const u8 *pd,
			u32 pd_len, bool block);
int rddp_sctp_recv(struct rddp_sctp_link *l, u32 *ppid, u16 *sid, int *flags);
int rddp_sctp_rx_chunk(struct rddp_sctp_link *l, u32 ppid, u32 len,
		       rddp_sctp_deliver_t deliver, void *ctx);
int rddp_sctp_rx_pop(struct rddp_sctp_link *l, rddp_sctp_deliver_t deliver,
		     void *ctx);
void rddp_sctp_drop_unread(struct rddp_sctp_link *l);

#endif /* RDDP_SCTP_LINK_H */
