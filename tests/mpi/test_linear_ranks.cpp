// The linear-Gaussian method (a default candidate of auto) on K ranks, each holding a shard of
// the rows, against the single-process fit of all the rows: the standardisation, the normal
// equations of the line and the Newton sums of the log-linear spreads are added over the ranks, so
// the model is the same up to the order of summation, and to the bit on one rank.

#include <gtest/gtest.h>

#include "cdens/conditional/linear.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/model_file.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

/// n pairs with a line in two inputs and a spread that grows with the first: y0 = 1 + 2 x0 − x1
/// + e^{0.4 x0} ε, and a second output of constant spread.
test::PairSample heteroscedastic_lines(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(2, n, rng), Matrix(2, n)};
  for (Index i = 0; i < n; ++i) {
    const double x0 = sample.x(0, i);
    const double x1 = sample.x(1, i);
    sample.y(0, i) = 1.0 + 2.0 * x0 - x1 + std::exp(0.4 * x0) * rng.normal();
    sample.y(1, i) = 50.0 - 0.1 * x1 + 0.5 * rng.normal();
  }
  sample.x.row(0) = 10.0 * sample.x.row(0).array() + 300.0;
  return sample;
}

/// What the K-rank model may differ by, relative. Newton's steps for a log-linear spread stop at a
/// relative change of 1e-12 on a likelihood that is flat along the slopes of a spread that does
/// not vary (the second output here), so the slopes, and through the weighted least squares the
/// line, carry the rounding of the sums as absolute differences of about 1e-10 in standardised
/// units; the line's intercept in standardised units is near 0 (7e-4 here), which makes that a
/// relative 1.4e-7 (measured on 4 ranks; the rest at most 3e-9). A different Newton path or spread
/// kind moves the model by far more than 1e-5.
constexpr double kLinearTolerance = 1e-5;

void expect_linear_rank_count_does_not_matter(LinearVariance variance, const std::string& name) {
  const test::PairSample pairs = heteroscedastic_lines(400, 3);
  LinearOptions options;
  options.variance = variance;
  testing_mpi::expect_same_pair_model(
      pairs,
      [&](const MatrixView& x, const MatrixView& y, const FitContext& context) {
        return fit_linear(x, y, options, context);
      },
      name, kLinearTolerance);
}

TEST(LinearRanks, TheSameModelOnAnyNumberOfRanks) {
  expect_linear_rank_count_does_not_matter(LinearVariance::automatic,
                                           "linear, variance chosen by LOO, 400 pairs");
  expect_linear_rank_count_does_not_matter(LinearVariance::log_linear,
                                           "linear, log-linear variance, 400 pairs");
}

TEST(LinearRanks, TooFewPairsOnEveryRankRefuse) {
  const test::PairSample pairs = heteroscedastic_lines(4, 1);
  const std::vector<Index> rows = rows_of_rank(shardings(4).back());
  EXPECT_EQ(test::message_of<InvalidArgument>([&] {
              fit_linear(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), {},
                         FitContext{world()});
            }),
            "the linear-Gaussian fit needs at least d_x + 3 = 5 pairs of x and y, got 4");
}

TEST(LinearRanks, TheOutputTransform) {
  // Yeo–Johnson's λ from the profile likelihood's sums over the ranks; the leave-one-out terms
  // and the report's NLLs gain the Jacobian of each rank's own pairs. A constant spread: the
  // line's intercept on standardised outputs is then 0 up to rounding, compared apart (absolute).
  test::PairSample pairs = heteroscedastic_lines(300, 4);
  pairs.y = Matrix((0.3 * pairs.y.topRows(1).array()).exp());  // a copy: y changes its shape
  LinearOptions options;
  options.variance = LinearVariance::constant;
  options.y_transform = OutputTransformChoice::yeo_johnson;
  double largest_intercept = 0.0;
  testing_mpi::expect_same_model_on_every_sharding(
      pairs.x.cols(),
      [&](const std::vector<Index>& rows, const FitContext& context) {
        nlohmann::json document = conditional_model_to_json(unnamed_model(fit_linear(
            gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), options, context)));
        nlohmann::json& trend = document["model"]["output_trend"];
        largest_intercept =
            std::max(largest_intercept, std::abs(trend["intercept"][0].get<double>()));
        trend.erase("intercept");
        return document;
      },
      "linear, Yeo-Johnson y, 300 pairs", kLinearTolerance);
  EXPECT_LE(largest_intercept, 1e-12);
}

}  // namespace
}  // namespace cdens
