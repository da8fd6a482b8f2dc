#pragma once
// Maximising the leave-one-out likelihood of BandwidthLikelihood over one bandwidth per
// dimension: L-BFGS (NLopt) in θ = log h with the analytic gradient, inside a box, from the
// normal-reference start and a few seeded random starts. A discrete dimension's θ is the logit of
// λ / λ_max (column_kernel.hpp), in [−12, 12], starting at 0. The starts run on a screening
// criterion (the same leave-one-out likelihood averaged over fewer held-out samples, each still
// predicted from all others) and the best end point is then polished on the full criterion, so
// restarts cost a fraction of a full search at large n.

#include <cstdint>
#include <string>

#include "cdens/conditional/kcde.hpp"
#include "cdens/core/fit_context.hpp"
#include "core/bandwidth_likelihood.hpp"

namespace cdens {

/// What the search found.
struct BandwidthSearchResult {
  Vector bandwidths;                    ///< h, one per dimension (λ for a discrete one)
  double mean_negative_log_likelihood;  ///< the criterion at h (standardised units)
  /// −log p̂_{−i} at h of every held-out sample of the full criterion, in its order.
  Vector negative_log_likelihoods;
  int evaluations = 0;  ///< criterion evaluations over all starts
  int starts = 0;       ///< starts run
  Vector parameters;    ///< θ at the end (BandwidthLikelihood::parameters_of the bandwidths)
};

/// The bandwidths in the box that minimise `criterion`'s mean −log p̂_{−i}: every start is run on
/// `screening` (the same samples and conditioning dimensions, fewer held-out samples), then the
/// best end point on `criterion`. Pass the criterion twice to search on it alone. `floors` (empty,
/// or one per dimension) raises the lower bound of a continuous dimension's bandwidth above
/// `options.lower` (the recording resolution of an output, kcde.cpp); it must stay
/// below `options.upper`. Every L-BFGS run (the starts, then the polish) is a step of `progress`.
/// A warm start (θ of an earlier search's end on overlapping samples, BandwidthSearchResult::
/// parameters) is one run on `criterion` from it, moved into the box: no random starts, no
/// screening. InvalidArgument for bad options.
BandwidthSearchResult maximize_bandwidth_likelihood(const BandwidthLikelihood& criterion,
                                                    const BandwidthLikelihood& screening,
                                                    const BandwidthSearchOptions& options = {},
                                                    const Vector& floors = Vector(),
                                                    Progress& progress = silent_progress(),
                                                    const Vector& warm_start = Vector());

/// What the search did, for FitReport::parameter_choice: "leave-one-out likelihood of <what>,
/// maximised by L-BFGS (E evaluations from S starts[, detail]): a search, not a grid, so no
/// table".
std::string describe_bandwidth_search(const BandwidthSearchResult& found, const std::string& what,
                                      const std::string& detail = {});

}  // namespace cdens
