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

/* Events the data path reports to a connection's CM work. */
enum rddp_cep_event {
	RDDP_CEP_EV_STREAM_ERROR,	/* RX/TX detected an error */
	RDDP_CEP_EV_PEER_CLOSED,	/* TCP FIN or RST in full operation */
	RDDP_CEP_EV_STREAM_CLOSED,	/* the QP stopped its stream */
};

int rddp_cm_init(void);
void rddp_cm_exit(void);

int rddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int rddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int rddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pd_len);
int rddp_iw_create_listen(struct iw_cm_id *id, int backlog);
int rddp_iw_destroy_listen(struct iw_cm_id *id);

/* Any context: queue @ev for the connection's CM work. */
void rddp_cep_event(struct rddp_cep *cep, enum rddp_cep_event ev);
void rddp_cep_get(struct rddp_cep *cep);
void rddp_cep_put(struct rddp_cep *cep);

/* Close one of our TCP sockets so that TCP still finishes its close. */
void rddp_sock_release(struct socket *sock);

/* Device teardown: close every connection attempt still on @rdev. */
void rddp_cm_device_stop(struct rddp_device *rdev);

#endif /* RDDP_CM_H */
