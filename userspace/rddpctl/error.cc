// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "error.h"

#include <cerrno>

namespace rddpctl {

ExitCode ExitCodeForErrno(int err) {
  switch (err) {
    case 0:
      return ExitCode::kOk;
    case ENODEV:
      return ExitCode::kNoDevice;
    case EPERM:
    case EACCES:
      return ExitCode::kPermission;
    default:
      return ExitCode::kFailure;
  }
}

}  // namespace rddpctl
