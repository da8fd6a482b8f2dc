// Micro-benchmarks of the kernel-sum engine (kernel_sums/kernel_sums.hpp) on one thread, each path
// beside the floor measured in the same run:
//   * n = m = 20,000 points of a two-cluster mixture in 2-D, width 0.1 (standardised units):
//     the exact path, the tree path at log tolerance 1e−6 and 1e−3, and the floor of the exact
//     path — the n·m exponentials alone, by Eigen's vectorised exp over a buffer of one block;
//   * 1-D, 10⁶ points on a 1,024-point grid (issue 24's binned target), every path that applies;
//   * scattered queries, n = m = 100,000, 1-D at width 0.01 and 2-D at 0.1 (hundreds of points
//     per squared width near the modes): the Gauss transform against the dual tree (issue 35).
// The cost per kernel value (the engine's cost model uses it) is printed after the table.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "conditional/kernel_gates.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "ratio_reporter.hpp"

namespace {

using cdens::Index;
using cdens::Matrix;
using cdens::Vector;

constexpr Index kPairs = 20000;
constexpr double kWidth = 0.1;

/// d × n draws of a two-cluster mixture (a third of the points in a tight cluster at 2), divided
/// by the kernel width.
Matrix mixture_points(Index d, Index n, std::uint64_t seed) {
  cdens::Rng rng(seed);
  Matrix points(d, n);
  for (Index i = 0; i < n; ++i) {
    for (Index k = 0; k < d; ++k) {
      points(k, i) = i % 3 == 0 ? 2.0 + 0.3 * rng.normal() : rng.normal();
    }
  }
  return points / kWidth;
}

void run_path(benchmark::State& state, const Matrix& points, const Matrix& queries,
              cdens::KernelSumPath path, double log_tolerance) {
  const Vector weights = Vector::Constant(points.cols(), 1.0 / static_cast<double>(points.cols()));
  cdens::KernelSumOptions options;
  options.path = path;
  options.log_tolerance = log_tolerance;
  options.threads = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cdens::gaussian_kernel_log_sums(points, weights, queries, options));
  }
}

void BM_Exact2D(benchmark::State& state) {
  run_path(state, mixture_points(2, kPairs, 1), mixture_points(2, kPairs, 2),
           cdens::KernelSumPath::exact, 0.0);
}

/// Arguments: the path (KernelSumPath as a number) and the log tolerance's exponent.
void BM_Path2D(benchmark::State& state) {
  run_path(state, mixture_points(2, kPairs, 1), mixture_points(2, kPairs, 2),
           static_cast<cdens::KernelSumPath>(state.range(0)),
           std::pow(10.0, -static_cast<double>(state.range(1))));
}

constexpr Index kScattered = 100000;

/// Arguments: the path (KernelSumPath as a number), the dimension and the width in thousandths;
/// log tolerance 1e−6.
void BM_Scattered(benchmark::State& state) {
  const Index d = state.range(1);
  const double rescale = kWidth / (1e-3 * static_cast<double>(state.range(2)));
  run_path(state, mixture_points(d, kScattered, 3) * rescale,
           mixture_points(d, kScattered, 4) * rescale,
           static_cast<cdens::KernelSumPath>(state.range(0)), 1e-6);
}

void BM_ExponentialFloor(benchmark::State& state) {
  const Index chunk = 256 * 256;
  Eigen::ArrayXd arguments = -Eigen::ArrayXd::LinSpaced(chunk, 0.0, 20.0);
  Eigen::ArrayXd values(chunk);
  for (auto _ : state) {
    double total = 0.0;
    for (Index done = 0; done < kPairs * kPairs; done += chunk) {
      values = arguments.exp();
      total += values.sum();
    }
    benchmark::DoNotOptimize(total);
  }
}

/// 10⁶ standard normal points and a 1,024-point grid over their range, with the normal-reference
/// width 1.06 n^(−1/5) (both divided by it).
void BM_Grid1D(benchmark::State& state) {
  const Index n = 1000000;
  cdens::Rng rng(3);
  Matrix points(1, n);
  for (Index i = 0; i < n; ++i) points(0, i) = rng.normal();
  const double width = 1.06 * std::pow(static_cast<double>(n), -0.2);
  const double low = points.minCoeff();
  const double high = points.maxCoeff();
  const Matrix grid = Vector::LinSpaced(1024, low, high).transpose();
  run_path(state, points / width, grid / width, static_cast<cdens::KernelSumPath>(state.range(0)),
           std::pow(10.0, -static_cast<double>(state.range(1))));
}

/// The Gaussian-kernel gate without its gaussian_kernel(): queries take the component-by-component
/// path that every conditional mixture has (the peer of the engine).
class OpaqueGate final : public cdens::ConditionalGate {
 public:
  explicit OpaqueGate(std::shared_ptr<const cdens::GaussianKernelGate> inner)
      : inner_(std::move(inner)) {}
  std::string kind() const override { return inner_->kind(); }
  Index input_dim() const override { return inner_->input_dim(); }
  Index n_components() const override { return inner_->n_components(); }
  void log_weights(const cdens::MatrixView& x, Eigen::Ref<Matrix> out) const override {
    inner_->log_weights(x, out);
  }
  Vector log_marginal_weights() const override { return inner_->log_marginal_weights(); }
  nlohmann::json to_json() const override { return inner_->to_json(); }

 private:
  std::shared_ptr<const cdens::GaussianKernelGate> inner_;
};

/// RKDE's fitted shape, p̂(y|x) = Σ_k N(x; x_k, σ²) N(y; y_k, σ²) / Σ_k N(x; x_k, σ²), on n pairs
/// (x scalar, y = sin 2x + noise, σ = 0.1), log-densities at n fresh pairs; argument 1: through
/// the kernel-sum engine, 0: component by component.
void BM_RkdeQueries(benchmark::State& state) {
  const Index n = 20000;
  cdens::Rng rng(5);
  const auto draw = [&](Matrix& x, Matrix& y) {
    x.resize(1, n);
    y.resize(1, n);
    for (Index i = 0; i < n; ++i) {
      x(0, i) = rng.normal();
      y(0, i) = std::sin(2.0 * x(0, i)) + 0.3 * rng.normal();
    }
  };
  Matrix x, y, x_query, y_query;
  draw(x, y);
  draw(x_query, y_query);
  const cdens::Standardizer identity(Vector::Zero(1), Vector::Ones(1));
  auto gate = std::make_shared<const cdens::GaussianKernelGate>(x, 0.1);
  std::shared_ptr<const cdens::ConditionalGate> used = gate;
  if (state.range(0) == 0) used = std::make_shared<const OpaqueGate>(gate);
  const cdens::ConditionalMixture mixture =
      cdens::make_output_kernel_mixture(identity, identity, used, y, 0.1);
  for (auto _ : state) benchmark::DoNotOptimize(mixture.log_pdf(x_query, y_query));
}

}  // namespace

BENCHMARK(BM_RkdeQueries)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Exact2D)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Path2D)
    ->Args({static_cast<int>(cdens::KernelSumPath::tree), 6})
    ->Args({static_cast<int>(cdens::KernelSumPath::tree), 3})
    ->Args({static_cast<int>(cdens::KernelSumPath::automatic), 6})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExponentialFloor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Scattered)
    ->Args({static_cast<int>(cdens::KernelSumPath::gauss_transform), 1, 10})
    ->Args({static_cast<int>(cdens::KernelSumPath::tree), 1, 10})
    ->Args({static_cast<int>(cdens::KernelSumPath::gauss_transform), 2, 100})
    ->Args({static_cast<int>(cdens::KernelSumPath::tree), 2, 100})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Grid1D)
    ->Args({static_cast<int>(cdens::KernelSumPath::automatic), 6})
    ->Args({static_cast<int>(cdens::KernelSumPath::automatic), 3})
    ->Args({static_cast<int>(cdens::KernelSumPath::tree), 6})
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  return cdens_bench::run_benchmarks(argc, argv, [](const cdens_bench::RatioReporter& reporter) {
    const double pairs = static_cast<double>(kPairs) * static_cast<double>(kPairs);
    const double exact = reporter.seconds("BM_Exact2D");
    const double floor = reporter.seconds("BM_ExponentialFloor");
    std::printf("\n2-D, n = m = %d, one thread:\n", static_cast<int>(kPairs));
    std::printf("exact: %.2f ns per kernel value, %.2f of the exp floor (%.2f ns)\n",
                1e9 * exact / pairs, exact / floor, 1e9 * floor / pairs);
    for (const char* tolerance : {"6", "3"}) {
      const double tree = reporter.seconds(std::string("BM_Path2D/2/") + tolerance);
      std::printf("tree, log tolerance 1e-%s: %.3f s, %.1fx faster than exact\n", tolerance, tree,
                  exact / tree);
    }
    for (const char* d_and_width : {"1/10", "2/100"}) {
      const double transform = reporter.seconds(std::string("BM_Scattered/4/") + d_and_width);
      const double tree = reporter.seconds(std::string("BM_Scattered/2/") + d_and_width);
      std::printf(
          "scattered queries (d/width in thousandths %s), n = m = 100,000: Gauss transform %.3f "
          "s, tree %.3f s, %.1fx\n",
          d_and_width, transform, tree, tree / transform);
    }
    const double engine = reporter.seconds("BM_RkdeQueries/1");
    const double components = reporter.seconds("BM_RkdeQueries/0");
    std::printf(
        "RKDE queries, n = m = 20,000: engine %.3f s, component by component %.3f s, %.1fx\n",
        engine, components, components / engine);
  });
}
