// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's output: human text in the style of ip(8) and rdma(8), and JSON
// (an array of objects with lower_snake_case keys; -p indents). Pure
// functions of decoded data, so the tests can pin every format down.
// Documentation/rddpctl.8 describes each field.
#ifndef RDDPCTL_FORMAT_H
#define RDDPCTL_FORMAT_H

#include <chrono>
#include <string>
#include <vector>

#include "args.h"
#include "model.h"

namespace rddpctl {

// `dev show`: one line per device; -s adds the counters.
std::string FormatDevices(const std::vector<Device>& devices, const Options& options);
// `qp show`: a table, nothing at all without QPs; -s adds traffic, MULPDU,
// Terminates and the error.
std::string FormatQps(const std::vector<Qp>& qps, const Options& options);
// `stats`: each device's counters, the non-zero ones unless -s (JSON: all).
std::string FormatStats(const std::vector<Device>& devices, const Options& options);
// `stats -w`: per-second rates between two samples taken `elapsed` apart,
// devices matched by name; non-zero ones unless -s (JSON: all).
std::string FormatRates(const std::vector<Device>& before, const std::vector<Device>& after,
                        std::chrono::milliseconds elapsed, const Options& options);
// `monitor`: one line (or one JSON object) per event.
std::string FormatEvent(const Event& event, const Options& options);

// Rows of cells in columns as wide as their widest cell, two spaces apart;
// the last column is not padded.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows);
// A Terminate as LAYER/0xTYPE/0xCODE, e.g. "DDP/0x1/0x02"; "?" for a
// missing field.
std::string FormatTerminate(const Terminate& term);

}  // namespace rddpctl

#endif  // RDDPCTL_FORMAT_H
