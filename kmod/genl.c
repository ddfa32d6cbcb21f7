// SPDX-License-Identifier: GPL-2.0
/*
 * The "rddp" generic-netlink family (include/uapi/linux/rddp_netlink.h,
 * Documentation/netlink-api.md): device settings and counters, connected
 * QPs, and events on the "monitor" multicast group.
 *
 * The family hears what happens through rddp_notify() (rddp.h, base.c),
 * the observer it registers at init: it names no function of the code it
 * reports on, nor does that code name one of it.
 *
 * Device table: every registered rddp device is in rddp_devs, keyed by its
 * ib_device index, from RDDP_NOTIFY_DEV_ADDED (after registration) until
 * RDDP_NOTIFY_DEV_REMOVED (from dealloc_driver, before anything of the
 * device is freed). rddp_devs_lock (mutex) serialises the table and every request
 * that uses a device from it, so a device found under the lock stays whole
 * until it is dropped. Dumps resume by device index and QP number, so a
 * dump across devices and QPs that come and go returns each survivor once.
 *
 * Lock order: rddp_devs_lock -> qp->state_lock. Events are built and sent
 * with GFP_ATOMIC and take no lock of ours, so they can be raised from any
 * context (QP state changes under qp->state_lock and queue spinlocks, a
 * received Terminate in softirq).
 */
#include <linux/inet.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <uapi/linux/rddp_netlink.h>

#include "compat.h"
#include "queues.h"
#include "rddp.h"
#include "sctp_link.h"
#include "stream.h"

static DEFINE_MUTEX(rddp_devs_lock);
static DEFINE_XARRAY(rddp_devs);

static struct genl_family rddp_genl_family;
static void rddp_genl_dev_event(struct rddp_device *rdev, u8 type);

enum { RDDP_MCGRP_MONITOR };

static const struct genl_multicast_group rddp_mcgrps[] = {
	/*
	 * Events name peers' addresses: CAP_NET_ADMIN in the netns's user
	 * namespace only (genl_bind() checks the GENL_MCAST_* flags), the
	 * rule for the addresses in QP_GET too.
	 */
	[RDDP_MCGRP_MONITOR] = { .name = RDDP_GENL_MCGRP_MONITOR,
				 .flags = GENL_MCAST_CAP_NET_ADMIN },
};

/* not const: the 6.1 policy field is a plain pointer */
static struct netlink_range_validation rddp_peer_timeout_range = {
	.max = RDDP_PEER_TIMEOUT_MAX,
};

static const struct nla_policy rddp_set_policy[RDDP_A_SET_MAX + 1] = {
	[RDDP_A_SET_CRC] = NLA_POLICY_MAX(NLA_U8, 1),
	[RDDP_A_SET_MARKERS] = NLA_POLICY_MAX(NLA_U8, 1),
	[RDDP_A_SET_MPA_REV] = NLA_POLICY_RANGE(NLA_U8, 1, 2),
	[RDDP_A_SET_TX_BATCH] = NLA_POLICY_MAX(NLA_U8, 1),
	[RDDP_A_SET_TX_ZCOPY] = NLA_POLICY_MAX(NLA_U8, 1),
	/* 1-999 are refused too: rddp_dev_set_check() */
	[RDDP_A_SET_PEER_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rddp_peer_timeout_range),
	[RDDP_A_SET_TRANSPORT] = NLA_POLICY_MAX(NLA_U8, RDDP_TRANSPORT_MAX),
	[RDDP_A_SET_MULTIHOME] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* Requests carry a device name and, for DEV_SET, settings; nothing else. */
static const struct nla_policy rddp_policy[RDDP_A_MAX + 1] = {
	[RDDP_A_DEV_NAME] = { .type = NLA_NUL_STRING,
			      .len = IB_DEVICE_NAME_MAX - 1 },
	[RDDP_A_DEV_SETTINGS] = NLA_POLICY_NESTED(rddp_set_policy),
};

/* ---- the device table ---- */

/* The network namespace the RDMA core puts @rdev in (events go there). */
static struct net *rddp_dev_net(struct rddp_device *rdev)
{
	return read_pnet(&rdev->ibdev.coredev.rdma_net);
}

static void rddp_genl_dev_add(struct rddp_device *rdev)
{
	mutex_lock(&rddp_devs_lock);
	rdev->listed = !xa_insert(&rddp_devs, rdev->ibdev.index, rdev,
				  GFP_KERNEL);
	mutex_unlock(&rddp_devs_lock);
	if (!rdev->listed)
		dev_warn(&rdev->ibdev.dev, "not visible to rddpctl (no memory)\n");
	rddp_genl_dev_event(rdev, RDDP_EVENT_DEV_ADDED);
}

static void rddp_genl_dev_del(struct rddp_device *rdev)
{
	rddp_genl_dev_event(rdev, RDDP_EVENT_DEV_REMOVED);
	mutex_lock(&rddp_devs_lock);
	if (rdev->listed)
		xa_erase(&rddp_devs, rdev->ibdev.index);
	rdev->listed = false;
	mutex_unlock(&rddp_devs_lock);
}

/* The device named by the request, if the caller's netns may see it. */
static struct rddp_device *rddp_genl_dev(struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct rddp_device *rdev;
	unsigned long idx;
	const char *name;

	lockdep_assert_held(&rddp_devs_lock);
	if (!info->attrs[RDDP_A_DEV_NAME]) {
		GENL_SET_ERR_MSG(info, "device name (RDDP_A_DEV_NAME) required");
		return ERR_PTR(-EINVAL);
	}
	name = nla_data(info->attrs[RDDP_A_DEV_NAME]);
	xa_for_each(&rddp_devs, idx, rdev)
		if (!strcmp(dev_name(&rdev->ibdev.dev), name) &&
		    rdma_dev_access_netns(&rdev->ibdev, net))
			return rdev;
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RDDP_A_DEV_NAME],
			    "no such rddp device");
	return ERR_PTR(-ENODEV);
}

/*
 * Who may change a device (issue 26, item 1). GENL_UNS_ADMIN_PERM on the
 * commands only checks CAP_NET_ADMIN over the *caller's* network
 * namespace, which any user owns after `unshare -Urn`; in the RDMA core's
 * default shared mode that caller still sees every device
 * (rdma_dev_access_netns()). A device's settings act on every later
 * connection in the device's namespace, kernel ULPs' included, so the
 * capability must be held over that namespace: its owning user namespace,
 * checked for the socket's opener and the sender (netlink_ns_capable()),
 * after the lookup and under rddp_devs_lock, so the device cannot move
 * between check and change.
 */
static int rddp_genl_may_change(struct sk_buff *skb, struct genl_info *info,
				struct rddp_device *rdev)
{
	if (netlink_ns_capable(skb, rddp_dev_net(rdev)->user_ns,
			       CAP_NET_ADMIN))
		return 0;
	GENL_SET_ERR_MSG(info,
			 "changing a device needs CAP_NET_ADMIN over its network namespace");
	return -EPERM;
}

/* ---- DEV_GET ---- */

static int rddp_put_settings(struct sk_buff *skb,
			     const struct rddp_settings *s)
{
	struct nlattr *nest = nla_nest_start(skb, RDDP_A_DEV_SETTINGS);

	if (!nest ||
	    nla_put_u8(skb, RDDP_A_SET_CRC, s->crc) ||
	    nla_put_u8(skb, RDDP_A_SET_MARKERS, s->markers) ||
	    nla_put_u8(skb, RDDP_A_SET_MPA_REV, s->mpa_rev) ||
	    nla_put_u8(skb, RDDP_A_SET_TX_BATCH, s->tx_batch) ||
	    nla_put_u8(skb, RDDP_A_SET_TX_ZCOPY, s->tx_zcopy) ||
	    nla_put_u32(skb, RDDP_A_SET_PEER_TIMEOUT_MS, s->peer_timeout_ms) ||
	    nla_put_u8(skb, RDDP_A_SET_TRANSPORT, s->transport) ||
	    nla_put_u8(skb, RDDP_A_SET_MULTIHOME, s->multihome))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int rddp_put_stats(struct sk_buff *skb, struct rddp_device *rdev)
{
	struct nlattr *nest = nla_nest_start(skb, RDDP_A_DEV_STATS);
	int i;

	BUILD_BUG_ON(RDDP_A_STAT_MAX - RDDP_A_STAT_TX_FPDUS + 1 !=
		     RDDP_STAT_NUM);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < RDDP_STAT_NUM; i++)
		if (nla_put_u64_64bit(skb, RDDP_A_STAT_TX_FPDUS + i,
				      rddp_stat_read(rdev, i),
				      RDDP_A_STAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int rddp_fill_dev(struct sk_buff *skb, struct rddp_device *rdev,
			 u32 portid, u32 seq, int flags)
{
	struct rddp_settings set;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rddp_genl_family, flags,
			  RDDP_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	rddp_settings_get(rdev, &set);
	if (nla_put_string(skb, RDDP_A_DEV_NAME, dev_name(&rdev->ibdev.dev)) ||
	    nla_put_u32(skb, RDDP_A_DEV_INDEX, rdev->ibdev.index) ||
	    nla_put_string(skb, RDDP_A_DEV_NETDEV, rdev->netdev->name) ||
	    nla_put_u32(skb, RDDP_A_DEV_NETDEV_INDEX, rdev->netdev->ifindex) ||
	    nla_put_u8(skb, RDDP_A_DEV_PORT_STATE,
		       rddp_port_state(rdev->netdev)) ||
	    nla_put_u32(skb, RDDP_A_DEV_QPS, atomic_read(&rdev->num_qp)) ||
	    rddp_put_settings(skb, &set) || rddp_put_stats(skb, rdev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int rddp_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rddp_device *rdev;
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rddp_devs_lock);
	rdev = rddp_genl_dev(info);
	ret = IS_ERR(rdev) ? PTR_ERR(rdev) :
			     rddp_fill_dev(msg, rdev, info->snd_portid,
					   info->snd_seq, 0);
	mutex_unlock(&rddp_devs_lock);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the next device index to report. */
static int rddp_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	unsigned long idx = cb->args[0];
	struct rddp_device *rdev;
	int ret = 0;

	mutex_lock(&rddp_devs_lock);
	xa_for_each_start(&rddp_devs, idx, rdev, idx) {
		if (!rdma_dev_access_netns(&rdev->ibdev, net))
			continue;
		ret = rddp_fill_dev(skb, rdev, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		cb->args[0] = idx + 1;
	}
	mutex_unlock(&rddp_devs_lock);
	/* A device too big for an empty message would never fit. */
	return ret && !skb->len ? ret : skb->len;
}

/* ---- DEV_SET, STATS_RESET ---- */

/* What the policy cannot say: a liveness bound is 0 or at least 1 s. */
static int rddp_dev_set_check(struct nlattr **tb, struct genl_info *info)
{
	struct nlattr *a = tb[RDDP_A_SET_PEER_TIMEOUT_MS];

	if (a && !rddp_peer_timeout_valid(nla_get_u32(a))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "peer timeout must be 0 (off) or 1000-3600000 ms");
		return -EINVAL;
	}
	return 0;
}

/* Caller holds rdev->settings_lock. */
static void rddp_settings_apply(struct rddp_settings *s, struct nlattr **tb)
{
	if (tb[RDDP_A_SET_CRC])
		s->crc = nla_get_u8(tb[RDDP_A_SET_CRC]);
	if (tb[RDDP_A_SET_MARKERS])
		s->markers = nla_get_u8(tb[RDDP_A_SET_MARKERS]);
	if (tb[RDDP_A_SET_MPA_REV])
		s->mpa_rev = nla_get_u8(tb[RDDP_A_SET_MPA_REV]);
	if (tb[RDDP_A_SET_TX_BATCH])
		s->tx_batch = nla_get_u8(tb[RDDP_A_SET_TX_BATCH]);
	if (tb[RDDP_A_SET_TX_ZCOPY])
		s->tx_zcopy = nla_get_u8(tb[RDDP_A_SET_TX_ZCOPY]);
	if (tb[RDDP_A_SET_PEER_TIMEOUT_MS])
		s->peer_timeout_ms = nla_get_u32(tb[RDDP_A_SET_PEER_TIMEOUT_MS]);
	if (tb[RDDP_A_SET_TRANSPORT])
		s->transport = nla_get_u8(tb[RDDP_A_SET_TRANSPORT]);
	if (tb[RDDP_A_SET_MULTIHOME])
		s->multihome = nla_get_u8(tb[RDDP_A_SET_MULTIHOME]);
}

static int rddp_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RDDP_A_SET_MAX + 1];
	struct nlattr *nest = info->attrs[RDDP_A_DEV_SETTINGS];
	struct rddp_device *rdev;
	int ret;

	if (!nest) {
		GENL_SET_ERR_MSG(info, "settings (RDDP_A_DEV_SETTINGS) required");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, RDDP_A_SET_MAX, nest, rddp_set_policy,
			       info->extack);
	if (!ret)
		ret = rddp_dev_set_check(tb, info);
	if (ret)
		return ret;
	mutex_lock(&rddp_devs_lock);
	rdev = rddp_genl_dev(info);
	ret = IS_ERR(rdev) ? PTR_ERR(rdev) :
			     rddp_genl_may_change(skb, info, rdev);
	if (!ret) {
		/* New endpoints copy the whole struct under the lock. */
		spin_lock_bh(&rdev->settings_lock);
		rddp_settings_apply(&rdev->settings, tb);
		spin_unlock_bh(&rdev->settings_lock);
	}
	mutex_unlock(&rddp_devs_lock);
	return ret;
}

static int rddp_stats_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rddp_device *rdev;
	int ret;

	mutex_lock(&rddp_devs_lock);
	rdev = rddp_genl_dev(info);
	ret = IS_ERR(rdev) ? PTR_ERR(rdev) :
			     rddp_genl_may_change(skb, info, rdev);
	if (!ret)
		rddp_stats_reset(rdev);
	mutex_unlock(&rddp_devs_lock);
	return ret;
}

/* ---- QP_GET ---- */

/*
 * Who sees what in a QP_GET dump (issue 11), after the RDMA core's rules
 * for `rdma resource show` in nldev.c:
 *
 * - Every QP of every device the reader's network namespace may access
 *   (rdma_dev_access_netns()), whoever made it. The core filters restrack
 *   entries by net namespace only: it dropped its PID namespace filter
 *   (rdma_is_visible_in_pid_ns(), gone in 2019, "RDMA/restrack: Remove PID
 *   namespace support"): a QP can outlive the task that created it, and
 *   then vanished from every listing. QP_GET reports no PID, the one thing
 *   the core still shows per PID namespace (task_pid_vnr()).
 * - The peer's and our own address and port (RDDP_A_QP_LOCAL_ADDR,
 *   RDDP_A_QP_REMOTE_ADDR) only to a reader with CAP_NET_ADMIN in the user
 *   namespace owning the device's network namespace; others get the QP
 *   without them. The core gates what it deems sensitive on
 *   netlink_capable(CAP_NET_ADMIN) at the request (has_cap_net_admin); for
 *   rddp that is who talks to whom, and the capability is the one the
 *   monitor group asks for events that name peers, in the same namespace
 *   the events go to. The rest (state, MPA parameters, counters, errors,
 *   Terminates) is open, like QP state, PSNs and counters in the core.
 */

/**
 * rddp_genl_sees_peers() - may a request's sender see @rdev's addresses?
 * @skb: the request (cb->skb in a dump)
 * @rdev: the device whose QPs are reported
 *
 * Return: true if the socket's opener and the sender have CAP_NET_ADMIN in
 * the user namespace owning @rdev's network namespace.
 */
static bool rddp_genl_sees_peers(const struct sk_buff *skb,
				 struct rddp_device *rdev)
{
	return netlink_ns_capable(skb, rddp_dev_net(rdev)->user_ns,
				  CAP_NET_ADMIN);
}

static int rddp_put_addr(struct sk_buff *skb, int type,
			 const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return nla_put(skb, type, sizeof(struct sockaddr_in), a);
	if (a->ss_family == AF_INET6)
		return nla_put(skb, type, sizeof(struct sockaddr_in6), a);
	return 0;
}

static int rddp_put_term(struct sk_buff *skb, int type,
			 const struct rddp_term_info *t)
{
	struct nlattr *nest;

	if (!t->valid)
		return 0;
	nest = nla_nest_start(skb, type);
	if (!nest ||
	    nla_put_u8(skb, RDDP_A_TERM_LAYER, t->layer) ||
	    nla_put_u8(skb, RDDP_A_TERM_ETYPE, t->etype) ||
	    nla_put_u8(skb, RDDP_A_TERM_ECODE, t->ecode))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

u8 rddp_rtr_uapi(u8 rtr)
{
	switch (rtr) {
	case RDDP_MPA_RTR_WRITE:
		return RDDP_RTR_WRITE;
	case RDDP_MPA_RTR_READ:
		return RDDP_RTR_READ;
	case RDDP_MPA_RTR_SEND:
		return RDDP_RTR_SEND;
	default:
		return RDDP_RTR_NONE;
	}
}

u8 rddp_stream_transport(const struct rddp_stream *s)
{
	return s->llp->transport;
}

bool rddp_stream_ssns(const struct rddp_stream *s, u16 *tx, u16 *rx)
{
	const struct rddp_sctp_link *l = s->sctp;

	lockdep_assert_held(&s->qp->state_lock);
	/* The LLP's close frees the link under state_lock: gone, or whole. */
	if (!l)
		return false;
	/* TX and RX move them without the lock: one read each. */
	*tx = READ_ONCE(l->tx_ssn);
	*rx = READ_ONCE(l->rx.next);
	return true;
}

/* The stream's transport and, over SCTP, its next DDP-SSN each way. */
static int rddp_put_transport(struct sk_buff *skb, struct rddp_stream *s)
{
	u16 tx, rx;

	if (nla_put_u8(skb, RDDP_A_QP_TRANSPORT, rddp_stream_transport(s)))
		return -EMSGSIZE;
	if (rddp_stream_ssns(s, &tx, &rx) &&
	    (nla_put_u16(skb, RDDP_A_QP_TX_SSN, tx) ||
	     nla_put_u16(skb, RDDP_A_QP_RX_SSN, rx)))
		return -EMSGSIZE;
	return 0;
}

/*
 * The stream's fields, its addresses only if @peers; caller holds
 * qp->state_lock (stream is stable).
 */
static int rddp_put_stream(struct sk_buff *skb, struct rddp_stream *s,
			   bool peers)
{
	const struct rddp_stream_params *p = &s->p;
	enum rddp_err err = atomic_read(&s->term_set) ? s->term_err :
							RDDP_ERR_NONE;

	if (nla_put_flag(skb, RDDP_A_QP_CONNECTED) ||
	    rddp_put_transport(skb, s))
		return -EMSGSIZE;
	if (peers &&
	    (rddp_put_addr(skb, RDDP_A_QP_LOCAL_ADDR, &s->laddr) ||
	     rddp_put_addr(skb, RDDP_A_QP_REMOTE_ADDR, &s->raddr)))
		return -EMSGSIZE;
	if (nla_put_u8(skb, RDDP_A_QP_MPA_REV, p->mpa_rev) ||
	    nla_put_u8(skb, RDDP_A_QP_CRC, p->crc) ||
	    nla_put_u8(skb, RDDP_A_QP_MARKERS_TX, p->markers_tx) ||
	    nla_put_u8(skb, RDDP_A_QP_MARKERS_RX, p->markers_rx) ||
	    nla_put_u16(skb, RDDP_A_QP_IRD, p->ird) ||
	    nla_put_u16(skb, RDDP_A_QP_ORD, p->ord) ||
	    nla_put_u8(skb, RDDP_A_QP_RTR, rddp_rtr_uapi(p->rtr)) ||
	    nla_put_u32(skb, RDDP_A_QP_MULPDU, READ_ONCE(s->mulpdu)) ||
	    nla_put_u64_64bit(skb, RDDP_A_QP_TX_FPDUS, READ_ONCE(s->tx_fpdus),
			      RDDP_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, RDDP_A_QP_TX_BYTES, READ_ONCE(s->tx_bytes),
			      RDDP_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, RDDP_A_QP_RX_FPDUS, READ_ONCE(s->rx_fpdus),
			      RDDP_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, RDDP_A_QP_RX_BYTES, READ_ONCE(s->rx_bytes),
			      RDDP_A_QP_PAD))
		return -EMSGSIZE;
	if (err != RDDP_ERR_NONE &&
	    nla_put_string(skb, RDDP_A_QP_ERROR, rddp_errors[err].name))
		return -EMSGSIZE;
	if (s->peer_terminated && !err &&
	    nla_put_string(skb, RDDP_A_QP_ERROR, "terminated by the peer"))
		return -EMSGSIZE;
	if (rddp_put_term(skb, RDDP_A_QP_TERM_TX, &s->term_tx) ||
	    rddp_put_term(skb, RDDP_A_QP_TERM_RX, &s->term_rx))
		return -EMSGSIZE;
	return 0;
}

/* One QP's message of a dump; its addresses only if @peers. */
static int rddp_fill_qp(struct sk_buff *skb, struct netlink_callback *cb,
			struct rddp_qp *qp, bool peers)
{
	struct nlattr *nest;
	void *hdr;
	int ret = -EMSGSIZE;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rddp_genl_family, NLM_F_MULTI, RDDP_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, RDDP_A_QP);
	if (!nest)
		goto cancel;
	mutex_lock(&qp->state_lock);
	if (nla_put_string(skb, RDDP_A_QP_DEV_NAME,
			   dev_name(&qp->rdev->ibdev.dev)) ||
	    nla_put_u32(skb, RDDP_A_QP_NUM, qp->base.qp_num) ||
	    nla_put_u8(skb, RDDP_A_QP_STATE, qp->state) ||
	    (qp->stream && rddp_put_stream(skb, qp->stream, peers))) {
		mutex_unlock(&qp->state_lock);
		goto cancel;
	}
	mutex_unlock(&qp->state_lock);
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return ret;
}

/*
 * @rdev's QPs from QPN cb->args[1] on, which follows them. Return: 0 when
 * all fit, -EMSGSIZE when @skb is full.
 */
static int rddp_qp_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			    struct rddp_device *rdev)
{
	bool peers = rddp_genl_sees_peers(cb->skb, rdev);
	unsigned long qpn;
	struct rddp_qp *qp;
	int ret;

	for (qpn = cb->args[1];; qpn++) {
		rcu_read_lock();
		qp = xa_find(&rdev->qp_xa, &qpn, ULONG_MAX, XA_PRESENT);
		if (qp && !refcount_inc_not_zero(&qp->ref))
			qp = ERR_PTR(-ENOENT);	/* being destroyed */
		rcu_read_unlock();
		if (!qp)
			return 0;
		if (IS_ERR(qp))
			continue;
		ret = rddp_fill_qp(skb, cb, qp, peers);
		rddp_qp_put(qp);
		if (ret)
			return ret;
		cb->args[1] = qpn + 1;
	}
}

/*
 * cb->args[0]: device index, cb->args[1]: next QPN on it. With
 * RDDP_A_DEV_NAME only that device's QPs. Who sees what: above.
 */
static int rddp_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *name_attr = rddp_genl_dump_attrs(cb)[RDDP_A_DEV_NAME];
	struct net *net = sock_net(cb->skb->sk);
	unsigned long didx = cb->args[0];
	struct rddp_device *rdev;
	int ret = 0;

	mutex_lock(&rddp_devs_lock);
	xa_for_each_start(&rddp_devs, didx, rdev, didx) {
		if (!rdma_dev_access_netns(&rdev->ibdev, net))
			continue;
		if (name_attr && strcmp(dev_name(&rdev->ibdev.dev),
					nla_data(name_attr)))
			continue;
		if (didx != cb->args[0]) {
			cb->args[0] = didx;
			cb->args[1] = 0;
		}
		ret = rddp_qp_dump_dev(skb, cb, rdev);
		if (ret)
			break;
		cb->args[0] = didx + 1;
		cb->args[1] = 0;
	}
	mutex_unlock(&rddp_devs_lock);
	return ret && !skb->len ? ret : skb->len;
}

static const struct genl_small_ops rddp_genl_ops[] = {
	{
		.cmd = RDDP_CMD_DEV_GET,
		.doit = rddp_dev_get_doit,
		.dumpit = rddp_dev_get_dumpit,
	},
	{
		/*
		 * The caller's netns first (genl core), then the device's
		 * (rddp_genl_may_change()).
		 */
		.cmd = RDDP_CMD_DEV_SET,
		.doit = rddp_dev_set_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		/*
		 * Open to all; addresses only with CAP_NET_ADMIN over the
		 * device's netns (see "Who sees what" above).
		 */
		.cmd = RDDP_CMD_QP_GET,
		.dumpit = rddp_qp_get_dumpit,
	},
	{
		.cmd = RDDP_CMD_STATS_RESET,
		.doit = rddp_stats_reset_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static struct genl_family rddp_genl_family = {
	.name = RDDP_GENL_NAME,
	.version = RDDP_GENL_VERSION,
	.maxattr = RDDP_A_MAX,
	.policy = rddp_policy,
	.netnsok = true,
	/* every command validates strictly: no legacy commands exist */
	.resv_start_op = RDDP_CMD_DEV_GET,
	.module = THIS_MODULE,
	.small_ops = rddp_genl_ops,
	.n_small_ops = ARRAY_SIZE(rddp_genl_ops),
	.mcgrps = rddp_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rddp_mcgrps),
};

/* ---- events ---- */

/*
 * Start an event message, or NULL when nobody listens in the device's
 * netns or memory is short (events are best effort, like rtnetlink's).
 */
static struct sk_buff *rddp_event_start(struct rddp_device *rdev, u8 type,
					struct nlattr **nest, void **hdr)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&rddp_genl_family, rddp_dev_net(rdev),
				RDDP_MCGRP_MONITOR))
		return NULL;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &rddp_genl_family, 0, RDDP_CMD_EVENT);
	if (!*hdr)
		goto fail;
	*nest = nla_nest_start(skb, RDDP_A_EVENT);
	if (!*nest ||
	    nla_put_u8(skb, RDDP_A_EVENT_TYPE, type) ||
	    nla_put_string(skb, RDDP_A_EVENT_DEV_NAME,
			   dev_name(&rdev->ibdev.dev)))
		goto fail;
	return skb;
fail:
	nlmsg_free(skb);
	return NULL;
}

static void rddp_event_send(struct rddp_device *rdev, struct sk_buff *skb,
			    struct nlattr *nest, void *hdr)
{
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&rddp_genl_family, rddp_dev_net(rdev), skb, 0,
				RDDP_MCGRP_MONITOR, GFP_ATOMIC);
}

static void rddp_genl_qp_state(const struct rddp_notify *n)
{
	struct nlattr *nest;
	struct sk_buff *skb;
	void *hdr;

	skb = rddp_event_start(n->rdev, RDDP_EVENT_QP_STATE, &nest, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, RDDP_A_EVENT_QP_NUM, n->qpn) ||
	    nla_put_u8(skb, RDDP_A_EVENT_QP_STATE, n->qp_state)) {
		nlmsg_free(skb);
		return;
	}
	rddp_event_send(n->rdev, skb, nest, hdr);
}

static void rddp_genl_term(const struct rddp_notify *n)
{
	struct nlattr *nest;
	struct sk_buff *skb;
	void *hdr;

	skb = rddp_event_start(n->rdev, n->term_sent ? RDDP_EVENT_TERM_TX :
						       RDDP_EVENT_TERM_RX,
			       &nest, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, RDDP_A_EVENT_QP_NUM, n->qpn) ||
	    rddp_put_term(skb, RDDP_A_EVENT_TERM, n->term)) {
		nlmsg_free(skb);
		return;
	}
	rddp_event_send(n->rdev, skb, nest, hdr);
}

static void rddp_genl_conn_failed(const struct rddp_notify *n)
{
	struct nlattr *nest;
	struct sk_buff *skb;
	void *hdr;

	skb = rddp_event_start(n->rdev, RDDP_EVENT_CONN_FAILED, &nest, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, RDDP_A_EVENT_ERRNO, -n->err) ||
	    (n->remote &&
	     rddp_put_addr(skb, RDDP_A_EVENT_REMOTE_ADDR, n->remote))) {
		nlmsg_free(skb);
		return;
	}
	rddp_event_send(n->rdev, skb, nest, hdr);
}

static void rddp_genl_dev_event(struct rddp_device *rdev, u8 type)
{
	struct nlattr *nest;
	struct sk_buff *skb;
	void *hdr;

	skb = rddp_event_start(rdev, type, &nest, &hdr);
	if (skb)
		rddp_event_send(rdev, skb, nest, hdr);
}

/* The observer of rddp_notify() (rddp.h): one entry for every event. */
static void rddp_genl_notify(const struct rddp_notify *n)
{
	switch (n->type) {
	case RDDP_NOTIFY_DEV_ADDED:
		rddp_genl_dev_add(n->rdev);
		break;
	case RDDP_NOTIFY_DEV_REMOVED:
		rddp_genl_dev_del(n->rdev);
		break;
	case RDDP_NOTIFY_QP_STATE:
		rddp_genl_qp_state(n);
		break;
	case RDDP_NOTIFY_TERM:
		rddp_genl_term(n);
		break;
	case RDDP_NOTIFY_CONN_FAILED:
		rddp_genl_conn_failed(n);
		break;
	}
}

int rddp_genl_init(void)
{
	int ret = genl_register_family(&rddp_genl_family);

	if (!ret)
		rddp_notify_register(rddp_genl_notify);
	return ret;
}

void rddp_genl_exit(void)
{
	rddp_notify_register(NULL);
	genl_unregister_family(&rddp_genl_family);
}
