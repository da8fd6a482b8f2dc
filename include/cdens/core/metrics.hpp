#pragma once
// Losses of a conditional density estimate on held-out pairs (LSCDE paper §2.5, eq. 10), and the
// test measures of an unconditional density estimate (Chen, Hong & Harris 2010, §IV: L1 test
// error, eq. 47; KL divergence by grid sums, eqs. 49–50; model size; held-out ISE).

#include <string>
#include <string_view>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/gaussian_mixture.hpp"

namespace cdens {

/// The criterion cross-validation minimises.
enum class CvLoss {
  kl,  ///< KL error up to a constant: the negative log-likelihood −(1/n) Σ log p̂(y_i|x_i)
  sq,  ///< SQ error up to a constant: (1/n) Σ [½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i)]
};

CvLoss parse_cv_loss(std::string_view name);
std::string to_string(CvLoss loss);

/// Mean log-likelihood (1/n) Σ log p̂(y_i | x_i), in the user's units.
double mean_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y);

/// NLL of eq. (10): −mean_log_likelihood.
double negative_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y);

/// The SQ criterion of §2.5 without its constant C_SQ.
double squared_loss(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// negative_log_likelihood or squared_loss.
double held_out_loss(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                     const MatrixView& y);

/// The terms of held_out_loss, one per pair: −log p̂(y_i|x_i), or ½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i).
Vector held_out_pair_losses(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                            const MatrixView& y);

// -- unconditional densities p(x) -------------------------------------------------------------

/// The L1 test error of eq. (47): (1/N_test) Σ_k |p(x_k) − p̂(x_k)| over the test points x_test
/// (d × N_test, the user's units) with the true densities p(x_k) given. InvalidArgument for
/// lengths that disagree or no points; DataError for a non-finite or negative true density.
double l1_test_error(const GaussianMixture& model, const MatrixView& x_test,
                     const VectorView& true_density);

/// The grid of the KL sums (49)–(50): the points x_min + k Δx, k = 1 … N_par, in every dimension
/// (N_par^d points, the first dimension fastest), and the cell volume Π_i Δx_i with
/// Δx_i = (x_max,i − x_min,i) / N_par. The paper uses it in one and two dimensions (N_par ≥
/// 10,000 and > 100); InvalidArgument for more than 10⁸ points or an empty box.
struct KlGrid {
  Matrix points;
  double cell_volume = 0.0;
};
KlGrid kl_divergence_grid(const Vector& lower, const Vector& upper, Index n_par);

/// D_KL(p‖p̂) ≈ Σ_k p(k) log(p(k) / p̂(k)) · cell volume over the grid (eqs. 49–50), with the true
/// densities p(k) at grid.points given; cells where p(k) = 0 add nothing, log p̂ comes from
/// log_pdf (finite where p̂ underflows).
double kl_divergence_on_grid(const GaussianMixture& model, const KlGrid& grid,
                             const VectorView& true_density);

/// The model size of §IV: the number of kernels with a positive weight.
Index model_size(const GaussianMixture& model);

/// The held-out ISE criterion ∫p̂² − (2/n) Σ_j p̂(x_j), the integrated squared error to the true
/// density up to the constant ∫p² (eq. 16 with the expectation taken over held-out data).
double held_out_ise(const GaussianMixture& model, const MatrixView& x);

}  // namespace cdens
