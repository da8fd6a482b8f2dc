#include "cdens/density/gskd.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "cdens/core/error.hpp"
#include "cdens/core/gaussian_kernel.hpp"
#include "cdens/core/parallel.hpp"
#include "cdens/core/validate.hpp"
#include "cdens/density/fixed_kernels.hpp"
#include "cdens/density/ofr.hpp"
#include "cdens/density/parzen.hpp"

namespace cdens {
namespace {

// Below this many kernel values (samples × batch members) a batch is evaluated on one thread:
// starting threads would cost more than the work.
constexpr Index kParallelBatchWork = 20000;

void validate_options(const GskdOptions& options) {
  if (options.target_width != 0.0) require_positive(options.target_width, "GSKD target_width");
  if (!(options.regularization >= 0.0) || !std::isfinite(options.regularization)) {
    throw InvalidArgument("GSKD regularization must be finite and non-negative");
  }
  if (options.population < 0 || options.generations < 0 || options.iterations < 0) {
    throw InvalidArgument(
        "GSKD population, generations and iterations must be ≥ 0 (0: the "
        "paper's settings)");
  }
  require_positive(options.variance_lower, "GSKD variance_lower");
  require_positive(options.variance_upper, "GSKD variance_upper");
  if (options.max_kernels < 1) throw InvalidArgument("GSKD max_kernels must be at least 1");
}

/// φ_k = N(z_k; c, diag γ²) for u = (c, γ²) (eq. 4): one candidate model column.
Vector kernel_column(const MatrixView& z, const VectorView& u) {
  const Index m = z.rows();
  const auto center = u.head(m);
  const Eigen::ArrayXd variance = u.tail(m).array();
  const double log_norm = -0.5 * (static_cast<double>(m) * kLog2Pi + variance.log().sum());
  const Eigen::ArrayXd quadratic =
      ((z.colwise() - center).array().square().colwise() / variance).colwise().sum().transpose();
  return (log_norm - 0.5 * quadratic).exp().matrix();
}

}  // namespace

RwbsOptions gskd_paper_rwbs(Index dimension) {
  RwbsOptions options;
  options.population = dimension == 1 ? 10 : dimension == 2 ? 20 : 40;
  options.generations = 10;
  options.iterations = dimension <= 2 ? 200 : 400;
  return options;
}

GskdFit fit_gskd(const MatrixView& x, const GskdOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  validate_options(options);
  Standardizer scaling = density_scaling(x, options.standardize);
  const Matrix z = scaling.transform(x);
  const Index m = z.rows();
  const Index n = z.cols();
  if (n < 2) throw DataError("GSKD needs at least 2 samples");

  const double target_width =
      parzen_target_width(x, options.target_width, options.standardize, options.threads);
  RwbsOptions rwbs = gskd_paper_rwbs(m);
  if (options.population > 0) rwbs.population = options.population;
  if (options.generations > 0) rwbs.generations = options.generations;
  if (options.iterations > 0) rwbs.iterations = options.iterations;
  rwbs.seed = options.seed;

  // The search box of §III-A: centres within the data's range, variances within
  // [variance_lower · γ²_Parz, variance_upper · s_i²] (s_i the sample standard deviation of
  // dimension i), the lower bound at most half the upper.
  const Vector mean = z.rowwise().mean();
  const Vector variance = (z.colwise() - mean).rowwise().squaredNorm() / static_cast<double>(n - 1);
  Vector lower(2 * m), upper(2 * m);
  upper << z.rowwise().maxCoeff(), options.variance_upper * variance;
  lower << z.rowwise().minCoeff(),
      (0.5 * upper.tail(m)).cwiseMin(options.variance_lower * target_width * target_width);

  OfrLoo model(parzen_at_samples(z, target_width), options.regularization);
  const int threads = resolve_threads(options.threads);
  std::vector<Vector> kernels;  // u_n = (c_n, γ_n²) of every constructed kernel
  Index evaluations = 0;
  while (static_cast<Index>(kernels.size()) < std::min(options.max_kernels, n)) {
    // RWBS normalises costs by their sum, so they must be finite: a column the LOO criterion
    // refuses (in the span of the model, or a zero LOO weighting) and any column worse than
    // twice J_{n−1} cost 2 J_{n−1}; neither could be accepted by eq. (38) anyway.
    const double ceiling = 2.0 * model.loo_mse();
    const RwbsBatchCost cost = [&](const Matrix& points) {
      Vector costs(points.cols());
      const int batch_threads = n * points.cols() < kParallelBatchWork ? 1 : threads;
      parallel_for(batch_threads, points.cols(), [&](Index j) {
        costs(j) = std::min(model.evaluate(kernel_column(z, points.col(j))).loo_mse, ceiling);
      });
      return costs;
    };
    rwbs.stream = static_cast<std::uint64_t>(kernels.size());
    const RwbsResult found = rwbs_minimize_batches(cost, lower, upper, rwbs);
    evaluations += found.evaluations;
    const OfrCandidate candidate = model.evaluate(kernel_column(z, found.point));
    // Eq. (38): stop when J_{n+1} ≥ J_n; a density needs at least one kernel.
    if (!std::isfinite(candidate.loo_mse)) {
      if (kernels.empty()) throw DataError("GSKD: RWBS found no admissible first kernel");
      break;
    }
    if (!kernels.empty() && candidate.loo_mse >= model.loo_mse()) break;
    model.add(candidate);
    kernels.push_back(found.point);
  }

  // Eq. (39) over the constructed kernels: B = ΦᵀΦ, v = Φᵀt.
  const Index k_count = static_cast<Index>(kernels.size());
  Matrix phi(n, k_count);
  for (Index l = 0; l < k_count; ++l)
    phi.col(l) = kernel_column(z, kernels[static_cast<std::size_t>(l)]);
  const MnqpResult mnqp =
      solve_mnqp(phi.transpose() * phi, phi.transpose() * model.target(), options.mnqp);
  const Index kept = static_cast<Index>(mnqp.kept.size());
  Matrix centers(m, kept), widths(m, kept);
  for (Index l = 0; l < kept; ++l) {
    const Vector& u = kernels[static_cast<std::size_t>(mnqp.kept[static_cast<std::size_t>(l)])];
    centers.col(l) = u.head(m);
    widths.col(l) = u.tail(m).array().sqrt().matrix();
  }

  FitReport report;
  report.method = "gskd";
  report.hyperparameters["target_width"] = target_width;
  report.statistics["n_train"] = static_cast<double>(n);
  report.statistics["dimension"] = static_cast<double>(m);
  report.statistics["n_selected"] = static_cast<double>(k_count);
  report.statistics["n_kernels"] = static_cast<double>(kept);
  report.statistics["loo_mse"] = model.loo_mse();
  report.statistics["cost_evaluations"] = static_cast<double>(evaluations);
  report.statistics["population"] = rwbs.population;
  report.statistics["generations"] = rwbs.generations;
  report.statistics["iterations"] = rwbs.iterations;
  report.statistics["mnqp_iterations"] = mnqp.iterations;
  if (!mnqp.converged) {
    report.warnings.push_back("MNQP stopped at max_iterations before reaching its tolerance");
  }
  if (k_count == std::min(options.max_kernels, n)) {
    report.warnings.push_back("GSKD stopped at max_kernels before the LOO criterion stopped it");
  }
  GaussianMixture fitted(std::move(scaling), mnqp.weights(mnqp.kept), std::move(centers),
                         std::move(widths));
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return {std::move(fitted), std::move(report)};
}

}  // namespace cdens
