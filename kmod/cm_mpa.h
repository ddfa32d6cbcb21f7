/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cm_mpa.c decides from a socket alone, apart from the endpoint, so
 * that KUnit (kunit/rddp_cm_kunit.c) can run the decision against a state
 * an interrupt changes while it reads.
 */
#ifndef RDDP_CM_MPA_H
#define RDDP_CM_MPA_H

#include <net/sock.h>
#include <net/tcp_states.h>

/**
 * enum rddp_mpa_connect_step - what the connecting side does next
 * @RDDP_MPA_CONNECT_WAIT: the SYN is out; the socket's state change
 *	queues the work again
 * @RDDP_MPA_CONNECT_SEND: TCP is up: send the MPA Request (RFC 5044
 *	§7.1.2, RFC 6581 §3)
 * @RDDP_MPA_CONNECT_FAIL: TCP did not come up: the attempt fails with the
 *	socket's error
 */
enum rddp_mpa_connect_step {
	RDDP_MPA_CONNECT_WAIT,
	RDDP_MPA_CONNECT_SEND,
	RDDP_MPA_CONNECT_FAIL,
};

/**
 * rddp_mpa_connect_step() - the active side's next step, from its TCP state
 * @sk: the connecting socket
 *
 * The state is read once. TCP moves it from SYN_SENT to ESTABLISHED in
 * softirq, on any CPU, while the work runs: two reads could see SYN_SENT
 * and then ESTABLISHED, neither the one case nor the other, and fail a
 * connection that had just come up (seen across two qemu guests: the
 * handshake, then our FIN without an MPA Request, and rdma_cm's REJECTED,
 * -ECONNREFUSED).
 *
 * Return: the step.
 */
static inline enum rddp_mpa_connect_step
rddp_mpa_connect_step(const struct sock *sk)
{
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
		return RDDP_MPA_CONNECT_SEND;
	case TCP_SYN_SENT:
		return RDDP_MPA_CONNECT_WAIT;
	default:
		return RDDP_MPA_CONNECT_FAIL;
	}
}

#endif /* RDDP_CM_MPA_H */
