/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A graceful close over TCP that reads until the peer's FIN (tcp_linger.c).
 */
#ifndef RDDP_TCP_LINGER_H
#define RDDP_TCP_LINGER_H

struct socket;

/**
 * rddp_tcp_linger() - close a connected TCP socket gracefully: drop what
 *	was received, send FIN, and drop what still arrives until the peer's
 *	FIN or reset, or a bound, then release the socket
 * @sock: the socket, with the socket's own callbacks in place (none of
 *	rddp's); the call takes it. Process context.
 */
void rddp_tcp_linger(struct socket *sock);

/**
 * rddp_tcp_linger_exit() - end every linger at once and wait for the ends;
 *	module exit, once every device is gone and before rddp_wq goes
 */
void rddp_tcp_linger_exit(void);

#endif /* RDDP_TCP_LINGER_H */
