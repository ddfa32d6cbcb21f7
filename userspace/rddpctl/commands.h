// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Runs a parsed command: ties the parser's Request to the kernel clients
// and the formatters.
#ifndef RDDPCTL_COMMANDS_H
#define RDDPCTL_COMMANDS_H

#include <ostream>
#include <string>

#include "args.h"

namespace rddpctl {

// Writes the command's output to `out`. Throws Error (and std::bad_alloc).
// `monitor` and `stats -w` run until SIGINT or SIGTERM and then return
// normally.
void RunCommand(const Request& request, std::ostream& out);

// The -V text: rddpctl's version and the rddp family version it speaks.
std::string VersionText();

}  // namespace rddpctl

#endif  // RDDPCTL_COMMANDS_H
