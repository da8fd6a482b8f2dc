#pragma once
// Scores of a discrete y: a KCDE whose output is declared discrete (unordered) or ordered, so
// that p̂(y|x) is a probability mass function over the levels the model was fitted on (the
// output kernels of column_kernel.hpp). Each is exact, a finite sum over those levels; a y that
// is none of them has probability 0. Inputs and outputs as in scores.hpp (the discrete output in
// its raw values or label codes, never standardised).

#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The ranked probability score of one ordered y (Epstein 1969; Gneiting & Raftery 2007, §4.2,
/// unnormalised) over its levels l_1 < … < l_c:
///
///   RPS(F̂_i, y_i) = Σ_k (F̂(l_k | x_i) − 1{y_i ≤ l_k})².
///
/// Where the levels are consecutive integers it equals the CRPS ∫ (F̂(t) − 1{y ≤ t})² dt of the
/// mass function; elsewhere each step between neighbouring levels weighs one whatever its length
/// (levels coded from labels have no lengths). InvalidArgument unless y is one ordered output.
Vector ranked_probability_scores(const ConditionalMixture& model, const MatrixView& x,
                                 const MatrixView& y);

/// The Brier (quadratic) score of a y whose every output is discrete (Brier 1950; Gneiting &
/// Raftery 2007, §3.2), over the levels l (their combinations when d_y > 1):
///
///   BS(p̂_i, y_i) = Σ_l (p̂(l | x_i) − 1{y_i = l})² = Σ_l p̂(l | x_i)² − 2 p̂(y_i | x_i) + 1,
///
/// the CDE loss plus one (Σ_l p̂² is ConditionalMixture::squared_norm). A y that is none of the
/// levels is an outcome of probability 0, whose own term (0 − 1)² adds to the sum over the
/// levels: Σ_l p̂² + 1. InvalidArgument for a model with a continuous output.
Vector brier_scores(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// Prediction sets of a one-dimensional discrete y, one per pair and level α (rows: levels,
/// columns: pairs), each a set of levels.
struct LevelSets {
  Matrix sizes;   ///< the number of levels in the set: the discrete analogue of a width
  Matrix masses;  ///< the probability p̂ gives the set: at least α, seldom exactly α
  Matrix inside;  ///< 1 where y_i is in the set, else 0
};

/// The highest-probability sets: the fewest levels of probability at least α, the most probable
/// first (ties: the lower level first) — the discrete analogue of the highest-density regions
/// (ConditionalMixture::highest_density_regions gives the same sets).
LevelSets highest_probability_sets(const ConditionalMixture& model, const MatrixView& x,
                                   const MatrixView& y, const std::vector<double>& levels);

/// The central sets of an ordered y: the levels from q̂_{(1−α)/2} to q̂_{(1+α)/2}, the quantile
/// q̂_τ being the lowest level whose CDF reaches τ (ConditionalMixture::quantiles).
LevelSets central_level_sets(const ConditionalMixture& model, const MatrixView& x,
                             const MatrixView& y, const std::vector<double>& levels);

}  // namespace cdens
