#pragma once
// Queries of a KCDE model whose rows stay on their ranks (FitContext::rows_stay_on_ranks): each
// rank's model holds its own rows as components, and the density of all rows is a ratio of sums
// over every rank's (docs/distributed.md, "Queries of a model on many ranks").

#include <cstdint>
#include <optional>

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

// The other queries of a one-dimensional continuous y (no discrete output, no atom) take, at each
// query input, the reduced components of the model of every rank's rows: each rank reduces its
// kernels' components at the input as one process reduces all of them (their probabilities
// renormalised to one: by its kernel neighbours, or every component where it has too few or a
// discrete input; src/model/neighbour_components.hpp) and adds log Σ_k c_k w_k(x) over its kernels
// (the kernel-sum engine, within 1e−6/3); its marginal part is reduced once. The query's rank
// weighs rank r's kernel part by Σ_{k∈r} c_k w_k / Σ_k c_k w_k, its marginal part by
// Σ_{k∈r} c_k / Σ_k c_k, and answers from them as the model's own queries answer from its reduced
// components (model/given_components.hpp). Each part is within the query tolerance τ of its ranks'
// part, so the mixture of parts is within τ of the model's: every CDF value and probability within
// τ, each quantile's exact CDF within τ of its probability (as on one process). The ranks take
// turns broadcasting their queries, 4,096 at a time (d_x doubles each), and every rank receives
// every rank's reduced components of them (about 4 doubles per component, a few dozen components
// per query at τ = 1e−6). On one rank: the model's own queries.

/// ConditionalMixture::scalar_answers of the model of every rank's rows at this rank's queries
/// (y 1 × m, or of no columns where only quantiles and regions are asked). Collective.
ConditionalMixture::ScalarAnswers scalar_answers_of_ranks(
    const ConditionalMixture& own_rows, const MatrixView& x, const MatrixView& y,
    const ConditionalMixture::ScalarQueries& queries, const Communicator& communicator);

/// E[y|x] and Var[y|x] (1 × m each) of the model of every rank's rows at this rank's inputs.
/// Collective.
ConditionalMixture::OutputMoments mean_and_variance_of_ranks(const ConditionalMixture& own_rows,
                                                             const MatrixView& x,
                                                             const Communicator& communicator);

/// `n_per_input` draws of y at each of this rank's inputs from the model of every rank's rows, by
/// inversion of each input's reduced CDF; 1 × (m · n_per_input), input j's in columns
/// j·n … j·n + n − 1, from stream j of `seed` (the draws of a rank's inputs do not depend on the
/// other ranks' queries). Collective.
Matrix sample_of_ranks(const ConditionalMixture& own_rows, const MatrixView& x, Index n_per_input,
                       std::uint64_t seed, const Communicator& communicator);

// A model file on many processes (`mpirun -n K cdens predict|evaluate|sample`): every rank keeps a
// stretch of a KCDE model's pairs; rank 0 asks every query of the command through the ranks while
// the others serve their parts, until rank 0 stops them.

/// Rank r's stretch of the pairs of `whole` (pairs n·r/K … n·(r + 1)/K − 1 of its n, for K
/// ranks), a model of the kind log_pdf_of_ranks takes: a kernel gate over the pairs without row
/// weights or broad component, one trend group, no atom, and at least K pairs; none for any other
/// model (which every rank then holds whole).
std::optional<ConditionalMixture> stretch_of_rank(const ConditionalMixture& whole,
                                                  const Communicator& communicator);

/// On rank 0: `own_rows` (its stretch) answering its log-densities, one-dimensional queries,
/// moments and draws through every rank's stretch (as the functions above, with the parts kept
/// from one query to the next) while every other rank runs serve_queries_of_ranks. Each query
/// first tells the others which collective call to join. A collective call with the others'
/// serve_queries_of_ranks.
ConditionalMixture model_of_ranks(const ConditionalMixture& own_rows,
                                  const Communicator& communicator);

/// On every rank but 0: joins each query that rank 0's model_of_ranks asks, with no queries of its
/// own, until rank 0 calls stop_serving_queries. A query that fails fails on every rank (rank 0
/// reports it) and the service goes on.
void serve_queries_of_ranks(const ConditionalMixture& own_rows, const Communicator& communicator);

/// On rank 0: ends serve_queries_of_ranks on the other ranks.
void stop_serving_queries(const Communicator& communicator);

}  // namespace cdens
