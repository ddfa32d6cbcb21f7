/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A socket lent to rddp (a connection endpoint, a stream's LLP, a graceful
 * close): while rddp's callbacks are installed, sk_user_data is the owner
 * they act for and the socket's own callbacks wait in the owner's
 * struct rddp_sk_hooks, to be given back by rddp_sk_hooks_remove().
 *
 * Locking: both take sk_callback_lock for writing. The kernel's transports
 * call the callbacks without it, so a call that began before the removal
 * can run after it: each callback reads sk_user_data under the lock taken
 * for reading, and finds NULL or a later owner's pointer once removed
 * (cm.c's rddp_cep_sk_event() checks that it is still installed).
 */
#ifndef RDDP_SK_HOOKS_H
#define RDDP_SK_HOOKS_H

#include <net/sock.h>

/**
 * struct rddp_sk_hooks - a socket's data, write-space and state callbacks
 * @data_ready: sk_data_ready
 * @write_space: sk_write_space; NULL in rddp's set: the socket keeps its
 *	own (an LLP that learns of space otherwise)
 * @state_change: sk_state_change
 */
struct rddp_sk_hooks {
	void (*data_ready)(struct sock *sk);
	void (*write_space)(struct sock *sk);
	void (*state_change)(struct sock *sk);
};

/**
 * rddp_sk_hooks_install() - make a socket's callbacks rddp's
 * @sk: the socket
 * @owner: what the callbacks find in sk_user_data
 * @ours: rddp's callbacks
 * @saved: filled with the socket's own, for rddp_sk_hooks_remove()
 */
static inline void rddp_sk_hooks_install(struct sock *sk, void *owner,
					 const struct rddp_sk_hooks *ours,
					 struct rddp_sk_hooks *saved)
{
	write_lock_bh(&sk->sk_callback_lock);
	saved->data_ready = sk->sk_data_ready;
	saved->write_space = sk->sk_write_space;
	saved->state_change = sk->sk_state_change;
	sk->sk_user_data = owner;
	sk->sk_data_ready = ours->data_ready;
	if (ours->write_space)
		sk->sk_write_space = ours->write_space;
	sk->sk_state_change = ours->state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * rddp_sk_hooks_remove() - give a socket back the callbacks it had
 * @sk: the socket
 * @saved: what rddp_sk_hooks_install() saved
 */
static inline void rddp_sk_hooks_remove(struct sock *sk,
					const struct rddp_sk_hooks *saved)
{
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = saved->data_ready;
	sk->sk_write_space = saved->write_space;
	sk->sk_state_change = saved->state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

#endif /* RDDP_SK_HOOKS_H */
