#pragma once
// The frame every fit shares (issue 20, item 6): the report's method name and the wall time of
// the whole fit, and what happens to a cross-validation once its table is scored — no finite
// loss refused, losses moved to the user's units, the grid-edge warnings, the table kept.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

/// Runs `body(report)`, which does the method's work, fills `report` (a fit that wraps another
/// may replace it by the inner fit's) and returns the model; returns the model with the report
/// named `method` and the seconds the whole fit took.
template <class Model, class Body>
Fit<Model> timed_fit(std::string method, Body&& body) {
  const auto started = std::chrono::steady_clock::now();
  FitReport report;
  Model model = body(report);
  report.method = std::move(method);
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return {std::move(model), std::move(report)};
}

/// How the losses of a table scored in standardised units read in the user's, for log J the log
/// of the standardisation's Jacobian over the scored variables (p_user = J · p_std): a negative
/// log-likelihood shifts, −log p_user = −log p_std − log J; the squared loss of LSCDE
/// (∫p̂² − 2·mean p̂, §2.5) scales by J. Zero leaves the table as it is (SKD's and RSDE's ISE
/// stay in standardised units).
struct LossUnits {
  double log_jacobian = 0.0;
  bool squared = false;
};

/// Keeps a scored cross-validation as the report's choice and returns it: DataError when no
/// candidate has a finite loss; the losses moved to the user's units; the grid-edge warnings of
/// the chosen row appended (grids[p] belongs to parameter p). The choice (table.best) is read
/// before the move, which is monotone and so leaves it unchanged.
const CvTable& keep_cross_validation(FitReport& report, CvTable table,
                                     const std::vector<std::vector<double>>& grids,
                                     LossUnits units = {});

/// The same for a further table of a fit that selects several things by separate
/// cross-validations, kept under `name` in report.auxiliary_cross_validation.
const CvTable& keep_auxiliary_cross_validation(FitReport& report, const std::string& name,
                                               CvTable table,
                                               const std::vector<std::vector<double>>& grids,
                                               LossUnits units = {});

}  // namespace cdens
