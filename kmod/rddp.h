/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rddp: an iWARP RNIC in software (RDMAP RFC 5040, DDP RFC 5041, MPA RFC 5044
 * over kernel TCP). Kernel-side types shared by the module's files.
 *
 * Object lifetimes (see Documentation/architecture.md):
 *  - struct rddp_device is allocated by ib_alloc_device() in newlink and freed
 *    by the RDMA core when the last reference to its struct device goes away.
 *    Our own resources are released in rddp_dealloc_driver(), which the core
 *    calls exactly once during unregistration (rdma link delete, netdev
 *    unregister, module unload).
 *  - rddp_device.netdev is held (netdev_hold) from rddp_device_create() until
 *    rddp_dealloc_driver(); it never changes. NETDEV_UNREGISTER queues
 *    unregistration of the device (netdev.c), so both this reference and the
 *    RDMA core's (ib_device_set_netdev()) are dropped before the netdev can
 *    be freed.
 */
#ifndef RDDP_H
#define RDDP_H

#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#define RDDP_DRIVER_NAME	"rddp"
/* Vendor id reported by query_device: "rdd" in ASCII, not an IEEE OUI. */
#define RDDP_VENDOR_ID		0x726464
#define RDDP_VENDOR_PART_ID	1
#define RDDP_HW_VERSION		1
#define RDDP_NODE_DESC		"rddp software iWARP RNIC"

/* Resource limits reported by query_device (enforced by the verbs). */
#define RDDP_MAX_QP		4096
#define RDDP_MAX_QP_WR		4096
#define RDDP_MAX_SGE		6	/* the siw user ABI's SIW_MAX_SGE */
#define RDDP_MAX_CQ		4096
#define RDDP_MAX_CQE		32768
#define RDDP_MAX_MR		16384
#define RDDP_MAX_PD		4096
#define RDDP_MAX_ORD		128
#define RDDP_MAX_IRD		128
#define RDDP_MAX_SRQ		1024
#define RDDP_MAX_SRQ_WR		4096
#define RDDP_MAX_CONTEXTS	1024
#define RDDP_MAX_MR_SIZE	BIT_ULL(32)

/*
 * MPA settings a device uses for new connections (params.c gives the
 * defaults). Read by the CM when a connection is set up.
 */
struct rddp_settings {
	u8 crc;		/* request CRC32c (RFC 5044 §7.1.1 C bit) */
	u8 markers;	/* require markers towards us (M bit) */
	u8 mpa_rev;	/* 1 or 2 (RFC 6581) */
};

struct rddp_device {
	struct ib_device ibdev;
	struct rddp_settings settings;
	/*
	 * Connection endpoints (cm.c) that are listening or setting up a
	 * connection, under @cep_lock; an endpoint leaves the list when it
	 * closes or hands its socket to a QP.
	 */
	spinlock_t cep_lock;
	struct list_head cep_list;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	/*
	 * Last port state announced with an IB event; written only from the
	 * netdev notifier, which RTNL serialises.
	 */
	enum ib_port_state port_state;
	/* Open user contexts, bounded by RDDP_MAX_CONTEXTS. */
	atomic_t num_ctx;
	/*
	 * Object counts, bounded by the RDDP_MAX_* limits: incremented before
	 * an object is built (and undone on failure), decremented when it is
	 * destroyed. All zero again by rddp_dealloc_driver().
	 */
	atomic_t num_pd;
	atomic_t num_mr;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t next_cq_id;
	/*
	 * QPN -> struct rddp_qp and STag index -> struct rddp_mr (queues.h and
	 * mem.h give the lookup rules). The xarrays' own locks serialise
	 * updates; readers use RCU plus the objects' refcounts. next_qpn and
	 * next_stag_idx are the xa_alloc_cyclic() cursors, under those locks.
	 */
	struct xarray qp_xa;
	u32 next_qpn;
	struct xarray mr_xa;
	u32 next_stag_idx;
};

struct rddp_ucontext {
	struct ib_ucontext base;
};

static inline struct rddp_device *to_rddp_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rddp_device, ibdev);
}

/* device.c */
struct rddp_device *rddp_device_create(const char *name,
				       struct net_device *netdev);
struct rddp_device *rddp_device_get_by_netdev(struct net_device *netdev);
void rddp_device_put(struct rddp_device *rdev);
enum ib_port_state rddp_port_state(struct net_device *netdev);

/* params.c */
int rddp_params_check(void);
void rddp_settings_default(struct rddp_settings *s);

/* link.c */
int rddp_link_init(void);
void rddp_link_exit(void);

/* netdev.c */
int rddp_netdev_init(void);
void rddp_netdev_exit(void);

/* verbs.c */
extern const struct ib_device_ops rddp_verbs_ops;

#endif /* RDDP_H */
