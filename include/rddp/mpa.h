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
#define RDDP_MPA_LEN_FIELD 2		/* ULPDU_Length, RFC 5044 §4.1 */
#define RDDP_MPA_HDR_MAX 28		/* largest DDP/RDMAP header */
#define RDDP_FPDU_MAX_ULPDU 65535
#define RDDP_FPDU_MAX_MARKERS (RDDP_FPDU_MAX_ULPDU / 512 + 3)
/* Payload pieces one FPDU may gather (rddp_fpdu_build_sg()). */
#define RDDP_FPDU_MAX_FRAGS 32
#define RDDP_FPDU_MAX_SPANS (2 * RDDP_FPDU_MAX_MARKERS + RDDP_FPDU_MAX_FRAGS + 8)

/**
 * struct rddp_span - one piece of an FPDU's gather list
 * @base: its first byte (the caller's payload, or a field of struct rddp_fpdu)
 * @len: its length in bytes
 */
struct rddp_span {
	const u8 *base;
	u32 len;
};

/**
 * struct rddp_mpa_tx - transmit state of one MPA stream in full operation
 * @markers: insert markers (RFC 5044 §4.3; the peer asked for them)
 * @crc: append CRC32c to each FPDU (RFC 5044 §4.4)
 * @pos: bytes sent since the start of full operation, which places the
 *	markers
 */
struct rddp_mpa_tx {
	bool markers;
	bool crc;
	u32 pos;
};

/**
 * struct rddp_fpdu - one FPDU built for sending: its gather list and the
 * octets it adds to the caller's payload
 * @hdr: ULPDU_Length followed by the DDP/RDMAP header
 * @markers: the markers that fall inside this FPDU
 * @pad: the zero pad to a multiple of 4 octets
 * @crc: the CRC field
 * @nr_spans: entries used in @span
 * @len: total bytes on the wire
 * @span: the gather list, in wire order
 */
struct rddp_fpdu {
	u8 hdr[2 + RDDP_MPA_HDR_MAX];
	u8 markers[RDDP_FPDU_MAX_MARKERS][RDDP_MPA_MARKER_LEN];
	u8 pad[3];
	u8 crc[RDDP_MPA_CRC_LEN];
	u32 nr_spans;
	u32 len;
	struct rddp_span span[RDDP_FPDU_MAX_SPANS];
};

/**
 * rddp_mpa_mulpdu() - MULPDU for a given EMSS (RFC 5044 §4.5)
 * @emss: the TCP connection's effective MSS
 * @markers: markers are sent (they are counted at their worst case)
 *
 * Return: the largest ULPDU an FPDU of one segment holds, never below 128
 * octets.
 */
u32 rddp_mpa_mulpdu(u32 emss, bool markers);

/**
 * rddp_fpdu_build() - build one FPDU
 * @tx: the stream's transmit state; @tx->pos advances by the FPDU's length
 * @f: the FPDU to fill; it must stay alive and unmoved until sent
 * @hdr: the DDP/RDMAP header, copied into @f
 * @hdr_len: its length, at most RDDP_MPA_HDR_MAX
 * @payload: the payload, referenced by @f's spans (not copied)
 * @payload_len: its length
 *
 * The ULPDU is @hdr followed by @payload.
 *
 * Return: 0, or -1 if the ULPDU is too long or @hdr_len too large.
 */
int rddp_fpdu_build(struct rddp_mpa_tx *tx, struct rddp_fpdu *f,
		    const u8 *hdr, u32 hdr_len, const u8 *payload,
		    u32 payload_len);

/**
 * rddp_fpdu_build_sg() - build one FPDU with a gathered payload
 * @tx: the stream's transmit state, as for rddp_fpdu_build()
 * @f: the FPDU to fill
 * @hdr: the DDP/RDMAP header, copied into @f
 * @hdr_len: its length, at most RDDP_MPA_HDR_MAX
 * @frags: the payload's pieces, e.g. the pages of a memory region
 * @nr_frags: how many, at most RDDP_FPDU_MAX_FRAGS
 *
 * Return: 0, or -1 as rddp_fpdu_build() (or too many @frags).
 */
int rddp_fpdu_build_sg(struct rddp_mpa_tx *tx, struct rddp_fpdu *f,
		       const u8 *hdr, u32 hdr_len,
		       const struct rddp_span *frags, u32 nr_frags);

/**
 * enum rddp_mpa_err - deframer errors
 * @RDDP_MPA_OK: no error
 * @RDDP_MPA_ERR_ULPDU_ZERO: ULPDU_Length 0
 * @RDDP_MPA_ERR_ULPDU_LONG: ULPDU_Length > rx->max_ulpdu
 * @RDDP_MPA_ERR_ULPDU_SHORT: shorter than the DDP header
 * @RDDP_MPA_ERR_CRC: CRC32c mismatch (RFC 5044 §4.4)
 * @RDDP_MPA_ERR_MARKER: reserved bits or FPDUPTR wrong
 * @RDDP_MPA_ERR_ABORTED: a callback returned non-zero
 * @RDDP_MPA_ERR_MAX: the number of values
 *
 * Sticky: once one is returned, the stream is dead. Names in
 * rddp_mpa_err_names[]; rddp_mpa_rx_err() gives the Terminate entry.
 */
enum rddp_mpa_err {
	RDDP_MPA_OK = 0,
	RDDP_MPA_ERR_ULPDU_ZERO,
	RDDP_MPA_ERR_ULPDU_LONG,
	RDDP_MPA_ERR_ULPDU_SHORT,
	RDDP_MPA_ERR_CRC,
	RDDP_MPA_ERR_MARKER,
	RDDP_MPA_ERR_ABORTED,
	RDDP_MPA_ERR_MAX
};

extern const char *const rddp_mpa_err_names[RDDP_MPA_ERR_MAX];

/**
 * struct rddp_mpa_rx_ops - callbacks of the incremental deframer
 * @header: an FPDU's DDP/RDMAP header (@hdr_len octets) has arrived, with
 *	@payload_len octets of payload to follow
 * @payload: the next @len octets of the FPDU's payload
 * @fpdu_done: the FPDU is complete and its CRC (if any) verified
 *
 * Data handed over points into the caller's input buffer (no copy) and is
 * valid only during the call. The header and payload are NOT yet
 * CRC-verified: the consumer may place them but must not complete anything
 * before fpdu_done(). A callback that returns non-zero stops the stream
 * (RDDP_MPA_ERR_ABORTED).
 */
struct rddp_mpa_rx_ops {
	int (*header)(void *ctx, const u8 *hdr, u32 hdr_len, u32 payload_len);
	int (*payload)(void *ctx, const u8 *data, u32 len);
	int (*fpdu_done)(void *ctx);
};

/**
 * struct rddp_mpa_rx - receive state of one MPA stream in full operation
 * @markers: the peer sends markers (we asked for them)
 * @crc: FPDUs carry a CRC32c that is checked
 * @max_ulpdu: the longest ULPDU accepted
 * @pos: bytes received since full operation began
 *
 * Set up by rddp_mpa_rx_init(); the rest is the deframer's own.
 */
struct rddp_mpa_rx {
	bool markers;
	bool crc;
	u32 max_ulpdu;
	u32 pos;
	/* private: the deframer's state (fpdu_rx.c) */
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

/**
 * rddp_mpa_rx_init() - set up the deframer at the start of full operation
 * @rx: the state to initialise
 * @markers: the peer sends markers
 * @crc: check each FPDU's CRC32c
 * @max_ulpdu: the longest ULPDU to accept (capped at RDDP_FPDU_MAX_ULPDU)
 */
void rddp_mpa_rx_init(struct rddp_mpa_rx *rx, bool markers, bool crc,
		      u32 max_ulpdu);

/**
 * rddp_mpa_rx_feed() - feed received bytes of the TCP stream
 * @rx: the deframer
 * @data: the bytes; only data[0..len) is read
 * @len: how many
 * @ops: the callbacks the FPDUs' pieces are handed to
 * @ctx: their first argument
 *
 * Return: RDDP_MPA_OK or an enum rddp_mpa_err, which is sticky: once one is
 * returned, the stream is dead.
 */
int rddp_mpa_rx_feed(struct rddp_mpa_rx *rx, const u8 *data, u32 len,
		     const struct rddp_mpa_rx_ops *ops, void *ctx);

/**
 * rddp_mpa_rx_in_fpdu() - whether the stream stopped inside an FPDU
 * @rx: the deframer
 *
 * The kernel bounds how long a peer may leave an FPDU half sent (stream.c).
 *
 * Return: true if an FPDU's first octet (or the marker that opens it,
 * RFC 5044 §4.3) is in and its CRC field not yet.
 */
static inline bool rddp_mpa_rx_in_fpdu(const struct rddp_mpa_rx *rx)
{
	return rx->started;
}

#endif /* RDDP_MPA_H */
