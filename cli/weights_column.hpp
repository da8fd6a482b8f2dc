#pragma once
// `cdens fit --weights COLUMN`: the sample weights of the training rows, a column of the data file
// that is neither an input nor an output (docs: README, "Sample weights").

#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "io/csv.hpp"

namespace cdens::cli {

/// The name of the column `spec` (name or 0-based index) of `table`.
std::string weights_column_name(const CsvTable& table, const std::string& spec);

/// The values of the weights column `name`, checked as sample weights (non-negative, not all
/// zero), divided by the largest (relative_sample_weights): InvalidArgument naming the column,
/// the file and the data row (1-based, the header not counted); also when `name` is one of the
/// modelled columns `modelled`. ParseError at a cell that holds no finite number (a missing
/// one: --missing drop leaves its row out).
Vector weights_column(const CsvTable& table, const std::string& name,
                      const std::vector<std::string>& modelled);

/// Σ w_i v_i / Σ w_i over held-out rows (the --holdout score of a weighted fit); InvalidArgument
/// when every held-out row weighs 0.
double weighted_mean(const Vector& values, const Vector& weights);

}  // namespace cdens::cli
