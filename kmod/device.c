// SPDX-License-Identifier: GPL-2.0
/*
 * rddp device lifecycle: allocation, registration with the RDMA core,
 * device/port/GID queries and release, and rddp's own table of its devices.
 *
 * siw's driver id. rddp registers its devices with siw's driver id
 * (RDMA_DRIVER_SIW), so that Debian's unmodified libsiw binds to them. The
 * RDMA core and siw cannot tell the two drivers' devices apart by that id
 * (Documentation/architecture.md, "siw and rddp in one kernel"):
 *  - ib_unregister_driver(RDMA_DRIVER_SIW) unregisters both drivers'
 *    devices. rddp's module exit unregisters the devices of its own table
 *    instead (rddp_device_exit());
 *  - ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW) finds both drivers'
 *    devices, and siw's netdev notifier takes what it finds there for a
 *    struct siw_device. So rddp does not file its device under its netdev
 *    with ib_device_set_netdev() but gives the core the netdev through
 *    get_netdev (rddp_get_netdev()): the port queries, rdma_cm and `rdma
 *    link` see it, that lookup does not; rddp's own lookups by netdev use
 *    the table;
 *  - siw's module exit calls ib_unregister_driver(RDMA_DRIVER_SIW) too,
 *    which rddp cannot change: while rddp has a device, it holds a reference
 *    on siw's module (rddp_siw_pin()), so `rmmod siw` is refused ("in use")
 *    instead of removing rddp's devices.
 *
 * The table. Each device is in rddp_devices from before its registration
 * until module exit or rddp_devices_reap(), holding a reference on its
 * struct device: the ib_device, its unregistration lock included, outlives
 * any unregistration of it. @state (enum rddp_dev_state) says whether it
 * may be looked up (ALIVE: registered and not yet in dealloc_driver).
 * rddp_devices_reap() drops the entries of devices that are gone by
 * calling ib_unregister_device() on each: for a device that another path
 * (`rdma link delete`, a queued unregistration) is unregistering, that
 * waits on the core's per-device unregistration lock until its
 * dealloc_driver has returned, then does nothing. So module exit, which
 * reaps every entry, returns only when no rddp code runs for a device any
 * more: the fence ib_unregister_driver() gives, for rddp's devices alone.
 *
 * rddp_devices_lock (mutex) guards the table, the devices' @state,
 * rddp_devices_alive and rddp_siw. It is taken under RTNL (the netdev
 * notifier), under the core's link_ops_rwsem (newlink) and under a
 * device's unregistration lock (dealloc_driver); nothing is called under it
 * that waits for any of those.
 */
#include <linux/module.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "cm.h"
#include "compat.h"
#include "rddp.h"
#include "mem.h"

static DEFINE_MUTEX(rddp_devices_lock);
static LIST_HEAD(rddp_devices);
/* Devices siw's module exit could remove: created and not yet deallocated. */
static unsigned int rddp_devices_alive;
/* siw's module, referenced while rddp_devices_alive is not 0, or NULL. */
static struct module *rddp_siw;

/*
 * Hold a reference on siw's module @mod, or if NULL on the one loaded now,
 * found by name among the modules in sysfs (the kset our own module's
 * kobject is in; rddp is always a module). The kobject's reference keeps
 * struct module alive until try_module_get() has decided. Return: 0 (also
 * when siw is not loaded, or built in: then it never goes), -EBUSY if siw
 * is being unloaded.
 */
static int rddp_siw_pin(struct module *mod)
{
	struct kobject *kobj = NULL;
	int ret = 0;

	lockdep_assert_held(&rddp_devices_lock);
	if (!mod) {
		kobj = kset_find_obj(THIS_MODULE->mkobj.kobj.kset, "siw");
		if (!kobj)
			return 0;
		mod = container_of(kobj, struct module_kobject, kobj)->mod;
	}
	if (mod && try_module_get(mod)) {
		rddp_siw = mod;
		pr_info("rddp: siw stays loaded while rddp has devices: its unload would remove them (both drivers use driver id RDMA_DRIVER_SIW)\n");
	} else if (mod) {
		ret = -EBUSY;
	}
	kobject_put(kobj);
	return ret;
}

/* One device fewer that siw's unload could remove. */
static void rddp_devices_unhold(void)
{
	lockdep_assert_held(&rddp_devices_lock);
	if (--rddp_devices_alive || !rddp_siw)
		return;
	module_put(rddp_siw);
	rddp_siw = NULL;
	pr_info("rddp: no rddp device left: siw may be unloaded\n");
}

/* siw comes or goes while rddp is loaded (the module notifier chain). */
static int rddp_module_event(struct notifier_block *nb, unsigned long event,
			     void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, "siw"))
		return NOTIFY_DONE;
	mutex_lock(&rddp_devices_lock);
	if (event == MODULE_STATE_LIVE && rddp_devices_alive && !rddp_siw)
		rddp_siw_pin(mod);
	/* a failed init: the module is freed whatever its references */
	if (event == MODULE_STATE_GOING && rddp_siw == mod) {
		module_put(mod);
		rddp_siw = NULL;
	}
	mutex_unlock(&rddp_devices_lock);
	return NOTIFY_OK;
}

static struct notifier_block rddp_module_notifier = {
	.notifier_call = rddp_module_event,
};

/*
 * Drop the table's entries of devices that are gone, or with @all of
 * every device (module exit: no newlink runs any more), unregistering
 * those still alive. Process context, none of the locks above held.
 */
static void rddp_devices_reap(bool all)
{
	struct rddp_device *rdev, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&rddp_devices_lock);
	list_for_each_entry_safe(rdev, tmp, &rddp_devices, node)
		if (all || rdev->state == RDDP_DEV_GONE)
			list_move(&rdev->node, &gone);
	mutex_unlock(&rddp_devices_lock);
	list_for_each_entry_safe(rdev, tmp, &gone, node) {
		list_del(&rdev->node);
		/* waits for an unregistration in progress; see above */
		ib_unregister_device(&rdev->ibdev);
		put_device(&rdev->ibdev.dev);
	}
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
	struct rddp_notify removed = {
		.type = RDDP_NOTIFY_DEV_REMOVED,
		.rdev = rdev,
	};

	mutex_lock(&rddp_devices_lock);
	rdev->state = RDDP_DEV_GONE;	/* no more lookups */
	rddp_devices_unhold();
	mutex_unlock(&rddp_devices_lock);
	rddp_notify(&removed);
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

/*
 * The port's netdev for the core (iw_query_port(), `rdma link`), given
 * this way and not with ib_device_set_netdev() so that siw's notifier never
 * finds an rddp device (see the top of this file). The core drops the
 * reference; none once the netdev is unregistering (ib_verbs.h's rule).
 * The device holds the netdev until dealloc_driver.
 */
static struct net_device *rddp_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *netdev = to_rddp_dev(ibdev)->netdev;

	if (port != 1 || READ_ONCE(netdev->reg_state) != NETREG_REGISTERED)
		return NULL;
	dev_hold(netdev);
	return netdev;
}

static const struct ib_device_ops rddp_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,	/* so Debian's unmodified libsiw binds */
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.dealloc_driver = rddp_dealloc_driver,
	.get_netdev = rddp_get_netdev,
	.get_port_immutable = rddp_get_port_immutable,
	.query_device = rddp_query_device,
	.query_gid = rddp_query_gid,
	.query_pkey = rddp_query_pkey,
	.query_port = rddp_query_port,
};

/* Allocate and set up a device; nothing registered yet. */
static struct rddp_device *rddp_device_alloc(struct net_device *netdev)
{
	struct rddp_device *rdev;
	struct ib_device *ibdev;

	rdev = ib_alloc_device(rddp_device, ibdev);
	if (!rdev)
		return NULL;
	ibdev = &rdev->ibdev;
	rdev->netdev = netdev;
	netdev_hold(netdev, &rdev->netdev_tracker, GFP_KERNEL);

	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	/*
	 * A completion's handler runs where rddp completes the work request
	 * (the receiving or sending context), whatever vector the CQ names;
	 * the count only bounds what consumers may ask for. ULPs size their
	 * queues by it (nvme-rdma opens min(CPUs, vectors) I/O queues,
	 * ib_cq_pool one CQ per vector), so one vector per CPU lets them
	 * spread over CPUs as on a hardware RNIC.
	 */
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->dev.parent = netdev->dev.parent;
	strscpy(ibdev->node_desc, RDDP_NODE_DESC, sizeof(ibdev->node_desc));
	/* Every rddp device is named by `rdma link add`'s caller. */
	rddp_mark_name_assigned_by_user(ibdev);
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
	return rdev;
}

/* Register @rdev, in the table from before (see the top of this file). */
static int rddp_device_register(struct rddp_device *rdev, const char *name)
{
	struct ib_device *ibdev = &rdev->ibdev;
	int ret;

	mutex_lock(&rddp_devices_lock);
	rdev->state = RDDP_DEV_NEW;
	get_device(&ibdev->dev);
	list_add_tail(&rdev->node, &rddp_devices);
	mutex_unlock(&rddp_devices_lock);

	ret = ib_register_device(ibdev, name, NULL);

	mutex_lock(&rddp_devices_lock);
	if (ret) {
		list_del(&rdev->node);
		put_device(&ibdev->dev);
	} else if (rdev->state == RDDP_DEV_NEW) {
		/* not if `rdma link delete` was quicker */
		rdev->state = RDDP_DEV_ALIVE;
	}
	mutex_unlock(&rddp_devices_lock);
	return ret;
}

struct rddp_device *rddp_device_create(const char *name,
				       struct net_device *netdev)
{
	struct rddp_notify added = { .type = RDDP_NOTIFY_DEV_ADDED };
	struct rddp_device *rdev;
	int ret;

	rddp_devices_reap(false);
	mutex_lock(&rddp_devices_lock);
	ret = rddp_siw ? 0 : rddp_siw_pin(NULL);
	if (!ret)
		rddp_devices_alive++;
	mutex_unlock(&rddp_devices_lock);
	if (ret) {
		pr_warn("%s: siw is being unloaded, and its unload removes every device with its driver id: try again\n",
			name);
		return ERR_PTR(ret);
	}

	ret = -ENOMEM;
	rdev = rddp_device_alloc(netdev);
	if (!rdev)
		goto err_unhold;
	ret = rddp_stats_alloc(rdev);
	if (ret)
		goto err_dealloc;
	ret = rddp_device_register(rdev, name);
	if (ret)
		goto err_stats;
	added.rdev = rdev;
	rddp_notify(&added);
	/*
	 * The notifier finds the device only from here on: a netdev whose
	 * unregistration began before would wait for our reference forever.
	 */
	if (READ_ONCE(netdev->reg_state) != NETREG_REGISTERED) {
		ib_unregister_device(&rdev->ibdev);
		return ERR_PTR(-ENODEV);
	}
	return rdev;

err_stats:
	rddp_stats_free(rdev);
err_dealloc:
	/* Before registration the core does not call dealloc_driver. */
	netdev_put(netdev, &rdev->netdev_tracker);
	ib_dealloc_device(&rdev->ibdev);
err_unhold:
	mutex_lock(&rddp_devices_lock);
	rddp_devices_unhold();
	mutex_unlock(&rddp_devices_lock);
	return ERR_PTR(ret);
}

struct rddp_device *rddp_device_get_by_netdev(struct net_device *netdev)
{
	struct rddp_device *rdev, *found = NULL;

	mutex_lock(&rddp_devices_lock);
	list_for_each_entry(rdev, &rddp_devices, node) {
		if (rdev->state == RDDP_DEV_ALIVE && rdev->netdev == netdev &&
		    ib_device_try_get(&rdev->ibdev)) {
			found = rdev;
			break;
		}
	}
	mutex_unlock(&rddp_devices_lock);
	return found;
}

void rddp_device_put(struct rddp_device *rdev)
{
	ib_device_put(&rdev->ibdev);
}

int rddp_device_init(void)
{
	return register_module_notifier(&rddp_module_notifier);
}

void rddp_device_exit(void)
{
	rddp_devices_reap(true);
	unregister_module_notifier(&rddp_module_notifier);
	/* every device's dealloc_driver ran: siw is not referenced */
	WARN_ON(rddp_devices_alive || rddp_siw);
}
