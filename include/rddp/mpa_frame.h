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

enum rddp_mpa_frame_type {
	RDDP_MPA_REQUEST,
	RDDP_MPA_REPLY,
};

/* One decoded (or to-be-encoded) Request or Reply frame. */
struct rddp_mpa_frame {
	u8 type;		/* enum rddp_mpa_frame_type */
	u8 rev;			/* 1 or 2 */
	bool markers;		/* M */
	bool crc;		/* C */
	bool reject;		/* R (Reply only) */
	/* revision 2, enhanced connection data present */
	bool enhanced;
	bool p2p;		/* A */
	u8 rtr;			/* RDDP_MPA_RTR_* */
	u16 ird;
	u16 ord;
	/* ULP private data (after the enhanced data, if any) */
	u16 pd_len;
	const u8 *pd;		/* build: input; parse: points into rx->buf */
};

/*
 * Encode @f into @buf (at least RDDP_MPA_FRAME_MAX bytes useful; @buf_len is
 * checked). Returns the frame length, or a negative enum rddp_mpa_frame_err
 * for invalid fields (revision, IRD/ORD range, private data too long).
 */
int rddp_mpa_frame_build(const struct rddp_mpa_frame *f, u8 *buf, u32 buf_len);

enum rddp_mpa_frame_err {
	RDDP_MPA_FRAME_OK = 0,
	RDDP_MPA_FRAME_MORE,		/* incomplete: feed more bytes */
	RDDP_MPA_FRAME_ERR_KEY,		/* neither Request nor Reply key */
	RDDP_MPA_FRAME_ERR_UNEXPECTED,	/* Request where a Reply was due, or
					 * the reverse (RFC 5044 §7.1.2 rule 8)
					 */
	RDDP_MPA_FRAME_ERR_REV,		/* revision not 1 or 2, or above max */
	RDDP_MPA_FRAME_ERR_PD_LEN,	/* PD_Length > 512 */
	RDDP_MPA_FRAME_ERR_V2_SHORT,	/* enhanced data announced, PD < 4 */
	RDDP_MPA_FRAME_ERR_V2_RTR,	/* Reply selecting more than one RTR */
	RDDP_MPA_FRAME_ERR_INVAL,	/* build: invalid field */
	RDDP_MPA_FRAME_ERR_DONE,	/* fed again after a result */
	RDDP_MPA_FRAME_ERR_MAX
};

extern const char *const rddp_mpa_frame_err_names[RDDP_MPA_FRAME_ERR_MAX];

/* Incremental parser state for one expected frame. */
struct rddp_mpa_frame_rx {
	u8 expect;		/* enum rddp_mpa_frame_type */
	u8 max_rev;
	u8 result;		/* enum rddp_mpa_frame_err once final */
	u16 have;
	u16 need;
	u8 buf[RDDP_MPA_FRAME_MAX];
};

void rddp_mpa_frame_rx_init(struct rddp_mpa_frame_rx *rx,
			    enum rddp_mpa_frame_type expect, u8 max_rev);

/*
 * Feed received bytes. Consumes at most the bytes of the frame itself and
 * stores how many in *@used (bytes after the frame belong to the FPDU
 * stream). Returns RDDP_MPA_FRAME_MORE until the frame is complete, then
 * RDDP_MPA_FRAME_OK with @f filled in (f->pd points into @rx), or an error.
 * A result other than MORE is final.
 */
int rddp_mpa_frame_rx_feed(struct rddp_mpa_frame_rx *rx, const u8 *data,
			   u32 len, u32 *used, struct rddp_mpa_frame *f);

#endif /* RDDP_MPA_FRAME_H */
