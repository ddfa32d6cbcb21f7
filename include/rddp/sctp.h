/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * DDP/RDMAP over SCTP, as draft-ietf-rddp-sctp-00 maps them: the
 * Adaptation Layer Indication, the two Payload Data Chunk formats, the
 * DDP-SSN ordering of unordered chunks and the DDP Stream Session
 * sequences. Protocol core only: nothing here opens an SCTP socket.
 *
 * Payload of every SCTP DATA chunk (§2.2), U flag set (§7):
 *   PPID 1, DDP Segment (§2.2.2):
 *     DDP-SSN (16) | DDP segment (RFC 5041 header + payload)
 *   PPID 2, DDP Stream Session Control (§2.2.3):
 *     DDP-SSN (16) | Function Code (16) | Private Data
 * No MPA framing, markers or CRC: SCTP delimits and checks each chunk.
 */
#ifndef RDDP_SCTP_H
#define RDDP_SCTP_H

#include "rdmap.h"
#include "types.h"

/* §2.1, §9: Adaptation Layer Indication parameter and its values. */
#define RDDP_SCTP_ALI_PARAM_TYPE	0xC006
#define RDDP_SCTP_ALI_DDP		0x00000001
#define RDDP_SCTP_ALI_DDP_RDMA		0x00000002

/* §2.2, §9: Payload Protocol Identifiers. */
#define RDDP_SCTP_PPID_SEGMENT		0x00000001
#define RDDP_SCTP_PPID_CONTROL		0x00000002

#define RDDP_SCTP_SSN_LEN		2	/* §2.2.1 */
#define RDDP_SCTP_CTRL_HDR_LEN		4	/* §2.2.3: DDP-SSN, code */
#define RDDP_SCTP_SEG_PREFIX_MAX	(RDDP_SCTP_SSN_LEN + \
					 RDDP_DDP_UNTAGGED_HDR_LEN)
/*
 * The most one DATA chunk carries: its 16-bit Length covers a 16-octet
 * chunk header (RFC 2960 §3.3.1), and §6 disables SCTP fragmentation, so
 * a DDP message is never reassembled from several chunks.
 */
#define RDDP_SCTP_PAYLOAD_MAX		(0xffff - 16)
#define RDDP_SCTP_PD_MAX	(RDDP_SCTP_PAYLOAD_MAX - RDDP_SCTP_CTRL_HDR_LEN)

/* §2.2.1, §3.1: the first DDP-SSN of a session; it wraps to 0 after 65535. */
#define RDDP_SCTP_SSN_FIRST		1
/*
 * §7: at most 32767 chunks of a stream are in flight, so a received
 * DDP-SSN lies at most 32766 after the oldest one not yet received.
 */
#define RDDP_SCTP_SSN_INFLIGHT_MAX	32767
#define RDDP_SCTP_SSN_WINDOW		32768	/* bitmap size, a power of 2 */

/* §2.2.3: Stream Session Control function codes. */
enum rddp_sctp_fc {
	RDDP_SCTP_FC_NEGOTIATE = 0x001,
	RDDP_SCTP_FC_INITIATE = 0x002,
	RDDP_SCTP_FC_ACCEPT = 0x003,
	RDDP_SCTP_FC_TERMINATE = 0x004,
	RDDP_SCTP_FC_MAX
};

/* What a chunk is to the session sequence (§3): a segment or a code. */
#define RDDP_SCTP_MSG_SEGMENT	0

/*
 * Results of the SCTP adaptation functions: OK and HELD are not errors;
 * each other value names one malformed input or illegal event. Names in
 * rddp_sctp_err_names[]; rddp_sctp_to_err() gives the Terminate entry.
 */
enum rddp_sctp_err {
	RDDP_SCTP_OK = 0,
	RDDP_SCTP_HELD,			/* DDP-SSN later than the next: hold */
	RDDP_SCTP_ERR_PPID,		/* PPID neither 1 nor 2 (§2.2) */
	RDDP_SCTP_ERR_TOO_LONG,		/* more than one DATA chunk holds */
	RDDP_SCTP_ERR_SEG_SHORT,	/* no room for DDP-SSN + DDP header */
	RDDP_SCTP_ERR_CTRL_SHORT,	/* no room for DDP-SSN + code */
	RDDP_SCTP_ERR_FUNC,		/* function code not 1..4 (§2.2.3) */
	RDDP_SCTP_ERR_TERM_PD,		/* Terminate with private data */
	RDDP_SCTP_ERR_SSN_DUP,		/* DDP-SSN already held (§7) */
	RDDP_SCTP_ERR_SSN_OLD,		/* DDP-SSN before the next one */
	RDDP_SCTP_ERR_SSN_BEYOND,	/* 32767 after the next: over §7 */
	RDDP_SCTP_ERR_SSN_INFLIGHT,	/* send: 32767 unacknowledged (§7) */
	RDDP_SCTP_ERR_SEQ_NEGOTIATE,	/* Negotiate after Initiate/Accept */
	RDDP_SCTP_ERR_SEQ_INITIATE,	/* second Initiate, or after Accept */
	RDDP_SCTP_ERR_SEQ_ACCEPT,	/* Accept without the peer's Initiate */
	RDDP_SCTP_ERR_SEQ_SEGMENT,	/* DDP Segment before Initiate/Accept */
	RDDP_SCTP_ERR_SEQ_TERMINATE,	/* Terminate in negotiation only */
	RDDP_SCTP_ERR_SEQ_CLOSED,	/* anything after that side's Terminate */
	RDDP_SCTP_ERR_INVAL,		/* build: invalid argument */
	RDDP_SCTP_ERR_MAX
};

extern const char *const rddp_sctp_err_names[RDDP_SCTP_ERR_MAX];

/*
 * The rddp_errors[] entry for an SCTP adaptation error. The draft defines
 * no Terminate codes of its own; like an unframeable MPA stream, a chunk or
 * sequence it forbids leaves the DDP Stream unusable (§3.1: the session
 * MUST be terminated): a DDP local catastrophic error (RFC 5041 §7.2).
 */
enum rddp_err rddp_sctp_to_err(int sctp_err);

/* §8.1: what an association does, from both Adaptation Indications. */
enum rddp_sctp_mode {
	RDDP_SCTP_MODE_NONE,		/* neither DDP nor RDMAP */
	RDDP_SCTP_MODE_DDP,		/* DDP only */
	RDDP_SCTP_MODE_DDP_RDMA,	/* DDP and RDMAP */
};

enum rddp_sctp_mode rddp_sctp_ali_mode(u32 local, u32 peer);

/* One parsed DATA chunk payload; pointers into the parsed buffer. */
struct rddp_sctp_chunk {
	u16 ssn;		/* DDP-SSN */
	u16 msg;		/* RDDP_SCTP_MSG_SEGMENT or enum rddp_sctp_fc */
	/* DDP Segment: the RFC 5041 segment, header first */
	const u8 *ddp;
	u32 ddp_len;
	u8 hdr_len;		/* 14 (T set) or 18 */
	/* Stream Session Control: private data (none: NULL, 0) */
	const u8 *pd;
	u32 pd_len;
};

/*
 * Parse the payload of one DATA chunk that carried @ppid (host order).
 * Checks the PPID, the length against one chunk, then the format: a DDP
 * Segment must hold its DDP-SSN and the DDP header its T bit announces
 * (the header itself is rddp_hdr_parse()'s, with c->hdr_len octets and
 * c->ddp_len - c->hdr_len of payload); a Session Control message its
 * DDP-SSN and a known function code, and a Terminate no private data.
 * Reads only buf[0..len). Returns RDDP_SCTP_OK or the error.
 */
enum rddp_sctp_err rddp_sctp_chunk_parse(u32 ppid, const u8 *buf, u32 len,
					 struct rddp_sctp_chunk *c);

/*
 * Write the prefix of a DDP Segment payload into @buf (at least
 * RDDP_SCTP_SEG_PREFIX_MAX octets): @ssn and the @hdr_len (14 or 18) octet
 * DDP header @hdr; the @payload_len octets of payload follow it in the same
 * chunk. Returns the prefix length, or -RDDP_SCTP_ERR_INVAL /
 * -RDDP_SCTP_ERR_TOO_LONG.
 */
int rddp_sctp_seg_build(u16 ssn, const u8 *hdr, u32 hdr_len, u32 payload_len,
			u8 *buf);

/*
 * Encode a Stream Session Control payload: @ssn, function code @fc and
 * @pd_len octets of private data @pd (none for a Terminate) into @buf of
 * @buf_len octets. Returns the length, or a negative enum rddp_sctp_err.
 */
int rddp_sctp_ctrl_build(u16 ssn, u16 fc, const u8 *pd, u32 pd_len, u8 *buf,
			 u32 buf_len);

/*
 * Sending side of one DDP Stream's DDP-SSN (§2.2.1, §7): the next SSN to
 * assign and how many chunks are not yet acknowledged.
 */
struct rddp_sctp_ssn_tx {
	u16 next;
	u16 inflight;
};

void rddp_sctp_ssn_tx_init(struct rddp_sctp_ssn_tx *tx);
/* Assign the next DDP-SSN, or RDDP_SCTP_ERR_SSN_INFLIGHT: wait for acks. */
enum rddp_sctp_err rddp_sctp_ssn_tx_take(struct rddp_sctp_ssn_tx *tx, u16 *ssn);
/* @n more of the chunks sent were acknowledged. */
void rddp_sctp_ssn_tx_acked(struct rddp_sctp_ssn_tx *tx, u32 n);

/*
 * Receiving side (§7): chunks arrive in any order; they are delivered in
 * DDP-SSN order. @next is the oldest DDP-SSN not yet delivered; a held
 * chunk's bit is set at its DDP-SSN modulo RDDP_SCTP_SSN_WINDOW (held
 * DDP-SSNs lie in next+1 .. next+32766, distinct modulo 32768).
 * About 4 KiB: allocate it, never put it on the kernel stack.
 */
struct rddp_sctp_ssn_rx {
	u16 next;
	u16 nr_held;
	u32 held[RDDP_SCTP_SSN_WINDOW / 32];
};

void rddp_sctp_ssn_rx_init(struct rddp_sctp_ssn_rx *rx);

/*
 * A chunk with DDP-SSN @ssn arrived. Returns RDDP_SCTP_OK when it is the
 * next one: deliver it, then the chunks rddp_sctp_ssn_rx_pop() names.
 * RDDP_SCTP_HELD when it is later, within the window: keep it. Otherwise
 * RDDP_SCTP_ERR_SSN_DUP (already held), _BEYOND (32767 after the next
 * one: more than §7 lets be in flight), _OLD (32768 to 65535 after it,
 * i.e. before it: delivered, or before this session's first); the state
 * is then unchanged.
 */
enum rddp_sctp_err rddp_sctp_ssn_rx_arrive(struct rddp_sctp_ssn_rx *rx,
					   u16 ssn);

/* True, with *@ssn, while the next DDP-SSN is held: deliver that chunk. */
bool rddp_sctp_ssn_rx_pop(struct rddp_sctp_ssn_rx *rx, u16 *ssn);

/*
 * DDP Stream Session sequences (§3.2-§3.5), one direction at a time: the
 * messages one side sends, in DDP-SSN order, are Negotiate*, then Initiate
 * or (after the other side's Initiate) Accept, then DDP Segments, then
 * optionally Terminate; or Negotiate*, then Terminate after the other
 * side's Initiate (§3.4, a rejection); or Negotiate* alone (§3.3).
 */
enum rddp_sctp_phase {
	RDDP_SCTP_PHASE_NEGOTIATE,	/* nothing but Negotiates yet */
	RDDP_SCTP_PHASE_INITIATED,	/* sent Initiate */
	RDDP_SCTP_PHASE_ACCEPTED,	/* sent Accept */
	RDDP_SCTP_PHASE_CLOSED,		/* sent Terminate */
};

struct rddp_sctp_sess {
	u8 tx;			/* enum rddp_sctp_phase of what we sent */
	u8 rx;			/* enum rddp_sctp_phase of what the peer sent */
};

void rddp_sctp_sess_init(struct rddp_sctp_sess *s);

/*
 * The peer's next message in DDP-SSN order (@msg: RDDP_SCTP_MSG_SEGMENT or
 * a function code) / ours before we send it. Returns RDDP_SCTP_OK and
 * advances, or an RDDP_SCTP_ERR_SEQ_* error and leaves @s unchanged.
 */
enum rddp_sctp_err rddp_sctp_sess_rx(struct rddp_sctp_sess *s, u16 msg);
enum rddp_sctp_err rddp_sctp_sess_tx(struct rddp_sctp_sess *s, u16 msg);

#endif /* RDDP_SCTP_H */
