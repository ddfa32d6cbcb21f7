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

/**
 * enum rddp_sctp_fc - Stream Session Control function codes (§2.2.3)
 * @RDDP_SCTP_FC_NEGOTIATE: DDP Stream Session Negotiate
 * @RDDP_SCTP_FC_INITIATE: DDP Stream Session Initiate
 * @RDDP_SCTP_FC_ACCEPT: DDP Stream Session Accept
 * @RDDP_SCTP_FC_TERMINATE: DDP Stream Session Terminate
 * @RDDP_SCTP_FC_MAX: one past the last code
 */
enum rddp_sctp_fc {
	RDDP_SCTP_FC_NEGOTIATE = 0x001,
	RDDP_SCTP_FC_INITIATE = 0x002,
	RDDP_SCTP_FC_ACCEPT = 0x003,
	RDDP_SCTP_FC_TERMINATE = 0x004,
	RDDP_SCTP_FC_MAX
};

/* What a chunk is to the session sequence (§3): a segment or a code. */
#define RDDP_SCTP_MSG_SEGMENT	0

/**
 * enum rddp_sctp_err - results of the SCTP adaptation functions
 * @RDDP_SCTP_OK: success
 * @RDDP_SCTP_HELD: DDP-SSN later than the next: hold
 * @RDDP_SCTP_ERR_PPID: PPID neither 1 nor 2 (§2.2)
 * @RDDP_SCTP_ERR_TOO_LONG: more than one DATA chunk holds
 * @RDDP_SCTP_ERR_SEG_SHORT: no room for DDP-SSN + DDP header
 * @RDDP_SCTP_ERR_CTRL_SHORT: no room for DDP-SSN + code
 * @RDDP_SCTP_ERR_FUNC: function code not 1..4 (§2.2.3)
 * @RDDP_SCTP_ERR_TERM_PD: Terminate with private data
 * @RDDP_SCTP_ERR_SSN_DUP: DDP-SSN already held (§7)
 * @RDDP_SCTP_ERR_SSN_OLD: DDP-SSN before the next one
 * @RDDP_SCTP_ERR_SSN_BEYOND: 32767 after the next: over §7
 * @RDDP_SCTP_ERR_SSN_INFLIGHT: send: 32767 unacknowledged (§7)
 * @RDDP_SCTP_ERR_SEQ_NEGOTIATE: Negotiate after Initiate/Accept
 * @RDDP_SCTP_ERR_SEQ_INITIATE: second Initiate, or after Accept
 * @RDDP_SCTP_ERR_SEQ_ACCEPT: Accept without the peer's Initiate
 * @RDDP_SCTP_ERR_SEQ_SEGMENT: DDP Segment before Initiate/Accept
 * @RDDP_SCTP_ERR_SEQ_TERMINATE: Terminate in negotiation only
 * @RDDP_SCTP_ERR_SEQ_CLOSED: anything after that side's Terminate
 * @RDDP_SCTP_ERR_INVAL: build: invalid argument
 * @RDDP_SCTP_ERR_CONN_SHORT: Initiate/Accept without rddp's IRD/ORD prefix
 * @RDDP_SCTP_ERR_CONN_RSVD: IRD/ORD prefix with a reserved bit set
 * @RDDP_SCTP_ERR_CONN_LONG: ULP private data over RDDP_SCTP_ULP_PD_MAX
 * @RDDP_SCTP_ERR_STREAM: a chunk on an SCTP stream that carries no DDP
 *	Stream Session (§5: each DDP Stream is one stream identifier; the
 *	transport says which ones carry a session)
 * @RDDP_SCTP_ERR_ORDERED: an ordered DATA chunk (U=0): §7 puts every one
 *	in unordered chunks, and §5's DDP-enabled association does not
 *	support ordered ones
 * @RDDP_SCTP_ERR_MAX: the number of values
 *
 * RDDP_SCTP_OK and RDDP_SCTP_HELD are not errors; each other value names
 * one malformed input or illegal event. Names in rddp_sctp_err_names[];
 * rddp_sctp_to_err() gives the Terminate entry.
 */
enum rddp_sctp_err {
	RDDP_SCTP_OK = 0,
	RDDP_SCTP_HELD,
	RDDP_SCTP_ERR_PPID,
	RDDP_SCTP_ERR_TOO_LONG,
	RDDP_SCTP_ERR_SEG_SHORT,
	RDDP_SCTP_ERR_CTRL_SHORT,
	RDDP_SCTP_ERR_FUNC,
	RDDP_SCTP_ERR_TERM_PD,
	RDDP_SCTP_ERR_SSN_DUP,
	RDDP_SCTP_ERR_SSN_OLD,
	RDDP_SCTP_ERR_SSN_BEYOND,
	RDDP_SCTP_ERR_SSN_INFLIGHT,
	RDDP_SCTP_ERR_SEQ_NEGOTIATE,
	RDDP_SCTP_ERR_SEQ_INITIATE,
	RDDP_SCTP_ERR_SEQ_ACCEPT,
	RDDP_SCTP_ERR_SEQ_SEGMENT,
	RDDP_SCTP_ERR_SEQ_TERMINATE,
	RDDP_SCTP_ERR_SEQ_CLOSED,
	RDDP_SCTP_ERR_INVAL,
	RDDP_SCTP_ERR_CONN_SHORT,
	RDDP_SCTP_ERR_CONN_RSVD,
	RDDP_SCTP_ERR_CONN_LONG,
	RDDP_SCTP_ERR_STREAM,
	RDDP_SCTP_ERR_ORDERED,
	RDDP_SCTP_ERR_MAX
};

extern const char *const rddp_sctp_err_names[RDDP_SCTP_ERR_MAX];

/**
 * rddp_sctp_to_err() - the rddp_errors[] entry for an SCTP adaptation error
 * @sctp_err: an enum rddp_sctp_err
 *
 * The draft defines no Terminate codes of its own; like an unframeable MPA
 * stream, a chunk or sequence it forbids leaves the DDP Stream unusable
 * (§3.1: the session MUST be terminated).
 *
 * Return: RDDP_ERR_NONE for RDDP_SCTP_OK and RDDP_SCTP_HELD, else a DDP
 * local catastrophic error (RFC 5041 §7.2).
 */
enum rddp_err rddp_sctp_to_err(int sctp_err);

/**
 * enum rddp_sctp_mode - what an association does (§8.1)
 * @RDDP_SCTP_MODE_NONE: neither DDP nor RDMAP
 * @RDDP_SCTP_MODE_DDP: DDP only
 * @RDDP_SCTP_MODE_DDP_RDMA: DDP and RDMAP
 *
 * rddp_sctp_ali_mode() gives it from both Adaptation Indications.
 */
enum rddp_sctp_mode {
	RDDP_SCTP_MODE_NONE,
	RDDP_SCTP_MODE_DDP,
	RDDP_SCTP_MODE_DDP_RDMA,
};

/**
 * rddp_sctp_ali_mode() - what an association does (§8.1)
 * @local: our Adaptation Layer Indication (RDDP_SCTP_ALI_*)
 * @peer: the peer's
 *
 * Return: the lesser of the two modes (an unknown indication is
 * RDDP_SCTP_MODE_NONE).
 */
enum rddp_sctp_mode rddp_sctp_ali_mode(u32 local, u32 peer);

/**
 * struct rddp_sctp_chunk - one parsed DATA chunk payload; pointers into the
 * parsed buffer
 * @ssn: the DDP-SSN
 * @msg: RDDP_SCTP_MSG_SEGMENT or an enum rddp_sctp_fc
 * @ddp: DDP Segment: the RFC 5041 segment, header first
 * @ddp_len: its octets
 * @hdr_len: its DDP header's octets, 14 (T set) or 18
 * @placed: DDP Segment: payload octets the receiver already placed when
 *	the chunk arrived ahead of its turn (RFC 5041 §5.3), no longer in
 *	the buffer (@ddp_len is then @hdr_len); 0 from
 *	rddp_sctp_chunk_parse()
 * @pd: Stream Session Control: the private data (none: NULL)
 * @pd_len: its octets (none: 0)
 */
struct rddp_sctp_chunk {
	u16 ssn;
	u16 msg;
	const u8 *ddp;
	u32 ddp_len;
	u8 hdr_len;
	u32 placed;
	const u8 *pd;
	u32 pd_len;
};

/**
 * rddp_sctp_chunk_parse() - parse the payload of one DATA chunk
 * @ppid: the chunk's PPID, host order
 * @buf: the payload; only buf[0..len) is read
 * @len: its octets
 * @c: the parsed chunk
 *
 * Checks the PPID, the length against one chunk, then the format: a DDP
 * Segment must hold its DDP-SSN and the DDP header its T bit announces
 * (the header itself is rddp_hdr_parse()'s, with c->hdr_len octets and
 * c->ddp_len - c->hdr_len of payload); a Session Control message its
 * DDP-SSN and a known function code, and a Terminate no private data.
 *
 * Return: RDDP_SCTP_OK or the error.
 */
enum rddp_sctp_err rddp_sctp_chunk_parse(u32 ppid, const u8 *buf, u32 len,
					 struct rddp_sctp_chunk *c);

/**
 * rddp_sctp_seg_build() - write the prefix of a DDP Segment payload
 * @ssn: the DDP-SSN
 * @hdr: the DDP header
 * @hdr_len: its octets, 14 or 18
 * @payload_len: the octets of payload that follow the prefix in the same
 *	chunk
 * @buf: where the prefix goes, at least RDDP_SCTP_SEG_PREFIX_MAX octets
 *
 * Return: the prefix length, or -RDDP_SCTP_ERR_INVAL /
 * -RDDP_SCTP_ERR_TOO_LONG.
 */
int rddp_sctp_seg_build(u16 ssn, const u8 *hdr, u32 hdr_len, u32 payload_len,
			u8 *buf);

/**
 * rddp_sctp_ctrl_build() - encode a Stream Session Control payload
 * @ssn: the DDP-SSN
 * @fc: the function code
 * @pd: the private data (none for a Terminate)
 * @pd_len: its octets
 * @buf: where the payload goes
 * @buf_len: its size
 *
 * Return: the length, or a negative enum rddp_sctp_err.
 */
int rddp_sctp_ctrl_build(u16 ssn, u16 fc, const u8 *pd, u32 pd_len, u8 *buf,
			 u32 buf_len);

/*
 * rddp's connection parameters in the private data of Initiate and Accept
 * (the draft leaves that data to the ULP, §2.2.3): a 4-octet prefix after
 * RFC 6581 §9.1's IRD and ORD fields, each 14 bits under 2 reserved bits
 * (sent 0, refused when set), then the ULP's private data, at most 512
 * octets as over MPA (RFC 5044 §7.1). Documentation/wire-sctp.md.
 */
#define RDDP_SCTP_IRD_ORD_LEN	4
#define RDDP_SCTP_IRD_ORD_MAX	0x3fff
#define RDDP_SCTP_ULP_PD_MAX	512
/*
 * §2.2.3 lets an Initiate's or Accept's private data be of zero length:
 * then the sender stated no IRD or ORD, and rddp takes the least that
 * lets Reads run at all, one each way. The sender's IRD of 1 keeps our
 * ORD at 1 (never more Read Requests in flight than any responder that
 * takes Reads at all has room for); its ORD of 1 leaves our IRD the
 * ULP's. rddp itself always sends the prefix.
 */
#define RDDP_SCTP_IRD_ORD_DEFAULT	1

/**
 * struct rddp_sctp_conn - rddp's view of an Initiate's or Accept's private
 * data; @ulp points into the parsed buffer
 * @ird: the sender's IRD (inbound Read Requests it accepts)
 * @ord: the sender's ORD (Read Requests it wants in flight)
 * @ulp: the ULP's private data (none: NULL)
 * @ulp_len: its octets (none: 0)
 */
struct rddp_sctp_conn {
	u16 ird;
	u16 ord;
	const u8 *ulp;
	u32 ulp_len;
};

/**
 * rddp_sctp_conn_build() - encode an Initiate's or Accept's private data
 * @ird: our IRD, at most RDDP_SCTP_IRD_ORD_MAX
 * @ord: our ORD, likewise
 * @ulp: the ULP's private data
 * @ulp_len: its octets, at most RDDP_SCTP_ULP_PD_MAX
 * @buf: where the private data goes (for rddp_sctp_ctrl_build())
 * @buf_len: its size
 *
 * Return: the length, or -RDDP_SCTP_ERR_CONN_RSVD for an IRD or ORD out of
 * range, -RDDP_SCTP_ERR_CONN_LONG, -RDDP_SCTP_ERR_INVAL.
 */
int rddp_sctp_conn_build(u16 ird, u16 ord, const u8 *ulp, u32 ulp_len,
			 u8 *buf, u32 buf_len);

/**
 * rddp_sctp_conn_parse() - parse an Initiate's or Accept's private data
 * @pd: the private data (struct rddp_sctp_chunk's @pd)
 * @pd_len: its octets; 0 (§2.2.3: zero-length private data) gives
 *	RDDP_SCTP_IRD_ORD_DEFAULT for both and no ULP data
 * @c: the parsed parameters
 *
 * Return: RDDP_SCTP_OK, or RDDP_SCTP_ERR_CONN_SHORT (1 to 3 octets),
 * _CONN_RSVD or _CONN_LONG.
 */
enum rddp_sctp_err rddp_sctp_conn_parse(const u8 *pd, u32 pd_len,
					struct rddp_sctp_conn *c);

/**
 * struct rddp_sctp_ssn_tx - sending side of one DDP Stream's DDP-SSN
 * (§2.2.1, §7)
 * @next: the next DDP-SSN to assign
 * @inflight: chunks sent and not yet acknowledged
 */
struct rddp_sctp_ssn_tx {
	u16 next;
	u16 inflight;
};

/**
 * rddp_sctp_ssn_tx_init() - start a session's sending side
 * @tx: the state; the first DDP-SSN is RDDP_SCTP_SSN_FIRST
 */
void rddp_sctp_ssn_tx_init(struct rddp_sctp_ssn_tx *tx);

/**
 * rddp_sctp_ssn_tx_take() - assign the next DDP-SSN
 * @tx: the sending side
 * @ssn: the DDP-SSN for the chunk to send
 *
 * Return: RDDP_SCTP_OK, or RDDP_SCTP_ERR_SSN_INFLIGHT when 32767 chunks are
 * unacknowledged (§7): wait for acks.
 */
enum rddp_sctp_err rddp_sctp_ssn_tx_take(struct rddp_sctp_ssn_tx *tx, u16 *ssn);

/**
 * rddp_sctp_ssn_tx_acked() - chunks sent were acknowledged
 * @tx: the sending side
 * @n: how many more (at most the ones in flight count)
 */
void rddp_sctp_ssn_tx_acked(struct rddp_sctp_ssn_tx *tx, u32 n);

/**
 * struct rddp_sctp_ssn_rx - receiving side of one DDP Stream's DDP-SSN (§7)
 * @next: the oldest DDP-SSN not yet delivered
 * @nr_held: chunks held, waiting for an earlier one
 * @held: a held chunk's bit is set at its DDP-SSN modulo
 *	RDDP_SCTP_SSN_WINDOW (held DDP-SSNs lie in next+1 .. next+32766,
 *	distinct modulo 32768)
 *
 * Chunks arrive in any order; they are delivered in DDP-SSN order.
 * About 4 KiB: allocate it, never put it on the kernel stack.
 */
struct rddp_sctp_ssn_rx {
	u16 next;
	u16 nr_held;
	u32 held[RDDP_SCTP_SSN_WINDOW / 32];
};

/**
 * rddp_sctp_ssn_rx_init() - start a session's receiving side
 * @rx: the state; the first DDP-SSN expected is RDDP_SCTP_SSN_FIRST
 */
void rddp_sctp_ssn_rx_init(struct rddp_sctp_ssn_rx *rx);

/**
 * rddp_sctp_ssn_rx_arrive() - a chunk arrived
 * @rx: the receiving side
 * @ssn: the chunk's DDP-SSN
 *
 * Return: RDDP_SCTP_OK when it is the next one: deliver it, then the
 * chunks rddp_sctp_ssn_rx_pop() names. RDDP_SCTP_HELD when it is later,
 * within the window: keep it. Otherwise RDDP_SCTP_ERR_SSN_DUP (already
 * held), _BEYOND (32767 after the next one: more than §7 lets be in
 * flight), _OLD (32768 to 65535 after it, i.e. before it: delivered, or
 * before this session's first); the state is then unchanged.
 */
enum rddp_sctp_err rddp_sctp_ssn_rx_arrive(struct rddp_sctp_ssn_rx *rx,
					   u16 ssn);

/**
 * rddp_sctp_ssn_rx_pop() - the next held chunk, if any
 * @rx: the receiving side
 * @ssn: the DDP-SSN of the chunk to deliver now
 *
 * Return: true, with *@ssn, while the next DDP-SSN is held.
 */
bool rddp_sctp_ssn_rx_pop(struct rddp_sctp_ssn_rx *rx, u16 *ssn);

/**
 * enum rddp_sctp_phase - where one direction of a DDP Stream Session stands
 * @RDDP_SCTP_PHASE_NEGOTIATE: nothing but Negotiates yet
 * @RDDP_SCTP_PHASE_INITIATED: sent Initiate
 * @RDDP_SCTP_PHASE_ACCEPTED: sent Accept
 * @RDDP_SCTP_PHASE_CLOSED: sent Terminate
 *
 * DDP Stream Session sequences (§3.2-§3.5), one direction at a time: the
 * messages one side sends, in DDP-SSN order, are Negotiate*, then Initiate
 * or (after the other side's Initiate) Accept, then DDP Segments, then
 * optionally Terminate; or Negotiate*, then Terminate after the other
 * side's Initiate (§3.4, a rejection); or Negotiate* alone (§3.3).
 */
enum rddp_sctp_phase {
	RDDP_SCTP_PHASE_NEGOTIATE,
	RDDP_SCTP_PHASE_INITIATED,
	RDDP_SCTP_PHASE_ACCEPTED,
	RDDP_SCTP_PHASE_CLOSED,
};

/**
 * struct rddp_sctp_sess - where a DDP Stream Session's sequence stands
 * @tx: enum rddp_sctp_phase of what we sent
 * @rx: enum rddp_sctp_phase of what the peer sent
 */
struct rddp_sctp_sess {
	u8 tx;
	u8 rx;
};

/**
 * rddp_sctp_sess_init() - a new session: both sides in negotiation
 * @s: the session
 */
void rddp_sctp_sess_init(struct rddp_sctp_sess *s);

/**
 * rddp_sctp_sess_rx() - check the peer's next message, in DDP-SSN order
 * @s: the session
 * @msg: RDDP_SCTP_MSG_SEGMENT or a function code
 *
 * Return: RDDP_SCTP_OK having advanced, or an RDDP_SCTP_ERR_SEQ_* error
 * leaving @s unchanged.
 */
enum rddp_sctp_err rddp_sctp_sess_rx(struct rddp_sctp_sess *s, u16 msg);

/**
 * rddp_sctp_sess_tx() - check our next message before we send it
 * @s: the session
 * @msg: RDDP_SCTP_MSG_SEGMENT or a function code
 *
 * Return: as rddp_sctp_sess_rx().
 */
enum rddp_sctp_err rddp_sctp_sess_tx(struct rddp_sctp_sess *s, u16 msg);

/**
 * rddp_sctp_sess_end() - our Terminate, ending the session in any phase
 * @s: the session
 *
 * The Terminate a side sends to end a session: the last message of a
 * legal sequence (§3.2, §3.5), the rejection of an Initiate (§3.4), and
 * the end §3.1 demands of a session the peer took out of every legal
 * sequence, even one that never got past negotiation (where
 * rddp_sctp_sess_tx() refuses a Terminate as no legal sequence's). Our
 * side is then closed.
 *
 * Return: RDDP_SCTP_OK, or RDDP_SCTP_ERR_SEQ_CLOSED if we sent our
 * Terminate already (nothing may follow it, §3.2).
 */
enum rddp_sctp_err rddp_sctp_sess_end(struct rddp_sctp_sess *s);

/**
 * enum rddp_sctp_setup - what a side does with the peer's message during
 * session setup (rddp_sctp_setup_rx())
 * @RDDP_SCTP_SETUP_NONE: nothing: the peer's Negotiate to a side that
 *	sent its Initiate, whose Initiate ends the negotiation (§3.2)
 * @RDDP_SCTP_SETUP_NEGOTIATE: answer the peer's Negotiate with one of
 *	ours, a round with nothing to negotiate (§3.3, §3.6: one
 *	outstanding Negotiate per side)
 * @RDDP_SCTP_SETUP_REQUEST: the peer's Initiate to a passive side: the
 *	ULP accepts (Accept) or rejects (Terminate) it (§3.2, §3.4)
 * @RDDP_SCTP_SETUP_ACCEPTED: the peer's Accept answers our Initiate: the
 *	session is up (§3.2)
 * @RDDP_SCTP_SETUP_BOTH_ACTIVE: the peer's Initiate to an active side:
 *	active/active, the session is up once our own Initiate is sent
 *	(§3.5)
 * @RDDP_SCTP_SETUP_REJECTED: the peer's Terminate answers our Initiate
 *	(§3.4)
 */
enum rddp_sctp_setup {
	RDDP_SCTP_SETUP_NONE,
	RDDP_SCTP_SETUP_NEGOTIATE,
	RDDP_SCTP_SETUP_REQUEST,
	RDDP_SCTP_SETUP_ACCEPTED,
	RDDP_SCTP_SETUP_BOTH_ACTIVE,
	RDDP_SCTP_SETUP_REJECTED,
};

/**
 * rddp_sctp_setup_rx() - the peer's next message during session setup, in
 * DDP-SSN order
 * @s: the session; advanced as rddp_sctp_sess_rx() does
 * @active: whether we are (or will be, before any other message of ours)
 *	the side that sends an Initiate
 * @msg: RDDP_SCTP_MSG_SEGMENT or a function code
 *
 * Setup ends at the first REQUEST, ACCEPTED, BOTH_ACTIVE or REJECTED;
 * what follows is the session's (a DDP Segment from an active peer after
 * its Initiate, §3.6). A message that fits no legal sequence is an
 * RDDP_SCTP_ERR_SEQ_* error: the session MUST be terminated (§3.1). A
 * BOTH_ACTIVE before our Initiate went out tells the caller to send it.
 *
 * Return: an enum rddp_sctp_setup, or a negative enum rddp_sctp_err with
 * @s unchanged.
 */
int rddp_sctp_setup_rx(struct rddp_sctp_sess *s, bool active, u16 msg);

#endif /* RDDP_SCTP_H */
