// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddpctl's commands (commands.h). The long-running ones (`monitor`,
// `stats -w`) take SIGINT and SIGTERM through a signalfd polled beside
// their socket: libnl restarts a read interrupted by a signal, so a
// handler flag alone would not end a blocked monitor.
#include "commands.h"

#include <linux/rddp_netlink.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>

#include "client.h"
#include "error.h"
#include "format.h"

#ifndef RDDPCTL_VERSION
#define RDDPCTL_VERSION "unknown"
#endif

namespace rddpctl {

namespace {

using Clock = std::chrono::steady_clock;

// SIGINT and SIGTERM, blocked and readable from a file descriptor while an
// instance lives; the mask is restored when it goes.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set_, &old_) != 0)
      throw Error(ExitCode::kFailure, "cannot block SIGINT");
    fd_ = signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd_ < 0) {
      const int err = errno;
      pthread_sigmask(SIG_SETMASK, &old_, nullptr);
      throw Error(ExitCode::kFailure, std::string("signalfd: ") + std::strerror(err));
    }
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  StopSignals(StopSignals&&) = delete;
  StopSignals& operator=(StopSignals&&) = delete;
  ~StopSignals() {
    close(fd_);
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

  // Waits until `fd` (if >= 0) is readable, a stop signal arrives or
  // `deadline` passes. Returns false once a signal arrived; the signal is
  // consumed, so restoring the mask does not deliver it.
  bool Wait(int fd, std::optional<Clock::time_point> deadline) {
    for (;;) {
      std::array<pollfd, 2> fds = {{{fd_, POLLIN, 0}, {fd, POLLIN, 0}}};
      int timeout_ms = -1;
      if (deadline) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
        if (left.count() <= 0) return true;
        timeout_ms = static_cast<int>(left.count()) + 1;
      }
      const int n = poll(fds.data(), fd >= 0 ? 2 : 1, timeout_ms);
      if (n < 0 && errno != EINTR)
        throw Error(ExitCode::kFailure, std::string("poll: ") + std::strerror(errno));
      if ((fds[0].revents & POLLIN) != 0) {
        signalfd_siginfo info{};
        while (read(fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
        }
        return false;
      }
      if (fd >= 0 && fds[1].revents != 0) return true;
    }
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
  int fd_ = -1;
};

void Write(std::ostream& out, const std::string& text) {
  out << text << std::flush;
  if (!out) throw Error(ExitCode::kFailure, "cannot write the output");
}

void WatchRates(RddpClient& client, const Request& r, std::ostream& out) {
  StopSignals signals;
  const auto interval = std::chrono::seconds(*r.watch_seconds);
  std::vector<Device> before = client.GetDevices(r.dev);
  Clock::time_point sampled = Clock::now();
  for (;;) {
    if (!signals.Wait(-1, sampled + interval)) return;
    std::vector<Device> after = client.GetDevices(r.dev);
    const Clock::time_point now = Clock::now();
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - sampled);
    Write(out, FormatRates(before, after, elapsed, r.options));
    before = std::move(after);
    sampled = now;
  }
}

void Monitor(RddpClient& client, const Request& r, std::ostream& out) {
  StopSignals signals;
  client.Monitor([&](const Event& e) { Write(out, FormatEvent(e, r.options)); },
                 [] { std::cerr << "rddpctl: events were lost (receive buffer full)\n"; },
                 [&](int fd) { return signals.Wait(fd, std::nullopt); });
}

}  // namespace

std::string VersionText() {
  return std::string("rddpctl ") + RDDPCTL_VERSION + " (rddp generic netlink version " +
         std::to_string(RDDP_GENL_VERSION) + ")\n";
}

void RunCommand(const Request& r, std::ostream& out) {
  switch (r.command) {
    case Command::kHelp:
      Write(out, Usage(r.help_object));
      return;
    case Command::kVersion:
      Write(out, VersionText());
      return;
    case Command::kLinkAdd:
      RdmaLinkAdd(r.dev, r.netdev);
      return;
    case Command::kLinkDel:
      RdmaLinkDel(r.dev);
      return;
    default:
      break;
  }
  RddpClient client;
  switch (r.command) {
    case Command::kDevShow: {
      std::vector<Device> devices = client.GetDevices(r.dev);
      AddNameAssignTypes(devices);
      Write(out, FormatDevices(devices, r.options));
      break;
    }
    case Command::kDevSet:
      client.SetSettings(r.dev, r.settings);
      break;
    case Command::kQpShow:
      Write(out, FormatQps(client.GetQps(r.dev), r.options));
      break;
    case Command::kStatsShow:
      if (r.watch_seconds) {
        WatchRates(client, r, out);
      } else {
        Write(out, FormatStats(client.GetDevices(r.dev), r.options));
      }
      break;
    case Command::kStatsReset:
      client.ResetStats(r.dev);
      break;
    case Command::kMonitor:
      Monitor(client, r, out);
      break;
    default:
      break;
  }
}

}  // namespace rddpctl
