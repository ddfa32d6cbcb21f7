/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp connection management (cm.c): the iw_cm provider calls, MPA
 * connection setup over kernel TCP sockets (RFC 5044 §7, RFC 6581), and the
 * hand-over of an established socket to the QP's data path (stream.h).
 */
#ifndef RDDP_CM_H
#define RDDP_CM_H

#include <rdma/iw_cm.h>

struct rddp_device;

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
 * rddp_cm_device_stop() - device teardown: close every connection attempt
 * still on @rdev
 * @rdev: the device
 *
 * Each endpoint on the device's list (setting up a connection, not yet
 * handed to a QP) fails with -ENODEV.
 */
void rddp_cm_device_stop(struct rddp_device *rdev);

#endif /* RDDP_CM_H */
