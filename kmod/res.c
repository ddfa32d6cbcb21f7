// SPDX-License-Identifier: GPL-2.0
/*
 * Driver details in `rdma -dd resource show qp|cm_id`: the transport and
 * stream a connected QP runs (MPA: RFC 5044 §7.1, RFC 6581; SCTP: its
 * DDP-SSNs, draft-ietf-rddp-sctp-00 §2.2.1) and its traffic; a cm_id
 * shows its QP's, found by the connection's addresses. The RDMA
 * core holds a restrack reference on the object while it asks, and calls
 * us in process context, so the QP's state_lock keeps its stream stable.
 */
#include <net/ipv6.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <uapi/linux/rddp_netlink.h>

#include "queues.h"
#include "rddp.h"
#include "stream.h"

/* The names rddpctl shows for the same values (enum rddp_rtr). */
static const char *const rddp_rtr_names[] = {
	[RDDP_RTR_NONE] = "none",
	[RDDP_RTR_WRITE] = "write",
	[RDDP_RTR_READ] = "read",
	[RDDP_RTR_SEND] = "send",
};

/* The stream's transport and, over SCTP, its next DDP-SSN each way. */
static int rddp_res_transport(struct sk_buff *msg, struct rddp_stream *s)
{
	bool sctp = rddp_stream_transport(s) == RDDP_TRANSPORT_SCTP;
	u16 tx, rx;

	if (rdma_nl_put_driver_string(msg, "transport", sctp ? "sctp" : "tcp"))
		return -EMSGSIZE;
	if (rddp_stream_ssns(s, &tx, &rx) &&
	    (rdma_nl_put_driver_u32(msg, "tx_ssn", tx) ||
	     rdma_nl_put_driver_u32(msg, "rx_ssn", rx)))
		return -EMSGSIZE;
	return 0;
}

/*
 * The MPA parameters (RFC 5044 §7.1, RFC 6581): only over TCP, since DDP
 * over SCTP has no MPA layer (draft-ietf-rddp-sctp-00 §2.2).
 */
static int rddp_res_mpa(struct sk_buff *msg, struct rddp_stream *s)
{
	const struct rddp_stream_params *p = &s->p;

	if (rddp_stream_transport(s) == RDDP_TRANSPORT_SCTP)
		return 0;
	if (rdma_nl_put_driver_u32(msg, "mpa_rev", p->mpa_rev) ||
	    rdma_nl_put_driver_string(msg, "crc", p->crc ? "on" : "off") ||
	    rdma_nl_put_driver_string(msg, "markers_tx",
				      p->markers_tx ? "on" : "off") ||
	    rdma_nl_put_driver_string(msg, "markers_rx",
				      p->markers_rx ? "on" : "off"))
		return -EMSGSIZE;
	return 0;
}

static int rddp_res_stream(struct sk_buff *msg, struct rddp_stream *s)
{
	const struct rddp_stream_params *p = &s->p;
	const char *rtr = rddp_rtr_names[rddp_rtr_uapi(p->rtr)];
	struct nlattr *nest;

	/* The driver's attributes go in one RDMA_NLDEV_ATTR_DRIVER nest. */
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rddp_res_transport(msg, s) || rddp_res_mpa(msg, s) ||
	    rdma_nl_put_driver_u32(msg, "ird", p->ird) ||
	    rdma_nl_put_driver_u32(msg, "ord", p->ord) ||
	    rdma_nl_put_driver_string(msg, "rtr", rtr) ||
	    rdma_nl_put_driver_u32(msg, "mulpdu", READ_ONCE(s->mulpdu)) ||
	    rdma_nl_put_driver_u64(msg, "tx_fpdus", READ_ONCE(s->tx_fpdus)) ||
	    rdma_nl_put_driver_u64(msg, "tx_bytes", READ_ONCE(s->tx_bytes)) ||
	    rdma_nl_put_driver_u64(msg, "rx_fpdus", READ_ONCE(s->rx_fpdus)) ||
	    rdma_nl_put_driver_u64(msg, "rx_bytes", READ_ONCE(s->rx_bytes))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int rddp_res_qp(struct sk_buff *msg, struct rddp_qp *qp)
{
	int ret = 0;

	mutex_lock(&qp->state_lock);
	if (qp->stream)
		ret = rddp_res_stream(msg, qp->stream);
	mutex_unlock(&qp->state_lock);
	return ret;
}

static int rddp_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	return rddp_res_qp(msg, to_rddp_qp(ibqp));
}

static bool rddp_res_addr_eq(const struct sockaddr_storage *a,
			     const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port &&
		       ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
	return false;
}

/*
 * The QP whose stream runs between @id's endpoints, referenced, or NULL.
 * rdma_cm knows a connection's QP only when the ULP made it with
 * rdma_create_qp(); rping and perftest create theirs with verbs.
 */
static struct rddp_qp *rddp_res_qp_of(struct ib_device *ibdev,
				      struct rdma_cm_id *id)
{
	struct rddp_device *rdev = to_rddp_dev(ibdev);
	struct rdma_addr *a = &id->route.addr;
	struct rddp_qp *qp;
	unsigned long qpn;
	bool match;

	xa_for_each(&rdev->qp_xa, qpn, qp) {
		qp = rddp_qp_get_by_qpn(rdev, qpn);
		if (!qp)
			continue;
		mutex_lock(&qp->state_lock);
		match = qp->stream &&
			rddp_res_addr_eq(&qp->stream->laddr, &a->src_addr) &&
			rddp_res_addr_eq(&qp->stream->raddr, &a->dst_addr);
		mutex_unlock(&qp->state_lock);
		if (match)
			return qp;
		rddp_qp_put(qp);
	}
	return NULL;
}

/*
 * A connection's details are those of the QP it carries. The QP is found by
 * the connection's addresses, with a reference, even where rdma_cm knows it
 * (id->qp, a kernel ULP's rdma_create_qp()): the cm_id's restrack reference
 * does not pin that QP, which the ULP's rdma_destroy_qp() may free while a
 * user reads `rdma res show cm_id -dd`.
 */
static int rddp_fill_res_cm_id_entry(struct sk_buff *msg,
				     struct rdma_cm_id *id)
{
	struct rddp_qp *qp;
	int ret;

	if (!id->device)
		return 0;
	qp = rddp_res_qp_of(id->device, id);
	if (!qp)
		return 0;
	ret = rddp_res_qp(msg, qp);
	rddp_qp_put(qp);
	return ret;
}

const struct ib_device_ops rddp_res_ops = {
	.fill_res_qp_entry = rddp_fill_res_qp_entry,
	.fill_res_cm_id_entry = rddp_fill_res_cm_id_entry,
};
