// SPDX-License-Identifier: GPL-2.0
/* Kernel implementation of the rddp_crc32c() hook: libcrc32c. */
#include <linux/crc32c.h>
#include <rddp/crc32c.h>

u32 rddp_crc32c(u32 crc, const void *data, size_t len)
{
	return crc32c(crc, data, len);
}
