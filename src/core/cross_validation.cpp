#include "cdens/core/cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"

namespace cdens {

KFold::KFold(Index n, int folds, Rng& rng) : n_(n) {
  if (folds < 2) throw InvalidArgument("cross-validation needs at least 2 folds");
  if (n < folds) {
    throw InvalidArgument("cannot split " + std::to_string(n) + " samples into " +
                          std::to_string(folds) + " cross-validation folds");
  }
  const auto order = rng.permutation(n);
  for (int k = 0; k < folds; ++k) {
    const auto begin = order.begin() + static_cast<std::ptrdiff_t>(n * k / folds);
    const auto end = order.begin() + static_cast<std::ptrdiff_t>(n * (k + 1) / folds);
    std::vector<Index> fold(begin, end);
    std::sort(fold.begin(), fold.end());
    test_.push_back(std::move(fold));
  }
}

std::vector<Index> KFold::train(int k) const {
  std::vector<Index> indices;
  indices.reserve(static_cast<std::size_t>(n_));
  const auto& held_out = test(k);
  auto next = held_out.begin();
  for (Index i = 0; i < n_; ++i) {
    if (next != held_out.end() && *next == i) {
      ++next;
    } else {
      indices.push_back(i);
    }
  }
  return indices;
}

Index best_candidate(const Vector& mean_loss) {
  Index best = -1;
  for (Index r = 0; r < mean_loss.size(); ++r) {
    if (std::isfinite(mean_loss(r)) && (best < 0 || mean_loss(r) < mean_loss(best))) best = r;
  }
  return best;
}

std::vector<double> log_spaced(double low, double high, int count) {
  if (!(low > 0.0 && high >= low && std::isfinite(high) && count >= 1)) {
    throw InvalidArgument("log_spaced needs finite 0 < low ≤ high and count ≥ 1");
  }
  std::vector<double> values(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const double fraction = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
    values[static_cast<std::size_t>(i)] =
        std::exp(std::log(low) + fraction * (std::log(high) - std::log(low)));
  }
  values.front() = low;
  values.back() = count == 1 ? low : high;
  return values;
}

nlohmann::json CvTable::to_json() const {
  return {{"parameter_names", parameter_names},
          {"candidates", matrix_to_json(candidates)},
          {"mean_loss", vector_to_json(mean_loss)},
          {"standard_error", vector_to_json(standard_error)},
          {"loss", loss},
          {"best", best}};
}

CvTable CvTable::from_json(const nlohmann::json& document) {
  CvTable table;
  try {
    table.parameter_names =
        json_member(document, "parameter_names").get<std::vector<std::string>>();
    table.loss = json_member(document, "loss").get<std::string>();
    table.best = json_member(document, "best").get<Index>();
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string("cross-validation table: ") + error.what());
  }
  table.candidates = matrix_from_json(json_member(document, "candidates"), "CV candidates");
  table.mean_loss = vector_from_json(json_member(document, "mean_loss"), "CV mean loss");
  table.standard_error = vector_from_json(json_member(document, "standard_error"), "CV error");
  const Index rows = table.candidates.rows();
  if (table.candidates.cols() != static_cast<Index>(table.parameter_names.size()) ||
      table.mean_loss.size() != rows || table.standard_error.size() != rows || table.best < 0 ||
      table.best >= rows) {
    throw ModelFormatError("cross-validation table: its parts disagree in size");
  }
  return table;
}

}  // namespace cdens
