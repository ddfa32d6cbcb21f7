/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp's trace events (the "rddp" system in tracefs; Documentation/tracing.md
 * lists them with their fields). Each event sits at the one place in the
 * kernel glue where the thing it reports happens; the protocol core
 * (core/) is shared with user space and has none.
 *
 * A disabled event costs a static branch: every argument is a pointer or a
 * value already at hand, and anything worth computing (a Terminate's parsed
 * fields, an SGE list's length, a copied address) is computed in
 * TP_fast_assign, which runs only when the event is enabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rddp

#if !defined(RDDP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RDDP_TRACE_H

#include "compat.h"
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>
#include <rddp/mpa_frame.h>
#include <rddp/rdmap.h>

struct rddp_cq;
struct rddp_cqe;
struct rddp_qp;
struct rddp_stream_params;
struct sock;

/*
 * Symbolic names, with TRACE_DEFINE_ENUM so that perf and trace-cmd, which
 * read the format files, can decode them too.
 */
TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);

#define rddp_show_qp_state(s)					\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" },		\
			 { IB_QPS_RTR, "RTR" },			\
			 { IB_QPS_RTS, "RTS" },			\
			 { IB_QPS_SQD, "SQD" },			\
			 { IB_QPS_SQE, "SQE" },			\
			 { IB_QPS_ERR, "ERROR" })

TRACE_DEFINE_ENUM(SIW_OP_WRITE);
TRACE_DEFINE_ENUM(SIW_OP_READ);
TRACE_DEFINE_ENUM(SIW_OP_READ_LOCAL_INV);
TRACE_DEFINE_ENUM(SIW_OP_SEND);
TRACE_DEFINE_ENUM(SIW_OP_SEND_WITH_IMM);
TRACE_DEFINE_ENUM(SIW_OP_SEND_REMOTE_INV);
TRACE_DEFINE_ENUM(SIW_OP_RECEIVE);
TRACE_DEFINE_ENUM(SIW_OP_READ_RESPONSE);
TRACE_DEFINE_ENUM(SIW_OP_INVAL_STAG);
TRACE_DEFINE_ENUM(SIW_OP_REG_MR);

#define rddp_show_opcode(op)						\
	__print_symbolic(op, { SIW_OP_WRITE, "WRITE" },			\
			 { SIW_OP_READ, "READ" },			\
			 { SIW_OP_READ_LOCAL_INV, "READ_LOCAL_INV" },	\
			 { SIW_OP_SEND, "SEND" },			\
			 { SIW_OP_SEND_WITH_IMM, "SEND_WITH_IMM" },	\
			 { SIW_OP_SEND_REMOTE_INV, "SEND_REMOTE_INV" },	\
			 { SIW_OP_RECEIVE, "RECEIVE" },			\
			 { SIW_OP_READ_RESPONSE, "READ_RESPONSE" },	\
			 { SIW_OP_INVAL_STAG, "INVAL_STAG" },		\
			 { SIW_OP_REG_MR, "REG_MR" })
#define rddp_show_layer(l)					\
	__print_symbolic(l, { RDDP_TERM_LAYER_RDMAP, "RDMAP" },	\
			 { RDDP_TERM_LAYER_DDP, "DDP" },	\
			 { RDDP_TERM_LAYER_LLP, "LLP" })
#define rddp_show_mpa_type(t)					\
	__print_symbolic(t, { RDDP_MPA_REQUEST, "Request" },	\
			 { RDDP_MPA_REPLY, "Reply" })
#define rddp_show_rtr(r)					\
	__print_flags(r, "|", { RDDP_MPA_RTR_SEND, "SEND" },	\
		      { RDDP_MPA_RTR_WRITE, "WRITE" },		\
		      { RDDP_MPA_RTR_READ, "READ" })

/*
 * Helpers for TP_fast_assign, defined once: define_trace.h reads this
 * file several times.
 */
#ifndef RDDP_TRACE_HELPERS
#define RDDP_TRACE_HELPERS

/* Room for either family's address, printed with %pISpc. */
#define RDDP_TRACE_ADDR_LEN	sizeof(struct sockaddr_in6)

/**
 * rddp_trace_addr() - copy an address into an event's field
 * @to: the field, RDDP_TRACE_ADDR_LEN octets
 * @a: an IPv4 or IPv6 address, or NULL (the field is zeroed)
 */
static inline void rddp_trace_addr(u8 *to, const struct sockaddr_storage *a)
{
	memset(to, 0, RDDP_TRACE_ADDR_LEN);
	if (a)
		memcpy(to, a, a->ss_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
}

/**
 * rddp_trace_ddp_hdr() - decode a DDP header copied into a Terminate
 * @tagged: the header's T bit
 * @h: the header, RDDP_DDP_UNTAGGED_HDR_LEN octets (zeros if none copied)
 * @stag: tagged: the STag (octet 2), else 0
 * @to: tagged: the TO (octet 6), else 0
 * @qn: untagged: the QN (octet 6), else 0
 * @msn: untagged: the MSN (octet 10), else 0
 * @mo: untagged: the MO (octet 14), else 0
 *
 * RFC 5041 §4.2, §4.3. A header that was not copied gives zeros.
 */
static inline void rddp_trace_ddp_hdr(bool tagged, const u8 *h, u32 *stag,
				      u64 *to, u32 *qn, u32 *msn, u32 *mo)
{
	*stag = tagged ? get_unaligned_be32(h + 2) : 0;
	*to = tagged ? get_unaligned_be64(h + 6) : 0;
	*qn = tagged ? 0 : get_unaligned_be32(h + 6);
	*msn = tagged ? 0 : get_unaligned_be32(h + 10);
	*mo = tagged ? 0 : get_unaligned_be32(h + 14);
}

/**
 * rddp_trace_rreq() - decode a Read Request copied into a Terminate
 * @r: the RDMAP header (RDDP_RDMAP_RREQ_LEN octets), or NULL if none
 * @size: the RDMA Read Message Size (octet 12), or 0
 * @src_stag: the Data Source STag (octet 16), or 0
 * @src_to: the Data Source TO (octet 20), or 0
 *
 * RFC 5040 §4.4: what the peer asked for.
 */
static inline void rddp_trace_rreq(const u8 *r, u32 *size, u32 *src_stag,
				   u64 *src_to)
{
	*size = r ? get_unaligned_be32(r + 12) : 0;
	*src_stag = r ? get_unaligned_be32(r + 16) : 0;
	*src_to = r ? get_unaligned_be64(r + 20) : 0;
}

/**
 * rddp_trace_sge_len() - the octets a WQE's SGEs describe
 * @sge: the SGE list
 * @n: its length
 *
 * Return: the sum of the SGEs' lengths (what a Write, Send or receive moves).
 */
static inline u32 rddp_trace_sge_len(const struct siw_sge *sge, u8 n)
{
	u32 len = 0;

	while (n--)
		len += sge[n].length;
	return len;
}

#endif /* RDDP_TRACE_HELPERS */

/* ---- connection setup (cm.c); @cep tells one connection's steps apart ---- */

DECLARE_EVENT_CLASS(rddp_cm_addr_class,
	TP_PROTO(const void *cep, const struct sockaddr_storage *addr),
	TP_ARGS(cep, addr),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__array(u8, addr, RDDP_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cep = cep;
		rddp_trace_addr(__entry->addr, addr);
	),
	TP_printk("cep=%p addr=%pISpc", __entry->cep, __entry->addr)
);

/* A listening socket bound (one per address of a wildcard listen). */
DEFINE_EVENT(rddp_cm_addr_class, rddp_cm_listen,
	TP_PROTO(const void *cep, const struct sockaddr_storage *addr),
	TP_ARGS(cep, addr));

/* A listener accepted a TCP connection: the passive side's setup starts. */
DEFINE_EVENT(rddp_cm_addr_class, rddp_cm_request,
	TP_PROTO(const void *cep, const struct sockaddr_storage *addr),
	TP_ARGS(cep, addr));

/* iw_connect: the active side's setup starts. */
TRACE_EVENT(rddp_cm_connect,
	TP_PROTO(const void *cep, u32 qpn, const struct sockaddr_storage *addr,
		 u16 ird, u16 ord, u16 pd_len),
	TP_ARGS(cep, qpn, addr, ird, ord, pd_len),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__field(u32, qpn)
		__array(u8, addr, RDDP_TRACE_ADDR_LEN)
		__field(u16, ird)
		__field(u16, ord)
		__field(u16, pd_len)
	),
	TP_fast_assign(
		__entry->cep = cep;
		__entry->qpn = qpn;
		rddp_trace_addr(__entry->addr, addr);
		__entry->ird = ird;
		__entry->ord = ord;
		__entry->pd_len = pd_len;
	),
	TP_printk("cep=%p qpn=%u addr=%pISpc ird=%u ord=%u pd_len=%u",
		  __entry->cep, __entry->qpn, __entry->addr, __entry->ird,
		  __entry->ord, __entry->pd_len)
);

DECLARE_EVENT_CLASS(rddp_mpa_frame_class,
	TP_PROTO(const void *cep, const struct rddp_mpa_frame *f),
	TP_ARGS(cep, f),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__field(u8, type)
		__field(u8, rev)
		__field(bool, m)
		__field(bool, c)
		__field(bool, r)
		__field(bool, enhanced)
		__field(bool, p2p)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
		__field(u16, pd_len)
	),
	TP_fast_assign(
		__entry->cep = cep;
		__entry->type = f->type;
		__entry->rev = f->rev;
		__entry->m = f->markers;
		__entry->c = f->crc;
		__entry->r = f->reject;
		__entry->enhanced = f->enhanced;
		__entry->p2p = f->p2p;
		__entry->rtr = f->rtr;
		__entry->ird = f->ird;
		__entry->ord = f->ord;
		__entry->pd_len = f->pd_len;
	),
	TP_printk("cep=%p type=%s rev=%u m=%u c=%u r=%u enhanced=%u p2p=%u rtr=%s ird=%u ord=%u pd_len=%u",
		  __entry->cep, rddp_show_mpa_type(__entry->type),
		  __entry->rev, __entry->m, __entry->c, __entry->r,
		  __entry->enhanced, __entry->p2p, rddp_show_rtr(__entry->rtr),
		  __entry->ird, __entry->ord, __entry->pd_len)
);

/*
 * An MPA Request or Reply (RFC 5044 §7.1, RFC 6581 §9) about to be written
 * (a failed write ends the setup: rddp_cm_fail).
 */
DEFINE_EVENT(rddp_mpa_frame_class, rddp_mpa_send,
	TP_PROTO(const void *cep, const struct rddp_mpa_frame *f),
	TP_ARGS(cep, f));

/* An MPA Request or Reply received whole and valid. */
DEFINE_EVENT(rddp_mpa_frame_class, rddp_mpa_recv,
	TP_PROTO(const void *cep, const struct rddp_mpa_frame *f),
	TP_ARGS(cep, f));

/* A received MPA frame the core rejected (rddp_mpa_frame_err_names[]). */
TRACE_EVENT(rddp_mpa_error,
	TP_PROTO(const void *cep, int err, const char *name),
	TP_ARGS(cep, err, name),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__field(int, err)
		__string(name, name)
	),
	TP_fast_assign(
		__entry->cep = cep;
		__entry->err = err;
		rddp_assign_str(name, name);
	),
	TP_printk("cep=%p err=%d (%s)", __entry->cep, __entry->err,
		  __get_str(name))
);

/* The ULP accepted a connection request (iw_accept). */
TRACE_EVENT(rddp_cm_accept,
	TP_PROTO(const void *cep, u32 qpn, u16 ird, u16 ord, u16 pd_len),
	TP_ARGS(cep, qpn, ird, ord, pd_len),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__field(u32, qpn)
		__field(u16, ird)
		__field(u16, ord)
		__field(u16, pd_len)
	),
	TP_fast_assign(
		__entry->cep = cep;
		__entry->qpn = qpn;
		__entry->ird = ird;
		__entry->ord = ord;
		__entry->pd_len = pd_len;
	),
	TP_printk("cep=%p qpn=%u ird=%u ord=%u pd_len=%u", __entry->cep,
		  __entry->qpn, __entry->ird, __entry->ord, __entry->pd_len)
);

/* The ULP rejected a connection request (iw_reject). */
TRACE_EVENT(rddp_cm_reject,
	TP_PROTO(const void *cep, u16 pd_len),
	TP_ARGS(cep, pd_len),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__field(u16, pd_len)
	),
	TP_fast_assign(
		__entry->cep = cep;
		__entry->pd_len = pd_len;
	),
	TP_printk("cep=%p pd_len=%u", __entry->cep, __entry->pd_len)
);

/* Setup done: the QP's stream owns the socket with these parameters. */
TRACE_EVENT(rddp_cm_established,
	TP_PROTO(const void *cep, u32 qpn, bool active,
		 const struct rddp_stream_params *p),
	TP_ARGS(cep, qpn, active, p),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__field(u32, qpn)
		__field(bool, active)
		__field(u8, rev)
		__field(bool, crc)
		__field(bool, markers_tx)
		__field(bool, markers_rx)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
	),
	TP_fast_assign(
		__entry->cep = cep;
		__entry->qpn = qpn;
		__entry->active = active;
		__entry->rev = p->mpa_rev;
		__entry->crc = p->crc;
		__entry->markers_tx = p->markers_tx;
		__entry->markers_rx = p->markers_rx;
		__entry->rtr = p->rtr;
		__entry->ird = p->ird;
		__entry->ord = p->ord;
	),
	TP_printk("cep=%p qpn=%u active=%u rev=%u crc=%u markers_tx=%u markers_rx=%u rtr=%s ird=%u ord=%u",
		  __entry->cep, __entry->qpn, __entry->active, __entry->rev,
		  __entry->crc, __entry->markers_tx, __entry->markers_rx,
		  rddp_show_rtr(__entry->rtr), __entry->ird, __entry->ord)
);

/* Setup ended with @status (a negative errno) in endpoint state @state. */
TRACE_EVENT(rddp_cm_fail,
	TP_PROTO(const void *cep, const char *state, int status),
	TP_ARGS(cep, state, status),
	TP_STRUCT__entry(
		__field(const void *, cep)
		__string(state, state)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->cep = cep;
		rddp_assign_str(state, state);
		__entry->status = status;
	),
	TP_printk("cep=%p state=%s status=%d", __entry->cep,
		  __get_str(state), __entry->status)
);

/* ---- QPs ---- */

/* Called before the change: the QP still holds the old state. */
TRACE_EVENT(rddp_qp_state,
	TP_PROTO(const struct rddp_qp *qp, enum ib_qp_state state),
	TP_ARGS(qp, state),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		__entry->qpn = qp->base.qp_num;
		__entry->old = qp->state;
		__entry->new = state;
	),
	TP_printk("qpn=%u %s -> %s", __entry->qpn,
		  rddp_show_qp_state(__entry->old),
		  rddp_show_qp_state(__entry->new))
);

/*
 * The error that stops a stream (the first one: it decides the
 * Terminate), with its rddp_errors[] entry: CRC, marker and framing errors,
 * each DDP and RDMAP check, a local error, or "none" after a received
 * Terminate and "TCP connection lost" after a close.
 */
TRACE_EVENT(rddp_qp_error,
	TP_PROTO(const struct rddp_qp *qp, enum rddp_err err, u32 seg_len),
	TP_ARGS(qp, err, seg_len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, err)
		__string(name, rddp_errors[err].name)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, ecode)
		__field(u32, seg_len)
	),
	TP_fast_assign(
		__entry->qpn = qp->base.qp_num;
		__entry->err = err;
		rddp_assign_str(name, rddp_errors[err].name);
		__entry->layer = rddp_errors[err].layer;
		__entry->etype = rddp_errors[err].etype;
		__entry->ecode = rddp_errors[err].ecode;
		__entry->seg_len = seg_len;
	),
	TP_printk("qpn=%u err=%d (%s) layer=%s type=%u code=0x%02x seg_len=%u",
		  __entry->qpn, __entry->err, __get_str(name),
		  rddp_show_layer(__entry->layer), __entry->etype,
		  __entry->ecode, __entry->seg_len)
);

/*
 * A Terminate's payload (RFC 5040 §4.8), parsed by the core only when the
 * event is enabled. malformed: the payload is shorter than its flags say.
 * The copied DDP header's fields are decoded as tagged (STag, TO) or
 * untagged (QN, MSN, MO) per its T bit, the raw header follows; a copied
 * Read Request gives its size and Data Source STag and TO.
 */
DECLARE_EVENT_CLASS(rddp_term_class,
	TP_PROTO(u32 qpn, const u8 *payload, u32 len),
	TP_ARGS(qpn, payload, len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(bool, malformed)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, ecode)
		__field(bool, m)
		__field(bool, d)
		__field(bool, r)
		__field(u16, seg_len)
		__field(u8, hdr_len)
		__field(bool, tagged)
		__field(u8, opcode)
		__field(u32, stag)
		__field(u64, to)
		__field(u32, qn)
		__field(u32, msn)
		__field(u32, mo)
		__array(u8, hdr, RDDP_DDP_UNTAGGED_HDR_LEN)
		__field(u32, rreq_size)
		__field(u32, rreq_src_stag)
		__field(u64, rreq_src_to)
	),
	TP_fast_assign(
		struct rddp_term t = { 0 };
		const u8 *h = t.ddp_hdr;

		__entry->qpn = qpn;
		__entry->malformed = rddp_term_parse(payload, len, &t) !=
				     RDDP_ERR_NONE;
		__entry->layer = t.layer;
		__entry->etype = t.etype;
		__entry->ecode = t.ecode;
		__entry->m = t.m;
		__entry->d = t.d;
		__entry->r = t.r;
		__entry->seg_len = t.seg_len;
		__entry->hdr_len = t.d ? t.ddp_hdr_len : 0;
		__entry->tagged = t.d && (h[0] & 0x80);
		__entry->opcode = t.d ? h[1] & 0x0f : 0;
		rddp_trace_ddp_hdr(__entry->tagged, h, &__entry->stag,
				   &__entry->to, &__entry->qn, &__entry->msn,
				   &__entry->mo);
		memcpy(__entry->hdr, h, sizeof(__entry->hdr));
		rddp_trace_rreq(t.r ? t.rdmap_hdr : NULL, &__entry->rreq_size,
				&__entry->rreq_src_stag, &__entry->rreq_src_to);
	),
	TP_printk("qpn=%u malformed=%u layer=%s type=%u code=0x%02x m=%u d=%u r=%u seg_len=%u hdr_len=%u tagged=%u opcode=%u stag=0x%x to=0x%llx qn=%u msn=%u mo=%u hdr=%s rreq_size=%u rreq_src_stag=0x%x rreq_src_to=0x%llx",
		  __entry->qpn, __entry->malformed,
		  rddp_show_layer(__entry->layer), __entry->etype,
		  __entry->ecode, __entry->m, __entry->d, __entry->r,
		  __entry->seg_len, __entry->hdr_len, __entry->tagged,
		  __entry->opcode, __entry->stag, __entry->to, __entry->qn,
		  __entry->msn, __entry->mo,
		  __print_hex_str(__entry->hdr, __entry->hdr_len),
		  __entry->rreq_size, __entry->rreq_src_stag,
		  __entry->rreq_src_to)
);

/* A Terminate written to the socket. */
DEFINE_EVENT(rddp_term_class, rddp_term_send,
	TP_PROTO(u32 qpn, const u8 *payload, u32 len),
	TP_ARGS(qpn, payload, len));

/* A Terminate received from the peer. */
DEFINE_EVENT(rddp_term_class, rddp_term_recv,
	TP_PROTO(u32 qpn, const u8 *payload, u32 len),
	TP_ARGS(qpn, payload, len));

/* ---- TX engine (qp_tx.c, llp_mpa.c) ---- */

DECLARE_EVENT_CLASS(rddp_tx_space_class,
	TP_PROTO(const struct rddp_qp *qp, const struct sock *sk),
	TP_ARGS(qp, sk),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, wmem_queued)
		__field(int, sndbuf)
	),
	TP_fast_assign(
		__entry->qpn = qp->base.qp_num;
		__entry->wmem_queued = READ_ONCE(sk->sk_wmem_queued);
		__entry->sndbuf = READ_ONCE(sk->sk_sndbuf);
	),
	TP_printk("qpn=%u wmem_queued=%d sndbuf=%d", __entry->qpn,
		  __entry->wmem_queued, __entry->sndbuf)
);

/* The socket is full: TX stops until TCP reports room. */
DEFINE_EVENT(rddp_tx_space_class, rddp_tx_park,
	TP_PROTO(const struct rddp_qp *qp, const struct sock *sk),
	TP_ARGS(qp, sk));

/* TCP reported room to a parked TX: it runs again. */
DEFINE_EVENT(rddp_tx_space_class, rddp_tx_resume,
	TP_PROTO(const struct rddp_qp *qp, const struct sock *sk),
	TP_ARGS(qp, sk));

/* A zero-copy Write or Send whose last octet TCP saw acknowledged. */
TRACE_EVENT(rddp_zcopy_ack,
	TP_PROTO(const struct rddp_qp *qp, u64 id, u32 bytes, u32 ack_seq),
	TP_ARGS(qp, id, bytes, ack_seq),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u64, id)
		__field(u32, bytes)
		__field(u32, ack_seq)
	),
	TP_fast_assign(
		__entry->qpn = qp->base.qp_num;
		__entry->id = id;
		__entry->bytes = bytes;
		__entry->ack_seq = ack_seq;
	),
	TP_printk("qpn=%u id=0x%llx bytes=%u ack_seq=%u", __entry->qpn,
		  __entry->id, __entry->bytes, __entry->ack_seq)
);

/* ---- work requests (qp.c, cq.c) ---- */

/*
 * A posted WQE taken by the engine: the SQ's by TX, a receive (from the RQ
 * or the SRQ) by RX for an incoming Send. libsiw posts into the mapped
 * rings without entering the kernel: this is where the kernel first sees a
 * user's WQE.
 */
TRACE_EVENT(rddp_sq_wqe,
	TP_PROTO(const struct rddp_qp *qp, const struct siw_sqe *sqe),
	TP_ARGS(qp, sqe),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u64, id)
		__field(u8, opcode)
		__field(u16, flags)
		__field(u8, num_sge)
		__field(u32, length)
	),
	TP_fast_assign(
		__entry->qpn = qp->base.qp_num;
		__entry->id = sqe->id;
		__entry->opcode = sqe->opcode;
		__entry->flags = sqe->flags;
		__entry->num_sge = sqe->num_sge;
		/* REG_MR and INVAL_STAG use the SGE space for other fields */
		__entry->length = sqe->opcode == SIW_OP_REG_MR ||
				  sqe->opcode == SIW_OP_INVAL_STAG ? 0 :
				  rddp_trace_sge_len(sqe->sge, sqe->num_sge);
	),
	TP_printk("qpn=%u id=0x%llx opcode=%s flags=0x%x num_sge=%u length=%u",
		  __entry->qpn, __entry->id, rddp_show_opcode(__entry->opcode),
		  __entry->flags, __entry->num_sge, __entry->length)
);

TRACE_EVENT(rddp_rq_wqe,
	TP_PROTO(const struct rddp_qp *qp, const struct siw_rqe *rqe),
	TP_ARGS(qp, rqe),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u64, id)
		__field(u8, num_sge)
		__field(u32, length)
	),
	TP_fast_assign(
		__entry->qpn = qp->base.qp_num;
		__entry->id = rqe->id;
		__entry->num_sge = rqe->num_sge;
		__entry->length = rddp_trace_sge_len(rqe->sge, rqe->num_sge);
	),
	TP_printk("qpn=%u id=0x%llx num_sge=%u length=%u", __entry->qpn,
		  __entry->id, __entry->num_sge, __entry->length)
);

/* A completion written to a CQ: successes, errors and flushes alike. */
TRACE_EVENT(rddp_cqe,
	TP_PROTO(const struct rddp_cq *cq, const struct rddp_cqe *c),
	TP_ARGS(cq, c),
	TP_STRUCT__entry(
		__field(u32, cq)
		__field(u32, qpn)
		__field(u64, id)
		__field(u8, opcode)
		__field(u16, status)
		__field(u32, bytes)
	),
	TP_fast_assign(
		__entry->cq = cq->id;
		__entry->qpn = c->qp ? c->qp->base.qp_num : 0;
		__entry->id = c->id;
		__entry->opcode = c->opcode;
		__entry->status = c->status;
		__entry->bytes = c->bytes;
	),
	TP_printk("cq=%u qpn=%u id=0x%llx opcode=%s status=%u bytes=%u",
		  __entry->cq, __entry->qpn, __entry->id,
		  rddp_show_opcode(__entry->opcode), __entry->status,
		  __entry->bytes)
);

#endif /* RDDP_TRACE_H */

/* An out-of-tree module: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
