// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test only: a module whose load produces a kernel report, so
 * tools/vm/selftest.sh can prove that tools/vm/run.sh fails such a run.
 * report=warn (default): a WARNING; report=kasan: an out-of-bounds read that
 * KASAN reports; report=leak: an object whose only pointer is dropped, which
 * kmemleak reports at the guest's final scans (tools/vm/guest-init.sh);
 * report=block: the load sleeps uninterruptibly (D state) for ten minutes,
 * a test stuck in the kernel, which the guest's watchdog cannot kill: the
 * guest must still report the stack it waits in and power off.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *report = "warn";
module_param(report, charp, 0444);
MODULE_PARM_DESC(report, "which report to produce: warn, kasan, leak or block");

/* An object nothing points to once this returns: kmemleak's to find. */
static int rddp_selftest_leak(void)
{
	char *buf = kmalloc(96, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	memset(buf, 0x5a, 96);
	/* Hidden, so the compiler cannot drop the allocation as unused. */
	OPTIMIZER_HIDE_VAR(buf);
	pr_info("rddp self-test: leaking a 96-byte object on purpose\n");
	return 0;
}

/* A task blocked in the kernel: msleep() sleeps TASK_UNINTERRUPTIBLE. */
static noinline int rddp_selftest_block(void)
{
	pr_info("rddp self-test: blocking modprobe for 600 s on purpose\n");
	msleep(600 * 1000);
	return -EINTR;
}

static int __init rddp_selftest_warn_init(void)
{
	size_t index = 16;
	char *buf;

	if (!strcmp(report, "leak"))
		return rddp_selftest_leak();
	if (!strcmp(report, "block"))
		return rddp_selftest_block();
	if (!strcmp(report, "kasan")) {
		buf = kmalloc(16, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		/* Hidden, so the compiler can neither drop nor bound-check the read. */
		OPTIMIZER_HIDE_VAR(index);
		pr_info("rddp self-test: reading byte %zu of a 16-byte object: %d\n",
			index, buf[index]);
		kfree(buf);
	} else {
		WARN(1, "rddp VM harness self-test: this warning is intentional\n");
	}
	return 0;
}

static void __exit rddp_selftest_warn_exit(void)
{
}

module_init(rddp_selftest_warn_init);
module_exit(rddp_selftest_warn_exit);
MODULE_DESCRIPTION("rddp VM harness self-test: a warning, a KASAN report, a leak or a blocked task on load");
MODULE_LICENSE("GPL");
