// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rddp_sctp_flood: a peer of rddp's SCTP listener that sends DDP-SSNs out
 * of order (draft-ietf-rddp-sctp-00 §7) and never the missing one, for
 * tests/vm/sctp.sh (Documentation/wire-sctp.md, "Holding chunks ahead of
 * their turn"). Prints TAP (tests/vm relays it with t_relay).
 *
 *   rddp_sctp_flood held ADDR PORT [options]
 *	--assocs N associations (one-to-one sockets, Adaptation Layer
 *	Indication 2), each a session: Initiate (DDP-SSN 1), rddp's Accept;
 *	then Sends with DDP-SSNs 3, 4, ... (2 is never sent), --bytes octets
 *	per association in chunks of --chunk octets, as fast as SCTP takes
 *	them. Checks that rddp ends every association, each within --end-ms
 *	of its first chunk out of order (the gap bound, peer_timeout_ms), that
 *	kernel memory (/proc/meminfo Slab + VmallocUsed) never grew by more
 *	than --max-kb over what it was before, and that SCTP's accounted
 *	memory (/proc/net/protocols) comes back once the probe closed its
 *	sockets.
 *   rddp_sctp_flood early ADDR PORT [options]
 *	The same without the Initiate: DDP-SSNs 2, 3, ... from the start.
 *	§3.6 lets nothing overtake the Initiate: rddp must hold nothing and
 *	end each association within --end-ms.
 *   rddp_sctp_flood after-error ADDR PORT [options]
 *	One session (RFC 5040 §5.3: nothing is delivered after the error that
 *	ends the stream), against an rping server (one posted receive of 16
 *	octets): DDP-SSN 3, a Read Response while no Read is outstanding
 *	(RFC 5040 §4.5, an error at its turn), 4, a Send of 7 octets that
 *	would complete the server's receive, 5 and on, Sends of --bytes in all,
 *	with 2, an empty RDMA Write that fills the gap, after three quarters of
 *	them. rddp must Terminate at 3's turn and complete nothing: rping
 *	prints "Received bogus data, size 7" if the Send completed. Prints the
 *	Terminate received ("terminate: layer L etype E ecode 0xCC"). All in
 *	one sendmmsg() burst, at real-time priority so that rddp reads none of
 *	it before the burst is over; with a send buffer (--sndbuf) and --bytes
 *	larger than rddp's window, the probe's SCTP then has chunks waiting
 *	when rddp reads: the window updates rddp's reads send let more in
 *	while its receive work runs, which queues the work again
 *	(sk_data_ready), and its next run can come before the CM stops the
 *	stream (with two CPUs it does: one User-Mode Linux CPU runs the CM
 *	first).
 *
 * Options: --assocs N (64), --bytes B (2 MiB), --chunk C (16000), --end-ms
 * E (30000), --max-kb M (0: not checked), --sndbuf S (the probe's send
 * buffer, SO_SNDBUFFORCE where allowed; 131072).
 *
 * Uses only the kernel's UAPI (<linux/sctp.h>), not libsctp.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sctp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SOL_SCTP_ IPPROTO_SCTP	/* glibc names SOL_SCTP only in libsctp */
#define PPID_SEGMENT 1
#define PPID_CONTROL 2
#define FC_INITIATE 2
#define FC_ACCEPT 3
#define FC_TERMINATE 4
#define MAX_ASSOCS 256

struct opts {
	int assocs;
	long bytes;
	int chunk;
	long end_ms;
	long max_kb;
	int sndbuf;
};

struct assoc {
	int fd;
	uint16_t ssn;		/* the next DDP-SSN to send */
	long sent;		/* octets of out-of-order chunks sent */
	bool accepted;		/* rddp's Accept came */
	bool done;		/* nothing more to send */
	bool ended;		/* rddp ended the association */
	double t_gap;		/* the first chunk out of order went */
	double t_end;		/* it ended */
	double blocked;		/* since when SCTP takes nothing, or 0 */
	char how[48];		/* how it ended */
};

static int tap_n, tap_failed;

static void check(bool ok, const char *name, const char *detail)
{
	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", tap_n, name);
	if (!ok && detail && *detail)
		printf("#   %s\n", detail);
	fflush(stdout);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A /proc/meminfo field, in KiB (-1 if absent). */
static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * SCTP's accounted memory (the protocol's memory_allocated, the pages
 * net.sctp.sctp_mem limits), in KiB, from /proc/net/protocols: the
 * "SCTP" row's fourth column, in pages.
 */
static long sctp_mem_kb(void)
{
	char line[512], name[32];
	long size, socks, v, pages = -1;
	FILE *f = fopen("/proc/net/protocols", "r");

	if (!f)
		return -1;
	while (pages < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %ld %ld %ld", name, &size, &socks,
			   &v) == 4 && !strcmp(name, "SCTP"))
			pages = v;
	}
	fclose(f);
	return pages < 0 ? -1 : pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Kernel memory that held chunks would take: Slab (kmalloc) + vmalloc. */
static long kmem_kb(void)
{
	return meminfo_kb("Slab") + meminfo_kb("VmallocUsed");
}

struct mem {
	long base_k, base_s;	/* before */
	long peak_k, peak_s;	/* the most, as growth over before */
};

static void mem_sample(struct mem *m)
{
	long k = kmem_kb() - m->base_k, s = sctp_mem_kb() - m->base_s;

	if (k > m->peak_k)
		m->peak_k = k;
	if (s > m->peak_s)
		m->peak_s = s;
}

#define CMSG_SNDRCV CMSG_SPACE(sizeof(struct sctp_sndrcvinfo))

/*
 * One unordered message (§7) on stream 0, PPID @ppid: DDP-SSN @ssn, then
 * the @len octets at @body, written to @d (2 + @len octets). @mh takes
 * @iov and the SCTP_SNDRCV cmsg in @cbuf (CMSG_SNDRCV octets).
 */
static void chunk_msg(struct msghdr *mh, struct iovec *iov, char *cbuf,
		      uint8_t *d, uint32_t ppid, uint16_t ssn,
		      const uint8_t *body, size_t len)
{
	struct sctp_sndrcvinfo info = { 0 };
	struct cmsghdr *c;

	d[0] = ssn >> 8;
	d[1] = ssn & 0xff;
	memcpy(d + 2, body, len);
	iov->iov_base = d;
	iov->iov_len = 2 + len;
	memset(mh, 0, sizeof(*mh));
	memset(cbuf, 0, CMSG_SNDRCV);
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	mh->msg_control = cbuf;
	mh->msg_controllen = CMSG_SNDRCV;
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SCTP_;
	c->cmsg_type = SCTP_SNDRCV;
	c->cmsg_len = CMSG_LEN(sizeof(info));
	info.sinfo_ppid = htonl(ppid);	/* passed through unconverted */
	info.sinfo_flags = SCTP_UNORDERED;
	memcpy(CMSG_DATA(c), &info, sizeof(info));
}

/* One message of chunk_msg(), sent with @flags. */
static int send_chunk(int fd, uint32_t ppid, uint16_t ssn, const uint8_t *body,
		      size_t len, int flags)
{
	uint8_t *msg = malloc(2 + len);
	char cbuf[CMSG_SNDRCV];
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;

	if (!msg)
		return -1;
	chunk_msg(&mh, &iov, cbuf, msg, ppid, ssn, body, len);
	n = sendmsg(fd, &mh, flags | MSG_NOSIGNAL);
	free(msg);
	return n == (ssize_t)(2 + len) ? 0 : -1;
}

/* An Initiate (§2.2.3) with rddp's IRD/ORD prefix (IRD 1, ORD 1). */
static int send_initiate(int fd)
{
	uint8_t b[2 + 4 + 16] = { 0, FC_INITIATE, 0, 1, 0, 1 };

	memcpy(b + 6, "rddp_sctp_flood!", 16);
	return send_chunk(fd, PPID_CONTROL, 1, b, sizeof(b), 0);
}

/*
 * A DDP segment in @b: the header @h (@hlen octets) with @v in network
 * order at octet @at (the MSN, the STag), then @len octets of @fill.
 */
static size_t build_seg(uint8_t *b, const uint8_t *h, size_t hlen, size_t at,
			uint32_t v, uint8_t fill, size_t len)
{
	memcpy(b, h, hlen);
	b[at] = v >> 24;
	b[at + 1] = v >> 16;
	b[at + 2] = v >> 8;
	b[at + 3] = v;
	memset(b + hlen, fill, len);
	return hlen + len;
}

/*
 * A Send (RFC 5041 §4.3, RFC 5040 §4.2: untagged, L, DV 1, RV 1, opcode
 * 3; QN 0, MSN @msn, MO 0) carrying @len octets of 0x5a, in @b.
 */
static size_t build_send(uint8_t *b, uint32_t msn, size_t len)
{
	const uint8_t h[18] = { 0x41, 0x43 };

	return build_seg(b, h, sizeof(h), 10, msn, 0x5a, len);
}

/* A tagged segment (T, L, DV 1, RV 1, @opcode), STag @stag, TO 0. */
static size_t build_tagged(uint8_t *b, uint8_t opcode, uint32_t stag,
			   size_t len)
{
	const uint8_t h[14] = { 0xc1, 0x40 | opcode };

	return build_seg(b, h, sizeof(h), 2, stag, 0xee, len);
}

static int open_one(const struct sockaddr *sa, socklen_t alen, int sndbuf)
{
	struct sctp_setadaptation ad = { .ssb_adaptation_ind = 2 };
	struct sctp_event_subscribe ev = { 0 };
	struct timeval tv = { 10, 0 };
	int fd = socket(sa->sa_family, SOCK_STREAM, IPPROTO_SCTP), err;

	if (fd < 0)
		return -1;
	ev.sctp_data_io_event = 1;
	ev.sctp_association_event = 1;
	ev.sctp_shutdown_event = 1;
	if (setsockopt(fd, SOL_SCTP_, SCTP_ADAPTATION_LAYER, &ad, sizeof(ad)) ||
	    setsockopt(fd, SOL_SCTP_, SCTP_EVENTS, &ev, sizeof(ev)) ||
	    (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
			sizeof(sndbuf)) &&
	     setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf))) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, sa, alen)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * An association, again while the listener's accept queue is full (its
 * backlog, rping's 3: SCTP then aborts the INIT's association): 10 s at
 * most.
 */
static int open_assoc(const struct sockaddr *sa, socklen_t alen, int sndbuf)
{
	double t0 = now_ms();
	int fd;

	while ((fd = open_one(sa, alen, sndbuf)) < 0 && errno == ECONNREFUSED &&
	       now_ms() - t0 < 10000)
		usleep(50000);
	return fd;
}

static void ended(struct assoc *a, const char *how)
{
	if (a->ended)
		return;
	a->ended = true;
	a->done = true;
	a->t_end = now_ms();
	snprintf(a->how, sizeof(a->how), "%s", how);
}

/* An RFC 5040 Terminate (PPID 1, untagged, QN 2): layer, type, code. */
static void print_terminate(const uint8_t *m, ssize_t len)
{
	const uint8_t *t = m + 2 + 18;

	if (len < 2 + 18 + 2 || (m[2] & 0x80) ||
	    m[2 + 6] || m[2 + 7] || m[2 + 8] || m[2 + 9] != 2)
		return;
	printf("terminate: layer %u etype %u ecode 0x%02x\n", t[0] >> 4,
	       t[0] & 0xfu, t[1]);
}

/* Read what @a has queued, without waiting; note its Accept or its end. */
static void drain(struct assoc *a, bool verbose)
{
	static uint8_t buf[65536];
	char cbuf[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh;
	struct cmsghdr *c;
	union sctp_notification *no = (void *)buf;
	uint32_t ppid;
	ssize_t n;

	while (!a->ended) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(a->fd, &mh, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			ended(a, errno == ECONNRESET ? "aborted" : "error");
			return;
		}
		if (!n) {
			ended(a, "shut down");
			return;
		}
		if (mh.msg_flags & MSG_NOTIFICATION) {
			if (no->sn_header.sn_type == SCTP_SHUTDOWN_EVENT)
				ended(a, "shut down");
			if (no->sn_header.sn_type == SCTP_ASSOC_CHANGE &&
			    no->sn_assoc_change.sac_state != SCTP_COMM_UP)
				ended(a, no->sn_assoc_change.sac_state ==
					 SCTP_COMM_LOST ? "aborted" : "closed");
			continue;
		}
		ppid = 0;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SCTP_ &&
			    c->cmsg_type == SCTP_SNDRCV)
				ppid = ntohl(((struct sctp_sndrcvinfo *)
					      CMSG_DATA(c))->sinfo_ppid);
		if (ppid == PPID_CONTROL && n >= 4 && buf[3] == FC_ACCEPT)
			a->accepted = true;
		if (ppid == PPID_SEGMENT && verbose)
			print_terminate(buf, n);
		if (verbose)
			printf("data: ppid %u ssn %u len %zd\n", ppid,
			       buf[0] << 8 | buf[1], n);
	}
}

static int resolve(const char *addr, const char *port,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { 0 }, *ai = NULL;

	hints.ai_family = AF_UNSPEC;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(addr, port, &hints, &ai) || !ai)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/*
 * Opens o->assocs associations; with @initiate, one session at a time,
 * each Accept awaited (10 s at most) before the next Initiate: the
 * server's listen backlog (rping's is 3) bounds the requests pending.
 */
static int setup(struct assoc *as, const struct opts *o,
		 const struct sockaddr *sa, socklen_t alen, bool initiate)
{
	int i, up = 0, acc = 0;
	double t0;
	char d[128];

	for (i = 0; i < o->assocs; i++) {
		memset(&as[i], 0, sizeof(as[i]));
		as[i].fd = open_assoc(sa, alen, o->sndbuf);
		as[i].ssn = initiate ? 3 : 2;
		if (as[i].fd < 0) {
			as[i].ended = as[i].done = true;
			continue;
		}
		up++;
		if (!initiate)
			continue;
		if (send_initiate(as[i].fd))
			ended(&as[i], "no Initiate");
		for (t0 = now_ms(); now_ms() - t0 < 10000 && !as[i].accepted &&
		     !as[i].ended; usleep(5000))
			drain(&as[i], false);
		acc += as[i].accepted;
	}
	snprintf(d, sizeof(d), "%d of %d", up, o->assocs);
	check(up == o->assocs, "every association is set up", d);
	if (!initiate)
		return up == o->assocs ? 0 : -1;
	snprintf(d, sizeof(d), "%d of %d accepted", acc, o->assocs);
	check(acc == o->assocs, "rddp accepts every session (its Accept came)",
	      d);
	return acc == o->assocs ? 0 : -1;
}

/* One round: a chunk to each association that takes one. */
static bool flood_round(struct assoc *as, const struct opts *o, uint8_t *b,
			size_t blen)
{
	bool more = false;
	double t;
	int i;

	for (i = 0; i < o->assocs; i++) {
		struct assoc *a = &as[i];

		drain(a, false);
		if (a->done)
			continue;
		more = true;
		t = now_ms();
		if (send_chunk(a->fd, PPID_SEGMENT, a->ssn, b, blen,
			       MSG_DONTWAIT)) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				a->done = true;
			else if (!a->blocked)
				a->blocked = t;
			else if (t - a->blocked > 3000)
				a->done = true;	/* SCTP takes no more */
			continue;
		}
		if (!a->t_gap)
			a->t_gap = t;
		a->blocked = 0;
		a->ssn++;
		a->sent += blen + 2;
		if (a->sent >= o->bytes)
			a->done = true;
	}
	return more;
}

static int run_flood(const char *addr, const char *port, const struct opts *o,
		     bool initiate)
{
	static struct assoc as[MAX_ASSOCS];
	struct sockaddr_storage ss;
	struct mem m = { 0 };
	socklen_t alen;
	uint8_t *b = malloc(o->chunk);
	size_t blen;
	long sent = 0, worst = 0, k, s, slack;
	int i, n_end = 0, late = 0;
	double t0, last = 0;
	char d[256];

	if (!b || resolve(addr, port, &ss, &alen))
		return 64;
	blen = build_send(b, 1, o->chunk - 2 - 18);
	m.base_k = kmem_kb();
	m.base_s = sctp_mem_kb();
	printf("# before: kernel memory %ld KiB (Slab + VmallocUsed), SCTP %ld KiB\n",
	       m.base_k, m.base_s);
	if (setup(as, o, (struct sockaddr *)&ss, alen, initiate))
		goto out;
	t0 = now_ms();
	while (flood_round(as, o, b, blen))
		if (now_ms() - last > 100) {
			mem_sample(&m);
			last = now_ms();
		}
	for (i = 0; i < o->assocs; i++)
		sent += as[i].sent;
	printf("# sent %ld KiB out of DDP-SSN order in %.0f ms\n", sent >> 10,
	       now_ms() - t0);
	/* Wait for rddp to end every association. */
	while (now_ms() - t0 < o->end_ms + 30000) {
		for (i = 0, n_end = 0; i < o->assocs; i++) {
			drain(&as[i], false);
			n_end += as[i].ended;
		}
		mem_sample(&m);
		if (n_end == o->assocs)
			break;
		usleep(100000);
	}
	for (i = 0; i < o->assocs; i++) {
		double t = as[i].ended ? as[i].t_end - as[i].t_gap : -1;

		if (!as[i].ended || t > o->end_ms)
			late++;
		if (t > worst)
			worst = t;
		if (i < 4 || !as[i].ended)
			printf("# association %d: %ld KiB sent, %s after %.0f ms\n",
			       i + 1, as[i].sent >> 10,
			       as[i].ended ? as[i].how : "still open", t);
	}
	snprintf(d, sizeof(d), "%d of %d ended", n_end, o->assocs);
	check(n_end == o->assocs, "rddp ends every association", d);
	snprintf(d, sizeof(d), "%d late or open; the slowest after %ld ms",
		 late, worst);
	check(!late, "each within its bound of its first chunk out of order",
	      d);
	printf("# the slowest ended %ld ms after its first chunk out of order (bound %ld ms)\n",
	       worst, o->end_ms);
	printf("# peak growth: kernel memory %ld KiB, SCTP's accounted %ld KiB\n",
	       m.peak_k, m.peak_s);
	if (o->max_kb) {
		snprintf(d, sizeof(d), "grew by %ld KiB at most, bound %ld KiB",
			 m.peak_k, o->max_kb);
		check(m.peak_k <= o->max_kb,
		      "kernel memory grew by less than the bound", d);
	}
out:
	for (i = 0; i < o->assocs; i++)
		if (as[i].fd >= 0)
			close(as[i].fd);
	/*
	 * SCTP gives its memory back as the associations go. The counter
	 * moves in steps: each CPU keeps up to 1 MiB of it to itself
	 * (SK_MEMORY_PCPU_RESERVE, Linux 6.1), so "back" is within that.
	 */
	slack = sysconf(_SC_NPROCESSORS_CONF) * 1024 + 256;
	for (t0 = now_ms(); now_ms() - t0 < 20000; usleep(100000)) {
		s = sctp_mem_kb() - m.base_s;
		if (s <= slack)
			break;
	}
	k = kmem_kb() - m.base_k;
	s = sctp_mem_kb() - m.base_s;
	printf("# after: kernel memory %+ld KiB, SCTP %+ld KiB\n", k, s);
	snprintf(d, sizeof(d), "SCTP still has %ld KiB more than before (slack %ld)",
		 s, slack);
	check(s <= slack,
	      "SCTP's accounted memory is back once the sockets closed", d);
	free(b);
	printf("1..%d\n# %d failed\n", tap_n, tap_failed);
	return tap_failed ? 1 : 0;
}

/*
 * Messages sent by one sendmmsg() call each: on one CPU without kernel
 * preemption (User-Mode Linux) the receiver does not run in between.
 */
struct burst {
	struct mmsghdr *mm;
	struct iovec *iov;
	uint8_t *data;		/* @n slots of @slot octets: DDP-SSN + body */
	char *cbuf;		/* @n SCTP_SNDRCV cmsgs */
	size_t slot;
	unsigned int n, max;
};

static int burst_init(struct burst *bu, unsigned int max, size_t slot)
{
	bu->mm = calloc(max, sizeof(*bu->mm));
	bu->iov = calloc(max, sizeof(*bu->iov));
	bu->data = calloc(max, slot);
	bu->cbuf = calloc(max, CMSG_SNDRCV);
	bu->slot = slot;
	bu->n = 0;
	bu->max = max;
	return bu->mm && bu->iov && bu->data && bu->cbuf ? 0 : -1;
}

/* Adds DDP-SSN @ssn and the @len octets at @body (PPID 1, unordered). */
static void burst_add(struct burst *bu, uint16_t ssn, const uint8_t *body,
		      size_t len)
{
	chunk_msg(&bu->mm[bu->n].msg_hdr, &bu->iov[bu->n],
		  bu->cbuf + bu->n * CMSG_SNDRCV, bu->data + bu->n * bu->slot,
		  PPID_SEGMENT, ssn, body, len);
	bu->n++;
}

/* Sends them all; returns how many went. */
static unsigned int burst_send(int fd, struct burst *bu)
{
	unsigned int done = 0;
	int n;

	while (done < bu->n) {
		n = sendmmsg(fd, bu->mm + done, bu->n - done, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		done += n;
	}
	return done;
}

static void burst_free(struct burst *bu)
{
	free(bu->mm);
	free(bu->iov);
	free(bu->data);
	free(bu->cbuf);
}

/* after-error: see the top. */
static int run_after_error(const char *addr, const char *port,
			   const struct opts *o)
{
	struct burst bu;
	struct assoc a;
	struct sockaddr_storage ss;
	socklen_t alen;
	uint8_t *b = malloc(o->chunk);
	unsigned int max = o->bytes / o->chunk + 4, went, fill = 0;
	uint16_t ssn = 5;
	uint32_t msn = 2;
	size_t blen;
	double t0;

	if (!b || resolve(addr, port, &ss, &alen) ||
	    burst_init(&bu, max, o->chunk))
		return 64;
	memset(&a, 0, sizeof(a));
	a.fd = open_assoc((struct sockaddr *)&ss, alen, o->sndbuf);
	if (a.fd < 0 || send_initiate(a.fd)) {
		printf("result: no association: %s\n", strerror(errno));
		return 2;
	}
	for (t0 = now_ms(); !a.accepted && !a.ended && now_ms() - t0 < 10000;
	     usleep(20000))
		drain(&a, true);
	if (!a.accepted) {
		printf("result: no Accept\n");
		return 2;
	}
	/* 3: a Read Response, none outstanding (RFC 5040 §4.5) */
	burst_add(&bu, 3, b, build_tagged(b, 2, 0x1234, 16));
	/* 4: a Send that would complete rping's receive (16 octets) */
	burst_add(&bu, 4, b, build_send(b, 1, 7));
	while (bu.n < max - 1) {
		blen = build_send(b, msn++, o->chunk - 2 - 18);
		burst_add(&bu, ssn++, b, blen);
		if (!fill && (bu.n - 2) * (long)o->chunk >= o->bytes / 4) {
			/* 2: an empty RDMA Write: the gap is filled */
			fill = bu.n;
			burst_add(&bu, 2, b, build_tagged(b, 0, 0x1234, 0));
		}
	}
	/*
	 * The whole burst before rddp reads any of it: on one CPU a
	 * real-time task is not preempted by the kernel's workers.
	 */
	{
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			printf("# no SCHED_FIFO: %s\n", strerror(errno));
	}
	t0 = now_ms();
	went = burst_send(a.fd, &bu);
	printf("sent: Read Response ssn 3, Send ssn 4 (7 octets), Sends ssn 5 to %u, the empty Write ssn 2 after %u of them: %u of %u messages in one burst of %.0f ms\n",
	       ssn - 1U, fill - 2, went, bu.n, now_ms() - t0);
	for (t0 = now_ms(); !a.ended && now_ms() - t0 < o->end_ms;
	     usleep(20000))
		drain(&a, true);
	printf("result: %s\n", a.ended ? a.how : "open");
	close(a.fd);
	burst_free(&bu);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { 64, 2 << 20, 16000, 30000, 0, 131072 };
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4) {
		fprintf(stderr, "usage: %s held|early|after-error ADDR PORT [--assocs N] [--bytes B] [--chunk C] [--end-ms E] [--max-kb M] [--sndbuf S]\n",
			argv[0]);
		return 64;
	}
	for (i = 4; i + 1 < argc; i += 2) {
		long v = strtol(argv[i + 1], NULL, 0);

		if (!strcmp(argv[i], "--assocs"))
			o.assocs = v < 1 ? 1 : v > MAX_ASSOCS ? MAX_ASSOCS : v;
		else if (!strcmp(argv[i], "--bytes"))
			o.bytes = v;
		else if (!strcmp(argv[i], "--chunk"))
			o.chunk = v < 64 ? 64 : v > 65000 ? 65000 : v;
		else if (!strcmp(argv[i], "--end-ms"))
			o.end_ms = v;
		else if (!strcmp(argv[i], "--max-kb"))
			o.max_kb = v;
		else if (!strcmp(argv[i], "--sndbuf"))
			o.sndbuf = v;
	}
	if (!strcmp(argv[1], "held"))
		return run_flood(argv[2], argv[3], &o, true);
	if (!strcmp(argv[1], "early"))
		return run_flood(argv[2], argv[3], &o, false);
	if (!strcmp(argv[1], "after-error"))
		return run_after_error(argv[2], argv[3], &o);
	return 64;
}
