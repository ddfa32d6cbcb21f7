// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Incremental FPDU deframer (RFC 5044 §4): accepts the TCP byte stream in
 * pieces of any size, strips and checks markers (§4.3), checks ULPDU_Length
 * before use, verifies the CRC32c (§4.4) and hands header and payload to
 * the caller as spans of the input.
 */
#include <rddp/mpa.h>
#include <rddp/crc32c.h>
#include <rddp/wire.h>

enum { ST_LEN, ST_HDR, ST_PAYLOAD, ST_PAD, ST_CRC };

const char *const rddp_mpa_err_names[RDDP_MPA_ERR_MAX] = {
	[RDDP_MPA_OK] = "ok",
	[RDDP_MPA_ERR_ULPDU_ZERO] = "ULPDU_Length zero",
	[RDDP_MPA_ERR_ULPDU_LONG] = "ULPDU_Length too large",
	[RDDP_MPA_ERR_ULPDU_SHORT] = "ULPDU shorter than DDP header",
	[RDDP_MPA_ERR_CRC] = "CRC32c mismatch",
	[RDDP_MPA_ERR_MARKER] = "invalid marker",
	[RDDP_MPA_ERR_ABORTED] = "aborted by consumer",
};

void rddp_mpa_rx_init(struct rddp_mpa_rx *rx, bool markers, bool crc,
		      u32 max_ulpdu)
{
	memset(rx, 0, sizeof(*rx));
	rx->markers = markers;
	rx->crc = crc;
	rx->max_ulpdu = max_ulpdu > RDDP_FPDU_MAX_ULPDU ? RDDP_FPDU_MAX_ULPDU :
							 max_ulpdu;
}

static void start_fpdu(struct rddp_mpa_rx *rx)
{
	if (rx->started)
		return;
	rx->started = true;
	rx->fpdu_start = rx->pos;
	rx->crc_run = ~0U;
}

static void crc_add(struct rddp_mpa_rx *rx, const u8 *p, u32 len)
{
	if (rx->crc)
		rx->crc_run = rddp_crc32c(rx->crc_run, p, len);
}

/* Marker octets: consume up to 4, validate when complete. */
static int eat_marker(struct rddp_mpa_rx *rx, const u8 **p, u32 *len)
{
	u32 n = RDDP_MPA_MARKER_LEN - rx->mk_have;
	u32 mpos;
	bool covered;

	if (n > *len)
		n = *len;
	if (!rx->mk_have)
		start_fpdu(rx);	/* a marker between FPDUs opens the next */
	memcpy(rx->mk + rx->mk_have, *p, n);
	/* covered by the CRC unless it sits inside the CRC field */
	covered = !(rx->state == ST_CRC && rx->have);
	if (covered)
		crc_add(rx, *p, n);
	rx->mk_have += n;
	rx->pos += n;
	*p += n;
	*len -= n;
	if (rx->mk_have < RDDP_MPA_MARKER_LEN)
		return 0;
	rx->mk_have = 0;
	mpos = rx->pos - RDDP_MPA_MARKER_LEN;
	if (rddp_get_be16(rx->mk) ||
	    rddp_get_be16(rx->mk + 2) != (u16)(mpos - rx->fpdu_start))
		return RDDP_MPA_ERR_MARKER;
	return 0;
}

/* Bytes that may be consumed before the next marker. */
static u32 until_marker(const struct rddp_mpa_rx *rx, u32 len)
{
	u32 room;

	if (!rx->markers)
		return len;
	room = RDDP_MPA_MARKER_INTERVAL - rx->pos % RDDP_MPA_MARKER_INTERVAL;
	return len < room ? len : room;
}

static int after_header(struct rddp_mpa_rx *rx,
			const struct rddp_mpa_rx_ops *ops, void *ctx)
{
	u32 pay = rx->ulpdu_len - rx->hdr_len;

	if (ops->header &&
	    ops->header(ctx, rx->hdr + 2, rx->hdr_len, pay))
		return RDDP_MPA_ERR_ABORTED;
	rx->left = pay;
	rx->state = ST_PAYLOAD;
	return 0;
}

static int step(struct rddp_mpa_rx *rx, const u8 *p, u32 n,
		const struct rddp_mpa_rx_ops *ops, void *ctx)
{
	switch (rx->state) {
	case ST_LEN:
		crc_add(rx, p, n);
		memcpy(rx->hdr + rx->have, p, n);
		rx->have += n;
		if (rx->have < 2)
			return 0;
		/* RFC 5044 §4.1: check ULPDU_Length before using it */
		rx->ulpdu_len = rddp_get_be16(rx->hdr);
		if (!rx->ulpdu_len)
			return RDDP_MPA_ERR_ULPDU_ZERO;
		if (rx->ulpdu_len > rx->max_ulpdu)
			return RDDP_MPA_ERR_ULPDU_LONG;
		rx->state = ST_HDR;
		rx->hdr_len = 0;
		return 0;
	case ST_HDR:
		crc_add(rx, p, n);
		memcpy(rx->hdr + rx->have, p, n);
		rx->have += n;
		if (!rx->hdr_len) {
			/* RFC 5041 §4: tagged header 14, untagged 18 octets */
			rx->hdr_len = (rx->hdr[2] & 0x80) ? 14 : 18;
			if (rx->ulpdu_len < rx->hdr_len)
				return RDDP_MPA_ERR_ULPDU_SHORT;
		}
		if (rx->have < 2 + rx->hdr_len)
			return 0;
		return after_header(rx, ops, ctx);
	case ST_PAYLOAD:
		crc_add(rx, p, n);
		rx->left -= n;
		if (n && ops->payload && ops->payload(ctx, p, n))
			return RDDP_MPA_ERR_ABORTED;
		break;
	case ST_PAD:
		/*
		 * RFC 5044 §4.1: the pad "MUST be set to zero by the sender and
		 * ignored by the receiver (except for CRC checking)" (Linux siw
		 * sends non-zero pad octets).
		 */
		crc_add(rx, p, n);
		rx->left -= n;
		break;
	default: /* ST_CRC */
		memcpy(rx->crcbuf + rx->have, p, n);
		rx->have += n;
		if (rx->have < RDDP_MPA_CRC_LEN)
			return 0;
		if (rx->crc && rddp_get_le32(rx->crcbuf) != ~rx->crc_run)
			return RDDP_MPA_ERR_CRC;
		rx->state = ST_LEN;
		rx->have = 0;
		rx->started = false;
		if (ops->fpdu_done && ops->fpdu_done(ctx))
			return RDDP_MPA_ERR_ABORTED;
		return 0;
	}
	if (rx->left)
		return 0;
	if (rx->state == ST_PAYLOAD) {
		rx->left = (4 - (2 + rx->ulpdu_len) % 4) % 4;
		rx->state = ST_PAD;
		if (rx->left)
			return 0;
	}
	rx->state = ST_CRC;
	rx->have = 0;
	return 0;
}

/* Bytes the current state wants next (never more than it needs). */
static u32 wanted(const struct rddp_mpa_rx *rx)
{
	switch (rx->state) {
	case ST_LEN:
		return 2 - rx->have;
	case ST_HDR:
		/* first one octet to learn T, then the rest of the header */
		return rx->hdr_len ? 2 + rx->hdr_len - rx->have : 1;
	case ST_PAYLOAD:
	case ST_PAD:
		return rx->left;
	default:
		return RDDP_MPA_CRC_LEN - rx->have;
	}
}

int rddp_mpa_rx_feed(struct rddp_mpa_rx *rx, const u8 *data, u32 len,
		     const struct rddp_mpa_rx_ops *ops, void *ctx)
{
	int err = 0;

	if (rx->err)
		return rx->err;
	while (len && !err) {
		u32 n;

		if (rx->markers &&
		    (rx->mk_have || !(rx->pos % RDDP_MPA_MARKER_INTERVAL))) {
			err = eat_marker(rx, &data, &len);
			continue;
		}
		n = until_marker(rx, len);
		if (n > wanted(rx))
			n = wanted(rx);
		if (rx->state == ST_LEN)
			start_fpdu(rx);
		rx->pos += n;
		err = step(rx, data, n, ops, ctx);
		data += n;
		len -= n;
	}
	rx->err = (u8)err;
	return err;
}
