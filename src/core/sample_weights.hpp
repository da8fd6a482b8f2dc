#pragma once
// Sample weights of a fit (scikit-learn's `sample_weight`, `cdens fit --weights COLUMN`): one
// non-negative finite number per training row, not all zero. They are frequency weights — an
// integer weight k counts as the row repeated k times — of which only the relative sizes matter:
// where a rule needs a sample size (a standard deviation's n − 1, a bandwidth rule of thumb) it
// takes Kish's effective size (Σw)² / Σw², which does not change when every weight is scaled.

#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// InvalidArgument unless `weights` holds n non-negative finite numbers, not all zero; the
/// message names the weights `what` ("sample weights", "--weights column 'w'") and the first bad
/// row as `row_word` and its number counted from `first_row` ("row 0", "data row 1").
void validate_sample_weights(const Vector& weights, Index n, const std::string& what,
                             const std::string& row_word = "row", Index first_row = 0);

/// `weights` (validated as by validate_sample_weights) divided by the largest: the relative weights
/// every fit sees, so that scaling every weight by a positive constant (1e-200, 1e160) gives the
/// same model up to the rounding of the scaled weights (sums of weights and their squares then
/// neither overflow nor underflow). InvalidArgument naming `what` where the largest weight is
/// below the smallest normal double (its ratios to the others are not representable).
Vector relative_sample_weights(const Vector& weights, const std::string& what);

/// Kish's effective sample size (Σw)² / Σw²: n for equal weights, unchanged when every weight is
/// scaled by the same factor.
double effective_sample_size(const Vector& weights);

/// The weighted standard deviation sqrt(Σw (v − m)² / Σw · n_e / (n_e − 1)) about the weighted
/// mean m, with Kish's effective size n_e (the sample standard deviation for equal weights); 0
/// when n_e ≤ 1.
double weighted_standard_deviation(const Vector& values, const Vector& weights);

/// The rows of positive weight, in order.
std::vector<Index> positive_weight_rows(const Vector& weights);

}  // namespace cdens
