#pragma once
// Settings of the leave-one-out likelihood search of one bandwidth per dimension (KCDE, Parzen
// with per-dimension bandwidths); the search is internal (src/core/bandwidth_search.hpp).

#include <cstdint>

#include "cdens/core/types.hpp"

namespace cdens {

/// Settings of the bandwidth search. Bandwidths are in standardised units.
struct BandwidthSearchOptions {
  /// Random starts besides the normal-reference one; the best end point is kept.
  int n_restarts = 2;
  /// Each bandwidth stays in [lower, upper]. A bandwidth at `upper` smooths its dimension
  /// flat over the data (standardised data span a few units), which is how an input that does
  /// not matter is switched off; `lower` keeps a column with ties from collapsing to spikes of
  /// width 0.
  double lower = 1e-3;
  double upper = 1e3;
  /// Objective evaluations per start.
  int max_iter = 200;
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
/// start of the search; the rule of thumb of np and statsmodels). With sample weights n is Kish's
/// effective size (BandwidthLikelihood::effective_samples).
double normal_reference_bandwidth(double n_samples, Index dimension);

}  // namespace cdens
