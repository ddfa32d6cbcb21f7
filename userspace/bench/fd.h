// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// An owned file descriptor: closed exactly once, by its last owner.
#ifndef RDDP_CORE_BENCH_FD_H
#define RDDP_CORE_BENCH_FD_H

#include <unistd.h>

#include <utility>

namespace rddp_core_bench {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { Close(); }

  int get() const { return fd_; }

 private:
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

}  // namespace rddp_core_bench

#endif  // RDDP_CORE_BENCH_FD_H
