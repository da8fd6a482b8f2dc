// Tests of output bounds (support.hpp's OutputBounds, src/model/output_support.hpp): the truncated
// normal's functions against high-precision values and brute-force integrals, and a bounded
// conditional mixture's every query against brute force on a grid of y — its density integrates
// to 1 inside the bounds and is 0 outside, its CDF is the density's integral, its quantiles
// invert the CDF, its draws follow the CDF, its mean, variance, ∫p², CRPS, highest-density
// regions and probabilities are the integrals they stand for — at inputs inside the data and
// where a trend carries every component far beyond a bound. A bound beyond all the mass changes
// nothing, and bounds survive the model file.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/output_trend.hpp"
#include "cdens/evaluation/scores.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "conditional/kernel_gates.hpp"
#include "model/truncated_normal.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using detail::TruncatedPoint;

/// Whether [a, b] reaches within 1 of 0 (where the truncated normal works from τ itself).
bool near_the_bulk(double a, double b) { return a < 1.0 && b > -1.0; }

double normal_density(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI); }

/// ∫ g over [low, high] by Simpson's rule on 200,001 points (error O(h⁴)), the step taken from
/// the ends (a difference of two neighbouring points loses digits far from 0).
template <class Function>
double integrate(const Function& g, double low, double high) {
  constexpr int intervals = 200000;
  const double h = (high - low) / intervals;
  double sum = g(low) + g(high);
  for (int i = 1; i < intervals; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * g(low + i * h);
  return sum * h / 3.0;
}

// log P(a < Z ≤ b) of mpmath at 80 digits (erfc), for intervals whose masses underflow or whose
// ends lie where the asymptotic series of log Q takes over.
TEST(TruncatedNormal, MassesMatchHighPrecisionValuesFarIntoTheTails) {
  EXPECT_NEAR(detail::log_normal_mass(0.0, INFINITY), std::log(0.5), 1e-15);
  EXPECT_NEAR(detail::log_normal_mass(40.0, INFINITY), -804.60844201375379, 1e-12);
  EXPECT_NEAR(detail::log_normal_mass(1e4, INFINITY), -50000010.129278915, 1e-6);
  EXPECT_NEAR(detail::log_normal_mass(-INFINITY, -40.0), -804.60844201375379, 1e-12);
  EXPECT_NEAR(detail::log_normal_mass(5000.0, 5000.001), -12500009.442892509, 1e-6);
  // Either side of the switch to the series at 37: the two forms agree.
  EXPECT_NEAR(detail::log_upper_tail(37.0), detail::log_upper_tail(std::nextafter(37.0, 38.0)),
              1e-12);
  // Within the bulk, against Simpson's rule.
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{
           {-1.0, 2.0}, {3.0, 5.0}, {-5.0, -4.0}, {-0.001, 0.002}, {0.5, 0.6}}) {
    EXPECT_NEAR(std::exp(detail::log_normal_mass(a, b)), integrate(normal_density, a, b),
                1e-13 * (1.0 + std::exp(detail::log_normal_mass(a, b))))
        << "[" << a << ", " << b << "]";
  }
}

TEST(TruncatedNormal, QuantilesInvertTheCdfAndKeepTheirDistanceFromAFarEnd) {
  const std::vector<std::pair<double, double>> intervals = {
      {-INFINITY, INFINITY}, {0.0, INFINITY},   {-1.0, 2.0},        {3.0, 5.0},
      {10.0, INFINITY},      {36.9, 37.2},      {40.0, INFINITY},   {1e4, INFINITY},
      {-INFINITY, -50.0},    {-INFINITY, -1e8}, {5000.0, 5000.001}, {-0.001, 0.002}};
  for (const auto& [a, b] : intervals) {
    for (const double p : {1e-10, 0.01, 0.3, 0.5, 0.9, 1.0 - 1e-9}) {
      const TruncatedPoint point = detail::truncated_normal_quantile(a, b, p, 1.0 - p);
      EXPECT_GE(point.value, a);
      EXPECT_LE(point.value, b);
      EXPECT_GE(point.above_lower, 0.0);
      EXPECT_GE(point.below_upper, 0.0);
      // Relative to p where a finite end is near (its distance carries the digits), absolute
      // within the bulk (where τ itself is all there is: 1.25·10⁻¹⁰ above 0 to 10⁻¹⁶).
      EXPECT_NEAR(
          detail::truncated_normal_cdf(a, b, point), p,
          near_the_bulk(a, b) ? 1e-15 / std::exp(detail::log_normal_mass(a, b)) + 1e-13 : 1e-10 * p)
          << "[" << a << ", " << b << "] p = " << p;
    }
  }
  // Far in a tail the mass sits a sliver 1/a beside the end: the p-quantile is
  // −log(1 − p) / a above it, to the relative precision of the asymptotics (1/a²).
  for (const double a : {1e4, 1e8}) {
    const TruncatedPoint median = detail::truncated_normal_quantile(a, INFINITY, 0.5, 0.5);
    EXPECT_NEAR(median.above_lower, std::log(2.0) / a, 1e-6 * std::log(2.0) / a);
    const TruncatedPoint mirrored = detail::truncated_normal_quantile(-INFINITY, -a, 0.5, 0.5);
    EXPECT_NEAR(mirrored.below_upper, std::log(2.0) / a, 1e-6 * std::log(2.0) / a);
  }
}

TEST(TruncatedNormal, MomentsMatchBruteForceWhereTheClosedFormsWouldCancel) {
  // mpmath at 80 digits from the closed forms, far out: E = λ(a), Var = 1 + a λ − λ².
  const detail::TruncatedMoments far = detail::truncated_normal_moments(40.0, INFINITY);
  EXPECT_NEAR(far.mode + far.mean_offset, 40.024968847207264, 1e-12);
  EXPECT_NEAR(far.variance, 0.00062266837859138877, 1e-14);
  const detail::TruncatedMoments farther = detail::truncated_normal_moments(1e4, INFINITY);
  EXPECT_NEAR(farther.mean_offset, 1e-4 * (1.0 - 2e-8), 1e-15);
  EXPECT_NEAR(farther.variance, 9.99999940000005e-9, 1e-20);
  // Narrow intervals (nearly uniform: variance (b − a)²/12) and bulk ones against Simpson.
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{2.0, 2.0001},
                                                                   {-0.001, 0.002},
                                                                   {-1.0, 2.0},
                                                                   {3.0, 5.0},
                                                                   {-5.0, -4.0},
                                                                   {-3.0, 8.0},
                                                                   {4.5, 7.0},
                                                                   {-8.0, -6.5}}) {
    const double mass = integrate(normal_density, a, b);
    const double mean = integrate([](double x) { return x * normal_density(x); }, a, b) / mass;
    const double variance =
        integrate([&](double x) { return (x - mean) * (x - mean) * normal_density(x); }, a, b) /
        mass;
    const detail::TruncatedMoments moments = detail::truncated_normal_moments(a, b);
    EXPECT_NEAR(moments.mode + moments.mean_offset, mean, 1e-10 * (1.0 + std::abs(mean)))
        << "[" << a << ", " << b << "]";
    EXPECT_NEAR(moments.variance, variance, 1e-8 * variance) << "[" << a << ", " << b << "]";
  }
}

/// A conditional mixture of one input and one output whose three components ride a linear trend
/// with a log-linear spread, μ(z) = 0.2 + 1.5 z, f(z) = e^{0.3 z}, y = 2 + 1.5 t: at z = −4 its
/// components lie tens of spreads below y = 0, at z = −12 thousands.
ConditionalMixture trend_mixture(OutputBounds bounds,
                                 std::shared_ptr<const OutputTransform> transform = nullptr) {
  Matrix gate_centers(1, 3);
  gate_centers << -1.0, 0.0, 1.0;
  Matrix centers(1, 3);
  centers << -1.0, 0.5, 1.5;
  Matrix scales(1, 3);
  scales << 0.3, 0.5, 0.4;
  auto trend = std::make_shared<const LinearTrend>(
      Vector::Constant(1, 0.2), Matrix::Constant(1, 1, 1.5), Matrix::Constant(1, 1, 0.3));
  return ConditionalMixture(Standardizer::identity(1),
                            Standardizer(Vector::Constant(1, 2.0), Vector::Constant(1, 1.5)),
                            std::make_shared<const GaussianKernelGate>(gate_centers, 0.7),
                            MixtureOutputs::gaussian(centers, scales)
                                .with_groups({{0, trend, std::move(transform)}})
                                .with_bounds(bounds));
}

/// Points of y at which brute force integrates a bounded density at one x: evenly spaced over
/// the part of [lower, upper] between the 10⁻¹² and 1 − 10⁻¹² quantiles of the same mixture
/// without bounds, and geometrically spaced from 10⁻¹⁴ to 10⁴ from each finite bound (a
/// component far beyond a bound squeezes its mass into a sliver there), sorted.
std::vector<double> brute_force_points(const ConditionalMixture& model, double x) {
  const ConditionalMixture unbounded(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                                     model.outputs().with_bounds({}));
  const Matrix ends = unbounded.quantiles(Matrix::Constant(1, 1, x), {1e-12, 1.0 - 1e-12});
  const OutputBounds& bounds = model.output_bounds();
  const double low = std::max(ends(0, 0), bounds.y_lower);
  const double high = std::min(ends(1, 0), bounds.y_upper);
  std::vector<double> points;
  if (low < high) {
    for (int i = 0; i <= 40000; ++i) points.push_back(low + (high - low) * i / 40000.0);
  }
  for (int i = 0; i <= 60000; ++i) {
    const double offset = std::pow(10.0, -14.0 + 18.0 * i / 60000.0);
    if (std::isfinite(bounds.y_lower)) points.push_back(bounds.y_lower + offset);
    if (std::isfinite(bounds.y_upper)) points.push_back(bounds.y_upper - offset);
  }
  for (const double bound : {bounds.y_lower, bounds.y_upper}) {
    if (std::isfinite(bound)) points.push_back(bound);
  }
  points.erase(
      std::remove_if(points.begin(), points.end(), [&](double y) { return !bounds.contains(y); }),
      points.end());
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

/// Every query of a bounded mixture at x against brute force on the points above.
void expect_queries_match_brute_force(const ConditionalMixture& model, double x) {
  SCOPED_TRACE("x = " + std::to_string(x));
  const OutputBounds& bounds = model.output_bounds();
  const std::vector<double> points = brute_force_points(model, x);
  const auto n = static_cast<Index>(points.size());
  const Matrix xs = Matrix::Constant(1, n, x);
  const Matrix ys = Eigen::Map<const Matrix>(points.data(), 1, n);
  const Vector density = model.log_pdf(xs, ys).array().exp();
  // The trapezoid rule's running integral: the brute-force CDF at every point.
  Vector cumulative(n);
  cumulative(0) = 0.0;
  double first = 0.0;
  double second = 0.0;
  double square = 0.0;
  for (Index i = 1; i < n; ++i) {
    const double h = points[static_cast<std::size_t>(i)] - points[static_cast<std::size_t>(i - 1)];
    cumulative(i) = cumulative(i - 1) + 0.5 * h * (density(i - 1) + density(i));
    first += 0.5 * h * (points[i - 1] * density(i - 1) + points[i] * density(i));
    square += 0.5 * h * (density(i - 1) * density(i - 1) + density(i) * density(i));
  }
  const double mass = cumulative(n - 1);
  EXPECT_NEAR(mass, 1.0, 1e-6);
  const double mean = first / mass;
  for (Index i = 1; i < n; ++i) {
    const double h = points[static_cast<std::size_t>(i)] - points[static_cast<std::size_t>(i - 1)];
    const double below = points[i - 1] - mean;
    const double above = points[i] - mean;
    second += 0.5 * h * (below * below * density(i - 1) + above * above * density(i));
  }
  const double variance = second / mass;
  const double x_value = x;
  const Matrix one_x = Matrix::Constant(1, 1, x_value);
  EXPECT_NEAR(model.mean(one_x)(0, 0), mean, 1e-6 * (std::abs(mean) + std::sqrt(variance)));
  EXPECT_NEAR(model.covariance(one_x)(0, 0), variance, 1e-5 * variance);
  // ∫p², the CRPS, the regions and their probabilities are numerical (on the grid of
  // transformed_scalar_mixture.hpp): within 10⁻⁵ and 10⁻⁴ relative, and the brute force's own
  // trapezoid rule on this grid is within 10⁻⁶.
  EXPECT_NEAR(model.squared_norm(one_x)(0), square, 1e-5 * square);
  // Outside the bounds: density 0, CDF 0 or 1.
  if (std::isfinite(bounds.y_lower)) {
    const Matrix below = Matrix::Constant(1, 1, bounds.y_lower - 0.5);
    EXPECT_EQ(model.log_pdf(one_x, below)(0), -INFINITY);
    EXPECT_EQ(model.cdf(one_x, below)(0), 0.0);
    EXPECT_EQ(model.pdf_grid(one_x, below)(0, 0), 0.0);
  }
  if (std::isfinite(bounds.y_upper)) {
    const Matrix above = Matrix::Constant(1, 1, bounds.y_upper + 0.5);
    EXPECT_EQ(model.log_pdf(one_x, above)(0), -INFINITY);
    EXPECT_EQ(model.cdf(one_x, above)(0), 1.0);
  }
  // The CDF, the grid of densities, the highest-density probability and the CRPS at a few points
  // spread over the mass.
  Vector cdf = model.cdf(xs, ys);
  const Matrix grid = model.pdf_grid(one_x, ys);
  for (Index i = 0; i < n; i += n / 23) {
    EXPECT_NEAR(cdf(i), cumulative(i) / mass, 2e-6) << "y = " << points[i];
    // (The grid flushes densities below the smallest normal double to 0.)
    EXPECT_NEAR(grid(i, 0), density(i), 1e-12 * density(i) + 1e-300) << "y = " << points[i];
  }
  std::vector<double> probes;
  for (const double p : {0.05, 0.3, 0.6, 0.95}) {
    probes.push_back(model.quantiles(one_x, {p})(0, 0));
  }
  for (const double y : probes) {
    const Matrix at = Matrix::Constant(1, 1, y);
    // P(p(Y) ≥ p(y)) and ∫ (F(z) − 1{z ≥ y})² dz on the brute-force grid.
    const double level = std::exp(model.log_pdf(one_x, at)(0));
    double above_level = 0.0;
    double crps = 0.0;
    for (Index i = 1; i < n; ++i) {
      const double h = points[i] - points[i - 1];
      const auto inside = [&](Index k) { return density(k) >= level ? density(k) : 0.0; };
      above_level += 0.5 * h * (inside(i - 1) + inside(i));
      // (F − 1{z ≥ y})² jumps at y: the step holding y is split there, F interpolated.
      const double f0 = cumulative(i - 1) / mass;
      const double f1 = cumulative(i) / mass;
      if (points[i - 1] < y && y < points[i]) {
        const double share = (y - points[i - 1]) / h;
        const double at_y = f0 + share * (f1 - f0);
        crps += 0.5 * share * h * (f0 * f0 + at_y * at_y) +
                0.5 * (1.0 - share) * h * ((1.0 - at_y) * (1.0 - at_y) + (1.0 - f1) * (1.0 - f1));
        continue;
      }
      const double g0 = f0 - (points[i - 1] >= y ? 1.0 : 0.0);
      const double g1 = f1 - (points[i] >= y ? 1.0 : 0.0);
      crps += 0.5 * h * (g0 * g0 + g1 * g1);
    }
    EXPECT_NEAR(model.highest_density_probability(one_x, at)(0), above_level / mass, 2e-4)
        << "y = " << y;
    EXPECT_NEAR(cdens::crps(model, one_x, at)(0), crps, 1e-4 * crps) << "y = " << y;
  }
  // Quantiles invert the CDF and stay inside the bounds.
  for (const double p : {0.001, 0.05, 0.5, 0.95, 0.999}) {
    const double q = model.quantiles(one_x, {p})(0, 0);
    EXPECT_TRUE(bounds.contains(q)) << "p = " << p;
    EXPECT_NEAR(model.cdf(one_x, Matrix::Constant(1, 1, q))(0), p, 1e-7) << "p = " << p;
  }
  // The highest-density region holds its coverage, and its ends lie at the threshold or at a
  // bound.
  const HighestDensityRegion region = model.highest_density_regions(one_x, 0.9).front();
  double covered = 0.0;
  for (const Interval& interval : region.intervals) {
    covered += model.cdf(one_x, Matrix::Constant(1, 1, interval.upper))(0) -
               model.cdf(one_x, Matrix::Constant(1, 1, interval.lower))(0);
    for (const double end : {interval.lower, interval.upper}) {
      if (end == bounds.y_lower || end == bounds.y_upper) continue;
      EXPECT_NEAR(std::exp(model.log_pdf(one_x, Matrix::Constant(1, 1, end))(0)),
                  region.density_threshold, 1e-6 * region.density_threshold);
    }
  }
  EXPECT_NEAR(covered, 0.9, 1e-6);
  // Draws: inside the bounds and distributed as the CDF says. The Kolmogorov–Smirnov distance of
  // 4,000 draws exceeds 1.95 / √4000 = 0.031 with probability 0.001 under the model.
  const Matrix draws = model.sample(one_x, 4000, 11);
  std::vector<double> sorted(draws.data(), draws.data() + draws.size());
  std::sort(sorted.begin(), sorted.end());
  const Vector at_draws = model.cdf(Matrix::Constant(1, 4000, x_value),
                                    Eigen::Map<const Matrix>(sorted.data(), 1, 4000));
  double distance = 0.0;
  for (Index i = 0; i < 4000; ++i) {
    EXPECT_TRUE(bounds.contains(sorted[static_cast<std::size_t>(i)]));
    distance = std::max(
        {distance, std::abs(at_draws(i) - (i + 1) / 4000.0), std::abs(at_draws(i) - i / 4000.0)});
  }
  EXPECT_LT(distance, 1.95 / std::sqrt(4000.0));
}

TEST(OutputBounds, EveryQueryOfABoundedMixtureMatchesBruteForce) {
  const ConditionalMixture lower = trend_mixture({0.0, INFINITY});
  for (const double x : {-1.0, 0.3, 2.0, -4.0, -12.0}) expect_queries_match_brute_force(lower, x);
  const ConditionalMixture both = trend_mixture({0.0, 12.0});
  for (const double x : {-1.0, 0.5, 3.0, 6.0, -4.0}) expect_queries_match_brute_force(both, x);
}

TEST(OutputBounds, ABoundOnATransformedOutputTruncatesInTheTransformsVariable) {
  // Yeo–Johnson (λ = 0.5) maps y onto the whole line: a lower bound of 0 truncates there.
  const auto yeo_johnson = std::make_shared<const OutputTransform>(
      OutputTransform::yeo_johnson(0.5, 2.0, 1.5, 0.1, 0.9));
  const ConditionalMixture bounded = trend_mixture({0.0, INFINITY}, yeo_johnson);
  for (const double x : {-1.0, 0.5, -4.0}) expect_queries_match_brute_force(bounded, x);
  // The log map keeps y > 0 already: a lower bound of 0 changes nothing, one of 1 truncates.
  const auto log = std::make_shared<const OutputTransform>(OutputTransform::log(0.5, 0.8));
  const ConditionalMixture plain = trend_mixture({}, log);
  const ConditionalMixture at_zero = trend_mixture({0.0, INFINITY}, log);
  const Matrix x = Matrix::Constant(1, 3, -4.0);
  Matrix y(1, 3);
  y << 0.01, 1.0, 7.0;
  EXPECT_TRUE(at_zero.log_pdf(x, y).isApprox(plain.log_pdf(x, y), 1e-14));
  EXPECT_TRUE(at_zero.quantiles(x, {0.1, 0.9}).isApprox(plain.quantiles(x, {0.1, 0.9}), 1e-12));
  expect_queries_match_brute_force(trend_mixture({1.0, INFINITY}, log), 0.5);
}

TEST(OutputBounds, ABoundBeyondTheMassChangesNoAnswer) {
  const ConditionalMixture plain = trend_mixture({});
  const ConditionalMixture bounded = trend_mixture({-1e6, 1e6});
  Matrix x(1, 4);
  x << -1.0, 0.0, 0.7, 2.0;
  Matrix y(1, 4);
  y << 0.5, 2.0, 3.0, 7.0;
  EXPECT_TRUE(bounded.log_pdf(x, y).isApprox(plain.log_pdf(x, y), 1e-13));
  EXPECT_TRUE(bounded.cdf(x, y).isApprox(plain.cdf(x, y), 1e-12));
  EXPECT_TRUE(bounded.mean(x).isApprox(plain.mean(x), 1e-12));
  EXPECT_TRUE(bounded.covariance(x).isApprox(plain.covariance(x), 1e-10));
  EXPECT_TRUE(bounded.quantiles(x, {0.05, 0.5, 0.95})
                  .isApprox(plain.quantiles(x, {0.05, 0.5, 0.95}), 1e-10));
  // The CRPS by quadrature against the closed form of the untruncated mixture.
  EXPECT_TRUE(crps(bounded, x, y).isApprox(crps(plain, x, y), 1e-6));
}

TEST(OutputBounds, FarBeyondABoundEveryAnswerStaysInsideIt) {
  // At z = −1000 the trend puts every component 10¹⁶ spreads below y = 0 (its spread clamped to
  // e⁻³⁰ of theirs): the mass lies within 10⁻²⁹ above 0, where y still has its digits, so the
  // answers are positive, never 0 or below, and never NaN.
  const ConditionalMixture model = trend_mixture({0.0, INFINITY});
  const Matrix x = Matrix::Constant(1, 1, -1000.0);
  const Matrix quantiles = model.quantiles(x, {0.01, 0.5, 0.99});
  EXPECT_TRUE((quantiles.array() > 0.0).all()) << quantiles;
  EXPECT_TRUE((quantiles.array() < 1e-25).all()) << quantiles;
  EXPECT_NEAR(model.cdf(x, quantiles.col(0).transpose().leftCols(1))(0), 0.01, 1e-6);
  EXPECT_GT(model.mean(x)(0, 0), 0.0);
  EXPECT_GT(model.covariance(x)(0, 0), 0.0);
  const Matrix draws = model.sample(x, 200, 3);
  EXPECT_TRUE((draws.array() > 0.0).all());
  EXPECT_TRUE(draws.allFinite());
  const HighestDensityRegion region = model.highest_density_regions(x, 0.9).front();
  EXPECT_GE(region.intervals.front().lower, 0.0);
  EXPECT_TRUE(std::isfinite(model.log_pdf(x, quantiles.col(0).transpose().leftCols(1))(0)));
}

TEST(OutputBounds, FarFromTheDataTheVarianceIsNotCancelledAway) {
  // At z = ±1000 the trend moves every component's mean to ∓10³ while their spreads shrink to
  // e⁻³⁰ of theirs (or grow to e³⁰): Σ π_k (v_k + (m_k − E)²) from the components, written out,
  // against the model's variance (the uncentred Σ π_k (v_k + m_k²) − E² gave −2·10⁻¹⁰ here).
  const ConditionalMixture model = trend_mixture({});
  for (const double z : {-1000.0, 1000.0}) {
    const Matrix x = Matrix::Constant(1, 1, z);
    const ConditionalMixture::ScalarComponents components = model.scalar_components(x);
    const double mean = components.probabilities.col(0).dot(components.centers.col(0));
    double variance = 0.0;
    for (Index k = 0; k < components.centers.rows(); ++k) {
      const double deviation = components.centers(k, 0) - mean;
      variance += components.probabilities(k, 0) *
                  (components.spreads(k, 0) * components.spreads(k, 0) + deviation * deviation);
    }
    EXPECT_NEAR(model.mean(x)(0, 0), mean, 1e-12 * std::abs(mean));
    EXPECT_GT(model.covariance(x)(0, 0), 0.0) << "z = " << z;
    EXPECT_NEAR(model.covariance(x)(0, 0), variance, 1e-9 * variance) << "z = " << z;
  }
}

TEST(OutputBounds, BoundsAreRefusedWhereTheyCannotHold) {
  EXPECT_THROW(trend_mixture({1.0, 1.0}), InvalidArgument);
  EXPECT_THROW(trend_mixture({2.0, 1.0}), InvalidArgument);
  EXPECT_THROW(trend_mixture({NAN, 1.0}), InvalidArgument);
  // An upper bound below the log transform's domain leaves no y.
  EXPECT_THROW(trend_mixture({-INFINITY, -1.0}, std::make_shared<const OutputTransform>(
                                                    OutputTransform::log(0.0, 1.0))),
               InvalidArgument);
  // Two outputs: a bound needs one.
  Matrix centers = Matrix::Zero(2, 1);
  EXPECT_THROW(
      ConditionalMixture(
          Standardizer::identity(1), Standardizer::identity(2),
          std::make_shared<const GaussianKernelGate>(Matrix::Zero(1, 1), 1.0),
          MixtureOutputs::gaussian(centers, Matrix::Ones(2, 1)).with_bounds({0.0, INFINITY})),
      InvalidArgument);
}

TEST(OutputBounds, BoundsSurviveTheModelFileWhichTheyMakeVersionThree) {
  const ConditionalMixture model = trend_mixture({0.0, 12.0});
  Matrix x(1, 3);
  x << -4.0, 0.0, 3.0;
  Matrix y(1, 3);
  y << 0.01, 2.0, 11.0;
  const ConditionalMixture loaded = test::expect_model_file_round_trip(model, FitReport{}, x, y);
  EXPECT_EQ(loaded.output_bounds().y_lower, 0.0);
  EXPECT_EQ(loaded.output_bounds().y_upper, 12.0);
  EXPECT_EQ(conditional_model_to_json({model, {"x"}, {"y"}, FitReport{}, {}})["version"], 3);
  const ConditionalMixture plain = trend_mixture({});
  EXPECT_EQ(conditional_model_to_json({plain, {"x"}, {"y"}, FitReport{}, {}})["version"], 1);
  EXPECT_FALSE(plain.to_json().contains("output_bounds"));
}

TEST(OutputBounds, TheRegistryAppliesTheBoundsAndRefusesTrainingOutputsBeyondThem) {
  const test::PairSample data = test::sine_sample(120, 1, 5);
  Matrix y = data.y.array() - data.y.minCoeff() + 0.1;  // positive
  const MethodEntry& kcde = find_method("kcde");
  OptionValues options = kcde.test_options;
  options["y_lower"] = 0.0;
  options["trend"] = std::string("linear");
  const ConditionalModel model = fit_method(kcde, data.x, y, Matrix(), options);
  EXPECT_EQ(model.mixture.output_bounds().y_lower, 0.0);
  // Far beyond the inputs, where the line has left the data, the answers stay positive.
  const Matrix far = Matrix::Constant(1, 2, 1000.0 * (data.x.maxCoeff() - data.x.minCoeff()));
  Matrix both_sides = far;
  both_sides(0, 1) = -far(0, 0);
  EXPECT_TRUE((model.mixture.quantiles(both_sides, {0.05, 0.5, 0.95}).array() > 0.0).all());
  EXPECT_TRUE((model.mixture.sample(both_sides, 500, 1).array() > 0.0).all());
  options["y_lower"] = 0.2;  // above the smallest training output
  EXPECT_THROW(fit_method(kcde, data.x, y, Matrix(), options), InvalidArgument);
  options["y_lower"] = 0.0;
  options["y_upper"] = -1.0;
  EXPECT_THROW(fit_method(kcde, data.x, y, Matrix(), options), InvalidArgument);
  options.erase("y_upper");
  EXPECT_THROW(fit_method(kcde, data.x, Matrix(y.replicate(2, 1)), Matrix(), options),
               InvalidArgument);
}

}  // namespace
}  // namespace cdens
