#pragma once
// The one-dimensional queries of a conditional mixture answered from components formed elsewhere:
// the reduced components of y at each query input, as the model's own queries form them
// (ConditionalMixture::for_each_scalar_output), but taken from a list the caller made. The queries
// of a KCDE model whose rows stay on their ranks combine each rank's reduced components into the
// model of every rank's rows (conditional/kernel_queries_of_ranks.hpp) and answer from them with
// the model's own transform, trend, bounds and scaling.

#include <cstdint>
#include <optional>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"
#include "model/component_reduction.hpp"

namespace cdens::detail {

struct GivenComponents {
  /// Reduced components per query input, in the standardised output units of their trend groups.
  using Rows = std::vector<ScalarComponentList>;

  /// The reduced components of the model's one-dimensional continuous y at each input x_j
  /// (d_x × m), each list's probabilities summing to one: by the model's kernel-neighbour path
  /// where it takes it, else every component of the gate's probabilities reduced within the
  /// model's scalar tolerance, or within `tolerance` (at most kLargestReductionTolerance) where
  /// the model reduces at
  /// all. InvalidArgument for a discrete y, an atom or d_y > 1.
  static Rows reduced_at(const ConditionalMixture& model, const MatrixView& x,
                         std::optional<double> tolerance = std::nullopt);

  /// ConditionalMixture::scalar_answers of `model` with the distribution at x_j formed from
  /// rows[j] (one list per column of x).
  static ConditionalMixture::ScalarAnswers scalar_answers(
      const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
      const ConditionalMixture::ScalarQueries& queries, const Rows& rows);

  /// E[y] and Var[y] (1 × m each) of the distributions formed from rows (as
  /// ConditionalMixture::numerical_moments).
  static ConditionalMixture::OutputMoments mean_and_variance(const ConditionalMixture& model,
                                                             const MatrixView& x, const Rows& rows);

  /// `n_per_input` draws of y at each x_j from the distribution formed from rows[j], by inversion
  /// of its CDF (ScalarOutput::quantile of a uniform draw), d_y × (m · n_per_input) with x_j's in
  /// columns j·n … j·n + n − 1. Input j draws from stream first_stream + j of `seed`.
  static Matrix sample(const ConditionalMixture& model, const MatrixView& x, const Rows& rows,
                       Index n_per_input, std::uint64_t seed, Index first_stream);

 private:
  /// The source that reads rows[j] (one list per column of the query).
  static ConditionalMixture::ComponentsAt source_of(const Rows& rows, Index columns);
  static void require_continuous_scalar_output(const ConditionalMixture& model);
};

}  // namespace cdens::detail
