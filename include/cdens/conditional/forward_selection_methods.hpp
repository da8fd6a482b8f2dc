#pragma once
// FW-LSCDE, FW-eKDE and FW-NWCDE (SA-CDE paper §3.1): forward feature selection
// (forward_selection.hpp) around one estimator with the paper's set-up — the estimator's own
// cross-validation on the SA-CDE paper's grids, every wrapped fit on one thread and the
// candidate features of a step on the context's threads (FitContext::threads), so that the
// result does not depend on the threads.

#include "cdens/conditional/epsilon_kde.hpp"
#include "cdens/conditional/forward_selection.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/nadaraya_watson_cde.hpp"
#include "cdens/conditional/sa_lscde.hpp"
#include "cdens/core/fit_context.hpp"

namespace cdens {

/// FW-LSCDE: LSCDE's options, whose σ and λ candidates default to the SA-CDE paper's twenty
/// values in [10⁻², 2] (§3) rather than LSCDE's own grid.
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct ForwardSelectionLscdeOptions {
  LscdeOptions estimator = SaLscdeOptions::paper_estimation_options();
};

/// FW-eKDE: ε-KDE's options (already the SA-CDE paper's grids).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct ForwardSelectionEpsilonKdeOptions {
  EpsilonKdeOptions estimator;
};

/// FW-NWCDE: NW-CDE's options (already the SA-CDE paper's grid).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct ForwardSelectionNadarayaWatsonCdeOptions {
  NadarayaWatsonCdeOptions estimator;
};

/// Forward selection around LSCDE, ε-KDE or NW-CDE on the pairs (x_i, y_i); the report's method
/// is "fw-lscde", "fw-ekde" or "fw-nwcde" (see fit_forward_selection for the rest of it).
ConditionalFit fit_forward_selection_lscde(const MatrixView& x, const MatrixView& y,
                                           const ForwardSelectionLscdeOptions& options = {},
                                           const FitContext& context = {});
ConditionalFit fit_forward_selection_epsilon_kde(
    const MatrixView& x, const MatrixView& y, const ForwardSelectionEpsilonKdeOptions& options = {},
    const FitContext& context = {});
ConditionalFit fit_forward_selection_nadaraya_watson_cde(
    const MatrixView& x, const MatrixView& y,
    const ForwardSelectionNadarayaWatsonCdeOptions& options = {}, const FitContext& context = {});

}  // namespace cdens
