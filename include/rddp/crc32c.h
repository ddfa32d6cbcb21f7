/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * CRC32c (Castagnoli, reflected polynomial 0x82F63B78) link-time hook.
 *
 * Convention (same as the kernel's crc32c()): @crc is the raw running
 * register, no inversion is done inside. Start with ~0U, chain calls, and
 * invert the result: crc = ~rddp_crc32c(~0U, buf, len). The RFC 3720 §B.4
 * vectors are the inverted values (32 zero bytes -> 0x8a9136aa).
 *
 * Kernel: kmod/crc32c_kernel.c (libcrc32c). User space:
 * userspace/core/crc32c.c (slicing-by-8, SSE4.2 when available, three
 * streams at a time on long buffers).
 */
#ifndef RDDP_CRC32C_H
#define RDDP_CRC32C_H

#include "types.h"

/**
 * rddp_crc32c() - run CRC32c over a buffer
 * @crc: the running CRC register (~0U to start a CRC; not inverted inside)
 * @data: the bytes
 * @len: how many
 *
 * Return: the register after @data; the CRC of a whole message is its
 * inverse (the convention above).
 */
u32 rddp_crc32c(u32 crc, const void *data, size_t len);

#endif /* RDDP_CRC32C_H */
