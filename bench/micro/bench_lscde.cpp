// Micro-benchmarks of LSCDE, each beside a peer measured in the same run:
//   * building Ĥ (n = 10,000, b = 100, d_x = 5, d_y = 1: distances, n·b exponentials, ΦᵀΦ,
//     the Hadamard product with K_v) against one plain DGEMM of the same shape, (b × n)·(n × b),
//     on the same threads — the target is at least half the DGEMM rate, i.e. a time ratio
//     DGEMM / Ĥ ≥ 0.5; building Ĥ and ĥ together (twice the exponentials) is timed too;
//   * the full cross-validated fit (10 σ × 10 λ × 5 folds) at the same size;
//   * solving (Ĥ + λI)α = ĥ for L values of λ by the eigen path against one Cholesky
//     factorisation per λ, at b = 100 (sets kCholeskySolveLimit of lscde_solutions).
// The ratios are printed after Google Benchmark's own table.

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/lscde_basis.hpp"
#include "conditional/lscde_system.hpp"
#include "parallel/parallel.hpp"
#include "ratio_reporter.hpp"

namespace {

using cdens::Index;
using cdens::Matrix;

constexpr Index kSamples = 10000;
constexpr Index kBasis = 100;
constexpr Index kInputDim = 5;

struct Problem {
  Matrix x, y;
  cdens::LscdeBasis basis;
};

const Problem& problem() {
  static const Problem instance = [] {
    cdens::Rng rng(7);
    Problem p;
    p.x.resize(kInputDim, kSamples);
    p.y.resize(1, kSamples);
    for (Index i = 0; i < kSamples; ++i) {
      for (Index d = 0; d < kInputDim; ++d) p.x(d, i) = rng.normal();
      p.y(0, i) = std::sin(p.x(0, i)) + 0.3 * rng.normal();
    }
    p.basis = {p.x.leftCols(kBasis), p.y.leftCols(kBasis), 0.5};
    return p;
  }();
  return instance;
}

void BM_LscdeBuildHMatrix(benchmark::State& state) {
  const Problem& p = problem();
  const int threads = cdens::resolve_threads(0);
  const Matrix overlap = cdens::output_overlap(p.basis);
  const Matrix no_pairs_x(kInputDim, 0), no_pairs_y(1, 0);
  for (auto _ : state) {
    // Every input enters Ĥ; no pairs, so ĥ is not computed.
    const cdens::LscdeSums sums = cdens::lscde_sums(no_pairs_x, no_pairs_y, p.x, p.basis, threads);
    benchmark::DoNotOptimize(cdens::lscde_h_matrix(sums, overlap, p.basis));
  }
}
BENCHMARK(BM_LscdeBuildHMatrix)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LscdeBuildSystem(benchmark::State& state) {
  const Problem& p = problem();
  const int threads = cdens::resolve_threads(0);
  const Matrix overlap = cdens::output_overlap(p.basis);
  for (auto _ : state) {
    const cdens::LscdeSums sums =
        cdens::lscde_sums(p.x, p.y, Matrix(kInputDim, 0), p.basis, threads);
    benchmark::DoNotOptimize(cdens::lscde_system(sums, overlap, p.basis));
  }
}
BENCHMARK(BM_LscdeBuildSystem)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PeerDgemmSameShape(benchmark::State& state) {
  Matrix phi = Matrix::Random(kSamples, kBasis);
  Matrix gram(kBasis, kBasis);
  for (auto _ : state) {
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, kBasis, kBasis, kSamples, 1.0, phi.data(),
                kSamples, phi.data(), kSamples, 0.0, gram.data(), kBasis);
    benchmark::DoNotOptimize(gram.data());
  }
}
BENCHMARK(BM_PeerDgemmSameShape)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LscdeCrossValidatedFit(benchmark::State& state) {
  const Problem& p = problem();
  for (auto _ : state) benchmark::DoNotOptimize(cdens::fit_lscde(p.x, p.y));
}
BENCHMARK(BM_LscdeCrossValidatedFit)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

/// Ĥ and ĥ of the first 400 pairs (the size of an LSCE training fold on Physicochem) and L
/// values of λ from 0.01 to 10.
struct LambdaSweep {
  cdens::LscdeSystem system;
  std::vector<double> lambdas;
};

LambdaSweep lambda_sweep(Index count) {
  const Problem& p = problem();
  const Matrix x = p.x.leftCols(400), y = p.y.leftCols(400);
  const cdens::LscdeSums sums = cdens::lscde_sums(x, y, Matrix(kInputDim, 0), p.basis, 1);
  return {cdens::lscde_system(sums, cdens::output_overlap(p.basis), p.basis),
          cdens::log_spaced(0.01, 10.0, static_cast<int>(count))};
}

/// L = 1, 3, 8, 10, 20.
void lambda_counts(benchmark::internal::Benchmark* benchmark) {
  for (const int count : {1, 3, 8, 10, 20}) benchmark->Arg(count);
}

// The two ways of solving (Ĥ + λI)α = ĥ for L values of λ that lscde_solutions chooses between;
// kCholeskySolveLimit is where their times cross.
void BM_LambdaSolutionsEigenPath(benchmark::State& state) {
  const LambdaSweep sweep = lambda_sweep(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(cdens::LscdeLambdaPath(sweep.system).solutions(sweep.lambdas));
  }
}
BENCHMARK(BM_LambdaSolutionsEigenPath)->Apply(lambda_counts)->Unit(benchmark::kMicrosecond);

void BM_LambdaSolutionsCholesky(benchmark::State& state) {
  const LambdaSweep sweep = lambda_sweep(state.range(0));
  const Matrix& h = sweep.system.h_matrix;
  for (auto _ : state) {
    for (const double lambda : sweep.lambdas) {
      const Eigen::LLT<Matrix> factor(h + lambda * Matrix::Identity(h.rows(), h.cols()));
      benchmark::DoNotOptimize(factor.solve(sweep.system.h_vector));
    }
  }
}
BENCHMARK(BM_LambdaSolutionsCholesky)->Apply(lambda_counts)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  return cdens_bench::run_benchmarks(argc, argv, [](const cdens_bench::RatioReporter& reporter) {
    const double h_matrix = reporter.seconds("BM_LscdeBuildHMatrix/real_time");
    const double system = reporter.seconds("BM_LscdeBuildSystem/real_time");
    const double dgemm = reporter.seconds("BM_PeerDgemmSameShape/real_time");
    const double fit = reporter.seconds("BM_LscdeCrossValidatedFit/min_time:3.000/real_time");
    std::printf("\nn = %ld, b = %ld, d_x = %ld, d_y = 1, %d threads\n", static_cast<long>(kSamples),
                static_cast<long>(kBasis), static_cast<long>(kInputDim), cdens::resolve_threads(0));
    std::printf("H construction: %.2f ms, DGEMM of the same shape: %.2f ms\n", 1e3 * h_matrix,
                1e3 * dgemm);
    std::printf("rate ratio (DGEMM time / H time; target >= 0.5): %.2f\n", dgemm / h_matrix);
    std::printf("H and h construction: %.2f ms (ratio to DGEMM %.2f)\n", 1e3 * system,
                dgemm / system);
    std::printf("full-grid CV fit (10 sigma x 10 lambda x 5 folds): %.3f s (target < 1 s)\n", fit);
  });
}
