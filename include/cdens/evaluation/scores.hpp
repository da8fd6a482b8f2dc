#pragma once
// Scores of a conditional density p̂(y|x) at held-out pairs (x_i, y_i), one value per pair, all
// lower-is-better except the log-likelihood (ConditionalMixture::log_pdf). Each works on the
// conditional mixture shape p̂(y|x) = Σ_k π_k(x) N(y − A x; c_k, diag s_k²) through its public
// queries, in closed form wherever the shape has one; inputs and outputs are in the user's units,
// one pair per column (x: d_x × n, y: d_y × n).

#include <cstdint>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/progress.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The continuous ranked probability score CRPS(F_i, y_i) = ∫ (F_i(t) − 1{y_i ≤ t})² dt of a
/// one-dimensional y (InvalidArgument otherwise), in the units of y. Closed form of a Gaussian
/// mixture (Grimit, Gneiting, Berrocal & Johnson 2006) from the kernel representation
/// CRPS = E|X − y| − ½ E|X − X′| (Gneiting & Raftery 2007):
///
///   CRPS = Σ_k π_k A(y − μ_k, σ_k²) − ½ Σ_k Σ_l π_k π_l A(μ_k − μ_l, σ_k² + σ_l²),
///   A(m, v) = E|N(m, v)| = 2 √v φ(m/√v) + m (2 Φ(m/√v) − 1).
Vector crps(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// Pinball (quantile) losses ρ_τ(y_i − q_τ(x_i)) = (y_i − q)(τ − 1{y_i < q}) of the model's
/// τ-quantiles, for one-dimensional y: row r holds level levels[r] ∈ (0, 1) (the quantile score
/// of Gneiting & Raftery 2007; its average over τ ∈ (0, 1) is half the CRPS).
Matrix pinball_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                      const std::vector<double>& levels);

/// The CDE loss of Izbicki & Lee (2017) per pair, ∫ p̂(y|x_i)² dy − 2 p̂(y_i|x_i), for
/// any d_y: its mean estimates ∫∫ (p̂(y|x) − p(y|x))² dy dP(x) up to a constant that does not
/// depend on p̂. The integral is the mixture's closed form (ConditionalMixture::squared_norm).
Vector cde_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// Energy scores ES(P_i, y_i) = E‖X − y_i‖ − ½ E‖X − X′‖ (Gneiting & Raftery 2007, with β = 1;
/// equal to the CRPS for d_y = 1) estimated from `draws` draws of p̂(·|x_i) per pair
/// (even, ≥ 4): with the draws taken as draws/2 independent couples (X_r, X′_r), the terms
/// T_r = ‖X_r − y_i‖ − ½ ‖X_r − X′_r‖ are independent with mean ES, so their average is unbiased
/// and its Monte-Carlo standard error is sd(T)/√(draws/2). `progress` counts the pairs.
struct EnergyScores {
  Vector values;           ///< per pair
  Vector standard_errors;  ///< Monte-Carlo standard error of each value
  Index draws = 0;         ///< draws of p̂(·|x_i) per pair
};
EnergyScores energy_scores(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y, Index draws, std::uint64_t seed,
                           Progress& progress = silent_progress());

/// Widths of the central intervals [q_{(1−α)/2}, q_{(1+α)/2}] of one-dimensional y: row r for
/// level levels[r], one column per input. Whether y_i lies inside is central_coverage of its PIT.
Matrix central_interval_widths(const ConditionalMixture& model, const MatrixView& x,
                               const std::vector<double>& levels);

/// Total lengths of the highest-density regions of probability α of one-dimensional y (the union
/// of intervals that ConditionalMixture::highest_density_regions returns, so a bimodal p̂ gives
/// two): row r for level levels[r]. Whether y_i lies inside is highest_density_coverage of its
/// HPD value.
Matrix highest_density_widths(const ConditionalMixture& model, const MatrixView& x,
                              const std::vector<double>& levels);

}  // namespace cdens
