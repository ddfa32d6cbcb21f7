/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The rddp generic-netlink family: device settings, counters, connected QPs
 * and events of rddp software iWARP RNICs. Shared by rddp.ko and rddpctl.
 * Documentation/netlink/rddp.yaml describes the same family in YNL form and
 * Documentation/netlink-api.md explains each command.
 *
 * Every request names a device by RDDP_A_DEV_NAME (the ib_device name,
 * e.g. "rddp0") unless it dumps all devices. Unknown attributes are
 * refused (strict validation). SET and RESET need CAP_NET_ADMIN in the
 * user namespace owning the caller's network namespace; QP_GET gives a QP's
 * addresses only with CAP_NET_ADMIN over the device's network namespace.
 */
#ifndef _UAPI_LINUX_RDDP_NETLINK_H
#define _UAPI_LINUX_RDDP_NETLINK_H

#define RDDP_GENL_NAME		"rddp"
#define RDDP_GENL_VERSION	1
#define RDDP_GENL_MCGRP_MONITOR	"monitor"

enum rddp_cmd {
	RDDP_CMD_UNSPEC,
	/* doit with RDDP_A_DEV_NAME, or dump: one message per device */
	RDDP_CMD_DEV_GET,
	/* admin: RDDP_A_DEV_NAME + RDDP_A_DEV_SETTINGS (any subset) */
	RDDP_CMD_DEV_SET,
	/*
	 * dump, optionally filtered by RDDP_A_DEV_NAME: one message per QP;
	 * RDDP_A_QP_*_ADDR only for CAP_NET_ADMIN
	 */
	RDDP_CMD_QP_GET,
	/* admin: RDDP_A_DEV_NAME; zeroes the device's counters */
	RDDP_CMD_STATS_RESET,
	/* notification on the "monitor" group (RDDP_A_EVENT_*) */
	RDDP_CMD_EVENT,
	__RDDP_CMD_MAX,
};
#define RDDP_CMD_MAX (__RDDP_CMD_MAX - 1)

enum rddp_attr {
	RDDP_A_UNSPEC,
	RDDP_A_PAD,
	RDDP_A_DEV_NAME,		/* string: ib_device name */
	RDDP_A_DEV_INDEX,		/* u32: ib_device index */
	RDDP_A_DEV_NETDEV,		/* string: bound net_device */
	RDDP_A_DEV_NETDEV_INDEX,	/* u32: its ifindex */
	RDDP_A_DEV_PORT_STATE,		/* u8: enum ib_port_state of port 1 */
	RDDP_A_DEV_QPS,			/* u32: QPs in existence */
	RDDP_A_DEV_SETTINGS,		/* nest: RDDP_A_SET_* */
	RDDP_A_DEV_STATS,		/* nest: RDDP_A_STAT_* (u64 each) */
	RDDP_A_QP,			/* nest: RDDP_A_QP_* */
	RDDP_A_EVENT,			/* nest: RDDP_A_EVENT_* */
	__RDDP_A_MAX,
};
#define RDDP_A_MAX (__RDDP_A_MAX - 1)

/* Settings new connections use; module parameters give the defaults. */
enum rddp_set_attr {
	RDDP_A_SET_UNSPEC,
	RDDP_A_SET_CRC,		/* u8 0/1: request MPA CRC32c (C bit) */
	RDDP_A_SET_MARKERS,	/* u8 0/1: require markers towards us (M) */
	RDDP_A_SET_MPA_REV,	/* u8 1/2: highest MPA revision offered */
	RDDP_A_SET_TX_BATCH,	/* u8 0/1: a run's FPDUs in one socket send */
	RDDP_A_SET_TX_ZCOPY,	/* u8 0/1: lend payload pages to TCP, no CRC */
	/*
	 * u32: ms a connected peer may leave data unacknowledged, keepalives
	 * unanswered or an FPDU incomplete; 0 (off) or 1000-3600000
	 */
	RDDP_A_SET_PEER_TIMEOUT_MS,
	/* u8 enum rddp_transport: the LLP new connections use */
	RDDP_A_SET_TRANSPORT,
	/*
	 * u8 0/1: SCTP sockets (connect and listen) bind every address of
	 * the network namespace, for path failover (draft-ietf-rddp-sctp §4.2)
	 */
	RDDP_A_SET_MULTIHOME,
	__RDDP_A_SET_MAX,
};
#define RDDP_A_SET_MAX (__RDDP_A_SET_MAX - 1)

/* The lower-layer protocol of new connections (RDDP_A_SET_TRANSPORT). */
enum rddp_transport {
	RDDP_TRANSPORT_TCP,	/* MPA over TCP (RFC 5044, RFC 6581) */
	RDDP_TRANSPORT_SCTP,	/* DDP over SCTP (draft-ietf-rddp-sctp-00) */
	__RDDP_TRANSPORT_MAX,
};
#define RDDP_TRANSPORT_MAX (__RDDP_TRANSPORT_MAX - 1)

/*
 * Device counters (u64 each, RDDP_A_PAD for alignment). The same set, in
 * this order, is the port's hardware counters in `rdma statistic`.
 * Bytes are DDP payload octets (ULPDU minus DDP/RDMAP headers).
 */
enum rddp_stat_attr {
	RDDP_A_STAT_UNSPEC,
	RDDP_A_STAT_PAD,
	RDDP_A_STAT_TX_FPDUS,
	RDDP_A_STAT_TX_BYTES,
	RDDP_A_STAT_RX_FPDUS,
	RDDP_A_STAT_RX_BYTES,
	RDDP_A_STAT_RX_CRC_ERRORS,	/* RFC 5044 §8: CRC mismatch */
	RDDP_A_STAT_RX_MARKER_ERRORS,	/* RFC 5044 §4.3: bad marker */
	RDDP_A_STAT_RX_FRAMING_ERRORS,	/* other MPA framing errors */
	RDDP_A_STAT_TERM_TX_RDMAP,	/* Terminates sent, by layer */
	RDDP_A_STAT_TERM_TX_DDP,
	RDDP_A_STAT_TERM_TX_MPA,
	RDDP_A_STAT_TERM_RX_RDMAP,	/* Terminates received, by layer */
	RDDP_A_STAT_TERM_RX_DDP,
	RDDP_A_STAT_TERM_RX_MPA,
	RDDP_A_STAT_CONN_ATTEMPTS,	/* iw_connect calls */
	RDDP_A_STAT_CONN_ESTABLISHED,	/* connections in full operation */
	RDDP_A_STAT_CONN_REQUESTS,	/* MPA Requests received */
	RDDP_A_STAT_CONN_ACCEPTS,	/* iw_accept calls */
	RDDP_A_STAT_CONN_REJECTS,	/* iw_reject calls */
	RDDP_A_STAT_CONN_FAILURES,	/* setup failed (refused, bad frame) */
	RDDP_A_STAT_MPA_TIMEOUTS,	/* setup ran out of time */
	RDDP_A_STAT_TX_ZCOPY_BYTES,	/* octets lent to TCP (zero copy) */
	RDDP_A_STAT_MR_FAST_REGS,	/* IB_WR_REG_MR executed */
	RDDP_A_STAT_MR_LOCAL_INVALS,	/* LOCAL_INV, Read with invalidate */
	RDDP_A_STAT_MR_REMOTE_INVALS,	/* by a received Send with Invalidate */
	RDDP_A_STAT_SCTP_TX_CHUNKS,	/* SCTP DATA chunks written */
	RDDP_A_STAT_SCTP_RX_CHUNKS,	/* SCTP DATA chunks received */
	RDDP_A_STAT_SCTP_RX_HELD,	/* held: ahead of their DDP-SSN */
	RDDP_A_STAT_SCTP_RX_PLACED_EARLY, /* of those, tagged: placed at once */
	RDDP_A_STAT_SCTP_RESEGMENTS,	/* rebuilt smaller: path MTU fell */
	RDDP_A_STAT_TX_BATCHES,		/* TX runs that wrote: one LLP push each */
	RDDP_A_STAT_TX_FAR_KICKS,	/* TX queued elsewhere for a task's post */
	__RDDP_A_STAT_MAX,
};
#define RDDP_A_STAT_MAX (__RDDP_A_STAT_MAX - 1)

/* RDDP_A_QP_RTR values: the RFC 6581 RTR message in use. */
enum rddp_rtr {
	RDDP_RTR_NONE,
	RDDP_RTR_WRITE,		/* zero-length RDMA Write */
	RDDP_RTR_READ,		/* zero-length RDMA Read */
	RDDP_RTR_SEND,		/* zero-length Send */
};

enum rddp_qp_attr {
	RDDP_A_QP_UNSPEC,
	RDDP_A_QP_PAD,
	RDDP_A_QP_DEV_NAME,	/* string */
	RDDP_A_QP_NUM,		/* u32: QP number */
	RDDP_A_QP_STATE,	/* u8: enum ib_qp_state */
	RDDP_A_QP_CONNECTED,	/* flag: has an MPA stream */
	RDDP_A_QP_LOCAL_ADDR,	/* binary: sockaddr_in or _in6; admin only */
	RDDP_A_QP_REMOTE_ADDR,	/* binary: sockaddr_in or _in6; admin only */
	RDDP_A_QP_MPA_REV,	/* u8 */
	RDDP_A_QP_CRC,		/* u8 0/1 */
	RDDP_A_QP_MARKERS_TX,	/* u8 0/1: we insert markers */
	RDDP_A_QP_MARKERS_RX,	/* u8 0/1: the peer inserts markers */
	RDDP_A_QP_IRD,		/* u16 */
	RDDP_A_QP_ORD,		/* u16 */
	RDDP_A_QP_RTR,		/* u8: enum rddp_rtr */
	RDDP_A_QP_MULPDU,	/* u32 */
	RDDP_A_QP_TX_FPDUS,	/* u64 */
	RDDP_A_QP_TX_BYTES,	/* u64 */
	RDDP_A_QP_RX_FPDUS,	/* u64 */
	RDDP_A_QP_RX_BYTES,	/* u64 */
	RDDP_A_QP_ERROR,	/* string: the first error on the stream */
	RDDP_A_QP_TERM_TX,	/* nest RDDP_A_TERM_*: the Terminate we sent */
	RDDP_A_QP_TERM_RX,	/* nest RDDP_A_TERM_*: the one we received */
	RDDP_A_QP_TRANSPORT,	/* u8: enum rddp_transport of the stream */
	RDDP_A_QP_TX_SSN,	/* u16, SCTP: our next DDP-SSN */
	RDDP_A_QP_RX_SSN,	/* u16, SCTP: the next DDP-SSN to deliver */
	__RDDP_A_QP_MAX,
};
#define RDDP_A_QP_MAX (__RDDP_A_QP_MAX - 1)

/* A Terminate's error fields (RFC 5040 §4.8). */
enum rddp_term_attr {
	RDDP_A_TERM_UNSPEC,
	RDDP_A_TERM_LAYER,	/* u8: 0 RDMAP, 1 DDP, 2 LLP (MPA) */
	RDDP_A_TERM_ETYPE,	/* u8: error type */
	RDDP_A_TERM_ECODE,	/* u8: error code */
	__RDDP_A_TERM_MAX,
};
#define RDDP_A_TERM_MAX (__RDDP_A_TERM_MAX - 1)

enum rddp_event_type {
	RDDP_EVENT_UNSPEC,
	RDDP_EVENT_QP_STATE,	/* a QP changed state (RDDP_A_EVENT_QP_STATE) */
	RDDP_EVENT_TERM_TX,	/* we sent a Terminate (RDDP_A_EVENT_TERM) */
	RDDP_EVENT_TERM_RX,	/* we received a Terminate */
	RDDP_EVENT_CONN_FAILED,	/* setup failed (RDDP_A_EVENT_ERRNO) */
	RDDP_EVENT_DEV_ADDED,
	RDDP_EVENT_DEV_REMOVED,
};

enum rddp_event_attr {
	RDDP_A_EVENT_UNSPEC,
	RDDP_A_EVENT_TYPE,	/* u8: enum rddp_event_type */
	RDDP_A_EVENT_DEV_NAME,	/* string */
	RDDP_A_EVENT_QP_NUM,	/* u32 */
	RDDP_A_EVENT_QP_STATE,	/* u8: enum ib_qp_state, the new state */
	RDDP_A_EVENT_TERM,	/* nest RDDP_A_TERM_* */
	RDDP_A_EVENT_ERRNO,	/* u32: positive errno */
	RDDP_A_EVENT_REMOTE_ADDR, /* binary: struct sockaddr_in or _in6 */
	__RDDP_A_EVENT_MAX,
};
#define RDDP_A_EVENT_MAX (__RDDP_A_EVENT_MAX - 1)

#endif /* _UAPI_LINUX_RDDP_NETLINK_H */
