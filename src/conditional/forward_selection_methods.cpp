#include <string>

#include "cdens/conditional/forward_selection.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

/// Forward selection around `fit_estimator` with `options.estimator`, the candidates on the
/// context's threads and each candidate's fit on one.
template <class Options, class Fit>
ConditionalFit select_around(const MatrixView& x, const MatrixView& y, const Options& options,
                             const std::string& method, Fit fit_estimator,
                             const FitContext& context) {
  ForwardSelectionOptions selection;
  selection.method = method;
  // The candidates' fits see a subset of the inputs, which the names would mislabel; they run
  // side by side, so their own stages would overwrite one another: the selection reports them.
  const FitContext subset_context = context.for_derived_columns(silent_progress()).with_threads(1);
  return fit_forward_selection(
      x, y,
      [&](const MatrixView& subset_x, const MatrixView& subset_y) {
        return fit_estimator(subset_x, subset_y, options.estimator, subset_context);
      },
      selection, context);
}

}  // namespace

ConditionalFit fit_forward_selection_lscde(const MatrixView& x, const MatrixView& y,
                                           const ForwardSelectionLscdeOptions& options,
                                           const FitContext& context) {
  fw_lscde_option_table().validate(options);
  return select_around(
      x, y, options, "fw-lscde",
      [](const MatrixView& sx, const MatrixView& sy, const LscdeOptions& o, const FitContext& c) {
        return fit_lscde(sx, sy, o, c);
      },
      context);
}

ConditionalFit fit_forward_selection_ekde(const MatrixView& x, const MatrixView& y,
                                          const ForwardSelectionEkdeOptions& options,
                                          const FitContext& context) {
  fw_ekde_option_table().validate(options);
  return select_around(x, y, options, "fw-ekde", &fit_ekde, context);
}

ConditionalFit fit_forward_selection_nwcde(const MatrixView& x, const MatrixView& y,
                                           const ForwardSelectionNwcdeOptions& options,
                                           const FitContext& context) {
  fw_nwcde_option_table().validate(options);
  return select_around(x, y, options, "fw-nwcde", &fit_nwcde, context);
}

}  // namespace cdens
