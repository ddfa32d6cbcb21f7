// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Host-native end to end: messages framed by the protocol core into a real
// TCP loopback connection and deframed and placed out of it by a receiver
// thread, CRC32c on and off, beside plain send()/recv() of the same octets.
// No emulation anywhere: these are the host CPU's figures.
#include <benchmark/benchmark.h>
#include <sys/socket.h>

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "connection.h"
#include "fpdu_receiver.h"
#include "fpdu_sender.h"
#include "plain_tcp.h"

namespace rddp_core_bench {
namespace {

enum class Mode { kCrc, kNoCrc, kPlain };

// Octets that differ from their neighbours, so a misplaced piece shows.
std::vector<uint8_t> Pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = static_cast<uint8_t>(i * 131 + (i >> 8));
  return v;
}

// Empty if every octet sent was placed, CRC-checked when on, and the
// destination holds the message (each iteration sends the same one).
std::string Verify(const RxResult& rx, uint64_t sent, std::span<const uint8_t> src,
                   std::span<const uint8_t> dst) {
  if (rx.sys_err != 0) return "read failed";
  if (rx.mpa_err != RDDP_MPA_OK) return rddp_mpa_err_names[rx.mpa_err];
  if (rx.placed != sent)
    return "placed " + std::to_string(rx.placed) + " of " + std::to_string(sent);
  if (sent != 0 && !std::equal(src.begin(), src.end(), dst.begin())) return "placed octets differ";
  return {};
}

// Ends the stream and waits until the receiver has placed all of it.
void Drain(const Connection& c, std::jthread& reader) {
  if (!reader.joinable()) return;
  shutdown(c.tx.get(), SHUT_WR);
  reader.join();
}

// The benchmark thread sends; a receiver thread reads until EOF. The last
// iteration also waits for the receiver, so the time covers every octet
// placed, not only every octet handed to TCP (the socket buffers hold MBs).
std::string Stream(benchmark::State& st, Mode mode, std::span<const uint8_t> src,
                   std::span<uint8_t> dst) {
  const Connection c = TcpLoopback();
  RxResult rx;
  std::jthread reader([&] {
    rx = mode == Mode::kPlain ? RecvPlain(c.rx.get(), dst)
                              : FpduReceiver(c.rx.get(), mode == Mode::kCrc, dst).Run();
  });
  FpduSender tx(c.tx.get(), mode == Mode::kCrc, StreamMulpdu(c.tx.get()));
  std::string err;
  benchmark::IterationCount sent = 0;
  try {
    for (auto _ : st) {
      if (mode == Mode::kPlain) {
        SendPlain(c.tx.get(), src);
      } else {
        tx.Send(src);
      }
      if (++sent == st.max_iterations) Drain(c, reader);
    }
  } catch (const std::exception& e) {
    err = e.what();
  }
  Drain(c, reader);
  if (!err.empty()) return err;
  return Verify(rx, static_cast<uint64_t>(st.iterations()) * src.size(), src, dst);
}

void RunLoopback(benchmark::State& st, Mode mode) {
  const std::vector<uint8_t> src = Pattern(static_cast<size_t>(st.range(0)));
  std::vector<uint8_t> dst(src.size());
  std::string err;
  try {
    err = Stream(st, mode, src, dst);
  } catch (const std::exception& e) {
    err = e.what();
  }
  if (!err.empty()) st.SkipWithError(err.c_str());
  st.SetBytesProcessed(st.iterations() * st.range(0));
}

void BM_TcpCrc(benchmark::State& st) { RunLoopback(st, Mode::kCrc); }
void BM_TcpNoCrc(benchmark::State& st) { RunLoopback(st, Mode::kNoCrc); }
void BM_TcpPlain(benchmark::State& st) { RunLoopback(st, Mode::kPlain); }

// 64 B to 1 MiB messages; real time, as two threads share the work.
#define TCP_SIZES Arg(64)->Arg(4096)->Arg(65536)->Arg(1 << 20)->UseRealTime()
BENCHMARK(BM_TcpCrc)->TCP_SIZES;
BENCHMARK(BM_TcpNoCrc)->TCP_SIZES;
BENCHMARK(BM_TcpPlain)->TCP_SIZES;

}  // namespace
}  // namespace rddp_core_bench
