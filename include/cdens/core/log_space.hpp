#pragma once
// Arithmetic on log-densities and log-weights.

#include "cdens/core/types.hpp"

namespace cdens {

/// exp(v) underflows to a subnormal number below this.
inline constexpr double kLogSmallestNormal = -708.0;

/// log Σ_i exp(v_i), computed around the largest term; −∞ when every v_i is −∞.
double log_sum_exp(const VectorView& values);

/// exp of every entry, with entries below `cutoff` set to exactly zero. Eigen's vectorised exp
/// clamps its argument near −709.8 (exp(−∞) comes out as 5.6e−309 on SSE/AVX2 builds, 0 with
/// AVX-512), so a zero weight must be made zero explicitly; a cutoff above −708 also keeps
/// subnormal numbers, whose arithmetic is very slow, out of later products.
Matrix exp_flushing_below(const MatrixView& log_values, double cutoff = kLogSmallestNormal);

/// exp_flushing_below on a matrix of log-values, overwritten by the result (no allocation).
void exp_flushing_below_in_place(Eigen::Ref<Matrix> values, double cutoff = kLogSmallestNormal);

}  // namespace cdens
