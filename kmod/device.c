// SPDX-License-Identifier: GPL-2.0
/*
 * rddp device lifecycle: allocation, registration with the RDMA core,
 * device/port/GID queries and release.
 */
#include <linux/module.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "cm.h"
#include "rddp.h"
#include "mem.h"

enum ib_port_state rddp_port_state(struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev) ?
		       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static int rddp_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = RDDP_VENDOR_ID;
	attr->vendor_part_id = RDDP_VENDOR_PART_ID;
	attr->hw_ver = RDDP_HW_VERSION;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = RDDP_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = RDDP_MAX_QP;
	attr->max_qp_wr = RDDP_MAX_QP_WR;
	attr->max_send_sge = RDDP_MAX_SGE;
	attr->max_recv_sge = RDDP_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = RDDP_MAX_CQ;
	attr->max_cqe = RDDP_MAX_CQE;
	attr->max_mr = RDDP_MAX_MR;
	attr->max_pd = RDDP_MAX_PD;
	attr->max_qp_rd_atom = RDDP_MAX_ORD;
	attr->max_qp_init_rd_atom = RDDP_MAX_ORD;
	attr->max_res_rd_atom = RDDP_MAX_QP * RDDP_MAX_IRD;
	attr->max_srq = RDDP_MAX_SRQ;
	attr->max_srq_wr = RDDP_MAX_SRQ_WR;
	attr->max_srq_sge = RDDP_MAX_SGE;
	attr->atomic_cap = IB_ATOMIC_NONE;
	/*
	 * Fast registration and invalidation (mem.h); no memory windows, no
	 * SG_GAPS or integrity MRs, no atomics.
	 */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->max_fast_reg_page_list_len = RDDP_MAX_FR_PAGES;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	return 0;
}

/*
 * The core's iw_query_port() has filled mtu and a state derived from carrier
 * and IPv4 addresses before calling us; rddp's own rule (rddp_port_state())
 * overrides the state so that queries and port events agree.
 */
static int rddp_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct net_device *netdev = to_rddp_dev(ibdev)->netdev;

	attr->state = rddp_port_state(netdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
				   IB_PORT_PHYS_STATE_LINK_UP :
				   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(netdev->mtu);
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = -1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	/* Nominal: a software RNIC runs at whatever the host and link allow. */
	attr->active_speed = IB_SPEED_EDR;
	attr->active_width = IB_WIDTH_4X;
	return 0;
}

static int rddp_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	immutable->gid_tbl_len = 1;
	immutable->pkey_tbl_len = 1;
	return 0;
}

/* An iWARP port has one GID: the netdev's MAC address (as siw and iw_cxgb4). */
static int rddp_query_gid(struct ib_device *ibdev, u32 port, int index,
			  union ib_gid *gid)
{
	struct net_device *netdev = to_rddp_dev(ibdev)->netdev;

	if (index != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, netdev->dev_addr, min_t(unsigned int, netdev->addr_len,
						 sizeof(gid->raw)));
	return 0;
}

static int rddp_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index != 0)
		return -EINVAL;
	*pkey = 0xffff;	/* the default P_Key; iWARP has no partitions */
	return 0;
}

/*
 * Called by the RDMA core exactly once, from the unregistration path, after
 * every client has let go of the device. Nothing of ours outlives it.
 */
static void rddp_dealloc_driver(struct ib_device *ibdev)
{
	struct rddp_device *rdev = to_rddp_dev(ibdev);

	rddp_genl_dev_del(rdev);
	rddp_cm_device_stop(rdev);
	/* Every QP is gone, so is every MR holder: free what they held. */
	rddp_mr_flush_frees();
	WARN_ON(atomic_read(&rdev->num_ctx));
	WARN_ON(!xa_empty(&rdev->qp_xa) || !xa_empty(&rdev->mr_xa));
	xa_destroy(&rdev->qp_xa);
	xa_destroy(&rdev->mr_xa);
	rddp_stats_free(rdev);
	netdev_put(rdev->netdev, &rdev->netdev_tracker);
	pr_debug("%s: released\n", dev_name(&ibdev->dev));
}

static const struct ib_device_ops rddp_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,	/* so Debian's unmodified libsiw binds */
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.dealloc_driver = rddp_dealloc_driver,
	.get_port_immutable = rddp_get_port_immutable,
	.query_device = rddp_query_device,
	.query_gid = rddp_query_gid,
	.query_pkey = rddp_query_pkey,
	.query_port = rddp_query_port,
};

struct rddp_device *rddp_device_create(const char *name,
				       struct net_device *netdev)
{
	struct rddp_device *rdev;
	struct ib_device *ibdev;
	int ret;

	rdev = ib_alloc_device(rddp_device, ibdev);
	if (!rdev)
		return ERR_PTR(-ENOMEM);
	ibdev = &rdev->ibdev;
	rdev->netdev = netdev;
	netdev_hold(netdev, &rdev->netdev_tracker, GFP_KERNEL);

	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->dev.parent = netdev->dev.parent;
	strscpy(ibdev->node_desc, RDDP_NODE_DESC, sizeof(ibdev->node_desc));
	/* iw_cm's port mapper identifies the interface by name. */
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	if (netdev->addr_len == ETH_ALEN)
		addrconf_addr_eui48((u8 *)&ibdev->node_guid, netdev->dev_addr);
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);

	ib_set_device_ops(ibdev, &rddp_device_ops);
	ib_set_device_ops(ibdev, &rddp_verbs_ops);
	ib_set_device_ops(ibdev, &rddp_stats_ops);
	ib_set_device_ops(ibdev, &rddp_res_ops);
	rdev->port_state = rddp_port_state(netdev);
	spin_lock_init(&rdev->settings_lock);
	rddp_settings_default(&rdev->settings);
	spin_lock_init(&rdev->cep_lock);
	INIT_LIST_HEAD(&rdev->cep_list);
	atomic_set(&rdev->num_ctx, 0);
	xa_init_flags(&rdev->qp_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&rdev->mr_xa, XA_FLAGS_ALLOC1);

	ret = rddp_stats_alloc(rdev);
	if (ret)
		goto err_dealloc;

	ret = ib_device_set_netdev(ibdev, netdev, 1);
	if (ret)
		goto err_stats;

	ret = ib_register_device(ibdev, name, NULL);
	if (ret)
		goto err_stats;

	rddp_genl_dev_add(rdev);
	return rdev;

err_stats:
	rddp_stats_free(rdev);
err_dealloc:
	/* Before registration the core does not call dealloc_driver. */
	netdev_put(netdev, &rdev->netdev_tracker);
	ib_dealloc_device(ibdev);
	return ERR_PTR(ret);
}

struct rddp_device *rddp_device_get_by_netdev(struct net_device *netdev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (!ibdev)
		return NULL;
	if (ibdev->ops.owner != THIS_MODULE) {
		ib_device_put(ibdev);
		return NULL;
	}
	return to_rddp_dev(ibdev);
}

void rddp_device_put(struct rddp_device *rdev)
{
	ib_device_put(&rdev->ibdev);
}
