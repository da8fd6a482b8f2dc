// LSCE and LSMI-LSCDE on K ranks, each holding a shard of the rows, against the single-process fit
// of all the rows with the same seed: the SCE (or SMI) estimate and its gradient are sums over
// the rows (ΦᵀΦ, Σ_i Φ_i ∘ Ψ_i, the per-row terms of S), the centres, folds and the d_z folds are
// drawn for every rank's rows as one process draws them, and the starts come from the seed. On
// one rank the fit is the single-process fit to the bit.

#include <gtest/gtest.h>

#include "cdens/conditional/lsce.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/model_file.hpp"
#include "conditional/grassmann.hpp"
#include "conditional/sufficient_reduction.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::expect_same_model_on_every_sharding;
using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

/// n pairs whose output depends on the second of d inputs only (the LSCE paper's data set B).
test::PairSample one_direction(Index n, Index d, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(d, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    const double v = sample.x(1, i);
    sample.y(0, i) = v + 0.5 * v * v + 0.25 * rng.normal();
  }
  return sample;
}

/// J and ∂J/∂W on every sharding of the rows against one process, at a random W. The sums over
/// ranks add the same terms in another order (~1e-16 relative each); the solve (Ĥ + λI)⁻¹ĥ
/// amplifies that by at most the condition number of Ĥ + λI, about 1/λ = 10 here, so 1e-12 is
/// ample and fails on any row counted twice or missed.
void expect_same_objective(ReductionCriterion criterion) {
  const test::PairSample data = one_direction(120, 4, 2);
  const Matrix x = Standardizer::fit(data.x, "x").transform(data.x);
  const Matrix y = Standardizer::fit(data.y, "y").transform(data.y);
  const std::vector<Index> centers = {3, 17, 40, 41, 77, 90, 101, 119};
  const Matrix cx = gather_samples(x, centers);
  const Matrix cy = gather_samples(y, centers);
  Rng rng(5);
  const Matrix w = random_orthonormal_rows(2, 4, rng);
  const ReductionObjective alone(criterion, x, y, cx, cy, 0.8, 0.1);
  const ReductionObjective::Solution single = alone.solve(w);
  const Matrix single_gradient = alone.gradient(single);
  double largest = 0.0;
  for (const auto& cut : shardings(x.cols())) {
    const std::vector<Index> rows = rows_of_rank(cut);
    const ReductionObjective sharded(criterion, gather_samples(x, rows), gather_samples(y, rows),
                                     cx, cy, 0.8, 0.1, world());
    const ReductionObjective::Solution solution = sharded.solve(w);
    const Matrix gradient = sharded.gradient(solution);
    largest = std::max(
        largest, std::abs(solution.value - single.value) / std::max(1e-3, std::abs(single.value)));
    largest = std::max(largest, (gradient - single_gradient).cwiseAbs().maxCoeff() /
                                    single_gradient.cwiseAbs().maxCoeff());
  }
  testing_mpi::expect_difference_within(largest, 1e-12,
                                        to_string(criterion) + " estimate and gradient");
}

TEST(LsceRanks, TheEstimateAndItsGradientAreSumsOverEveryRanksRows) {
  expect_same_objective(ReductionCriterion::sce);
  expect_same_objective(ReductionCriterion::smi);
}

/// Small grids, few centres and starts: a search of a few seconds on 1 … 4 ranks.
LsceOptions small_search(Index dz) {
  LsceOptions options;
  options.reduction.n_components = dz;
  options.reduction.n_restarts = 2;
  options.reduction.max_iter = 8;
  options.reduction.n_centers = 30;
  options.reduction.folds = 3;
  options.reduction.sigma = {0.3, 1.0};
  options.reduction.regularization = {0.1, 1.0};
  options.reduction.seed = 4;
  return options;
}

/// A model document of LSCE or LSMI with the mean of z = Wx̄ set to 0, after checking that it is
/// 0 to rounding: x̄ is standardised over the pairs the model is fitted to, so that mean is W · 0,
/// noise of ~1e-17 whose relative difference between two fits says nothing.
nlohmann::json without_projected_mean(nlohmann::json document) {
  auto& mean = document["model"]["gate"]["z_scaling"]["mean"];
  for (auto& entry : mean) {
    EXPECT_LE(std::abs(entry.get<double>()), 1e-12);
    entry = 0.0;
  }
  return document;
}

void expect_reduced_cde_rank_count_does_not_matter(const test::PairSample& pairs,
                                                   ReducedCdeMethod method,
                                                   const LsceOptions& options,
                                                   const std::string& name) {
  expect_same_model_on_every_sharding(
      pairs.x.cols(),
      [&](const std::vector<Index>& rows, const FitContext& context) {
        return without_projected_mean(conditional_model_to_json(
            unnamed_model(fit_lsce(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows),
                                   method, options, context))));
      },
      name);
}

TEST(LsceRanks, TheSameSeedFitsTheSameLsceModel) {
  expect_reduced_cde_rank_count_does_not_matter(one_direction(150, 3, 6), ReducedCdeMethod::lsce,
                                                small_search(1), "LSCE d_z = 1, refit, 150 pairs");
}

TEST(LsceRanks, TheSameSeedChoosesTheSameDimensionForThePapersModel) {
  LsceOptions options = small_search(0);
  options.reduction.n_restarts = 1;
  options.reduction.max_iter = 4;
  options.reduction.folds = 2;
  options.final_model = LsceFinalModel::paper;
  expect_reduced_cde_rank_count_does_not_matter(one_direction(90, 2, 7), ReducedCdeMethod::lsce,
                                                options, "LSCE d_z by CV, paper's model, 90 pairs");
}

TEST(LsceRanks, TheSameSeedFitsTheSameLsmiModel) {
  expect_reduced_cde_rank_count_does_not_matter(one_direction(120, 3, 8),
                                                ReducedCdeMethod::lsmi_lscde, small_search(1),
                                                "LSMI-LSCDE d_z = 1, 120 pairs");
}

}  // namespace
}  // namespace cdens
