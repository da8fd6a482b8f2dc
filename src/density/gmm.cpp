#include "cdens/density/gmm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cdens/core/error.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/validate.hpp"
#include "core/fit_skeleton.hpp"
#include "core/gaussian_kernel.hpp"
#include "core/log_space.hpp"
#include "core/parallel.hpp"
#include "core/random_streams.hpp"
#include "density/fixed_kernels.hpp"

namespace cdens {
namespace {

// Samples are processed in blocks of this many, one block per task; block sums are added in
// block order, so the result does not depend on the thread count.
constexpr Index kSampleBlock = 512;

void validate_options(const GmmOptions& options, Index n) {
  if (options.n_components < 1) throw InvalidArgument("GMM n_components must be at least 1");
  if (options.n_components > n) {
    throw InvalidArgument("GMM n_components (" + std::to_string(options.n_components) +
                          ") exceeds the number of samples (" + std::to_string(n) + ")");
  }
  if (options.n_init < 1) throw InvalidArgument("GMM n_init must be at least 1");
  require_positive(options.variance_floor, "GMM variance_floor");
  require_positive(options.tolerance, "GMM tolerance");
  if (options.max_iterations < 0) throw InvalidArgument("GMM max_iterations must be ≥ 0");
  if (options.initialization == GmmInitialization::box) {
    if (!(std::isfinite(options.box_lower) && std::isfinite(options.box_upper) &&
          options.box_lower < options.box_upper)) {
      throw InvalidArgument("GMM box: box_lower must be finite and smaller than box_upper");
    }
    require_positive(options.initial_variance, "GMM initial_variance");
  }
}

/// E-step (eq. 5) in log space for the samples of one block: log r_kl into `log_r` (N_K × w);
/// returns Σ_k log p̂(z_k) over the block.
double log_responsibilities(const MatrixView& z, const Vector& log_weights, const Matrix& centers,
                            const Matrix& variances, Eigen::Ref<Matrix> log_r) {
  const Index k_count = centers.cols();
  for (Index l = 0; l < k_count; ++l) {
    const Eigen::ArrayXd inverse = variances.col(l).array().inverse();
    const double log_norm = -0.5 * (variances.col(l).array().log().sum() + z.rows() * kLog2Pi);
    const Eigen::ArrayXd mahalanobis =
        ((z.colwise() - centers.col(l)).array().square().colwise() * inverse)
            .colwise()
            .sum()
            .transpose();
    log_r.row(l) = (log_weights(l) + log_norm - 0.5 * mahalanobis).matrix().transpose();
  }
  double total = 0.0;
  for (Index j = 0; j < z.cols(); ++j) {
    const double normaliser = log_sum_exp(log_r.col(j));
    log_r.col(j).array() -= normaliser;
    total += normaliser;
  }
  return total;
}

/// The mean log-likelihood and responsibilities r_kl (N_K × N) of the current parameters.
double expectation(const MatrixView& z, const Vector& weights, const Matrix& centers,
                   const Matrix& variances, int threads, Matrix& responsibilities) {
  const Index n = z.cols();
  const Vector log_weights = weights.array().log();
  responsibilities.resize(centers.cols(), n);
  const Index blocks = (n + kSampleBlock - 1) / kSampleBlock;
  Vector block_sums(blocks);
  parallel_for(threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, n - start);
    auto log_r = responsibilities.middleCols(start, size);
    block_sums(block) =
        log_responsibilities(z.middleCols(start, size), log_weights, centers, variances, log_r);
    exp_flushing_below_in_place(log_r);
  });
  double total = 0.0;
  for (Index b = 0; b < blocks; ++b) total += block_sums(b);
  return total / static_cast<double>(n);
}

/// M-step (eqs. 6–8) with the variance floor, from responsibilities r (N_K × N).
void maximization(const MatrixView& z, const Matrix& responsibilities, double floor, int threads,
                  Vector& weights, Matrix& centers, Matrix& variances) {
  const Index n = z.cols();
  const Index d = z.rows();
  const Index k_count = responsibilities.rows();
  const Index blocks = (n + kSampleBlock - 1) / kSampleBlock;
  // Block sums of N_l and Σ_k r_kl z_k, added in block order.
  std::vector<Vector> mass(static_cast<std::size_t>(blocks));
  std::vector<Matrix> first(static_cast<std::size_t>(blocks));
  parallel_for(threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, n - start);
    const auto r = responsibilities.middleCols(start, size);
    mass[static_cast<std::size_t>(block)] = r.rowwise().sum();
    Matrix sums(d, k_count);
    for (Index l = 0; l < k_count; ++l) {
      sums.col(l) =
          (z.middleCols(start, size).array().rowwise() * r.row(l).array()).rowwise().sum();
    }
    first[static_cast<std::size_t>(block)] = std::move(sums);
  });
  Vector n_l = Vector::Zero(k_count);
  Matrix weighted = Matrix::Zero(d, k_count);
  for (std::size_t b = 0; b < mass.size(); ++b) {
    n_l += mass[b];
    weighted += first[b];
  }
  std::vector<bool> alive(static_cast<std::size_t>(k_count));
  for (Index l = 0; l < k_count; ++l) {
    alive[static_cast<std::size_t>(l)] = n_l(l) > 0.0;
    weights(l) = n_l(l) / static_cast<double>(n);                                       // eq. (6)
    if (alive[static_cast<std::size_t>(l)]) centers.col(l) = weighted.col(l) / n_l(l);  // eq. (7)
  }
  weights /= weights.sum();
  // Eq. (8) around the new centres, a second pass (no cancellation of Σ r z² − N c²).
  std::vector<Matrix> second(static_cast<std::size_t>(blocks));
  parallel_for(threads, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, n - start);
    const auto r = responsibilities.middleCols(start, size);
    Matrix sums(d, k_count);
    for (Index l = 0; l < k_count; ++l) {
      sums.col(l) =
          ((z.middleCols(start, size).colwise() - centers.col(l)).array().square().rowwise() *
           r.row(l).array())
              .rowwise()
              .sum();
    }
    second[static_cast<std::size_t>(block)] = std::move(sums);
  });
  Matrix scatter = Matrix::Zero(d, k_count);
  for (const auto& sums : second) scatter += sums;
  for (Index l = 0; l < k_count; ++l) {
    if (!alive[static_cast<std::size_t>(l)]) continue;
    // Maximising Q over γ² ≥ γ²_min: Q is unimodal in each γ², so the bound is the clamp.
    variances.col(l) = (scatter.col(l).array() / n_l(l)).max(floor).matrix();
  }
}

/// k-means++ seeding, then hard assignment and one M-step.
void kmeans_plus_plus_start(const MatrixView& z, const GmmOptions& options, Rng& rng,
                            Vector& weights, Matrix& centers, Matrix& variances) {
  const Index n = z.cols();
  const Index k_count = options.n_components;
  centers.resize(z.rows(), k_count);
  Index first = static_cast<Index>(rng.uniform() * static_cast<double>(n));
  centers.col(0) = z.col(std::min(first, n - 1));
  Vector nearest = squared_distances(z, centers.col(0)).col(0);
  for (Index l = 1; l < k_count; ++l) {
    const double total = nearest.sum();
    Index chosen = n - 1;
    if (total > 0.0) {
      // A sample with probability proportional to its squared distance to the nearest centre.
      const double target = rng.uniform() * total;
      double cumulative = 0.0;
      for (Index j = 0; j < n; ++j) {
        cumulative += nearest(j);
        if (cumulative > target) {
          chosen = j;
          break;
        }
      }
    } else {
      chosen = std::min(static_cast<Index>(rng.uniform() * static_cast<double>(n)), n - 1);
    }
    centers.col(l) = z.col(chosen);
    nearest = nearest.cwiseMin(squared_distances(z, centers.col(l)).col(0));
  }
  const Matrix distances = squared_distances(z, centers);  // N × N_K
  Matrix hard = Matrix::Zero(k_count, n);
  for (Index j = 0; j < n; ++j) {
    Index best = 0;
    distances.row(j).minCoeff(&best);
    hard(best, j) = 1.0;
  }
  weights.resize(k_count);
  variances.resize(z.rows(), k_count);
  variances.setConstant(1.0);
  maximization(z, hard, options.variance_floor, 1, weights, centers, variances);
}

/// The paper's box start (§IV).
void box_start(Index dimension, const GmmOptions& options, Rng& rng, Vector& weights,
               Matrix& centers, Matrix& variances) {
  const Index k_count = options.n_components;
  weights = Vector::Constant(k_count, 1.0 / static_cast<double>(k_count));
  centers.resize(dimension, k_count);
  for (Index l = 0; l < k_count; ++l) {
    for (Index i = 0; i < dimension; ++i) {
      centers(i, l) = options.box_lower + (options.box_upper - options.box_lower) * rng.uniform();
    }
  }
  variances = Matrix::Constant(dimension, k_count,
                               std::max(options.initial_variance, options.variance_floor));
}

}  // namespace

EmRun run_em(const MatrixView& z, Vector weights, Matrix centers, Matrix variances,
             const GmmOptions& options) {
  const Index k_count = centers.cols();
  if (weights.size() != k_count || centers.rows() != z.rows() || variances.rows() != z.rows() ||
      variances.cols() != k_count || k_count == 0) {
    throw InvalidArgument("EM: weights, centres and variances disagree in shape");
  }
  require_positive(options.variance_floor, "GMM variance_floor");
  if (!(variances.array() > 0.0).all() || (weights.array() < 0.0).any()) {
    throw InvalidArgument("EM: variances must be positive and weights non-negative");
  }
  const int threads = resolve_threads(options.threads);
  EmRun run;
  Matrix responsibilities;
  double current = expectation(z, weights, centers, variances, threads, responsibilities);
  run.log_likelihood.push_back(current);
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    maximization(z, responsibilities, options.variance_floor, threads, weights, centers, variances);
    const double next = expectation(z, weights, centers, variances, threads, responsibilities);
    run.log_likelihood.push_back(next);
    ++run.iterations;
    const bool small_step = next - current < options.tolerance;
    current = next;
    if (small_step) {
      run.converged = true;
      break;
    }
  }
  run.weights = std::move(weights);
  run.centers = std::move(centers);
  run.variances = std::move(variances);
  return run;
}

std::string to_string(GmmInitialization initialization) {
  return initialization == GmmInitialization::box ? "box" : "kmeans++";
}

GmmInitialization parse_gmm_initialization(const std::string& name) {
  for (const auto initialization : {GmmInitialization::kmeans_plus_plus, GmmInitialization::box}) {
    if (name == to_string(initialization)) return initialization;
  }
  throw InvalidArgument("the GMM initialisation must be kmeans++ or box, got '" + name + "'");
}

DensityFit fit_gmm(const MatrixView& x, const GmmOptions& options, const FitContext& context) {
  return timed_fit<GaussianMixture>("gmm", [&](FitReport& report) {
    Standardizer scaling = density_scaling(x, options.standardize, context);
    validate_options(options, x.cols());
    const Matrix z = scaling.transform(x);

    std::vector<EmRun> runs(static_cast<std::size_t>(options.n_init));
    GmmOptions inner = options;
    inner.threads = 1;  // restarts run in parallel; each run on one thread
    parallel_for(resolve_threads(options.threads), options.n_init, [&](Index r) {
      Rng rng(options.seed, random_stream::indexed(r));
      Vector weights;
      Matrix centers, variances;
      if (options.initialization == GmmInitialization::box) {
        box_start(z.rows(), options, rng, weights, centers, variances);
      } else {
        kmeans_plus_plus_start(z, options, rng, weights, centers, variances);
      }
      runs[static_cast<std::size_t>(r)] =
          run_em(z, std::move(weights), std::move(centers), std::move(variances), inner);
    });
    std::size_t best = 0;
    for (std::size_t r = 1; r < runs.size(); ++r) {
      if (runs[r].log_likelihood.back() > runs[best].log_likelihood.back()) best = r;
    }
    EmRun& run = runs[best];
    if (!std::isfinite(run.log_likelihood.back())) {
      throw DataError("EM did not reach a finite likelihood from any start");
    }

    report.hyperparameters["n_components"] = static_cast<double>(options.n_components);
    report.hyperparameters["variance_floor"] = options.variance_floor;
    report.statistics["n_train"] = static_cast<double>(z.cols());
    report.statistics["dimension"] = static_cast<double>(z.rows());
    report.statistics["log_likelihood"] = run.log_likelihood.back();
    report.statistics["iterations"] = run.iterations;
    report.statistics["converged"] = run.converged ? 1.0 : 0.0;
    report.statistics["best_restart"] = static_cast<double>(best);
    if (!run.converged) {
      report.warnings.push_back("EM stopped at max_iterations before reaching the tolerance");
    }
    const Index floored = (run.variances.array() <= options.variance_floor).count();
    if (floored > 0) {
      report.warnings.push_back(std::to_string(floored) +
                                " variances sit at the floor variance_floor");
    }
    GaussianMixture model(std::move(scaling), run.weights, run.centers,
                          run.variances.array().sqrt().matrix());
    return model;
  });
}

}  // namespace cdens
