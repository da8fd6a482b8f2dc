#include "cdens/density/rsde.hpp"

#include <cmath>

#include "core/fit_skeleton.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "density/density_scaling.hpp"
#include "density/fixed_kernels.hpp"
#include "density/mnqp.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

/// RSDE on z at width γ: the kept kernels' weights, centres and widths, identity scaling.
GaussianMixture solve(const MatrixView& z, const Vector& weights, double width,
                      const MnqpOptions& mnqp, MnqpResult* result = nullptr,
                      Progress& progress = silent_progress()) {
  const RsdeProblem problem = rsde_problem(z, width, weights);
  MnqpResult solved = solve_mnqp(problem.g, problem.parzen, mnqp, progress);
  GaussianMixture model(Standardizer::identity(z.rows()), solved.weights(solved.kept),
                        gather_samples(z, solved.kept),
                        Matrix::Constant(z.rows(), static_cast<Index>(solved.kept.size()), width));
  if (result != nullptr) *result = std::move(solved);
  return model;
}

}  // namespace

RsdeProblem rsde_problem(const MatrixView& z, double width, const Vector& weights) {
  require_positive(width, "RSDE width");
  RsdeProblem problem;
  problem.g = isotropic_kernel_columns(z, z, std::sqrt(2.0) * width);  // g_ij = G_{√2γ} (eq. 14)
  problem.parzen = parzen_at_samples(z, width, 1, weights);            // eqs. (15), (17)
  return problem;
}

DensityFit fit_rsde(const MatrixView& x, const RsdeOptions& options, const FitContext& context) {
  return timed_fit<GaussianMixture>("rsde", [&](FitReport& report) {
    rsde_option_table().validate(options);
    Standardizer scaling = density_scaling(x, options.standardize, context);
    const Matrix z = scaling.transform(x);
    const Index n = z.cols();

    const Vector& weights = context.sample_weights;
    const double width = choose_width_by_held_out_ise(
        z, weights, options.bandwidth, options.folds, options.seed, context.threads,
        [&](const Matrix& train, const Vector& train_weights, double w) {
          return solve(train, train_weights, w, options.mnqp);
        },
        report, context.progress);

    MnqpResult solved;
    const GaussianMixture fitted =
        solve(z, weights, width, options.mnqp, &solved, context.progress);
    report.hyperparameters["bandwidth"] = width;
    report.statistics["n_train"] = static_cast<double>(n);
    report.statistics["dimension"] = static_cast<double>(z.rows());
    report.statistics["n_kernels"] = static_cast<double>(solved.kept.size());
    // SMO's steps or MNQP's updates, both passes.
    report.statistics["solver_steps"] = solved.iterations;
    report.statistics["ise_objective"] = solved.objective;
    if (!solved.converged) {
      report.warnings.push_back(to_string(options.mnqp.solver) +
                                " stopped at max_iterations before reaching its tolerance");
    }
    GaussianMixture model(std::move(scaling), fitted.weights(), fitted.centers(), fitted.scales());
    return model;
  });
}

}  // namespace cdens
