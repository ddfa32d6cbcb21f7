// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* User-space rddp_crc32c(): slicing-by-8, or SSE4.2 crc32 when present. */
#include <rddp/crc32c.h>

#define POLY 0x82F63B78u

static u32 table[8][256];
static int impl; /* 0 = not chosen, 1 = table, 2 = sse4.2 */

static void init_table(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (u32 i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^
				      table[0][table[t - 1][i] & 0xff];
}

static u32 crc_sw(u32 crc, const u8 *p, size_t len)
{
	while (len && ((size_t)p & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		u32 lo = crc ^ ((u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
				(u32)p[3] << 24);
		u32 hi = (u32)p[4] | (u32)p[5] << 8 | (u32)p[6] << 16 |
			 (u32)p[7] << 24;

		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static u32 crc_hw(u32 crc, const u8 *p, size_t len)
{
	u64 c = crc;

	while (len && ((size_t)p & 7)) {
		c = __builtin_ia32_crc32qi((u32)c, *p++);
		len--;
	}
	while (len >= 8) {
		u64 v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((u32)c, *p++);
	return (u32)c;
}
#endif

static void choose(void)
{
	init_table();
	impl = 1;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2"))
		impl = 2;
#endif
}

u32 rddp_crc32c(u32 crc, const void *data, size_t len)
{
	if (__builtin_expect(!impl, 0))
		choose();
#if defined(__x86_64__)
	if (impl == 2)
		return crc_hw(crc, data, len);
#endif
	return crc_sw(crc, data, len);
}

/* Test hook: force the table implementation (1) or auto (0). */
void rddp_crc32c_force_impl(int which)
{
	if (!impl)
		choose();
	if (which == 1)
		impl = 1;
	else
		choose();
}
