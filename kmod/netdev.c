// SPDX-License-Identifier: GPL-2.0
/*
 * Netdev events: port state follows the netdev, and the device goes away
 * with its netdev.
 */
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "rddp.h"

/* Announce a port state change to RDMA consumers (async event). */
static void rddp_port_event(struct rddp_device *rdev, enum ib_port_state state)
{
	struct ib_event event = {
		.device = &rdev->ibdev,
		.element.port_num = 1,
	};

	if (state == rdev->port_state)
		return;
	rdev->port_state = state;
	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

/* Called with RTNL held. */
static int rddp_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct rddp_device *rdev;

	rdev = rddp_device_get_by_netdev(netdev);
	if (!rdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:	/* carrier */
		rddp_port_event(rdev, rddp_port_state(netdev));
		break;
	case NETDEV_GOING_DOWN:
		rddp_port_event(rdev, IB_PORT_DOWN);
		break;
	case NETDEV_CHANGENAME:
		strscpy(rdev->ibdev.iw_ifname, netdev->name,
			sizeof(rdev->ibdev.iw_ifname));
		break;
	case NETDEV_UNREGISTER:
		/*
		 * Unregistering here would wait for RDMA clients that may
		 * need RTNL: let the core do it from its workqueue. It holds
		 * its own device reference until done.
		 */
		ib_unregister_device_queued(&rdev->ibdev);
		break;
	default:
		break;
	}
	rddp_device_put(rdev);
	return NOTIFY_OK;
}

static struct notifier_block rddp_netdev_notifier = {
	.notifier_call = rddp_netdev_event,
};

int rddp_netdev_init(void)
{
	return register_netdevice_notifier(&rddp_netdev_notifier);
}

void rddp_netdev_exit(void)
{
	unregister_netdevice_notifier(&rddp_netdev_notifier);
}
