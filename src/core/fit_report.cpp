#include "cdens/core/fit_report.hpp"

#include <nlohmann/json.hpp>

#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"

namespace cdens {

nlohmann::json FeatureSelection::to_json() const {
  nlohmann::json document = {{"selected", selected}, {"importances", vector_to_json(importances)}};
  if (path) {
    document["path"] = {{"lambdas", vector_to_json(path->lambdas)},
                        {"group_norms", matrix_to_json(path->group_norms)},
                        {"chosen_lambda", path->chosen_lambda}};
  }
  return document;
}

FeatureSelection FeatureSelection::from_json(const nlohmann::json& document) {
  FeatureSelection selection;
  try {
    selection.selected = json_member(document, "selected").get<std::vector<Index>>();
    selection.importances =
        vector_from_json(json_member(document, "importances"), "feature importances");
    if (document.contains("path")) {
      const auto& path = document["path"];
      selection.path =
          RegularizationPath{vector_from_json(json_member(path, "lambdas"), "path lambdas"),
                             matrix_from_json(json_member(path, "group_norms"), "path group norms"),
                             json_member(path, "chosen_lambda").get<double>()};
    }
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string("feature selection: ") + error.what());
  }
  for (const Index feature : selection.selected) {
    if (feature < 0 || feature >= selection.importances.size()) {
      throw ModelFormatError("feature selection: a selected feature is out of range");
    }
  }
  return selection;
}

nlohmann::json FitReport::to_json() const {
  nlohmann::json document = {{"method", method},
                             {"hyperparameters", hyperparameters},
                             {"statistics", statistics},
                             {"fit_seconds", fit_seconds},
                             {"warnings", warnings}};
  if (cross_validation) document["cross_validation"] = cross_validation->to_json();
  if (feature_selection) document["feature_selection"] = feature_selection->to_json();
  // Written only when present, so that files of fits without one stay as they were.
  for (const auto& [name, table] : auxiliary_cross_validation) {
    document["auxiliary_cross_validation"][name] = table.to_json();
  }
  return document;
}

FitReport FitReport::from_json(const nlohmann::json& document) {
  FitReport report;
  try {
    report.method = json_member(document, "method").get<std::string>();
    report.hyperparameters =
        json_member(document, "hyperparameters").get<std::map<std::string, double>>();
    report.statistics = json_member(document, "statistics").get<std::map<std::string, double>>();
    report.fit_seconds = json_member(document, "fit_seconds").get<double>();
    report.warnings = json_member(document, "warnings").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string("fit report: ") + error.what());
  }
  if (document.contains("cross_validation")) {
    report.cross_validation = CvTable::from_json(document["cross_validation"]);
  }
  if (document.contains("feature_selection")) {
    report.feature_selection = FeatureSelection::from_json(document["feature_selection"]);
  }
  if (document.contains("auxiliary_cross_validation")) {
    const auto& tables = document["auxiliary_cross_validation"];
    if (!tables.is_object()) throw ModelFormatError("fit report: malformed auxiliary tables");
    for (const auto& [name, table] : tables.items()) {
      report.auxiliary_cross_validation[name] = CvTable::from_json(table);
    }
  }
  return report;
}

}  // namespace cdens
