/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DDP/RDMAP RX engine of a connected QP (qp_rx.c): checks, placement
 * and completions of the segments an LLP delivers. qp.c, which sits
 * above it, gives the stream and its LLP its entry points (struct
 * rddp_llp_upcalls, llp.h); nothing below calls it by name.
 */
#ifndef RDDP_QP_RX_H
#define RDDP_QP_RX_H

#include "stream.h"

/*
 * The DDP/RDMAP RX callbacks (qp_rx.c) an LLP feeds each received segment
 * to, with the stream as context (llp.h): header(), payload() for each
 * span, fpdu_done() once the segment is intact. Called serialised, in the
 * LLP's RX context.
 */
extern const struct rddp_mpa_rx_ops rddp_ddp_rx_ops;

/**
 * rddp_rx_batch_end() - the end of one receive batch of an LLP
 * @s: the stream
 *
 * An LLP calls it after each run of its receive path that may have fed
 * rddp_ddp_rx_ops: what a socket read or a receive work item delivered in
 * one go. The Read Requests of the batch were queued without waking TX;
 * TX is woken here, once. So a batch is held against the IRD whole (RFC
 * 5040 §6.3: more Read Requests than the IRD in one batch end the stream
 * whatever the CPUs' timing), and a burst of Reads wakes TX once. In the
 * LLP's RX context.
 */
void rddp_rx_batch_end(struct rddp_stream *s);

/**
 * rddp_rx_place_tagged() - place a tagged segment that arrived ahead of
 * its turn (an LLP that delivers out of order: RFC 5041 §5.3, "MAY perform
 * Placement of DDP Segments out of order")
 * @s: the stream, in the LLP's RX context (serialised with the callbacks
 *	of rddp_ddp_rx_ops), bottom halves off
 * @raw: the segment's DDP header
 * @hdr_len: its octets
 * @payload: the payload
 * @len: its octets
 *
 * Only an RDMA Write, or a Read Response into the sink of a Read still
 * outstanding, whose STag, PD, access rights, TO and length validate now
 * (RFC 5041 §7.1) is placed; nothing is completed and no state of the
 * in-order pass changes. A segment that does not validate, or is of
 * another kind, is not placed and reports nothing: the in-order pass
 * finds its error, if any.
 *
 * Return: true when the whole payload was placed; the LLP then calls
 * rddp_rx_tagged_placed() at the segment's turn instead of the callbacks.
 * False when nothing or part of it was placed (the payload was then
 * placed again in order: RFC 5041 §5.3 lets a segment be placed more
 * than once).
 */
bool rddp_rx_place_tagged(struct rddp_stream *s, const u8 *raw, u32 hdr_len,
			  const u8 *payload, u32 len);

/**
 * rddp_rx_tagged_placed() - the in-order pass of a segment whose payload
 * rddp_rx_place_tagged() placed
 * @s: the stream, as for rddp_ddp_rx_ops' callbacks
 * @raw: the segment's DDP header
 * @hdr_len: its octets
 * @len: its payload's octets
 *
 * What header() and fpdu_done() do for the segment in DDP-SSN order, its
 * checks included (the STag may have been invalidated meanwhile, e.g. by
 * an earlier Send with Invalidate: RFC 5040 §5.1); the payload is not
 * copied again. A check that fails now is the Terminate it is in order;
 * the bytes placed stay where they are (placed, never delivered: RFC 5041
 * §5.3, §5.4).
 *
 * Return: 0, or -1 once the stream is stopped with its error.
 */
int rddp_rx_tagged_placed(struct rddp_stream *s, const u8 *raw, u32 hdr_len,
			  u32 len);

/**
 * rddp_rx_flush() - stream stop: the receive being filled ends with a
 * flush error
 * @s: the stream, RX halted
 */
void rddp_rx_flush(struct rddp_stream *s);

#endif /* RDDP_QP_RX_H */
