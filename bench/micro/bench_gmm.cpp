// Micro-benchmark of EM for the diagonal GMM (issue 24: "EM at the rate of its GEMMs"), at the
// size of the scikit-learn comparison (bench/peers/density/gmm_em.py): n = 100,000 samples of 8
// overlapping diagonal Gaussians in d = 10, N_K = 8 components.
//   * 20 EM steps (eqs. 5–8) from the k-means++ start, on every thread;
//   * the two DGEMMs a step of the GEMM form of EM would make, on the same threads: the
//     log-densities (N_K × 2d)·(2d × n) from [z; z∘z], and the sums (N_K × n)·(n × 2d).
// The ratio of the two times says how far an EM step is from the rate of its GEMMs.

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdio>

#include "cdens/cdens.hpp"
#include "parallel/parallel.hpp"
#include "ratio_reporter.hpp"

namespace {

using cdens::Index;
using cdens::Matrix;
using cdens::Vector;

constexpr Index kSamples = 100000;
constexpr Index kDimension = 10;
constexpr Index kComponents = 8;
constexpr int kSteps = 20;

/// Samples of 8 diagonal Gaussians whose centres lie 1.5 sd apart on average (EM creeps, so
/// every step runs), and the k-means++ start of a fit to them.
struct Problem {
  Matrix x;
  Vector weights;
  Matrix centers, variances;
};

const Problem& problem() {
  static const Problem instance = [] {
    cdens::Rng rng(11);
    Problem p;
    Matrix centers(kDimension, kComponents), scales(kDimension, kComponents);
    for (Index l = 0; l < kComponents; ++l) {
      for (Index i = 0; i < kDimension; ++i) {
        centers(i, l) = 1.5 * rng.normal();
        scales(i, l) = 0.5 + rng.uniform();
      }
    }
    p.x.resize(kDimension, kSamples);
    for (Index j = 0; j < kSamples; ++j) {
      const auto l = static_cast<Index>(rng.uniform() * kComponents);
      for (Index i = 0; i < kDimension; ++i)
        p.x(i, j) = centers(i, l) + scales(i, l) * rng.normal();
    }
    cdens::GmmOptions options;
    options.n_components = kComponents;
    options.standardize = false;
    options.max_iter = 0;
    const cdens::DensityFit start = cdens::fit_gmm(p.x, options);
    p.weights = start.model.weights();
    p.centers = start.model.centers();
    p.variances = start.model.scales().array().square();
    return p;
  }();
  return instance;
}

void BM_GmmEmSteps(benchmark::State& state) {
  const Problem& p = problem();
  cdens::GmmOptions options;
  options.n_components = kComponents;
  options.max_iter = kSteps;
  options.tol = 1e-300;
  for (auto _ : state) {
    const cdens::EmRun run = cdens::run_em(p.x, p.weights, p.centers, p.variances, options);
    if (run.iterations != kSteps) state.SkipWithError("EM stopped before its steps");
    benchmark::DoNotOptimize(run.log_likelihood.data());
  }
}
BENCHMARK(BM_GmmEmSteps)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PeerGemmsOfAnEmStep(benchmark::State& state) {
  const Problem& p = problem();
  Matrix moments(2 * kDimension, kSamples);  // [z; z∘z]
  moments << p.x, p.x.array().square().matrix();
  const Matrix coefficients = Matrix::Random(kComponents, 2 * kDimension);
  Matrix log_densities(kComponents, kSamples);
  Matrix sums(kComponents, 2 * kDimension);
  const int n = static_cast<int>(kSamples);
  const int k = static_cast<int>(kComponents);
  const int m = static_cast<int>(2 * kDimension);
  for (auto _ : state) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, n, m, 1.0, coefficients.data(), k,
                moments.data(), m, 0.0, log_densities.data(), k);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, k, m, n, 1.0, log_densities.data(), k,
                moments.data(), m, 0.0, sums.data(), k);
    benchmark::DoNotOptimize(sums.data());
  }
}
BENCHMARK(BM_PeerGemmsOfAnEmStep)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  return cdens_bench::run_benchmarks(argc, argv, [](const cdens_bench::RatioReporter& reporter) {
    // run_em makes kSteps M-steps and kSteps + 1 E-steps (one for the start's likelihood).
    const double step = reporter.seconds("BM_GmmEmSteps/real_time") / kSteps;
    const double gemms = reporter.seconds("BM_PeerGemmsOfAnEmStep/real_time");
    std::printf("\nn = %ld, d = %ld, N_K = %ld, %d threads\n", static_cast<long>(kSamples),
                static_cast<long>(kDimension), static_cast<long>(kComponents),
                cdens::resolve_threads(0));
    std::printf("EM step: %.2f ms; its two DGEMMs: %.2f ms; ratio (DGEMMs / step): %.2f\n",
                1e3 * step, 1e3 * gemms, gemms / step);
  });
}
