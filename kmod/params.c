// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters: the defaults for MPA connection setup (RFC 5044 §7.1,
 * RFC 6581), for a connection's liveness bound and for the transport
 * (MPA over TCP, or DDP over SCTP: draft-ietf-rddp-sctp-00) that every new
 * rddp device starts with. Read-only in sysfs; per-device settings change at
 * run time through the generic-netlink API.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <uapi/linux/rddp_netlink.h>

#include "rddp.h"

static int mpa_crc = 1;
module_param(mpa_crc, int, 0444);
MODULE_PARM_DESC(mpa_crc, "Request MPA CRC32c (1, default) or not (0); a peer's request is always honoured");

static int mpa_markers;
module_param(mpa_markers, int, 0444);
MODULE_PARM_DESC(mpa_markers, "Require MPA markers on received FPDUs (1) or not (0, default); a peer's request is always honoured");

static int mpa_rev = 2;
module_param(mpa_rev, int, 0444);
MODULE_PARM_DESC(mpa_rev, "Highest MPA revision to negotiate: 2 (RFC 6581, default) or 1");

static unsigned int mpa_timeout_ms = 10000;
module_param(mpa_timeout_ms, uint, 0444);
MODULE_PARM_DESC(mpa_timeout_ms, "Bound on TCP connect plus the MPA Request/Reply exchange, in ms (1000-600000, default 10000)");

/*
 * 60 s: a live peer answers a keepalive within an RTT, and TCP's backed-off
 * retransmissions of one segment add up to a minute only after eight of
 * them are lost in a row; yet a crashed host's QPs, and the memory they
 * pin, come back within a minute, where TCP alone takes about 15 min with
 * data outstanding (tcp_retries2) and forever without.
 */
static unsigned int peer_timeout_ms = 60000;
module_param(peer_timeout_ms, uint, 0444);
MODULE_PARM_DESC(peer_timeout_ms, "Default bound, in ms, on a connected peer that stops acknowledging data, answering keepalives or completing an FPDU; 0 disables (1000-3600000, default 60000)");

static char *transport = "tcp";
module_param(transport, charp, 0444);
MODULE_PARM_DESC(transport, "Transport of the connections a new device initiates: tcp (MPA, default) or sctp (draft-ietf-rddp-sctp-00)");

static bool multihome;
module_param(multihome, bool, 0444);
MODULE_PARM_DESC(multihome, "SCTP connections and listeners of a new device bind every address of the network namespace, for path failover (draft-ietf-rddp-sctp-00 §4.2; default off: one address)");

/* The transport parameter as enum rddp_transport, or -EINVAL. */
static int rddp_transport_param(void)
{
	if (!transport || sysfs_streq(transport, "tcp"))
		return RDDP_TRANSPORT_TCP;
	if (sysfs_streq(transport, "sctp"))
		return RDDP_TRANSPORT_SCTP;
	return -EINVAL;
}

bool rddp_peer_timeout_valid(u32 ms)
{
	return !ms || (ms >= RDDP_PEER_TIMEOUT_MIN &&
		       ms <= RDDP_PEER_TIMEOUT_MAX);
}

unsigned long rddp_setup_timeout(void)
{
	return msecs_to_jiffies(mpa_timeout_ms);
}

int rddp_params_check(void)
{
	if (!rddp_peer_timeout_valid(peer_timeout_ms)) {
		pr_err("rddp: peer_timeout_ms must be 0 or 1000-3600000, not %u\n",
		       peer_timeout_ms);
		return -EINVAL;
	}
	if (mpa_timeout_ms < 1000 || mpa_timeout_ms > 600000) {
		pr_err("rddp: mpa_timeout_ms must be 1000-600000, not %u\n",
		       mpa_timeout_ms);
		return -EINVAL;
	}
	if (mpa_crc != 0 && mpa_crc != 1) {
		pr_err("rddp: mpa_crc must be 0 or 1, not %d\n", mpa_crc);
		return -EINVAL;
	}
	if (mpa_markers != 0 && mpa_markers != 1) {
		pr_err("rddp: mpa_markers must be 0 or 1, not %d\n",
		       mpa_markers);
		return -EINVAL;
	}
	if (mpa_rev != 1 && mpa_rev != 2) {
		pr_err("rddp: mpa_rev must be 1 or 2, not %d\n", mpa_rev);
		return -EINVAL;
	}
	if (rddp_transport_param() < 0) {
		pr_err("rddp: transport must be tcp or sctp, not %s\n",
		       transport);
		return -EINVAL;
	}
	return 0;
}

void rddp_settings_default(struct rddp_settings *s)
{
	s->crc = mpa_crc;
	s->markers = mpa_markers;
	s->mpa_rev = mpa_rev;
	s->tx_batch = 1;
	s->tx_zcopy = 1;
	s->peer_timeout_ms = peer_timeout_ms;
	s->transport = rddp_transport_param();
	s->multihome = multihome;
}

void rddp_settings_get(struct rddp_device *rdev, struct rddp_settings *out)
{
	spin_lock_bh(&rdev->settings_lock);
	*out = rdev->settings;
	spin_unlock_bh(&rdev->settings_lock);
}
