// Micro-benchmark of one PRESS evaluation (issue 24: "the per-evaluation products at the rate of
// an SGEMM of the same shapes") at the size of the MNIST fit (bench/papers/press, N = 60,000:
// 48,000 fitting samples, d = 784, J = 10, single precision), on every thread:
//   * the objective's value and gradient (GCV plus the smoothness penalty) on MNIST-like inputs,
//     19 % of them nonzero, uniform on (0, 1]: the design is kept sparse;
//   * the same on the same inputs plus 0.01, which makes the design dense (same shapes);
//   * the peer: the two SGEMMs of the same shapes, Bᵀ Z (10 × 785 · 785 × 48,000) and Z Gᵀ
//     (785 × 48,000 · 48,000 × 10), by OpenBLAS.

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdio>

#include "cdens/cdens.hpp"
#include "parallel/parallel.hpp"
#include "ratio_reporter.hpp"
#include "regression/press_smoother.hpp"

namespace {

using cdens::Index;
using cdens::Matrix;
using cdens::Vector;

constexpr Index kSamples = 48000;
constexpr Index kPixels = 784;
constexpr Index kStates = 10;
constexpr double kNonzeroShare = 0.19;

struct Problem {
  Matrix sparse_design;  ///< (1, x) with 19 % of x nonzero
  Matrix dense_design;   ///< (1, x + 0.01)
  Vector y;
  Matrix coefficients;
};

const Problem& problem() {
  static const Problem instance = [] {
    cdens::Rng rng(24);
    Matrix x = Matrix::Zero(kPixels, kSamples);
    for (Index k = 0; k < x.size(); ++k) {
      if (rng.uniform() < kNonzeroShare) x(k) = 1.0 - rng.uniform();
    }
    Problem p;
    p.sparse_design = cdens::press_design(x);
    p.dense_design = cdens::press_design((x.array() + 0.01).matrix());
    p.y.resize(kSamples);
    for (Index i = 0; i < kSamples; ++i) p.y(i) = 10.0 * rng.uniform();
    p.coefficients.resize(kPixels + 1, kStates);
    for (Index k = 0; k < p.coefficients.size(); ++k) p.coefficients(k) = 0.1 * rng.normal();
    return p;
  }();
  return instance;
}

void evaluate(benchmark::State& state, const Matrix& design, bool sparse) {
  const Problem& p = problem();
  const cdens::PressObjective objective(design, p.y, cdens::PressCriterion::gcv, {0.01, 10.0}, 0,
                                        true);
  if (objective.sparse_design() != sparse) state.SkipWithError("unexpected design storage");
  Matrix gradient;
  for (auto _ : state) {
    const cdens::PressEvaluation evaluation = objective.evaluate(p.coefficients, &gradient);
    benchmark::DoNotOptimize(evaluation.value);
    benchmark::DoNotOptimize(gradient.data());
  }
}

void BM_PressEvaluationSparseDesign(benchmark::State& state) {
  evaluate(state, problem().sparse_design, true);
}
BENCHMARK(BM_PressEvaluationSparseDesign)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PressEvaluationDenseDesign(benchmark::State& state) {
  evaluate(state, problem().dense_design, false);
}
BENCHMARK(BM_PressEvaluationDenseDesign)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PeerSgemmsOfAnEvaluation(benchmark::State& state) {
  const Problem& p = problem();
  const Eigen::MatrixXf design = p.dense_design.cast<float>();
  const Eigen::MatrixXf coefficients = p.coefficients.cast<float>();
  Eigen::MatrixXf logits(kStates, kSamples);
  Eigen::MatrixXf gradient(kPixels + 1, kStates);
  const int n = static_cast<int>(kSamples);
  const int q = static_cast<int>(kPixels + 1);
  const int j = static_cast<int>(kStates);
  for (auto _ : state) {
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, j, n, q, 1.0F, coefficients.data(), q,
                design.data(), q, 0.0F, logits.data(), j);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, q, j, n, 1.0F, design.data(), q,
                logits.data(), j, 0.0F, gradient.data(), q);
    benchmark::DoNotOptimize(gradient.data());
  }
}
BENCHMARK(BM_PeerSgemmsOfAnEvaluation)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  return cdens_bench::run_benchmarks(argc, argv, [](const cdens_bench::RatioReporter& reporter) {
    const double sparse = reporter.seconds("BM_PressEvaluationSparseDesign/real_time");
    const double dense = reporter.seconds("BM_PressEvaluationDenseDesign/real_time");
    const double sgemms = reporter.seconds("BM_PeerSgemmsOfAnEvaluation/real_time");
    std::printf("\nn = %ld, d = %ld, J = %ld, %d threads\n", static_cast<long>(kSamples),
                static_cast<long>(kPixels), static_cast<long>(kStates), cdens::resolve_threads(0));
    std::printf(
        "evaluation, dense design: %.1f ms; sparse design: %.1f ms; the two SGEMMs: %.1f ms\n"
        "ratio (SGEMMs / evaluation): dense %.2f, sparse %.2f\n",
        1e3 * dense, 1e3 * sparse, 1e3 * sgemms, sgemms / dense, sgemms / sparse);
  });
}
