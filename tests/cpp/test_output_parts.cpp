// The parts of the conditional mixture's output side on their own (docs/design.md, "Two fitted
// shapes"): each refuses what it cannot describe, naming it, and its share of the queries agrees
// with a closed form or finite differences.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/output_trend.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "conditional/constant_gate.hpp"
#include "io/json_io.hpp"
#include "model/discrete_outputs.hpp"
#include "model/gaussian_components.hpp"
#include "model/trend_groups.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using detail::DiscreteOutputs;
using detail::GaussianComponents;
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
  const auto refusal = [](std::vector<TrendGroup> groups) {
    return message_of<InvalidArgument>([&] { TrendGroups(std::move(groups), 4, 2, 1); });
  };
  const auto transform = std::make_shared<const OutputTransform>(OutputTransform::log(0.0, 1.0));
  EXPECT_NO_THROW(TrendGroups({{0, line_with_spread(2, 1), transform}, {2, nullptr}}, 4, 2, 1));
  EXPECT_NE(refusal({}).find("start at component 0"), std::string::npos);
  EXPECT_NE(refusal({{1, nullptr}}).find("start at component 0"), std::string::npos);
  EXPECT_NE(refusal({{0, nullptr}, {3, nullptr}, {2, nullptr}}).find("in order"),
            std::string::npos);
  EXPECT_NE(refusal({{0, nullptr}, {4, nullptr}}).find("in order"), std::string::npos);
  EXPECT_NE(refusal({{0, line_with_spread(3, 1)}}).find("d_x inputs to d_y outputs"),
            std::string::npos);
  EXPECT_NE(refusal({{0, line_with_spread(2, 2)}}).find("d_x inputs to d_y outputs"),
            std::string::npos);
}

TEST(TrendGroupsTest, ResidualAndItsJacobianMatchFiniteDifferences) {
  // Group 0: log y, then a line with spread; group 1: y's standardisation and no trend.
  const auto transform = std::make_shared<const OutputTransform>(OutputTransform::log(0.3, 1.7));
  const TrendGroups groups({{0, line_with_spread(2, 1), transform}, {2, nullptr}}, 4, 2, 1);
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
    TrendGroups(written, 4, 2, 1).write_json(document);
    nlohmann::json again;
    TrendGroups(TrendGroups::from_json(document, centers), 4, 2, 1).write_json(again);
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

// y0 and y2 Gaussian, y1 the discrete output of the mixed table above: three components.
Matrix three_row_centers() {
  Matrix centers(3, 3);
  centers << mixed_centers(),  //
      -1.0, 0.5, 2.0;
  return centers;
}

Matrix three_row_scales() {
  Matrix scales(3, 3);
  scales << mixed_scales(),  //
      1.1, 0.4, 0.8;
  return scales;
}

double normal_log_density(double e, double center, double scale) {
  return -0.5 * std::log(2.0 * M_PI * scale * scale) -
         0.5 * (e - center) * (e - center) / (scale * scale);
}

TEST(GaussianComponentsTest, RefusesATableThatIsNotOne) {
  const auto refusal = [](const Matrix& centers, const Matrix& scales) {
    return message_of<InvalidArgument>([&] { GaussianComponents::require_table(centers, scales); });
  };
  EXPECT_NO_THROW(GaussianComponents::require_table(three_row_centers(), three_row_scales()));
  EXPECT_NE(refusal(Matrix::Zero(3, 2), three_row_scales()).find("disagree in shape"),
            std::string::npos);
  EXPECT_NE(refusal(Matrix::Zero(3, 0), Matrix::Zero(3, 0)).find("disagree in shape"),
            std::string::npos);
  for (const double bad : std::vector<double>{0.0, -0.5, INFINITY, std::nan("")}) {
    Matrix scales = three_row_scales();
    scales(2, 1) = bad;
    EXPECT_NE(refusal(three_row_centers(), scales).find("finite and positive"), std::string::npos)
        << bad;
  }
  Matrix centers = three_row_centers();
  centers(0, 2) = INFINITY;
  EXPECT_NE(message_of<DataError>([&] {
              GaussianComponents::require_table(centers, three_row_scales());
            }).find("component centres"),
            std::string::npos);
}

TEST(GaussianComponentsTest, FactorsMomentsAndOverlapsAreThoseOfTheNormalDensities) {
  const Matrix centers = three_row_centers();
  const Matrix scales = three_row_scales();
  const GaussianComponents components(centers, scales, {0, 2});
  const std::vector<Index> rows = {0, 2};
  // log N(e; c_k, diag s_k²) over the Gaussian rows, written out per dimension.
  Matrix points(2, 3);
  points << 0.3, -1.2, 2.5,  //
      0.0, 1.4, -0.7;
  for (Index k = 0; k < 3; ++k) {
    const Eigen::ArrayXd distances = components.squared_distances(k, points);
    for (Index p = 0; p < 3; ++p) {
      double expected = 0.0;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        expected += normal_log_density(points(static_cast<Index>(i), p), centers(rows[i], k),
                                       scales(rows[i], k));
      }
      const Vector point = points.col(p);
      EXPECT_NEAR(components.log_norm(k) - 0.5 * components.squared_distance(k, point), expected,
                  1e-13);
      EXPECT_NEAR(distances(p), components.squared_distance(k, point), 1e-13);
    }
  }
  // Moments: c and s² in the Gaussian rows; the discrete row is the other part's.
  Matrix means = Matrix::Constant(3, 3, 7.0);
  Matrix variances = Matrix::Constant(3, 3, 7.0);
  components.set_moments(means, variances);
  for (const Index r : rows) {
    EXPECT_EQ(means.row(r), centers.row(r));
    EXPECT_TRUE(variances.row(r).isApprox(scales.row(r).array().square().matrix(), 1e-15));
  }
  EXPECT_TRUE((means.row(1).array() == 7.0).all());
  EXPECT_TRUE((variances.row(1).array() == 7.0).all());
  // Overlaps against ∫ N(e; c_k, s_k²) N(e; c_l, s_l²) de by the trapezoid rule per dimension
  // (over ±12 around 0 in steps of 10⁻³: the error is far below 1e-10).
  Matrix overlap = Matrix::Constant(3, 3, 2.0);
  components.multiply_overlaps(overlap);
  for (Index k = 0; k < 3; ++k) {
    for (Index l = 0; l < 3; ++l) {
      double product = 2.0;
      for (const Index r : rows) {
        double integral = 0.0;
        constexpr double kStep = 1e-3;
        for (double e = -12.0; e <= 12.0; e += kStep) {
          integral += kStep * std::exp(normal_log_density(e, centers(r, k), scales(r, k)) +
                                       normal_log_density(e, centers(r, l), scales(r, l)));
        }
        product *= integral;
      }
      EXPECT_NEAR(overlap(k, l), product, 1e-10) << k << ", " << l;
    }
  }
  EXPECT_TRUE(components.same_scales(1));
  EXPECT_FALSE(components.same_scales(2));
}

TEST(GaussianComponentsTest, DrawsFollowTheComponentsNormal) {
  const GaussianComponents components(three_row_centers(), three_row_scales(), {0, 2});
  Rng rng(9);
  EXPECT_NE(message_of<InvalidArgument>([&] { components.draw(1, 0, rng); }).find("not Gaussian"),
            std::string::npos);
  constexpr int kDraws = 40000;
  double sum = 0.0;
  double square = 0.0;
  for (int r = 0; r < kDraws; ++r) {
    const double e = components.draw(2, 0, rng);  // N(−1, 1.1²)
    sum += e;
    square += e * e;
  }
  const double mean = sum / kDraws;
  const double variance = square / kDraws - mean * mean;
  // Five standard errors: σ/√n for the mean, σ² √(2/n) for the variance.
  EXPECT_NEAR(mean, -1.0, 5.0 * 1.1 / std::sqrt(kDraws));
  EXPECT_NEAR(variance, 1.21, 5.0 * 1.21 * std::sqrt(2.0 / kDraws));
}

TEST(MixtureOutputsTest, BuildersComposeThePartsWithTheirDefaults) {
  const MixtureOutputs plain = MixtureOutputs::gaussian(mixed_centers(), mixed_scales());
  ASSERT_EQ(plain.groups().size(), 1u);
  EXPECT_EQ(plain.groups().front().first_component, 0);
  EXPECT_EQ(plain.groups().front().trend, nullptr);
  EXPECT_EQ(plain.groups().front().transform, nullptr);
  ASSERT_EQ(plain.output_kernels().size(), 2u);
  for (const ColumnKernel& kernel : plain.output_kernels()) EXPECT_FALSE(kernel.is_discrete());
  // A builder on a value leaves it as it was; an empty kernel list is all Gaussian.
  const MixtureOutputs mixed = plain.with_output_kernels(mixed_kernels());
  EXPECT_TRUE(mixed.output_kernels()[1].is_discrete());
  EXPECT_FALSE(plain.output_kernels()[1].is_discrete());
  EXPECT_FALSE(mixed.with_output_kernels({}).output_kernels()[1].is_discrete());
  const auto line = line_with_spread(2, 2);
  const MixtureOutputs trended = plain.with_groups({{0, nullptr}, {1, nullptr}}).with_trend(line);
  ASSERT_EQ(trended.groups().size(), 1u);
  EXPECT_EQ(trended.groups().front().trend, line);
  EXPECT_EQ(trended.centers(), mixed_centers());
  EXPECT_EQ(trended.scales(), mixed_scales());
  EXPECT_NE(message_of<InvalidArgument>([] {
              MixtureOutputs::gaussian(mixed_centers(), Matrix::Ones(2, 2));
            }).find("disagree in shape"),
            std::string::npos);
}

TEST(MixtureOutputsTest, TheMixtureRefusesPartsThatCannotGoTogether) {
  const auto gate = std::make_shared<const ConstantGate>(2, Vector::Zero(3));
  const Standardizer x_scaling = Standardizer::identity(2);
  const auto refusal = [&](const Standardizer& y_scaling, const MixtureOutputs& outputs) {
    return message_of<InvalidArgument>(
        [&] { ConditionalMixture(x_scaling, y_scaling, gate, outputs); });
  };
  const MixtureOutputs mixed = MixtureOutputs::gaussian(mixed_centers(), mixed_scales())
                                   .with_output_kernels(mixed_kernels());
  EXPECT_NO_THROW(ConditionalMixture(x_scaling, mixed_scaling(), gate, mixed));
  // The outputs against the gate and the output standardisation.
  EXPECT_NE(refusal(Standardizer::identity(2),
                    MixtureOutputs::gaussian(Matrix::Zero(3, 3), Matrix::Ones(3, 3)))
                .find("centres, scales and gate disagree in shape"),
            std::string::npos);
  EXPECT_NE(refusal(Standardizer::identity(1),
                    MixtureOutputs::gaussian(Matrix::Zero(1, 2), Matrix::Ones(1, 2)))
                .find("centres, scales and gate disagree in shape"),
            std::string::npos);
  // A part's own refusal.
  EXPECT_NE(refusal(mixed_scaling(), mixed.with_output_kernels({ColumnKernel()}))
                .find("one kernel per output dimension"),
            std::string::npos);
  EXPECT_NE(
      refusal(mixed_scaling(), mixed.with_groups({{0, nullptr}, {3, nullptr}})).find("in order"),
      std::string::npos);
  // The rules between parts: a trend moves Gaussian outputs only, a transform maps one
  // continuous output.
  EXPECT_NE(refusal(mixed_scaling(), mixed.with_trend(line_with_spread(2, 2)))
                .find("discrete output y1 takes no trend"),
            std::string::npos);
  const auto transform = std::make_shared<const OutputTransform>(OutputTransform::log(0.0, 1.0));
  EXPECT_NE(
      refusal(mixed_scaling(), mixed.with_output_kernels({}).with_groups({{0, nullptr, transform}}))
          .find("an output transform needs a one-dimensional continuous y"),
      std::string::npos);
  const MixtureOutputs discrete_y =
      MixtureOutputs::gaussian(mixed_centers().row(1), mixed_scales().row(1))
          .with_output_kernels({ColumnKernel(ColumnKind::unordered, kLevels)});
  EXPECT_NO_THROW(ConditionalMixture(x_scaling, Standardizer::identity(1), gate, discrete_y));
  EXPECT_NE(refusal(Standardizer::identity(1), discrete_y.with_groups({{0, nullptr, transform}}))
                .find("an output transform needs a one-dimensional continuous y"),
            std::string::npos);
}

TEST(MixtureOutputsTest, AModelsOutputsRebuildTheSameModel) {
  const auto gate =
      std::make_shared<const ConstantGate>(2, (Vector(3) << 0.0, -1.0, 0.5).finished());
  const ConditionalMixture model(Standardizer::identity(2), mixed_scaling(), gate,
                                 MixtureOutputs::gaussian(mixed_centers(), mixed_scales())
                                     .with_output_kernels(mixed_kernels()));
  const ConditionalMixture rebuilt(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                                   model.outputs());
  EXPECT_EQ(rebuilt.to_json().dump(), model.to_json().dump());
  const Matrix x = Matrix::Constant(2, 1, 0.3);
  const Matrix y = (Matrix(2, 1) << 3.5, 2.0).finished();
  EXPECT_EQ(rebuilt.log_pdf(x, y)(0), model.log_pdf(x, y)(0));
}

}  // namespace
}  // namespace cdens
