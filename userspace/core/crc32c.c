// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * User-space rddp_crc32c(): slicing-by-8, or SSE4.2 crc32 when present, three
 * streams at a time on long buffers.
 */
#include <pthread.h>
#include <rddp/crc32c.h>

#define POLY 0x82F63B78u

static u32 table[8][256];
static int impl; /* 0 = not chosen, 1 = table, 2 = sse4.2 */
static int best; /* what choose() found */
static pthread_once_t chosen = PTHREAD_ONCE_INIT;

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
/*
 * One crc32 instruction takes three cycles before its result can feed the
 * next, but the unit starts one per cycle: a single chain runs at a third
 * of its speed. Buffers of 192 octets and more are therefore cut into
 * rounds of three blocks whose CRCs run side by side and are then joined,
 * as the kernel's crc32c-intel does (crc_pcl, from 512 octets), so that
 * host figures (make bench-core) reflect the kernel's CRC cost rather than
 * a third of its speed. The smallest round serves the 508-octet pieces
 * between markers (RFC 5044 §4.3).
 *
 * Joining: the register is linear in its start value and the data, and
 * running it over n zero octets multiplies it by x^(8n) modulo P. So after
 * block A (register a) and block B of n octets run from 0 (register b), the
 * register of A followed by B is a * x^(8n) mod P xor b. The product with
 * the constant x^(8n) is four table look-ups (struct crc_join).
 */
/* Block sizes: 12 KiB, 768 and 192 octets per round. */
#define BLOCK_L 4096
#define BLOCK_M 256
#define BLOCK_S 64

struct crc_join {
	u32 t[4][256];		/* t[j][v] = (v << 8j) * x^(8n) mod P */
};

static struct crc_join join_l, join_m, join_s;

/* @a * @b mod P, bits in the reflected order (bit 31 is x^0) */
static u32 gf_mul(u32 a, u32 b)
{
	u32 r = 0;

	for (int i = 31; i >= 0; i--) {
		if ((a >> i) & 1)
			r ^= b;
		b = (b >> 1) ^ ((b & 1) ? POLY : 0);	/* b *= x */
	}
	return r;
}

static void init_join(struct crc_join *j, u32 n)
{
	u32 k = 1u << 31;	/* x^0, then x^(8n) mod P */

	for (u32 i = 0; i < 8 * n; i++)
		k = (k >> 1) ^ ((k & 1) ? POLY : 0);
	for (u32 b = 0; b < 4; b++)
		for (u32 v = 0; v < 256; v++)
			j->t[b][v] = gf_mul(v << (8 * b), k);
}

/* @c * x^(8n) mod P for the n of @j */
static u32 join_shift(const struct crc_join *j, u32 c)
{
	return j->t[0][c & 0xff] ^ j->t[1][(c >> 8) & 0xff] ^
	       j->t[2][(c >> 16) & 0xff] ^ j->t[3][c >> 24];
}

/* The register after 3 * @n octets at @p, @n a multiple of 8. */
__attribute__((target("sse4.2")))
static inline u32 crc_hw3(u32 crc, const u8 *p, u32 n, const struct crc_join *j)
{
	u64 a = crc, b = 0, c = 0;

	for (u32 i = 0; i < n; i += 8) {
		u64 va, vb, vc;

		memcpy(&va, p + i, 8);
		memcpy(&vb, p + n + i, 8);
		memcpy(&vc, p + 2 * n + i, 8);
		a = __builtin_ia32_crc32di(a, va);
		b = __builtin_ia32_crc32di(b, vb);
		c = __builtin_ia32_crc32di(c, vc);
	}
	return join_shift(j, join_shift(j, (u32)a) ^ (u32)b) ^ (u32)c;
}

__attribute__((target("sse4.2")))
static u32 crc_hw(u32 crc, const u8 *p, size_t len)
{
	u64 c = crc;

	while (len && ((size_t)p & 7)) {
		c = __builtin_ia32_crc32qi((u32)c, *p++);
		len--;
	}
	/* constant block sizes: each loop gets its own unrolled copy */
	for (; len >= 3 * BLOCK_L; p += 3 * BLOCK_L, len -= 3 * BLOCK_L)
		c = crc_hw3((u32)c, p, BLOCK_L, &join_l);
	for (; len >= 3 * BLOCK_M; p += 3 * BLOCK_M, len -= 3 * BLOCK_M)
		c = crc_hw3((u32)c, p, BLOCK_M, &join_m);
	for (; len >= 3 * BLOCK_S; p += 3 * BLOCK_S, len -= 3 * BLOCK_S)
		c = crc_hw3((u32)c, p, BLOCK_S, &join_s);
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

/*
 * The tables are built once, before any caller can read them: the sender
 * and receiver threads of make bench-core make their first calls at the
 * same time. @impl is published last.
 */
static void choose(void)
{
	int found = 1;

	init_table();
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2")) {
		init_join(&join_l, BLOCK_L);
		init_join(&join_m, BLOCK_M);
		init_join(&join_s, BLOCK_S);
		found = 2;
	}
#endif
	best = found;
	__atomic_store_n(&impl, found, __ATOMIC_RELEASE);
}

u32 rddp_crc32c(u32 crc, const void *data, size_t len)
{
	int i = __atomic_load_n(&impl, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!i, 0)) {
		pthread_once(&chosen, choose);
		i = __atomic_load_n(&impl, __ATOMIC_ACQUIRE);
	}
#if defined(__x86_64__)
	if (i == 2)
		return crc_hw(crc, data, len);
#endif
	return crc_sw(crc, data, len);
}

/* Test hook: force the table implementation (1) or auto (0). */
void rddp_crc32c_force_impl(int which)
{
	pthread_once(&chosen, choose);
	__atomic_store_n(&impl, which == 1 ? 1 : best, __ATOMIC_RELEASE);
}
