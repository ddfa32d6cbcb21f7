// SPDX-License-Identifier: GPL-2.0
/*
 * A connected QP's stream (stream.h): start, error reporting and stop,
 * whatever its LLP (llp.h). RFC 5040 §5.3 (Terminate and close); the
 * LLP's own part is in llp_mpa.c and llp_sctp.c. The stream calls the
 * engines above it (qp_tx.c, qp_rx.c) only through the table the QP
 * gave it at start (s->up), never by name.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "rddp.h"
#include "stream.h"
#include "trace.h"

/* Bound on writing a Terminate when the stream stops. */
#define RDDP_TERM_SEND_TIMEOUT	(2 * HZ)

static void rddp_stream_stall_timer(struct timer_list *t);

struct rddp_stream *rddp_stream_alloc(struct rddp_qp *qp,
				      const struct rddp_stream_params *p,
				      const struct rddp_llp_ops *llp)
{
	struct rddp_stream *s;
	int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->tx_fpdu = kzalloc(sizeof(*s->tx_fpdu), GFP_KERNEL);
	/* one more: the LLP's stage goes first (llp_mpa.c) */
	s->tx_vec = kcalloc(RDDP_FPDU_MAX_SPANS + 1, sizeof(*s->tx_vec),
			    GFP_KERNEL);
	s->p = *p;
	/* ORD and IRD limit the ORQ and IRQ: at least one slot each. */
	s->p.ord = max_t(u16, p->ord, 1);
	s->p.ird = max_t(u16, p->ird, 1);
	/* the device's setting, never with CRC: see struct rddp_stream_params */
	s->p.tx_zcopy = p->tx_zcopy && !p->crc;
	s->orq_slots = roundup_pow_of_two(s->p.ord);
	s->irq_slots = roundup_pow_of_two(s->p.ird);
	s->orq = kcalloc(s->orq_slots, sizeof(*s->orq), GFP_KERNEL);
	s->irq = kcalloc(s->irq_slots, sizeof(*s->irq), GFP_KERNEL);
	/* TX takes no more WQEs than the SQ holds before their CQEs. */
	s->sqw_size = max(qp->num_sqe, 1U);
	s->sqw_slots = roundup_pow_of_two(s->sqw_size);
	s->sqw = kvcalloc(s->sqw_slots, sizeof(*s->sqw), GFP_KERNEL);
	if (!s->tx_fpdu || !s->tx_vec || !s->orq || !s->irq || !s->sqw) {
		rddp_stream_free(s);
		return NULL;
	}
	s->qp = qp;
	s->llp = llp;
	spin_lock_init(&s->lock);
	timer_setup(&s->rx_stall_timer, rddp_stream_stall_timer, 0);
	atomic_set(&s->term_set, 0);
	rddp_sg_init(&s->tx_sg);
	rddp_sg_init(&s->rx_sg);
	rddp_sg_init(&s->rx_tsg);
	/* RFC 5041 §5.1: the first message on each queue has MSN 1. */
	for (i = 0; i < RDDP_QN_MAX; i++) {
		s->tx_msn[i] = 1;
		s->rx_msn[i] = 1;
	}
	return s;
}

static void rddp_stream_free_rcu(struct rcu_head *rcu)
{
	struct rddp_stream *s = container_of(rcu, struct rddp_stream, rcu);

	kvfree(s->tx_stage);
	kvfree(s->tx_zv);	/* its references went with the LLP's close */
	kvfree(s->tx_copy);
	kvfree(s->sqw);
	kfree(s->irq);
	kfree(s->orq);
	kfree(s->tx_vec);
	kfree(s->tx_fpdu);
	kfree(s);
}

void rddp_stream_free(struct rddp_stream *s)
{
	if (!s)
		return;
	WARN_ON(s->sock);
	if (s->conn)
		rddp_conn_put(s->conn);
	/* Lock-free readers of qp->stream hold rcu_read_lock() (stream.h). */
	call_rcu(&s->rcu, rddp_stream_free_rcu);
}

bool rddp_stream_peer_late(struct rddp_stream *s, struct timer_list *t,
			   const unsigned long *since, const bool *waiting)
{
	unsigned long end = READ_ONCE(*since) +
			    msecs_to_jiffies(s->p.peer_timeout_ms);

	if (READ_ONCE(s->stopped) || atomic_read(&s->term_set) ||
	    !READ_ONCE(*waiting))
		return false;	/* RX arms @t again for its next wait */
	if (time_before(jiffies, end)) {
		mod_timer(t, end);
		return false;
	}
	return true;
}

/*
 * An FPDU has stayed incomplete for the liveness bound while TCP stays up:
 * the peer stopped inside it and keeps answering TCP, which neither
 * TCP_USER_TIMEOUT nor keepalive notices. RFC 5044 and RFC 5041 set no
 * timer, but a live peer sends an FPDU (at most MULPDU, one TCP segment)
 * at once; without a bound a peer could hold the QP, the receive or MR
 * being written and its pinned pages for as long as it liked. The stream
 * ends with a Terminate (RFC 5040 §5.3). RX arms the timer (llp_mpa.c) and
 * records when the FPDU was first seen; the timer re-arms itself when
 * another FPDU has begun since (rddp_stream_peer_late()).
 */
static void rddp_stream_stall_timer(struct timer_list *t)
{
	struct rddp_stream *s = from_timer(s, t, rx_stall_timer);

	if (!rddp_stream_peer_late(s, t, &s->rx_stall_since, &s->rx_in_fpdu))
		return;
	/* The peer writes this line: rate-limited. */
	pr_info_ratelimited("rddp: QP %u: an FPDU incomplete for %u ms\n",
			    s->qp->base.qp_num, s->p.peer_timeout_ms);
	rddp_stream_error(s, RDDP_ERR_LLP_CATASTROPHIC, NULL, 0, 0, NULL);
}

int rddp_stream_start(struct rddp_stream *s, struct socket *sock,
		      struct rddp_conn *conn,
		      const struct rddp_llp_upcalls *up)
{
	rddp_conn_get(conn);
	s->conn = conn;
	s->up = up;
	s->sock = sock;
	sock->sk->sk_sndtimeo = RDDP_TERM_SEND_TIMEOUT;
	kernel_getsockname(sock, (struct sockaddr *)&s->laddr);
	kernel_getpeername(sock, (struct sockaddr *)&s->raddr);
	s->llp->start(s);
	return 0;
}

void rddp_stream_error(struct rddp_stream *s, enum rddp_err err,
		       const u8 *hdr, u32 hdr_len, u32 seg_len,
		       const u8 *rreq)
{
	if (atomic_cmpxchg(&s->term_set, 0, 1))
		return;
	trace_rddp_qp_error(s->qp, err, seg_len);
	s->term_err = err;
	s->term_hdr_len = 0;
	if (hdr && (hdr_len == RDDP_DDP_TAGGED_HDR_LEN ||
		    hdr_len == RDDP_DDP_UNTAGGED_HDR_LEN)) {
		memcpy(s->term_hdr, hdr, hdr_len);
		s->term_hdr_len = hdr_len;
	}
	s->term_seg_len = (u16)min_t(u32, seg_len, U16_MAX);
	s->term_rreq = !!rreq;
	if (rreq)
		memcpy(s->term_rreq_hdr, rreq, RDDP_RDMAP_RREQ_LEN);
	if (err != RDDP_ERR_NONE && err != RDDP_ERR_LLP_CLOSED)
		pr_info_ratelimited("rddp: QP %u: %s (%s layer); sending Terminate\n",
				    s->qp->base.qp_num, rddp_errors[err].name,
				    rddp_errors[err].layer == RDDP_TERM_LAYER_RDMAP ?
				    "RDMAP" : rddp_errors[err].layer ==
				    RDDP_TERM_LAYER_DDP ? "DDP" : "MPA");
	rddp_conn_event(s->conn, RDDP_CEP_EV_STREAM_ERROR);
}

static const enum rddp_stat rddp_term_stat[2][3] = {
	{ RDDP_STAT_TERM_TX_RDMAP, RDDP_STAT_TERM_TX_DDP, RDDP_STAT_TERM_TX_MPA },
	{ RDDP_STAT_TERM_RX_RDMAP, RDDP_STAT_TERM_RX_DDP, RDDP_STAT_TERM_RX_MPA },
};

void rddp_stream_term_account(struct rddp_stream *s, bool rx,
			      const struct rddp_term_info *t)
{
	struct rddp_notify n = {
		.type = RDDP_NOTIFY_TERM,
		.rdev = s->qp->rdev,
		.qpn = s->qp->base.qp_num,
		.term_sent = !rx,
		.term = t,
	};

	if (t->layer <= RDDP_TERM_LAYER_LLP)
		rddp_stat_inc(s->qp->rdev, rddp_term_stat[rx][t->layer]);
	rddp_notify(&n);
}

static void rddp_stream_term_sent(struct rddp_stream *s)
{
	const struct rddp_err_info *e = &rddp_errors[s->term_err];

	s->term_tx.layer = e->layer;
	s->term_tx.etype = e->etype;
	s->term_tx.ecode = e->ecode;
	s->term_tx.valid = true;
	rddp_stream_term_account(s, false, &s->term_tx);
}

void rddp_stream_stop(struct rddp_stream *s, bool graceful)
{
	struct rddp_qp *qp = s->qp;

	lockdep_assert_held(&qp->state_lock);
	if (s->stopped)
		return;
	WRITE_ONCE(s->stopped, true);
	/* The LLP's callbacks are gone and RX is over (llp.h). */
	s->llp->detach(s);
	/* RX arms no more; the timer sees @stopped and does not re-arm. */
	del_timer_sync(&s->rx_stall_timer);
	cancel_work_sync(&qp->tx_work);
	/* An inline run (doorbell) sees @stopped once it has the mutex. */
	mutex_lock(&qp->tx_mutex);

	/* RFC 5040 §5.3: report the error to the peer, then close. */
	if (atomic_read(&s->term_set) && s->term_err != RDDP_ERR_NONE &&
	    !s->peer_terminated && s->term_err != RDDP_ERR_LLP_CLOSED) {
		if (!s->up->tx_terminate_now(s)) {
			rddp_stream_term_sent(s);
			graceful = true;
		}
	}
	s->up->tx_flush(s);
	mutex_unlock(&qp->tx_mutex);
	s->up->rx_flush(s);
	s->llp->close(s, graceful);
}

