#pragma once
// Input checks shared by every estimator. Each throws InvalidArgument or DataError with a
// message that names the offending argument.

#include <string_view>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// Every entry finite; otherwise DataError naming the sample (column) and dimension (row).
void require_finite(const MatrixView& data, std::string_view what);

/// At least one dimension and one sample.
void require_nonempty(const MatrixView& data, std::string_view what);

/// Same number of samples (columns) in both.
void require_same_samples(const MatrixView& a, std::string_view what_a, const MatrixView& b,
                          std::string_view what_b);

/// Training pairs (x_i, y_i) of a conditional estimator: both non-empty and finite, with the
/// same number of samples.
void require_training_pairs(const MatrixView& x, const MatrixView& y);

/// require_training_pairs for one rank's pairs of a fit over `communicator`, where a rank of
/// several may hold none (the global standardiser refuses a data set with none at all).
void require_training_shard(const MatrixView& x, const MatrixView& y,
                            const Communicator& communicator);

/// The number of rows a matrix of samples must have (its dimension).
void require_dimension(const MatrixView& data, Index dimension, std::string_view what);

/// A non-empty list of finite, strictly positive values (bandwidths, regularisers, grids).
void require_positive_values(const std::vector<double>& values, std::string_view what);

/// A single finite, strictly positive value.
void require_positive(double value, std::string_view what);

/// Probabilities strictly inside (0, 1).
void require_open_unit_interval(const std::vector<double>& values, std::string_view what);

/// The physical memory of this machine in bytes (sysconf), the bound of require_memory_for.
double machine_memory_bytes();

/// InvalidArgument naming `what` (an option as the user spelt it: "--n", "n_samples") unless
/// `values` doubles fit in the machine's physical memory. Called before a query allocates its
/// result, so that a request for 10¹² draws or a grid of 10⁹ points is refused at once, with a
/// message, instead of ending in std::bad_alloc or in swapping. `values` is a double so that the
/// product of sizes that computes it cannot overflow.
void require_memory_for(double values, std::string_view what);

}  // namespace cdens
