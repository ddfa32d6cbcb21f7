// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// rddp-bench's Engine (userspace/rddp-bench/rdma.h) without an RDMA
// device: pipes stand in for rdma_cm channels. The Engine looks at its
// rdma_cm channels when poll(2) says one is readable and otherwise only
// every kCmServiceTurns turns (each look is a syscall); it must still
// notice every event, sleeping or spinning, and time out when none comes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>

#include "rdma.h"

namespace rddp_bench {
namespace {

using std::chrono::milliseconds;

// A non-blocking pipe and a service that drains it, counting the bytes
// and the calls.
class FakeCmChannel {
 public:
  FakeCmChannel() { EXPECT_EQ(pipe2(fds_.data(), O_NONBLOCK), 0); }
  ~FakeCmChannel() {
    close(fds_[0]);
    close(fds_[1]);
  }
  FakeCmChannel(const FakeCmChannel&) = delete;
  FakeCmChannel& operator=(const FakeCmChannel&) = delete;
  FakeCmChannel(FakeCmChannel&&) = delete;
  FakeCmChannel& operator=(FakeCmChannel&&) = delete;

  void Attach(Engine& e) {
    e.AddCmChannel(fds_[0], [this] {
      services++;
      char c = 0;
      while (read(fds_[0], &c, 1) == 1) events++;
    });
  }
  void Raise() { EXPECT_EQ(write(fds_[1], "e", 1), 1); }

  int services = 0;
  int events = 0;

 private:
  std::array<int, 2> fds_{};
};

// A sleeping Engine wakes for the event and services the channel in the
// same turn, long before the deadline.
TEST(RddpBenchEngine, SleepingServicesAReadyChannelAtOnce) {
  Engine e(false);
  FakeCmChannel ch;
  ch.Attach(e);
  ch.Raise();
  EXPECT_TRUE(e.Turn(milliseconds(10000)));
  EXPECT_EQ(ch.services, 1);
  EXPECT_EQ(ch.events, 1);
}

// Without a readable channel a sleeping Engine sleeps, and services the
// channel only every kCmServiceTurns turns.
TEST(RddpBenchEngine, IdleChannelIsServicedEveryNTurns) {
  Engine e(false);
  FakeCmChannel ch;
  ch.Attach(e);
  for (unsigned i = 1; i < Engine::kCmServiceTurns; i++) EXPECT_FALSE(e.Turn(milliseconds(0)));
  EXPECT_EQ(ch.services, 0);
  EXPECT_FALSE(e.Turn(milliseconds(0)));
  EXPECT_EQ(ch.services, 1);
}

// A busy-polling Engine never sleeps in poll(2), yet an event is taken
// within kCmServiceTurns turns.
TEST(RddpBenchEngine, BusyPollStillTakesEvents) {
  Engine e(true);
  FakeCmChannel ch;
  ch.Attach(e);
  ch.Raise();
  e.WaitFor(
      "the event", [&] { return ch.events == 1; }, milliseconds(10000));
  EXPECT_EQ(ch.events, 1);
  EXPECT_LE(ch.services, 1);
}

// A wait for what never comes ends with the deadline's error, sleeping
// and spinning alike.
TEST(RddpBenchEngine, WaitForTimesOut) {
  for (const bool busy : {false, true}) {
    Engine e(busy);
    FakeCmChannel ch;
    ch.Attach(e);
    const auto start = std::chrono::steady_clock::now();
    try {
      e.WaitFor(
          "nothing", [] { return false; }, milliseconds(50));
      ADD_FAILURE() << "no timeout, busy " << busy;
    } catch (const BenchError& err) {
      EXPECT_EQ(std::string(err.what()), "timed out after 50 ms: nothing");
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(50));
  }
}

// A wait that is already over reads no clock and takes no turn.
TEST(RddpBenchEngine, DoneWaitTakesNoTurn) {
  Engine e(false);
  FakeCmChannel ch;
  ch.Attach(e);
  ch.Raise();
  e.WaitFor(
      "done", [] { return true; }, milliseconds(1));
  EXPECT_EQ(ch.services, 0);
}

}  // namespace
}  // namespace rddp_bench
