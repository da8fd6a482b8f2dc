#pragma once
// Queries of a KCDE model whose rows stay on their ranks (FitContext::rows_stay_on_ranks): each
// rank's model holds its own rows as components, and the density of all rows is a ratio of sums
// over every rank's (docs/distributed.md, "Queries of a model on many ranks").

#include "cdens/core/communicator.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// log p(y_j | x_j) of the model of every rank's rows for this rank's query pairs (x d_x × m,
/// y d_y × m; m may differ between ranks, and be 0). `own_rows` is this rank's part of a KCDE
/// model (a product-kernel gate, possibly behind the Gaussian-process trend's broad component;
/// FitReport::rows_of_this_rank), whose standardisation, bandwidths, trend and transform every
/// rank shares. With the kernel weights c_k w_k(x) and component densities p_k(y | x) of every
/// rank's rows k, and ε, δ the marginal and broad weights,
///
///   p̂(y|x) = Σ_k c_k w_k p_k / Σ_k c_k w_k,   p̂₀(y|x) = Σ_k c_k p_k / Σ_k c_k,
///   p(y|x) = (1 − δ) [(1 − ε) p̂ + ε p̂₀] + δ N_broad(y|x),
///
/// each Σ_k a sum of the ranks' sums. Each rank in turn broadcasts its queries in chunks; every
/// rank adds the logs of its three partial sums for them (log-sum-exp), and the ranks combine
/// theirs (a maximum, then a sum). A collective call: every rank calls it. On one rank it is
/// `own_rows.log_pdf(x, y)`. InvalidArgument for a model of another gate.
Vector log_pdf_of_ranks(const ConditionalMixture& own_rows, const MatrixView& x,
                        const MatrixView& y, const Communicator& communicator);

}  // namespace cdens
