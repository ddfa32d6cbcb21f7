// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// TAP output of the in-guest test programs (tests/vm relays it with
// t_relay): one "ok N - NAME" / "not ok N - NAME" line per check, a
// "#   DETAIL" line under a failure, the plan at the end.
#ifndef RDDP_TESTS_VERBS_TAP_H
#define RDDP_TESTS_VERBS_TAP_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace rddp_test {

class Tap {
 public:
  bool Check(bool ok, const std::string& name, const std::string& detail = "") {
    ++n_;
    if (!ok) ++failed_;
    std::printf("%s %d - %s\n", ok ? "ok" : "not ok", n_, name.c_str());
    if (!ok && !detail.empty()) std::printf("#   %s\n", detail.c_str());
    std::fflush(stdout);
    return ok;
  }
  // A librdmacm call that must return 0 (else -1 with errno).
  bool Zero(int rc, const std::string& name) {
    int err = errno;
    return Check(rc == 0, name,
                 "returned " + std::to_string(rc) + ", errno " + std::to_string(err) + " (" +
                     std::strerror(err) + ")");
  }
  // A creation that must fail with errno `want`.
  template <class P>
  bool Fails(const P& obj, int err, int want, const std::string& name) {
    return Check(!obj && err == want, name,
                 "got " + std::string(obj ? "success" : std::strerror(err)) + ", want " +
                     std::strerror(want));
  }
  bool Rc(int rc, int want, const std::string& name) {
    // Verbs return either -1/errno or a positive errno; normalise.
    int got = rc == 0 ? 0 : (rc == -1 ? errno : (rc < 0 ? -rc : rc));
    return Check(got == want, name,
                 "got " + std::string(got ? std::strerror(got) : "success") + ", want " +
                     (want ? std::strerror(want) : "success"));
  }
  int Finish() const {
    std::printf("1..%d\n# %d failed\n", n_, failed_);
    return failed_ ? 1 : 0;
  }

 private:
  int n_ = 0;
  int failed_ = 0;
};

}  // namespace rddp_test

#endif  // RDDP_TESTS_VERBS_TAP_H
