// SPDX-License-Identifier: GPL-2.0
/*
 * A graceful close over TCP that goes on reading until the peer's FIN
 * (RFC 5040 §5.3: a graceful close ends the LLP stream in an orderly way;
 * RFC 5044 §7.2: that is TCP's close).
 *
 * Why not shutdown and sock_release() at once: a released socket is shut
 * for reading, and TCP answers any data that arrives after with a reset
 * (tcp_rcv_state_process(), TCPAbortOnData). Data the peer sent before it
 * saw our FIN does arrive after it: the initiator's RTR when the responder
 * closes right away (the responder reports the connection established
 * once its Reply is out, before the RTR is in; RFC 6581 §9.1.1), or a Send
 * that crossed the close. The peer then sees a reset and reports an abort
 * (-ECONNRESET) where we closed gracefully. So the close drops what was
 * received, sends FIN and keeps the socket, dropping what arrives, until
 * the peer's FIN or reset or RDDP_TCP_LINGER_MS, whichever comes first;
 * only then is the socket released (rddp_sock_release(), llp.h). Data the
 * peer sends after that bound is answered with a reset, as before.
 *
 * Lifetime and locking: a lingering socket is a struct rddp_tcp_linger on
 * rddp_tcp_lingers (rddp_tcp_lingers_lock, process context only), its
 * delayed work on rddp_wq. The socket's callbacks, under sk_callback_lock
 * (read), drop received data and queue the work at once when the peer is
 * done; they never free. The work alone ends a linger. It takes the
 * socket lock first: rddp_tcp_linger() installs the callbacks and queues
 * the work under it, so the work cannot free the entry under it. Then it
 * restores the callbacks (sk_callback_lock, write: no callback of ours runs
 * after), takes the entry off the list (rddp_tcp_linger_exit() queues only
 * listed ones), cancels a queueing that raced with it, and releases the
 * socket. The socket holds its namespace (rddp_sk_hold_net())
 * while it lingers, as an orphan does, so the namespace outlives it; a
 * namespace already being dismantled gives no reference and the socket is
 * released at once. Module exit cuts every linger short
 * (rddp_tcp_linger_exit()) before rddp_wq goes.
 */
#include <linux/list.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "compat.h"
#include "llp.h"
#include "rddp.h"
#include "sk_hooks.h"
#include "tcp_linger.h"

/*
 * How long a closed connection waits for the peer's FIN. Data the peer
 * sent before it saw ours arrives within a round trip and a few
 * retransmissions (TCP's minimum RTO is 200 ms); a peer whose own close
 * takes longer sends nothing meanwhile, so ending the wait early costs it
 * nothing.
 */
#define RDDP_TCP_LINGER_MS 3000

/**
 * struct rddp_tcp_linger - a TCP socket closed gracefully, waiting for
 *	the peer's FIN
 * @sock: the socket, ours until the work releases it
 * @work: ends the linger: at RDDP_TCP_LINGER_MS, or at once when the
 *	peer is done
 * @entry: on rddp_tcp_lingers, under rddp_tcp_lingers_lock
 * @saved_hooks: the socket's callbacks before ours, given back at the end
 */
struct rddp_tcp_linger {
	struct socket *sock;
	struct delayed_work work;
	struct list_head entry;
	struct rddp_sk_hooks saved_hooks;
};

static LIST_HEAD(rddp_tcp_lingers);
static DEFINE_SPINLOCK(rddp_tcp_lingers_lock);

static int rddp_tcp_discard_actor(read_descriptor_t *desc, struct sk_buff *skb,
				  unsigned int off, size_t len)
{
	return len;
}

/* Caller holds the socket lock (or runs in its softirq). */
static void rddp_tcp_discard_locked(struct sock *sk)
{
	read_descriptor_t desc = { .count = 1 };

	tcp_read_sock(sk, &desc, rddp_tcp_discard_actor);
}

/* Drop what was received: a socket closed with unread data sends RST. */
static void rddp_tcp_discard(struct sock *sk)
{
	lock_sock(sk);
	rddp_tcp_discard_locked(sk);
	release_sock(sk);
}

/* The peer's FIN or reset is in (tcp_fin(), tcp_done()). */
static bool rddp_tcp_peer_done(const struct sock *sk)
{
	return READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN;
}

static void rddp_tcp_linger_data_ready(struct sock *sk)
{
	read_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data)
		rddp_tcp_discard_locked(sk);	/* keeps the window open */
	read_unlock_bh(&sk->sk_callback_lock);
}

static void rddp_tcp_linger_state_change(struct sock *sk)
{
	struct rddp_tcp_linger *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l && rddp_tcp_peer_done(sk))
		mod_delayed_work(rddp_wq, &l->work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static const struct rddp_sk_hooks rddp_tcp_linger_hooks = {
	.data_ready = rddp_tcp_linger_data_ready,
	.state_change = rddp_tcp_linger_state_change,
};

static void rddp_tcp_linger_end(struct work_struct *work)
{
	struct rddp_tcp_linger *l =
		container_of(to_delayed_work(work), struct rddp_tcp_linger, work);
	struct sock *sk = l->sock->sk;

	/* rddp_tcp_linger() queues us only under it: it is done with @l. */
	lock_sock(sk);
	rddp_sk_hooks_remove(sk, &l->saved_hooks);
	spin_lock(&rddp_tcp_lingers_lock);
	list_del(&l->entry);
	spin_unlock(&rddp_tcp_lingers_lock);
	/*
	 * Nothing queues it from here on; a callback or
	 * rddp_tcp_linger_exit() may have queued it again before.
	 */
	cancel_delayed_work(&l->work);
	rddp_tcp_discard_locked(sk);
	release_sock(sk);
	rddp_sock_release(l->sock);
	kfree(l);
}

void rddp_tcp_linger(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct rddp_tcp_linger *l;

	/* FIN, whatever is unread: only the release of unread data resets. */
	kernel_sock_shutdown(sock, SHUT_WR);
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	/* Without a reference on its namespace it may not outlive the call. */
	if (!l || (!rddp_sk_hold_net(sk) && !sk->sk_net_refcnt)) {
		kfree(l);
		rddp_tcp_discard(sk);
		rddp_sock_release(sock);
		return;
	}
	l->sock = sock;
	INIT_DELAYED_WORK(&l->work, rddp_tcp_linger_end);
	/*
	 * From the callbacks on, everything here is done under the socket
	 * lock, which the end takes first: once a callback has queued it, it
	 * may run at once, but cannot free @l or the socket before this
	 * returns.
	 */
	lock_sock(sk);
	rddp_sk_hooks_install(sk, l, &rddp_tcp_linger_hooks, &l->saved_hooks);
	spin_lock(&rddp_tcp_lingers_lock);
	list_add(&l->entry, &rddp_tcp_lingers);
	spin_unlock(&rddp_tcp_lingers_lock);
	rddp_tcp_discard_locked(sk);
	/* A callback's earlier queueing (at once) stays as it is. */
	queue_delayed_work(rddp_wq, &l->work, rddp_tcp_peer_done(sk) ? 0 :
			   msecs_to_jiffies(RDDP_TCP_LINGER_MS));
	release_sock(sk);
}

void rddp_tcp_linger_exit(void)
{
	struct rddp_tcp_linger *l;

	spin_lock(&rddp_tcp_lingers_lock);
	list_for_each_entry(l, &rddp_tcp_lingers, entry)
		mod_delayed_work(rddp_wq, &l->work, 0);
	spin_unlock(&rddp_tcp_lingers_lock);
	flush_workqueue(rddp_wq);
	WARN_ON(!list_empty(&rddp_tcp_lingers));
}
