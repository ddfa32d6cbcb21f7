// SPDX-License-Identifier: GPL-2.0
/*
 * `rdma link add NAME type rddp netdev DEV`: the RDMA netlink NEWLINK handler.
 * `rdma link delete` is handled by the core, which unregisters the device
 * and calls rddp_dealloc_driver().
 */
#include <linux/if_arp.h>
#include <rdma/rdma_netlink.h>

#include "rddp.h"

/*
 * Runs under the core's link_ops_rwsem (read), in process context, without
 * RTNL. The core holds a reference on @netdev for the duration.
 */
static int rddp_newlink(const char *name, struct net_device *netdev)
{
	struct ib_device *other;
	struct rddp_device *rdev;

	if (netdev->type != ARPHRD_ETHER) {
		pr_warn("%s: netdev %s is not an Ethernet device (type %u)\n",
			name, netdev->name, netdev->type);
		return -EINVAL;
	}

	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_warn("%s: an RDMA device with this name already exists\n",
			name);
		return -EEXIST;
	}

	/* One device per netdev. */
	rdev = rddp_device_get_by_netdev(netdev);
	if (rdev) {
		pr_warn("%s: netdev %s already has rddp device %s\n", name,
			netdev->name, dev_name(&rdev->ibdev.dev));
		rddp_device_put(rdev);
		return -EEXIST;
	}
	/*
	 * Nor beside siw's: two iWARP devices with one address each claim
	 * its connections. The core files siw's devices under their netdev,
	 * never rddp's (device.c), so what this finds is siw's.
	 */
	other = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (other) {
		pr_warn("%s: netdev %s already has siw device %s\n", name,
			netdev->name, dev_name(&other->dev));
		ib_device_put(other);
		return -EBUSY;
	}

	rdev = rddp_device_create(name, netdev);
	if (IS_ERR(rdev)) {
		pr_warn("%s: cannot create device on %s: %pe\n", name,
			netdev->name, rdev);
		return PTR_ERR(rdev);
	}
	pr_info("%s: created on %s\n", dev_name(&rdev->ibdev.dev),
		netdev->name);
	return 0;
}

static struct rdma_link_ops rddp_link_ops = {
	.type = RDDP_DRIVER_NAME,
	.newlink = rddp_newlink,
};

int rddp_link_init(void)
{
	rdma_link_register(&rddp_link_ops);
	return 0;
}

void rddp_link_exit(void)
{
	rdma_link_unregister(&rddp_link_ops);
}
