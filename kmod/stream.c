// SPDX-License-Identifier: GPL-2.0
/*
 * An MPA stream in full operation (stream.h): start, error reporting and
 * stop. RFC 5044 §5 (full operation), RFC 5040 §5.3 (Terminate and close).
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"
#include "rddp.h"
#include "stream.h"
#include "trace.h"

/* Bound on writing a Terminate when the stream stops. */
#define RDDP_TERM_SEND_TIMEOUT	(2 * HZ)

static void rddp_stream_stall_timer(struct timer_list *t);

struct rddp_stream *rddp_stream_alloc(struct rddp_qp *qp,
				      const struct rddp_stream_params *p)
{
	struct rddp_stream *s;
	int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->tx_fpdu = kzalloc(sizeof(*s->tx_fpdu), GFP_KERNEL);
	s->tx_vec = kcalloc(RDDP_FPDU_MAX_SPANS, sizeof(*s->tx_vec),
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
	s->tx_mpa.crc = p->crc;
	s->tx_mpa.markers = p->markers_tx;
	s->tx_mpa.pos = 0;
	rddp_mpa_rx_init(&s->rx_mpa, p->markers_rx, p->crc,
			 RDDP_FPDU_MAX_ULPDU);
	return s;
}

static void rddp_stream_free_rcu(struct rcu_head *rcu)
{
	struct rddp_stream *s = container_of(rcu, struct rddp_stream, rcu);

	kvfree(s->tx_fr_copy);
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
	if (s->cep)
		rddp_cep_put(s->cep);
	/* Lock-free readers of qp->stream hold rcu_read_lock() (stream.h). */
	call_rcu(&s->rcu, rddp_stream_free_rcu);
}

/*
 * sk_write_space: TCP calls it on incoming ACKs while SOCK_NOSPACE is set,
 * which TCP sets when the send buffer fills and TX sets while zero-copy
 * WQEs wait for their ACK (qp_tx.c).
 */
static void rddp_stream_write_space(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s) {
		if (READ_ONCE(s->sqw_acks))
			rddp_sqw_reap(s);	/* sets SOCK_NOSPACE again if needed */
		else if (sk_stream_is_writeable(sk))
			clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		if (READ_ONCE(s->tx_wants_space) && sk_stream_is_writeable(sk)) {
			trace_rddp_tx_resume(s->qp, sk);
			WRITE_ONCE(s->tx_wants_space, false);
			rddp_tx_kick(s->qp);
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * sk_state_change: the peer closed or reset the connection, or TCP gave up
 * on it (ETIMEDOUT: the liveness bound, rddp_stream_set_liveness()). All
 * end as a peer's close does: QP in ERROR, WQEs flushed, DISCONNECT.
 */
static void rddp_stream_state_change(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && sk->sk_state != TCP_ESTABLISHED) {
		if (READ_ONCE(sk->sk_err) == ETIMEDOUT)
			pr_info_ratelimited("rddp: QP %u: the peer did not answer for %u ms\n",
					    s->qp->base.qp_num,
					    s->p.peer_timeout_ms);
		rddp_cep_event(s->cep, RDDP_CEP_EV_PEER_CLOSED);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * An FPDU has stayed incomplete for the liveness bound while TCP stays up:
 * the peer stopped inside it and keeps answering TCP, which neither
 * TCP_USER_TIMEOUT nor keepalive notices. RFC 5044 and RFC 5041 set no
 * timer, but a live peer sends an FPDU (at most MULPDU, one TCP segment)
 * at once; without a bound a peer could hold the QP, the receive or MR
 * being written and its pinned pages for as long as it liked. The stream
 * ends with a Terminate (RFC 5040 §5.3). RX arms the timer (qp_rx.c) and
 * records when the FPDU was first seen; the timer re-arms itself when
 * another FPDU has begun since.
 */
static void rddp_stream_stall_timer(struct timer_list *t)
{
	struct rddp_stream *s = from_timer(s, t, rx_stall_timer);
	unsigned long end = READ_ONCE(s->rx_stall_since) +
			    msecs_to_jiffies(s->p.peer_timeout_ms);

	if (READ_ONCE(s->stopped) || atomic_read(&s->term_set) ||
	    !READ_ONCE(s->rx_in_fpdu))
		return;	/* RX arms it again for the next incomplete FPDU */
	if (time_before(jiffies, end)) {
		mod_timer(t, end);
		return;
	}
	/* The peer writes this line: rate-limited. */
	pr_info_ratelimited("rddp: QP %u: an FPDU incomplete for %u ms\n",
			    s->qp->base.qp_num, s->p.peer_timeout_ms);
	rddp_stream_error(s, RDDP_ERR_LLP_CATASTROPHIC, NULL, 0, 0, NULL);
}

/* MULPDU from the connection's EMSS (RFC 5044 §4.5, §7.1.2). */
static u32 rddp_stream_mulpdu(struct rddp_stream *s)
{
	u32 emss = tcp_sk(s->sock->sk)->mss_cache;
	u32 m = rddp_mpa_mulpdu(emss, s->p.markers_tx);

	return min_t(u32, m, RDDP_FPDU_MAX_ULPDU - 3);
}

/*
 * A peer that vanishes (no FIN, no RST) or stops reading must cost a
 * bounded time, not hold the QP and its MRs forever: RFC 5044 leaves
 * liveness to TCP, so ask TCP. TCP_USER_TIMEOUT ends the connection when
 * sent data stays unacknowledged for @ms, and when the peer's window stays
 * shut for @ms while we have data for it (tcp_probe_timer()); keepalive
 * ends an idle one: the first probe after half of @ms, then one every sixth
 * of it, and with TCP_USER_TIMEOUT set TCP gives up once @ms have passed
 * without a word from the peer (tcp_keepalive_timer(); the probe count
 * applies only without it). TCP then reports the error through
 * sk_state_change, and the stream ends as on a peer's close.
 */
static void rddp_stream_set_liveness(struct sock *sk, u32 ms)
{
	int idle = max_t(int, ms / 2000, 1);
	int intvl = max_t(int, ms / 6000, 1);

	if (!ms)
		return;
	tcp_sock_set_user_timeout(sk, ms);
	sock_set_keepalive(sk);
	tcp_sock_set_keepidle(sk, idle);
	tcp_sock_set_keepintvl(sk, intvl);
	tcp_sock_set_keepcnt(sk, 3);
}

int rddp_stream_start(struct rddp_stream *s, struct socket *sock,
		      struct rddp_cep *cep)
{
	struct sock *sk = sock->sk;

	rddp_stream_set_liveness(sk, s->p.peer_timeout_ms);

	rddp_cep_get(cep);
	s->cep = cep;
	s->sock = sock;
	s->mulpdu = rddp_stream_mulpdu(s);
	sk->sk_sndtimeo = RDDP_TERM_SEND_TIMEOUT;
	kernel_getsockname(sock, (struct sockaddr *)&s->laddr);
	kernel_getpeername(sock, (struct sockaddr *)&s->raddr);

	write_lock_bh(&sk->sk_callback_lock);
	s->saved_data_ready = sk->sk_data_ready;
	s->saved_write_space = sk->sk_write_space;
	s->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = s;
	sk->sk_data_ready = rddp_rx_data_ready;
	sk->sk_write_space = rddp_stream_write_space;
	sk->sk_state_change = rddp_stream_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
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
	rddp_cep_event(s->cep, RDDP_CEP_EV_STREAM_ERROR);
}

static const enum rddp_stat rddp_term_stat[2][3] = {
	{ RDDP_STAT_TERM_TX_RDMAP, RDDP_STAT_TERM_TX_DDP, RDDP_STAT_TERM_TX_MPA },
	{ RDDP_STAT_TERM_RX_RDMAP, RDDP_STAT_TERM_RX_DDP, RDDP_STAT_TERM_RX_MPA },
};

void rddp_stream_term_account(struct rddp_stream *s, bool rx,
			      const struct rddp_term_info *t)
{
	if (t->layer <= RDDP_TERM_LAYER_LLP)
		rddp_stat_inc(s->qp->rdev, rddp_term_stat[rx][t->layer]);
	rddp_genl_term(s->qp, !rx, t);
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

/* Drop received bytes nobody will read, so that closing sends FIN, not RST. */
static int rddp_discard_actor(read_descriptor_t *desc, struct sk_buff *skb,
			      unsigned int off, size_t len)
{
	return len;
}

static void rddp_stream_close_sock(struct rddp_stream *s, bool graceful)
{
	struct socket *sock = s->sock;
	read_descriptor_t desc = { .count = 1 };

	if (graceful) {
		lock_sock(sock->sk);
		tcp_read_sock(sock->sk, &desc, rddp_discard_actor);
		release_sock(sock->sk);
		kernel_sock_shutdown(sock, SHUT_WR);
	}
	rddp_sock_release(sock);
	s->sock = NULL;
}

void rddp_stream_stop(struct rddp_stream *s, bool graceful)
{
	struct rddp_qp *qp = s->qp;
	struct sock *sk;

	lockdep_assert_held(&qp->state_lock);
	if (s->stopped)
		return;
	WRITE_ONCE(s->stopped, true);
	sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = s->saved_data_ready;
	sk->sk_write_space = s->saved_write_space;
	sk->sk_state_change = s->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	/* RX runs under the socket lock: once we own it, RX is over. */
	lock_sock(sk);
	s->rx_stopped = true;
	release_sock(sk);
	/* RX arms no more; the timer sees @stopped and does not re-arm. */
	del_timer_sync(&s->rx_stall_timer);
	cancel_work_sync(&qp->tx_work);
	/* An inline run (doorbell) sees @stopped once it has the mutex. */
	mutex_lock(&qp->tx_mutex);

	/* RFC 5040 §5.3: report the error to the peer, then close. */
	if (atomic_read(&s->term_set) && s->term_err != RDDP_ERR_NONE &&
	    !s->peer_terminated && s->term_err != RDDP_ERR_LLP_CLOSED) {
		if (!rddp_tx_terminate_now(s)) {
			rddp_stream_term_sent(s);
			graceful = true;
		}
	}
	rddp_tx_flush(s);
	mutex_unlock(&qp->tx_mutex);
	rddp_rx_flush(s);
	rddp_stream_close_sock(s, graceful);
}
