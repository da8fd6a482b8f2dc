#include "core/fit_skeleton.hpp"

#include <cmath>

#include "cdens/core/types.hpp"
#include "io/text.hpp"

namespace cdens {
namespace {

CvTable checked_in_user_units(FitReport& report, CvTable table,
                              const std::vector<std::vector<double>>& grids, LossUnits units) {
  if (table.best < 0) {
    throw DataError("cross-validation of " + join(table.parameter_names, ", ") +
                    " found no candidate with a finite held-out " + table.loss + " loss");
  }
  if (units.squared) {
    table.mean_loss *= std::exp(units.log_jacobian);
    table.standard_error *= std::exp(units.log_jacobian);
  } else {
    table.mean_loss.array() -= units.log_jacobian;
  }
  for (std::string& warning : grid_edge_warnings(table, grids)) {
    report.warnings.push_back(std::move(warning));
  }
  return table;
}

}  // namespace

const CvTable& keep_cross_validation(FitReport& report, CvTable table,
                                     const std::vector<std::vector<double>>& grids,
                                     LossUnits units) {
  report.cross_validation = checked_in_user_units(report, std::move(table), grids, units);
  return *report.cross_validation;
}

const CvTable& keep_auxiliary_cross_validation(FitReport& report, const std::string& name,
                                               CvTable table,
                                               const std::vector<std::vector<double>>& grids,
                                               LossUnits units) {
  return report.auxiliary_cross_validation[name] =
             checked_in_user_units(report, std::move(table), grids, units);
}

}  // namespace cdens
