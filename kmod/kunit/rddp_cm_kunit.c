// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for MPA connection setup's decisions (cm_mpa.h): the
 * connecting side's next step from each TCP state, and the same step taken
 * while an interrupt moves the state between SYN_SENT and ESTABLISHED
 * under it, as TCP's softirq does when the SYN-ACK arrives during the work
 * (on its CPU or another). A step that read the state twice failed a
 * connection there (RFC 5044 §7.1.2: the Initiator sends its MPA Request
 * once TCP is up).
 */
#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/sched.h>

#include "../cm_mpa.h"

/*
 * The race part: a timer moves the state every RDDP_CM_FLIP_NS while the
 * test reads it, at least RDDP_CM_RACE_READS times and until it saw the
 * state change RDDP_CM_RACE_CHANGES times, within RDDP_CM_RACE_BOUND. The
 * timer interrupts the reads at any instruction (in qemu's emulation, at
 * the start of any translated block, which a conditional branch ends), so
 * one CPU is enough. The step that read the state twice failed about one
 * SYN_SENT-to-ESTABLISHED change in ten.
 */
#define RDDP_CM_FLIP_NS		(50 * NSEC_PER_USEC)
#define RDDP_CM_RACE_READS	(1024UL * 1024)
#define RDDP_CM_RACE_CHANGES	1024UL
#define RDDP_CM_RACE_BOUND	(5 * HZ)

static void rddp_cm_connect_steps(struct kunit *test)
{
	static const struct {
		int state;
		enum rddp_mpa_connect_step step;
	} cases[] = {
		{ TCP_SYN_SENT, RDDP_MPA_CONNECT_WAIT },
		{ TCP_ESTABLISHED, RDDP_MPA_CONNECT_SEND },
		{ TCP_CLOSE, RDDP_MPA_CONNECT_FAIL },	/* refused, reset */
		{ TCP_CLOSE_WAIT, RDDP_MPA_CONNECT_FAIL },
		{ TCP_FIN_WAIT1, RDDP_MPA_CONNECT_FAIL },
	};
	struct sock *sk = kunit_kzalloc(test, sizeof(*sk), GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, sk);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		WRITE_ONCE(sk->sk_state, cases[i].state);
		KUNIT_EXPECT_EQ_MSG(test, rddp_mpa_connect_step(sk),
				    cases[i].step, "TCP state %d",
				    cases[i].state);
	}
}

/* struct rddp_cm_flipper - moves @sk's state from its @timer */
struct rddp_cm_flipper {
	struct hrtimer timer;
	struct sock *sk;
};

/* Hard interrupt context: SYN_SENT to ESTABLISHED, or back. */
static enum hrtimer_restart rddp_cm_flip_state(struct hrtimer *timer)
{
	struct rddp_cm_flipper *f =
		container_of(timer, struct rddp_cm_flipper, timer);
	int state = READ_ONCE(f->sk->sk_state);

	WRITE_ONCE(f->sk->sk_state, state == TCP_SYN_SENT ? TCP_ESTABLISHED :
							    TCP_SYN_SENT);
	hrtimer_forward_now(timer, ns_to_ktime(RDDP_CM_FLIP_NS));
	return HRTIMER_RESTART;
}

/* Read the moving state of @sk; count each step, and return the changes. */
static unsigned long rddp_cm_read_moving(struct sock *sk, unsigned long *seen)
{
	enum rddp_mpa_connect_step step, last = RDDP_MPA_CONNECT_WAIT;
	unsigned long end = jiffies + RDDP_CM_RACE_BOUND;
	unsigned long i, changes = 0;

	for (i = 0; i < RDDP_CM_RACE_READS || changes < RDDP_CM_RACE_CHANGES;
	     i++) {
		step = rddp_mpa_connect_step(sk);
		seen[step]++;
		changes += step != last;
		last = step;
		if (!(i & 0xffff)) {
			if (time_after(jiffies, end))
				break;
			cond_resched();
		}
	}
	return changes;
}

static void rddp_cm_connect_step_race(struct kunit *test)
{
	unsigned long seen[RDDP_MPA_CONNECT_FAIL + 1] = {};
	struct rddp_cm_flipper *f;
	unsigned long changes;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->sk = kunit_kzalloc(test, sizeof(*f->sk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->sk);
	WRITE_ONCE(f->sk->sk_state, TCP_SYN_SENT);
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	f->timer.function = rddp_cm_flip_state;
	hrtimer_start(&f->timer, ns_to_ktime(RDDP_CM_FLIP_NS),
		      HRTIMER_MODE_REL_HARD);
	changes = rddp_cm_read_moving(f->sk, seen);
	hrtimer_cancel(&f->timer);
	kunit_info(test, "%lu failed, %lu changes\n",
		   seen[RDDP_MPA_CONNECT_FAIL], changes);
	KUNIT_EXPECT_EQ(test, seen[RDDP_MPA_CONNECT_FAIL], 0UL);
	/* Too few changes under the reads: the race was hardly run. */
	if (!seen[RDDP_MPA_CONNECT_FAIL] && changes < RDDP_CM_RACE_CHANGES)
		kunit_skip(test, "the timer moved the state %lu times",
			   changes);
}

static struct kunit_case rddp_cm_cases[] = {
	KUNIT_CASE(rddp_cm_connect_steps),
	KUNIT_CASE(rddp_cm_connect_step_race),
	{}
};

static struct kunit_suite rddp_cm_suite = {
	.name = "rddp_cm",
	.test_cases = rddp_cm_cases,
};

kunit_test_suites(&rddp_cm_suite);
