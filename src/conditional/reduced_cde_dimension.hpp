#pragma once
// The steps of fit_lsce (lsce.hpp) that choose d_z: a fit at one d_z on given scalings,
// and the cross-validation of the whole method over d_z = 1 … d_x.

#include "cdens/conditional/lsce.hpp"
#include "cdens/core/cross_validation.hpp"

namespace cdens {

/// `method` at the d_z of options.reduction (1 … d_x) on x and y standardised by the given
/// scalings (fit_lsce: those of x and y themselves; cross_validate_dimension: those of
/// the whole sample for every fold).
LsceFit fit_at_dimension(const MatrixView& x, const MatrixView& y, const Standardizer& x_scaling,
                         const Standardizer& y_scaling, ReducedCdeMethod method,
                         const LsceOptions& options, const FitContext& context = {});

/// The d_z tables of cross_validate_dimension: one set of fold fits scored two ways.
struct DimensionTables {
  CvTable chosen;  ///< loss dimension_loss(method, options); its best row is the chosen d_z
  CvTable other;   ///< the other of "kl" and "sq", for comparison
};

/// d_z by K-fold cross-validation of the whole method (§3.3: "we chose it by cross-validation";
/// Table 2 reports a different d_z for each estimator on z, so what is validated is the final
/// conditional density): for every d_z in 1 … d_x and fold k — K = options.reduction.folds folds
/// of draw_fold_labels from the stream random_stream::kOuterFolds of the seed — `method` is fitted
/// to the other folds — W, σ, λ and the estimator on z, with x and y standardised as the whole
/// sample (fit_at_dimension) — and scored on fold k, in the user's units, by the SQ criterion of
/// §3.2, ½ ∫ p̂(y|x)² dy − p̂(y|x), and by the negative log-likelihood −log p̂(y|x). The table of
/// dimension_loss decides; the best row is the chosen d_z. With several ranks in
/// context.communicator, each passes its own pairs: the folds are those of every rank's pairs
/// (draw_sharded_fold_labels), each fold fit runs on every rank and the held-out losses are
/// summed over the ranks.
DimensionTables cross_validate_dimension(const MatrixView& x, const MatrixView& y,
                                         ReducedCdeMethod method, const LsceOptions& options,
                                         const FitContext& context = {});

}  // namespace cdens
