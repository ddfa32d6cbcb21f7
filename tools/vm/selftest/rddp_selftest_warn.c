// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test only: a module whose load raises a kernel WARNING, so
 * tools/vm/selftest.sh can prove that tools/vm/run.sh fails such a run.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init rddp_selftest_warn_init(void)
{
	WARN(1, "rddp VM harness self-test: this warning is intentional\n");
	return 0;
}

static void __exit rddp_selftest_warn_exit(void)
{
}

module_init(rddp_selftest_warn_init);
module_exit(rddp_selftest_warn_exit);
MODULE_DESCRIPTION("rddp VM harness self-test: raises a kernel warning on load");
MODULE_LICENSE("GPL");
