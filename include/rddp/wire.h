/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Big-endian (network order) load/store helpers for the protocol core. */
#ifndef RDDP_WIRE_H
#define RDDP_WIRE_H

#include "types.h"

/**
 * rddp_get_be16() - load a big-endian 16-bit field
 * @p: its first octet (no alignment needed)
 *
 * Return: the value in host order.
 */
static inline u16 rddp_get_be16(const u8 *p)
{
	return (u16)((p[0] << 8) | p[1]);
}

/**
 * rddp_get_be32() - load a big-endian 32-bit field
 * @p: its first octet (no alignment needed)
 *
 * Return: the value in host order.
 */
static inline u32 rddp_get_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) | p[3];
}

/**
 * rddp_put_be16() - store a 16-bit field in network order
 * @p: where its first octet goes (no alignment needed)
 * @v: the value
 */
static inline void rddp_put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

/**
 * rddp_put_be32() - store a 32-bit field in network order
 * @p: where its first octet goes (no alignment needed)
 * @v: the value
 */
static inline void rddp_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

/**
 * rddp_put_le32() - store a 32-bit field least significant octet first
 * @p: where its first octet goes (no alignment needed)
 * @v: the value
 *
 * The MPA CRC field carries the CRC32c least significant byte first, as in
 * the RFC 3720 §B.4 vectors (verified by RFC 5044 Figures 5 and 6).
 */
static inline void rddp_put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

/**
 * rddp_get_le32() - load a 32-bit field stored least significant octet first
 * @p: its first octet (no alignment needed); the MPA CRC field
 *
 * Return: the value in host order.
 */
static inline u32 rddp_get_le32(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) | p[0];
}

#endif /* RDDP_WIRE_H */
