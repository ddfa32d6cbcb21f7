/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * MPA connection setup frames: the MPA Request and Reply frames of
 * RFC 5044 §7.1 and the enhanced connection data of RFC 6581 (MPA
 * revision 2: IRD/ORD, peer-to-peer mode and the Ready-to-Receive kinds).
 *
 * Wire format (RFC 5044 §7.1.1):
 *   Key (16 octets) | M C R Res(5) | Rev | PD_Length (16) | Private Data
 * With revision 2 and the enhanced bit set, Private Data starts with
 * (RFC 6581 §9.1.1):
 *   A B IRD(14) | C D ORD(14)
 * A = peer-to-peer, B/C/D = zero-length Send / RDMA Write / RDMA Read RTR.
 */
#ifndef RDDP_MPA_FRAME_H
#define RDDP_MPA_FRAME_H

#include "types.h"

#define RDDP_MPA_KEY_LEN	16
#define RDDP_MPA_FRAME_HDR_LEN	20	/* key, flags, rev, PD_Length */
#define RDDP_MPA_PD_MAX		512	/* RFC 5044 §7.1.1 */
#define RDDP_MPA_V2_DATA_LEN	4	/* RFC 6581 §9.1.1 */
#define RDDP_MPA_FRAME_MAX	(RDDP_MPA_FRAME_HDR_LEN + RDDP_MPA_PD_MAX)
#define RDDP_MPA_IRD_ORD_MAX	0x3fff

/* Flags octet (RFC 5044 §7.1.1). */
#define RDDP_MPA_FLAG_MARKERS	0x80	/* M */
#define RDDP_MPA_FLAG_CRC	0x40	/* C */
#define RDDP_MPA_FLAG_REJECT	0x20	/* R: only meaningful in a Reply */
/*
 * A bit of the Res field that revision-2 senders (Linux siw, cxgb4) set
 * when the enhanced connection data of RFC 6581 follows.
 */
#define RDDP_MPA_FLAG_ENHANCED	0x10

/* RTR kinds (RFC 6581 §9.1.1 bits B, C, D), combinable in a Request. */
#define RDDP_MPA_RTR_SEND	0x1
#define RDDP_MPA_RTR_WRITE	0x2
#define RDDP_MPA_RTR_READ	0x4
#define RDDP_MPA_RTR_ALL	0x7

/**
 * enum rddp_mpa_frame_type - an MPA connection setup frame (RFC 5044 §7.1)
 * @RDDP_MPA_REQUEST: the MPA Request, the initiator's
 * @RDDP_MPA_REPLY: the MPA Reply, the responder's
 */
enum rddp_mpa_frame_type {
	RDDP_MPA_REQUEST,
	RDDP_MPA_REPLY,
};

/**
 * struct rddp_mpa_frame - one decoded (or to-be-encoded) Request or Reply
 * @type: enum rddp_mpa_frame_type
 * @rev: the MPA revision, 1 or 2
 * @markers: the M bit
 * @crc: the C bit
 * @reject: the R bit (Reply only)
 * @enhanced: revision 2 with the enhanced connection data of RFC 6581
 * @p2p: the A bit (peer-to-peer mode)
 * @rtr: RDDP_MPA_RTR_* (bits B, C, D)
 * @ird: the IRD field
 * @ord: the ORD field
 * @pd_len: length of the ULP private data (after the enhanced data, if any)
 * @pd: the ULP private data; build: input; parse: points into rx->buf
 */
struct rddp_mpa_frame {
	u8 type;
	u8 rev;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	u16 pd_len;
	const u8 *pd;
};

/**
 * rddp_mpa_frame_build() - encode a Request or Reply frame
 * @f: the frame
 * @buf: where it goes (RDDP_MPA_FRAME_MAX bytes hold any frame)
 * @buf_len: the size of @buf, checked
 *
 * Return: the frame length, or a negative enum rddp_mpa_frame_err for
 * invalid fields (revision, IRD/ORD range, private data too long).
 */
int rddp_mpa_frame_build(const struct rddp_mpa_frame *f, u8 *buf, u32 buf_len);

/**
 * enum rddp_mpa_frame_err - results of the frame parser and builder
 * @RDDP_MPA_FRAME_OK: the frame is complete and valid
 * @RDDP_MPA_FRAME_MORE: incomplete: feed more bytes
 * @RDDP_MPA_FRAME_ERR_KEY: neither Request nor Reply key
 * @RDDP_MPA_FRAME_ERR_UNEXPECTED: Request where a Reply was due, or the
 *	reverse (RFC 5044 §7.1.2 rule 8)
 * @RDDP_MPA_FRAME_ERR_REV: revision not 1 or 2, or above max
 * @RDDP_MPA_FRAME_ERR_PD_LEN: PD_Length > 512
 * @RDDP_MPA_FRAME_ERR_V2_SHORT: enhanced data announced, PD < 4
 * @RDDP_MPA_FRAME_ERR_V2_RTR: Reply selecting more than one RTR
 * @RDDP_MPA_FRAME_ERR_INVAL: build: invalid field
 * @RDDP_MPA_FRAME_ERR_DONE: fed again after a result
 * @RDDP_MPA_FRAME_ERR_MAX: the number of values
 *
 * Names in rddp_mpa_frame_err_names[].
 */
enum rddp_mpa_frame_err {
	RDDP_MPA_FRAME_OK = 0,
	RDDP_MPA_FRAME_MORE,
	RDDP_MPA_FRAME_ERR_KEY,
	RDDP_MPA_FRAME_ERR_UNEXPECTED,
	RDDP_MPA_FRAME_ERR_REV,
	RDDP_MPA_FRAME_ERR_PD_LEN,
	RDDP_MPA_FRAME_ERR_V2_SHORT,
	RDDP_MPA_FRAME_ERR_V2_RTR,
	RDDP_MPA_FRAME_ERR_INVAL,
	RDDP_MPA_FRAME_ERR_DONE,
	RDDP_MPA_FRAME_ERR_MAX
};

extern const char *const rddp_mpa_frame_err_names[RDDP_MPA_FRAME_ERR_MAX];

/**
 * struct rddp_mpa_frame_rx - incremental parser state for one expected frame
 * @expect: enum rddp_mpa_frame_type
 * @max_rev: the highest MPA revision accepted
 * @result: RDDP_MPA_FRAME_MORE, then the final enum rddp_mpa_frame_err
 * @have: octets of the frame received into @buf
 * @need: octets the frame has as far as known (its header, then all of it)
 * @buf: the frame
 */
struct rddp_mpa_frame_rx {
	u8 expect;
	u8 max_rev;
	u8 result;
	u16 have;
	u16 need;
	u8 buf[RDDP_MPA_FRAME_MAX];
};

/**
 * rddp_mpa_frame_rx_init() - start parsing a frame
 * @rx: the parser state
 * @expect: RDDP_MPA_REQUEST (responder) or RDDP_MPA_REPLY (initiator)
 * @max_rev: the highest MPA revision accepted
 */
void rddp_mpa_frame_rx_init(struct rddp_mpa_frame_rx *rx,
			    enum rddp_mpa_frame_type expect, u8 max_rev);

/**
 * rddp_mpa_frame_rx_feed() - feed received bytes to the frame parser
 * @rx: the parser state
 * @data: the bytes received
 * @len: how many
 * @used: set to the bytes consumed: at most the frame's own (bytes after
 *	the frame belong to the FPDU stream)
 * @f: filled in when the frame is complete (f->pd points into @rx)
 *
 * Return: RDDP_MPA_FRAME_MORE until the frame is complete, then
 * RDDP_MPA_FRAME_OK, or an error. A result other than MORE is final.
 */
int rddp_mpa_frame_rx_feed(struct rddp_mpa_frame_rx *rx, const u8 *data,
			   u32 len, u32 *used, struct rddp_mpa_frame *f);

#endif /* RDDP_MPA_FRAME_H */
