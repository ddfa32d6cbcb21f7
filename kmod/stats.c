// SPDX-License-Identifier: GPL-2.0
/*
 * Device counters: per-CPU u64s bumped by the data path (qp_tx.c, qp_rx.c,
 * llp_mpa.c, llp_sctp.c, stream.c) and the CM (cm.c), read through the genl
 * family (genl.c) and as the port's hardware counters
 * (`rdma statistic show link rddp0/1`).
 *
 * A reset zeroes every CPU's copy; an increment racing with it on another
 * CPU may survive it. Counters are statistics, not accounting.
 */
#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

#include "rddp.h"

/* Names in `rdma statistic` and rddpctl: the uapi order (rddp_netlink.h). */
static const struct rdma_stat_desc rddp_stat_descs[RDDP_STAT_NUM] = {
	[RDDP_STAT_TX_FPDUS] = { .name = "tx_fpdus" },
	[RDDP_STAT_TX_BYTES] = { .name = "tx_bytes" },
	[RDDP_STAT_RX_FPDUS] = { .name = "rx_fpdus" },
	[RDDP_STAT_RX_BYTES] = { .name = "rx_bytes" },
	[RDDP_STAT_RX_CRC_ERRORS] = { .name = "rx_crc_errors" },
	[RDDP_STAT_RX_MARKER_ERRORS] = { .name = "rx_marker_errors" },
	[RDDP_STAT_RX_FRAMING_ERRORS] = { .name = "rx_framing_errors" },
	[RDDP_STAT_TERM_TX_RDMAP] = { .name = "term_tx_rdmap" },
	[RDDP_STAT_TERM_TX_DDP] = { .name = "term_tx_ddp" },
	[RDDP_STAT_TERM_TX_MPA] = { .name = "term_tx_mpa" },
	[RDDP_STAT_TERM_RX_RDMAP] = { .name = "term_rx_rdmap" },
	[RDDP_STAT_TERM_RX_DDP] = { .name = "term_rx_ddp" },
	[RDDP_STAT_TERM_RX_MPA] = { .name = "term_rx_mpa" },
	[RDDP_STAT_CONN_ATTEMPTS] = { .name = "conn_attempts" },
	[RDDP_STAT_CONN_ESTABLISHED] = { .name = "conn_established" },
	[RDDP_STAT_CONN_REQUESTS] = { .name = "conn_requests" },
	[RDDP_STAT_CONN_ACCEPTS] = { .name = "conn_accepts" },
	[RDDP_STAT_CONN_REJECTS] = { .name = "conn_rejects" },
	[RDDP_STAT_CONN_FAILURES] = { .name = "conn_failures" },
	[RDDP_STAT_SETUP_TIMEOUTS] = { .name = "mpa_timeouts" },
	[RDDP_STAT_TX_ZCOPY_BYTES] = { .name = "tx_zcopy_bytes" },
	[RDDP_STAT_MR_FAST_REGS] = { .name = "mr_fast_regs" },
	[RDDP_STAT_MR_LOCAL_INVALS] = { .name = "mr_local_invals" },
	[RDDP_STAT_MR_REMOTE_INVALS] = { .name = "mr_remote_invals" },
	[RDDP_STAT_SCTP_TX_CHUNKS] = { .name = "sctp_tx_chunks" },
	[RDDP_STAT_SCTP_RX_CHUNKS] = { .name = "sctp_rx_chunks" },
	[RDDP_STAT_SCTP_RX_HELD] = { .name = "sctp_rx_held" },
	[RDDP_STAT_SCTP_RX_PLACED_EARLY] = { .name = "sctp_rx_placed_early" },
	[RDDP_STAT_SCTP_RESEGMENTS] = { .name = "sctp_resegments" },
	[RDDP_STAT_TX_BATCHES] = { .name = "tx_batches" },
	[RDDP_STAT_TX_FAR_KICKS] = { .name = "tx_far_kicks" },
};

int rddp_stats_alloc(struct rddp_device *rdev)
{
	rdev->stats = alloc_percpu(struct rddp_stats);
	return rdev->stats ? 0 : -ENOMEM;
}

void rddp_stats_free(struct rddp_device *rdev)
{
	free_percpu(rdev->stats);
	rdev->stats = NULL;
}

u64 rddp_stat_read(struct rddp_device *rdev, enum rddp_stat idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rdev->stats, cpu)->c[idx]);
	return sum;
}

void rddp_stats_reset(struct rddp_device *rdev)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < RDDP_STAT_NUM; i++)
			WRITE_ONCE(per_cpu_ptr(rdev->stats, cpu)->c[i], 0);
}

/* The core frees the struct when the device goes. */
static struct rdma_hw_stats *rddp_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port)
{
	return rdma_alloc_hw_stats_struct(rddp_stat_descs, RDDP_STAT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int rddp_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct rddp_device *rdev = to_rddp_dev(ibdev);
	int i;

	for (i = 0; i < RDDP_STAT_NUM; i++)
		stats->value[i] = rddp_stat_read(rdev, i);
	return RDDP_STAT_NUM;
}

const struct ib_device_ops rddp_stats_ops = {
	.alloc_hw_port_stats = rddp_alloc_hw_port_stats,
	.get_hw_stats = rddp_get_hw_stats,
};
