#include "cdens/conditional/salscde.hpp"

#include "cdens/core/standardizer.hpp"
#include "conditional/selected_features_gate.hpp"
#include "core/fit_skeleton.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

/// The feature with a non-zero ‖α_d‖ at the largest λ of the path (the first to enter it), or
/// feature 0 when the whole path is zero.
Index first_entering_feature(const RegularizationPath& path) {
  for (Index j = 0; j < path.lambdas.size(); ++j) {
    Index largest = 0;
    path.group_norms.col(j).maxCoeff(&largest);
    if (path.group_norms(largest, j) > 0.0) return largest;
  }
  return 0;
}

}  // namespace

LscdeOptions SalscdeOptions::paper_estimation_options() {
  LscdeOptions options;
  options.sigma = sa_cde_width_grid();
  options.regularization = sa_cde_width_grid();
  return options;
}

ConditionalFit fit_salscde(const MatrixView& x, const MatrixView& y, const SalscdeOptions& options,
                           const FitContext& context) {
  salscde_option_table().validate(options);
  return timed_fit<ConditionalMixture>("salscde", [&](FitReport& report) {
    // Two fits of cross-validated grids: each stage named by its fit.
    PrefixedProgress selecting(context.progress, "SA-CDE selection, ");
    ConditionalFit selection = fit_sacde(x, y, options.selection, context.reporting_to(selecting));
    // Taken from the selection's report, not copied: GCC 12 at -O3 warns that a copy's optional
    // path "may be used uninitialized" when it is moved into the report below.
    FeatureSelection& kept = *selection.report.feature_selection;
    std::vector<Index> features = kept.selected;
    if (features.empty()) features.push_back(first_entering_feature(*kept.path));
    // The selected inputs only: the names of all of them would mislabel these.
    PrefixedProgress estimating(context.progress, "LSCDE on the selected features, ");
    ConditionalFit estimate = fit_lscde(x(features, Eigen::all), y, options.estimation,
                                        context.for_derived_columns(estimating));

    report = std::move(estimate.report);
    report.hyperparameters["selection_sigma"] = selection.report.hyperparameters.at("sigma");
    report.hyperparameters["selection_regularization"] =
        selection.report.hyperparameters.at("regularization");
    if (selection.report.cross_validation) {
      report.auxiliary_cross_validation["sacde"] = std::move(*selection.report.cross_validation);
    }
    for (auto& warning : selection.report.warnings) {
      report.warnings.push_back("SA-CDE: " + warning);
    }
    kept.selected = features;
    report.feature_selection = std::move(kept);
    report.statistics["n_selected_features"] = static_cast<double>(features.size());
    return model_on_all_features(estimate.model, features, selection.model.x_scaling());
  });
}

}  // namespace cdens
