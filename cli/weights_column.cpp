#include "weights_column.hpp"

#include <algorithm>

#include "cdens/core/types.hpp"
#include "columns.hpp"
#include "core/sample_weights.hpp"

namespace cdens::cli {

std::string weights_column_name(const CsvTable& table, const std::string& spec) {
  return choose_columns(table, {spec}).names.front();
}

Vector weights_column(const CsvTable& table, const std::string& name,
                      const std::vector<std::string>& modelled) {
  if (std::find(modelled.begin(), modelled.end(), name) != modelled.end()) {
    throw InvalidArgument("--weights column '" + name +
                          "' is also a modelled column; the weights column is neither an input "
                          "nor an output");
  }
  const Vector weights = choose_columns(table, {name}).values.row(0).transpose();
  validate_sample_weights(weights, weights.size(),
                          table.source + ": --weights column '" + name + "'", "data row", 1);
  return weights;
}

double weighted_mean(const Vector& values, const Vector& weights) {
  const double total = weights.sum();
  if (!(total > 0.0)) {
    throw InvalidArgument("--holdout: every held-out row has weight 0; there is nothing to score");
  }
  return values.dot(weights) / total;
}

}  // namespace cdens::cli
