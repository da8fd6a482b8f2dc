#include "cdens/conditional/rkde.hpp"

#include <cmath>
#include <memory>

#include "conditional/kernel_cde_engine.hpp"
#include "conditional/kernel_gates.hpp"
#include "core/fit_skeleton.hpp"
#include "core/log_space.hpp"
#include "core/sampling_plan.hpp"
#include "core/validate.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// Held-out NLL of the joint KDE (rows 0 … S − 1) and of the marginal KDE (rows S … 2S − 1) for
/// every width, from the kernel log-sums against the fold's training part (n' pairs):
///   −log p̂(z, t) = −log Σ_i exp(−(‖z − u_i‖² + ‖t − v_i‖²)/2σ²) + log n' + (d_x + d_y)
///   log(√(2π)σ), −log p̂(z)    = −log Σ_i exp(−‖z − u_i‖²/2σ²) + log n' + d_x log(√(2π)σ).
Matrix density_losses(const StandardizedSamples& training, const StandardizedSamples& held_out,
                      const std::vector<double>& sigmas) {
  const auto sigma_count = static_cast<Index>(sigmas.size());
  const KernelLogSums sums = kernel_log_sums(held_out, training, kernel_scales(sigmas));
  const double log_n = std::log(static_cast<double>(training.z.cols()));
  const Index input_dim = training.z.rows();
  const Index joint_dim = input_dim + training.t.rows();
  Matrix losses(2 * sigma_count, held_out.z.cols());
  for (Index s = 0; s < sigma_count; ++s) {
    const double sigma = sigmas[static_cast<std::size_t>(s)];
    losses.row(s) = (log_n + log_gaussian_normalizer(joint_dim, sigma)) - sums.joint.row(s).array();
    losses.row(sigma_count + s) =
        (log_n + log_gaussian_normalizer(input_dim, sigma)) - sums.input.row(s).array();
  }
  return losses;
}

/// (1/n) Σ_j log[p̂_{σ_j}(z_j) / p̂_{σ_m}(z_j)] over the training inputs, where p̂_σ is the KDE of
/// the inputs of width σ: the log of ∫ p̂(z_j, t) / p̂(z_j) dt, the mass of the raw ratio.
double mean_log_ratio_mass(const MatrixView& z, double sigma_joint, double sigma_marginal,
                           int threads) {
  const Vector scales = kernel_scales({sigma_joint, sigma_marginal});
  const double offset = log_gaussian_normalizer(z.rows(), sigma_marginal) -
                        log_gaussian_normalizer(z.rows(), sigma_joint);
  const Matrix log_mass = columns_by_blocks(1, z.cols(), threads, [&](Index begin, Index size) {
    const Matrix distances = squared_distances(z, z.middleCols(begin, size));
    Vector sums(2);
    Matrix block(1, size);
    for (Index j = 0; j < size; ++j) {
      log_sum_exp_scaled(distances.col(j), scales, sums);
      block(0, j) = sums(0) - sums(1) + offset;
    }
    return block;
  });
  return log_mass.mean();
}

}  // namespace

ConditionalFit fit_rkde(const MatrixView& x, const MatrixView& y, const RkdeOptions& options,
                        const FitContext& context) {
  return timed_fit<ConditionalMixture>("rkde", [&](FitReport& report) {
    rkde_option_table().validate(options);
    const StandardizedPairs data = standardize_pairs(x, y, context);
    const int threads = resolve_threads(context.threads);

    double sigma_joint = options.sigma.front();
    double sigma_marginal = sigma_joint;
    if (options.sigma.size() > 1) {
      const KFold folds = draw_folds(x.cols(), options.folds, options.seed);
      const auto training = fold_training_sets(data.samples, folds);
      const auto sigma_count = static_cast<Index>(options.sigma.size());
      const Matrix fold_losses = fold_mean_losses(
          k_fold_sample_losses(
              folds, 2 * sigma_count, threads,
              [&](int k, const std::vector<Index>& held_out) {
                return density_losses(training[static_cast<std::size_t>(k)],
                                      gather_pairs(data.samples, held_out), options.sigma);
              },
              context.progress, "cross-validation"),
          folds);
      // In the user's units: −log p_user(x, y) = −log p_std(z, t) − log J_x − log J_y.
      const CvTable& joint = keep_cross_validation(
          report,
          make_cv_table({"sigma"}, grid_candidates(options.sigma), fold_losses.topRows(sigma_count),
                        "joint_nll"),
          {options.sigma}, {data.x_scaling.log_jacobian() + data.y_scaling.log_jacobian()});
      const CvTable& marginal = keep_auxiliary_cross_validation(
          report, "marginal_kde",
          make_cv_table({"sigma_marginal"}, grid_candidates(options.sigma),
                        fold_losses.bottomRows(sigma_count), "marginal_nll"),
          {options.sigma}, {data.x_scaling.log_jacobian()});
      sigma_joint = joint.candidates(joint.best, 0);
      sigma_marginal = marginal.candidates(marginal.best, 0);
      report.statistics["folds"] = folds.n_folds();
    }

    report.hyperparameters = {{"sigma", sigma_joint}, {"sigma_marginal", sigma_marginal}};
    report.statistics["mean_log_ratio_mass"] =
        sigma_joint == sigma_marginal
            ? 0.0
            : mean_log_ratio_mass(data.samples.z, sigma_joint, sigma_marginal, threads);
    return kernel_cde_model(data,
                            std::make_shared<const GaussianKernelGate>(data.samples.z, sigma_joint),
                            data.samples.t, sigma_joint, report);
  });
}

}  // namespace cdens
