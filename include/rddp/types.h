/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fixed-width types and the few libc/kernel helpers the protocol core uses.
 *
 * The protocol core (kmod/core/) is compiled unchanged into rddp.ko, the
 * KUnit suite, and the user-space unit tests, fuzzers and benchmarks. It may
 * include only this header and other include/rddp/ headers; this header is
 * the single place that differs between kernel and user space.
 */
#ifndef RDDP_TYPES_H
#define RDDP_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include <linux/compiler.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The compiler's own type macros: the same types <stdint.h> names. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#endif /* __KERNEL__ */

#endif /* RDDP_TYPES_H */
