#include "cdens/conditional/ekde.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "conditional/kernel_cde_engine.hpp"
#include "conditional/kernel_gates.hpp"
#include "core/fit_skeleton.hpp"
#include "core/log_space.hpp"
#include "core/samples.hpp"
#include "core/sampling_plan.hpp"
#include "core/validate.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// Held-out NLL of every (ε, σ) candidate (row e·S + s) for the pairs `held_out`, with the
/// training part `training` of their fold.
///
/// The balls of increasing ε are nested, so each training pair falls into one "shell": the
/// smallest ball that contains it. Per held-out pair and σ, one pass of exponentials gives the
/// log-sum of the y-kernels N(t; v_i, σ²) over each shell, and the log-sum over a ball is the
/// running log-sum over its shells. Every (ε, σ) thus costs O(1) on top of O(n) per σ.
Matrix ball_losses(const StandardizedSamples& training, const StandardizedSamples& held_out,
                   const std::vector<double>& epsilons, const std::vector<double>& sigmas) {
  const Index n = training.z.cols();
  const Index m = held_out.z.cols();
  const auto epsilon_count = static_cast<Index>(epsilons.size());
  const auto sigma_count = static_cast<Index>(sigmas.size());
  const Matrix input_distances = squared_distances(training.z, held_out.z);  // n × m
  const Matrix output_distances = squared_distances(training.t, held_out.t);

  // Radii in increasing order; shell r holds the pairs inside ball r but outside ball r − 1, and
  // shell E the pairs outside every ball.
  std::vector<Index> by_radius(static_cast<std::size_t>(epsilon_count));
  std::iota(by_radius.begin(), by_radius.end(), Index{0});
  std::stable_sort(by_radius.begin(), by_radius.end(),
                   [&](Index a, Index b) { return epsilons[a] < epsilons[b]; });
  std::vector<double> radius_squared;
  for (Index e : by_radius) radius_squared.push_back(epsilons[e] * epsilons[e]);

  const Vector scales = kernel_scales(sigmas);
  Vector normalizers(sigma_count);
  for (Index s = 0; s < sigma_count; ++s) {
    normalizers(s) = log_gaussian_normalizer(training.t.rows(), sigmas[s]);
  }

  Matrix losses(epsilon_count * sigma_count, m);
  std::vector<Index> shell(static_cast<std::size_t>(n));
  std::vector<Index> shell_begin(static_cast<std::size_t>(epsilon_count + 2));
  Vector grouped(n);
  Matrix shell_sums(sigma_count, epsilon_count + 1);
  Vector all_sums(sigma_count);
  Vector ball_sums(sigma_count);
  for (Index j = 0; j < m; ++j) {
    // Counting sort of the output distances by shell.
    std::fill(shell_begin.begin(), shell_begin.end(), Index{0});
    for (Index i = 0; i < n; ++i) {
      const auto r =
          std::lower_bound(radius_squared.begin(), radius_squared.end(), input_distances(i, j)) -
          radius_squared.begin();
      shell[static_cast<std::size_t>(i)] = r;
      ++shell_begin[static_cast<std::size_t>(r + 1)];
    }
    std::partial_sum(shell_begin.begin(), shell_begin.end(), shell_begin.begin());
    std::vector<Index> next(shell_begin.begin(), shell_begin.end() - 1);
    for (Index i = 0; i < n; ++i) {
      grouped(next[static_cast<std::size_t>(shell[static_cast<std::size_t>(i)])]++) =
          output_distances(i, j);
    }
    for (Index r = 0; r <= epsilon_count; ++r) {
      const Index begin = shell_begin[static_cast<std::size_t>(r)];
      log_sum_exp_scaled(
          grouped.segment(begin, shell_begin[static_cast<std::size_t>(r + 1)] - begin), scales,
          shell_sums.col(r));
    }
    // An empty ball falls back to the kernel density estimate over all training outputs, as
    // ConditionalMixture does where every weight is zero.
    log_sum_exp_scaled(output_distances.col(j), scales, all_sums);
    ball_sums.setConstant(-INFINITY);
    for (Index r = 0; r < epsilon_count; ++r) {
      for (Index s = 0; s < sigma_count; ++s) {
        ball_sums(s) = log_add_exp(ball_sums(s), shell_sums(s, r));
      }
      const Index inside = shell_begin[static_cast<std::size_t>(r + 1)];
      const Index e = by_radius[static_cast<std::size_t>(r)];
      for (Index s = 0; s < sigma_count; ++s) {
        const double log_sum = inside > 0 ? ball_sums(s) - std::log(static_cast<double>(inside))
                                          : all_sums(s) - std::log(static_cast<double>(n));
        losses(e * sigma_count + s, j) = normalizers(s) - log_sum;
      }
    }
  }
  return losses;
}

}  // namespace

std::vector<double> ekde_paper_radii() {
  std::vector<double> radii = log_spaced(1e-2, 5.0, 20);
  for (double& radius : radii) radius = std::sqrt(radius);
  return radii;
}

ConditionalFit fit_ekde(const MatrixView& x, const MatrixView& y, const EkdeOptions& options,
                        const FitContext& context) {
  return timed_fit<ConditionalMixture>("ekde", [&](FitReport& report) {
    ekde_option_table().validate(options);
    const StandardizedPairs data = standardize_pairs(x, y, context);
    const int threads = resolve_threads(context.threads);

    double epsilon = options.epsilon.front();
    double sigma = options.sigma.front();
    if (options.epsilon.size() * options.sigma.size() > 1) {
      const KFold folds = draw_folds(x.cols(), options.folds, options.seed);
      const auto training = fold_training_sets(data.samples, folds);
      const Matrix sample_losses = k_fold_sample_losses(
          folds, static_cast<Index>(options.epsilon.size() * options.sigma.size()), threads,
          [&](int k, const std::vector<Index>& held_out) {
            return ball_losses(training[static_cast<std::size_t>(k)],
                               gather_pairs(data.samples, held_out), options.epsilon,
                               options.sigma);
          },
          context.progress, "cross-validation");
      const CvTable& table = keep_cross_validation(
          report,
          make_cv_table({"epsilon", "sigma"}, product_grid(options.epsilon, options.sigma),
                        fold_mean_losses(sample_losses, folds), "kl"),
          {options.epsilon, options.sigma}, {data.y_scaling.log_jacobian()});
      epsilon = table.candidates(table.best, 0);
      sigma = table.candidates(table.best, 1);
      report.statistics["folds"] = folds.n_folds();
    }

    report.hyperparameters = {{"epsilon", epsilon}, {"sigma", sigma}};
    return kernel_cde_model(data, std::make_shared<const EpsilonBallGate>(data.samples.z, epsilon),
                            data.samples.t, sigma, report);
  });
}

}  // namespace cdens
