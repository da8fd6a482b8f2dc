#pragma once
// Stacking of predictive distributions (Yao, Vehtari, Simpson & Gelman 2018, eq. 4 with the log
// score): the weights a on the simplex that maximise the mean held-out log score of the linear
// pool, (1/n) Σ_i log Σ_c a_c p_c(y_i | x_i), from each candidate's held-out log-densities.
// The objective is concave in a; it is maximised by the EM iteration for mixture weights, whose
// every step increases it.

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

struct StackingWeights {
  Vector weights;         ///< a_c ≥ 0, Σ a_c = 1; exactly 0 for a pruned candidate
  double mean_log_score;  ///< the objective at `weights`
  int iterations = 0;     ///< EM steps taken
};

/// Weights below this are set to 0 and the rest optimised again: each candidate kept costs a
/// refit on all pairs and its components in the model, and one of weight < 0.01 moves the
/// mean log score by about its weight at most on the pairs where it is not the only support.
constexpr double kStackingPruneBelow = 0.01;

/// The stacking weights of the candidates whose held-out log-densities are the columns of
/// `log_densities` (n × C, finite), each pair counted by its sample weight in `pair_weights`
/// (positive; empty: equally) — the objective is then the weighted mean log score.
/// InvalidArgument for an empty or non-finite matrix. On several ranks of `communicator` the rows
/// are this rank's pairs (any number, none included) and the objective and the EM steps' sums
/// run over every rank's: every rank gets the same weights (a collective call).
StackingWeights stacking_weights(const Matrix& log_densities, const Vector& pair_weights = Vector(),
                                 const Communicator& communicator = local_communicator());

}  // namespace cdens
