#pragma once
// Forward feature selection around any conditional estimator (SA-CDE paper §3.1: FW-LSCDE,
// FW-eKDE, FW-NWCDE): starting from no feature, add the one whose addition gives the smallest
// cross-validated negative log-likelihood, until adding a feature no longer lowers it.
//
// The cross-validated NLL of a feature set is the estimator's own: the smallest mean held-out
// NLL of the hyper-parameter grid its fit cross-validates (5-fold for LSCDE and ε-KDE,
// leave-one-out over the centres for NW-CDE, as the paper's baselines choose their widths). So
// each candidate set costs one fit with model selection, as in the paper. The first feature is
// always added (a model needs an input); see docs/methods/sacde.md.

#include <functional>
#include <vector>

#include "cdens/conditional/ekde.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/nwcde.hpp"
#include "cdens/conditional/salscde.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

/// Fits the wrapped estimator to pairs (x_S, y); its report must hold a cross-validation table
/// of loss "kl".
using SubsetFit = std::function<ConditionalFit(const MatrixView& x, const MatrixView& y)>;

/// Options of the wrapper.
struct ForwardSelectionOptions {
  /// Name of the wrapped method in the report ("fw-" + its name).
  std::string method = "fw";
};

/// Forward selection on the pairs (x_i, y_i) (x is d_x × n). The model takes all d_x inputs and
/// uses the selected ones (SelectedFeaturesGate); the report is the final fit's, with method
/// options.method, feature_selection (importance: the decrease of CV NLL when the feature was
/// added) and an auxiliary table "forward_selection" of the CV NLL after each step (parameter
/// "feature": the one added).
///
/// The candidates of a step are fitted side by side on context.threads threads (each `fit` on
/// its own thread should run on one: FitContext::with_threads).
/// On more than one process (context.communicator), each rank passes its own pairs and `fit`
/// must fit a distributed estimator on them with the same communicator; the candidates of a
/// step are then fitted one after another (the ranks' collective calls come from one thread in
/// the same order), and every rank takes the same decisions from the summed CV losses.
ConditionalFit fit_forward_selection(const MatrixView& x, const MatrixView& y, const SubsetFit& fit,
                                     const ForwardSelectionOptions& options = {},
                                     const FitContext& context = {});

// FW-LSCDE, FW-eKDE and FW-NWCDE (SA-CDE paper §3.1): forward feature selection
// (above) around one estimator with the paper's set-up — the estimator's own
// cross-validation on the SA-CDE paper's grids, every wrapped fit on one thread and the
// candidate features of a step on the context's threads (FitContext::threads), so that the
// result does not depend on the threads.

/// FW-LSCDE: LSCDE's options, whose σ and λ candidates default to the SA-CDE paper's twenty
/// values in [10⁻², 2] (§3) rather than LSCDE's own grid.
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct ForwardSelectionLscdeOptions {
  LscdeOptions estimator = SalscdeOptions::paper_estimation_options();
};

/// FW-eKDE: ε-KDE's options (already the SA-CDE paper's grids).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct ForwardSelectionEkdeOptions {
  EkdeOptions estimator;
};

/// FW-NWCDE: NW-CDE's options (already the SA-CDE paper's grid).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct ForwardSelectionNwcdeOptions {
  NwcdeOptions estimator;
};

/// Forward selection around LSCDE, ε-KDE or NW-CDE on the pairs (x_i, y_i); the report's method
/// is "fw-lscde", "fw-ekde" or "fw-nwcde" (see fit_forward_selection for the rest of it).
ConditionalFit fit_forward_selection_lscde(const MatrixView& x, const MatrixView& y,
                                           const ForwardSelectionLscdeOptions& options = {},
                                           const FitContext& context = {});
ConditionalFit fit_forward_selection_ekde(const MatrixView& x, const MatrixView& y,
                                          const ForwardSelectionEkdeOptions& options = {},
                                          const FitContext& context = {});
ConditionalFit fit_forward_selection_nwcde(const MatrixView& x, const MatrixView& y,
                                           const ForwardSelectionNwcdeOptions& options = {},
                                           const FitContext& context = {});

}  // namespace cdens
