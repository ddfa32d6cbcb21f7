// SPDX-License-Identifier: GPL-2.0
/*
 * The MPA LLP (llp.h): DDP segments as MPA FPDUs (RFC 5044 §4: length,
 * markers, pad, CRC32c, built and deframed by the protocol core) over a
 * kernel TCP socket in full operation (RFC 5044 §5).
 *
 * TX writes without blocking: the FPDUs of a run (written with more to
 * follow) are staged, copied whole into the stream, and reach TCP in one
 * call with the first one that is not, or at the run's push, so that TCP
 * sends them as one batch; a full socket parks the engine until
 * sk_write_space. Zero copy
 * (the device's tx_zcopy setting, on streams without CRC; see struct
 * rddp_stream_params): payload in pages TCP may reference is lent to it
 * by reference, the FPDU's own header, markers, pad and CRC are copied
 * into pages of the stream's, a run's FPDUs are staged as page references
 * and reach TCP in one call too (compat.h: MSG_SPLICE_PAGES, or 6.1's
 * sendpage), and the WQE completes once TCP's snd_una has passed it
 * (qp_tx.c).
 *
 * RX runs in sk_data_ready (softirq) or in process context, always under
 * the socket lock: tcp_read_sock() hands each skb to the core's deframer in
 * place (skb_seq_read), which calls the DDP/RDMAP RX callbacks
 * (rddp_ddp_rx_ops, qp_rx.c).
 *
 * Liveness: TCP_USER_TIMEOUT and keepalive bound a vanished peer; an FPDU
 * left incomplete arms the stream's stall timer (stream.c).
 */
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/sched/task_stack.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <uapi/linux/rddp_netlink.h>

#include "compat.h"
#include "llp.h"
#include "rddp.h"
#include "stream.h"
#include "tcp_linger.h"
#include "trace.h"

/* ---- TX ---- */

/* Frame a DDP segment as one FPDU (RFC 5044 §4) into s->tx_fpdu. */
static int rddp_mpa_tx_frame(struct rddp_stream *s, const u8 *hdr,
			     u32 hdr_len, const struct rddp_span *frags, u32 nr)
{
	if (rddp_fpdu_build_sg(&s->tx_mpa, s->tx_fpdu, hdr, hdr_len, frags, nr))
		return -EINVAL;
	return 0;
}

/*
 * Whether @p is the stream's own memory, which it rewrites for the next
 * FPDU (header, markers, bounce, inline data, the Terminate, a payload
 * copied out of an MR, in @tx_copy or zero copy's copy page).
 */
static bool rddp_tx_own(const struct rddp_stream *s, const u8 *p)
{
	const u8 *st = (const u8 *)s, *f = (const u8 *)s->tx_fpdu;
	const u8 *c = s->tx_copy;
	const u8 *cp = s->tx_copy_page ? page_address(s->tx_copy_page) : NULL;

	return (p >= st && p < st + sizeof(*s)) ||
	       (p >= f && p < f + sizeof(*s->tx_fpdu)) ||
	       (c && p >= c && p < c + RDDP_FPDU_MAX_ULPDU) ||
	       (cp && p >= cp && p < cp + PAGE_SIZE);
}

/*
 * The page behind payload byte @p if TCP may hold a reference to it: the
 * direct map, not slab (sendpage_ok()), and not memory the stream rewrites
 * for the next FPDU; and a route that gathers pages (else TCP copies).
 * Never a stack page: TCP would send it after the frame that built it is
 * gone (without CONFIG_VMAP_STACK a stack is direct-mapped page memory,
 * and its first page passes sendpage_ok()); TX builds every payload in
 * the stream's memory or reads it from an MR, so one here is a bug. Never
 * a Read Response's: the application may write its MR again once
 * ibv_dereg_mr returned, before TCP sent the page (qp_tx.c copies them).
 */
static struct page *rddp_tx_lendable(const struct rddp_stream *s, const u8 *p)
{
	struct page *page;

	if (!s->p.tx_zcopy || rddp_tx_own(s, p))
		return NULL;
	if (WARN_ON_ONCE(object_is_on_stack(p)))
		return NULL;
	if (s->tx_kind == RDDP_TX_READ_RESP || !virt_addr_valid(p) ||
	    !(s->sock->sk->sk_route_caps & NETIF_F_SG))
		return NULL;
	if (s->tx_kind == RDDP_TX_SQE && s->tx_len < RDDP_TX_ZCOPY_MIN)
		return NULL;
	page = virt_to_page(p);
	return sendpage_ok(page) ? page : NULL;
}

/*
 * Zero-copy write of the FPDU's spans from byte @skip, under one socket
 * lock, for an FPDU zero copy's stage cannot take: runs of copied spans
 * with tcp_sendmsg_locked(), lendable pages by reference (compat.h).
 * Returns the bytes TCP took or its error if none.
 */
static int rddp_tx_write_zc(struct rddp_stream *s, u32 skip, int flags,
			    bool more)
{
	struct rddp_fpdu *f = s->tx_fpdu;
	struct sock *sk = s->sock->sk;
	u32 i = 0, sent = 0, n;
	int ret = 0, fl;

	lock_sock(sk);
	while (i < f->nr_spans) {
		const struct rddp_span *sp = &f->span[i];
		const u8 *p = sp->base + skip;
		u32 len = sp->len - skip;
		struct page *page;
		size_t want;

		if (skip >= sp->len) {
			skip -= sp->len;
			i++;
			continue;
		}
		page = rddp_tx_lendable(s, p);
		if (page) {
			struct bio_vec bv;

			want = min_t(u32, len, PAGE_SIZE - offset_in_page(p));
			fl = flags | MSG_MORE;
			if (!more && want == len && i + 1 == f->nr_spans)
				fl = flags;
			bvec_set_page(&bv, page, want, offset_in_page(p));
			ret = rddp_tcp_lend_bvecs_locked(sk, &bv, 1, 0, fl);
			if (ret > 0) {
				s->tx_lent = true;
				rddp_stat_add(s->qp->rdev, RDDP_STAT_TX_ZCOPY_BYTES,
					      ret);
			}
		} else {
			struct msghdr msg = { .msg_flags = flags };

			/* This span and the copied ones after it, in one call. */
			for (n = 0, want = 0; i + n < f->nr_spans; n++) {
				const struct rddp_span *q = &f->span[i + n];
				const u8 *b = n ? q->base : p;

				if (n && rddp_tx_lendable(s, b))
					break;
				s->tx_vec[n].iov_base = (void *)b;
				s->tx_vec[n].iov_len = n ? q->len : len;
				want += s->tx_vec[n].iov_len;
			}
			if (more || i + n < f->nr_spans)
				msg.msg_flags |= MSG_MORE;
			iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, s->tx_vec, n,
				      want);
			ret = tcp_sendmsg_locked(sk, &msg, want);
		}
		if (ret <= 0)
			break;
		sent += ret;
		skip += ret;
		if (ret < want)
			break;	/* the socket is full */
	}
	release_sock(sk);
	return sent ? sent : ret;
}

/*
 * @sent octets of a write that began with the stage's rest: the stage's
 * share is taken off. Return: the octets left for the FPDU.
 */
static u32 rddp_mpa_tx_unstaged(struct rddp_stream *s, u32 sent)
{
	u32 n = min(sent, s->tx_stage_len - s->tx_stage_sent);

	s->tx_stage_sent += n;
	if (s->tx_stage_sent == s->tx_stage_len) {
		s->tx_stage_len = 0;
		s->tx_stage_sent = 0;
	}
	return sent - n;
}

/* Whether @p is in the stage's memory. */
static bool rddp_mpa_in_stage(const struct rddp_stream *s, const u8 *p)
{
	return s->tx_stage && p >= s->tx_stage && p < s->tx_stage + RDDP_TX_STAGE;
}

/* The stage's memory, allocated at its first use. Return: whether there is. */
static bool rddp_mpa_tx_stage_mem(struct rddp_stream *s)
{
	if (!s->tx_stage)
		s->tx_stage = kvmalloc(RDDP_TX_STAGE, GFP_KERNEL | __GFP_NOWARN);
	return s->tx_stage;
}

/*
 * Stage the current FPDU, whole, if it fits (copying; zero copy has a
 * stage of its own, below): a run's FPDUs then reach TCP in one call.
 * TCP transmits every full-sized segment at the end of each call,
 * MSG_MORE or not (it holds back only a partial one), and each transmit
 * is a device doorbell: FPDUs cut at the MSS and written one by one leave
 * one by one, a 4 KiB Write as three packets. Staging copies what TCP
 * would copy from the MR anyway, and a payload TX copied out of an MR
 * into the stage (rddp_mpa_tx_copy_to()) not at all. Return: whether the
 * FPDU is staged.
 */
static bool rddp_mpa_tx_stage(struct rddp_stream *s)
{
	const struct rddp_fpdu *f = s->tx_fpdu;
	u32 i, pass, at = s->tx_stage_len;

	if (s->tx_fpdu_sent || f->len > RDDP_TX_STAGE - at)
		return false;
	if (!rddp_mpa_tx_stage_mem(s))
		return false;	/* written at once, as unstaged */
	/*
	 * A payload TX copied into the stage (rddp_mpa_tx_copy_to()) first:
	 * it is in place, or moves (overlapping where it goes) if the
	 * stage's rest left meanwhile (a write that found the socket full),
	 * before the spans copied from elsewhere can write over it.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, at = s->tx_stage_len; i < f->nr_spans; i++) {
			const struct rddp_span *sp = &f->span[i];

			if (rddp_mpa_in_stage(s, sp->base) == !pass &&
			    sp->base != s->tx_stage + at)
				memmove(s->tx_stage + at, sp->base, sp->len);
			at += sp->len;
		}
	}
	s->tx_stage_len = at;
	s->tx_fpdu_sent = f->len;
	return true;
}

/* ---- zero copy's stage ---- */

/* Drop the page references of @s->tx_zv[@from..@to). */
static void rddp_mpa_zc_put(struct rddp_stream *s, u32 from, u32 to)
{
	for (; from < to; from++)
		put_page(s->tx_zv[from].bv_page);
}

/*
 * A new, empty copy page as @tx_zpage; the full one is left to the
 * references its bio_vecs, TCP and @tx_copy_page hold. False: no memory
 * (@tx_zpage unchanged).
 */
static bool rddp_mpa_zc_new_page(struct rddp_stream *s)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_NOWARN);

	if (!page)
		return false;
	if (s->tx_zpage)
		put_page(s->tx_zpage);
	s->tx_zpage = page;
	s->tx_zpage_off = 0;
	return true;
}

/*
 * The stage's last bio_vec if @len copied octets can extend it: it ends
 * where the copy page's next octets go, and TCP has not taken it whole
 * (then it is no longer ours to grow). Else NULL.
 */
static struct bio_vec *rddp_mpa_zc_tail(struct rddp_stream *s, u32 len)
{
	struct bio_vec *last;

	if (s->tx_zv_nr == s->tx_zv_done || !s->tx_zpage ||
	    len > PAGE_SIZE - s->tx_zpage_off)
		return NULL;
	last = &s->tx_zv[s->tx_zv_nr - 1];
	if (last->bv_page != s->tx_zpage ||
	    last->bv_offset + last->bv_len != s->tx_zpage_off)
		return NULL;
	return last;
}

/*
 * Copy @len octets (at most a page) from @p onto the stage, into the
 * stream's copy page: appended to the last bio_vec when they follow it
 * there (on 6.1 TCP takes the stage one call per bio_vec, so an FPDU's
 * copied trailer and the next one's header, or FPDUs copied whole, go in
 * one), else in a new bio_vec holding a reference on the page. A page once
 * left is never written again: TCP may still hold it, and lets it go when
 * the octets are acknowledged. Return: 0, -ENOSPC when the stage's
 * bio_vecs are used up, or -ENOMEM.
 */
static int rddp_mpa_zc_copy(struct rddp_stream *s, const u8 *p, u32 len)
{
	struct bio_vec *bv = rddp_mpa_zc_tail(s, len);

	if (bv) {
		bv->bv_len += len;
	} else {
		if (s->tx_zv_nr == RDDP_TX_ZC_VECS)
			return -ENOSPC;
		if ((!s->tx_zpage || len > PAGE_SIZE - s->tx_zpage_off) &&
		    !rddp_mpa_zc_new_page(s))
			return -ENOMEM;
		get_page(s->tx_zpage);
		bvec_set_page(&s->tx_zv[s->tx_zv_nr++], s->tx_zpage, len,
			      s->tx_zpage_off);
	}
	/* A payload TX copied here (rddp_mpa_zc_copy_to()) is in place. */
	if (page_address(s->tx_zpage) + s->tx_zpage_off != p)
		memcpy(page_address(s->tx_zpage) + s->tx_zpage_off, p, len);
	s->tx_zpage_off += len;
	return 0;
}

/*
 * tx_copy_to with zero copy: the spot in the copy page where the stage
 * will copy the payload of an FPDU of @fpdu octets, @before of them ahead
 * of it, when the whole FPDU fits in the page's rest (else in a new copy
 * page): the stage then finds it in place (rddp_mpa_zc_copy()). The
 * page is held as @tx_copy_page until the next FPDU (the previous one is
 * written by then) or the close: a stage whose first try failed (-ENOSPC)
 * copies the FPDU anew, further on or into a new page, from here.
 */
static u8 *rddp_mpa_zc_copy_to(struct rddp_stream *s, u32 fpdu, u32 before)
{
	if (fpdu > PAGE_SIZE)
		return NULL;
	if ((!s->tx_zpage || fpdu > PAGE_SIZE - s->tx_zpage_off) &&
	    !rddp_mpa_zc_new_page(s))
		return NULL;
	if (s->tx_copy_page)
		put_page(s->tx_copy_page);
	get_page(s->tx_zpage);
	s->tx_copy_page = s->tx_zpage;
	return page_address(s->tx_zpage) + s->tx_zpage_off + before;
}

/*
 * One span of the FPDU onto the stage: page by page, each page lent if it
 * may be (rddp_tx_lendable(), then referenced until TCP has it), else its
 * octets copied (rddp_mpa_zc_copy()). Adds the octets lent to @lent.
 * Return: 0, -ENOSPC when the stage's bio_vecs are used up, or -ENOMEM.
 */
static int rddp_mpa_zc_span(struct rddp_stream *s, const struct rddp_span *sp,
			    u32 *lent)
{
	const u8 *p = sp->base;
	u32 len = sp->len, n;
	struct page *page;
	int ret;

	while (len) {
		page = rddp_tx_lendable(s, p);
		if (page) {
			if (s->tx_zv_nr == RDDP_TX_ZC_VECS)
				return -ENOSPC;
			n = min_t(u32, len, PAGE_SIZE - offset_in_page(p));
			get_page(page);
			bvec_set_page(&s->tx_zv[s->tx_zv_nr++], page, n,
				      offset_in_page(p));
			*lent += n;
		} else {
			n = min_t(u32, len, PAGE_SIZE);
			ret = rddp_mpa_zc_copy(s, p, n);
			if (ret)
				return ret;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Stage the current FPDU whole, its lent pages by reference. A WQE with a
 * lent page completes once TCP's ACK passes tx_mark, which counts what is
 * staged. Return: 0 when staged, -ENOSPC when the stage has no room for
 * it, or -ENOMEM; nothing is staged then.
 */
static int rddp_mpa_zc_stage(struct rddp_stream *s)
{
	const struct rddp_fpdu *f = s->tx_fpdu;
	u32 nr = s->tx_zv_nr, lent = 0, i, last_len = 0;
	int ret = 0;

	if (f->len > RDDP_TX_STAGE - s->tx_stage_len)
		return -ENOSPC;
	/* An FPDU staged halfway gives back what it added to the last one. */
	if (nr)
		last_len = s->tx_zv[nr - 1].bv_len;
	if (!s->tx_zv) {
		s->tx_zv = kvmalloc_array(RDDP_TX_ZC_VECS, sizeof(*s->tx_zv),
					  GFP_KERNEL | __GFP_NOWARN);
		if (!s->tx_zv)
			return -ENOMEM;
	}
	for (i = 0; i < f->nr_spans && !ret; i++)
		ret = rddp_mpa_zc_span(s, &f->span[i], &lent);
	if (ret) {
		rddp_mpa_zc_put(s, nr, s->tx_zv_nr);
		s->tx_zv_nr = nr;
		if (nr)
			s->tx_zv[nr - 1].bv_len = last_len;
		return ret;
	}
	if (lent) {
		s->tx_lent = true;
		rddp_stat_add(s->qp->rdev, RDDP_STAT_TX_ZCOPY_BYTES, lent);
	}
	s->tx_stage_len += f->len;
	s->tx_fpdu_sent = f->len;
	return 0;
}

/*
 * Write zero copy's stage's rest, in one call (@flags: MSG_*): the pages
 * TCP took whole lose our reference. Return: 0 when all of it is in the
 * socket, -EAGAIN when the socket is full, or its error.
 */
static int rddp_mpa_zc_unstage(struct rddp_stream *s, int flags)
{
	struct sock *sk = s->sock->sk;
	u32 done = s->tx_zv_done;
	int ret;

	if (done == s->tx_zv_nr)
		return 0;
	lock_sock(sk);
	ret = rddp_tcp_lend_bvecs_locked(sk, s->tx_zv + done,
					 s->tx_zv_nr - done, s->tx_zv_off,
					 flags | MSG_NOSIGNAL);
	release_sock(sk);
	if (ret < 0)
		return ret;
	s->tx_stage_sent += ret;
	ret += s->tx_zv_off;
	while (done < s->tx_zv_nr && ret >= s->tx_zv[done].bv_len) {
		ret -= s->tx_zv[done].bv_len;
		put_page(s->tx_zv[done].bv_page);
		done++;
	}
	s->tx_zv_done = done;
	s->tx_zv_off = ret;
	if (done < s->tx_zv_nr)
		return -EAGAIN;
	s->tx_zv_nr = 0;
	s->tx_zv_done = 0;
	s->tx_stage_len = 0;
	s->tx_stage_sent = 0;
	return 0;
}

/*
 * tx_copy_to (llp.h): where the next FPDU's payload lands when staged,
 * behind its ULPDU_Length and DDP header (RFC 5044 §4.1), so that TX's
 * copy out of the MR (qp_tx.c, rddp_tx_copy()) is the only one before
 * TCP's: staging finds it in place (zero copy's: in its copy page,
 * rddp_mpa_zc_copy_to()). Not with markers (they may fall inside the
 * payload, RFC 5044 §4.3) or tx_batch off (no stage), nor for an FPDU
 * the stage has no room for.
 */
static u8 *rddp_mpa_tx_copy_to(struct rddp_stream *s, u32 hdr_len, u32 len)
{
	u32 fpdu = round_up(RDDP_MPA_LEN_FIELD + hdr_len + len, 4) +
		   RDDP_MPA_CRC_LEN;

	if (s->p.markers_tx || !s->p.tx_batch)
		return NULL;
	if (s->p.tx_zcopy)
		return rddp_mpa_zc_copy_to(s, fpdu, RDDP_MPA_LEN_FIELD + hdr_len);
	if (fpdu > RDDP_TX_STAGE - s->tx_stage_len || !rddp_mpa_tx_stage_mem(s))
		return NULL;
	return s->tx_stage + s->tx_stage_len + RDDP_MPA_LEN_FIELD + hdr_len;
}

/* What the stage holds, written or not, and the copy page: at close. */
static void rddp_mpa_zc_release(struct rddp_stream *s)
{
	if (s->tx_zv)
		rddp_mpa_zc_put(s, s->tx_zv_done, s->tx_zv_nr);
	s->tx_zv_nr = 0;
	s->tx_zv_done = 0;
	s->tx_zv_off = 0;
	if (s->tx_zpage)
		put_page(s->tx_zpage);
	s->tx_zpage = NULL;
	if (s->tx_copy_page)
		put_page(s->tx_copy_page);
	s->tx_copy_page = NULL;
}

/*
 * Zero copy's write: the FPDU staged, and the stage written in one call
 * at the run's last FPDU (!@more), when the FPDU finds it full, or at
 * tx_push. An FPDU the stage cannot take (too long, no memory, tx_batch
 * off) goes alone once the stage is out.
 */
static int rddp_mpa_zc_write(struct rddp_stream *s, bool more, int flags)
{
	struct rddp_fpdu *f = s->tx_fpdu;
	int ret;

	if (!s->tx_fpdu_sent && s->p.tx_batch) {
		ret = rddp_mpa_zc_stage(s);
		if (ret == -ENOSPC && s->tx_stage_len) {
			ret = rddp_mpa_zc_unstage(s, flags | MSG_MORE);
			if (ret)
				return ret;
			rddp_mpa_zc_stage(s);
		}
	}
	if (s->tx_fpdu_sent == f->len)	/* staged */
		return more ? 0 : rddp_mpa_zc_unstage(s, flags);
	ret = rddp_mpa_zc_unstage(s, flags | MSG_MORE);
	if (ret)
		return ret;
	ret = rddp_tx_write_zc(s, s->tx_fpdu_sent, flags, more);
	if (ret < 0)
		return ret;
	s->tx_fpdu_sent += ret;
	return s->tx_fpdu_sent == f->len ? 0 : -EAGAIN;
}

/*
 * Write the stage's rest alone (@flags: MSG_*). Return: 0 when all of it
 * is in the socket, -EAGAIN when the socket is full, or its error.
 */
static int rddp_mpa_tx_unstage(struct rddp_stream *s, int flags)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | flags };
	struct kvec v;
	int ret;

	if (s->p.tx_zcopy)
		return rddp_mpa_zc_unstage(s, flags);
	if (s->tx_stage_len == s->tx_stage_sent)
		return 0;
	v.iov_base = s->tx_stage + s->tx_stage_sent;
	v.iov_len = s->tx_stage_len - s->tx_stage_sent;
	ret = kernel_sendmsg(s->sock, &msg, &v, 1, v.iov_len);
	if (ret < 0)
		return ret;
	rddp_mpa_tx_unstaged(s, ret);
	return s->tx_stage_len ? -EAGAIN : 0;
}

/*
 * Write what is left of the current FPDU, after the stage's rest and in
 * the same call when copying; with @more, stage it if it fits instead.
 * Returns 0 when all of it is in the socket or the stage, -EAGAIN when
 * the socket is full, or the socket's error.
 */
static int rddp_mpa_tx_write(struct rddp_stream *s, bool more, bool block)
{
	struct rddp_fpdu *f = s->tx_fpdu;
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	u32 skip = s->tx_fpdu_sent, i, n = 0;
	size_t len = 0;
	int ret;

	if (!block)
		msg.msg_flags |= MSG_DONTWAIT;
	more = more && s->p.tx_batch;
	if (s->p.tx_zcopy)
		return rddp_mpa_zc_write(s, more, msg.msg_flags);
	if (more && rddp_mpa_tx_stage(s))
		return 0;
	if (s->tx_stage_len) {
		s->tx_vec[0].iov_base = s->tx_stage + s->tx_stage_sent;
		s->tx_vec[0].iov_len = s->tx_stage_len - s->tx_stage_sent;
		len = s->tx_vec[0].iov_len;
		n = 1;
	}
	for (i = 0; i < f->nr_spans; i++) {
		const struct rddp_span *sp = &f->span[i];

		if (skip >= sp->len) {
			skip -= sp->len;
			continue;
		}
		s->tx_vec[n].iov_base = (void *)(sp->base + skip);
		s->tx_vec[n].iov_len = sp->len - skip;
		len += sp->len - skip;
		skip = 0;
		n++;
	}
	if (more)
		msg.msg_flags |= MSG_MORE;
	ret = kernel_sendmsg(s->sock, &msg, s->tx_vec, n, len);
	if (ret > 0)
		ret = rddp_mpa_tx_unstaged(s, ret);
	if (ret < 0)
		return ret;
	s->tx_fpdu_sent += ret;
	return s->tx_fpdu_sent == f->len ? 0 : -EAGAIN;
}

/*
 * Send what writes with MSG_MORE left in the socket or the stage: the
 * stage without MSG_MORE, which pushes the socket's queue; else the
 * TCP_CORK setsockopt's uncorking, which pushes it with Nagle off
 * (TCP_NODELAY is set at setup, cm_mpa.c); the kernel exports it, not
 * tcp_push_pending_frames(). Takes the socket lock.
 */
static int rddp_mpa_tx_push(struct rddp_stream *s)
{
	if (s->tx_stage_len)
		return rddp_mpa_tx_unstage(s, MSG_DONTWAIT);
	tcp_sock_set_cork(s->sock->sk, false);
	return 0;
}

static bool rddp_mpa_tx_writeable(struct rddp_stream *s)
{
	return sk_stream_is_writeable(s->sock->sk);
}

/*
 * The sequence the last octet written so far will end at: TCP's write_seq
 * (after the last octet in the socket) and what the stage holds unwritten.
 */
static u32 rddp_mpa_tx_mark(struct rddp_stream *s)
{
	return READ_ONCE(tcp_sk(s->sock->sk)->write_seq) +
	       (s->tx_stage_len - s->tx_stage_sent);
}

/* SOCK_NOSPACE is set before snd_una is read: an ACK after the read finds it. */
static u32 rddp_mpa_tx_acked(struct rddp_stream *s, bool watch)
{
	struct sock *sk = s->sock->sk;

	if (watch) {
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		/* Pairs with the smp_mb() in tcp_check_space(). */
		smp_mb__after_atomic();
	}
	return READ_ONCE(tcp_sk(sk)->snd_una);
}

/* ---- RX ---- */

/* tcp_read_sock() actor: feed the deframer from the skb, without copying. */
static int rddp_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	struct rddp_stream *s = desc->arg.data;
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;
	int ret = RDDP_MPA_OK;

	if (s->rx_stopped || atomic_read(&s->term_set))
		return len;	/* the stream is over: drop */
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		ret = rddp_mpa_rx_feed(&s->rx_mpa, data, n, s->up->rx, s);
		done += n;
		if (ret != RDDP_MPA_OK)
			break;
	}
	skb_abort_seq_read(&st);
	if (ret != RDDP_MPA_OK && ret != RDDP_MPA_ERR_ABORTED) {
		/* Framing, marker or CRC error (RFC 5044 §8) */
		pr_info_ratelimited("rddp: QP %u: %s at stream offset %u (ULPDU length %u)\n",
				    s->qp->base.qp_num, rddp_mpa_err_names[ret],
				    s->rx_mpa.pos, s->rx_mpa.ulpdu_len);
		rddp_sg_release(&s->rx_tsg);
		rddp_sg_release(&s->rx_sg);
		rddp_stat_inc(s->qp->rdev, ret == RDDP_MPA_ERR_CRC ?
					   RDDP_STAT_RX_CRC_ERRORS :
					   ret == RDDP_MPA_ERR_MARKER ?
					   RDDP_STAT_RX_MARKER_ERRORS :
					   RDDP_STAT_RX_FRAMING_ERRORS);
		s->up->error(s, rddp_mpa_rx_err(ret), NULL, 0, 0, NULL);
	} else if (ret == RDDP_MPA_OK && done != len) {
		/*
		 * skb_seq_read() stopped short: since 6.12 it does at frags the
		 * CPU cannot read (devmem TCP). The bytes are lost to the
		 * stream, whose framing no longer holds (RFC 5044 §8).
		 */
		pr_info_ratelimited("rddp: QP %u: %u of %zu stream octets unreadable\n",
				    s->qp->base.qp_num, (unsigned int)(len - done), len);
		s->up->error(s, RDDP_ERR_LLP_CATASTROPHIC, NULL, 0, 0, NULL);
	}
	return len;
}

/*
 * After a read: when the stream stopped inside an FPDU, record when that
 * FPDU was first seen incomplete and have the stall timer running
 * (stream.c, rddp_stream_stall_timer()). A pending timer is left alone, so
 * a busy stream arms it about once per bound, not once per segment.
 */
static void rddp_rx_watch(struct rddp_stream *s)
{
	bool in = rddp_mpa_rx_in_fpdu(&s->rx_mpa);
	u32 ms = s->p.peer_timeout_ms;

	if (!ms)
		return;
	if (in && (!s->rx_in_fpdu || s->rx_stall_fpdu != s->rx_fpdus)) {
		s->rx_stall_fpdu = s->rx_fpdus;
		WRITE_ONCE(s->rx_stall_since, jiffies);
		if (!timer_pending(&s->rx_stall_timer))
			mod_timer(&s->rx_stall_timer,
				  jiffies + msecs_to_jiffies(ms));
	}
	WRITE_ONCE(s->rx_in_fpdu, in);
}

/* Caller holds the socket lock and sk_callback_lock (read). */
static void rddp_rx_read(struct sock *sk, struct rddp_stream *s)
{
	read_descriptor_t desc = { .arg.data = s, .count = 1 };

	if (s->rx_stopped)
		return;
	tcp_read_sock(sk, &desc, rddp_rx_actor);
	s->up->rx_batch_end(s);
	rddp_rx_watch(s);
}

static void rddp_mpa_data_ready(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s) {
		rddp_rx_read(sk, s);
		/* The segment's ACK has been processed: zero-copy WQEs may be done. */
		if (READ_ONCE(s->sqw_acks))
			s->up->tx_reap(s);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void rddp_mpa_rx_drain(struct rddp_stream *s)
{
	struct sock *sk = s->sock->sk;

	lock_sock(sk);
	read_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == s)
		rddp_rx_read(sk, s);
	read_unlock_bh(&sk->sk_callback_lock);
	release_sock(sk);
}

/*
 * sk_write_space: TCP calls it on incoming ACKs while SOCK_NOSPACE is set,
 * which TCP sets when the send buffer fills and TX sets while zero-copy
 * WQEs wait for their ACK (qp_tx.c).
 */
static void rddp_mpa_write_space(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s) {
		if (READ_ONCE(s->sqw_acks))
			s->up->tx_reap(s);	/* sets SOCK_NOSPACE again if needed */
		else if (sk_stream_is_writeable(sk))
			clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		if (READ_ONCE(s->tx_wants_space) && sk_stream_is_writeable(sk)) {
			trace_rddp_tx_resume(s->qp, sk);
			WRITE_ONCE(s->tx_wants_space, false);
			s->up->tx_kick(s->qp);
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * sk_state_change: the peer closed or reset the connection, or TCP gave up
 * on it (ETIMEDOUT: the liveness bound, rddp_mpa_set_liveness()). All
 * end as a peer's close does: QP in ERROR, WQEs flushed, DISCONNECT; a
 * reset or TCP's giving up (the socket's error set) as an abort.
 */
static void rddp_mpa_state_change(struct sock *sk)
{
	struct rddp_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && sk->sk_state != TCP_ESTABLISHED) {
		int err = READ_ONCE(sk->sk_err);

		if (err == ETIMEDOUT)
			pr_info_ratelimited("rddp: QP %u: the peer did not answer for %u ms\n",
					    s->qp->base.qp_num,
					    s->p.peer_timeout_ms);
		rddp_conn_event(s->conn, err ? RDDP_CEP_EV_PEER_ABORTED :
				       RDDP_CEP_EV_PEER_CLOSED);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/* MULPDU from the connection's EMSS (RFC 5044 §4.5, §7.1.2). */
static u32 rddp_mpa_mulpdu_of(struct rddp_stream *s)
{
	u32 emss = tcp_sk(s->sock->sk)->mss_cache;
	u32 m = rddp_mpa_mulpdu(emss, s->p.markers_tx);

	return min_t(u32, m, RDDP_FPDU_MAX_ULPDU - 3);
}

/*
 * A peer that vanishes (no FIN, no RST) or stops reading must cost a
 * bounded time, not hold the QP and its MRs forever: RFC 5044 leaves
 * liveness to TCP, so ask TCP. TCP_USER_TIMEOUT ends the connection when
 * sent data stays unacknowledged for @ms, and when the peer's window stays
 * shut for @ms while we have data for it (tcp_probe_timer()); keepalive
 * ends an idle one: the first probe after half of @ms, then one every sixth
 * of it, and with TCP_USER_TIMEOUT set TCP gives up once @ms have passed
 * without a word from the peer (tcp_keepalive_timer(); the probe count
 * applies only without it). TCP then reports the error through
 * sk_state_change, and the stream ends as on a peer's close.
 */
static void rddp_mpa_set_liveness(struct sock *sk, u32 ms)
{
	int idle = max_t(int, ms / 2000, 1);
	int intvl = max_t(int, ms / 6000, 1);

	if (!ms)
		return;
	tcp_sock_set_user_timeout(sk, ms);
	sock_set_keepalive(sk);
	tcp_sock_set_keepidle(sk, idle);
	tcp_sock_set_keepintvl(sk, intvl);
	tcp_sock_set_keepcnt(sk, 3);
}

/* ---- start and stop ---- */

static const struct rddp_sk_hooks rddp_mpa_hooks = {
	.data_ready = rddp_mpa_data_ready,
	.write_space = rddp_mpa_write_space,
	.state_change = rddp_mpa_state_change,
};

static void rddp_mpa_start(struct rddp_stream *s)
{
	struct sock *sk = s->sock->sk;
	const struct rddp_stream_params *p = &s->p;

	rddp_mpa_set_liveness(sk, p->peer_timeout_ms);
	s->tx_mpa.crc = p->crc;
	s->tx_mpa.markers = p->markers_tx;
	s->tx_mpa.pos = 0;
	rddp_mpa_rx_init(&s->rx_mpa, p->markers_rx, p->crc,
			 RDDP_FPDU_MAX_ULPDU);
	s->mulpdu = rddp_mpa_mulpdu_of(s);

	rddp_sk_hooks_install(sk, s, &rddp_mpa_hooks, &s->saved_hooks);
}

static bool rddp_mpa_closed(struct rddp_stream *s)
{
	return s->sock->sk->sk_state != TCP_ESTABLISHED;
}

static void rddp_mpa_detach(struct rddp_stream *s)
{
	struct sock *sk = s->sock->sk;

	rddp_sk_hooks_remove(sk, &s->saved_hooks);
	/* RX runs under the socket lock: once we own it, RX is over. */
	lock_sock(sk);
	s->rx_stopped = true;
	release_sock(sk);
}

/*
 * Graceful: the socket reads on until the peer's FIN (tcp_linger.c), so that
 * what the peer sent before it saw ours draws no reset.
 */
static void rddp_mpa_close(struct rddp_stream *s, bool graceful)
{
	if (graceful) {
		/* what a run staged and could not write: once more, at no wait */
		rddp_mpa_tx_unstage(s, MSG_DONTWAIT);
		rddp_tcp_linger(s->sock);
	} else {
		rddp_sock_release(s->sock);
	}
	rddp_mpa_zc_release(s);
	s->sock = NULL;
}

const struct rddp_llp_ops rddp_llp_mpa = {
	.name = "mpa",
	.transport = RDDP_TRANSPORT_TCP,
	.mo_in_order = true,	/* TCP keeps the sender's order */
	.start = rddp_mpa_start,
	.rx_drain = rddp_mpa_rx_drain,
	.closed = rddp_mpa_closed,
	.detach = rddp_mpa_detach,
	.close = rddp_mpa_close,
	.tx_frame = rddp_mpa_tx_frame,
	.tx_copy_to = rddp_mpa_tx_copy_to,
	.tx_write = rddp_mpa_tx_write,
	.tx_push = rddp_mpa_tx_push,
	.tx_writeable = rddp_mpa_tx_writeable,
	.tx_mark = rddp_mpa_tx_mark,
	.tx_acked = rddp_mpa_tx_acked,
};
