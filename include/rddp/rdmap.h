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

/* RFC 5040 §4.2 opcodes */
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

/* RFC 5040 §5.1: untagged queues */
enum rddp_qn {
	RDDP_QN_SEND = 0,
	RDDP_QN_READ_REQ = 1,
	RDDP_QN_TERMINATE = 2,
	RDDP_QN_MAX
};

/* What each opcode is on the wire (one row per opcode). */
struct rddp_opcode_info {
	const char *name;
	bool tagged;
	u8 qn;			/* untagged only */
	bool invalidate;	/* carries an STag to invalidate */
	bool solicited;		/* Solicited Event */
};

extern const struct rddp_opcode_info rddp_opcodes[RDDP_OP_MAX];

/* A decoded DDP/RDMAP header. */
struct rddp_hdr {
	bool tagged;
	bool last;
	u8 opcode;
	u8 hdr_len;		/* 14 or 18 */
	u32 stag;		/* tagged */
	u64 to;			/* tagged */
	u32 inval_stag;		/* untagged: Send with Invalidate */
	u32 qn;			/* untagged */
	u32 msn;		/* untagged */
	u32 mo;			/* untagged */
};

/* RDMA Read Request header (RFC 5040 §4.4), the payload on QN 1. */
struct rddp_read_req {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

/*
 * Every error rddp detects on the wire, with its Terminate fields in
 * rddp_errors[] (RFC 5040 §7, RFC 5041 §7.2, RFC 5044 §8).
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

enum rddp_term_layer {
	RDDP_TERM_LAYER_RDMAP = 0,
	RDDP_TERM_LAYER_DDP = 1,
	RDDP_TERM_LAYER_LLP = 2,
};

struct rddp_err_info {
	const char *name;
	u8 layer;		/* enum rddp_term_layer */
	u8 etype;
	u8 ecode;
	bool ddp_hdr;		/* the offending DDP header is copied (D, M) */
};

extern const struct rddp_err_info rddp_errors[RDDP_ERR_MAX];

/*
 * Encode @h (opcode, T from the opcode table, L, and the fields of its
 * model) into @buf (at least 18 bytes). Returns the header length.
 */
u32 rddp_hdr_build(const struct rddp_hdr *h, u8 *buf);

/*
 * Decode and validate the header of a segment whose payload has
 * @payload_len octets, in the order of RFC 5041 §7.1 and RFC 5040 §5:
 * DDP version, RDMAP version, opcode, T bit against the opcode, QN against
 * the opcode, and the shape of Read Request and Terminate messages.
 * @len is what is available at @buf (the deframer hands 14 or 18 octets).
 * Returns RDDP_ERR_NONE or the error; @h is filled as far as decoded.
 */
enum rddp_err rddp_hdr_parse(const u8 *buf, u32 len, u32 payload_len,
			     struct rddp_hdr *h);

/*
 * Untagged placement checks that need receive-queue state (RFC 5041 §7.1):
 * @nr_bufs buffers are posted on the segment's queue, the oldest expecting
 * MSN @msn_first; @buf_len is the length of the buffer for h->msn (the
 * caller looks it up when the MSN is in the window).
 */
enum rddp_err rddp_ddp_check_untagged(const struct rddp_hdr *h,
				      u32 payload_len, u32 msn_first,
				      u32 nr_bufs, u64 buf_len);

/*
 * Tagged bounds checks (RFC 5041 §7.1 items 3-5) for @len octets at @to
 * in a buffer of @size octets starting at @base. @rdmap selects the RDMAP
 * protection errors (a Read Request's source) instead of DDP's.
 */
enum rddp_err rddp_ddp_check_tagged(u64 to, u32 len, u64 base, u64 size,
				    bool rdmap);

/*
 * Segmentation (RFC 5041 §5.1): the payload length of the segment starting
 * at @off of a @msg_len message when each ULPDU holds at most @mulpdu
 * octets including the @hdr_len header. A zero-length message is one empty
 * segment. The segment is the last when @off + result == @msg_len.
 */
u32 rddp_ddp_seg_len(u32 msg_len, u32 off, u32 mulpdu, u32 hdr_len);

void rddp_read_req_build(const struct rddp_read_req *r, u8 *buf);
void rddp_read_req_parse(const u8 *buf, struct rddp_read_req *r);

/* A decoded Terminate message (RFC 5040 §4.8). */
struct rddp_term {
	u8 layer;
	u8 etype;
	u8 ecode;
	bool m;			/* DDP Segment Length valid */
	bool d;			/* DDP header included */
	bool r;			/* RDMAP (Read Request) header included */
	u16 seg_len;
	u8 ddp_hdr_len;
	u8 ddp_hdr[RDDP_DDP_UNTAGGED_HDR_LEN];
	u8 rdmap_hdr[RDDP_RDMAP_RREQ_LEN];
};

/*
 * Build the Terminate payload (after its untagged DDP header, QN 2) for
 * @err. @bad_hdr (@bad_hdr_len 14 or 18, or NULL) is the offending header,
 * copied when the error class says so, with @seg_len its segment's length;
 * @rreq (or NULL) a Read Request header to copy. Returns the length.
 */
u32 rddp_term_build(enum rddp_err err, const u8 *bad_hdr, u32 bad_hdr_len,
		    u32 seg_len, const u8 *rreq, u8 *buf);

/*
 * Parse a received Terminate payload. Returns RDDP_ERR_NONE, or
 * RDDP_ERR_RDMAP_O_UNSPECIFIED for a malformed one (too short for what its
 * flags announce, unknown layer). Reserved bits are not checked.
 */
enum rddp_err rddp_term_parse(const u8 *buf, u32 len, struct rddp_term *t);

/*
 * The table entry for a deframer error (enum rddp_mpa_err): CRC and marker
 * errors are the LLP's (RFC 5044 §8 codes 2 and 3); a ULPDU length or pad
 * that cannot be framed leaves the stream unusable, a DDP local
 * catastrophic error (RFC 5041 §7.2).
 */
enum rddp_err rddp_mpa_rx_err(int mpa_err);

/* The error a Terminate reports, or RDDP_ERR_MAX if not in the table. */
enum rddp_err rddp_term_to_err(const struct rddp_term *t);

#endif /* RDDP_RDMAP_H */
