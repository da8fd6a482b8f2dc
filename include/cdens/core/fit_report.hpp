#pragma once
// What a fit tells besides the model: chosen hyper-parameters, the CV table, timings, warnings.

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/cross_validation.hpp"

namespace cdens {

struct FitReport {
  std::string method;                             ///< "lscde", …
  std::map<std::string, double> hyperparameters;  ///< the chosen values, e.g. sigma, lambda
  std::map<std::string, double> statistics;       ///< sizes and counts, e.g. n_train, n_basis
  std::optional<CvTable> cross_validation;        ///< absent when nothing was selected by CV
  /// Further tables of a fit that selects several things by separate cross-validations, by name
  /// (RKDE: "marginal_kde"); `cross_validation` holds the one that selects the model's widths.
  std::map<std::string, CvTable> auxiliary_cross_validation;
  double fit_seconds = 0.0;  ///< wall time of the whole fit
  std::vector<std::string> warnings;

  nlohmann::json to_json() const;
  static FitReport from_json(const nlohmann::json& document);
};

}  // namespace cdens
