// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's command line, iproute2 style: options, an object, a command and
// its arguments, parsed into a Request. Documentation/rddpctl.8 is the
// reference; this is the only place that knows the syntax.
#ifndef RDDPCTL_ARGS_H
#define RDDPCTL_ARGS_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"

namespace rddpctl {

enum class Command {
  kHelp,
  kVersion,
  kDevShow,
  kDevSet,
  kQpShow,
  kStatsShow,
  kStatsReset,
  kMonitor,
  kLinkAdd,
  kLinkDel,
};

// The options every command shares.
struct Options {
  bool json = false;     // -j
  bool pretty = false;   // -p, only with -j
  bool details = false;  // -s
  bool operator==(const Options&) const = default;
};

struct Request {
  Command command = Command::kHelp;
  Options options;
  std::string dev;                        // device or link name; empty: every device
  std::string netdev;                     // link add
  Settings settings;                      // dev set: the settings to change
  std::optional<unsigned> watch_seconds;  // stats -w
  // kHelp: the object whose usage to print, empty for all of them.
  std::string help_object;
};

// Parses the arguments after the program name. Throws UsageError.
Request ParseArgs(const std::vector<std::string>& args);

// The usage of one object ("dev", "qp", ...) or, for "", of all of them,
// with the options: the -h text.
std::string Usage(std::string_view object);
// The shorter text after a usage error: the object's command lines only.
std::string UsageHint(std::string_view object);

}  // namespace rddpctl

#endif  // RDDPCTL_ARGS_H
