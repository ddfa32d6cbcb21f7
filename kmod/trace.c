// SPDX-License-Identifier: GPL-2.0
/*
 * The one file that instantiates rddp's trace events (trace.h): their
 * TP_fast_assign code reads the structures below, which the files calling
 * trace_rddp_*() need not see.
 */
#include "rddp.h"
#include "queues.h"
#include "stream.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
