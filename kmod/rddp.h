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
 * Settings a device uses for new connections (params.c gives the
 * defaults). Read by the CM when a connection is set up.
 */
struct rddp_settings {
	u8 crc;		/* request CRC32c (RFC 5044 §7.1.1 C bit) */
	u8 markers;	/* require markers towards us (M bit) */
	u8 mpa_rev;	/* 1 or 2 (RFC 6581) */
	u8 tx_batch;	/* several FPDUs per socket send (MSG_MORE) */
	u8 tx_zcopy;	/* lend payload pages to TCP (only without CRC) */
	/*
	 * Liveness bound of a connected stream, in ms (stream.c): 0 (off)
	 * or RDDP_PEER_TIMEOUT_MIN..RDDP_PEER_TIMEOUT_MAX.
	 */
	u32 peer_timeout_ms;
};

/*
 * peer_timeout_ms's range. TCP keepalive counts in whole seconds, and a
 * bound of a few RTOs would end connections on ordinary loss; an hour keeps
 * every keepalive time in range (TCP_KEEPIDLE stops at 32767 s).
 */
#define RDDP_PEER_TIMEOUT_MIN	1000
#define RDDP_PEER_TIMEOUT_MAX	(3600 * 1000)

/*
 * Device counters (stats.c). Per CPU, bumped from any context with
 * rddp_stat_add(); readers sum over CPUs. The order is the uapi's
 * RDDP_A_STAT_* order and the hardware-counter order of `rdma statistic`.
 */
enum rddp_stat {
	RDDP_STAT_TX_FPDUS,
	RDDP_STAT_TX_BYTES,
	RDDP_STAT_RX_FPDUS,
	RDDP_STAT_RX_BYTES,
	RDDP_STAT_RX_CRC_ERRORS,
	RDDP_STAT_RX_MARKER_ERRORS,
	RDDP_STAT_RX_FRAMING_ERRORS,
	RDDP_STAT_TERM_TX_RDMAP,
	RDDP_STAT_TERM_TX_DDP,
	RDDP_STAT_TERM_TX_MPA,
	RDDP_STAT_TERM_RX_RDMAP,
	RDDP_STAT_TERM_RX_DDP,
	RDDP_STAT_TERM_RX_MPA,
	RDDP_STAT_CONN_ATTEMPTS,
	RDDP_STAT_CONN_ESTABLISHED,
	RDDP_STAT_CONN_REQUESTS,
	RDDP_STAT_CONN_ACCEPTS,
	RDDP_STAT_CONN_REJECTS,
	RDDP_STAT_CONN_FAILURES,
	RDDP_STAT_MPA_TIMEOUTS,
	RDDP_STAT_TX_ZCOPY_BYTES,
	RDDP_STAT_MR_FAST_REGS,
	RDDP_STAT_MR_LOCAL_INVALS,
	RDDP_STAT_MR_REMOTE_INVALS,
	RDDP_STAT_NUM
};

struct rddp_stats {
	u64 c[RDDP_STAT_NUM];
};

struct rddp_device {
	struct ib_device ibdev;
	/*
	 * Copied whole under @settings_lock by the CM for each new endpoint
	 * (rddp_settings_get()) and replaced by the genl family's DEV_SET.
	 */
	spinlock_t settings_lock;
	struct rddp_settings settings;
	struct rddp_stats __percpu *stats;
	/* In the module's device table (genl.c), under its mutex. */
	bool listed;
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
	 * updates; readers use RCU plus the objects' refcounts. next_qpn is
	 * the xa_alloc_cyclic() cursor of qp_xa, under its lock. STag indices
	 * are random (mem.c), so mr_xa has no cursor.
	 */
	struct xarray qp_xa;
	u32 next_qpn;
	struct xarray mr_xa;
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
/* The mpa_timeout_ms module parameter, in jiffies (cm.c). */
unsigned long rddp_mpa_timeout(void);
bool rddp_peer_timeout_valid(u32 ms);
void rddp_settings_default(struct rddp_settings *s);
void rddp_settings_get(struct rddp_device *rdev, struct rddp_settings *out);

/* res.c */
extern const struct ib_device_ops rddp_res_ops;

/* stats.c */
extern const struct ib_device_ops rddp_stats_ops;
int rddp_stats_alloc(struct rddp_device *rdev);
void rddp_stats_free(struct rddp_device *rdev);
u64 rddp_stat_read(struct rddp_device *rdev, enum rddp_stat idx);
void rddp_stats_reset(struct rddp_device *rdev);

static inline void rddp_stat_add(struct rddp_device *rdev, enum rddp_stat idx,
				 u64 n)
{
	this_cpu_add(rdev->stats->c[idx], n);
}

static inline void rddp_stat_inc(struct rddp_device *rdev, enum rddp_stat idx)
{
	rddp_stat_add(rdev, idx, 1);
}

/* genl.c */
int rddp_genl_init(void);
void rddp_genl_exit(void);
void rddp_genl_dev_add(struct rddp_device *rdev);
void rddp_genl_dev_del(struct rddp_device *rdev);
struct rddp_qp;
void rddp_genl_qp_state(struct rddp_qp *qp, enum ib_qp_state state);
struct rddp_term_info;
void rddp_genl_term(struct rddp_qp *qp, bool sent,
		    const struct rddp_term_info *t);
void rddp_genl_conn_failed(struct rddp_device *rdev,
			   const struct sockaddr_storage *remote, int err);

/* link.c */
int rddp_link_init(void);
void rddp_link_exit(void);

/* netdev.c */
int rddp_netdev_init(void);
void rddp_netdev_exit(void);

/* qp_tx.c: the TX workqueue */
int rddp_tx_init(void);
void rddp_tx_exit(void);

/* verbs.c */
extern const struct ib_device_ops rddp_verbs_ops;

#endif /* RDDP_H */
