#pragma once
// Arithmetic on log-densities and log-weights.

#include "cdens/core/types.hpp"

namespace cdens {

/// exp(v) underflows to a subnormal number below this.
inline constexpr double kLogSmallestNormal = -708.0;

/// log Σ_i exp(v_i), computed around the largest term; −∞ when every v_i is −∞.
double log_sum_exp(const VectorView& values);

/// log(e^a + e^b); −∞ when both are −∞.
double log_add_exp(double a, double b);

/// out_s = log Σ_i exp(−c_s d_i) for every scale c_s > 0 of `scales`, over values d_i ≥ 0 (squared
/// distances; +∞ leaves a term out): the log of a sum of Gaussian kernel values for several
/// widths at once. The terms are taken relative to the smallest d_i, so the sum is at least 1 and
/// neither over- nor underflows; terms below e^kLogSmallestNormal relative to the largest are
/// counted as e^kLogSmallestNormal, which changes the result by less than n·1e−307 relative and
/// keeps subnormal numbers out of the sum. −∞ for no finite value.
void log_sum_exp_scaled(const VectorView& values, const VectorView& scales, Eigen::Ref<Vector> out);

/// exp of every entry, with entries below `cutoff` set to exactly zero. Eigen's vectorised exp
/// clamps its argument near −709.8 (exp(−∞) comes out as 5.6e−309 on SSE/AVX2 builds, 0 with
/// AVX-512), so a zero weight must be made zero explicitly; a cutoff above −708 also keeps
/// subnormal numbers, whose arithmetic is very slow, out of later products.
Matrix exp_flushing_below(const MatrixView& log_values, double cutoff = kLogSmallestNormal);

/// exp_flushing_below on a matrix of log-values, overwritten by the result (no allocation).
void exp_flushing_below_in_place(Eigen::Ref<Matrix> values, double cutoff = kLogSmallestNormal);

}  // namespace cdens
