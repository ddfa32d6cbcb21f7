// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's failures and the exit codes they end the program with
// (Documentation/rddpctl.8, EXIT STATUS). Every layer throws Error; main()
// prints what() and exits with code().
#ifndef RDDPCTL_ERROR_H
#define RDDPCTL_ERROR_H

#include <stdexcept>
#include <string>
#include <utility>

namespace rddpctl {

enum class ExitCode : int {
  kOk = 0,
  kFailure = 1,     // the kernel refused or failed the request, or I/O failed
  kUsage = 2,       // bad command line
  kNoModule = 3,    // the generic-netlink family "rddp" does not exist
  kNoDevice = 4,    // ENODEV: no such rddp (or RDMA, or network) device
  kPermission = 5,  // EPERM/EACCES: CAP_NET_ADMIN is needed
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// A bad command line. hint() is the usage of the object concerned (or of
// everything), printed after the message.
class UsageError : public Error {
 public:
  UsageError(const std::string& message, std::string hint)
      : Error(ExitCode::kUsage, message), hint_(std::move(hint)) {}
  [[nodiscard]] const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

// The exit code for a positive errno the kernel answered a request with.
ExitCode ExitCodeForErrno(int err);

}  // namespace rddpctl

#endif  // RDDPCTL_ERROR_H
