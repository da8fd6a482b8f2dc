#include "cdens/density/skd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/parzen.hpp"
#include "core/fit_skeleton.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "density/density_scaling.hpp"
#include "density/fixed_kernels.hpp"
#include "density/mnqp.hpp"
#include "density/ofr.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

// A λ_j whose kernel has g_j = 0 would be infinite; this large value switches it off instead
// (g_j ≈ 0, η and J unchanged, so the kernel is never selected again).
constexpr double kLargestRegularization = 1e300;

/// The evidence update of the local regularisers after a selection pass (Chen et al. 2004,
/// the paper's [30]): γ_i = w_iᵀw_i / (λ_i + w_iᵀw_i), γ = Σ γ_i and
/// λ_i ← γ_i / (N − γ) · εᵀε / g_i² for every selected term i.
void update_regularizers(const OfrLoo& model, const std::vector<Index>& selected, Vector& lambdas) {
  const Matrix w = model.orthogonal_columns();
  const Vector g = model.orthogonal_weights();
  const Vector w_norm2 = w.colwise().squaredNorm().transpose();
  Vector gamma(static_cast<Index>(selected.size()));
  for (Index i = 0; i < gamma.size(); ++i) {
    gamma(i) = w_norm2(i) / (lambdas(selected[static_cast<std::size_t>(i)]) + w_norm2(i));
  }
  const double freedom = static_cast<double>(model.n_samples()) - gamma.sum();
  const double residual = model.residuals().squaredNorm();
  for (Index i = 0; i < gamma.size(); ++i) {
    const double updated = gamma(i) / freedom * residual / (g(i) * g(i));
    lambdas(selected[static_cast<std::size_t>(i)]) = std::isfinite(updated) && updated > 0.0
                                                         ? std::min(updated, kLargestRegularization)
                                                         : kLargestRegularization;
  }
}

/// SKD on z (d × N, the working units) at kernel width γ with the target t: the mixture of the
/// kernels MNQP keeps (identity scaling), the selection, and the MNQP result.
struct SkdSolution {
  GaussianMixture model;
  SkdSelection selection;
  MnqpResult mnqp;
};

/// Φ and t of the regression with their rows times `scales` (weighted_row_scales; empty: as
/// they are).
void scale_rows(const Vector& scales, Matrix& phi, Vector& target) {
  if (scales.size() == 0) return;
  phi = scales.asDiagonal() * phi;
  target = target.cwiseProduct(scales);
}

SkdSolution solve(const MatrixView& z, const Vector& weights, const Vector& target, double width,
                  const SkdOptions& options, Progress& progress = silent_progress()) {
  SkdSelection selection = select_skd_kernels(z, target, width, options, weights);
  const Matrix centers = gather_samples(z, selection.selected);
  Matrix phi = isotropic_kernel_columns(z, centers, width);
  Vector t = target;
  scale_rows(weighted_row_scales(weights), phi, t);
  // Eq. (39): B = ΦᵀΦ, v = Φᵀt over the selected kernels (ΦᵀCΦ, ΦᵀCt with weights).
  const Matrix b = phi.transpose() * phi;
  const Vector v = phi.transpose() * t;
  MnqpResult mnqp = solve_mnqp(b, v, options.mnqp, progress);
  GaussianMixture model(Standardizer::identity(z.rows()), mnqp.weights(mnqp.kept),
                        gather_samples(centers, mnqp.kept),
                        Matrix::Constant(z.rows(), static_cast<Index>(mnqp.kept.size()), width));
  return {std::move(model), std::move(selection), std::move(mnqp)};
}

}  // namespace

SkdSelection select_skd_kernels(const MatrixView& z, const Vector& target, double width,
                                const SkdOptions& options, const Vector& weights) {
  const Index n = z.cols();
  if (target.size() != n) throw InvalidArgument("SKD: one target value per sample is needed");
  if (weights.size() != 0 && weights.size() != n) {
    throw InvalidArgument("SKD: one sample weight per sample is needed");
  }
  Matrix phi = isotropic_kernel_columns(z, z, width);
  Vector t = target;
  scale_rows(weighted_row_scales(weights), phi, t);
  Vector lambdas = Vector::Constant(n, options.initial_regularization);
  SkdSelection result;
  for (int pass = 0; pass < options.regularization_passes; ++pass) {
    OfrLoo model(t);
    OfrCandidatePool pool(model, phi);
    std::vector<Index> selected;
    while (static_cast<Index>(selected.size()) < std::min(options.max_kernels, n)) {
      const Vector scores = pool.scores(model, lambdas);
      Index best = 0;
      const double smallest = scores.minCoeff(&best);
      // Eq. (38): stop when J_{n+1} ≥ J_n; a density needs at least one kernel.
      if (!std::isfinite(smallest) || (!selected.empty() && smallest >= model.loo_mse())) break;
      model.add(pool.take(best, model, lambdas(best)));
      selected.push_back(best);
    }
    if (selected.empty()) {
      throw DataError("SKD: no kernel column could be added (every candidate was refused)");
    }
    result.passes = pass + 1;
    result.loo_mse = model.loo_mse();
    const bool unchanged = selected == result.selected;
    result.selected = std::move(selected);
    if (unchanged) break;
    update_regularizers(model, result.selected, lambdas);
  }
  return result;
}

DensityFit fit_skd(const MatrixView& x, const SkdOptions& options, const FitContext& context) {
  return timed_fit<GaussianMixture>("skd", [&](FitReport& report) {
    skd_option_table().validate(options);
    Standardizer scaling = density_scaling(x, options.standardize, context);
    const Matrix z = scaling.transform(x);
    if (z.cols() < 2) throw DataError("SKD needs at least 2 samples");

    const Vector& weights = context.sample_weights;
    PrefixedProgress target_progress(context.progress, "Parzen target width, ");
    const double target_width =
        parzen_target_width(x, options.target_bandwidth, options.standardize, context.threads,
                            target_progress, weights);
    const double width = choose_width_by_held_out_ise(
        z, weights, options.bandwidth, options.folds, options.seed, context.threads,
        [&](const Matrix& train, const Vector& train_weights, double w) {
          return solve(train, train_weights,
                       parzen_at_samples(train, target_width, 1, train_weights), w, options)
              .model;
        },
        report, context.progress);

    const SkdSolution solution = solve(z, weights, parzen_at_samples(z, target_width, 1, weights),
                                       width, options, context.progress);
    report.hyperparameters["bandwidth"] = width;
    report.hyperparameters["target_bandwidth"] = target_width;
    report.statistics["n_train"] = static_cast<double>(z.cols());
    report.statistics["dimension"] = static_cast<double>(z.rows());
    report.statistics["n_selected"] = static_cast<double>(solution.selection.selected.size());
    report.statistics["n_kernels"] = static_cast<double>(solution.mnqp.kept.size());
    report.statistics["loo_mse"] = solution.selection.loo_mse;
    report.statistics["regularization_passes"] = solution.selection.passes;
    report.statistics["mnqp_iterations"] = solution.mnqp.iterations;
    if (!solution.mnqp.converged) {
      report.warnings.push_back("MNQP stopped at max_iterations before reaching its tolerance");
    }
    GaussianMixture model(std::move(scaling), solution.model.weights(), solution.model.centers(),
                          solution.model.scales());
    return model;
  });
}

}  // namespace cdens
