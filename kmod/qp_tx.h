/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DDP/RDMAP TX engine of a connected QP (qp_tx.c): the stream's
 * fields it owns and its contexts are stream.h's. qp.c, which sits above
 * it, calls it by name and gives the stream and its LLP its entry points
 * (struct rddp_llp_upcalls, llp.h); nothing below calls it by name.
 */
#ifndef RDDP_QP_TX_H
#define RDDP_QP_TX_H

#include "stream.h"

/**
 * rddp_tx_work() - a QP's tx_work: run the TX engine for one budget
 * @work: the QP's tx_work
 *
 * Runs under qp->tx_mutex on the rddp_tx workqueue, and queues itself
 * again if work is left, to yield the worker.
 */
void rddp_tx_work(struct work_struct *work);

/**
 * rddp_tx_kick() - queue a QP's TX work
 * @qp: the QP
 *
 * On the per-CPU, high-priority rddp_tx queue, so the work runs on the
 * CPU that kicked it (RX answering a Read Request in softirq, a doorbell,
 * TCP's write_space) as soon as that CPU leaves softirq. Any context.
 */
void rddp_tx_kick(struct rddp_qp *qp);

/**
 * rddp_tx_kick_posted() - queue a QP's TX work for WQEs a kernel ULP posted
 * @qp: the QP
 *
 * A post from a user task (nvme-rdma's queue_rq or iSER's queuecommand
 * inside fio's io_submit, a synchronous NFS call) queues the work on
 * another CPU: on the poster's own, the high-priority worker preempts the
 * task after each post, so every WQE leaves in a TX run of its own and the
 * task loses its CPU once per I/O; elsewhere, the task goes on posting and
 * the run takes what it posted meanwhile. Posts from kernel threads (a
 * ULP's completion work: nvmet-rdma's answers, rpciod) and from softirq
 * stay on this CPU (rddp_tx_kick()): they already post a batch per pass.
 * Any context.
 */
void rddp_tx_kick_posted(struct rddp_qp *qp);

/**
 * rddp_tx_doorbell() - a user's doorbell (post_send with no WR)
 * @qp: the QP
 *
 * Runs the engine right here unless it is running already, in which case
 * the running one is asked to look again (queue_work() re-queues a running
 * work item). Process context.
 */
void rddp_tx_doorbell(struct rddp_qp *qp);

/**
 * rddp_tx_terminate_now() - send the stream's Terminate
 * @s: the stream, its engines halted (rddp_stream_stop())
 *
 * Finishes a partly written FPDU, so the peer's framing stays intact, then
 * sends the Terminate (RFC 5040 §5.3, §4.8) as an untagged message on QN 2.
 * Blocking, bounded by the socket's send timeout.
 *
 * Return: 0 once sent, or a negative errno.
 */
int rddp_tx_terminate_now(struct rddp_stream *s);

/**
 * rddp_tx_flush() - stream stop: report every WQE TX took, in order
 * @s: the stream, both engines halted
 *
 * Finished ones (and zero-copy ones TCP has acknowledged) with their
 * status, the rest, whose outcome at the peer is unknown, with a flush
 * error.
 */
void rddp_tx_flush(struct rddp_stream *s);

/**
 * rddp_sqw_reap() - report the finished WQEs at the head of the sqw ring
 * @s: the stream
 *
 * A zero-copy WQE is finished once TCP's snd_una has passed it; while one
 * is waiting, SOCK_NOSPACE stays set so that TCP calls sk_write_space (and
 * so this) on every ACK. Any context.
 */
void rddp_sqw_reap(struct rddp_stream *s);

#endif /* RDDP_QP_TX_H */
