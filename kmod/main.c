// SPDX-License-Identifier: GPL-2.0
/*
 * rddp module init and exit.
 *
 * rddp is a software iWARP RNIC: RDMAP (RFC 5040) over DDP (RFC 5041) over
 * MPA (RFC 5044, RFC 6581) over kernel TCP sockets. Devices are created with
 * `rdma link add NAME type rddp netdev DEV`.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "cm.h"
#include "mem.h"
#include "rddp.h"
#include "tcp_linger.h"

/* From Kbuild: tools/version.sh's output, or the packaged VERSION file. */
#ifndef RDDP_VERSION
#define RDDP_VERSION "unknown"
#endif

static int __init rddp_init(void)
{
	int ret;

	ret = rddp_params_check();
	if (ret)
		return ret;

	ret = rddp_mem_init();
	if (ret)
		return ret;

	ret = rddp_cm_init();
	if (ret)
		goto err_mem;

	ret = rddp_tx_init();
	if (ret)
		goto err_cm;

	ret = rddp_genl_init();
	if (ret)
		goto err_tx;

	ret = rddp_device_init();
	if (ret)
		goto err_genl;

	ret = rddp_netdev_init();
	if (ret)
		goto err_device;

	ret = rddp_link_init();
	if (ret)
		goto err_netdev;

	pr_info("rddp: software iWARP RNIC %s loaded\n", RDDP_VERSION);
	return 0;

err_netdev:
	rddp_netdev_exit();
err_device:
	rddp_device_exit();
	rddp_tcp_linger_exit();
err_genl:
	rddp_genl_exit();
err_tx:
	rddp_tx_exit();
err_cm:
	rddp_cm_exit();
err_mem:
	rddp_mem_exit();
	return ret;
}

static void __exit rddp_exit(void)
{
	/* No new devices from here on. */
	rddp_link_exit();
	rddp_netdev_exit();
	/*
	 * Unregister rddp's devices, and only those: siw's share the driver
	 * id, so ib_unregister_driver() would remove them too. Returns once
	 * every unregistration in progress elsewhere (`rdma link delete`,
	 * queued at NETDEV_UNREGISTER) has left dealloc_driver (device.c).
	 */
	rddp_device_exit();
	/* No stream is left to close: cut short the closes still waiting. */
	rddp_tcp_linger_exit();
	/* dealloc_driver took every device out of the genl table. */
	rddp_genl_exit();
	rddp_tx_exit();
	rddp_cm_exit();
	rcu_barrier();	/* streams freed by call_rcu() */
	rddp_mem_exit();	/* every device flushed its MR frees */
	pr_info("rddp: unloaded\n");
}

module_init(rddp_init);
module_exit(rddp_exit);

MODULE_DESCRIPTION("rddp: software iWARP RDMA provider (RDMAP/DDP/MPA over TCP)");
MODULE_AUTHOR("The rddp developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDDP_VERSION);
MODULE_ALIAS_RDMA_LINK(RDDP_DRIVER_NAME);
