#include "conditional/gaussian_process_regression.hpp"

#include <nlopt.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "conditional/standardized_linear_fit.hpp"
#include "core/flush_subnormals.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/parallel.hpp"
#include "parallel/samples_of_ranks.hpp"

// LAPACK's inverse from a Cholesky factor, in the OpenBLAS cdens links (the prototype of its
// f77blas.h, whose other declarations clash with Eigen's).
extern "C" void dpotri_(const char* triangle, const int* order, double* factor, const int* leading,
                        int* info);

namespace cdens {
namespace {

/// Bounds of θ: length scales in standardised input units (10⁻² resolves finer than any table's
/// spacing, 10³ is flat over the data), σ_f² and σ_n² relative to the variance of the residuals
/// of the line.
constexpr double kLowerLength = 1e-2;
constexpr double kUpperLength = 1e3;
constexpr double kLowerSignal = 1e-6;
constexpr double kUpperSignal = 1e2;
constexpr double kLowerNoise = 1e-8;
constexpr double kUpperNoise = 1e1;
/// Added to K_UU's diagonal, relative to σ_f², so that its Cholesky factor exists when basis
/// points nearly coincide at long length scales.
constexpr double kJitter = 1e-8;
/// Random starts lie within this distance of the default start in every log parameter.
constexpr double kStartSpread = 1.5;
/// The search stops when the negative log marginal likelihood per pair (about 1) changes by less
/// than this between iterations: far below its sampling error of about 1/√n.
constexpr double kRelativeTolerance = 1e-6;
/// Training pairs go through the basis in blocks of this many columns (K_Ub is basis × block).
constexpr Index kPairBlock = 2048;
/// Eigen-directions of Φ Φᵀ whose share λ / (λ + σ_n²) of the prior variance falls below this are
/// left out of the variance factor: the predictive variance they would remove is below 10⁻⁶ σ_f².
constexpr double kVarianceShareFloor = 1e-6;

/// K⁻¹ from its Cholesky factor (LAPACK's dpotri: the triangular inverse and its product, a third
/// of the work of solving K X = I column by column, which was most of an evaluation's time).
Matrix inverse_from_factor(const Eigen::LLT<Matrix>& factor) {
  Matrix inverse = factor.matrixLLT();
  const char lower = 'L';
  const auto order = static_cast<int>(inverse.rows());
  int info = 0;
  dpotri_(&lower, &order, inverse.data(), &order, &info);
  if (info != 0) throw Error("LAPACK dpotri failed on a positive definite factor");
  inverse.triangularView<Eigen::StrictlyUpper>() = inverse.transpose();
  return inverse;
}

/// K(a, b) = σ_f² exp(−½ ‖(a − b) / ℓ‖²): |a| × |b|.
Matrix ard_kernel(const MatrixView& a, const MatrixView& b, const Vector& length_scales,
                  double signal_variance) {
  const auto inverse = length_scales.cwiseInverse().asDiagonal();
  return signal_variance *
         (-0.5 * squared_distances(inverse * a, inverse * b).array()).exp().matrix();
}

struct LikelihoodObjective {
  const Matrix& z;
  const Vector& rho;
  nlopt_opt optimizer;
  std::exception_ptr failure;
  int evaluations = 0;
};

double nlopt_likelihood(unsigned size, const double* theta, double* gradient, void* data) {
  auto& objective = *static_cast<LikelihoodObjective*>(data);
  ++objective.evaluations;
  try {
    const Vector parameters = Eigen::Map<const Vector>(theta, size);
    Vector derivative;
    const double value = gaussian_process_negative_log_likelihood(
        objective.z, objective.rho, parameters, gradient != nullptr ? &derivative : nullptr);
    if (gradient != nullptr) {
      if (std::isfinite(value)) {
        Eigen::Map<Vector>(gradient, size) = derivative;
      } else {
        Eigen::Map<Vector>(gradient, size).setZero();
      }
    }
    return std::isfinite(value) ? value : HUGE_VAL;
  } catch (...) {
    objective.failure = std::current_exception();
    nlopt_force_stop(objective.optimizer);
    return HUGE_VAL;
  }
}

/// The box of θ for residuals of mean square `variance`, and the default start: ℓ = √d_x (a
/// typical squared distance between standardised points is 2 d_x), 90 % of the residual variance
/// explained by the process.
struct SearchBox {
  std::vector<double> lower;
  std::vector<double> upper;
  Vector start;
};

SearchBox search_box(Index d, double variance) {
  const auto size = static_cast<std::size_t>(d + 2);
  SearchBox box{std::vector<double>(size, std::log(kLowerLength)),
                std::vector<double>(size, std::log(kUpperLength)), Vector(d + 2)};
  box.lower[size - 2] = std::log(kLowerSignal * variance);
  box.upper[size - 2] = std::log(kUpperSignal * variance);
  box.lower[size - 1] = std::log(kLowerNoise * variance);
  box.upper[size - 1] = std::log(kUpperNoise * variance);
  box.start.head(d).setConstant(0.5 * std::log(static_cast<double>(std::max<Index>(d, 1))));
  box.start(d) = std::log(0.9 * variance);
  box.start(d + 1) = std::log(0.1 * variance);
  return box;
}

/// L-BFGS on the marginal likelihood of ρ at z from each of `thetas` (overwritten by the end
/// points), as tasks on `threads` threads, each with single-threaded BLAS, so the result does not
/// depend on the thread count. Returns the criterion at each end point and adds the evaluations
/// to `evaluations`.
std::vector<double> run_searches(const Matrix& z, const Vector& rho, const SearchBox& box,
                                 int max_evaluations, std::vector<Vector>& thetas, int threads,
                                 int& evaluations) {
  const auto size = static_cast<unsigned>(box.start.size());
  std::vector<double> values(thetas.size(), HUGE_VAL);
  std::vector<int> counts(thetas.size(), 0);
  parallel_for(threads, static_cast<Index>(thetas.size()), [&](Index run) {
    // Short length scales fill the Cholesky products with subnormal numbers: a fit on 552
    // pairs of energy took 8.8 s with them and 1.8 s flushed (one thread).
    const FlushSubnormals flush;
    std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> optimizer(
        nlopt_create(NLOPT_LD_LBFGS, size), &nlopt_destroy);
    if (!optimizer) throw Error("NLopt could not create an L-BFGS optimiser");
    nlopt_set_lower_bounds(optimizer.get(), box.lower.data());
    nlopt_set_upper_bounds(optimizer.get(), box.upper.data());
    nlopt_set_maxeval(optimizer.get(), max_evaluations);
    nlopt_set_ftol_rel(optimizer.get(), kRelativeTolerance);
    LikelihoodObjective objective{z, rho, optimizer.get(), nullptr};
    nlopt_set_min_objective(optimizer.get(), &nlopt_likelihood, &objective);
    // NLopt's own failures (roundoff in the line search) leave its best point in theta.
    nlopt_optimize(optimizer.get(), thetas[static_cast<std::size_t>(run)].data(),
                   &values[static_cast<std::size_t>(run)]);
    counts[static_cast<std::size_t>(run)] = objective.evaluations;
    if (objective.failure) std::rethrow_exception(objective.failure);
  });
  for (const int count : counts) evaluations += count;
  return values;
}

/// θ maximising the marginal likelihood of ρ at the basis inputs z: the default start and
/// `restarts` random ones run on the first screening_pairs of a random order of the pairs, the
/// best end point is polished on the first likelihood_pairs (as KCDE screens its starts); or,
/// from a warm start (non-empty `warm`), one run from it on the likelihood_pairs where it ends at
/// a finite likelihood.
Vector search_hyperparameters(const Matrix& z, const Vector& rho,
                              const GaussianProcessTrendOptions& options, const Vector& warm,
                              Rng& rng, int threads, int& evaluations) {
  const Index d = z.rows();
  const Index m = z.cols();
  const SearchBox box = search_box(d, std::max(rho.squaredNorm() / static_cast<double>(m), 1e-12));
  const auto order = rng.permutation<Index>(m);
  const auto subset = [&](Index count) {
    count = std::min(count, m);
    std::pair<Matrix, Vector> chosen{Matrix(d, count), Vector(count)};
    for (Index i = 0; i < count; ++i) {
      chosen.first.col(i) = z.col(order[static_cast<std::size_t>(i)]);
      chosen.second(i) = rho(order[static_cast<std::size_t>(i)]);
    }
    return chosen;
  };
  if (warm.size() != 0) {
    if (warm.size() != box.start.size()) {
      throw InvalidArgument("a warm start of the trend needs d_x + 2 parameters");
    }
    std::vector<Vector> from_warm = {warm};
    for (Index j = 0; j < warm.size(); ++j) {
      const auto position = static_cast<std::size_t>(j);
      from_warm.front()(j) = std::clamp(warm(j), box.lower[position], box.upper[position]);
    }
    const auto [likelihood_z, likelihood_rho] = subset(options.likelihood_pairs);
    const std::vector<double> values = run_searches(
        likelihood_z, likelihood_rho, box, options.max_evaluations, from_warm, 1, evaluations);
    // A start where the covariance is not positive definite: the search from scratch.
    if (std::isfinite(values.front())) return from_warm.front();
  }
  // The starts are drawn before any runs, in order.
  std::vector<Vector> thetas(static_cast<std::size_t>(options.restarts) + 1, box.start);
  for (std::size_t run = 1; run < thetas.size(); ++run) {
    for (Index j = 0; j < box.start.size(); ++j) {
      const auto position = static_cast<std::size_t>(j);
      thetas[run](j) = std::clamp(box.start(j) + kStartSpread * (2.0 * rng.uniform() - 1.0),
                                  box.lower[position], box.upper[position]);
    }
  }
  const auto [screening_z, screening_rho] = subset(options.screening_pairs);
  std::vector<double> values =
      run_searches(screening_z, screening_rho, box, options.max_evaluations, thetas,
                   resolve_threads(threads), evaluations);
  const auto best =
      static_cast<std::size_t>(std::min_element(values.begin(), values.end()) - values.begin());
  std::vector<Vector> polished = {thetas[best]};
  if (std::min(options.likelihood_pairs, m) > screening_z.cols()) {
    const auto [likelihood_z, likelihood_rho] = subset(options.likelihood_pairs);
    values = run_searches(likelihood_z, likelihood_rho, box, options.max_evaluations, polished, 1,
                          evaluations);
  } else {
    values = {values[best]};
  }
  if (!std::isfinite(values.front())) {
    throw DataError("the Gaussian-process trend's marginal likelihood is not finite anywhere");
  }
  return polished.front();
}

/// One output's process on the basis U with fixed hyperparameters, and the leave-one-out view of
/// every pair.
struct ProcessPosterior {
  GaussianProcessOutput output;
  Vector residuals;  ///< r_i / √v_i
  Vector variances;  ///< v_i
};

ProcessPosterior posterior_on_basis(const Matrix& basis, const Matrix& z, const Vector& rho,
                                    const Vector& theta, const Communicator& communicator) {
  const Index d = z.rows();
  const Index m = basis.cols();
  const Index n = z.cols();
  const Vector length_scales = theta.head(d).array().exp();
  const double signal = std::exp(theta(d));
  const double noise = std::exp(theta(d + 1));
  Matrix k_uu = ard_kernel(basis, basis, length_scales, signal);
  k_uu.diagonal().array() += kJitter * signal;
  const Eigen::LLT<Matrix> factor(k_uu);
  if (factor.info() != Eigen::Success) {
    throw DataError("the Gaussian-process trend's basis kernel matrix is not positive definite");
  }
  // Φ in blocks of pairs: Φ Φᵀ and Φ ρ.
  const auto features = [&](Index start, Index width) {
    Matrix phi = ard_kernel(basis, z.middleCols(start, width), length_scales, signal);
    factor.matrixL().solveInPlace(phi);
    return phi;
  };
  Matrix gram = Matrix::Zero(m, m);
  Vector projected = Vector::Zero(m);
  for (Index start = 0; start < n; start += kPairBlock) {
    const Index width = std::min(kPairBlock, n - start);
    const Matrix phi = features(start, width);
    gram.selfadjointView<Eigen::Lower>().rankUpdate(phi);
    projected += phi * rho.segment(start, width);
  }
  gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
  // On several ranks Φ Φᵀ and Φ ρ are sums over every rank's pairs; each rank then takes the
  // leave-one-out view of its own.
  communicator.allreduce_sum(gram.data(), static_cast<std::size_t>(gram.size()));
  communicator.allreduce_sum(projected.data(), static_cast<std::size_t>(projected.size()));
  // A = Φ Φᵀ + σ_n² I through the eigenvectors of Φ Φᵀ: A⁻¹ and the variance factor share them.
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(gram);
  if (eigen.info() != Eigen::Success) {
    throw DataError("the Gaussian-process trend's posterior could not be decomposed");
  }
  const Vector lambdas = eigen.eigenvalues().cwiseMax(0.0);
  const Matrix& vectors = eigen.eigenvectors();
  const Vector inverse_a = (lambdas.array() + noise).inverse();
  const Vector w = vectors * inverse_a.cwiseProduct(vectors.transpose() * projected);

  ProcessPosterior posterior;
  GaussianProcessOutput& output = posterior.output;
  output.length_scales = length_scales;
  output.signal_variance = signal;
  output.noise_variance = noise;
  // μ(z) = φ(z)ᵀ w = k(U, z)ᵀ L⁻ᵀ w.
  output.weights = factor.matrixU().solve(w);
  // ‖Rᵀ k‖² = φᵀ V diag(λ / (λ + σ_n²)) Vᵀ φ with R = L⁻ᵀ V diag(√(λ / (λ + σ_n²))), the
  // negligible directions left out.
  const Eigen::ArrayXd share = lambdas.array() * inverse_a.array();
  std::vector<Index> kept;
  for (Index j = 0; j < m; ++j) {
    if (share(j) >= kVarianceShareFloor) kept.push_back(j);
  }
  Matrix reduced(m, static_cast<Index>(kept.size()));
  for (std::size_t j = 0; j < kept.size(); ++j) {
    reduced.col(static_cast<Index>(j)) = vectors.col(kept[j]) * std::sqrt(share(kept[j]));
  }
  output.variance_factor = factor.matrixU().solve(reduced);

  // Leave-one-out: S_ii = φ_iᵀ A⁻¹ φ_i, r_i = (ρ_i − μ_i) / (1 − S_ii),
  // v_i = σ_n² / (1 − S_ii) + σ_f² − ‖φ_i‖².
  posterior.residuals.resize(n);
  posterior.variances.resize(n);
  const Vector inverse_root_a = inverse_a.cwiseSqrt();
  for (Index start = 0; start < n; start += kPairBlock) {
    const Index width = std::min(kPairBlock, n - start);
    const Matrix phi = features(start, width);
    const Matrix rotated = inverse_root_a.asDiagonal() * (vectors.transpose() * phi);
    const Vector leverage = rotated.colwise().squaredNorm().transpose();
    const Vector fitted = phi.transpose() * w;
    const Vector unexplained =
        (signal - phi.colwise().squaredNorm().array()).max(0.0).matrix().transpose();
    for (Index j = 0; j < width; ++j) {
      // The leverage of a pair never reaches 1 with σ_n² > 0; the floor guards rounding.
      const double kept_share = std::max(1.0 - leverage(j), 1e-12);
      const double variance = noise / kept_share + unexplained(j);
      posterior.residuals(start + j) =
          (rho(start + j) - fitted(j)) / kept_share / std::sqrt(variance);
      posterior.variances(start + j) = variance;
    }
  }
  return posterior;
}

}  // namespace

double gaussian_process_negative_log_likelihood(const Matrix& z, const Vector& rho,
                                                const Vector& theta, Vector* gradient) {
  const Index d = z.rows();
  const Index m = z.cols();
  const Vector length_scales = theta.head(d).array().exp();
  const double signal = std::exp(theta(d));
  const double noise = std::exp(theta(d + 1));
  const Matrix kernel = ard_kernel(z, z, length_scales, signal);
  Matrix covariance = kernel;
  covariance.diagonal().array() += noise;
  const Eigen::LLT<Matrix> factor(covariance);
  if (factor.info() != Eigen::Success) return INFINITY;
  const Vector alpha = factor.solve(rho);
  // R&W eq. 5.8: ½ ρᵀ K_y⁻¹ ρ + ½ log |K_y| + (m/2) log 2π, here per pair.
  const double log_determinant = 2.0 * factor.matrixLLT().diagonal().array().log().sum();
  const double count = static_cast<double>(m);
  const double value = (0.5 * rho.dot(alpha) + 0.5 * log_determinant) / count + 0.5 * kLog2Pi;
  if (gradient == nullptr) return value;
  // R&W eq. 5.9: ∂/∂θ_j = −½ tr((α αᵀ − K_y⁻¹) ∂K_y/∂θ_j), with ∂K/∂log ℓ_k = K ∘ Δ_k² / ℓ_k²,
  // ∂K/∂log σ_f² = K and ∂K_y/∂log σ_n² = σ_n² I.
  Matrix weights = alpha * alpha.transpose() - inverse_from_factor(factor);
  const Matrix products = weights.cwiseProduct(kernel);
  const Vector row_sums = products.rowwise().sum();
  const Matrix scaled = length_scales.cwiseInverse().asDiagonal() * z;
  // Σ_ij P_ij (a_i − a_j)² = 2 Σ_i a_i² Σ_j P_ij − 2 aᵀ P a for symmetric P.
  const Matrix projected = scaled * products;  // d × m
  gradient->resize(d + 2);
  for (Index k = 0; k < d; ++k) {
    const double quadratic = 2.0 * scaled.row(k).cwiseAbs2().dot(row_sums.transpose()) -
                             2.0 * projected.row(k).dot(scaled.row(k));
    (*gradient)(k) = -0.5 * quadratic / count;
  }
  (*gradient)(d) = -0.5 * products.sum() / count;
  (*gradient)(d + 1) = -0.5 * noise * weights.trace() / count;
  return value;
}

GaussianProcessTrendFit fit_gaussian_process_trend(const StandardizedSamples& pairs,
                                                   const GaussianProcessTrendOptions& options,
                                                   int threads, const Communicator& communicator) {
  if (options.max_basis < 2) throw InvalidArgument("the trend's max_basis must be at least 2");
  if (options.restarts < 0) throw InvalidArgument("the trend's restarts must not be negative");
  if (options.max_evaluations < 1) {
    throw InvalidArgument("the trend's max_evaluations must be at least 1");
  }
  const Index d_x = pairs.z.rows();
  const Index d_y = pairs.t.rows();
  const Index local_n = pairs.z.cols();
  const Index n = communicator.sum_counts(local_n);
  if (n < d_x + 3) throw InvalidArgument("the Gaussian-process trend needs at least d_x + 3 pairs");
  const Matrix line = least_squares_coefficients(pairs, Vector(), communicator);
  const Matrix rho_all = pairs.t - ((line.rightCols(d_x) * pairs.z).colwise() + line.col(0));

  // The basis: every pair, or a random subset of max_basis of them (drawn for the global n, the
  // same on every rank; the ranks that hold a basis pair send it to all).
  std::vector<Index> basis_rows;
  if (n > options.max_basis) {
    Rng rng(options.seed, random_stream::kTrendBasis);
    basis_rows = choose_centers(n, options.max_basis, rng);
    std::sort(basis_rows.begin(), basis_rows.end());
  } else {
    basis_rows.resize(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) basis_rows[static_cast<std::size_t>(i)] = i;
  }
  Matrix stacked(d_x + d_y, local_n);
  stacked << pairs.z, rho_all;
  const Matrix basis_pairs = samples_at_global_indices(stacked, basis_rows, communicator);
  Matrix basis = basis_pairs.topRows(d_x);

  GaussianProcessTrendFit fit;
  fit.residuals.resize(d_y, local_n);
  fit.log_scales = Vector::Zero(local_n);
  std::vector<GaussianProcessOutput> outputs;
  Rng starts(options.seed, random_stream::kTrendStarts);
  for (Index d = 0; d < d_y; ++d) {
    const Vector rho = rho_all.row(d).transpose();
    const Vector rho_basis = basis_pairs.row(d_x + d).transpose();
    const auto output = static_cast<std::size_t>(d);
    const Vector theta = search_hyperparameters(
        basis, rho_basis, options,
        output < options.warm_starts.size() ? options.warm_starts[output] : Vector(), starts,
        threads, fit.evaluations);
    fit.hyperparameters.push_back(theta);
    // One task: BLAS single-threaded, the same sums on any number of threads.
    ProcessPosterior posterior;
    parallel_for(1, 1, [&](Index) {
      const FlushSubnormals flush;
      posterior = posterior_on_basis(basis, pairs.z, rho, theta, communicator);
    });
    posterior.output.intercept = line(d, 0);
    posterior.output.slopes = line.row(d).tail(d_x).transpose();
    outputs.push_back(std::move(posterior.output));
    fit.residuals.row(d) = posterior.residuals.transpose();
    fit.log_scales += 0.5 * posterior.variances.array().log().matrix();
    double nll_sum =
        (0.5 * (kLog2Pi + posterior.variances.array().log() + posterior.residuals.array().square()))
            .sum();
    communicator.allreduce_sum(&nll_sum, 1);
    fit.gaussian_loo_nll += nll_sum / static_cast<double>(n);
  }
  fit.trend = std::make_shared<const GaussianProcessTrend>(std::move(basis), std::move(outputs));
  return fit;
}

}  // namespace cdens
