#pragma once
// Fitting a conditional estimator on a transformed output (output_transform.hpp): the transform
// is chosen from the training pairs, the estimator fitted to (x, B(y)), and its model moved back
// to y's units with the transform on every trend group (docs/methods/kcde.md, "Output
// transforms").

#include <functional>

#include "cdens/core/communicator.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// Yeo–Johnson's λ ∈ [0, 2] for the output v = (y − mean) / deviation by the profile likelihood
/// of the linear-Gaussian model v_λ = ψ_λ(v) ~ N(a + Aᵀx, σ²) (Box & Cox 1964, eq. (8), with
/// Yeo & Johnson's family): −(n/2) log σ̂²(λ) + Σ_i log ψ′_λ(v_i), maximised over a grid of step
/// 0.01. x is d_x × n, v is n values; on several ranks of `communicator` this rank's pairs, the
/// least squares of every rank's from normal equations summed over the ranks (a collective call).
double yeo_johnson_profile_lambda(const MatrixView& x, const VectorView& v,
                                  const Communicator& communicator = local_communicator());

/// Fits `fit` (an estimator of a one-dimensional y) to (x, B(y)) with the transform `choice`
/// chosen from the pairs (`fit` also gets B, with m = 0 and s = 1, to see y's own recording
/// grid through it), and returns its model in y's units: each trend group carries the
/// transform, y's standardisation is that of y itself (so the model pools with untransformed
/// ones; Yeo–Johnson's λ = 1, the identity, gives the model without a transform, y standardised
/// by its own standardisation composed with the fitted model's, equal to it but for rounding),
/// the leave-one-out log-densities and NLLs of the report gain the Jacobian, and the
/// report holds "output_transform_lambda" (0 for log). InvalidArgument for d_y ≠ 1 or, with log,
/// an output that is not positive; also for sample weights in `context` (the transform's profile
/// likelihood and the Jacobian's mean are not weighted). On several ranks of the context's
/// communicator each passes its own pairs and the transform is chosen from every rank's (a
/// collective call); the report's held-out pairs are then global indices, as KCDE's.
ConditionalFit fit_on_transformed_output(
    const MatrixView& x, const MatrixView& y, OutputTransformChoice choice,
    const FitContext& context,
    const std::function<ConditionalFit(const MatrixView& transformed, const OutputTransform& base)>&
        fit);

}  // namespace cdens
