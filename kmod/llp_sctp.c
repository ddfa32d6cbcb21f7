// SPDX-License-Identifier: GPL-2.0
/*
 * The SCTP LLP (llp.h): DDP segments as SCTP DATA chunks on a one-to-one
 * kernel SCTP socket, draft-ietf-rddp-sctp-00 ("SCTP RDMA/DDP Adaptation",
 * Documentation/wire-sctp.md). Each DDP segment is one chunk (§2.2.2):
 * unordered (§7), PPID 1, the 2-octet DDP-SSN then the RFC 5041 segment;
 * SCTP delimits it and its CRC32c covers it, so there is no MPA framing,
 * marker, pad or CRC. SCTP fragmentation is off (§6): a segment fits the
 * association's fragmentation point, which sets MULPDU.
 *
 * TX writes one chunk per segment without blocking: SCTP takes a message
 * whole or not at all, so a full send buffer (-EAGAIN) parks the engine
 * until SCTP frees room, which it signals only on the socket's wait queue
 * (EPOLLOUT), not through sk_write_space: the link's wait entry kicks TX.
 * No zero copy: SCTP copies a message into its chunks' buffers.
 *
 * RX: sk_data_ready runs in softirq under the socket's spinlock, where
 * SCTP's messages cannot be read, so it queues the link's receive work,
 * which reads whole messages with kernel_recvmsg(). Chunks come in any
 * order (U=1); the window (sctp_link.h) holds early ones and delivers in
 * DDP-SSN order to the DDP/RDMAP RX callbacks (rddp_ddp_rx_ops), which the
 * work calls with bottom halves off, as MPA's softirq does. An early RDMA
 * Write or Read Response that validates is placed on arrival
 * (rddp_rx_place_tagged(), RFC 5041 §5.3) and only its header held; at its
 * turn rddp_rx_tagged_placed() does the rest. A work item never runs twice
 * at once, which serialises RX (llp.h), early placement included.
 *
 * Holding chunks (§7). A chunk that arrives ahead of its DDP-SSN's turn is
 * copied out of the socket and kept in the link until the missing ones
 * come. How much that is, the peer decides, so it is bounded:
 *  - in memory, by the socket: what a held chunk takes (its allocation and
 *    a share of the index) is charged as the socket's receive memory, as
 *    SCTP charges the chunks it queues: sk_rmem_alloc, the forward
 *    allocation and with it the protocol's counter (the host's limit,
 *    net.sctp.sctp_mem) and the socket's memory cgroup. SCTP's own flow
 *    control then sees it: once held and queued chunks reach the receive
 *    buffer (sk_rcvbuf) SCTP advertises a zero window and drops new DATA,
 *    which the peer must send again. The budget is that buffer: below it
 *    SCTP still takes the missing chunk, so RX keeps reading (leaving
 *    chunks unread would not help: SCTP cannot tell the missing one from
 *    the others and, its window shut, drops it too, RFC 4960 §6.2).
 *    Holding one that would take the chunks held past sk_rcvbuf leaves no
 *    room for the missing one at all: the stream could never go on, and
 *    it ends at once (RDDP_SCTP_LINK_ERR_HELD_MAX). A peer that respects
 *    the window reaches it only if more than a receive buffer's worth
 *    (twice the window) goes past one lost chunk before it is sent again:
 *    held chunks are acknowledged, so they no longer count against the
 *    sender's window;
 *  - in time, like an incomplete FPDU over MPA: a DDP-SSN missing for the
 *    device's peer_timeout_ms ends the stream (the gap timer);
 *  - before the session: nothing is held before an Initiate went either
 *    way, since §3.6 lets nothing overtake it (RDDP_SCTP_LINK_ERR_EARLY);
 *    the passive side then reads nothing until its ULP answers the
 *    Initiate (cm_sctp.c).
 *
 * The connection's end: the peer's session Terminate (§3.4), SCTP's
 * SHUTDOWN or the association's loss (ABORT, COMM_LOST: SCTP's own
 * heartbeats and retransmission limits bound a vanished peer) are reported
 * as the peer's close. Our close sends the session Terminate (§8.3, after
 * an RFC 5040 Terminate if there was an error), then SCTP's SHUTDOWN; an
 * abortive close sends ABORT.
 */
#include <linux/net.h>
#include <linux/sctp.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/sctp/sctp.h>
#include <net/sock.h>
#include <uapi/linux/rddp_netlink.h>

#include "compat.h"
#include "llp.h"
#include "rddp.h"
#include "sctp_link.h"
#include "stream.h"

/*
 * A chunk held until its DDP-SSN's turn (in the link's @held, by DDP-SSN):
 * the whole chunk, or for a tagged segment whose payload was placed on
 * arrival (RFC 5041 §5.3) its DDP-SSN and DDP header only, @placed octets
 * of payload gone. @charge: the socket memory it is charged (see "Holding
 * chunks" above).
 */
struct rddp_sctp_held {
	u32 ppid;
	u32 len;
	u32 placed;
	u32 charge;
	u8 data[];
};

/* Names of the link's own reasons (enum rddp_sctp_link_err, sctp_link.h). */
static const char *const rddp_sctp_link_err_names[] = {
	[RDDP_SCTP_LINK_ERR_EARLY - RDDP_SCTP_ERR_MAX] =
		"chunk ahead of its turn before the session's Initiate (§3.6)",
	[RDDP_SCTP_LINK_ERR_HELD_MAX - RDDP_SCTP_ERR_MAX] =
		"chunks held ahead of a missing DDP-SSN would pass the receive buffer (§7)",
	[RDDP_SCTP_LINK_ERR_NOMEM - RDDP_SCTP_ERR_MAX] =
		"no socket memory to hold a chunk ahead of its turn (net.sctp.sctp_mem)",
	[RDDP_SCTP_LINK_ERR_GAP - RDDP_SCTP_ERR_MAX] =
		"a DDP-SSN missing for peer_timeout_ms (§7)",
};

/*
 * Place a chunk that arrived ahead of its turn, if it is a tagged segment
 * that may be (rddp_rx_place_tagged()). @c parses the chunk in the link's
 * buffer. Return: true when its payload is placed: hold its header only.
 */
typedef bool (*rddp_sctp_place_t)(void *ctx, const struct rddp_sctp_chunk *c);

/*
 * The least MULPDU a lowered path leaves (rddp_sctp_tx_shrink()): room for
 * a tagged DDP header and payload. SCTP's smallest path MTU (512 octets)
 * leaves more.
 */
#define RDDP_SCTP_MULPDU_MIN	128

/* Chunks one run of the receive work reads before it yields. */
#define RDDP_SCTP_RX_BUDGET	64

/* ---- holding chunks: socket memory ---- */

/*
 * What holding @size octets of a chunk costs: its allocation (kvmalloc()
 * takes a kmalloc bucket, or whole pages) and, at most, a node of the
 * index (a sparse set of DDP-SSNs may take one node per chunk).
 */
static u32 rddp_sctp_held_cost(size_t size)
{
	return kmalloc_size_roundup(size) + sizeof(struct xa_node);
}

/*
 * Charge @size octets to l->sock as receive memory, as SCTP charges the
 * chunks it queues (sctp_ulpevent_make_rcvmsg(), Linux 6.1): the
 * protocol's memory and the socket's memory cgroup, through the forward
 * allocation, and sk_rmem_alloc, which SCTP compares with sk_rcvbuf before
 * it takes a chunk and when it sets its window. The chunks held stay within
 * sk_rcvbuf ("Holding chunks" above). Sleeps (the socket lock, which
 * serialises the forward allocation with SCTP's receive path).
 * Return: 0, or -EPROTO with l->err set.
 */
static int rddp_sctp_charge(struct rddp_sctp_link *l, u32 size)
{
	struct sock *sk = l->sock->sk;
	int err = 0;

	lock_sock(sk);
	if (l->held_charge + size > READ_ONCE(sk->sk_rcvbuf))
		err = RDDP_SCTP_LINK_ERR_HELD_MAX;
	else if (!__sk_rmem_schedule(sk, size, false))
		err = RDDP_SCTP_LINK_ERR_NOMEM;
	if (!err) {
		sk_mem_charge(sk, size);
		atomic_add(size, &sk->sk_rmem_alloc);
		l->held_charge += size;
	}
	release_sock(sk);
	if (err)
		l->err = err;
	return err ? -EPROTO : 0;
}

/* Give back what rddp_sctp_charge() took. Sleeps (the socket lock). */
static void rddp_sctp_uncharge(struct rddp_sctp_link *l, u32 size)
{
	struct sock *sk = l->sock->sk;

	lock_sock(sk);
	atomic_sub(size, &sk->sk_rmem_alloc);
	sk_mem_uncharge(sk, size);
	release_sock(sk);
	l->held_charge -= size;
}

static void rddp_sctp_gap_timer(struct timer_list *t);

/* ---- the link ---- */

struct rddp_sctp_link *rddp_sctp_link_alloc(void)
{
	struct rddp_sctp_link *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return NULL;
	l->buf = kvmalloc(RDDP_SCTP_BUF_MIN, GFP_KERNEL);
	if (!l->buf) {
		kfree(l);
		return NULL;
	}
	l->buf_len = RDDP_SCTP_BUF_MIN;
	l->tx_ssn = RDDP_SCTP_SSN_FIRST;
	rddp_sctp_ssn_rx_init(&l->rx);
	rddp_sctp_sess_init(&l->sess);
	xa_init(&l->held);
	timer_setup(&l->gap_timer, rddp_sctp_gap_timer, 0);
	return l;
}

/*
 * Frees the link and what it holds, uncharging it from l->sock: call it
 * before releasing the socket (the socket's destructor wants its receive
 * memory back). The gap timer is stopped (the LLP's detach) or never ran.
 */
void rddp_sctp_link_free(struct rddp_sctp_link *l)
{
	struct rddp_sctp_held *h;
	unsigned long ssn;

	if (!l)
		return;
	xa_for_each(&l->held, ssn, h) {
		rddp_sctp_uncharge(l, h->charge);
		kvfree(h);
	}
	WARN_ON_ONCE(l->held_charge);
	xa_destroy(&l->held);
	kvfree(l->buf);
	kfree(l);
}

/* What @err, the core's or the link's own (l->err), means: for the log. */
const char *rddp_sctp_link_why(u8 err)
{
	if (err < RDDP_SCTP_ERR_MAX)
		return rddp_sctp_err_names[err];
	if (err < RDDP_SCTP_LINK_ERR_END)
		return rddp_sctp_link_err_names[err - RDDP_SCTP_ERR_MAX];
	return "unknown";
}

/* ---- sockets ---- */

static int rddp_sctp_setopt(struct socket *sock, int opt, const void *val,
			    unsigned int len)
{
	return sock->ops->setsockopt(sock, SOL_SCTP, opt,
				     KERNEL_SOCKPTR((void *)val), len);
}

int rddp_sctp_sock_setup(struct socket *sock)
{
	/* §4.1, §8.1: we speak DDP and RDMAP */
	struct sctp_setadaptation ali = {
		.ssb_adaptation_ind = RDDP_SCTP_ALI_DDP_RDMA,
	};
	/* the peer's indication, the association's start and end */
	struct sctp_event_subscribe ev = {
		.sctp_association_event = 1,
		.sctp_shutdown_event = 1,
		.sctp_adaptation_layer_event = 1,
	};
	/* §5: one DDP Stream, equal inbound and outbound counts (sctp_link.h) */
	struct sctp_initmsg init = {
		.sinit_num_ostreams = RDDP_SCTP_STREAMS,
		.sinit_max_instreams = RDDP_SCTP_STREAMS,
	};
	int on = 1, ret;

	ret = rddp_sctp_setopt(sock, SCTP_ADAPTATION_LAYER, &ali, sizeof(ali));
	if (!ret)
		ret = rddp_sctp_setopt(sock, SCTP_INITMSG, &init, sizeof(init));
	/* §6: one DDP segment is one chunk, never fragmented */
	if (!ret)
		ret = rddp_sctp_setopt(sock, SCTP_DISABLE_FRAGMENTS, &on,
				       sizeof(on));
	if (!ret)
		ret = rddp_sctp_setopt(sock, SCTP_EVENTS, &ev, sizeof(ev));
	/* each chunk's PPID (§2.2) */
	if (!ret)
		ret = rddp_sctp_setopt(sock, SCTP_RECVRCVINFO, &on, sizeof(on));
	if (!ret)
		ret = rddp_sctp_setopt(sock, SCTP_NODELAY, &on, sizeof(on));
	if (ret)
		return ret;
	/*
	 * A fixed, large window (doubled, as SO_SNDBUF and SO_RCVBUF do):
	 * SCTP does not tune its buffers. The send buffer also
	 * bounds the chunks in flight well under §7's 32767: each one charges
	 * the send buffer its skb and chunk (hundreds of octets at least).
	 */
	lock_sock(sock->sk);
	sock->sk->sk_userlocks |= SOCK_SNDBUF_LOCK;
	WRITE_ONCE(sock->sk->sk_sndbuf, 2 * RDDP_SCTP_SOCKBUF);
	release_sock(sock->sk);
	sock_set_rcvbuf(sock->sk, RDDP_SCTP_SOCKBUF);
	return 0;
}

int rddp_sctp_sock_create(struct net *net, int family, struct socket **sock)
{
	int ret;

	ret = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_SCTP, sock);
	if (ret)
		return ret;
	/*
	 * As for TCP: a listener may come back on its port while a connection
	 * it accepted still holds the port (perftest listens twice).
	 */
	sock_set_reuseaddr((*sock)->sk);
	ret = rddp_sctp_sock_setup(*sock);
	if (ret) {
		sock_release(*sock);
		*sock = NULL;
	}
	return ret;
}

/* Write one chunk: @vec (@nr pieces, @len octets) with PPID @ppid, U=1. */
static int rddp_sctp_sendv(struct socket *sock, u32 ppid, struct kvec *vec,
			   size_t nr, size_t len, bool block)
{
	union {
		struct cmsghdr h;
		u8 b[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} cbuf = { 0 };
	struct sctp_sndinfo *info = (struct sctp_sndinfo *)CMSG_DATA(&cbuf.h);
	struct msghdr msg = {
		.msg_control = &cbuf,
		.msg_controllen = sizeof(cbuf),
		.msg_flags = MSG_NOSIGNAL | (block ? 0 : MSG_DONTWAIT),
	};
	int ret;

	cbuf.h.cmsg_level = IPPROTO_SCTP;
	cbuf.h.cmsg_type = SCTP_SNDINFO;
	cbuf.h.cmsg_len = CMSG_LEN(sizeof(*info));
	info->snd_sid = RDDP_SCTP_SID;
	info->snd_flags = SCTP_UNORDERED;	/* §7 */
	/* the sockets API passes the PPID through: network order (§2.2) */
	info->snd_ppid = (__force u32)cpu_to_be32(ppid);
	ret = kernel_sendmsg(sock, &msg, vec, nr, len);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EIO;	/* SCTP takes a message whole */
}

/* A Stream Session Control message (§2.2.3) with our next DDP-SSN. */
int rddp_sctp_send_ctrl(struct rddp_sctp_link *l, u16 fc, const u8 *pd,
			u32 pd_len, bool block)
{
	struct kvec vec;
	u8 *buf;
	int len, ret;

	/* §3.1, §3.4: a Terminate ends the session whatever its phase */
	if ((fc == RDDP_SCTP_FC_TERMINATE ? rddp_sctp_sess_end(&l->sess) :
	     rddp_sctp_sess_tx(&l->sess, fc)) != RDDP_SCTP_OK)
		return -EPROTO;
	buf = kmalloc(RDDP_SCTP_CTRL_HDR_LEN + pd_len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = rddp_sctp_ctrl_build(l->tx_ssn, fc, pd, pd_len, buf,
				   RDDP_SCTP_CTRL_HDR_LEN + pd_len);
	if (len < 0) {
		kfree(buf);
		return -EINVAL;
	}
	vec.iov_base = buf;
	vec.iov_len = len;
	ret = rddp_sctp_sendv(l->sock, RDDP_SCTP_PPID_CONTROL, &vec, 1, len,
			      block);
	kfree(buf);
	if (ret)
		return ret;
	l->tx_ssn++;	/* §2.2.1: 65535 wraps to 0 */
	rddp_stat_inc(l->rdev, RDDP_STAT_SCTP_TX_CHUNKS);
	return 0;
}

/* One kernel_recvmsg() into l->buf from @off: see rddp_sctp_recv(). */
static int rddp_sctp_recv_part(struct rddp_sctp_link *l, u32 off, u32 *ppid,
			       u16 *sid, int *flags)
{
	union {
		struct cmsghdr h;
		u8 b[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
	} cbuf = { 0 };
	const struct sctp_rcvinfo *info = (void *)CMSG_DATA(&cbuf.h);
	struct msghdr msg = {
		.msg_control = &cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct kvec vec = {
		.iov_base = l->buf + off,
		.iov_len = l->buf_len - off,
	};
	int n;

	n = kernel_recvmsg(l->sock, &msg, &vec, 1, vec.iov_len, MSG_DONTWAIT);
	if (n < 0)
		return n;
	*flags = msg.msg_flags;
	*ppid = 0;
	*sid = 0;
	if (!off)
		l->rx_ordered = false;
	if (cbuf.h.cmsg_len >= CMSG_LEN(sizeof(*info)) &&
	    cbuf.h.cmsg_level == IPPROTO_SCTP &&
	    cbuf.h.cmsg_type == SCTP_RCVINFO) {
		*ppid = be32_to_cpu((__force __be32)info->rcv_ppid);
		*sid = info->rcv_sid;
		if (!off)	/* §7: the message's first read says */
			l->rx_ordered = !(info->rcv_flags & SCTP_UNORDERED);
	}
	return n;
}

/* The buffer to its full size, the first @keep octets kept. */
static int rddp_sctp_buf_grow(struct rddp_sctp_link *l, u32 keep)
{
	u8 *buf = kvmalloc(RDDP_SCTP_PAYLOAD_MAX, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	memcpy(buf, l->buf, keep);
	kvfree(l->buf);
	l->buf = buf;
	l->buf_len = RDDP_SCTP_PAYLOAD_MAX;
	return 0;
}

/*
 * Read one message into l->buf. Return: its length, with its PPID (host
 * order; 0 for a notification), its SCTP stream id (0 for a
 * notification) and msg_flags (MSG_NOTIFICATION, MSG_EOR: without it the
 * message was longer than one chunk), l->rx_ordered set for an ordered
 * DATA chunk (U=0, §7); 0 when the peer shut the
 * association down; -EAGAIN when nothing is queued; another errno.
 *
 * A message that fills the small buffer it starts with (RDDP_SCTP_BUF_MIN)
 * leaves its rest in the socket (SCTP requeues it, MSG_EOR unset): the
 * buffer grows to RDDP_SCTP_PAYLOAD_MAX for good and the rest is read
 * after what came.
 */
int rddp_sctp_recv(struct rddp_sctp_link *l, u32 *ppid, u16 *sid, int *flags)
{
	int n, more, more_flags, ret;
	u32 more_ppid;
	u16 more_sid;

	n = rddp_sctp_recv_part(l, 0, ppid, sid, flags);
	if (n < 0 || (*flags & MSG_EOR) || (u32)n < l->buf_len ||
	    l->buf_len == RDDP_SCTP_PAYLOAD_MAX)
		return n;
	ret = rddp_sctp_buf_grow(l, n);
	if (ret)
		return ret;
	more = rddp_sctp_recv_part(l, n, &more_ppid, &more_sid, &more_flags);
	if (more == -EAGAIN)
		return n;	/* the rest not there yet: as a partial read */
	if (more < 0)
		return more;
	*flags = more_flags | (*flags & MSG_NOTIFICATION);
	return n + more;
}

/* Read and drop what is queued, so that closing sends SHUTDOWN, not ABORT. */
void rddp_sctp_drop_unread(struct rddp_sctp_link *l)
{
	int flags, i;
	u32 ppid;
	u16 sid;

	for (i = 0; i < 1024; i++)
		if (rddp_sctp_recv(l, &ppid, &sid, &flags) <= 0)
			break;
}

/* ---- the receive window (§7) ---- */

/* @err: enum rddp_sctp_err or enum rddp_sctp_link_err (sctp_link.h) */
static int rddp_sctp_refuse(struct rddp_sctp_link *l, int err)
{
	l->err = err;
	return -EPROTO;
}

static int rddp_sctp_deliver(struct rddp_sctp_link *l, u32 ppid,
			     const u8 *buf, u32 len, u32 placed,
			     rddp_sctp_deliver_t deliver, void *ctx)
{
	struct rddp_sctp_chunk c;
	int err;

	err = rddp_sctp_chunk_parse(ppid, buf, len, &c);
	if (err != RDDP_SCTP_OK)
		return rddp_sctp_refuse(l, err);
	c.placed = placed;
	return deliver(ctx, &c);
}

/* Deliver the held chunks whose turn has come, in DDP-SSN order. */
int rddp_sctp_rx_pop(struct rddp_sctp_link *l, rddp_sctp_deliver_t deliver,
		     void *ctx)
{
	struct rddp_sctp_held *h;
	int ret = 0;
	u16 ssn;

	while (!ret && rddp_sctp_ssn_rx_pop(&l->rx, &ssn)) {
		h = xa_erase(&l->held, ssn);
		if (WARN_ON_ONCE(!h))
			return rddp_sctp_refuse(l, RDDP_SCTP_ERR_SSN_OLD);
		ret = rddp_sctp_deliver(l, h->ppid, h->data, h->len, h->placed,
					deliver, ctx);
		rddp_sctp_uncharge(l, h->charge);
		kvfree(h);
	}
	return ret;
}

/*
 * Hold a chunk of @len octets in l->buf until its turn: a copy, or with
 * @place its DDP-SSN and header only if @place placed its payload. Its
 * cost is charged to the socket, within its receive buffer; their number
 * stays under the §7 window (rddp_sctp_ssn_rx_arrive()). Nothing is held
 * before an Initiate went either way ("Holding chunks" above).
 */
static int rddp_sctp_hold(struct rddp_sctp_link *l, u16 ssn, u32 ppid,
			  u32 len, rddp_sctp_place_t place, void *ctx)
{
	struct rddp_sctp_chunk c;
	struct rddp_sctp_held *h;
	u32 placed = 0, cost;
	int ret;

	/* §3.6: nothing may be received before the session's Initiate */
	if (l->sess.tx == RDDP_SCTP_PHASE_NEGOTIATE &&
	    l->sess.rx == RDDP_SCTP_PHASE_NEGOTIATE)
		return rddp_sctp_refuse(l, RDDP_SCTP_LINK_ERR_EARLY);
	if (place && rddp_sctp_chunk_parse(ppid, l->buf, len, &c) ==
		     RDDP_SCTP_OK && place(ctx, &c)) {
		placed = c.ddp_len - c.hdr_len;
		len -= placed;
	}
	cost = rddp_sctp_held_cost(struct_size(h, data, len));
	ret = rddp_sctp_charge(l, cost);
	if (ret)
		return ret;
	h = kvmalloc(struct_size(h, data, len), GFP_KERNEL);
	if (!h) {
		rddp_sctp_uncharge(l, cost);
		return -ENOMEM;
	}
	h->ppid = ppid;
	h->len = len;
	h->placed = placed;
	h->charge = cost;
	memcpy(h->data, l->buf, len);
	ret = xa_err(xa_store(&l->held, ssn, h, GFP_KERNEL));
	if (ret) {
		rddp_sctp_uncharge(l, cost);
		kvfree(h);
		return ret;
	}
	rddp_stat_inc(l->rdev, RDDP_STAT_SCTP_RX_HELD);
	if (placed)
		rddp_stat_inc(l->rdev, RDDP_STAT_SCTP_RX_PLACED_EARLY);
	return 0;
}

/*
 * One chunk just read into l->buf (@len octets): deliver it and what it
 * frees if its DDP-SSN is next, else hold it (@place: NULL, or what may
 * place its payload now). Its DDP-SSN comes first in both formats
 * (§2.2.1); the rest is checked when it is delivered.
 */
static int rddp_sctp_rx_chunk_place(struct rddp_sctp_link *l, u32 ppid,
				    u32 len, rddp_sctp_deliver_t deliver,
				    rddp_sctp_place_t place, void *ctx)
{
	int err, ret;
	u16 ssn;

	rddp_stat_inc(l->rdev, RDDP_STAT_SCTP_RX_CHUNKS);
	if (ppid != RDDP_SCTP_PPID_SEGMENT && ppid != RDDP_SCTP_PPID_CONTROL)
		return rddp_sctp_refuse(l, RDDP_SCTP_ERR_PPID);
	if (len < RDDP_SCTP_SSN_LEN)
		return rddp_sctp_refuse(l, ppid == RDDP_SCTP_PPID_CONTROL ?
					RDDP_SCTP_ERR_CTRL_SHORT :
					RDDP_SCTP_ERR_SEG_SHORT);
	ssn = get_unaligned_be16(l->buf);
	err = rddp_sctp_ssn_rx_arrive(&l->rx, ssn);
	if (err == RDDP_SCTP_OK) {
		ret = rddp_sctp_deliver(l, ppid, l->buf, len, 0, deliver, ctx);
		return ret ? ret : rddp_sctp_rx_pop(l, deliver, ctx);
	}
	if (err != RDDP_SCTP_HELD)
		return rddp_sctp_refuse(l, err);
	return rddp_sctp_hold(l, ssn, ppid, len, place, ctx);
}

int rddp_sctp_rx_chunk(struct rddp_sctp_link *l, u32 ppid, u32 len,
		       rddp_sctp_deliver_t deliver, void *ctx)
{
	return rddp_sctp_rx_chunk_place(l, ppid, len, deliver, NULL, ctx);
}

/* ---- TX ---- */

/* MULPDU: one chunk at the association's fragmentation point, less the DDP-SSN. */
static u32 rddp_sctp_mulpdu_of(struct sock *sk)
{
	struct sctp_association *asoc;
	u32 frag = 0;

	lock_sock(sk);
	asoc = list_first_entry_or_null(&sctp_sk(sk)->ep->asocs,
					struct sctp_association, asocs);
	if (asoc)
		frag = asoc->frag_point;
	release_sock(sk);
	if (!frag)
		frag = 1200;	/* not known yet: what any path carries */
	frag = min_t(u32, frag, RDDP_SCTP_PAYLOAD_MAX);
	return min_t(u32, frag - RDDP_SCTP_SSN_LEN, RDDP_FPDU_MAX_ULPDU);
}

/* The DDP-SSN and DDP header in s->tx_fpdu->hdr, the payload after them. */
static int rddp_sctp_tx_frame(struct rddp_stream *s, const u8 *hdr,
			      u32 hdr_len, const struct rddp_span *frags,
			      u32 nr)
{
	struct rddp_fpdu *f = s->tx_fpdu;
	u32 i, payload = 0;
	int len;

	if (nr > RDDP_FPDU_MAX_FRAGS)
		return -EINVAL;
	if (rddp_sctp_sess_tx(&s->sctp->sess, RDDP_SCTP_MSG_SEGMENT))
		return -EPROTO;
	for (i = 0; i < nr; i++)
		payload += frags[i].len;
	len = rddp_sctp_seg_build(s->sctp->tx_ssn, hdr, hdr_len, payload,
				  f->hdr);
	if (len < 0)
		return -EINVAL;
	s->sctp->tx_ssn++;
	f->span[0].base = f->hdr;
	f->span[0].len = len;
	for (i = 0; i < nr; i++)
		f->span[i + 1] = frags[i];
	f->nr_spans = nr + 1;
	f->len = len + payload;
	return 0;
}

/*
 * SCTP refused the chunk as longer than the association's fragmentation
 * point, which it lowered when the path MTU fell (§6: fragmentation is
 * off, the DDP layer segments to the path). Take the segment back: its
 * DDP-SSN goes to the segment built in its place, so the sequence has no
 * gap (§2.2.1); and lower MULPDU to the new point, never under
 * RDDP_SCTP_MULPDU_MIN (llp.h, tx_write's -EMSGSIZE).
 */
static void rddp_sctp_tx_shrink(struct rddp_stream *s)
{
	struct rddp_sctp_link *l = s->sctp;
	u32 mulpdu = max_t(u32, rddp_sctp_mulpdu_of(s->sock->sk),
			   RDDP_SCTP_MULPDU_MIN);

	l->tx_ssn--;
	if (mulpdu >= s->mulpdu)
		return;
	WRITE_ONCE(s->mulpdu, mulpdu);
	rddp_stat_inc(l->rdev, RDDP_STAT_SCTP_RESEGMENTS);
	if (!l->resegmented)
		pr_debug("rddp: QP %u: SCTP path shrank: MULPDU now %u\n",
			 s->qp->base.qp_num, mulpdu);
	l->resegmented = true;
}

static int rddp_sctp_tx_write(struct rddp_stream *s, bool more, bool block)
{
	struct rddp_fpdu *f = s->tx_fpdu;
	u32 i;
	int ret;

	for (i = 0; i < f->nr_spans; i++) {
		s->tx_vec[i].iov_base = (void *)f->span[i].base;
		s->tx_vec[i].iov_len = f->span[i].len;
	}
	ret = rddp_sctp_sendv(s->sock, RDDP_SCTP_PPID_SEGMENT, s->tx_vec,
			      f->nr_spans, f->len, block);
	if (ret == -EAGAIN || ret == -EWOULDBLOCK)
		return -EAGAIN;
	if (ret == -EMSGSIZE) {
		rddp_sctp_tx_shrink(s);
		return -EMSGSIZE;	/* TX builds it again, smaller */
	}
	if (ret) {
		pr_info_ratelimited("rddp: QP %u: SCTP refused a %u-octet segment: %d\n",
				    s->qp->base.qp_num, f->len, ret);
		return ret;
	}
	s->tx_fpdu_sent = f->len;
	rddp_stat_inc(s->sctp->rdev, RDDP_STAT_SCTP_TX_CHUNKS);
	return 0;
}

/* SCTP takes a message while its send buffer is not full (sctp_wspace). */
static bool rddp_sctp_tx_writeable(struct rddp_stream *s)
{
	struct sock *sk = s->sock->sk;

	return READ_ONCE(sk->sk_sndbuf) > READ_ONCE(sk->sk_wmem_queued);
}

/* No zero copy over SCTP: nothing waits for an acknowledgment. */
static u32 rddp_sctp_tx_mark(struct rddp_stream *s)
{
	return 0;
}

static u32 rddp_sctp_tx_acked(struct rddp_stream *s, bool watch)
{
	return 0;
}

/* SCTP wakes the socket's wait queue when a SACK frees room (EPOLLOUT). */
static int rddp_sctp_wake(struct wait_queue_entry *wait, unsigned int mode,
			  int sync, void *key)
{
	struct rddp_sctp_link *l = container_of(wait, struct rddp_sctp_link,
						wait);
	struct rddp_stream *s = l->stream;

	if (!(key_to_poll(key) & EPOLLOUT))
		return 0;
	if (READ_ONCE(s->tx_wants_space) && rddp_sctp_tx_writeable(s)) {
		WRITE_ONCE(s->tx_wants_space, false);
		s->up->tx_kick(s->qp);
	}
	return 0;
}

/* ---- RX ---- */

/*
 * A chunk in DDP-SSN order, in full operation. Once an error ended the
 * stream (its Terminate is set), nothing more is delivered, held chunks
 * whose turn came after it included (RFC 5040 §5.3): stop.
 */
static int rddp_sctp_rx_deliver(void *ctx, const struct rddp_sctp_chunk *c)
{
	struct rddp_stream *s = ctx;
	const struct rddp_mpa_rx_ops *ops = s->up->rx;
	enum rddp_sctp_err err;
	int ret;

	if (atomic_read(&s->term_set))
		return 1;
	err = rddp_sctp_sess_rx(&s->sctp->sess, c->msg);
	if (err != RDDP_SCTP_OK)	/* §3.1: out of sequence ends the session */
		return rddp_sctp_refuse(s->sctp, err);
	if (c->msg == RDDP_SCTP_FC_TERMINATE) {
		/* §3.4, §8.3: the peer ends the session, then the association */
		WRITE_ONCE(s->sctp->peer_ended, true);
		rddp_conn_event(s->conn, RDDP_CEP_EV_PEER_CLOSED);
		return 1;
	}
	/* The callbacks run with bottom halves off, as in MPA's softirq. */
	local_bh_disable();
	if (c->placed) {
		/* its payload is in place: the in-order part only */
		ret = s->up->rx_tagged_placed(s, c->ddp, c->hdr_len, c->placed);
	} else {
		ret = ops->header(s, c->ddp, c->hdr_len,
				  c->ddp_len - c->hdr_len);
		if (!ret && c->ddp_len > c->hdr_len)
			ret = ops->payload(s, c->ddp + c->hdr_len,
					   c->ddp_len - c->hdr_len);
		if (!ret)
			ret = ops->fpdu_done(s);
	}
	local_bh_enable();
	return ret ? 1 : 0;	/* the callbacks reported their own error */
}

/*
 * A chunk ahead of its turn (§7): a tagged segment of the peer's session
 * in full operation is placed now if it validates (RFC 5041 §5.3, §7.1);
 * everything else waits for its turn whole. The session's order checks
 * (a segment after the peer's Terminate) are the in-order pass's.
 */
static bool rddp_sctp_rx_place(void *ctx, const struct rddp_sctp_chunk *c)
{
	struct rddp_stream *s = ctx;
	u8 phase = s->sctp->sess.rx;
	bool placed;

	if (atomic_read(&s->term_set) || c->msg != RDDP_SCTP_MSG_SEGMENT ||
	    c->hdr_len != RDDP_DDP_TAGGED_HDR_LEN ||
	    c->ddp_len == c->hdr_len ||
	    (phase != RDDP_SCTP_PHASE_INITIATED &&
	     phase != RDDP_SCTP_PHASE_ACCEPTED))
		return false;
	local_bh_disable();
	placed = s->up->rx_place_tagged(s, c->ddp, c->hdr_len,
				      c->ddp + c->hdr_len,
				      c->ddp_len - c->hdr_len);
	local_bh_enable();
	return placed;
}

/*
 * Why the association ended: SCTP set the socket's error before it queued
 * COMM_LOST. ETIMEDOUT: its retransmissions or heartbeats went unanswered,
 * the liveness bound of rddp_sctp_set_liveness(), in the kernel log (a
 * peer may cause it: rate-limited); ECONNRESET, the peer's ABORT, and the
 * rest are ordinary ends (perftest's peer aborts): debug lines.
 */
static void rddp_sctp_log_lost(struct rddp_sctp_link *l, u16 state)
{
	struct rddp_stream *s = l->stream;
	int err = READ_ONCE(l->sock->sk->sk_err);

	if (err == ETIMEDOUT)
		pr_info_ratelimited("rddp: QP %u: SCTP association lost: the peer did not answer (peer_timeout_ms %u)\n",
				    s->qp->base.qp_num, s->p.peer_timeout_ms);
	else if (err == ECONNRESET)
		pr_debug("rddp: QP %u: SCTP association ended by the peer's ABORT\n",
			 s->qp->base.qp_num);
	else
		pr_debug("rddp: QP %u: SCTP association ended (state %u, error %d)\n",
			 s->qp->base.qp_num, state, err);
}

/*
 * A notification in full operation: only the association's end matters.
 * The peer's SHUTDOWN is its graceful end (@l's peer_ended); COMM_LOST (an
 * ABORT, or SCTP gave up) is not.
 */
static bool rddp_sctp_rx_notification(struct rddp_sctp_link *l, const u8 *buf,
				      u32 len)
{
	const union sctp_notification *n = (const void *)buf;

	if (len < sizeof(n->sn_header))
		return false;
	switch (n->sn_header.sn_type) {
	case SCTP_SHUTDOWN_EVENT:
		WRITE_ONCE(l->peer_ended, true);
		return true;
	case SCTP_ASSOC_CHANGE:
		if (len < sizeof(n->sn_assoc_change) ||
		    n->sn_assoc_change.sac_state == SCTP_COMM_UP)
			return false;
		rddp_sctp_log_lost(l, n->sn_assoc_change.sac_state);
		return true;
	default:
		return false;
	}
}

/*
 * The association's end reaches the CM as graceful (the peer's SHUTDOWN:
 * @s's link has peer_ended, or no error on the socket) or as an abort (an
 * ABORT, or SCTP gave up: the socket's error set), which iw_cm's CLOSE
 * reports as -ECONNRESET.
 */
static void rddp_sctp_peer_end(struct rddp_stream *s, struct sock *sk)
{
	bool aborted = !READ_ONCE(s->sctp->peer_ended) && READ_ONCE(sk->sk_err);

	rddp_conn_event(s->conn, aborted ? RDDP_CEP_EV_PEER_ABORTED :
			       RDDP_CEP_EV_PEER_CLOSED);
}

/* @ret: -EPROTO (s->sctp->err says why) or another errno (-ENOMEM) */
static void rddp_sctp_rx_error(struct rddp_stream *s, int ret)
{
	u8 err = s->sctp->err;

	if (ret != -EPROTO || err >= RDDP_SCTP_LINK_ERR_END) {
		s->up->error(s, RDDP_ERR_LLP_CATASTROPHIC, NULL, 0, 0, NULL);
		return;
	}
	/* The peer writes this line: rate-limited. */
	pr_info_ratelimited("rddp: QP %u: SCTP chunk refused: %s\n",
			    s->qp->base.qp_num, rddp_sctp_link_why(err));
	rddp_stat_inc(s->qp->rdev, RDDP_STAT_RX_FRAMING_ERRORS);
	s->up->error(s, rddp_sctp_to_err(err), NULL, 0, 0, NULL);
}

/* One read pass; false when the stream is over or the peer closed. */
static bool rddp_sctp_rx_one(struct rddp_stream *s)
{
	struct rddp_sctp_link *l = s->sctp;
	int flags = 0, n, ret;
	u32 ppid;
	u16 sid;

	n = rddp_sctp_recv(l, &ppid, &sid, &flags);
	if (n == -EAGAIN)
		return false;
	if (n < 0)
		pr_info_ratelimited("rddp: QP %u: SCTP receive failed: %d\n",
				    s->qp->base.qp_num, n);
	if (!n)
		WRITE_ONCE(l->peer_ended, true);	/* SHUTDOWN received */
	if (n <= 0 || ((flags & MSG_NOTIFICATION) &&
		       rddp_sctp_rx_notification(l, l->buf, n))) {
		rddp_sctp_peer_end(s, l->sock->sk);
		return false;
	}
	if (flags & MSG_NOTIFICATION)
		return true;
	if (atomic_read(&s->term_set))
		return true;	/* the stream is over: drop */
	if (!(flags & MSG_EOR)) {
		rddp_sctp_rx_error(s, rddp_sctp_refuse(l, RDDP_SCTP_ERR_TOO_LONG));
		return false;
	}
	/* §5: no session on another stream (sctp_link.h): end this one's */
	if (sid != RDDP_SCTP_SID) {
		rddp_sctp_rx_error(s, rddp_sctp_refuse(l, RDDP_SCTP_ERR_STREAM));
		return false;
	}
	if (l->rx_ordered) {	/* §7: every chunk unordered */
		rddp_sctp_rx_error(s, rddp_sctp_refuse(l, RDDP_SCTP_ERR_ORDERED));
		return false;
	}
	ret = rddp_sctp_rx_chunk_place(l, ppid, n, rddp_sctp_rx_deliver,
				       rddp_sctp_rx_place, s);
	if (ret < 0) {
		rddp_sctp_rx_error(s, ret);
		return false;
	}
	return ret == 0;
}

/*
 * A DDP-SSN missing for peer_timeout_ms (l->gap_since, RX's record): the
 * peer left a gap that it does not fill, and the chunks after it held. As
 * over MPA for an FPDU left incomplete (stream.c), the stream ends with a
 * Terminate (RFC 5040 §5.3); the chunks go with the link. Re-arms itself
 * when RX saw a new gap since it was armed (rddp_stream_peer_late()); RX
 * arms it again for a later one.
 */
static void rddp_sctp_gap_timer(struct timer_list *t)
{
	struct rddp_sctp_link *l = from_timer(l, t, gap_timer);
	struct rddp_stream *s = l->stream;

	if (!s->up->peer_late(s, t, &l->gap_since, &l->gap))
		return;
	/* The peer writes this line: rate-limited. */
	pr_info_ratelimited("rddp: QP %u: SCTP: DDP-SSN %u missing for %u ms while later chunks are held (§7)\n",
			    s->qp->base.qp_num, READ_ONCE(l->gap_ssn),
			    s->p.peer_timeout_ms);
	s->up->error(s, rddp_sctp_to_err(RDDP_SCTP_LINK_ERR_GAP), NULL, 0,
			  0, NULL);
}

/*
 * After a run of the receive work: when chunks are held, the next DDP-SSN
 * is missing; record since when, and have the gap timer running. A new
 * gap (the missing DDP-SSN came, another is missing) starts again. A
 * pending timer is left alone: it re-arms itself at the gap's end.
 */
static void rddp_sctp_gap_watch(struct rddp_sctp_link *l)
{
	struct rddp_stream *s = l->stream;
	u32 ms = s->p.peer_timeout_ms;
	bool gap = l->rx.nr_held && !atomic_read(&s->term_set);

	if (!ms)
		return;
	if (gap && (!l->gap || l->gap_ssn != l->rx.next)) {
		WRITE_ONCE(l->gap_ssn, l->rx.next);
		WRITE_ONCE(l->gap_since, jiffies);
		if (!timer_pending(&l->gap_timer))
			mod_timer(&l->gap_timer, jiffies + msecs_to_jiffies(ms));
	}
	WRITE_ONCE(l->gap, gap);
}

/* One run: true to go on after yielding. */
static bool rddp_sctp_rx_run(struct rddp_stream *s)
{
	struct rddp_sctp_link *l = s->sctp;
	int i, ret;

	/*
	 * What the CM held, or a delivery that stopped, first; nothing once
	 * the stream's error is set (RFC 5040 §5.3), whose chunks
	 * rddp_sctp_rx_one() reads and drops.
	 */
	ret = atomic_read(&s->term_set) ? 0 :
	      rddp_sctp_rx_pop(l, rddp_sctp_rx_deliver, s);
	if (ret < 0)
		rddp_sctp_rx_error(s, ret);
	if (ret)
		return false;
	for (i = 0; i < RDDP_SCTP_RX_BUDGET; i++)
		if (READ_ONCE(s->rx_stopped) || !rddp_sctp_rx_one(s))
			return false;
	return true;
}

static void rddp_sctp_rx_work(struct work_struct *work)
{
	struct rddp_sctp_link *l = container_of(work, struct rddp_sctp_link,
						rx_work);
	struct rddp_stream *s = l->stream;
	bool more;

	if (READ_ONCE(s->rx_stopped))
		return;
	more = rddp_sctp_rx_run(s);
	s->up->rx_batch_end(s);
	rddp_sctp_gap_watch(l);
	if (more)
		queue_work(rddp_wq, &l->rx_work);	/* yield, then go on */
}

static void rddp_sctp_data_ready(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s)
		queue_work(rddp_wq, &s->sctp->rx_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* The association left ESTABLISHED: SHUTDOWN received, or it ended. */
static void rddp_sctp_state_change(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && sk->sk_state != SCTP_SS_ESTABLISHED)
		rddp_sctp_peer_end(s, sk);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* ---- start and stop ---- */

/*
 * The liveness bound (peer_timeout_ms, @ms) in SCTP's terms: SCTP ends an
 * association after Association.Max.Retrans consecutive retransmission
 * timeouts, of data or of heartbeats (RFC 4960 §8.1, §8.3). Four of them,
 * with the RTO capped at an eighth of @ms and a heartbeat every quarter of
 * it, end a silent peer's association after about @ms, busy or idle; SCTP
 * then reports COMM_LOST and the stream ends as on a peer's close.
 * Best effort: an option SCTP refuses leaves its default (minutes).
 */
static void rddp_sctp_set_liveness(struct socket *sock, u32 ms)
{
	struct sctp_rtoinfo rto = {
		.srto_max = max_t(u32, ms / 8, 10),
		.srto_min = min_t(u32, max_t(u32, ms / 8, 10), 1000),
	};
	struct sctp_assocparams assoc = { .sasoc_asocmaxrxt = 4 };
	struct sctp_paddrparams path = {
		.spp_hbinterval = max_t(u32, ms / 4, 1),
		.spp_pathmaxrxt = 4,
		.spp_flags = SPP_HB_ENABLE,
	};

	if (!ms)
		return;
	rddp_sctp_setopt(sock, SCTP_RTOINFO, &rto, sizeof(rto));
	rddp_sctp_setopt(sock, SCTP_PEER_ADDR_PARAMS, &path, sizeof(path));
	rddp_sctp_setopt(sock, SCTP_ASSOCINFO, &assoc, sizeof(assoc));
}

static const struct rddp_sk_hooks rddp_sctp_hooks = {
	.data_ready = rddp_sctp_data_ready,
	.state_change = rddp_sctp_state_change,
};

static void rddp_sctp_start(struct rddp_stream *s)
{
	struct rddp_sctp_link *l = s->sctp;
	struct sock *sk = s->sock->sk;

	l->stream = s;
	l->sock = s->sock;
	INIT_WORK(&l->rx_work, rddp_sctp_rx_work);
	init_waitqueue_func_entry(&l->wait, rddp_sctp_wake);
	s->mulpdu = rddp_sctp_mulpdu_of(sk);
	rddp_sctp_set_liveness(s->sock, s->p.peer_timeout_ms);
	add_wait_queue(sk_sleep(sk), &l->wait);

	rddp_sk_hooks_install(sk, s, &rddp_sctp_hooks, &s->saved_hooks);
}

/* What came before start, held or queued, is read by the work. */
static void rddp_sctp_rx_drain(struct rddp_stream *s)
{
	queue_work(rddp_wq, &s->sctp->rx_work);
}

static bool rddp_sctp_closed(struct rddp_stream *s)
{
	return s->sock->sk->sk_state != SCTP_SS_ESTABLISHED;
}

static void rddp_sctp_detach(struct rddp_stream *s)
{
	struct sock *sk = s->sock->sk;

	rddp_sk_hooks_remove(sk, &s->saved_hooks);
	remove_wait_queue(sk_sleep(sk), &s->sctp->wait);
	WRITE_ONCE(s->rx_stopped, true);
	/* Nothing queues it now; a run under way sees rx_stopped or ends. */
	cancel_work_sync(&s->sctp->rx_work);
	/* RX arms it no more; it sees s->stopped and does not re-arm. */
	del_timer_sync(&s->sctp->gap_timer);
}

static void rddp_sctp_close(struct rddp_stream *s, bool graceful)
{
	struct rddp_sctp_link *l = s->sctp;
	struct socket *sock = s->sock;

	/*
	 * A peer that ended the session or the association gracefully gets
	 * the same back, even when the QP's end is not (a peer's close is one).
	 */
	if (graceful || READ_ONCE(l->peer_ended)) {
		/* §8.3: the session's end, then SCTP's graceful SHUTDOWN */
		rddp_sctp_send_ctrl(l, RDDP_SCTP_FC_TERMINATE, NULL, 0, true);
		rddp_sctp_drop_unread(l);
		kernel_sock_shutdown(sock, SHUT_WR);
	} else {
		sock_no_linger(sock->sk);	/* close sends ABORT */
	}
	/* The held chunks' memory goes back to the socket before it goes. */
	s->sctp = NULL;
	rddp_sctp_link_free(l);
	rddp_sock_release(sock);
	s->sock = NULL;
}

const struct rddp_llp_ops rddp_llp_sctp = {
	.name = "sctp",
	.transport = RDDP_TRANSPORT_SCTP,
	.start = rddp_sctp_start,
	.rx_drain = rddp_sctp_rx_drain,
	.closed = rddp_sctp_closed,
	.detach = rddp_sctp_detach,
	.close = rddp_sctp_close,
	.tx_frame = rddp_sctp_tx_frame,
	.tx_write = rddp_sctp_tx_write,
	.tx_writeable = rddp_sctp_tx_writeable,
	.tx_mark = rddp_sctp_tx_mark,
	.tx_acked = rddp_sctp_tx_acked,
};
