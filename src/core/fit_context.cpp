#include "cdens/core/fit_context.hpp"

namespace cdens {

std::string to_string(Duplicates duplicates) {
  return duplicates == Duplicates::merge ? "merge" : "keep";
}

std::pair<std::vector<std::string>, std::vector<std::string>> FitContext::pair_names(
    Index x_rows, Index y_rows) const {
  if (column_names.size() != static_cast<std::size_t>(x_rows + y_rows)) return {};
  const auto split = column_names.begin() + x_rows;
  return {{column_names.begin(), split}, {split, column_names.end()}};
}

}  // namespace cdens
