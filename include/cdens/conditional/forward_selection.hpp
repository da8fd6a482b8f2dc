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

}  // namespace cdens
