#pragma once
// Calibration of a conditional density p̂(y|x) on held-out pairs. For a calibrated model the
// PIT values u_i = F̂(y_i|x_i) (one-dimensional y) and the HPD values h_i = P(p̂(Y|x_i) ≥
// p̂(y_i|x_i)) (any d_y; the HPD coverage values of cdetools) are uniform on
// (0, 1); their histogram, the coverage curve (nominal level α against the share of pairs inside
// the α-interval) and a uniformity test show how far they are from it. A discrete y puts a jump
// of p̂(y_i|x_i) into F̂ and into the HPD value at y_i: both are then randomised by a uniform
// draw V_i over the jump, which makes them exactly uniform again for a calibrated model
// (Brockwell 2007; Czado, Gneiting & Held 2009).

#include <cstdint>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/progress.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// HPD values per pair and how they were computed.
struct HighestDensityValues {
  Vector values;
  /// 0 when exact (one-dimensional y: ConditionalMixture::highest_density_probability; for a
  /// discrete y the randomised P̂(levels ranked before y_i) + V_i p̂(y_i|x_i), the levels ranked
  /// as the highest-probability sets rank them), else the draws per pair of the Monte-Carlo
  /// estimate (above + (ties + 1) U) / (draws + 1), where above counts the draws X_r of p̂(·|x_i)
  /// with p̂(X_r|x_i) > p̂(y_i|x_i), ties those with p̂(X_r|x_i) = p̂(y_i|x_i) (a discrete output
  /// makes them likely) and U ~ Uniform(0, 1): a randomised rank with ties broken at random,
  /// exactly uniform when y_i is a draw of p̂(·|x_i). `progress` counts the pairs of the
  /// Monte-Carlo estimate.
  Index draws = 0;
};
HighestDensityValues highest_density_values(const ConditionalMixture& model, const MatrixView& x,
                                            const MatrixView& y, Index draws, std::uint64_t seed,
                                            Progress& progress = silent_progress());

/// PIT values of a one-dimensional y: F̂(y_i|x_i) for a continuous y; for an ordered discrete y
/// the randomised PIT u_i = F̂(y_i⁻|x_i) + V_i p̂(y_i|x_i), with F̂(y⁻) = P̂(Y < y) and V_i ~
/// Uniform(0, 1) drawn from `seed`, a stream per pair. InvalidArgument for an unordered y (its
/// levels have no order) or d_y > 1.
Vector pit_values(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                  std::uint64_t seed);

/// The Kolmogorov–Smirnov test of values against Uniform(0, 1): D = sup_u |F_n(u) − u| and its
/// p-value from Kolmogorov's limiting distribution at (√n + 0.12 + 0.11/√n) D (Stephens 1970,
/// as in Press et al., Numerical Recipes, §14.3), accurate to about 0.01 from n = 5 on.
struct UniformityTest {
  double statistic = 0.0;
  double p_value = 1.0;
};
UniformityTest uniformity_test(const Vector& values);

/// The central interval of probability `level` of Binomial(n, p) divided by n: the
/// ((1 − level)/2, (1 + level)/2) quantiles of the share of successes.
struct ShareBand {
  double lower = 0.0;
  double upper = 0.0;
};
ShareBand binomial_band(Index n, double p, double level);

/// A histogram of values in [0, 1] over `bins` equal bins, with the band in which each bin's
/// count falls with probability `band_level` when the values are uniform (Binomial(n, 1/bins)).
struct UniformHistogram {
  Vector edges;   ///< bins + 1 values from 0 to 1
  Vector counts;  ///< per bin
  double band_lower = 0.0;
  double band_upper = 0.0;
};
UniformHistogram uniform_histogram(const Vector& values, Index bins, double band_level);

/// Per pair, whether y_i lies in the central interval of level levels[r] (row r): 1 where its
/// PIT value u satisfies |u − ½| ≤ α/2, else 0.
Matrix central_coverage(const Vector& pit, const std::vector<double>& levels);

/// Per pair, whether y_i lies in the highest-density region of level levels[r] (row r): 1 where
/// its HPD value h ≤ α (p̂(y_i|x_i) is at least the region's density threshold), else 0.
Matrix highest_density_coverage(const Vector& hpd, const std::vector<double>& levels);

/// Nominal level α against the observed share of pairs inside the α-interval: central intervals
/// from the PIT values (|u − ½| ≤ α/2; empty without them), highest-density regions from the HPD
/// values (h ≤ α; empty without them), with the binomial band of a calibrated model
/// (Binomial(n, α) / n). One of the two must be given.
struct CoverageCurve {
  Vector levels;
  Vector central;
  Vector highest_density;
  Vector band_lower;
  Vector band_upper;
};
CoverageCurve coverage_curve(const Vector& pit, const Vector& hpd,
                             const std::vector<double>& levels, double band_level);

}  // namespace cdens
