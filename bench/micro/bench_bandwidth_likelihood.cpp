// Micro-benchmarks of the leave-one-out likelihood behind KCDE and per-dimension Parzen
// (core/bandwidth_likelihood), each beside a peer measured in the same run:
//   * one evaluation of the criterion with its gradient, every pair held out, n = 3,000 with
//     d_x = 1, d_y = 1 (the peer set's headline size) and n = 1,000 with d_x = 5, on one thread;
//   * the peer: the n(n − 1) exponentials the criterion cannot avoid (two per unordered pair,
//     the joint and the conditioning kernel), taken by Eigen's vectorised exp over a buffer
//     the size of one chunk — the floor of what an evaluation can cost.
// The ratio criterion / floor is printed after Google Benchmark's own table.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "cdens/cdens.hpp"
#include "core/bandwidth_likelihood.hpp"
#include "ratio_reporter.hpp"

namespace {

using cdens::Index;
using cdens::Matrix;

/// Standardised-looking samples: rows 0 … c − 1 are x, the last row y (sinc of x_0 with noise).
Matrix samples(Index n, Index input_dim) {
  cdens::Rng rng(11);
  Matrix z(input_dim + 1, n);
  for (Index i = 0; i < n; ++i) {
    for (Index d = 0; d < input_dim; ++d) z(d, i) = rng.normal();
    const double x = z(0, i);
    z(input_dim, i) = (x == 0.0 ? 1.0 : std::sin(2.0 * x) / (2.0 * x)) + 0.3 * rng.normal();
  }
  return z;
}

void BM_Criterion(benchmark::State& state) {
  const Index n = state.range(0);
  const Index input_dim = state.range(1);
  const cdens::BandwidthLikelihood criterion(samples(n, input_dim), input_dim, {}, 1);
  const cdens::Vector log_bandwidths = cdens::Vector::Constant(input_dim + 1, std::log(0.3));
  cdens::Vector gradient;
  for (auto _ : state) {
    benchmark::DoNotOptimize(criterion.mean_negative_log_likelihood(log_bandwidths, &gradient));
  }
}

void BM_ExponentialFloor(benchmark::State& state) {
  const Index n = state.range(0);
  const Index chunk = 256;
  const Index exponentials = n * (n - 1);
  Eigen::ArrayXd arguments = -Eigen::ArrayXd::LinSpaced(chunk, 0.0, 20.0);
  Eigen::ArrayXd values(chunk);
  for (auto _ : state) {
    double total = 0.0;
    for (Index done = 0; done < exponentials; done += chunk) {
      values = arguments.exp();
      total += values.sum();
    }
    benchmark::DoNotOptimize(total);
  }
}

}  // namespace

BENCHMARK(BM_Criterion)->Args({3000, 1})->Args({1000, 5})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExponentialFloor)->Arg(3000)->Arg(1000)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  return cdens_bench::run_benchmarks(argc, argv, [](const cdens_bench::RatioReporter& reporter) {
    std::printf(
        "\nOne evaluation with its gradient on one thread, against the exponentials alone:\n");
    for (const auto& [shape, n] : {std::pair<const char*, int>{"3000/1", 3000}, {"1000/5", 1000}}) {
      const double criterion = reporter.seconds(std::string("BM_Criterion/") + shape);
      const double floor = reporter.seconds("BM_ExponentialFloor/" + std::to_string(n));
      std::printf("n/d_x = %s: %.2f ms, floor %.2f ms, ratio %.2f\n", shape, 1e3 * criterion,
                  1e3 * floor, criterion / floor);
    }
  });
}
