#include "cdens/density/rsde.hpp"

#include <chrono>
#include <cmath>

#include "cdens/core/error.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/core/validate.hpp"
#include "density/fixed_kernels.hpp"

namespace cdens {
namespace {

/// RSDE on z at width γ: the kept kernels' weights, centres and widths, identity scaling.
GaussianMixture solve(const MatrixView& z, double width, const MnqpOptions& mnqp,
                      MnqpResult* result = nullptr) {
  const RsdeProblem problem = rsde_problem(z, width);
  MnqpResult solved = solve_mnqp(problem.g, problem.parzen, mnqp);
  GaussianMixture model(Standardizer::identity(z.rows()), solved.weights(solved.kept),
                        gather_samples(z, solved.kept),
                        Matrix::Constant(z.rows(), static_cast<Index>(solved.kept.size()), width));
  if (result != nullptr) *result = std::move(solved);
  return model;
}

}  // namespace

RsdeProblem rsde_problem(const MatrixView& z, double width) {
  require_positive(width, "RSDE width");
  RsdeProblem problem;
  problem.g = isotropic_kernel_columns(z, z, std::sqrt(2.0) * width);  // g_ij = G_{√2γ} (eq. 14)
  problem.parzen = parzen_at_samples(z, width);                        // eqs. (15), (17)
  return problem;
}

DensityFit fit_rsde(const MatrixView& x, const RsdeOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  require_positive_values(options.widths, "RSDE widths");
  Standardizer scaling = density_scaling(x, options.standardize);
  const Matrix z = scaling.transform(x);
  const Index n = z.cols();

  FitReport report;
  report.method = "rsde";
  double width = options.widths.front();
  if (options.widths.size() > 1) {
    CvTable table = select_width_by_held_out_ise(
        z, options.widths, options.folds, options.seed, options.threads,
        [&](const Matrix& train, double w) { return solve(train, w, options.mnqp); });
    if (table.best < 0) throw DataError("the RSDE held-out ISE is not finite for any width");
    width = options.widths[static_cast<std::size_t>(table.best)];
    for (auto& warning : grid_edge_warnings(table, {options.widths})) {
      report.warnings.push_back(std::move(warning));
    }
    report.cross_validation = std::move(table);
  }

  MnqpResult solved;
  const GaussianMixture fitted = solve(z, width, options.mnqp, &solved);
  report.hyperparameters["width"] = width;
  report.statistics["n_train"] = static_cast<double>(n);
  report.statistics["dimension"] = static_cast<double>(z.rows());
  report.statistics["n_kernels"] = static_cast<double>(solved.kept.size());
  report.statistics["mnqp_iterations"] = solved.iterations;
  report.statistics["ise_objective"] = solved.objective;
  if (!solved.converged) {
    report.warnings.push_back("MNQP stopped at max_iterations before reaching its tolerance");
  }
  GaussianMixture model(std::move(scaling), fitted.weights(), fitted.centers(), fitted.widths());
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return {std::move(model), std::move(report)};
}

}  // namespace cdens
