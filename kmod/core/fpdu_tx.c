// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* FPDU builder: RFC 5044 §4.1 (format), §4.3 (markers), §4.4 (CRC). */
#include <rddp/mpa.h>
#include <rddp/crc32c.h>
#include <rddp/wire.h>

u32 rddp_mpa_mulpdu(u32 emss, bool markers)
{
	u32 over = 6 + emss % 4;
	u32 m;

	/* RFC 5044 §4.5: worst-case markers, floor of 128 octets */
	if (markers)
		over += 4 * ((emss + RDDP_MPA_MARKER_INTERVAL - 1) /
			     RDDP_MPA_MARKER_INTERVAL);
	m = emss > over ? emss - over : 0;
	return m < 128 ? 128 : m;
}

struct fpdu_ctx {
	struct rddp_mpa_tx *tx;
	struct rddp_fpdu *f;
	u32 start;	/* stream position of the FPDU's first byte */
	u32 nr_markers;
	u32 crc;
	bool crc_on;
};

static void add_span(struct fpdu_ctx *c, const u8 *p, u32 len, bool crc)
{
	struct rddp_fpdu *f = c->f;

	if (crc && c->crc_on)
		c->crc = rddp_crc32c(c->crc, p, len);
	f->span[f->nr_spans].base = p;
	f->span[f->nr_spans].len = len;
	f->nr_spans++;
	f->len += len;
	c->tx->pos += len;
}

/* RFC 5044 §4.3: a marker at every 512th octet, FPDUPTR back to the header */
static void maybe_marker(struct fpdu_ctx *c)
{
	u8 *m;

	if (!c->tx->markers || c->tx->pos % RDDP_MPA_MARKER_INTERVAL)
		return;
	m = c->f->markers[c->nr_markers++];
	rddp_put_be16(m, 0);
	rddp_put_be16(m + 2, (u16)(c->tx->pos - c->start));
	add_span(c, m, RDDP_MPA_MARKER_LEN, true);
}

/* Emit @len bytes, inserting a marker at every 512-byte boundary. */
static void emit(struct fpdu_ctx *c, const u8 *p, u32 len, bool crc)
{
	while (len) {
		u32 room = len;

		maybe_marker(c);
		if (c->tx->markers) {
			u32 off = RDDP_MPA_MARKER_INTERVAL -
				  c->tx->pos % RDDP_MPA_MARKER_INTERVAL;

			if (room > off)
				room = off;
		}
		add_span(c, p, room, crc);
		p += room;
		len -= room;
	}
}

int rddp_fpdu_build(struct rddp_mpa_tx *tx, struct rddp_fpdu *f,
		    const u8 *hdr, u32 hdr_len, const u8 *payload,
		    u32 payload_len)
{
	struct rddp_span one = { .base = payload, .len = payload_len };

	return rddp_fpdu_build_sg(tx, f, hdr, hdr_len, &one,
				  payload_len ? 1 : 0);
}

int rddp_fpdu_build_sg(struct rddp_mpa_tx *tx, struct rddp_fpdu *f,
		       const u8 *hdr, u32 hdr_len,
		       const struct rddp_span *frags, u32 nr_frags)
{
	struct fpdu_ctx c = { .tx = tx, .f = f, .start = tx->pos,
			      .crc = ~0U, .crc_on = tx->crc };
	u32 payload_len = 0, ulpdu, pad, i;

	if (hdr_len > RDDP_MPA_HDR_MAX || nr_frags > RDDP_FPDU_MAX_FRAGS)
		return -1;
	for (i = 0; i < nr_frags; i++) {
		if (frags[i].len > RDDP_FPDU_MAX_ULPDU)
			return -1;
		payload_len += frags[i].len;
	}
	ulpdu = hdr_len + payload_len;
	if (ulpdu > RDDP_FPDU_MAX_ULPDU || payload_len > RDDP_FPDU_MAX_ULPDU ||
	    !ulpdu)
		return -1;
	f->nr_spans = 0;
	f->len = 0;
	rddp_put_be16(f->hdr, (u16)ulpdu);
	memcpy(f->hdr + 2, hdr, hdr_len);
	emit(&c, f->hdr, 2 + hdr_len, true);
	for (i = 0; i < nr_frags; i++)
		if (frags[i].len)
			emit(&c, frags[i].base, frags[i].len, true);
	/* RFC 5044 §4.1: pad ULPDU_Length + ULPDU to a multiple of 4 */
	pad = (4 - (2 + ulpdu) % 4) % 4;
	if (pad) {
		memset(f->pad, 0, sizeof(f->pad));
		emit(&c, f->pad, pad, true);
	}
	/*
	 * RFC 5044 §4.4: CRC32c over the FPDU including markers, stored LSB
	 * first. A marker right before the CRC field is covered; a marker
	 * landing inside the CRC field is not (it follows the covered bytes).
	 */
	maybe_marker(&c);
	if (tx->crc)
		rddp_put_le32(f->crc, ~c.crc);
	else
		memset(f->crc, 0, sizeof(f->crc));
	emit(&c, f->crc, RDDP_MPA_CRC_LEN, false);
	return 0;
}
