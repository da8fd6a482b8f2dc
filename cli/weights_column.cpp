#include "weights_column.hpp"

#include <algorithm>

#include "cdens/core/types.hpp"
#include "columns.hpp"
#include "core/sample_weights.hpp"
#include "table_cells.hpp"

namespace cdens::cli {

std::string weights_column_name(const CsvTable& table, const std::string& spec) {
  return table.column_names[static_cast<std::size_t>(resolve_columns(table, {spec}).front())];
}

Vector weights_column(const CsvTable& table, const std::string& name,
                      const std::vector<std::string>& modelled) {
  if (std::find(modelled.begin(), modelled.end(), name) != modelled.end()) {
    throw InvalidArgument("--weights column '" + name +
                          "' is also a modelled column; the weights column is neither an input "
                          "nor an output");
  }
  const Index column = resolve_columns(table, {name}).front();
  const std::string what = "--weights column '" + name + "'";
  for (const CsvTextCell& cell : table.text_cells) {
    if (cell.column != column) continue;
    const std::string problem = text_cell_problem(table, cell, what);
    throw ParseError(problem + (is_missing_text(cell.text)
                                    ? ", a missing weight (--missing drop leaves out the rows "
                                      "with one)"
                                    : ": weights must be non-negative finite numbers"));
  }
  const Vector weights = select_columns(table, {column}).row(0).transpose();
  validate_sample_weights(weights, weights.size(), table.source + ": " + what, "data row", 1);
  // Only their ratios matter: relative to the largest, --holdout's weighted mean neither
  // overflows nor underflows, and scaled weights give the same model.
  return relative_sample_weights(weights, table.source + ": " + what);
}

double weighted_mean(const Vector& values, const Vector& weights) {
  const double total = weights.sum();
  if (!(total > 0.0)) {
    throw InvalidArgument("--holdout: every held-out row has weight 0; there is nothing to score");
  }
  return values.dot(weights) / total;
}

}  // namespace cdens::cli
