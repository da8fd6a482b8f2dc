#include "cdens/density/rsde.hpp"

#include <chrono>
#include <cmath>

#include "cdens/core/error.hpp"
#include "cdens/core/gaussian_kernel.hpp"
#include "cdens/core/parallel.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/validate.hpp"

namespace cdens {
namespace {

constexpr double kLog2Pi = 1.83787706640934548356;

/// (2π s²)^{−d/2}, the normaliser of an isotropic Gaussian of width s in d dimensions.
double gaussian_normaliser(double s, Index d) {
  return std::exp(-0.5 * static_cast<double>(d) * (kLog2Pi + 2.0 * std::log(s)));
}

void validate_options(const RsdeOptions& options, Index n) {
  require_positive_values(options.widths, "RSDE widths");
  if (options.widths.size() > 1 && (options.folds < 2 || options.folds > n)) {
    throw InvalidArgument("RSDE folds must lie between 2 and the number of samples (" +
                          std::to_string(n) + "), got " + std::to_string(options.folds));
  }
}

/// Weights and kept centres of RSDE on z at width γ.
struct Solved {
  MnqpResult mnqp;
  Matrix centers;
};

Solved solve(const MatrixView& z, double width, const MnqpOptions& mnqp) {
  const RsdeProblem problem = rsde_problem(z, width);
  Solved solved{solve_mnqp(problem.g, problem.parzen, mnqp), {}};
  solved.centers = gather_samples(z, solved.mnqp.kept);
  return solved;
}

/// Per-sample held-out ISE terms ∫p̂² − 2 p̂(z_test) of the RSDE fitted on `train` at γ.
Vector held_out_ise(const MatrixView& train, const MatrixView& test, double width,
                    const MnqpOptions& mnqp) {
  const Solved solved = solve(train, width, mnqp);
  const Vector beta = solved.mnqp.weights(solved.mnqp.kept);
  const Index d = train.rows();
  // ∫p̂² = βᵀ G β over the kept kernels (eq. 14).
  const Matrix g = gaussian_normaliser(std::sqrt(2.0) * width, d) *
                   gaussian_kernel(solved.centers, solved.centers, std::sqrt(2.0) * width);
  const double square = beta.dot(g * beta);
  const Vector density =
      gaussian_normaliser(width, d) * gaussian_kernel(test, solved.centers, width) * beta;
  return (square - 2.0 * density.array()).matrix();
}

}  // namespace

RsdeProblem rsde_problem(const MatrixView& z, double width) {
  require_positive(width, "RSDE width");
  const Index d = z.rows();
  const Matrix distances = squared_distances(z, z);
  RsdeProblem problem;
  // g_ij = G_{√2γ}(z_i, z_j) (eq. 14).
  problem.g = gaussian_normaliser(std::sqrt(2.0) * width, d) *
              (distances * (-0.25 / (width * width))).array().exp().matrix();
  // p̂_i = (1/N) Σ_k G_γ(z_i, z_k) (eqs. 15, 17).
  problem.parzen = gaussian_normaliser(width, d) *
                   (distances * (-0.5 / (width * width))).array().exp().rowwise().mean().matrix();
  return problem;
}

RsdeFit fit_rsde(const MatrixView& x, const RsdeOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  require_nonempty(x, "x");
  require_finite(x, "x");
  Standardizer scaling = Standardizer::fit(x, "x");
  validate_options(options, x.cols());
  const Matrix z = scaling.transform(x);
  const Index n = z.cols();

  FitReport report;
  report.method = "rsde";
  double width = options.widths.front();
  if (options.widths.size() > 1) {
    Rng rng(options.seed);
    const KFold folds(n, options.folds, rng);
    const Index w_count = static_cast<Index>(options.widths.size());
    Matrix fold_loss(w_count, folds.n_folds());
    // One task per (width, fold); each writes only its own entry.
    parallel_for(resolve_threads(options.threads), w_count * folds.n_folds(), [&](Index task) {
      const Index w = task / folds.n_folds();
      const int k = static_cast<int>(task % folds.n_folds());
      const Vector terms =
          held_out_ise(gather_samples(z, folds.train(k)), gather_samples(z, folds.test(k)),
                       options.widths[static_cast<std::size_t>(w)], options.mnqp);
      fold_loss(w, k) = terms.mean();
    });
    const Matrix candidates = Eigen::Map<const Vector>(options.widths.data(), w_count);
    CvTable table = make_cv_table({"width"}, candidates, fold_loss, "ise");
    if (table.best < 0) throw DataError("the RSDE held-out ISE is not finite for any width");
    width = options.widths[static_cast<std::size_t>(table.best)];
    for (auto& warning : grid_edge_warnings(table, {options.widths})) {
      report.warnings.push_back(std::move(warning));
    }
    report.cross_validation = std::move(table);
  }

  const Solved solved = solve(z, width, options.mnqp);
  const Vector beta = solved.mnqp.weights(solved.mnqp.kept);
  report.hyperparameters["width"] = width;
  report.statistics["n_train"] = static_cast<double>(n);
  report.statistics["dimension"] = static_cast<double>(z.rows());
  report.statistics["n_kernels"] = static_cast<double>(solved.mnqp.kept.size());
  report.statistics["mnqp_iterations"] = solved.mnqp.iterations;
  report.statistics["ise_objective"] = solved.mnqp.objective;
  if (!solved.mnqp.converged) {
    report.warnings.push_back("MNQP stopped at max_iterations before reaching its tolerance");
  }
  GaussianMixture model(std::move(scaling), beta, solved.centers,
                        Matrix::Constant(z.rows(), beta.size(), width));
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return {std::move(model), std::move(report)};
}

}  // namespace cdens
