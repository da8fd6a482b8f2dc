#include "density/fixed_kernels.hpp"

#include <cmath>
#include <string>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/fit_skeleton.hpp"
#include "core/samples.hpp"
#include "core/sampling_plan.hpp"
#include "core/validate.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "parallel/parallel.hpp"

namespace cdens {

double isotropic_gaussian_normaliser(double width, Index dimension) {
  return std::exp(-0.5 * static_cast<double>(dimension) * (kLog2Pi + 2.0 * std::log(width)));
}

Matrix isotropic_kernel_columns(const MatrixView& a, const MatrixView& b, double width) {
  require_positive(width, "kernel width");
  return isotropic_gaussian_normaliser(width, a.rows()) * gaussian_kernel(a, b, width);
}

Vector parzen_at_samples(const MatrixView& z, double width, int threads, const Vector& weights) {
  require_positive(width, "kernel width");
  // The exact path of the kernel-sum engine: the N × N kernel matrix in blocks, never whole.
  KernelSumOptions exact;
  exact.path = KernelSumPath::exact;
  exact.log_tolerance = 0.0;
  exact.threads = threads;
  const Matrix scaled = z / width;
  const Vector shares =
      weights.size() > 0 ? Vector(weights / weights.sum())
                         : Vector(Vector::Constant(z.cols(), 1.0 / static_cast<double>(z.cols())));
  const Vector log_sums = gaussian_kernel_log_sums(scaled, shares, scaled, exact).log_sums;
  return isotropic_gaussian_normaliser(width, z.rows()) * log_sums.array().exp().matrix();
}

Vector weighted_row_scales(const Vector& weights) {
  if (weights.size() == 0) return Vector();
  return (weights * (static_cast<double>(weights.size()) / weights.sum())).cwiseSqrt();
}

double choose_width_by_held_out_ise(const MatrixView& z, const Vector& weights,
                                    const std::vector<double>& widths, int folds,
                                    std::uint64_t seed, int threads, const FixedWidthFit& fit,
                                    FitReport& report, Progress& progress) {
  require_positive_values(widths, "widths");
  if (widths.size() == 1) return widths.front();
  const Index n = z.cols();
  if (folds < 2 || folds > n) {
    throw InvalidArgument("the number of folds must lie between 2 and the number of samples (" +
                          std::to_string(n) + "), got " + std::to_string(folds));
  }
  const KFold split = draw_folds(n, folds, seed);
  const Index w_count = static_cast<Index>(widths.size());
  Matrix fold_loss(w_count, split.n_folds());
  // One task per (width, fold); each writes only its own entry.
  progress.begin("width cross-validation, fold fits", w_count * split.n_folds());
  parallel_for(resolve_threads(threads), w_count * split.n_folds(), [&](Index task) {
    const Index w = task / split.n_folds();
    const int k = static_cast<int>(task % split.n_folds());
    const auto of_rows = [&](const std::vector<Index>& rows) {
      return weights.size() > 0 ? Vector(weights(rows)) : Vector();
    };
    const std::vector<Index> train = split.train(k);
    const GaussianMixture model =
        fit(gather_samples(z, train), of_rows(train), widths[static_cast<std::size_t>(w)]);
    fold_loss(w, k) = held_out_ise(model, gather_samples(z, split.test(k)), of_rows(split.test(k)));
    progress.advance();
  });
  progress.end();
  const Matrix candidates = Eigen::Map<const Vector>(widths.data(), w_count);
  const CvTable& table = keep_cross_validation(
      report, make_cv_table({"bandwidth"}, candidates, fold_loss, "ise"), {widths});
  return widths[static_cast<std::size_t>(table.best)];
}

}  // namespace cdens
