// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl: control and statistics of rddp software iWARP RNICs over the
// rddp generic-netlink family (Documentation/rddpctl.8).
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "error.h"

int main(int argc, char** argv) {
  using rddpctl::ExitCode;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    rddpctl::RunCommand(rddpctl::ParseArgs(args), std::cout);
    return static_cast<int>(ExitCode::kOk);
  } catch (const rddpctl::UsageError& e) {
    std::cerr << "rddpctl: " << e.what() << "\n" << e.hint();
    return static_cast<int>(e.code());
  } catch (const rddpctl::Error& e) {
    std::cerr << "rddpctl: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "rddpctl: out of memory\n";
    return static_cast<int>(ExitCode::kFailure);
  } catch (const std::exception& e) {
    std::cerr << "rddpctl: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kFailure);
  }
}
