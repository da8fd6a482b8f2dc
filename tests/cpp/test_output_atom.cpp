// Tests of the atom of a conditional mixture (src/model/output_atom.hpp): a one-dimensional
// continuous y with a point mass at a value a,
//
//   P(y = a | x) = Σ_{k ∈ A} π_k(x),   p(y | x) = Σ_{k ∉ A} π_k(x) N(y; μ_k, σ_k²)  (y ≠ a),
//
// on a hand-built mixture of six components (three of them the atom's) behind KCDE's kernel gate
// with marginal mixing, on non-trivial standardisations of x and y. Every query is compared with
// a brute-force computation written here from the formula above in the user's units: the gate's
// weights by hand, closed-form Gaussians, quadrature on fine grids, bisection of the CDF, exact
// sums and draws — never with another query of the class alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/output_trend.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "cdens/evaluation/scores.hpp"
#include "cdens/model_file.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

double normal_pdf(double y, double mean, double sd) {
  const double z = (y - mean) / sd;
  return std::exp(-0.5 * z * z) / (std::sqrt(2.0 * kPi) * sd);
}

double normal_cdf(double y, double mean, double sd) {
  return 0.5 * std::erfc(-(y - mean) / (sd * std::sqrt(2.0)));
}

// The mixture: x standardised by (1, 2), y by (2, 3); six components at z = u_k of the kernel gate
// with bandwidth h and marginal weight ε; components 1, 3 and 4 are point masses at a = 0.
constexpr double kAtom = 0.0;
const std::vector<double> kGateCenters{-1.0, -0.5, 0.0, 0.5, 1.0, 1.5};
const std::vector<Index> kAtomComponents{1, 3, 4};
const std::vector<double> kCenters{0.3, -0.9, 1.0, 0.7, 0.1, -0.2};  // t; the atom's unused
const std::vector<double> kScales{0.4, 0.2, 0.6, 0.3, 0.5, 0.5};
constexpr double kBandwidth = 0.7;
constexpr double kMarginalWeight = 0.1;
constexpr double kXMean = 1.0;
constexpr double kXScale = 2.0;
constexpr double kYMean = 2.0;
constexpr double kYScale = 3.0;

bool is_atom(std::size_t k) {
  return std::find(kAtomComponents.begin(), kAtomComponents.end(), static_cast<Index>(k)) !=
         kAtomComponents.end();
}

MixtureOutputs atom_outputs() {
  const auto count = static_cast<Index>(kCenters.size());
  return MixtureOutputs::gaussian(Eigen::Map<const Eigen::RowVectorXd>(kCenters.data(), count),
                                  Eigen::Map<const Eigen::RowVectorXd>(kScales.data(), count))
      .with_atom(OutputAtom{kAtom, kAtomComponents});
}

ConditionalMixture atom_mixture() {
  const auto count = static_cast<Index>(kGateCenters.size());
  return ConditionalMixture(Standardizer(Vector::Constant(1, kXMean), Vector::Constant(1, kXScale)),
                            Standardizer(Vector::Constant(1, kYMean), Vector::Constant(1, kYScale)),
                            std::make_shared<const ProductKernelGate>(
                                Eigen::Map<const Eigen::RowVectorXd>(kGateCenters.data(), count),
                                Vector::Constant(1, kBandwidth), ColumnKernels{}, kMarginalWeight),
                            atom_outputs());
}

/// The distribution at one x (the user's units), written from the formula.
struct BruteForce {
  explicit BruteForce(double x) {
    const double z = (x - kXMean) / kXScale;
    std::vector<double> w;
    double total = 0.0;
    for (const double u : kGateCenters) {
      w.push_back(std::exp(-0.5 * (z - u) * (z - u) / (kBandwidth * kBandwidth)));
      total += w.back();
    }
    for (std::size_t k = 0; k < w.size(); ++k) {
      const double pi =
          (1.0 - kMarginalWeight) * w[k] / total + kMarginalWeight / static_cast<double>(w.size());
      if (is_atom(k)) {
        atom += pi;
      } else {
        weights.push_back(pi);
        means.push_back(kYMean + kYScale * kCenters[k]);
        sds.push_back(kYScale * kScales[k]);
      }
    }
  }
  double density(double y) const {  // of the continuous part (sub-density, total 1 − atom)
    double sum = 0.0;
    for (std::size_t k = 0; k < weights.size(); ++k)
      sum += weights[k] * normal_pdf(y, means[k], sds[k]);
    return sum;
  }
  double cdf(double y) const {
    double sum = y >= kAtom ? atom : 0.0;
    for (std::size_t k = 0; k < weights.size(); ++k)
      sum += weights[k] * normal_cdf(y, means[k], sds[k]);
    return sum;
  }
  /// min{y : F(y) ≥ p} by bisection of the CDF (the atom when p lies within its jump).
  double quantile(double p) const {
    const double below = cdf(kAtom) - atom;
    if (p > below && p <= below + atom) return kAtom;
    double low = -100.0;
    double high = 100.0;
    for (int i = 0; i < 200; ++i) {
      const double middle = 0.5 * (low + high);
      (cdf(middle) >= p ? high : low) = middle;
    }
    return high;
  }
  double mean() const {
    double sum = atom * kAtom;
    for (std::size_t k = 0; k < weights.size(); ++k) sum += weights[k] * means[k];
    return sum;
  }
  double second_moment() const {
    double sum = atom * kAtom * kAtom;
    for (std::size_t k = 0; k < weights.size(); ++k) {
      sum += weights[k] * (means[k] * means[k] + sds[k] * sds[k]);
    }
    return sum;
  }
  double atom = 0.0;
  std::vector<double> weights;
  std::vector<double> means;
  std::vector<double> sds;
};

/// ∫ g over [lower, upper] by Simpson's rule on `steps` (even) intervals.
template <class Function>
double simpson(const Function& g, double lower, double upper, int steps) {
  const double h = (upper - lower) / steps;
  double sum = g(lower) + g(upper);
  for (int i = 1; i < steps; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * g(lower + i * h);
  return sum * h / 3.0;
}

// The continuous part lives within ±12 of y's scale around its mean; the grids of the quadratures
// below cover [−40, 45], beyond every component's 12 standard deviations.
constexpr double kLow = -40.0;
constexpr double kHigh = 45.0;

const std::vector<double> kInputs{-3.0, -0.4, 1.0, 2.2, 5.0, 40.0};

Matrix row_of(const std::vector<double>& values) {
  return Eigen::Map<const Eigen::RowVectorXd>(values.data(), static_cast<Index>(values.size()));
}

TEST(OutputAtomTest, LogDensityIsTheAtomsProbabilityAtItAndTheContinuousDensityElsewhere) {
  const ConditionalMixture model = atom_mixture();
  for (const double x : kInputs) {
    const BruteForce truth(x);
    const std::vector<double> ys{kAtom, -1e-12, 1e-12, -2.5, 0.4, 3.0, 9.0};
    const Matrix xs = Matrix::Constant(1, static_cast<Index>(ys.size()), x);
    const Vector log_density = model.log_pdf(xs, row_of(ys));
    const Matrix grid = model.pdf_grid(xs.leftCols(1), row_of(ys));
    EXPECT_NEAR(log_density(0), std::log(truth.atom), 1e-12) << "x = " << x;
    EXPECT_NEAR(grid(0, 0), truth.atom, 1e-12);
    for (std::size_t i = 1; i < ys.size(); ++i) {
      const auto j = static_cast<Index>(i);
      EXPECT_NEAR(log_density(j), std::log(truth.density(ys[i])), 1e-10) << "y = " << ys[i];
      EXPECT_NEAR(grid(j, 0), truth.density(ys[i]), 1e-12 * (1.0 + truth.density(ys[i])));
    }
    EXPECT_NEAR(model.atom_probability(xs.leftCols(1))(0), truth.atom, 1e-14);
    // The mixed measure's total: the atom plus the continuous part's integral.
    const double continuous =
        simpson([&](double y) { return truth.density(y); }, kLow, kHigh, 40000);
    EXPECT_NEAR(truth.atom + continuous, 1.0, 1e-9);
  }
}

TEST(OutputAtomTest, CdfJumpsByTheAtomsProbabilityAndIntegratesTheDensityElsewhere) {
  const ConditionalMixture model = atom_mixture();
  for (const double x : kInputs) {
    const BruteForce truth(x);
    const std::vector<double> ys{-6.0, -1e-9, kAtom, 1e-9, 2.0, 7.5};
    const Vector cdf = model.cdf(Matrix::Constant(1, static_cast<Index>(ys.size()), x), row_of(ys));
    for (std::size_t i = 0; i < ys.size(); ++i) {
      // The continuous part integrated up to y, plus the atom where y is at or above it.
      const double integral =
          simpson([&](double y) { return truth.density(y); }, kLow, ys[i], 40000) +
          (ys[i] >= kAtom ? truth.atom : 0.0);
      EXPECT_NEAR(cdf(static_cast<Index>(i)), integral, 1e-9) << "x = " << x << ", y = " << ys[i];
      EXPECT_NEAR(cdf(static_cast<Index>(i)), truth.cdf(ys[i]), 1e-13);
    }
    EXPECT_NEAR(cdf(2) - cdf(1), truth.atom, 1e-8);  // the jump
  }
}

TEST(OutputAtomTest, QuantilesAreTheGeneralisedInverseOfTheCdf) {
  const ConditionalMixture model = atom_mixture();
  for (const double x : kInputs) {
    const BruteForce truth(x);
    const double below = truth.cdf(kAtom) - truth.atom;
    // Probabilities below, at the edges of and within the jump, and above it.
    std::vector<double> probabilities{0.01,
                                      0.5 * below,
                                      below + 1e-9,
                                      below + 0.5 * truth.atom,
                                      below + truth.atom,
                                      below + truth.atom + 1e-6,
                                      0.99};
    probabilities.erase(std::remove_if(probabilities.begin(), probabilities.end(),
                                       [](double p) { return !(p > 0.0 && p < 1.0); }),
                        probabilities.end());
    const Matrix q = model.quantiles(Matrix::Constant(1, 1, x), probabilities);
    for (std::size_t r = 0; r < probabilities.size(); ++r) {
      const double p = probabilities[r];
      const double quantile = q(static_cast<Index>(r), 0);
      EXPECT_NEAR(quantile, truth.quantile(p), 1e-9) << "x = " << x << ", p = " << p;
      // Strictly within the jump the quantile is the atom itself.
      if (p > below + 1e-12 && p < below + truth.atom - 1e-12) {
        EXPECT_EQ(quantile, kAtom);
      }
      // min{y : F(y) ≥ p}: F reaches p there and not just below.
      EXPECT_GE(truth.cdf(quantile), p - 1e-12);
      EXPECT_LT(truth.cdf(quantile - 1e-6), p);
    }
  }
}

TEST(OutputAtomTest, MeanAndVarianceAreExactSumsAndAgreeWithDraws) {
  const ConditionalMixture model = atom_mixture();
  const Matrix xs = row_of(kInputs);
  const Matrix mean = model.mean(xs);
  const Matrix covariance = model.covariance(xs);
  constexpr Index kDraws = 200000;
  const Matrix draws = model.sample(xs, kDraws, 17);
  for (std::size_t i = 0; i < kInputs.size(); ++i) {
    const auto j = static_cast<Index>(i);
    const BruteForce truth(kInputs[i]);
    const double variance = truth.second_moment() - truth.mean() * truth.mean();
    EXPECT_NEAR(mean(0, j), truth.mean(), 1e-12);
    EXPECT_NEAR(covariance(0, j), variance, 1e-11);
    // 200,000 draws: the share at the atom within 5 binomial standard errors of its
    // probability, the mean within 5 standard errors.
    const auto block = draws.row(0).segment(j * kDraws, kDraws).array();
    const double share = (block == kAtom).cast<double>().mean();
    EXPECT_NEAR(share, truth.atom, 5.0 * std::sqrt(truth.atom * (1 - truth.atom) / kDraws));
    EXPECT_NEAR(block.mean(), truth.mean(), 5.0 * std::sqrt(variance / kDraws));
  }
}

/// CRPS(F, y) = ∫ (F(z) − 1{z ≥ y})² dz by Simpson's rule on the pieces between the jumps of
/// the integrand (at the atom and at y).
double crps_by_quadrature(const BruteForce& truth, double y) {
  std::vector<double> breaks{kLow, kHigh, kAtom, y};
  std::sort(breaks.begin(), breaks.end());
  double sum = 0.0;
  for (std::size_t i = 0; i + 1 < breaks.size(); ++i) {
    const double middle = 0.5 * (breaks[i] + breaks[i + 1]);
    // Inside a piece neither jump is crossed: evaluate F's step and 1{z ≥ y} at the midpoint.
    const double step = middle >= kAtom ? truth.atom : 0.0;
    const double indicator = middle >= y ? 1.0 : 0.0;
    sum += simpson(
        [&](double z) {
          const double f = truth.cdf(z) - (z >= kAtom ? truth.atom : 0.0) + step;
          return (f - indicator) * (f - indicator);
        },
        breaks[i], breaks[i + 1], 20000);
  }
  return sum;
}

TEST(OutputAtomTest, CrpsClosedFormMatchesTheIntegralOfTheSquaredCdfDifference) {
  const ConditionalMixture model = atom_mixture();
  const std::vector<double> ys{kAtom, -3.0, 0.5, 2.0, 8.0, kAtom};
  for (const double x : kInputs) {
    const BruteForce truth(x);
    const Vector scores =
        crps(model, Matrix::Constant(1, static_cast<Index>(ys.size()), x), row_of(ys));
    for (std::size_t i = 0; i < ys.size(); ++i) {
      EXPECT_NEAR(scores(static_cast<Index>(i)), crps_by_quadrature(truth, ys[i]), 1e-8)
          << "x = " << x << ", y = " << ys[i];
    }
  }
}

TEST(OutputAtomTest, SquaredNormIsTheAtomsSquareAndTheContinuousIntegral) {
  const ConditionalMixture model = atom_mixture();
  const Vector norms = model.squared_norm(row_of(kInputs));
  for (std::size_t i = 0; i < kInputs.size(); ++i) {
    const BruteForce truth(kInputs[i]);
    const double integral =
        simpson([&](double y) { return truth.density(y) * truth.density(y); }, kLow, kHigh, 40000);
    EXPECT_NEAR(norms(static_cast<Index>(i)), truth.atom * truth.atom + integral, 1e-10);
  }
}

TEST(OutputAtomTest, HighestDensityRegionsTakeTheAtomFirst) {
  const ConditionalMixture model = atom_mixture();
  for (const double x : kInputs) {
    const BruteForce truth(x);
    for (const double coverage :
         {0.5 * truth.atom, 0.999 * truth.atom, 0.5 + 0.5 * truth.atom, 0.95}) {
      if (!(coverage > 0.0 && coverage < 1.0)) continue;
      const HighestDensityRegion region =
          model.highest_density_regions(Matrix::Constant(1, 1, x), coverage).front();
      if (truth.atom >= coverage) {
        // The atom alone: probability without length.
        ASSERT_EQ(region.intervals.size(), 1u);
        EXPECT_EQ(region.intervals.front().lower, kAtom);
        EXPECT_EQ(region.intervals.front().upper, kAtom);
        EXPECT_EQ(region.density_threshold, std::numeric_limits<double>::infinity());
        continue;
      }
      // The atom is in the region, the continuous part's share is coverage − π_a, and its ends
      // are at the continuous density's threshold.
      double probability = truth.atom;
      bool holds_atom = false;
      for (const Interval& interval : region.intervals) {
        holds_atom = holds_atom || (interval.lower <= kAtom && kAtom <= interval.upper);
        probability += truth.cdf(interval.upper) - truth.cdf(interval.lower) -
                       (interval.lower < kAtom && kAtom <= interval.upper ? truth.atom : 0.0);
        if (interval.upper > interval.lower) {
          EXPECT_NEAR(truth.density(interval.lower), region.density_threshold,
                      1e-6 * region.density_threshold);
          EXPECT_NEAR(truth.density(interval.upper), region.density_threshold,
                      1e-6 * region.density_threshold);
        }
      }
      EXPECT_TRUE(holds_atom) << "x = " << x << ", coverage = " << coverage;
      EXPECT_NEAR(probability, coverage, 1e-8) << "x = " << x;
      // Brute force: the continuous mass of {density ≥ threshold} on a fine grid.
      const double mass = simpson(
          [&](double y) {
            const double d = truth.density(y);
            return d >= region.density_threshold ? d : 0.0;
          },
          kLow, kHigh, 400000);
      EXPECT_NEAR(truth.atom + mass, coverage, 1e-4);
    }
  }
}

TEST(OutputAtomTest, HighestDensityProbabilityRanksTheAtomFirst) {
  const ConditionalMixture model = atom_mixture();
  for (const double x : kInputs) {
    const BruteForce truth(x);
    const std::vector<double> ys{kAtom, -2.0, 0.7, 3.5, 12.0};
    const Vector values = model.highest_density_probability(
        Matrix::Constant(1, static_cast<Index>(ys.size()), x), row_of(ys));
    EXPECT_NEAR(values(0), truth.atom, 1e-14);
    for (std::size_t i = 1; i < ys.size(); ++i) {
      const double level = truth.density(ys[i]);
      const double mass = simpson(
          [&](double y) {
            const double d = truth.density(y);
            return d >= level ? d : 0.0;
          },
          kLow, kHigh, 400000);
      EXPECT_NEAR(values(static_cast<Index>(i)), truth.atom + mass, 1e-4) << "y = " << ys[i];
    }
  }
}

TEST(OutputAtomTest, ModelFileCarriesTheAtomAndOldFilesStayAsTheyWere) {
  const ConditionalMixture model = atom_mixture();
  const ConditionalModel file{model, {"x"}, {"y"}, FitReport{}, {}};
  const nlohmann::json document = conditional_model_to_json(file);
  EXPECT_EQ(document.at("version"), kModelFileVersion);
  EXPECT_EQ(document.at("model").at("output_atom").at("value"), kAtom);
  const ConditionalMixture loaded = conditional_model_from_json(document).mixture;
  ASSERT_TRUE(loaded.atom().has_value());
  EXPECT_EQ(loaded.atom()->components, kAtomComponents);
  const Matrix xs = row_of(kInputs);
  const Matrix ys = row_of({kAtom, 1.0, -2.0, kAtom, 4.0, 0.3});
  EXPECT_EQ(loaded.log_pdf(xs, ys), model.log_pdf(xs, ys));
  EXPECT_EQ(loaded.cdf(xs, ys), model.cdf(xs, ys));
  EXPECT_EQ(loaded.quantiles(xs, {0.1, 0.5, 0.9}), model.quantiles(xs, {0.1, 0.5, 0.9}));
  // The same mixture without the atom writes what it always wrote: version 1, no atom member.
  const ConditionalMixture plain(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                                 MixtureOutputs::gaussian(model.centers(), model.scales()));
  const nlohmann::json old = conditional_model_to_json({plain, {"x"}, {"y"}, FitReport{}, {}});
  EXPECT_EQ(old.at("version"), kUnlabelledModelFileVersion);
  EXPECT_FALSE(old.at("model").contains("output_atom"));
  // Malformed atoms are malformed files.
  for (const auto& [what, change] :
       std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>>{
           {"a string", [](nlohmann::json& d) { d["model"]["output_atom"] = "0"; }},
           {"no value", [](nlohmann::json& d) { d["model"]["output_atom"].erase("value"); }},
           {"an index out of range",
            [](nlohmann::json& d) { d["model"]["output_atom"]["components"] = {1, 9}; }},
           {"every component",
            [](nlohmann::json&
                   d) { d["model"]["output_atom"]["components"] = {0, 1, 2, 3, 4, 5}; }},
           {"indices out of order", [](nlohmann::json& d) {
              d["model"]["output_atom"]["components"] = {3, 1};
            }}}) {
    nlohmann::json changed = document;
    change(changed);
    EXPECT_THROW(conditional_model_from_json(changed), ModelFormatError) << what;
  }
}

TEST(OutputAtomTest, RefusesAnAtomWhereTheOutputsCannotCarryOne) {
  const Matrix centers = Matrix::Zero(2, 3);
  const Matrix scales = Matrix::Ones(2, 3);
  const auto gate = uniform_gate(1, 3);
  const Standardizer x_scaling = Standardizer::identity(1);
  // Two outputs.
  EXPECT_THROW(
      ConditionalMixture(x_scaling, Standardizer::identity(2), gate,
                         MixtureOutputs::gaussian(centers, scales).with_atom(OutputAtom{0.0, {0}})),
      InvalidArgument);
  // With a trend.
  const auto line = std::make_shared<const LinearTrend>(Vector::Zero(1), Matrix::Ones(1, 1));
  EXPECT_THROW(ConditionalMixture(x_scaling, Standardizer::identity(1), gate,
                                  MixtureOutputs::gaussian(centers.topRows(1), scales.topRows(1))
                                      .with_trend(line)
                                      .with_atom(OutputAtom{0.0, {0}})),
               InvalidArgument);
  // Components that are none, out of order, out of range, all of them; a value that is not finite.
  for (const OutputAtom& atom : {OutputAtom{0.0, {}}, OutputAtom{0.0, {2, 1}}, OutputAtom{0.0, {3}},
                                 OutputAtom{0.0, {0, 1, 2}}, OutputAtom{std::nan(""), {0}}}) {
    EXPECT_THROW(
        ConditionalMixture(
            x_scaling, Standardizer::identity(1), gate,
            MixtureOutputs::gaussian(centers.topRows(1), scales.topRows(1)).with_atom(atom)),
        InvalidArgument);
  }
  // A model without an atom has no atom probability.
  const ConditionalMixture plain(x_scaling, Standardizer::identity(1), gate,
                                 MixtureOutputs::gaussian(centers.topRows(1), scales.topRows(1)));
  EXPECT_THROW(plain.atom_probability(Matrix::Zero(1, 2)), InvalidArgument);
}

TEST(OutputAtomTest, RandomisedPitAndHpdValuesOfDrawsAreUniform) {
  // Pairs drawn from the model itself: x uniform over the gate's range, y one draw of p(·|x).
  const ConditionalMixture model = atom_mixture();
  constexpr Index kPairs = 4000;
  Rng rng(5);
  Matrix x(1, kPairs);
  for (Index j = 0; j < kPairs; ++j) x(0, j) = kXMean + kXScale * (4.0 * rng.uniform() - 2.0);
  const Matrix y = model.sample(x, 1, 9);
  ASSERT_GT((y.array() == kAtom).count(), kPairs / 5);  // many pairs at the atom
  const Vector pit = pit_values(model, x, y, 3);
  const Vector hpd = highest_density_values(model, x, y, 0, 3).values;
  // Uniform for the true model: Kolmogorov–Smirnov at the 0.1 % level (a fixed seed), and the
  // 90 % intervals covering 90 % within four binomial standard errors (0.019 at 4,000 pairs).
  EXPECT_GT(uniformity_test(pit).p_value, 1e-3);
  EXPECT_GT(uniformity_test(hpd).p_value, 1e-3);
  const double error = 4.0 * std::sqrt(0.9 * 0.1 / kPairs);
  EXPECT_NEAR(central_coverage(pit, {0.9}).mean(), 0.9, error);
  EXPECT_NEAR(highest_density_coverage(hpd, {0.9}).mean(), 0.9, error);
  // Without the randomisation the PIT of the pairs at the atom is the top of the jump: not
  // uniform.
  EXPECT_LT(uniformity_test(model.cdf(x, y)).p_value, 1e-6);
  // The evaluation says so, scores every pair and takes the same randomised values (the same
  // seed), whose coverage is the level's also where the atom alone exceeds it (level 0.5).
  EvaluationOptions options;
  options.seed = 3;
  const ModelEvaluation evaluation = evaluate_model(model, x, y, options);
  ASSERT_TRUE(evaluation.output_atom.has_value());
  EXPECT_EQ(evaluation.n, kPairs);
  for (const UniformityCheck& check : evaluation.calibration) {
    EXPECT_TRUE(check.randomized);
    EXPECT_EQ(check.values, check.name == "pit" ? pit : hpd) << check.name;
  }
  const double half = 4.0 * std::sqrt(0.25 / kPairs);
  for (const std::string kind : {"central", "hpd"}) {
    EXPECT_NEAR(evaluation.score(kind + "_coverage_0.9").mean, 0.9, error);
    EXPECT_NEAR(evaluation.score(kind + "_coverage_0.5").mean, 0.5, half);
  }
}

TEST(OutputAtomTest, CompareLeavesOutTheLogLikelihoodBetweenModelsWithAndWithoutTheAtom) {
  const ConditionalMixture model = atom_mixture();
  const ConditionalMixture plain(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                                 MixtureOutputs::gaussian(model.centers(), model.scales()));
  const Matrix x = row_of(kInputs);
  const Matrix y = row_of({kAtom, 1.0, -2.0, kAtom, 4.0, 0.3});
  const ModelComparison comparison = compare_evaluations(
      {evaluate_model(model, x, y), evaluate_model(plain, x, y)}, {"atom", "plain"});
  EXPECT_EQ(std::count(comparison.scores.begin(), comparison.scores.end(), "log_likelihood"), 0);
  EXPECT_EQ(std::count(comparison.scores.begin(), comparison.scores.end(), "cde_loss"), 0);
  EXPECT_EQ(std::count(comparison.scores.begin(), comparison.scores.end(), "crps"), 1);
  ASSERT_EQ(comparison.not_compared.size(), 2u);
  EXPECT_EQ(comparison.not_compared.front().score, "log_likelihood");
}

}  // namespace
}  // namespace cdens
