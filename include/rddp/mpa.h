/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * MPA framing (RFC 5044 §4): FPDU builder producing a gather list.
 *
 * The builder never copies payload: payload spans reference the caller's
 * buffers. Header, markers, pad and CRC live in struct rddp_fpdu, which must
 * stay alive (and unmoved) until the spans have been sent.
 */
#ifndef RDDP_MPA_H
#define RDDP_MPA_H

#include "types.h"

#define RDDP_MPA_MARKER_INTERVAL 512	/* RFC 5044 §4.3 */
#define RDDP_MPA_MARKER_LEN 4
#define RDDP_MPA_CRC_LEN 4
#define RDDP_MPA_HDR_MAX 28		/* largest DDP/RDMAP header */
#define RDDP_FPDU_MAX_ULPDU 65535
#define RDDP_FPDU_MAX_MARKERS (RDDP_FPDU_MAX_ULPDU / 512 + 3)
/* Payload pieces one FPDU may gather (rddp_fpdu_build_sg()). */
#define RDDP_FPDU_MAX_FRAGS 32
#define RDDP_FPDU_MAX_SPANS (2 * RDDP_FPDU_MAX_MARKERS + RDDP_FPDU_MAX_FRAGS + 8)

struct rddp_span {
	const u8 *base;
	u32 len;
};

/* Transmit state of one MPA stream in full operation (RFC 5044 §4.3). */
struct rddp_mpa_tx {
	bool markers;
	bool crc;
	u32 pos;	/* bytes sent since the start of full operation */
};

struct rddp_fpdu {
	u8 hdr[2 + RDDP_MPA_HDR_MAX];	/* ULPDU_Length + DDP/RDMAP header */
	u8 markers[RDDP_FPDU_MAX_MARKERS][RDDP_MPA_MARKER_LEN];
	u8 pad[3];
	u8 crc[RDDP_MPA_CRC_LEN];
	u32 nr_spans;
	u32 len;		/* total bytes on the wire */
	struct rddp_span span[RDDP_FPDU_MAX_SPANS];
};

/*
 * MULPDU for a given EMSS (RFC 5044 §4.5), never below 128 octets.
 */
u32 rddp_mpa_mulpdu(u32 emss, bool markers);

/*
 * Build one FPDU whose ULPDU is @hdr (DDP/RDMAP header, at most
 * RDDP_MPA_HDR_MAX bytes) followed by @payload. Advances @tx->pos.
 * Returns 0 or -1 if the ULPDU is too long or @hdr_len too large.
 */
int rddp_fpdu_build(struct rddp_mpa_tx *tx, struct rddp_fpdu *f,
		    const u8 *hdr, u32 hdr_len, const u8 *payload,
		    u32 payload_len);

/*
 * The same with the payload gathered from @nr_frags pieces (at most
 * RDDP_FPDU_MAX_FRAGS), e.g. the pages of a memory region.
 */
int rddp_fpdu_build_sg(struct rddp_mpa_tx *tx, struct rddp_fpdu *f,
		       const u8 *hdr, u32 hdr_len,
		       const struct rddp_span *frags, u32 nr_frags);

/* Deframer errors (sticky: once returned, the stream is dead). */
enum rddp_mpa_err {
	RDDP_MPA_OK = 0,
	RDDP_MPA_ERR_ULPDU_ZERO,	/* ULPDU_Length 0 */
	RDDP_MPA_ERR_ULPDU_LONG,	/* ULPDU_Length > rx->max_ulpdu */
	RDDP_MPA_ERR_ULPDU_SHORT,	/* shorter than the DDP header */
	RDDP_MPA_ERR_CRC,		/* CRC32c mismatch (RFC 5044 §4.4) */
	RDDP_MPA_ERR_MARKER,		/* reserved bits or FPDUPTR wrong */
	RDDP_MPA_ERR_ABORTED,		/* a callback returned non-zero */
	RDDP_MPA_ERR_MAX
};

extern const char *const rddp_mpa_err_names[RDDP_MPA_ERR_MAX];

/*
 * Callbacks of the incremental deframer. Data handed over points into the
 * caller's input buffer (no copy) and is valid only during the call. The
 * header and payload are NOT yet CRC-verified: the consumer may place them
 * but must not complete anything before fpdu_done().
 */
struct rddp_mpa_rx_ops {
	int (*header)(void *ctx, const u8 *hdr, u32 hdr_len, u32 payload_len);
	int (*payload)(void *ctx, const u8 *data, u32 len);
	int (*fpdu_done)(void *ctx);
};

struct rddp_mpa_rx {
	/* configuration */
	bool markers;
	bool crc;
	u32 max_ulpdu;
	u32 pos;		/* bytes received since full operation began */
	/* private state */
	u8 state;
	bool started;
	u8 err;
	u8 mk_have;
	u8 mk[RDDP_MPA_MARKER_LEN];
	u8 crcbuf[RDDP_MPA_CRC_LEN];
	u32 have;
	u32 fpdu_start;
	u32 ulpdu_len;
	u32 hdr_len;
	u32 left;
	u32 crc_run;
	u8 hdr[2 + RDDP_MPA_HDR_MAX];
};

void rddp_mpa_rx_init(struct rddp_mpa_rx *rx, bool markers, bool crc,
		      u32 max_ulpdu);

/*
 * Feed @len bytes of the TCP stream. Reads only data[0..len). Returns
 * RDDP_MPA_OK or a sticky enum rddp_mpa_err.
 */
int rddp_mpa_rx_feed(struct rddp_mpa_rx *rx, const u8 *data, u32 len,
		     const struct rddp_mpa_rx_ops *ops, void *ctx);

/*
 * The stream has stopped inside an FPDU: its first octet (or the marker
 * that opens it, RFC 5044 §4.3) is in, its CRC field not yet. The kernel
 * bounds how long a peer may leave an FPDU half sent (stream.c).
 */
static inline bool rddp_mpa_rx_in_fpdu(const struct rddp_mpa_rx *rx)
{
	return rx->started;
}

#endif /* RDDP_MPA_H */
