/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp connection management (cm.c): the iw_cm provider calls, MPA
 * connection setup over kernel TCP sockets (RFC 5044 §7, RFC 6581), and the
 * hand-over of an established socket to the QP's data path (stream.h).
 */
#ifndef RDDP_CM_H
#define RDDP_CM_H

#include <rdma/iw_cm.h>

struct rddp_cep;
struct rddp_device;

/**
 * enum rddp_cep_event - events the data path reports to a connection's CM
 * work
 * @RDDP_CEP_EV_STREAM_ERROR: RX or TX detected an error
 * @RDDP_CEP_EV_PEER_CLOSED: the peer ended the connection gracefully in
 *	full operation (TCP FIN; SCTP SHUTDOWN or the session's Terminate)
 * @RDDP_CEP_EV_PEER_ABORTED: the connection ended abortively in full
 *	operation (TCP RST, SCTP ABORT, or the LLP's liveness bound: the
 *	socket's error is set); iw_cm's CLOSE then carries -ECONNRESET, as
 *	hardware RNICs report an abort, where a graceful end carries 0
 * @RDDP_CEP_EV_STREAM_CLOSED: the QP stopped its stream
 * @RDDP_CEP_EV_QP_DESTROYED: destroy_qp of the QP an active endpoint is
 *	connecting (rddp_qp_connect_begin()): the connect fails at once
 */
enum rddp_cep_event {
	RDDP_CEP_EV_STREAM_ERROR,
	RDDP_CEP_EV_PEER_CLOSED,
	RDDP_CEP_EV_PEER_ABORTED,
	RDDP_CEP_EV_STREAM_CLOSED,
	RDDP_CEP_EV_QP_DESTROYED,
};

/**
 * rddp_cm_init() - module init: allocate rddp_wq, the unbound workqueue the
 * CM's connection work and stream teardown run on
 *
 * Return: 0 or -ENOMEM.
 */
int rddp_cm_init(void);

/**
 * rddp_cm_exit() - module exit: destroy rddp_wq, after every device is
 * gone; warns if a connection endpoint was not freed
 */
void rddp_cm_exit(void);

/**
 * rddp_iw_connect() - iw_cm's connect: start an active connection
 * @id: the iw_cm_id, with its local and remote (mapped) addresses
 * @param: the QP, private data, IRD and ORD of the MPA Request
 *
 * Starts a non-blocking TCP connect from @id's local address; MPA setup as
 * initiator (RFC 5044 §7.1, RFC 6581) runs in the CM work, bounded by
 * mpa_timeout_ms, and its outcome reaches iw_cm as
 * IW_CM_EVENT_CONNECT_REPLY.
 *
 * Return: 0 once the attempt is under way; -EAFNOSUPPORT, -EINVAL (private
 * data too long for the MPA revision, IRD/ORD above the device's limits)
 * or another negative errno if it could not start.
 */
int rddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);

/**
 * rddp_iw_accept() - iw_cm's accept: answer a connection request
 * @id: the iw_cm_id of the request (IW_CM_EVENT_CONNECT_REQUEST)
 * @param: the QP, private data, IRD and ORD of the MPA Reply
 *
 * Sends the MPA Reply and moves the QP to RTS with the connection's stream;
 * iw_cm learns the result as IW_CM_EVENT_ESTABLISHED.
 *
 * Return: 0 or a negative errno; after a failure no more events come for
 * @id and the connection is closed.
 */
int rddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);

/**
 * rddp_iw_reject() - iw_cm's reject: refuse a connection request
 * @id: the iw_cm_id of the request
 * @pdata: private data for the peer
 * @pd_len: its length
 *
 * Sends an MPA Reply with the R bit set and closes the connection
 * (RFC 5044 §7.1.1).
 *
 * Return: 0 or a negative errno.
 */
int rddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pd_len);

/**
 * rddp_iw_create_listen() - iw_cm's create_listen
 * @id: the listening iw_cm_id, with its local address
 * @backlog: the TCP listen backlog
 *
 * A wildcard listen takes TCP connections on the device's netdev alone
 * (bound to it), whatever addresses it has now or gets later, so other
 * iWARP devices may listen on the same port; SCTP listens on the
 * addresses the netdev has now (cm.c).
 *
 * Return: 0 or a negative errno; on failure nothing stays bound.
 */
int rddp_iw_create_listen(struct iw_cm_id *id, int backlog);

/**
 * rddp_iw_destroy_listen() - iw_cm's destroy_listen: close the listening
 * sockets of @id, if any
 * @id: the listening iw_cm_id
 *
 * Return: 0.
 */
int rddp_iw_destroy_listen(struct iw_cm_id *id);

/**
 * rddp_cep_event() - report an event to a connection's CM work
 * @cep: the connection endpoint
 * @ev: the event, queued for the CM work
 *
 * Any context.
 */
void rddp_cep_event(struct rddp_cep *cep, enum rddp_cep_event ev);

/**
 * rddp_cep_get() - take a reference on a connection endpoint
 * @cep: the endpoint
 */
void rddp_cep_get(struct rddp_cep *cep);

/**
 * rddp_cep_put() - drop a reference on a connection endpoint; the last
 * frees it
 * @cep: the endpoint
 */
void rddp_cep_put(struct rddp_cep *cep);

/**
 * rddp_sock_release() - close one of our TCP sockets so that TCP still
 * finishes its close
 * @sock: the socket
 *
 * A kernel socket holds no reference to its network namespace, and 6.1's
 * tcp_close() then stops its retransmission timers: a lost FIN would never
 * be sent again. The socket takes that reference for its life as an orphan
 * (cm.c gives the details).
 */
void rddp_sock_release(struct socket *sock);

/**
 * rddp_cm_device_stop() - device teardown: close every connection attempt
 * still on @rdev
 * @rdev: the device
 *
 * Each endpoint on the device's list (setting up a connection, not yet
 * handed to a QP) fails with -ENODEV.
 */
void rddp_cm_device_stop(struct rddp_device *rdev);

#endif /* RDDP_CM_H */
