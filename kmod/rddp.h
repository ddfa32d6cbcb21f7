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
 *    unregistration of the device (netdev.c), so this reference is dropped
 *    before the netdev can be freed. The core gets the netdev through the
 *    get_netdev op, not ib_device_set_netdev() (device.c says why).
 *  - device.c's table holds a reference on each device's struct device from
 *    before registration until module exit or until it reaps the entry of
 *    a device that is gone.
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

/**
 * struct rddp_settings - settings a device uses for new connections
 * @crc: request CRC32c (RFC 5044 §7.1.1 C bit)
 * @markers: require markers towards us (M bit)
 * @mpa_rev: 1 or 2 (RFC 6581)
 * @tx_batch: a run's FPDUs in one socket send (MSG_MORE, MPA's stage)
 * @tx_zcopy: lend payload pages to TCP (only without CRC)
 * @peer_timeout_ms: liveness bound of a connected stream, in ms
 *	(llp_mpa.c, stream.c): 0 (off) or
 *	RDDP_PEER_TIMEOUT_MIN..RDDP_PEER_TIMEOUT_MAX
 * @transport: enum rddp_transport (uapi): the LLP of the connections this
 *	device initiates; RDDP_TRANSPORT_TCP (MPA) or RDDP_TRANSPORT_SCTP
 *	(draft-ietf-rddp-sctp-00)
 * @multihome: 0 or 1: the SCTP sockets of the device's connections and
 *	listeners bind every usable address of the netns, not one
 *	(draft-ietf-rddp-sctp §4.2, cm_sctp.c); read at connect and listen
 *
 * params.c gives the defaults; the CM reads them when a connection is set
 * up, rddpctl's DEV_SET replaces them.
 */
struct rddp_settings {
	u8 crc;
	u8 markers;
	u8 mpa_rev;
	u8 tx_batch;
	u8 tx_zcopy;
	u32 peer_timeout_ms;
	u8 transport;
	u8 multihome;
};

/*
 * peer_timeout_ms's range. TCP keepalive counts in whole seconds, and a
 * bound of a few RTOs would end connections on ordinary loss; an hour keeps
 * every keepalive time in range (TCP_KEEPIDLE stops at 32767 s).
 */
#define RDDP_PEER_TIMEOUT_MIN	1000
#define RDDP_PEER_TIMEOUT_MAX	(3600 * 1000)

/**
 * enum rddp_stat - device counters (stats.c)
 * @RDDP_STAT_TX_FPDUS: FPDUs written to the socket
 * @RDDP_STAT_TX_BYTES: data octets in them (Sends, RDMA Writes, Read
 *	Responses)
 * @RDDP_STAT_RX_FPDUS: FPDUs received with a good CRC
 * @RDDP_STAT_RX_BYTES: data octets in them
 * @RDDP_STAT_RX_CRC_ERRORS: streams stopped by an MPA CRC error
 *	(RFC 5044 §8)
 * @RDDP_STAT_RX_MARKER_ERRORS: streams stopped by a marker error
 * @RDDP_STAT_RX_FRAMING_ERRORS: streams stopped by an FPDU that cannot
 *	be framed
 * @RDDP_STAT_TERM_TX_RDMAP: Terminates sent, RDMAP layer
 *	(RFC 5040 §4.8)
 * @RDDP_STAT_TERM_TX_DDP: Terminates sent, DDP layer
 * @RDDP_STAT_TERM_TX_MPA: Terminates sent, LLP (MPA) layer
 * @RDDP_STAT_TERM_RX_RDMAP: Terminates received, RDMAP layer
 * @RDDP_STAT_TERM_RX_DDP: Terminates received, DDP layer
 * @RDDP_STAT_TERM_RX_MPA: Terminates received, LLP (MPA) layer
 * @RDDP_STAT_CONN_ATTEMPTS: iw_connect calls
 * @RDDP_STAT_CONN_ESTABLISHED: connections that reached full operation
 *	(both sides count)
 * @RDDP_STAT_CONN_REQUESTS: MPA Requests received on a listener
 * @RDDP_STAT_CONN_ACCEPTS: iw_accept calls
 * @RDDP_STAT_CONN_REJECTS: iw_reject calls
 * @RDDP_STAT_CONN_FAILURES: setups that failed (refused, reset, bad MPA
 *	frame)
 * @RDDP_STAT_SETUP_TIMEOUTS: setups that ran out of time, over any
 *	transport (mpa_timeouts to rddpctl and `rdma statistic`)
 * @RDDP_STAT_TX_ZCOPY_BYTES: payload octets lent to TCP as page
 *	references instead of copied
 * @RDDP_STAT_MR_FAST_REGS: fast registrations executed (IB_WR_REG_MR)
 * @RDDP_STAT_MR_LOCAL_INVALS: STags invalidated locally
 *	(IB_WR_LOCAL_INV, Read with invalidate)
 * @RDDP_STAT_MR_REMOTE_INVALS: STags invalidated by a received Send
 *	with Invalidate
 * @RDDP_STAT_SCTP_TX_CHUNKS: SCTP DATA chunks written, DDP Segments and
 *	Stream Session Control messages (both PPIDs)
 * @RDDP_STAT_SCTP_RX_CHUNKS: SCTP DATA chunks received
 * @RDDP_STAT_SCTP_RX_HELD: SCTP DATA chunks that arrived ahead of their
 *	DDP-SSN and were held until their turn (out-of-order arrivals)
 * @RDDP_STAT_SCTP_RX_PLACED_EARLY: of those, tagged segments whose payload
 *	was placed on arrival (RFC 5041 §5.3), only their header held
 * @RDDP_STAT_SCTP_RESEGMENTS: DDP segments SCTP refused as longer than the
 *	path carries after its MTU fell, built again at the lowered MULPDU
 * @RDDP_STAT_TX_BATCHES: TX engine runs that wrote FPDUs, each ended by
 *	one push of what the run held back (tx_fpdus / tx_batches: FPDUs the
 *	LLP got per batch)
 * @RDDP_STAT_TX_FAR_KICKS: TX work queued on another CPU for a kernel
 *	ULP's post from a user task, so the task kept its own (qp_tx.c)
 * @RDDP_STAT_NUM: the number of counters
 *
 * Per CPU, bumped from any context with rddp_stat_add(); readers sum over
 * CPUs. The order is the uapi's RDDP_A_STAT_* order and the hardware-counter
 * order of `rdma statistic`; Documentation/netlink-api.md describes each.
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
	RDDP_STAT_SETUP_TIMEOUTS,
	RDDP_STAT_TX_ZCOPY_BYTES,
	RDDP_STAT_MR_FAST_REGS,
	RDDP_STAT_MR_LOCAL_INVALS,
	RDDP_STAT_MR_REMOTE_INVALS,
	RDDP_STAT_SCTP_TX_CHUNKS,
	RDDP_STAT_SCTP_RX_CHUNKS,
	RDDP_STAT_SCTP_RX_HELD,
	RDDP_STAT_SCTP_RX_PLACED_EARLY,
	RDDP_STAT_SCTP_RESEGMENTS,
	RDDP_STAT_TX_BATCHES,
	RDDP_STAT_TX_FAR_KICKS,
	RDDP_STAT_NUM
};

/**
 * struct rddp_stats - one CPU's device counters
 * @c: indexed by enum rddp_stat
 */
struct rddp_stats {
	u64 c[RDDP_STAT_NUM];
};

/**
 * enum rddp_dev_state - a device in device.c's table
 * @RDDP_DEV_NEW: being registered
 * @RDDP_DEV_ALIVE: registered: rddp_device_get_by_netdev() finds it
 * @RDDP_DEV_GONE: rddp_dealloc_driver() has run or is running
 */
enum rddp_dev_state {
	RDDP_DEV_NEW,
	RDDP_DEV_ALIVE,
	RDDP_DEV_GONE,
};

/**
 * struct rddp_device - an rddp RDMA device, bound to one netdev
 * @ibdev: the core's device
 * @settings_lock: protects @settings
 * @settings: copied whole under @settings_lock by the CM for each new
 *	endpoint (rddp_settings_get()) and replaced by the genl family's
 *	DEV_SET
 * @stats: the per-CPU counters
 * @listed: in the module's device table (genl.c), under its mutex
 * @node: in device.c's table of rddp's devices, under rddp_devices_lock
 * @state: enum rddp_dev_state, under rddp_devices_lock
 * @cep_lock: protects @cep_list
 * @cep_list: connection endpoints (cm.c) that are listening or setting up
 *	a connection; an endpoint leaves the list when it closes or hands
 *	its socket to a QP
 * @netdev: the netdev, held from rddp_device_create() until
 *	rddp_dealloc_driver(); it never changes
 * @netdev_tracker: the tracker of that reference
 * @port_state: last port state announced with an IB event; written only
 *	from the netdev notifier, which RTNL serialises
 * @num_ctx: open user contexts, bounded by RDDP_MAX_CONTEXTS
 * @num_pd: PDs, bounded by RDDP_MAX_PD; like the counts below it is
 *	incremented before an object is built (and undone on failure),
 *	decremented when it is destroyed, and zero again by
 *	rddp_dealloc_driver()
 * @num_mr: MRs, bounded by RDDP_MAX_MR
 * @num_cq: CQs, bounded by RDDP_MAX_CQ
 * @num_qp: QPs, bounded by RDDP_MAX_QP
 * @num_srq: SRQs, bounded by RDDP_MAX_SRQ
 * @next_cq_id: the last CQ number handed out
 * @qp_xa: QPN -> struct rddp_qp (queues.h gives the lookup rules)
 * @next_qpn: the xa_alloc_cyclic() cursor of @qp_xa, under its lock
 * @mr_xa: STag index -> struct rddp_mr (mem.h gives the lookup rules);
 *	STag indices are random (mem.c), so it has no cursor
 *
 * The xarrays' own locks serialise updates; readers use RCU plus the
 * objects' refcounts.
 */
struct rddp_device {
	struct ib_device ibdev;
	spinlock_t settings_lock;	/* see above */
	struct rddp_settings settings;
	struct rddp_stats __percpu *stats;
	bool listed;
	struct list_head node;
	u8 state;
	spinlock_t cep_lock;		/* see above */
	struct list_head cep_list;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	enum ib_port_state port_state;
	atomic_t num_ctx;
	atomic_t num_pd;
	atomic_t num_mr;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t next_cq_id;
	struct xarray qp_xa;
	u32 next_qpn;
	struct xarray mr_xa;
};

/**
 * struct rddp_ucontext - a user context; the core's object is all it has
 * @base: the core's user context
 */
struct rddp_ucontext {
	struct ib_ucontext base;
};

/**
 * to_rddp_dev() - the rddp device of a core device
 * @ibdev: the core's device, one of rddp's
 *
 * Return: the struct rddp_device it is embedded in.
 */
static inline struct rddp_device *to_rddp_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rddp_device, ibdev);
}

/**
 * rddp_device_create() - create and register a device (rdma link add)
 * @name: the device's name
 * @netdev: the netdev it runs over; held until rddp_dealloc_driver()
 *
 * Return: the registered device, or an ERR_PTR.
 */
struct rddp_device *rddp_device_create(const char *name,
				       struct net_device *netdev);

/**
 * rddp_device_get_by_netdev() - the rddp device bound to a netdev
 * @netdev: the netdev
 *
 * Looks in rddp's own table: devices of other drivers sharing the siw
 * driver id (siw itself) are never returned.
 *
 * Return: the device with a registration reference the caller drops with
 * rddp_device_put(), or NULL.
 */
struct rddp_device *rddp_device_get_by_netdev(struct net_device *netdev);

/**
 * rddp_device_put() - drop the reference rddp_device_get_by_netdev() took
 * @rdev: the device
 */
void rddp_device_put(struct rddp_device *rdev);

/**
 * rddp_port_state() - the port state rddp reports, in query_port and in
 * port events alike
 * @netdev: the device's netdev
 *
 * Return: IB_PORT_ACTIVE while the netdev is up and has carrier, else
 * IB_PORT_DOWN.
 */
static inline enum ib_port_state rddp_port_state(struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev) ?
		       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/**
 * rddp_params_check() - check the module parameters at load
 *
 * Return: 0, or -EINVAL (logged) for a value out of its range.
 */
int rddp_params_check(void);

/**
 * rddp_setup_timeout() - the CM's bound on connection setup, over every
 * transport
 *
 * Return: the mpa_timeout_ms module parameter (named when MPA was the one
 * transport), in jiffies.
 */
unsigned long rddp_setup_timeout(void);

/**
 * rddp_peer_timeout_valid() - whether a peer_timeout_ms value is allowed
 * @ms: the value
 *
 * Return: true for 0 (off) or RDDP_PEER_TIMEOUT_MIN..RDDP_PEER_TIMEOUT_MAX.
 */
bool rddp_peer_timeout_valid(u32 ms);

/**
 * rddp_settings_default() - a new device's settings, from the module
 * parameters
 * @s: the settings to fill
 */
void rddp_settings_default(struct rddp_settings *s);

/**
 * rddp_settings_get() - a consistent copy of a device's settings
 * @rdev: the device
 * @out: the copy (DEV_SET may replace the device's at any time)
 */
void rddp_settings_get(struct rddp_device *rdev, struct rddp_settings *out);

/* res.c */
extern const struct ib_device_ops rddp_res_ops;

/* stats.c */
extern const struct ib_device_ops rddp_stats_ops;

/**
 * rddp_stats_alloc() - allocate a device's per-CPU counters
 * @rdev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int rddp_stats_alloc(struct rddp_device *rdev);

/**
 * rddp_stats_free() - free a device's counters
 * @rdev: the device
 */
void rddp_stats_free(struct rddp_device *rdev);

/**
 * rddp_stat_read() - a counter summed over CPUs
 * @rdev: the device
 * @idx: the counter
 *
 * Return: its value.
 */
u64 rddp_stat_read(struct rddp_device *rdev, enum rddp_stat idx);

/**
 * rddp_stats_reset() - zero every counter of a device
 * @rdev: the device
 */
void rddp_stats_reset(struct rddp_device *rdev);

/**
 * rddp_stat_add() - add to a counter
 * @rdev: the device
 * @idx: the counter
 * @n: the amount
 *
 * Any context.
 */
static inline void rddp_stat_add(struct rddp_device *rdev, enum rddp_stat idx,
				 u64 n)
{
	this_cpu_add(rdev->stats->c[idx], n);
}

/**
 * rddp_stat_inc() - add one to a counter
 * @rdev: the device
 * @idx: the counter
 *
 * Any context.
 */
static inline void rddp_stat_inc(struct rddp_device *rdev, enum rddp_stat idx)
{
	rddp_stat_add(rdev, idx, 1);
}

/**
 * rddp_genl_init() - module init: register the rddp generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int rddp_genl_init(void);

/**
 * rddp_genl_exit() - module exit: unregister the family
 */
void rddp_genl_exit(void);

struct rddp_term_info;

/**
 * enum rddp_notify_type - what rddp_notify() reports
 * @RDDP_NOTIFY_DEV_ADDED: a device was registered (device.c)
 * @RDDP_NOTIFY_DEV_REMOVED: a device is going: from dealloc_driver, before
 *	anything of it is freed (device.c)
 * @RDDP_NOTIFY_QP_STATE: a QP changed state (qp.c, rddp_qp_set_state())
 * @RDDP_NOTIFY_TERM: a Terminate was sent or received (stream.c)
 * @RDDP_NOTIFY_CONN_FAILED: a connection setup failed (cm.c)
 */
enum rddp_notify_type {
	RDDP_NOTIFY_DEV_ADDED,
	RDDP_NOTIFY_DEV_REMOVED,
	RDDP_NOTIFY_QP_STATE,
	RDDP_NOTIFY_TERM,
	RDDP_NOTIFY_CONN_FAILED,
};

/**
 * struct rddp_notify - one event for rddp's observer (the genl family's
 * monitor group and device table, genl.c)
 * @type: enum rddp_notify_type
 * @rdev: the device
 * @qpn: QP_STATE, TERM: the QP's number
 * @qp_state: QP_STATE: its new state
 * @term_sent: TERM: sent (else received)
 * @term: TERM: its error fields
 * @remote: CONN_FAILED: the peer's address, or NULL
 * @err: CONN_FAILED: the negative errno the setup failed with
 *
 * The pointers are the caller's and valid only during the call: the
 * observer copies what it keeps.
 */
struct rddp_notify {
	enum rddp_notify_type type;
	struct rddp_device *rdev;
	u32 qpn;
	enum ib_qp_state qp_state;
	bool term_sent;
	const struct rddp_term_info *term;
	const struct sockaddr_storage *remote;
	int err;
};

/**
 * rddp_notify() - report an event to rddp's observer, if one is registered
 * @n: the event
 *
 * The one way the device, QP, stream and CM code tell the genl family
 * (genl.c) what happened: they name no function of it, and it names none
 * of theirs, so the family sits above them all (base.c). DEV_ADDED and
 * DEV_REMOVED come in process context and the observer may sleep for
 * them; every other event may come from any context (a QP state change
 * under queue spinlocks, a Terminate received in softirq), and the
 * observer neither sleeps nor takes a lock of rddp's for it.
 */
void rddp_notify(const struct rddp_notify *n);

/**
 * rddp_notify_register() - install the observer rddp_notify() calls
 * @fn: the observer, or NULL to remove it
 *
 * The genl family installs it at module init, before the first device can
 * exist, and removes it at module exit, after the last is gone (main.c's
 * order), so an event never races the change (base.c).
 */
void rddp_notify_register(void (*fn)(const struct rddp_notify *n));

/*
 * The unbound workqueue the CM's connection work, stream teardown and the
 * SCTP LLP's receive work run on (base.c); it lives from rddp_cm_init()
 * to rddp_cm_exit().
 */
extern struct workqueue_struct *rddp_wq;

/**
 * rddp_wq_init() - allocate rddp_wq (rddp_cm_init())
 *
 * Return: 0 or -ENOMEM.
 */
int rddp_wq_init(void);

/**
 * rddp_wq_exit() - destroy rddp_wq once every device is gone, after its
 * work has run (rddp_cm_exit())
 */
void rddp_wq_exit(void);

/**
 * rddp_device_init() - module init: follow siw's module loads (device.c
 * keeps siw loaded while rddp has devices)
 *
 * Return: 0 or a negative errno.
 */
int rddp_device_init(void);

/**
 * rddp_device_exit() - module exit: unregister every rddp device, wait
 * until no unregistration of one is in progress (the fence
 * ib_unregister_driver() would give, for rddp's devices alone)
 *
 * Called once no newlink can run and the netdev notifier is gone.
 */
void rddp_device_exit(void);

/**
 * rddp_link_init() - module init: register the "rddp" rdma link type
 *
 * Return: 0.
 */
int rddp_link_init(void);

/**
 * rddp_link_exit() - module exit: unregister the link type
 *
 * After this returns no newlink call is running or can start.
 */
void rddp_link_exit(void);

/**
 * rddp_netdev_init() - module init: register the netdev notifier that
 * follows the devices' netdevs (port state, name, unregistration)
 *
 * Return: 0 or a negative errno.
 */
int rddp_netdev_init(void);

/**
 * rddp_netdev_exit() - module exit: unregister the netdev notifier
 */
void rddp_netdev_exit(void);

/**
 * rddp_tx_init() - module init: allocate the TX workqueue (rddp_tx, per
 * CPU, high priority)
 *
 * Return: 0 or -ENOMEM.
 */
int rddp_tx_init(void);

/**
 * rddp_tx_exit() - module exit: destroy the TX workqueue
 */
void rddp_tx_exit(void);

/* verbs.c */
extern const struct ib_device_ops rddp_verbs_ops;

#endif /* RDDP_H */
