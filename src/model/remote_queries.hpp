#pragma once
// The queries of a conditional mixture whose components are held elsewhere: a KCDE model whose
// rows stay on their ranks, asked on rank 0 while the other ranks serve their parts
// (conditional/kernel_queries_of_ranks.hpp). A model that holds a RemoteQueries answers its
// log-densities, one-dimensional queries (quantiles, CDF, CRPS, highest-density regions and
// probabilities), means, variances and draws through it, so that every command and evaluation
// asks it as any model; the queries that would need its components themselves (its component
// probabilities, density grid, squared norm) refuse.

#include <cstdint>
#include <memory>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

class RemoteQueries {
 public:
  virtual ~RemoteQueries() = default;

  virtual Vector log_pdf(const MatrixView& x, const MatrixView& y) const = 0;
  virtual ConditionalMixture::ScalarAnswers scalar_answers(
      const MatrixView& x, const MatrixView& y,
      const ConditionalMixture::ScalarQueries& queries) const = 0;
  /// E[y|x] and Var[y|x] (1 × m each).
  virtual ConditionalMixture::OutputMoments mean_and_variance(const MatrixView& x) const = 0;
  virtual Matrix sample(const MatrixView& x, Index n_per_input, std::uint64_t seed) const = 0;

  /// `model` answering through `remote` (its standardisation, trend, transform and names kept
  /// for everything else).
  static ConditionalMixture answering_through(const ConditionalMixture& model,
                                              std::shared_ptr<const RemoteQueries> remote);
};

}  // namespace cdens::detail
