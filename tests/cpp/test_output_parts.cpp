// The parts of the conditional mixture's output side on their own (docs/design.md, "Two fitted
// shapes"): each refuses what it cannot describe, naming it, and its share of the queries agrees
// with a closed form or finite differences.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/output_trend.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "core/discrete_outputs.hpp"
#include "core/json_io.hpp"
#include "core/trend_groups.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using detail::DiscreteOutputs;
using detail::TrendGroups;
using test::message_of;

// y0 continuous, y1 unordered over {0, 2, 5}; three components, λ = 0.3 on y1.
constexpr double kLambda = 0.3;
const std::vector<double> kLevels = {0.0, 2.0, 5.0};

ColumnKernels mixed_kernels() {
  return {ColumnKernel(), ColumnKernel(ColumnKind::unordered, kLevels)};
}

Matrix mixed_centers() {
  Matrix centers(2, 3);
  centers << 0.1, -0.4, 1.0,  //
      2.0, 5.0, 2.0;
  return centers;
}

Matrix mixed_scales() {
  Matrix scales(2, 3);
  scales << 0.5, 0.7, 0.9,  //
      kLambda, kLambda, kLambda;
  return scales;
}

Standardizer mixed_scaling() {
  return Standardizer((Vector(2) << 3.0, 0.0).finished(), (Vector(2) << 2.0, 1.0).finished());
}

// Aitchison–Aitken over c = 3 levels: p(a | b) = 1 − λ at a = b, λ / 2 elsewhere.
double aitchison_aitken(double a, double b) { return a == b ? 1.0 - kLambda : kLambda / 2.0; }

TEST(DiscreteOutputsTest, RefusesWhatADiscreteOutputCannotBe) {
  const auto refusal = [](ColumnKernels kernels, const Standardizer& scaling, const Matrix& centers,
                          const Matrix& scales) {
    return message_of<InvalidArgument>(
        [&] { DiscreteOutputs(std::move(kernels), scaling, centers, scales); });
  };
  EXPECT_NO_THROW(
      DiscreteOutputs(mixed_kernels(), mixed_scaling(), mixed_centers(), mixed_scales()));
  EXPECT_NE(refusal({ColumnKernel()}, mixed_scaling(), mixed_centers(), mixed_scales())
                .find("one kernel per output dimension"),
            std::string::npos);
  EXPECT_NE(
      refusal(mixed_kernels(),
              Standardizer((Vector(2) << 3.0, 1.0).finished(), (Vector(2) << 2.0, 1.0).finished()),
              mixed_centers(), mixed_scales())
          .find("discrete output y1 must not be standardised"),
      std::string::npos);
  Matrix varying = mixed_scales();
  varying(1, 2) = 0.2;
  EXPECT_NE(refusal(mixed_kernels(), mixed_scaling(), mixed_centers(), varying)
                .find("the same for every component"),
            std::string::npos);
  Matrix too_smooth = mixed_scales();
  too_smooth.row(1).setConstant(0.9);  // above (c − 1)/c = 2/3
  EXPECT_FALSE(refusal(mixed_kernels(), mixed_scaling(), mixed_centers(), too_smooth).empty());
  Matrix off_level = mixed_centers();
  off_level(1, 0) = 1.0;
  EXPECT_NE(refusal(mixed_kernels(), mixed_scaling(), off_level, mixed_scales())
                .find("must be its levels"),
            std::string::npos);
}

TEST(DiscreteOutputsTest, MassesMomentsAndOverlapsAreThoseOfTheKernel) {
  const DiscreteOutputs outputs(mixed_kernels(), mixed_scaling(), mixed_centers(), mixed_scales());
  ASSERT_EQ(outputs.gaussian_rows(), std::vector<Index>{0});
  const Matrix centers = mixed_centers();
  // Log masses at a level, and −∞ for every component at a value that is none of them.
  Vector values = Vector::Zero(3);
  outputs.add_log_masses((Vector(2) << 0.0, 5.0).finished(), values);
  for (Index k = 0; k < 3; ++k) {
    EXPECT_NEAR(values(k), std::log(aitchison_aitken(5.0, centers(1, k))), 1e-14);
  }
  outputs.add_log_masses((Vector(2) << 0.0, 4.0).finished(), values);
  EXPECT_TRUE((values.array() == -INFINITY).all());
  // Moments over the levels; the Gaussian row is left as it was.
  Matrix means = Matrix::Constant(2, 3, 7.0);
  Matrix variances = Matrix::Constant(2, 3, 7.0);
  outputs.set_moments(means, variances);
  for (Index k = 0; k < 3; ++k) {
    double mean = 0.0;
    double square = 0.0;
    for (const double a : kLevels) {
      mean += aitchison_aitken(a, centers(1, k)) * a;
      square += aitchison_aitken(a, centers(1, k)) * a * a;
    }
    EXPECT_NEAR(means(1, k), mean, 1e-13);
    EXPECT_NEAR(variances(1, k), square - mean * mean, 1e-12);
    EXPECT_EQ(means(0, k), 7.0);
    EXPECT_EQ(variances(0, k), 7.0);
  }
  // Overlaps: Σ_a p(a | c_k) p(a | c_l), (1 − λ)² + 2 (λ/2)² for equal centres.
  Matrix overlap = Matrix::Ones(3, 3);
  outputs.multiply_overlaps(overlap);
  const double same = std::pow(1.0 - kLambda, 2) + 2.0 * std::pow(kLambda / 2.0, 2);
  const double other = 2.0 * (1.0 - kLambda) * kLambda / 2.0 + std::pow(kLambda / 2.0, 2);
  EXPECT_NEAR(overlap(0, 2), same, 1e-14);
  EXPECT_NEAR(overlap(0, 1), other, 1e-14);
  EXPECT_NEAR(overlap(1, 1), same, 1e-14);
}

TEST(DiscreteOutputsTest, DrawsFollowTheComponentsMasses) {
  const DiscreteOutputs outputs(mixed_kernels(), mixed_scaling(), mixed_centers(), mixed_scales());
  Rng rng(5);
  EXPECT_THROW(outputs.draw(0, 0, rng), InvalidArgument);
  constexpr int kDraws = 40000;
  std::vector<int> counts(kLevels.size(), 0);
  for (int r = 0; r < kDraws; ++r) {
    const double level = outputs.draw(1, 1, rng);  // component 1 sits at level 5
    for (std::size_t a = 0; a < kLevels.size(); ++a) counts[a] += level == kLevels[a] ? 1 : 0;
  }
  for (std::size_t a = 0; a < kLevels.size(); ++a) {
    const double p = aitchison_aitken(kLevels[a], 5.0);
    // Five binomial standard deviations: a false alarm once in about 3·10⁶ runs.
    EXPECT_NEAR(counts[a] / double(kDraws), p, 5.0 * std::sqrt(p * (1.0 - p) / kDraws));
  }
}

std::shared_ptr<const OutputTrend> line_with_spread(Index d_x, Index d_y) {
  return std::make_shared<const LinearTrend>(Vector::Constant(d_y, 0.2),
                                             Matrix::Constant(d_y, d_x, 0.5),
                                             Matrix::Constant(d_y, d_x, -0.3));
}

TEST(TrendGroupsTest, RefusesGroupsAMixtureCannotHave) {
  const auto refusal = [](std::vector<TrendGroup> groups, Index d_y,
                          const std::vector<Index>& discrete) {
    return message_of<InvalidArgument>(
        [&] { TrendGroups(std::move(groups), 4, 2, d_y, discrete); });
  };
  const auto transform = std::make_shared<const OutputTransform>(OutputTransform::log(0.0, 1.0));
  EXPECT_NO_THROW(TrendGroups({{0, line_with_spread(2, 1), transform}, {2, nullptr}}, 4, 2, 1, {}));
  EXPECT_NE(refusal({}, 1, {}).find("start at component 0"), std::string::npos);
  EXPECT_NE(refusal({{1, nullptr}}, 1, {}).find("start at component 0"), std::string::npos);
  EXPECT_NE(refusal({{0, nullptr}, {3, nullptr}, {2, nullptr}}, 1, {}).find("in order"),
            std::string::npos);
  EXPECT_NE(refusal({{0, nullptr}, {4, nullptr}}, 1, {}).find("in order"), std::string::npos);
  EXPECT_NE(refusal({{0, line_with_spread(3, 1)}}, 1, {}).find("d_x inputs to d_y outputs"),
            std::string::npos);
  EXPECT_NE(refusal({{0, line_with_spread(2, 2)}}, 2, {1}).find("y1 takes no trend"),
            std::string::npos);
  EXPECT_NE(refusal({{0, nullptr, transform}}, 2, {}).find("one-dimensional continuous y"),
            std::string::npos);
  EXPECT_NE(refusal({{0, nullptr, transform}}, 1, {0}).find("one-dimensional continuous y"),
            std::string::npos);
}

TEST(TrendGroupsTest, ResidualAndItsJacobianMatchFiniteDifferences) {
  // Group 0: log y, then a line with spread; group 1: y's standardisation and no trend.
  const auto transform = std::make_shared<const OutputTransform>(OutputTransform::log(0.3, 1.7));
  const TrendGroups groups({{0, line_with_spread(2, 1), transform}, {2, nullptr}}, 4, 2, 1, {});
  const Standardizer y_scaling((Vector(1) << 1.5).finished(), (Vector(1) << 0.8).finished());
  const Matrix z = Matrix::Constant(2, 1, 0.4);
  const detail::GroupMaps maps = groups.maps(z);
  EXPECT_EQ(maps.shifts[1](0, 0), 0.0);
  EXPECT_EQ(maps.factors[1](0, 0), 1.0);
  const auto residual = [&](std::size_t g, double y, double& log_jacobian) {
    Vector target = y_scaling.transform(Matrix::Constant(1, 1, y)).col(0);
    log_jacobian = groups.to_residual(g, y, y_scaling.log_jacobian(), &maps, 0, target);
    return target(0);
  };
  for (std::size_t g = 0; g < 2; ++g) {
    for (const double y : {0.4, 1.1, 3.0}) {
      double log_jacobian = 0.0;
      const double e = residual(g, y, log_jacobian);
      double unused = 0.0;
      constexpr double kStep = 1e-6;
      const double derivative =
          (residual(g, y + kStep, unused) - residual(g, y - kStep, unused)) / (2.0 * kStep);
      // The returned log-Jacobian is log |∂e/∂y| less the standardisation's.
      EXPECT_NEAR(log_jacobian + y_scaling.log_jacobian(), std::log(std::abs(derivative)), 1e-8);
      // The variable the group's components describe, back to y through the group's map.
      const double t = maps.center(g, 0, 0, e);
      EXPECT_NEAR(groups.to_output(g, 0, t, y_scaling), y, 1e-12 * y);
    }
  }
  Vector target = Vector::Zero(1);
  EXPECT_EQ(groups.to_residual(0, -1.0, y_scaling.log_jacobian(), &maps, 0, target), -INFINITY);
}

TEST(TrendGroupsTest, ModelFileMembersRoundTrip) {
  const auto transform = std::make_shared<const OutputTransform>(OutputTransform::log(0.3, 1.7));
  Matrix centers = Matrix::Zero(1, 4);
  for (const std::vector<TrendGroup>& written :
       {std::vector<TrendGroup>{{0, line_with_spread(2, 1), transform}},
        std::vector<TrendGroup>{{0, line_with_spread(2, 1), transform}, {2, nullptr}},
        std::vector<TrendGroup>{{0, nullptr}}}) {
    nlohmann::json document;
    TrendGroups(written, 4, 2, 1, {}).write_json(document);
    nlohmann::json again;
    TrendGroups(TrendGroups::from_json(document, centers), 4, 2, 1, {}).write_json(again);
    EXPECT_EQ(again.dump(), document.dump());
    EXPECT_EQ(written.size() == 1, !document.contains("trend_groups"));
  }
  // A file from before trends had a kind: Γ widened the one component about its centre, which
  // becomes the line's intercept.
  const nlohmann::json legacy = {{"trend", matrix_to_json(Matrix::Constant(1, 2, 0.5))},
                                 {"scale_trend", matrix_to_json(Matrix::Constant(1, 2, -0.3))}};
  Matrix one = Matrix::Constant(1, 1, 0.2);
  const std::vector<TrendGroup> read = TrendGroups::from_json(legacy, one);
  EXPECT_EQ(one(0, 0), 0.0);
  const Matrix z = Matrix::Constant(2, 1, 0.4);
  EXPECT_NEAR(read.front().trend->location(z)(0, 0), line_with_spread(2, 1)->location(z)(0, 0),
              1e-15);
  EXPECT_NEAR(read.front().trend->scale(z)(0, 0), line_with_spread(2, 1)->scale(z)(0, 0), 1e-15);
}

}  // namespace
}  // namespace cdens
