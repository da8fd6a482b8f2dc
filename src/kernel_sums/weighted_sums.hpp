#pragma once
// Sums Σ_l α_l e^{L_il} of non-negative coefficients over basis terms given by their logs, for
// many coefficient vectors at once: the held-out scores of LSCDE (eq. 8, Sugiyama et al. 2010)
// and SA-CDE (eq. 20, Shiga et al. 2015) are ratios of two such sums for every cross-validation
// candidate α_j. One GEMM gives every candidate; the rare entry that underflows is taken in log
// space here, the one place that does it.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// Σ_l α_lj e^{L_il} for the log-terms L (m × B) and every column α_j ≥ 0 of alphas (B × J).
/// Each row of L is shifted by its largest term before exponentiating (shifts cancel in a ratio
/// of two sums over the same rows) and terms below e^cutoff of that largest one are flushed to 0.
class WeightedSums {
 public:
  WeightedSums(Matrix log_terms, const Matrix& alphas, double cutoff);

  /// e^{L_il − shift_i}, flushed below the cutoff: the terms before the coefficients weigh them.
  const Matrix& terms() const { return terms_; }
  /// Σ_l α_lj e^{L_il − shift_i}; 0 where every term of a positive coefficient was flushed.
  const Matrix& shifted() const { return shifted_; }
  /// The coefficients, one column per candidate.
  const Matrix& alphas() const { return alphas_; }
  /// shift_i = max_l L_il.
  const Vector& shift() const { return shift_; }
  /// log Σ_l α_lj e^{L_il}: from the shifted sum where it is positive, otherwise in log space
  /// over the positive coefficients of α_j (the row's largest term belonged to a zero
  /// coefficient and the others were flushed); −∞ when α_j has none.
  double log_sum(Index i, Index j) const;

 private:
  Matrix log_terms_;
  Matrix alphas_;
  Vector shift_;
  Matrix terms_;
  Matrix shifted_;
};

/// Σ_i r_i [log Σ_l α_lj e^{N_il} − log Σ_l α_lj e^{D_il}] over the rows of `numerators` (N)
/// and `denominators` (D), sums over the same coefficients, with row weights r_i
/// (`row_weights`, empty: 1), for every column j that has a positive coefficient; the entries of
/// the other columns are left 0 for the caller's fallback.
Vector log_ratio_sums(const WeightedSums& numerators, const WeightedSums& denominators,
                      const Vector& row_weights = Vector());

/// Whether α_j has a positive entry, for every column j.
std::vector<bool> has_positive_coefficient(const Matrix& alphas);

}  // namespace cdens
