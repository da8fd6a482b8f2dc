#include "cdens/core/fit_report.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

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
  reading_json("feature selection", [&] {
    selection.selected = json_integers(json_member(document, "selected"), "selected features", 0);
    selection.importances =
        vector_from_json(json_member(document, "importances"), "feature importances");
    if (document.contains("path")) {
      const auto& path = document["path"];
      selection.path =
          RegularizationPath{vector_from_json(json_member(path, "lambdas"), "path lambdas"),
                             matrix_from_json(json_member(path, "group_norms"), "path group norms"),
                             json_member(path, "chosen_lambda").get<double>()};
    }
  });
  for (const Index feature : selection.selected) {
    if (feature < 0 || feature >= selection.importances.size()) {
      throw ModelFormatError("feature selection: a selected feature is out of range");
    }
  }
  return selection;
}

namespace {

/// A number, or null for NaN (JSON has no NaN).
nlohmann::json number_or_null(double value) {
  return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value);
}

double number_or_nan(const nlohmann::json& value) {
  return value.is_null() ? NAN : value.get<double>();
}

}  // namespace

nlohmann::json MethodSelection::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const CandidateScore& score : candidates) {
    rows.push_back({{"candidate", score.candidate},
                    {"mean_nll", number_or_null(score.mean_nll)},
                    {"standard_error", number_or_null(score.standard_error)},
                    {"difference_standard_error", number_or_null(score.difference_standard_error)},
                    {"seconds", score.seconds},
                    {"status", score.status},
                    {"weight", score.weight},
                    {"validation", score.validation}});
  }
  return {{"candidates", rows},
          {"chosen", chosen},
          {"pooled_mean_nll", number_or_null(pooled_mean_nll)},
          {"folds", folds},
          {"time_budget", time_budget},
          {"validation", validation},
          {"scored_pairs", scored_pairs}};
}

MethodSelection MethodSelection::from_json(const nlohmann::json& document) {
  MethodSelection selection;
  reading_json("method selection", [&] {
    for (const auto& row : json_member(document, "candidates")) {
      CandidateScore score;
      score.candidate = json_member(row, "candidate").get<std::string>();
      score.mean_nll = number_or_nan(json_member(row, "mean_nll"));
      score.standard_error = number_or_nan(json_member(row, "standard_error"));
      score.difference_standard_error =
          number_or_nan(json_member(row, "difference_standard_error"));
      score.seconds = json_member(row, "seconds").get<double>();
      score.status = json_member(row, "status").get<std::string>();
      // Files written before stacking: the chosen candidate alone.
      if (row.contains("weight")) score.weight = row["weight"].get<double>();
      if (row.contains("validation")) score.validation = row["validation"].get<std::string>();
      selection.candidates.push_back(std::move(score));
    }
    selection.chosen = json_integer(json_member(document, "chosen"), "method selection: chosen", 0);
    if (document.contains("pooled_mean_nll")) {
      selection.pooled_mean_nll = number_or_nan(document["pooled_mean_nll"]);
    }
    const bool weighted = std::any_of(selection.candidates.begin(), selection.candidates.end(),
                                      [](const CandidateScore& score) { return score.weight > 0; });
    if (!weighted && selection.chosen >= 0 &&
        selection.chosen < static_cast<Index>(selection.candidates.size())) {
      selection.candidates[static_cast<std::size_t>(selection.chosen)].weight = 1.0;
    }
    selection.folds = static_cast<int>(
        json_integer(json_member(document, "folds"), "method selection: folds", 2, INT_MAX));
    selection.time_budget = json_member(document, "time_budget").get<double>();
    if (document.contains("validation")) {
      selection.validation = document["validation"].get<std::string>();
      selection.scored_pairs =
          json_integer(json_member(document, "scored_pairs"), "method selection: scored_pairs", 0);
    }
  });
  if (selection.chosen < 0 || selection.chosen >= static_cast<Index>(selection.candidates.size()) ||
      !selection.candidates[static_cast<std::size_t>(selection.chosen)].scored()) {
    throw ModelFormatError("method selection: the chosen candidate is not a scored row");
  }
  return selection;
}

namespace {

/// The name of today for a report key that cdens 0.1.0 wrote otherwise: its reports named the
/// values of options by the papers' symbols (lambda, width, d_z), today's by the options' names.
/// No newer file holds an old name, so a file of either version is read alike.
std::string current_name(const std::string& name) {
  static const std::map<std::string, std::string> renamed = {
      {"lambda", "regularization"},
      {"selection_lambda", "selection_regularization"},
      {"reduction_lambda", "reduction_regularization"},
      {"width", "bandwidth"},
      {"target_width", "target_bandwidth"},
      {"d_z", "n_components"}};
  const auto found = renamed.find(name);
  if (found != renamed.end()) return found->second;
  // Parzen's widths per dimension (width_0), KCDE's λ of a discrete column (lambda_x3), LSCE's
  // table of the other d_z criterion (d_z_sq).
  static const std::vector<std::pair<std::string, std::string>> renamed_prefixes = {
      {"width_", "bandwidth_"}, {"lambda_", "bandwidth_"}, {"d_z_", "n_components_"}};
  for (const auto& [old_prefix, prefix] : renamed_prefixes) {
    if (name.rfind(old_prefix, 0) == 0) return prefix + name.substr(old_prefix.size());
  }
  return name;
}

/// `values` with every key under its current_name.
std::map<std::string, double> with_current_names(const std::map<std::string, double>& values) {
  std::map<std::string, double> renamed;
  for (const auto& [name, value] : values) renamed[current_name(name)] = value;
  return renamed;
}

/// The statistics of a 0.1.0 report under today's names: SA-CDE's λ of the CV minimum (its
/// lambda_max, the paper's λ_max of the data, names no option's value and keeps its name).
std::map<std::string, double> with_current_statistic_names(std::map<std::string, double> values) {
  const auto found = values.find("lambda_cv_minimum");
  if (found != values.end()) {
    values["regularization_cv_minimum"] = found->second;
    values.erase(found);
  }
  return values;
}

void use_current_names(CvTable& table) {
  for (auto& name : table.parameter_names) name = current_name(name);
}

}  // namespace

nlohmann::json FitReport::to_json() const {
  nlohmann::json document = {{"method", method},
                             {"hyperparameters", hyperparameters},
                             {"statistics", statistics},
                             {"fit_seconds", fit_seconds},
                             {"warnings", warnings}};
  if (cross_validation) document["cross_validation"] = cross_validation->to_json();
  if (!parameter_choice.empty()) document["parameter_choice"] = parameter_choice;
  if (feature_selection) document["feature_selection"] = feature_selection->to_json();
  if (method_selection) document["method_selection"] = method_selection->to_json();
  // Written only when present, so that files of fits without one stay as they were.
  for (const auto& [name, table] : auxiliary_cross_validation) {
    document["auxiliary_cross_validation"][name] = table.to_json();
  }
  return document;
}

FitReport FitReport::from_json(const nlohmann::json& document) {
  FitReport report;
  reading_json("fit report", [&] {
    report.method = json_member(document, "method").get<std::string>();
    report.hyperparameters = with_current_names(
        json_member(document, "hyperparameters").get<std::map<std::string, double>>());
    report.statistics = with_current_statistic_names(
        json_member(document, "statistics").get<std::map<std::string, double>>());
    report.fit_seconds = json_member(document, "fit_seconds").get<double>();
    report.warnings = json_member(document, "warnings").get<std::vector<std::string>>();
  });
  if (document.contains("cross_validation")) {
    report.cross_validation = CvTable::from_json(document["cross_validation"]);
    use_current_names(*report.cross_validation);
  }
  if (document.contains("parameter_choice")) {
    const auto& choice = document["parameter_choice"];
    if (!choice.is_string()) throw ModelFormatError("fit report: parameter_choice is no text");
    report.parameter_choice = choice.get<std::string>();
  }
  if (document.contains("feature_selection")) {
    report.feature_selection = FeatureSelection::from_json(document["feature_selection"]);
  }
  if (document.contains("method_selection")) {
    report.method_selection = MethodSelection::from_json(document["method_selection"]);
  }
  if (document.contains("auxiliary_cross_validation")) {
    const auto& tables = document["auxiliary_cross_validation"];
    if (!tables.is_object()) throw ModelFormatError("fit report: malformed auxiliary tables");
    for (const auto& [name, table] : tables.items()) {
      CvTable& read = report.auxiliary_cross_validation[current_name(name)];
      read = CvTable::from_json(table);
      use_current_names(read);
    }
  }
  return report;
}

}  // namespace cdens
