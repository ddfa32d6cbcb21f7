// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
// Framing / deframing throughput vs memcpy and crc32c-only baselines.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

extern "C" {
#include <rddp/crc32c.h>
#include <rddp/mpa.h>
}

namespace {

constexpr uint8_t kHdr[18] = {0x41, 0x43};

void BM_Crc32c(benchmark::State& st) {
  std::vector<uint8_t> buf(st.range(0), 0x5a);
  for (auto _ : st) benchmark::DoNotOptimize(rddp_crc32c(~0U, buf.data(), buf.size()));
  st.SetBytesProcessed(st.iterations() * st.range(0));
}

void BM_MemcpyCrc32c(benchmark::State& st) {
  std::vector<uint8_t> src(st.range(0), 0x5a), dst(st.range(0));
  for (auto _ : st) {
    memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(rddp_crc32c(~0U, src.data(), src.size()));
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * st.range(0));
}

void BM_Frame(benchmark::State& st) {
  std::vector<uint8_t> pay(st.range(0) - 18, 0x5a);
  auto f = std::make_unique<rddp_fpdu>();
  rddp_mpa_tx tx = {true, true, 0};
  for (auto _ : st) {
    rddp_fpdu_build(&tx, f.get(), kHdr, 18, pay.data(), pay.size());
    benchmark::DoNotOptimize(f->crc);
  }
  st.SetBytesProcessed(st.iterations() * st.range(0));
}

struct Out {
  uint8_t* dst;
  size_t off;
};
int CopyOut(void* ctx, const uint8_t* d, uint32_t len) {
  auto* o = static_cast<Out*>(ctx);
  memcpy(o->dst + o->off, d, len);
  o->off += len;
  return 0;
}
int Reset(void* ctx) {
  static_cast<Out*>(ctx)->off = 0;
  return 0;
}

void BM_Deframe(benchmark::State& st) {
  std::vector<uint8_t> pay(st.range(0) - 18, 0x5a), dst(st.range(0));
  auto f = std::make_unique<rddp_fpdu>();
  rddp_mpa_tx tx = {true, true, 0};
  rddp_fpdu_build(&tx, f.get(), kHdr, 18, pay.data(), pay.size());
  std::vector<uint8_t> wire;
  for (uint32_t i = 0; i < f->nr_spans; i++)
    wire.insert(wire.end(), f->span[i].base, f->span[i].base + f->span[i].len);
  rddp_mpa_rx_ops ops = {nullptr, CopyOut, Reset};
  Out o = {dst.data(), 0};
  rddp_mpa_rx rx;
  for (auto _ : st) {
    rddp_mpa_rx_init(&rx, true, true, 65535);
    if (rddp_mpa_rx_feed(&rx, wire.data(), wire.size(), &ops, &o)) st.SkipWithError("deframe");
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * st.range(0));
}

#define SIZES RangeMultiplier(4)->Range(64, 65535)
BENCHMARK(BM_Crc32c)->SIZES;
BENCHMARK(BM_MemcpyCrc32c)->SIZES;
BENCHMARK(BM_Frame)->SIZES;
BENCHMARK(BM_Deframe)->SIZES;

}  // namespace

BENCHMARK_MAIN();
