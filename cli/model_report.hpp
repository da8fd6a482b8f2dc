#pragma once
// What `fit` and `info` print about a model: its variables, what its scores are, the fit report
// with its cross-validation table, and the features a feature-selecting fit kept.

#include <iosfwd>
#include <string>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/model_file.hpp"

namespace cdens::cli {

/// The variable names and dimensions of a model, one `key: value` per line.
void print_variables(std::ostream& out, const std::vector<std::string>& x_names,
                     const std::vector<std::string>& y_names);

/// The labels of every labelled variable ("labels_sex: F,I,M"), what the model's scores are,
/// "scores: log density" (every output continuous), "log probability mass" (every output
/// discrete) or a product of both, and for discrete outputs the kind of every output
/// ("output_kinds: continuous,ordered").
void print_output_kinds(std::ostream& out, const ConditionalModel& model);

/// The cross-validation table. Two hyper-parameters are shown as a matrix (rows: the first,
/// columns: the second), anything else as one line per candidate; `*` marks the chosen one.
/// A line naming the loss follows.
void print_cv_table(std::ostream& out, const CvTable& table);

/// "selected_features: a, b" (by name) when the model's fit selected features; nothing else.
void print_feature_selection(std::ostream& out, const ConditionalModel& model);

/// Chosen hyper-parameters, statistics, fit time and warnings of a fit, then its CV table.
void print_fit_report(std::ostream& out, const FitReport& report);

}  // namespace cdens::cli
