/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040) headers, receive-side validation,
 * segmentation, the Terminate message, and the one table that maps every
 * MPA/DDP/RDMAP error to its Terminate fields.
 *
 * DDP/RDMAP control field, the first 16 bits of every ULPDU:
 *   T L Rsvd(4) DV(2) | RV(2) Rsvd(2) Opcode(4)
 * Tagged header (14 octets):   control | STag | TO (64)
 * Untagged header (18 octets): control | Inval STag / RsvdULP | QN | MSN | MO
 */
#ifndef RDDP_RDMAP_H
#define RDDP_RDMAP_H

#include "types.h"

#define RDDP_DDP_TAGGED_HDR_LEN		14
#define RDDP_DDP_UNTAGGED_HDR_LEN	18
#define RDDP_RDMAP_RREQ_LEN		28	/* RFC 5040 §4.4 */
#define RDDP_TERM_CTRL_LEN		4	/* RFC 5040 §4.8 */
#define RDDP_TERM_MAX_LEN	(RDDP_TERM_CTRL_LEN + 2 + \
				 RDDP_DDP_UNTAGGED_HDR_LEN + RDDP_RDMAP_RREQ_LEN)

#define RDDP_DDP_VERSION	1	/* RFC 5041 §4.1 DV */
#define RDDP_RDMAP_VERSION	1	/* RFC 5040 §4.2 RV */

/**
 * enum rddp_opcode - RDMAP opcodes (RFC 5040 §4.2)
 * @RDDP_OP_WRITE: RDMA Write
 * @RDDP_OP_READ_REQ: RDMA Read Request
 * @RDDP_OP_READ_RESP: RDMA Read Response
 * @RDDP_OP_SEND: Send
 * @RDDP_OP_SEND_INV: Send with Invalidate
 * @RDDP_OP_SEND_SE: Send with Solicited Event
 * @RDDP_OP_SEND_SE_INV: Send with Solicited Event and Invalidate
 * @RDDP_OP_TERMINATE: Terminate
 * @RDDP_OP_MAX: the number of values
 *
 * rddp_opcodes[] says what each is on the wire.
 */
enum rddp_opcode {
	RDDP_OP_WRITE = 0x0,
	RDDP_OP_READ_REQ = 0x1,
	RDDP_OP_READ_RESP = 0x2,
	RDDP_OP_SEND = 0x3,
	RDDP_OP_SEND_INV = 0x4,
	RDDP_OP_SEND_SE = 0x5,
	RDDP_OP_SEND_SE_INV = 0x6,
	RDDP_OP_TERMINATE = 0x7,
	RDDP_OP_MAX
};

/**
 * enum rddp_qn - untagged queues (RFC 5040 §5.1)
 * @RDDP_QN_SEND: Send messages
 * @RDDP_QN_READ_REQ: RDMA Read Requests
 * @RDDP_QN_TERMINATE: Terminate messages
 * @RDDP_QN_MAX: the number of values
 */
enum rddp_qn {
	RDDP_QN_SEND = 0,
	RDDP_QN_READ_REQ = 1,
	RDDP_QN_TERMINATE = 2,
	RDDP_QN_MAX
};

/**
 * struct rddp_opcode_info - what an RDMAP opcode is on the wire
 * @name: the opcode's name in RFC 5040 §4.2
 * @tagged: its messages use the tagged buffer model (T bit set)
 * @qn: the untagged queue it goes to (untagged only)
 * @invalidate: it carries an STag to invalidate
 * @solicited: it sets Solicited Event
 *
 * rddp_opcodes[] has one row per opcode.
 */
struct rddp_opcode_info {
	const char *name;
	bool tagged;
	u8 qn;
	bool invalidate;
	bool solicited;
};

extern const struct rddp_opcode_info rddp_opcodes[RDDP_OP_MAX];

/**
 * struct rddp_hdr - a decoded DDP/RDMAP header (RFC 5041 §4, RFC 5040 §4)
 * @tagged: the T bit
 * @last: the L bit: the message's last segment
 * @opcode: enum rddp_opcode
 * @hdr_len: 14 (tagged) or 18 (untagged)
 * @stag: tagged: the data sink's STag
 * @to: tagged: the tagged offset
 * @inval_stag: untagged: the STag a Send with Invalidate invalidates
 * @qn: untagged: the queue number
 * @msn: untagged: the message sequence number
 * @mo: untagged: the message offset
 */
struct rddp_hdr {
	bool tagged;
	bool last;
	u8 opcode;
	u8 hdr_len;
	u32 stag;
	u64 to;
	u32 inval_stag;
	u32 qn;
	u32 msn;
	u32 mo;
};

/**
 * struct rddp_read_req - an RDMA Read Request header, the payload on QN 1
 * (RFC 5040 §4.4)
 * @sink_stag: Data Sink STag
 * @sink_to: Data Sink Tagged Offset
 * @size: RDMA Read Message Size
 * @src_stag: Data Source STag
 * @src_to: Data Source Tagged Offset
 */
struct rddp_read_req {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

/**
 * enum rddp_err - every error rddp detects on the wire
 * @RDDP_ERR_NONE: no error
 * @RDDP_ERR_LLP_CLOSED: LLP: TCP connection lost
 * @RDDP_ERR_LLP_CRC: LLP: MPA CRC error
 * @RDDP_ERR_LLP_MARKER: LLP: MPA marker and ULPDU length disagree
 * @RDDP_ERR_LLP_FRAME: LLP: invalid MPA Request or Reply
 * @RDDP_ERR_LLP_CATASTROPHIC: LLP: MPA local catastrophic
 * @RDDP_ERR_LLP_INSUFFICIENT_IRD: LLP: insufficient IRD
 * @RDDP_ERR_LLP_NO_MATCHING_RTR: LLP: no matching RTR
 * @RDDP_ERR_DDP_CATASTROPHIC: DDP: local catastrophic
 * @RDDP_ERR_DDP_T_INVALID_STAG: DDP tagged buffer: invalid STag
 * @RDDP_ERR_DDP_T_BASE_BOUNDS: DDP tagged buffer: base or bounds
 *	violation
 * @RDDP_ERR_DDP_T_STAG_STREAM: DDP tagged buffer: STag not associated
 *	with stream
 * @RDDP_ERR_DDP_T_TO_WRAP: DDP tagged buffer: TO wrap
 * @RDDP_ERR_DDP_T_VERSION: DDP tagged buffer: invalid DDP version
 *	(tagged)
 * @RDDP_ERR_DDP_U_QN: DDP untagged buffer: invalid QN
 * @RDDP_ERR_DDP_U_NO_BUF: DDP untagged buffer: invalid MSN: no buffer
 * @RDDP_ERR_DDP_U_MSN_RANGE: DDP untagged buffer: invalid MSN: out of
 *	range
 * @RDDP_ERR_DDP_U_MO: DDP untagged buffer: invalid MO
 * @RDDP_ERR_DDP_U_TOO_LONG: DDP untagged buffer: message too long for
 *	buffer
 * @RDDP_ERR_DDP_U_VERSION: DDP untagged buffer: invalid DDP version
 *	(untagged)
 * @RDDP_ERR_RDMAP_CATASTROPHIC: RDMAP: local catastrophic
 * @RDDP_ERR_RDMAP_P_INVALID_STAG: RDMAP remote protection: invalid STag
 * @RDDP_ERR_RDMAP_P_BASE_BOUNDS: RDMAP remote protection: base or
 *	bounds violation
 * @RDDP_ERR_RDMAP_P_ACCESS: RDMAP remote protection: access rights
 *	violation
 * @RDDP_ERR_RDMAP_P_STAG_STREAM: RDMAP remote protection: STag not
 *	associated with stream
 * @RDDP_ERR_RDMAP_P_TO_WRAP: RDMAP remote protection: TO wrap
 * @RDDP_ERR_RDMAP_P_INVALIDATE: RDMAP remote protection: STag cannot be
 *	invalidated
 * @RDDP_ERR_RDMAP_O_VERSION: RDMAP remote operation: invalid RDMAP
 *	version
 * @RDDP_ERR_RDMAP_O_OPCODE: RDMAP remote operation: unexpected opcode
 * @RDDP_ERR_RDMAP_O_STREAM: RDMAP remote operation: catastrophic error
 *	in stream
 * @RDDP_ERR_RDMAP_O_GLOBAL: RDMAP remote operation: catastrophic global
 *	error
 * @RDDP_ERR_RDMAP_O_INVALIDATE: RDMAP remote operation: STag cannot be
 *	invalidated
 * @RDDP_ERR_RDMAP_O_UNSPECIFIED: RDMAP remote operation: unspecified
 *	error
 * @RDDP_ERR_MAX: the number of values
 *
 * Each has its Terminate fields in rddp_errors[] (RFC 5040 §7, RFC 5041
 * §7.2, RFC 5044 §8), whose names these are.
 */
enum rddp_err {
	RDDP_ERR_NONE = 0,
	/* LLP (MPA), RFC 5044 §8 */
	RDDP_ERR_LLP_CLOSED,
	RDDP_ERR_LLP_CRC,
	RDDP_ERR_LLP_MARKER,
	RDDP_ERR_LLP_FRAME,
	RDDP_ERR_LLP_CATASTROPHIC,
	RDDP_ERR_LLP_INSUFFICIENT_IRD,
	RDDP_ERR_LLP_NO_MATCHING_RTR,
	/* DDP, RFC 5041 §7.2 */
	RDDP_ERR_DDP_CATASTROPHIC,
	RDDP_ERR_DDP_T_INVALID_STAG,
	RDDP_ERR_DDP_T_BASE_BOUNDS,
	RDDP_ERR_DDP_T_STAG_STREAM,
	RDDP_ERR_DDP_T_TO_WRAP,
	RDDP_ERR_DDP_T_VERSION,
	RDDP_ERR_DDP_U_QN,
	RDDP_ERR_DDP_U_NO_BUF,
	RDDP_ERR_DDP_U_MSN_RANGE,
	RDDP_ERR_DDP_U_MO,
	RDDP_ERR_DDP_U_TOO_LONG,
	RDDP_ERR_DDP_U_VERSION,
	/* RDMAP, RFC 5040 §7 */
	RDDP_ERR_RDMAP_CATASTROPHIC,
	RDDP_ERR_RDMAP_P_INVALID_STAG,
	RDDP_ERR_RDMAP_P_BASE_BOUNDS,
	RDDP_ERR_RDMAP_P_ACCESS,
	RDDP_ERR_RDMAP_P_STAG_STREAM,
	RDDP_ERR_RDMAP_P_TO_WRAP,
	RDDP_ERR_RDMAP_P_INVALIDATE,
	RDDP_ERR_RDMAP_O_VERSION,
	RDDP_ERR_RDMAP_O_OPCODE,
	RDDP_ERR_RDMAP_O_STREAM,
	RDDP_ERR_RDMAP_O_GLOBAL,
	RDDP_ERR_RDMAP_O_INVALIDATE,
	RDDP_ERR_RDMAP_O_UNSPECIFIED,
	RDDP_ERR_MAX
};

/**
 * enum rddp_term_layer - the Layer field of a Terminate (RFC 5040 §4.8)
 * @RDDP_TERM_LAYER_RDMAP: RDMAP
 * @RDDP_TERM_LAYER_DDP: DDP
 * @RDDP_TERM_LAYER_LLP: the LLP: MPA over TCP
 */
enum rddp_term_layer {
	RDDP_TERM_LAYER_RDMAP = 0,
	RDDP_TERM_LAYER_DDP = 1,
	RDDP_TERM_LAYER_LLP = 2,
};

/**
 * struct rddp_err_info - an error's Terminate fields (RFC 5040 §4.8)
 * @name: for logs and rddpctl
 * @layer: enum rddp_term_layer
 * @etype: the Error Type of that layer
 * @ecode: the Error Code
 * @ddp_hdr: the offending DDP header is copied into the Terminate (the D
 *	and M bits)
 */
struct rddp_err_info {
	const char *name;
	u8 layer;
	u8 etype;
	u8 ecode;
	bool ddp_hdr;
};

extern const struct rddp_err_info rddp_errors[RDDP_ERR_MAX];

/**
 * rddp_hdr_build() - encode a DDP/RDMAP header
 * @h: the header: opcode, L, and the fields of its buffer model (T comes
 *	from the opcode table)
 * @buf: where it goes, at least 18 bytes
 *
 * Return: the header length.
 */
u32 rddp_hdr_build(const struct rddp_hdr *h, u8 *buf);

/**
 * rddp_hdr_parse() - decode and validate a segment's DDP/RDMAP header
 * @buf: the header
 * @len: what is available at @buf (the deframer hands 14 or 18 octets)
 * @payload_len: the octets of payload the segment has
 * @h: filled in as far as decoded
 *
 * Checks, in the order of RFC 5041 §7.1 and RFC 5040 §5: DDP version,
 * RDMAP version, opcode, T bit against the opcode, QN against the opcode,
 * and the shape of Read Request and Terminate messages.
 *
 * Return: RDDP_ERR_NONE or the error.
 */
enum rddp_err rddp_hdr_parse(const u8 *buf, u32 len, u32 payload_len,
			     struct rddp_hdr *h);

/**
 * rddp_ddp_check_untagged() - untagged placement checks (RFC 5041 §7.1)
 * that need receive-queue state
 * @h: the segment's header
 * @payload_len: its payload octets
 * @msn_first: the MSN the oldest posted buffer of the segment's queue expects
 * @nr_bufs: buffers posted on that queue
 * @buf_len: the length of the buffer for h->msn (the caller looks it up
 *	when the MSN is in the window)
 *
 * Return: RDDP_ERR_NONE or the error (no buffer, MSN out of range, MO,
 * message too long).
 */
enum rddp_err rddp_ddp_check_untagged(const struct rddp_hdr *h,
				      u32 payload_len, u32 msn_first,
				      u32 nr_bufs, u64 buf_len);

/* The most disjoint runs of placed octets one untagged message may have. */
#define RDDP_DDP_COVER_RUNS	8

/**
 * struct rddp_ddp_cover - which octets of an untagged message are placed
 * @nr: runs in use
 * @run: the runs, [start, end) in message octets: sorted, disjoint and
 *	not adjacent (touching runs are merged)
 *
 * A fixed array, so a peer's choice of MOs never costs an allocation:
 * a message that would need more runs is refused (rddp_ddp_cover_add()).
 */
struct rddp_ddp_cover {
	u32 nr;
	struct {
		u32 start;
		u32 end;
	} run[RDDP_DDP_COVER_RUNS];
};

/**
 * rddp_ddp_cover_init() - a message with nothing placed yet
 * @c: its coverage
 */
static inline void rddp_ddp_cover_init(struct rddp_ddp_cover *c)
{
	c->nr = 0;
}

/**
 * rddp_ddp_cover_add() - account a segment of an untagged message before
 * its payload is placed (RFC 5041 §5.3, §5.4, §7.1 item 3)
 * @c: the message's coverage so far; updated only on success
 * @mo: the segment's MO
 * @len: its payload octets (within the buffer: rddp_ddp_check_untagged())
 * @last: its L bit
 * @in_order: the segment must start where the octets placed so far end
 *	(an LLP that delivers the sender's segments in order and whose
 *	senders send them in MO order, MPA over TCP); else any MO order is
 *	taken, octets placed again included
 * @msg_len: with @last, set to the message's length
 *
 * The segment with L set is the message's last one as delivered (the
 * LLP's order: TCP's, or DDP-SSN order over SCTP): with it, the octets
 * placed must be exactly [0, msg_len), msg_len being the end of the
 * highest octet any of its segments carried. So a message never completes
 * over an octet no segment placed.
 *
 * Return: RDDP_ERR_NONE; RDDP_ERR_DDP_U_MO ("invalid MO", RFC 5041 §7.2)
 * for a segment out of order (@in_order), a last segment that leaves a
 * gap, or more than RDDP_DDP_COVER_RUNS runs; RDDP_ERR_DDP_U_TOO_LONG if
 * @mo + @len wraps.
 */
enum rddp_err rddp_ddp_cover_add(struct rddp_ddp_cover *c, u32 mo, u32 len,
				 bool last, bool in_order, u32 *msg_len);

/**
 * rddp_ddp_check_tagged() - tagged bounds checks (RFC 5041 §7.1 items 3-5)
 * @to: the tagged offset of the access
 * @len: its octets
 * @base: the buffer's first tagged offset
 * @size: the buffer's octets
 * @rdmap: report RDMAP protection errors (a Read Request's source)
 *	instead of DDP's
 *
 * Return: RDDP_ERR_NONE, or the TO wrap or base-and-bounds error.
 */
enum rddp_err rddp_ddp_check_tagged(u64 to, u32 len, u64 base, u64 size,
				    bool rdmap);

/**
 * rddp_ddp_seg_len() - segmentation of a message (RFC 5041 §5.1)
 * @msg_len: the message's octets
 * @off: where the segment starts in the message
 * @mulpdu: the most octets one ULPDU holds, header included
 * @hdr_len: the header's octets
 *
 * A zero-length message is one empty segment.
 *
 * Return: the payload length of the segment starting at @off; it is the
 * last when @off + result == @msg_len.
 */
u32 rddp_ddp_seg_len(u32 msg_len, u32 off, u32 mulpdu, u32 hdr_len);

/**
 * rddp_read_req_build() - encode a Read Request header (RFC 5040 §4.4)
 * @r: the header
 * @buf: where it goes, RDDP_RDMAP_RREQ_LEN octets
 */
void rddp_read_req_build(const struct rddp_read_req *r, u8 *buf);

/**
 * rddp_read_req_parse() - decode a Read Request header (RFC 5040 §4.4)
 * @buf: RDDP_RDMAP_RREQ_LEN octets
 * @r: the decoded header
 */
void rddp_read_req_parse(const u8 *buf, struct rddp_read_req *r);

/**
 * struct rddp_term - a decoded Terminate message (RFC 5040 §4.8)
 * @layer: enum rddp_term_layer
 * @etype: the Error Type
 * @ecode: the Error Code
 * @m: the M bit: DDP Segment Length valid
 * @d: the D bit: DDP header included
 * @r: the R bit: RDMAP (Read Request) header included
 * @seg_len: the DDP Segment Length
 * @ddp_hdr_len: octets in @ddp_hdr, 14 or 18 (0 without D)
 * @ddp_hdr: the copied DDP header
 * @rdmap_hdr: the copied Read Request header
 */
struct rddp_term {
	u8 layer;
	u8 etype;
	u8 ecode;
	bool m;
	bool d;
	bool r;
	u16 seg_len;
	u8 ddp_hdr_len;
	u8 ddp_hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	u8 rdmap_hdr[RDDP_RDMAP_RREQ_LEN];
};

/**
 * rddp_term_build() - build the Terminate payload for an error
 * @err: the error
 * @bad_hdr: the offending DDP header, copied when the error class says so,
 *	or NULL
 * @bad_hdr_len: its length, 14 or 18
 * @seg_len: the length of its segment
 * @rreq: a Read Request header to copy, or NULL
 * @buf: where the payload goes (after the Terminate's untagged DDP header,
 *	QN 2), at least RDDP_TERM_MAX_LEN octets
 *
 * Return: the payload's length.
 */
u32 rddp_term_build(enum rddp_err err, const u8 *bad_hdr, u32 bad_hdr_len,
		    u32 seg_len, const u8 *rreq, u8 *buf);

/**
 * rddp_term_parse() - parse a received Terminate payload
 * @buf: the payload (after the untagged DDP header)
 * @len: its length
 * @t: the decoded message
 *
 * Reserved bits are not checked.
 *
 * Return: RDDP_ERR_NONE, or RDDP_ERR_RDMAP_O_UNSPECIFIED for a malformed
 * one (too short for what its flags announce, unknown layer).
 */
enum rddp_err rddp_term_parse(const u8 *buf, u32 len, struct rddp_term *t);

/**
 * rddp_mpa_rx_err() - the error table's entry for a deframer error
 * @mpa_err: an enum rddp_mpa_err
 *
 * CRC and marker errors are the LLP's (RFC 5044 §8 codes 2 and 3); a ULPDU
 * length or pad that cannot be framed leaves the stream unusable, a DDP
 * local catastrophic error (RFC 5041 §7.2).
 *
 * Return: the enum rddp_err to report.
 */
enum rddp_err rddp_mpa_rx_err(int mpa_err);

/**
 * rddp_term_to_err() - the error a received Terminate reports
 * @t: the decoded Terminate
 *
 * Return: the rddp_errors[] entry with its layer, type and code, or
 * RDDP_ERR_MAX if none has them.
 */
enum rddp_err rddp_term_to_err(const struct rddp_term *t);

#endif /* RDDP_RDMAP_H */
