#pragma once
// Gaussian-process regression with one length scale per input (automatic relevance
// determination, Rasmussen & Williams 2006, §5.1 and §5.4.1), the smooth trend around which KCDE
// places its kernels (docs/methods/kcde.md, "Kernels around a smooth trend"). Each output t_d of
// standardised pairs is modelled as a least-squares line plus a zero-mean process with the kernel
// k(z, z') = σ_f² exp(−½ Σ_j (z_j − z'_j)² / ℓ_j²) and Gaussian noise σ_n².
//
// Hyperparameters θ = (log ℓ, log σ_f², log σ_n²) maximise the log marginal likelihood
// (R&W eq. 5.8, gradient eq. 5.9) of a random subset of at most `likelihood_pairs` of them (the
// subset-of-data estimate of the hyperparameters, R&W §8.3.2), the starts screened on fewer. The
// posterior mean and variance then come from the subset-of-regressors approximation on those pairs
// as basis (R&W §8.3.1; exact when the basis is every pair), with the projection features φ(z) =
// L⁻¹ k(U, z), K_UU = L Lᵀ:
//
//   μ(z) = φ(z)ᵀ A⁻¹ Φ ρ,   A = Φ Φᵀ + σ_n² I,
//   f(z)² = σ_n² + σ_f² − φ(z)ᵀ (I − σ_n² A⁻¹) φ(z)   (the DTC predictive variance, §8.3.3).
//
// For each training pair the leave-one-out residual and variance are closed forms of this linear
// smoother (R&W eq. 5.12 for the exact case): with S_ii = φ_iᵀ A⁻¹ φ_i,
//
//   r_i = (ρ_i − μ(z_i)) / (1 − S_ii),   v_i = σ_n² / (1 − S_ii) + σ_f² − ‖φ_i‖²,
//
// so the residuals the kernels are placed on are those a new pair would have (in-sample
// residuals are shrunk towards 0 by the fit). The line's own leave-one-out influence is not
// refitted (O(d_x / n), as for KCDE's linear trend).

#include <cstdint>
#include <memory>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/output_trend.hpp"
#include "conditional/kernel_cde_engine.hpp"

namespace cdens {

/// Settings of the Gaussian-process trend.
struct GaussianProcessTrendOptions {
  /// Pairs in the basis: all up to this many, else a random subset of this size. Cost
  /// O(n · max_basis²) for the posterior.
  Index max_basis = 1000;
  /// The marginal likelihood is taken over at most this many of the basis pairs (a random
  /// subset): O(likelihood_pairs³) per evaluation.
  Index likelihood_pairs = 600;
  /// The starts run on the likelihood of at most this many (the first of the same random order);
  /// the best end point is then polished on likelihood_pairs.
  Index screening_pairs = 250;
  /// Random starts of the hyperparameter search besides the default one.
  int restarts = 1;
  /// Marginal-likelihood evaluations per start.
  int max_evaluations = 150;
  /// Seed of the basis subset and the random starts.
  std::uint64_t seed = 0;
  /// θ of each output from an earlier fit on overlapping pairs (GaussianProcessTrendFit::
  /// hyperparameters), or none: the search of an output with one starts there alone, moved into
  /// the box, on the likelihood_pairs (no random starts, no screening).
  std::vector<Vector> warm_starts;
};

/// A fitted trend and the leave-one-out view of the training pairs.
struct GaussianProcessTrendFit {
  std::shared_ptr<const GaussianProcessTrend> trend;
  /// e_i = r_i / √v_i per output and pair (d_y × n; on several ranks this rank's pairs): the
  /// standardised leave-one-out residuals.
  Matrix residuals;
  /// ½ log v_i summed over the outputs, per pair (n): log Π_d f_{−i,d}(z_i), the Jacobian of the
  /// residuals, so that −log p_{−i}(t_i) = −log p(e_i) + log_scales(i).
  Vector log_scales;
  /// The Gaussian leave-one-out NLL of the process itself, mean over the pairs, summed over the
  /// outputs (standardised units): the trend as a predictive model on its own.
  double gaussian_loo_nll = 0.0;
  /// Marginal-likelihood evaluations of the search, over all outputs and starts.
  int evaluations = 0;
  /// θ = (log ℓ, log σ_f², log σ_n²) found for each output.
  std::vector<Vector> hyperparameters;
};

/// Fits the trend to standardised pairs (n ≥ d_x + 3), the starts of the search on `threads`
/// OpenMP threads (0: the default); the result does not depend on it. InvalidArgument for bad
/// options. On several ranks of `communicator`, `pairs` are this rank's (in global order) and
/// the fit is that of every rank's: the line from the summed normal equations, the basis drawn
/// for the global n and sent to all, the hyperparameters searched on it by every rank alike, Φ Φᵀ
/// and Φ ρ summed over the ranks; the residuals and log-scales are this rank's pairs'. A
/// collective call.
GaussianProcessTrendFit fit_gaussian_process_trend(
    const StandardizedSamples& pairs, const GaussianProcessTrendOptions& options, int threads = 0,
    const Communicator& communicator = local_communicator());

/// The negative log marginal likelihood per pair of the process for residuals ρ (m) at inputs z
/// (d_x × m) and θ = (log ℓ (d_x), log σ_f², log σ_n²), with its gradient in θ when `gradient` is
/// given; +∞ where the covariance is not positive definite. (Exposed for the tests.)
double gaussian_process_negative_log_likelihood(const Matrix& z, const Vector& rho,
                                                const Vector& theta, Vector* gradient);

}  // namespace cdens
