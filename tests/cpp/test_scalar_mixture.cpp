// Tests of the highest-density searches of a one-dimensional Gaussian mixture (ScalarMixture,
// and ConditionalMixture's HPD queries built on it) against a brute-force search: every
// component's density summed on a uniform grid much finer than any component, each sign change
// of pdf − f refined by bisection, and the set's probability from the exact CDF. The fast search
// shares its grid points between overlapping components, leaves out components of negligible
// total probability, merges components of equal centre and scale, and refines crossings by
// Newton steps; none of that may move a value beyond the tolerances below.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "cdens/conditional/kcde.hpp"
#include "cdens/core/rng.hpp"
#include "model/cdf_inversion.hpp"
#include "model/scalar_mixture.hpp"
#include "model/tabulated_normal_cdf.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kInverseSqrt2Pi = 0.39894228040143267794;

/// A mixture by its parts, with every query written out term by term.
struct Parts {
  Vector weights;
  Vector centers;
  Vector scales;

  double pdf(double t) const {
    double total = 0.0;
    for (Index k = 0; k < weights.size(); ++k) {
      const double z = (t - centers(k)) / scales(k);
      total += weights(k) * kInverseSqrt2Pi / scales(k) * std::exp(-0.5 * z * z);
    }
    return total;
  }
  double cdf(double t) const {
    double total = 0.0;
    for (Index k = 0; k < weights.size(); ++k) {
      total += weights(k) * 0.5 * std::erfc(-(t - centers(k)) / (scales(k) * std::sqrt(2.0)));
    }
    return total;
  }
  detail::ScalarMixture mixture() const { return {weights, centers, scales}; }
};

/// `count` components drawn in turn from `rng`: a weight `floor` + U(0, 1) (the weights then
/// normalised to sum to one), then the (centre, scale) `draw(k)` gives.
template <class Draw>
Parts random_parts(Rng& rng, Index count, double floor, Draw draw) {
  Parts parts{Vector(count), Vector(count), Vector(count)};
  for (Index k = 0; k < count; ++k) {
    parts.weights(k) = floor + rng.uniform();
    std::tie(parts.centers(k), parts.scales(k)) = draw(k);
  }
  parts.weights /= parts.weights.sum();
  return parts;
}

/// Brute force: the superlevel set {pdf ≥ f} on a uniform grid of `points` points over every
/// component's c ± 12 s, its ends bisected to 1e-14.
class BruteForce {
 public:
  BruteForce(const Parts& parts, Index points) : parts_(parts) {
    const double low = (parts.centers.array() - 12.0 * parts.scales.array()).minCoeff();
    const double high = (parts.centers.array() + 12.0 * parts.scales.array()).maxCoeff();
    grid_ = Vector::LinSpaced(points, low, high);
    // Parts::pdf at every grid point, the same terms summed component by component in arrays.
    densities_ = Vector::Zero(points);
    for (Index k = 0; k < parts.weights.size(); ++k) {
      const Eigen::ArrayXd z = (grid_.array() - parts.centers(k)) / parts.scales(k);
      densities_.array() +=
          parts.weights(k) * kInverseSqrt2Pi / parts.scales(k) * (-0.5 * z.square()).exp();
    }
  }

  /// The set {pdf ≥ f}; with `point` (where pdf = f) among the grid's points, so that its own
  /// interval is found however narrow.
  std::vector<Interval> superlevel_set(double f, double point = NAN) const {
    // The grid's points in order, `point` inserted at index `at` when given.
    const Index points = grid_.size();
    const Index at =
        std::isnan(point)
            ? points + 1
            : std::lower_bound(grid_.data(), grid_.data() + points, point) - grid_.data();
    const Index n = std::isnan(point) ? points : points + 1;
    const auto grid = [&](Index g) { return g < at ? grid_(g) : g == at ? point : grid_(g - 1); };
    const auto density = [&](Index g) {
      return g < at ? densities_(g) : g == at ? f : densities_(g - 1);
    };
    std::vector<Interval> set;
    for (Index g = 0; g < n; ++g) {
      if (density(g) < f) continue;
      const Index first = g;
      while (g + 1 < n && density(g + 1) >= f) ++g;
      const double lower = first > 0 ? bisect(grid(first - 1), grid(first), f) : grid(first);
      const double upper = g + 1 < n ? bisect(grid(g + 1), grid(g), f) : grid(g);
      set.push_back({lower, upper});
    }
    return set;
  }

  double probability(const std::vector<Interval>& set) const {
    double total = 0.0;
    for (const auto& interval : set) {
      total += parts_.cdf(interval.upper) - parts_.cdf(interval.lower);
    }
    return total;
  }

  double probability_above(double f) const { return probability(superlevel_set(f)); }
  /// P(pdf(T) ≥ pdf(t)).
  double probability_at_least_as_dense(double t) const {
    return probability(superlevel_set(parts_.pdf(t), t));
  }

  /// The threshold whose set has probability `coverage`, by bisection.
  double threshold_of(double coverage) const {
    double low = 0.0;
    double high = densities_.maxCoeff();
    while (high - low > 1e-14 * high) {
      const double middle = 0.5 * (low + high);
      (probability_above(middle) >= coverage ? low : high) = middle;
    }
    return low;
  }

 private:
  double bisect(double below, double above, double f) const {
    for (int iteration = 0; iteration < 200; ++iteration) {
      const double middle = 0.5 * (below + above);
      if (std::abs(above - below) <= 1e-14 * (1.0 + std::abs(middle))) break;
      (parts_.pdf(middle) >= f ? above : below) = middle;
    }
    return 0.5 * (below + above);
  }

  const Parts& parts_;
  Vector grid_;
  Vector densities_;
};

/// Mixtures that stress the search: many overlapping kernels of one width (a KCDE), widths from
/// 1e-3 to 3 side by side, two far-apart modes, and a few components of negligible weight far
/// away from the rest.
std::vector<Parts> hard_mixtures() {
  Rng rng(17, 0);
  std::vector<Parts> mixtures;
  {
    Parts kernels{Vector(400), Vector(400), Vector::Constant(400, 0.15)};
    for (Index k = 0; k < 400; ++k) {
      kernels.weights(k) = std::exp(2.0 * rng.normal());
      kernels.centers(k) = k % 3 == 0 ? rng.normal() : 2.5 + 0.4 * rng.normal();
    }
    kernels.weights /= kernels.weights.sum();
    mixtures.push_back(kernels);
  }
  {
    Parts widths{Vector(6), Vector(6), Vector(6)};
    widths.weights << 0.3, 0.1, 0.2, 0.15, 0.05, 0.2;
    widths.centers << 0.0, 0.01, 0.5, 3.0, 3.002, -4.0;
    widths.scales << 1.0, 1e-3, 0.05, 3.0, 2e-3, 0.3;
    mixtures.push_back(widths);
  }
  {
    Parts far{Vector(2), Vector(2), Vector(2)};
    far.weights << 0.7, 0.3;
    far.centers << -50.0, 80.0;
    far.scales << 1.0, 2.0;
    mixtures.push_back(far);
  }
  {
    Parts negligible{Vector(8), Vector(8), Vector(8)};
    negligible.weights << 0.5, 0.5 - 4e-15, 1e-15, 1e-15, 1e-15, 1e-15, 0.0, 0.0;
    negligible.centers << 0.0, 1.5, -30.0, 40.0, 0.7, 1e3, 5.0, 6.0;
    negligible.scales << 0.5, 0.4, 0.01, 1.0, 1e-4, 1.0, 1.0, 1.0;
    mixtures.push_back(negligible);
  }
  return mixtures;
}

TEST(ScalarMixtureSearch, HighestDensityProbabilityEqualsTheBruteForceSearch) {
  for (const Parts& parts : hard_mixtures()) {
    const BruteForce brute(parts, 400001);
    const detail::ScalarMixture mixture = parts.mixture();
    // Points spread over the mixture, the far tails and the components' centres included (the
    // set of a centre's density can be a sliver beside a mode, narrower than any grid).
    const double low = (parts.centers.array() - 6.0 * parts.scales.array()).minCoeff();
    const double high = (parts.centers.array() + 6.0 * parts.scales.array()).maxCoeff();
    for (const double t : std::vector<double>(Vector::LinSpaced(37, low, high).begin(),
                                              Vector::LinSpaced(37, low, high).end())) {
      EXPECT_NEAR(mixture.highest_density_probability(t), brute.probability_at_least_as_dense(t),
                  1e-9)
          << "at " << t << " of a mixture of " << parts.weights.size();
    }
    for (const double t : parts.centers) {
      EXPECT_NEAR(mixture.highest_density_probability(t), brute.probability_at_least_as_dense(t),
                  1e-9)
          << "at the centre " << t << " of a mixture of " << parts.weights.size();
    }
  }
}

TEST(ScalarMixtureSearch, HighestDensityRegionsEqualTheBruteForceSearch) {
  for (const Parts& parts : hard_mixtures()) {
    const BruteForce brute(parts, 400001);
    const detail::ScalarMixture mixture = parts.mixture();
    for (const double coverage : {0.05, 0.5, 0.9, 0.99}) {
      const HighestDensityRegion region = mixture.highest_density_region(coverage);
      // The region holds its probability and is the brute-force set of its threshold.
      EXPECT_NEAR(brute.probability(region.intervals), coverage, 1e-9);
      EXPECT_NEAR(region.density_threshold, brute.threshold_of(coverage),
                  1e-9 * region.density_threshold + 1e-14);
      const std::vector<Interval> expected = brute.superlevel_set(region.density_threshold);
      ASSERT_EQ(region.intervals.size(), expected.size()) << "coverage " << coverage;
      for (std::size_t r = 0; r < expected.size(); ++r) {
        EXPECT_NEAR(region.intervals[r].lower, expected[r].lower, 1e-7);
        EXPECT_NEAR(region.intervals[r].upper, expected[r].upper, 1e-7);
      }
    }
  }
}

TEST(ScalarMixtureSearch, ComponentsOfEqualCentreAndScaleGiveTheSameQueriesMerged) {
  // A KCDE of an integer y: every component sits on one of a few levels with one width.
  test::PairSample data = test::sine_sample(300, 1, 3);
  data.y = (4.0 * data.y.array()).round();
  KcdeOptions options;
  const ConditionalMixture model = fit_kcde(data.x, data.y, options).model;
  const Matrix x = data.x.leftCols(12);
  const Matrix y = (data.y.leftCols(12).array() + 0.3).matrix();
  const Matrix pi = model.component_probabilities(x);
  const Matrix e = model.residuals(x, y);
  const Vector hpd = model.highest_density_probability(x, y);
  const Vector cdf = model.cdf(x, y);
  const Matrix quantiles = model.quantiles(x, {0.1, 0.5, 0.9});
  const auto regions = model.highest_density_regions(x, 0.8);
  const double scale = model.y_scaling().scale()(0);
  for (Index j = 0; j < x.cols(); ++j) {
    // The mixture of every component, unmerged.
    const Parts parts{pi.col(j), model.centers().row(0).transpose(),
                      model.scales().row(0).transpose()};
    const BruteForce brute(parts, 200001);
    EXPECT_NEAR(hpd(j), brute.probability_at_least_as_dense(e(0, j)), 1e-9) << "pair " << j;
    EXPECT_NEAR(cdf(j), parts.cdf(e(0, j)), 1e-13);
    EXPECT_NEAR(parts.cdf((quantiles(1, j) - model.y_scaling().mean()(0)) / scale), 0.5, 1e-12);
    double width = 0.0;
    for (const auto& interval : regions[static_cast<std::size_t>(j)].intervals) {
      width += interval.upper - interval.lower;
    }
    double expected_width = 0.0;
    for (const auto& interval : brute.superlevel_set(brute.threshold_of(0.8))) {
      expected_width += interval.upper - interval.lower;
    }
    EXPECT_NEAR(width, scale * expected_width, 1e-7 * scale);
  }
}

/// E|N(m, v)|, written out.
double absolute_normal_mean(double m, double variance) {
  const double sd = std::sqrt(variance);
  return 2.0 * sd * kInverseSqrt2Pi * std::exp(-0.5 * m * m / variance) +
         m * std::erf(m / (sd * std::sqrt(2.0)));
}

TEST(ScalarMixtureCrps, ManyComponentsGiveThePairsClosedForm) {
  // E|T − T′| of many narrow components by the trapezoidal rule on 2∫F(1 − F) (more components
  // than grid points) against every pair's E|N(c_k − c_l, s_k² + s_l²)|; E|T − t| is the sum of
  // every component's term. Widths 0.01 and 0.02, centres in [0, 1]: about 250 grid points.
  Rng rng(41);
  const Index count = 1500;
  const Parts parts = random_parts(rng, count, 0.1, [&](Index k) {
    return std::pair{std::pow(rng.uniform(), 2.0), k % 2 == 0 ? 0.01 : 0.02};
  });
  double pairs = 0.0;
  for (Index k = 0; k < count; ++k) {
    for (Index l = 0; l < count; ++l) {
      pairs += parts.weights(k) * parts.weights(l) *
               absolute_normal_mean(
                   parts.centers(k) - parts.centers(l),
                   parts.scales(k) * parts.scales(k) + parts.scales(l) * parts.scales(l));
    }
  }
  const detail::ScalarMixture mixture = parts.mixture();
  EXPECT_NEAR(mixture.mean_absolute_difference(), pairs, 1e-11);  // the pairs' rounding
  for (const double t : {-0.3, 0.0, 0.2, 0.5, 1.4}) {
    double deviation = 0.0;
    for (Index k = 0; k < count; ++k) {
      deviation += parts.weights(k) *
                   absolute_normal_mean(parts.centers(k) - t, parts.scales(k) * parts.scales(k));
    }
    EXPECT_NEAR(mixture.crps(t), deviation - 0.5 * pairs, 1e-11) << t;
  }
}

TEST(ScalarMixtureBatch, DensitiesAndCdfsAtManyPointsEqualEveryComponentSummed) {
  // Widths from 10⁻³ to 10 (a component's window of ten widths holds few points or all of them),
  // centres spread over [−20, 20] with ties, and points in no order with repeats, some far beyond
  // every component: each density within 10⁻¹⁴ of the sum of every term (plus the terms left out,
  // each below 2·10⁻²² of its peak), each CDF within count·ε of it (the bound on the rounding of a
  // sum of count terms below one, summed in another order; 1.2·10⁻¹⁵ was seen near F = 1 in the
  // generic x86-64 build).
  Rng rng(43);
  const Index count = 400;
  const Parts parts = random_parts(rng, count, 0.01, [&](Index k) {
    return std::pair{k % 7 == 0 ? 1.5 : 40.0 * rng.uniform() - 20.0,
                     std::pow(10.0, 4.0 * rng.uniform() - 3.0)};
  });
  std::vector<double> points;
  for (int g = 0; g < 3000; ++g) points.push_back(80.0 * rng.uniform() - 40.0);
  points.insert(points.end(), {1.5, 1.5, -1e3, 1e3, parts.centers(3)});
  const detail::ScalarMixture mixture = parts.mixture();
  std::vector<double> densities;
  std::vector<double> probabilities;
  mixture.pdfs_and_cdfs(points, &densities, &probabilities);
  ASSERT_EQ(densities.size(), points.size());
  ASSERT_EQ(probabilities.size(), points.size());
  double peaks = 0.0;
  for (Index k = 0; k < count; ++k) peaks += parts.weights(k) * kInverseSqrt2Pi / parts.scales(k);
  for (std::size_t g = 0; g < points.size(); ++g) {
    const double density = parts.pdf(points[g]);
    EXPECT_NEAR(densities[g], density, 1e-14 * density + 2e-22 * peaks) << points[g];
    EXPECT_NEAR(probabilities[g], parts.cdf(points[g]),
                static_cast<double>(count) * std::numeric_limits<double>::epsilon())
        << points[g];
  }
  std::vector<double> only_probabilities;
  mixture.pdfs_and_cdfs(points, nullptr, &only_probabilities);
  EXPECT_EQ(only_probabilities, probabilities);
}

TEST(NormalCdfTable, WithinItsStatedErrorOfTheExactCdfAndNondecreasing) {
  const detail::NormalCdfTable& table = detail::NormalCdfTable::instance();
  double worst = 0.0;
  double before = 0.0;
  double drop = 0.0;                      // the largest fall from one point to the next
  for (Index i = 0; i <= 2200000; ++i) {  // [−11, 11] at steps of 10⁻⁵: 128 points a cell
    const double z = -11.0 + 1e-5 * static_cast<double>(i);
    const double value = table.cdf(z);
    worst = std::max(worst, std::abs(value - 0.5 * std::erfc(-z / std::sqrt(2.0))));
    drop = std::max(drop, before - value);
    before = value;
  }
  EXPECT_LE(worst, detail::kTabulatedNormalCdfError);
  EXPECT_GT(worst, 0.1 * detail::kTabulatedNormalCdfError);  // the bound is near the real error
  // Nondecreasing but for the rounding of the four terms of values near 1 (3 units in their last
  // place).
  EXPECT_LE(drop, 2.0 * std::numeric_limits<double>::epsilon());
}

TEST(ScalarMixtureCrps, ATolerantMixtureMovesEveryAnswerByItsStatedErrorsAtMost) {
  // 800 components of widths 0.01–0.05 over [0, 1]. At the least tabulated tolerance τ = 10⁻⁹
  // every CDF is within the table's error of the exact mixture's (the weights sum to one) and each
  // quantile's exact CDF within it of its probability. At τ = 10⁻⁹ and at the default 10⁻⁶,
  // E|T − T′| = 2∫F(1 − F) on the coarser grid moves by at most twice the CDF's error (the
  // table's and the windows' τ/16) times the range integrated plus τ/16 of itself (aliasing), and
  // ∫p² by at most τ/4 of itself (densities within τ/8 of their components' peaks, aliasing
  // τ/16).
  Rng rng(43);
  const Parts parts = random_parts(rng, 800, 0.1, [&](Index) {
    return std::pair{rng.uniform(), 0.01 + 0.04 * rng.uniform()};
  });
  const detail::ScalarMixture exact = parts.mixture();
  constexpr double kError = detail::kTabulatedNormalCdfError;
  const detail::ScalarMixture tabulated(parts.weights, parts.centers, parts.scales,
                                        detail::ScalarMixture::kTabulatedCdfTolerance);
  for (Index i = 0; i <= 400; ++i) {
    const double t = -0.5 + 2.0 * static_cast<double>(i) / 400.0;
    EXPECT_NEAR(tabulated.cdf(t), exact.cdf(t), kError + 1e-15) << t;
  }
  for (const double p : {1e-6, 0.01, 0.3, 0.5, 0.77, 0.99, 1.0 - 1e-6}) {
    EXPECT_NEAR(exact.cdf(tabulated.quantile(p)), p, kError + 1e-14) << p;
  }
  const double range = 1.0 + 2.0 * 10.0 * 0.05;
  const double difference = exact.mean_absolute_difference();
  const double norm = exact.squared_norm();
  for (const double tolerance : {detail::ScalarMixture::kTabulatedCdfTolerance, 1e-6}) {
    const detail::ScalarMixture tolerant(parts.weights, parts.centers, parts.scales, tolerance);
    const double share = tolerance / 16.0;
    EXPECT_NEAR(tolerant.mean_absolute_difference(), difference,
                2.0 * range * (kError + share) + share * difference + 1e-14)
        << tolerance;
    EXPECT_NE(tolerant.mean_absolute_difference(), difference) << tolerance;
    EXPECT_NEAR(tolerant.squared_norm(), norm, 0.25 * tolerance * norm) << tolerance;
    EXPECT_NE(tolerant.squared_norm(), norm) << tolerance;
  }
}

TEST(CdfInversion, StopsOnceANewtonStepIsWithinTolerance) {
  // The standard normal's quantiles from the middle of a wide bracket: Newton converges in a few
  // steps. A converged step that lands on the end of the bracket just set (a step below rounding)
  // once bisected the whole bracket down again, about 40 evaluations more.
  int most = 0;
  for (int percent = 1; percent < 100; ++percent) {
    const double p = percent / 100.0;
    int evaluations = 0;
    const double q = detail::inverted_cdf(
        -40.0, 40.0, 0.0, p,
        [&](double v) {
          ++evaluations;
          return 0.5 * std::erfc(-v / std::sqrt(2.0));
        },
        [](double v) { return std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI); },
        [](double v) { return 1e-15 * (1.0 + std::abs(v)); });
    EXPECT_NEAR(0.5 * std::erfc(-q / std::sqrt(2.0)), p, 1e-15) << "p = " << p;
    most = std::max(most, evaluations);
  }
  EXPECT_LE(most, 10);
}

}  // namespace
}  // namespace cdens
