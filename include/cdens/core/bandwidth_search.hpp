#pragma once
// Maximising the leave-one-out likelihood of BandwidthLikelihood over one bandwidth per
// dimension: L-BFGS (NLopt) in θ = log h with the analytic gradient, inside a box, from the
// normal-reference start and a few seeded random starts. A discrete dimension's θ is the logit of
// λ / λ_max (column_kernel.hpp), in [−12, 12], starting at 0. The starts run on a screening
// criterion (the same leave-one-out likelihood averaged over fewer held-out samples, each still
// predicted from all others) and the best end point is then polished on the full criterion, so
// restarts cost a fraction of a full search at large n.

#include <cstdint>

#include "cdens/core/bandwidth_likelihood.hpp"

namespace cdens {

/// Settings of maximize_bandwidth_likelihood. Bandwidths are in standardised units.
struct BandwidthSearchOptions {
  /// Random starts besides the normal-reference one; the best end point is kept.
  int restarts = 2;
  /// Each bandwidth stays in [lower, upper]. A bandwidth at `upper` smooths its dimension
  /// flat over the data (standardised data span a few units), which is how an input that does
  /// not matter is switched off; `lower` keeps a column with ties from collapsing to spikes of
  /// width 0.
  double lower = 1e-3;
  double upper = 1e3;
  /// Objective evaluations per start.
  int max_evaluations = 200;
  /// The search on the full criterion stops when the criterion changes by less than this
  /// between iterations (10⁻⁵ of a criterion near 1 nat is far below its own standard error,
  /// about 1/√n nats).
  double relative_tolerance = 1e-5;
  /// The same for the starts on the screening criterion, whose standard error over a few hundred
  /// held-out samples is a few hundredths of a nat: its end points only need to be good enough
  /// to choose the start the full criterion then polishes.
  double screening_relative_tolerance = 1e-4;
  /// Seed of the random starts.
  std::uint64_t seed = 0;
};

/// The normal-reference bandwidth 1.06 n^(−1/(4 + k)) of standardised data in k dimensions (the
/// start of the search; the rule of thumb of np and statsmodels).
double normal_reference_bandwidth(Index n_samples, Index dimension);

/// What the search found.
struct BandwidthSearchResult {
  Vector bandwidths;                    ///< h, one per dimension (λ for a discrete one)
  double mean_negative_log_likelihood;  ///< the criterion at h (standardised units)
  int evaluations = 0;                  ///< criterion evaluations over all starts
  int starts = 0;                       ///< starts run
};

/// The bandwidths in the box that minimise `criterion`'s mean −log p̂_{−i}: every start is run on
/// `screening` (the same samples and conditioning dimensions, fewer held-out samples), then the
/// best end point on `criterion`. Pass the criterion twice to search on it alone. InvalidArgument
/// for bad options.
BandwidthSearchResult maximize_bandwidth_likelihood(const BandwidthLikelihood& criterion,
                                                    const BandwidthLikelihood& screening,
                                                    const BandwidthSearchOptions& options = {});

}  // namespace cdens
