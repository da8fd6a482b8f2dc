#include "cdens/core/support.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "io/csv.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {
namespace {

/// "1 row", "3 rows".
std::string count_of_rows(Index count) {
  return std::to_string(count) + (count == 1 ? " row" : " rows");
}

double finite_bound(const nlohmann::json& document, const char* key) {
  const auto& value = json_member(document, key);
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    throw ModelFormatError(std::string("the output bounds' ") + key + " is not a finite number");
  }
  return value.get<double>();
}

}  // namespace

InputRange InputRange::of(const MatrixView& x, const std::vector<bool>& keep,
                          const Communicator& communicator) {
  const Index d = x.rows();
  // [upper, −lower] so that one maximum over the ranks gives both ends.
  std::vector<double> extremes(static_cast<std::size_t>(2 * d), -INFINITY);
  for (Index j = 0; j < x.cols(); ++j) {
    if (!keep.empty() && !keep[static_cast<std::size_t>(j)]) continue;
    for (Index i = 0; i < d; ++i) {
      auto& upper = extremes[static_cast<std::size_t>(i)];
      auto& negated_lower = extremes[static_cast<std::size_t>(d + i)];
      upper = std::max(upper, x(i, j));
      negated_lower = std::max(negated_lower, -x(i, j));
    }
  }
  communicator.allreduce_max(extremes.data(), extremes.size());
  InputRange range{Vector(d), Vector(d)};
  for (Index i = 0; i < d; ++i) {
    range.upper(i) = extremes[static_cast<std::size_t>(i)];
    range.lower(i) = -extremes[static_cast<std::size_t>(d + i)];
  }
  return range;
}

void InputRange::require_valid(Index input_dim) const {
  if (lower.size() != input_dim || upper.size() != input_dim) {
    throw InvalidArgument("the input range has " + std::to_string(lower.size()) + " and " +
                          std::to_string(upper.size()) + " ends for " + std::to_string(input_dim) +
                          " inputs");
  }
  for (Index i = 0; i < input_dim; ++i) {
    if (!std::isfinite(lower(i)) || !std::isfinite(upper(i)) || lower(i) > upper(i)) {
      throw InvalidArgument("the range of input x" + std::to_string(i) + " is [" +
                            format_number(lower(i)) + ", " + format_number(upper(i)) +
                            "], not a finite interval");
    }
  }
}

nlohmann::json InputRange::to_json() const {
  return {{"lower", vector_to_json(lower)}, {"upper", vector_to_json(upper)}};
}

InputRange InputRange::from_json(const nlohmann::json& document) {
  return {vector_from_json(json_member(document, "lower"), "input range"),
          vector_from_json(json_member(document, "upper"), "input range")};
}

std::string extrapolation_warning(const ExtrapolatedRows& rows, Index query_rows,
                                  const std::vector<std::string>& x_names) {
  if (rows.empty()) return "";
  std::string beyond;
  for (std::size_t i = 0; i < rows.beyond_range.size(); ++i) {
    if (rows.beyond_range[i] == 0) continue;
    const std::string name = i < x_names.size() ? x_names[i] : "x" + std::to_string(i);
    beyond +=
        (beyond.empty() ? "" : ", ") + name + " (" + count_of_rows(rows.beyond_range[i]) + ")";
  }
  std::string reasons;
  if (!beyond.empty()) {
    reasons = "beyond the training range of " + beyond + " by more than a tenth of that range";
  }
  if (rows.answered_by_marginal > 0) {
    reasons += std::string(reasons.empty() ? "" : "; ") +
               "weighed by no component, answered by the marginal mixture (" +
               count_of_rows(rows.answered_by_marginal) + ")";
  }
  return std::to_string(rows.rows.size()) + " of " + std::to_string(query_rows) +
         " query rows lie outside the inputs the model was fitted on (" + reasons +
         "); their answers extrapolate";
}

void OutputBounds::require_valid() const {
  if (std::isnan(y_lower) || std::isnan(y_upper) || !(y_lower < y_upper) ||
      y_lower == std::numeric_limits<double>::infinity() ||
      y_upper == -std::numeric_limits<double>::infinity()) {
    throw InvalidArgument("the bounds of y must satisfy y_lower < y_upper, got [" +
                          format_number(y_lower) + ", " + format_number(y_upper) + "]");
  }
}

nlohmann::json OutputBounds::to_json() const {
  nlohmann::json document = nlohmann::json::object();
  if (std::isfinite(y_lower)) document["lower"] = y_lower;
  if (std::isfinite(y_upper)) document["upper"] = y_upper;
  return document;
}

OutputBounds OutputBounds::from_json(const nlohmann::json& document) {
  if (!document.is_object()) throw ModelFormatError("the output bounds are not an object");
  OutputBounds bounds;
  if (document.contains("lower")) bounds.y_lower = finite_bound(document, "lower");
  if (document.contains("upper")) bounds.y_upper = finite_bound(document, "upper");
  reading_model_part("output bounds", [&] {
    bounds.require_valid();
    return 0;
  });
  return bounds;
}

}  // namespace cdens
