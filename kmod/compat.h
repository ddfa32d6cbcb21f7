/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the kernels rddp supports, Linux 6.1
 * and 6.12 (Documentation/architecture.md, "Supported kernels"), in one
 * place. Each entry is named by the API difference it covers, and the code
 * calls the entry. Which side of a difference a kernel is on comes from
 * the RDDP_HAVE_* probes of kmod/Kbuild, which read the headers of the
 * kernel being built for, not from its version number: a distribution
 * kernel with a change backported is taken as it is. The release a
 * comment names is the upstream one that made the change.
 */
#ifndef RDDP_COMPAT_H
#define RDDP_COMPAT_H

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <net/genetlink.h>
#include <net/tcp.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* 6.12 moved asm/unaligned.h to linux/unaligned.h. */
#ifdef RDDP_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * ib_device_ops.create_cq's last argument is the uverbs attribute bundle
 * by 6.12, whose driver_udata is the udata it was in 6.1; the core passes
 * no bundle for a kernel CQ. rddp_create_cq() takes a struct
 * rddp_cq_create_arg and reads its udata with rddp_cq_create_udata().
 */
#ifdef RDDP_HAVE_CREATE_CQ_ATTRS
#define rddp_cq_create_arg uverbs_attr_bundle
static inline struct ib_udata *
rddp_cq_create_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define rddp_cq_create_arg ib_udata
static inline struct ib_udata *rddp_cq_create_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * 6.11 records whether the user chose a device's name, and reports it in
 * RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE; rdma-core's udev rule (rdma_rename)
 * renames no device marked so. 6.1 has no such record: its udev rule
 * renames by the rule's policy whoever named the device.
 */
#ifdef RDDP_HAVE_NAME_ASSIGN_TYPE
static inline void rddp_mark_name_assigned_by_user(struct ib_device *ibdev)
{
	ib_mark_name_assigned_by_user(ibdev);
}
#else
static inline void rddp_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

/*
 * 6.2 made a dump's parsed attributes part of a struct genl_info inside
 * struct genl_dumpit_info.
 */
#ifdef RDDP_HAVE_GENL_DUMPIT_INFO_INFO
#define rddp_genl_dump_attrs(cb) (genl_dumpit_info(cb)->info.attrs)
#else
#define rddp_genl_dump_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

/*
 * 6.10: __assign_str() takes the event's field alone and copies the
 * source its __string() named.
 */
#ifdef RDDP_HAVE_ASSIGN_STR_FIELD_ONLY
#define rddp_assign_str(field, src) __assign_str(field)
#else
#define rddp_assign_str(field, src) __assign_str(field, src)
#endif

/**
 * rddp_tcp_lend_bvecs_locked() - hand the pages of @bv to TCP by reference,
 *	in one batch
 * @sk: a TCP socket, locked by the caller
 * @bv: the pages (each entry within one page); TCP holds a reference on
 *	each page until its bytes are acknowledged, and their contents must
 *	not change until then
 * @nr: entries in @bv
 * @skip: bytes of @bv already written
 * @flags: MSG_* flags; MSG_MORE: more bytes of this message follow
 *
 * 6.1's kernel_sendpage_locked() (MSG_SENDPAGE_NOTLAST: more pages follow)
 * is gone since 6.5: tcp_sendmsg_locked() splices pages from a bio_vec
 * with MSG_SPLICE_PAGES, and copies them on a route that cannot gather.
 * There one call takes them all and pushes once, at its end; 6.1 takes a
 * kernel_sendpage_locked() per page, MSG_SENDPAGE_NOTLAST on all but the
 * last keeping TCP from pushing before it, so TCP still transmits the
 * batch once. One page is a batch of one.
 *
 * Return: the bytes TCP took (fewer when the socket filled), or a negative
 * errno if none.
 */
static inline int rddp_tcp_lend_bvecs_locked(struct sock *sk,
					     const struct bio_vec *bv,
					     unsigned int nr, size_t skip,
					     int flags)
{
#ifdef RDDP_HAVE_KERNEL_SENDPAGE_LOCKED
	unsigned int i;
	int sent = 0, ret = 0, fl;

	for (i = 0; i < nr; i++) {
		size_t len = bv[i].bv_len - skip;

		if (skip >= bv[i].bv_len) {
			skip -= bv[i].bv_len;
			continue;
		}
		fl = flags;
		if (i + 1 < nr)
			fl |= MSG_MORE;
		if (fl & MSG_MORE)
			fl |= MSG_SENDPAGE_NOTLAST;
		ret = kernel_sendpage_locked(sk, bv[i].bv_page,
					     bv[i].bv_offset + skip, len, fl);
		skip = 0;
		if (ret <= 0)
			break;
		sent += ret;
		if ((size_t)ret < len)
			break;	/* the socket is full */
	}
	return sent ? sent : ret;
#else
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		len += bv[i].bv_len;
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, nr, len);
	iov_iter_advance(&msg.msg_iter, skip);
	return tcp_sendmsg_locked(sk, &msg, len - skip);
#endif
}

/**
 * rddp_sk_hold_net() - give a kernel socket the namespace reference a user
 *	socket holds, so that TCP keeps its timers once it is an orphan
 * @sk: a kernel socket (sk_alloc() with kern = 1) that rddp is releasing
 *
 * 6.1's kernel sockets hold nothing on their namespace: the reference is
 * taken and flagged by hand. Since 6.12's stable releases they hold a
 * passive reference, which __sk_destruct() drops only for a socket without
 * sk_net_refcnt: flagging it by hand would leak it and with it the
 * namespace, so sk_net_refcnt_upgrade() trades it for a full one. A
 * namespace already being dismantled (maybe_get_net() fails) gives none.
 *
 * Return: true if @sk holds a reference on its namespace now.
 */
static inline bool rddp_sk_hold_net(struct sock *sk)
{
	struct net *net = sock_net(sk);

	if (sk->sk_net_refcnt || !maybe_get_net(net))
		return false;
#ifdef RDDP_HAVE_SK_NET_REFCNT_UPGRADE
	sk_net_refcnt_upgrade(sk);
	put_net(net);
#else
	netns_tracker_alloc(net, &sk->ns_tracker, GFP_KERNEL);
	sk->sk_net_refcnt = 1;
	sock_inuse_add(net, 1);
#endif
	return true;
}

#endif /* RDDP_COMPAT_H */
