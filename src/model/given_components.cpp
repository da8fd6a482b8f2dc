#include "model/given_components.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "cdens/core/rng.hpp"
#include "core/random_streams.hpp"
#include "model/discrete_outputs.hpp"
#include "model/output_atom.hpp"
#include "model/scalar_output.hpp"
#include "model/trend_groups.hpp"

namespace cdens::detail {

void GivenComponents::require_continuous_scalar_output(const ConditionalMixture& model) {
  model.require_scalar_output("queries from reduced components");
  if (!model.discrete_->empty() || !model.atom_->empty()) {
    throw InvalidArgument(
        "queries from reduced components need a continuous y without an atom; this model's y is "
        "discrete or has a point mass");
  }
}

ConditionalMixture::ComponentsAt GivenComponents::source_of(const Rows& rows, Index columns) {
  if (static_cast<Index>(rows.size()) != columns) {
    throw InvalidArgument(
        "one list of components per query input is needed: " + std::to_string(rows.size()) +
        " lists for " + std::to_string(columns) + " inputs");
  }
  return [&rows](Index j, const double* /*z_j*/, ScalarComponentList& components) {
    components = rows[static_cast<std::size_t>(j)];
  };
}

GivenComponents::Rows GivenComponents::reduced_at(const ConditionalMixture& model,
                                                  const MatrixView& x,
                                                  std::optional<double> tolerance) {
  require_continuous_scalar_output(model);
  const Matrix z = model.x_scaling_.transform_query(x, "x");
  Rows rows(static_cast<std::size_t>(z.cols()));
  if (model.neighbour_path_) {
    const ConditionalMixture::ComponentsAt own = model.neighbour_source();
    model.for_each_neighbour_input(
        z, [&](Index j, const double* z_j) { own(j, z_j, rows[static_cast<std::size_t>(j)]); });
    return rows;
  }
  // A model of a few components, or of bounded ones, keeps its exact answers.
  const bool exact = model.scalar_tolerance() == 0.0;
  const double within =
      exact ? 0.0
            : std::min(kLargestReductionTolerance, tolerance.value_or(model.scalar_tolerance()));
  model.for_each_query(z, [&](Index j, const VectorView& pi) {
    rows[static_cast<std::size_t>(j)] = model.reduced_components(pi, within);
  });
  return rows;
}

ConditionalMixture::ScalarAnswers GivenComponents::scalar_answers(
    const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
    const ConditionalMixture::ScalarQueries& queries, const Rows& rows) {
  require_continuous_scalar_output(model);
  const ConditionalMixture::ComponentsAt given = source_of(rows, x.cols());
  return model.scalar_answers_from(x, y, queries, &given);
}

ConditionalMixture::OutputMoments GivenComponents::mean_and_variance(
    const ConditionalMixture& model, const MatrixView& x, const Rows& rows) {
  require_continuous_scalar_output(model);
  const ConditionalMixture::ComponentsAt given = source_of(rows, x.cols());
  return model.numerical_moments(model.x_scaling_.transform_query(x, "x"), &given);
}

Matrix GivenComponents::sample(const ConditionalMixture& model, const MatrixView& x,
                               const Rows& rows, Index n_per_input, std::uint64_t seed,
                               Index first_stream) {
  if (n_per_input < 1) throw InvalidArgument("the number of samples per input must be at least 1");
  require_continuous_scalar_output(model);
  const ConditionalMixture::ComponentsAt given = source_of(rows, x.cols());
  const Matrix z = model.x_scaling_.transform_query(x, "x");
  const GroupMaps maps = model.groups_->maps(z);
  Matrix draws(1, z.cols() * n_per_input);
  model.for_each_scalar_output(
      z, maps,
      [&](Index j, const ScalarOutput& distribution) {
        Rng rng(seed, random_stream::indexed(first_stream + j));
        for (Index r = 0; r < n_per_input; ++r) {
          // uniform() lies in [0, 1): 0 would ask for the quantile at −∞.
          const double u = std::max(rng.uniform(), std::numeric_limits<double>::min());
          draws(0, j * n_per_input + r) = distribution.quantile(u);
        }
      },
      &given);
  return draws;
}

}  // namespace cdens::detail
