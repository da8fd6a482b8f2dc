// Tests of the evaluation of a discrete y (include/cdens/evaluation/scores.hpp and the
// discrete parts of scores.hpp and evaluation.hpp): every score against a brute-force sum
// over the probability mass function, read level by level from ConditionalMixture::log_pdf; the
// RPS against the CRPS integral on consecutive integer levels; the randomised PIT and HPD values
// against their definition and, on data drawn from the model itself, against uniformity (fixed
// seeds, tolerances from the sample size); which scores apply to which y; comparisons.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "cdens/conditional/kcde.hpp"
#include "cdens/conditional/linear.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/random_streams.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Pairs with x ~ N(0, 1) and a y on the levels `levels` that moves with x.
test::PairSample discrete_sample(Index n, const std::vector<double>& levels, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(1, n, rng), Matrix(1, n)};
  const auto last = static_cast<double>(levels.size() - 1);
  for (Index i = 0; i < n; ++i) {
    const double position =
        std::clamp(std::round(0.5 * last + 0.9 * sample.x(0, i) + 0.6 * rng.normal()), 0.0, last);
    sample.y(0, i) = levels[static_cast<std::size_t>(position)];
  }
  return sample;
}

/// A KCDE at fixed bandwidths (x's width, y's λ) with y declared ordered or unordered.
ConditionalMixture discrete_model(const test::PairSample& data, ColumnKind kind, double lambda) {
  KcdeOptions options;
  options.bandwidth = {0.6, lambda};
  (kind == ColumnKind::ordered ? options.ordered : options.discrete) = {1};
  return fit_kcde(data.x, data.y, options).model;
}

struct DiscreteCase {
  test::PairSample data;
  ConditionalMixture model;
};

/// y ordered on the consecutive integers 0 … 4.
DiscreteCase ordered_case() {
  test::PairSample data = discrete_sample(120, {0, 1, 2, 3, 4}, 3);
  ConditionalMixture model = discrete_model(data, ColumnKind::ordered, 0.4);
  return {std::move(data), std::move(model)};
}

/// y unordered on the levels 2, 5, 7.
DiscreteCase unordered_case() {
  test::PairSample data = discrete_sample(120, {2, 5, 7}, 4);
  ConditionalMixture model = discrete_model(data, ColumnKind::unordered, 0.3);
  return {std::move(data), std::move(model)};
}

/// p̂(l | x_j) by brute force: the model's log_pdf at every level (rows) and input (columns).
Matrix brute_force_masses(const ConditionalMixture& model, const Matrix& x) {
  const std::vector<double>& levels = model.output_kernels().front().levels();
  Matrix masses(static_cast<Index>(levels.size()), x.cols());
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const Matrix at_level = Matrix::Constant(1, x.cols(), levels[l]);
    masses.row(static_cast<Index>(l)) = model.log_pdf(x, at_level).array().exp().transpose();
  }
  return masses;
}

/// Test outputs: the data's own, with values that are no level in between (below, between and
/// above the levels).
Matrix outputs_with_strays(const DiscreteCase& test, Index count) {
  Matrix y = test.data.y.leftCols(count);
  const std::vector<double>& levels = test.model.output_kernels().front().levels();
  y(0, 1) = levels.front() - 1.0;
  y(0, 2) = 0.5 * (levels[0] + levels[1]);
  y(0, 3) = levels.back() + 2.0;
  return y;
}

/// The first `count` pairs of a case (outputs_with_strays), its levels, and the masses at
/// every level by brute force.
struct TestPairs {
  Matrix x;
  Matrix y;
  std::vector<double> levels;
  Matrix masses;
};

TestPairs test_pairs(const DiscreteCase& test, Index count) {
  const Matrix x = test.data.x.leftCols(count);
  return {x, outputs_with_strays(test, count), test.model.output_kernels().front().levels(),
          brute_force_masses(test.model, x)};
}

std::vector<std::string> score_names(const ModelEvaluation& evaluation) {
  std::vector<std::string> names;
  for (const auto& column : evaluation.scores) names.push_back(column.name);
  return names;
}

std::vector<std::string> inapplicable_names(const ModelEvaluation& evaluation) {
  std::vector<std::string> names;
  for (const auto& score : evaluation.not_applicable) names.push_back(score.score);
  return names;
}

TEST(DiscreteScores, RankedProbabilityScoreIsTheSumOverTheLevels) {
  const DiscreteCase test = ordered_case();
  const auto [x, y, levels, masses] = test_pairs(test, 25);
  const Vector scores = ranked_probability_scores(test.model, x, y);
  for (Index j = 0; j < x.cols(); ++j) {
    double cdf = 0.0;
    double expected = 0.0;
    for (std::size_t l = 0; l < levels.size(); ++l) {
      cdf += masses(static_cast<Index>(l), j);
      expected += std::pow(cdf - (y(0, j) <= levels[l] ? 1.0 : 0.0), 2);
    }
    EXPECT_NEAR(scores(j), expected, 1e-12) << "pair " << j;
  }
}

TEST(DiscreteScores, RankedProbabilityScoreIsTheCrpsOnConsecutiveIntegerLevels) {
  // On the levels 0 … 4 the CRPS ∫ (F̂(t) − 1{y ≤ t})² dt of the mass function is the RPS: the
  // integrand is a step function, so the midpoint rule on cells of 1/1000 (no midpoint on an
  // integer) is exact up to rounding; outside [0, 4] the integrand is 0 for a y among the levels.
  // The mixture's own CRPS of its level distribution (the scores leave it to the RPS) is the same
  // integral.
  const DiscreteCase test = ordered_case();
  const Matrix x = test.data.x.leftCols(6);
  const Matrix y = test.data.y.leftCols(6);
  const Vector scores = ranked_probability_scores(test.model, x, y);
  const Vector crps = test.model.crps(x, y);
  constexpr Index kCells = 6000;
  const double step = 6.0 / kCells;
  const Vector midpoints = Vector::LinSpaced(kCells, -1.0 + 0.5 * step, 5.0 - 0.5 * step);
  for (Index j = 0; j < x.cols(); ++j) {
    const Vector cdf = test.model.cdf(x.col(j).replicate(1, kCells), midpoints.transpose());
    double integral = 0.0;
    for (Index c = 0; c < kCells; ++c) {
      integral += step * std::pow(cdf(c) - (y(0, j) <= midpoints(c) ? 1.0 : 0.0), 2);
    }
    EXPECT_NEAR(scores(j), integral, 1e-9) << "pair " << j;
    EXPECT_NEAR(crps(j), integral, 1e-9) << "pair " << j;
  }
}

TEST(DiscreteScores, BrierScoreIsTheQuadraticScoreOverTheLevels) {
  for (const DiscreteCase& test : {ordered_case(), unordered_case()}) {
    const auto [x, y, levels, masses] = test_pairs(test, 25);
    const Vector scores = brier_scores(test.model, x, y);
    for (Index j = 0; j < x.cols(); ++j) {
      // A y that is no level is an outcome of probability 0: its own term is (0 − 1)².
      const bool stray = std::find(levels.begin(), levels.end(), y(0, j)) == levels.end();
      double expected = stray ? 1.0 : 0.0;
      for (std::size_t l = 0; l < levels.size(); ++l) {
        expected += std::pow(masses(static_cast<Index>(l), j) - (y(0, j) == levels[l]), 2);
      }
      EXPECT_NEAR(scores(j), expected, 1e-12) << "pair " << j;
    }
  }
  const test::PairSample sine = test::sine_sample(40, 1, 5);
  LscdeOptions options;
  options.sigma = {0.3};
  options.regularization = {0.1};
  const ConditionalMixture continuous = fit_lscde(sine.x, sine.y, options).model;
  const std::string message = test::message_of<InvalidArgument>(
      [&] { brier_scores(continuous, sine.x.leftCols(3), sine.y.leftCols(3)); });
  EXPECT_NE(message.find("cde_loss"), std::string::npos) << message;
}

/// The brute-force sets: the most probable levels first (ties: the lower level first) until
/// their probability reaches α.
std::vector<double> brute_force_highest_set(const Vector& masses, const std::vector<double>& levels,
                                            double alpha) {
  std::vector<Index> order(levels.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return masses(a) > masses(b); });
  std::vector<double> set;
  double total = 0.0;
  for (const Index l : order) {
    set.push_back(levels[static_cast<std::size_t>(l)]);
    total += masses(l);
    if (total >= alpha) break;
  }
  return set;
}

/// The levels from the (1 − α)/2 to the (1 + α)/2 quantile, each the lowest level whose CDF
/// reaches the probability.
std::vector<double> brute_force_central_set(const Vector& masses, const std::vector<double>& levels,
                                            double alpha) {
  const auto quantile = [&](double probability) {
    double cdf = 0.0;
    for (std::size_t l = 0; l < levels.size(); ++l) {
      cdf += masses(static_cast<Index>(l));
      if (cdf >= probability) return levels[l];
    }
    return levels.back();
  };
  const double lower = quantile(0.5 * (1.0 - alpha));
  const double upper = quantile(0.5 * (1.0 + alpha));
  std::vector<double> set;
  for (const double level : levels) {
    if (level >= lower && level <= upper) set.push_back(level);
  }
  return set;
}

template <class BruteForce>
void expect_sets(const TestPairs& pairs, const LevelSets& sets, const std::vector<double>& alphas,
                 BruteForce brute_force) {
  const auto& [x, y, levels, masses] = pairs;
  for (Index j = 0; j < x.cols(); ++j) {
    for (std::size_t r = 0; r < alphas.size(); ++r) {
      const auto row = static_cast<Index>(r);
      const std::vector<double> set = brute_force(Vector(masses.col(j)), levels, alphas[r]);
      double mass = 0.0;
      for (const double level : set) {
        mass += masses(
            static_cast<Index>(std::find(levels.begin(), levels.end(), level) - levels.begin()), j);
      }
      const bool inside = std::find(set.begin(), set.end(), y(0, j)) != set.end();
      EXPECT_EQ(sets.sizes(row, j), static_cast<double>(set.size())) << j << ", " << alphas[r];
      EXPECT_NEAR(sets.masses(row, j), mass, 1e-12) << j << ", " << alphas[r];
      EXPECT_GE(sets.masses(row, j), alphas[r] - 1e-12);
      EXPECT_EQ(sets.inside(row, j), inside ? 1.0 : 0.0) << j << ", " << alphas[r];
    }
  }
}

TEST(DiscreteScores, SetsOfLevelsAreThoseOfTheSortedMassFunction) {
  const std::vector<double> alphas{0.3, 0.5, 0.9};
  for (const DiscreteCase& test : {ordered_case(), unordered_case()}) {
    const TestPairs pairs = test_pairs(test, 30);
    expect_sets(pairs, highest_probability_sets(test.model, pairs.x, pairs.y, alphas), alphas,
                brute_force_highest_set);
  }
  const DiscreteCase ordered = ordered_case();
  const TestPairs pairs = test_pairs(ordered, 30);
  expect_sets(pairs, central_level_sets(ordered.model, pairs.x, pairs.y, alphas), alphas,
              brute_force_central_set);
  const DiscreteCase unordered = unordered_case();
  EXPECT_THROW(central_level_sets(unordered.model, pairs.x, pairs.y, alphas), InvalidArgument);
}

TEST(DiscreteCalibration, RandomisedValuesSpreadEachPairOverItsOwnLevel) {
  // u_j = P(Y < y_j) + V_j P(Y = y_j) and h_j = P(levels ranked before y_j) + V′_j P(Y = y_j),
  // V_j and V′_j the uniform draws of the pair's own streams of the seed.
  const DiscreteCase test = ordered_case();
  const auto [x, y, levels, masses] = test_pairs(test, 30);
  const std::uint64_t seed = 21;
  const Vector pit = pit_values(test.model, x, y, seed);
  const HighestDensityValues hpd = highest_density_values(test.model, x, y, 0, seed);
  EXPECT_EQ(hpd.draws, 0);
  for (Index j = 0; j < x.cols(); ++j) {
    double below = 0.0;
    double own = 0.0;
    for (std::size_t l = 0; l < levels.size(); ++l) {
      if (levels[l] < y(0, j)) below += masses(static_cast<Index>(l), j);
      if (levels[l] == y(0, j)) own = masses(static_cast<Index>(l), j);
    }
    const std::vector<double> set = brute_force_highest_set(masses.col(j), levels, 1.0);
    double ranked_before = 1.0;  // a y that is no level: every level ranks before it
    double total = 0.0;
    for (const double level : set) {
      if (level == y(0, j)) ranked_before = total;
      total += masses(static_cast<Index>(level), j);  // levels 0 … 4: the level is its index
    }
    Rng pit_draw(seed, random_stream::randomized_pit(j));
    Rng hpd_draw(seed, random_stream::randomized_hpd(j));
    EXPECT_NEAR(pit(j), below + pit_draw.uniform() * own, 1e-12) << "pair " << j;
    EXPECT_NEAR(hpd.values(j), std::min(1.0, ranked_before + hpd_draw.uniform() * own), 1e-12)
        << "pair " << j;
  }
  // The exact query is the unrandomised HPD value: the mass of the levels at least as probable.
  const Vector exact = test.model.highest_density_probability(x, y);
  for (Index j = 0; j < x.cols(); ++j) {
    const Index level = test.model.output_kernels().front().level_index(y(0, j));
    const double own = level < 0 ? 0.0 : masses(level, j);
    const double expected =
        own > 0.0 ? (masses.col(j).array() >= own).select(masses.col(j).array(), 0.0).sum() : 1.0;
    EXPECT_NEAR(exact(j), expected, 1e-12) << "pair " << j;
  }
  const DiscreteCase unordered = unordered_case();
  const std::string message = test::message_of<InvalidArgument>([&] {
    pit_values(unordered.model, unordered.data.x.leftCols(3), unordered.data.y.leftCols(3), 0);
  });
  EXPECT_NE(message.find("ordered"), std::string::npos) << message;
}

TEST(DiscreteCalibration, RandomisedValuesAreUniformForDataDrawnFromTheModel) {
  // y_j one draw of p̂(·|x_j): the randomised PIT and HPD values are then exactly uniform (KS
  // p-values, fixed seeds, above 0.001), the plain F̂(y_j|x_j) is not (its atoms put mass at the
  // top of every step), and each set of levels holds y_j with the probability it has: the
  // share inside stays within 4 standard errors, √(Σ m_j (1 − m_j)) / n, of the mean mass.
  const DiscreteCase test = ordered_case();
  Rng rng(31);
  const Index n = 2000;
  const Matrix x = test::normal_matrix(1, n, rng);
  const Matrix y = test.model.sample(x, 1, 32);
  EXPECT_GT(uniformity_test(pit_values(test.model, x, y, 7)).p_value, 1e-3);
  EXPECT_GT(uniformity_test(highest_density_values(test.model, x, y, 0, 7).values).p_value, 1e-3);
  EXPECT_LT(uniformity_test(test.model.cdf(x, y)).p_value, 1e-6);
  const std::vector<double> alphas{0.5, 0.9};
  for (const LevelSets& sets : {highest_probability_sets(test.model, x, y, alphas),
                                central_level_sets(test.model, x, y, alphas)}) {
    for (Index r = 0; r < sets.inside.rows(); ++r) {
      const Eigen::ArrayXd mass = sets.masses.row(r).transpose();
      const double error = std::sqrt((mass * (1.0 - mass)).sum()) / static_cast<double>(n);
      EXPECT_NEAR(sets.inside.row(r).mean(), mass.mean(), 4.0 * error) << "row " << r;
    }
  }
}

/// y0 ordered on 0 … 3 and y1 unordered on {1, 2}, both moving with x: every output discrete.
ConditionalMixture two_discrete_outputs_model() {
  Rng rng(41);
  const Index n = 150;
  const Matrix x = test::normal_matrix(1, n, rng);
  Matrix y(2, n);
  for (Index i = 0; i < n; ++i) {
    y(0, i) = std::clamp(std::round(1.5 + x(0, i) + 0.5 * rng.normal()), 0.0, 3.0);
    y(1, i) = x(0, i) + 0.8 * rng.normal() > 0.0 ? 2.0 : 1.0;
  }
  KcdeOptions options;
  options.bandwidth = {0.6, 0.4, 0.3};
  options.ordered = {1};
  options.discrete = {2};
  return fit_kcde(x, y, options).model;
}

TEST(DiscreteCalibration, SampledHpdValuesBreakTiesAtRandom) {
  // Draws of a y of two discrete outputs tie with y_j often (8 combinations): counted all above
  // it, the HPD values would pile up near 1; broken at random they are uniform for data drawn
  // from the model.
  const ConditionalMixture model = two_discrete_outputs_model();
  Rng rng(42);
  const Index n = 1000;
  const Matrix x = test::normal_matrix(1, n, rng);
  const Matrix y = model.sample(x, 1, 43);
  const HighestDensityValues hpd = highest_density_values(model, x, y, 200, 44);
  EXPECT_EQ(hpd.draws, 200);
  EXPECT_GT(uniformity_test(hpd.values).p_value, 1e-3);
}

TEST(DiscreteScores, BrierScoreOfSeveralOutputsSumsOverTheirCombinations) {
  const ConditionalMixture model = two_discrete_outputs_model();
  Rng rng(45);
  const Matrix x = test::normal_matrix(1, 6, rng);
  Matrix y = model.sample(x, 1, 46);
  y(1, 5) = 1.5;  // no level: probability 0
  const Vector scores = brier_scores(model, x, y);
  for (Index j = 0; j < x.cols(); ++j) {
    double expected = j == 5 ? 1.0 : 0.0;  // (0 − 1)² of the outcome that is no level
    for (const double a : model.output_kernels()[0].levels()) {
      for (const double b : model.output_kernels()[1].levels()) {
        const Vector level = (Vector(2) << a, b).finished();
        const double mass = std::exp(model.log_pdf(x.col(j), level)(0));
        expected += std::pow(mass - (y.col(j) == level ? 1.0 : 0.0), 2);
      }
    }
    EXPECT_NEAR(scores(j), expected, 1e-12) << "pair " << j;
  }
}

TEST(DiscreteEvaluation, EveryScoreThatAppliesToTheYAndNothingElse) {
  const DiscreteCase test = ordered_case();
  const Matrix x = test.data.x.leftCols(40);
  const Matrix y = test.data.y.leftCols(40);
  EvaluationOptions options;
  options.seed = 5;
  const ModelEvaluation evaluation = evaluate_model(test.model, x, y, options);
  EXPECT_EQ(score_names(evaluation),
            (std::vector<std::string>{"log_likelihood", "rps", "brier", "central_size_0.5",
                                      "central_size_0.9", "central_mass_0.5", "central_mass_0.9",
                                      "central_coverage_0.5", "central_coverage_0.9",
                                      "hpd_size_0.5", "hpd_size_0.9", "hpd_mass_0.5",
                                      "hpd_mass_0.9", "hpd_coverage_0.5", "hpd_coverage_0.9"}));
  EXPECT_EQ(inapplicable_names(evaluation),
            (std::vector<std::string>{"crps", "pinball", "cde_loss", "energy_score"}));
  EXPECT_EQ(evaluation.output_kinds, (std::vector<std::string>{"ordered"}));
  EXPECT_EQ(evaluation.output_levels, (std::vector<Index>{5}));
  // The log-likelihood is a log-probability: the masses over the levels sum to one.
  EXPECT_TRUE(brute_force_masses(test.model, x).colwise().sum().isOnes(1e-12));
  const Matrix masses = brute_force_masses(test.model, x);
  for (Index j = 0; j < x.cols(); ++j) {
    EXPECT_NEAR(evaluation.score("log_likelihood").values(j),
                std::log(masses(static_cast<Index>(y(0, j)), j)), 1e-12);
  }
  EXPECT_EQ(evaluation.score("rps").values, ranked_probability_scores(test.model, x, y));
  EXPECT_EQ(evaluation.score("brier").values, brier_scores(test.model, x, y));
  const LevelSets central = central_level_sets(test.model, x, y, options.interval_levels);
  const LevelSets highest = highest_probability_sets(test.model, x, y, options.interval_levels);
  EXPECT_EQ(evaluation.score("central_size_0.9").values, Vector(central.sizes.row(1).transpose()));
  EXPECT_EQ(evaluation.score("hpd_coverage_0.5").values, Vector(highest.inside.row(0).transpose()));
  EXPECT_FALSE(evaluation.score("hpd_mass_0.5").proper);
  ASSERT_EQ(evaluation.calibration.size(), 2u);
  for (const auto& check : evaluation.calibration) EXPECT_TRUE(check.randomized) << check.name;
  EXPECT_EQ(evaluation.calibration[0].values, pit_values(test.model, x, y, 5));
  EXPECT_EQ(evaluation.calibration[1].values,
            highest_density_values(test.model, x, y, 0, 5).values);
  // The coverage curve is that of the randomised values.
  EXPECT_NEAR(evaluation.coverage.highest_density(9),
              (evaluation.calibration[1].values.array() <= 0.5).cast<double>().mean(), 1e-15);

  const DiscreteCase unordered = unordered_case();
  const ModelEvaluation categories =
      evaluate_model(unordered.model, unordered.data.x.leftCols(40), unordered.data.y.leftCols(40));
  EXPECT_EQ(score_names(categories),
            (std::vector<std::string>{"log_likelihood", "brier", "hpd_size_0.5", "hpd_size_0.9",
                                      "hpd_mass_0.5", "hpd_mass_0.9", "hpd_coverage_0.5",
                                      "hpd_coverage_0.9"}));
  EXPECT_EQ(
      inapplicable_names(categories),
      (std::vector<std::string>{"crps", "rps", "pinball", "cde_loss", "energy_score", "central"}));
}

TEST(DiscreteEvaluation, AScoreThatDoesNotApplyIsRefusedNamingThoseThatDo) {
  const DiscreteCase ordered = ordered_case();
  const DiscreteCase unordered = unordered_case();
  const auto refusal = [](const DiscreteCase& test, const std::string& score) {
    EvaluationOptions options;
    options.scores = {score};
    return test::message_of<InvalidArgument>([&] {
      evaluate_model(test.model, test.data.x.leftCols(5), test.data.y.leftCols(5), options);
    });
  };
  const std::string crps = refusal(ordered, "crps");
  for (const std::string part :
       {"the score 'crps' does not apply", "ranked probability score (rps)",
        "the scores that apply: log_likelihood, rps, brier, central, hpd"}) {
    EXPECT_NE(crps.find(part), std::string::npos) << crps;
  }
  EXPECT_NE(refusal(ordered, "energy_score").find("continuous outputs"), std::string::npos);
  EXPECT_NE(refusal(ordered, "cde_loss").find("ask for brier"), std::string::npos);
  EXPECT_NE(refusal(unordered, "central").find("unordered"), std::string::npos);
  EXPECT_NE(refusal(unordered, "rps").find("log_likelihood, brier, hpd)"), std::string::npos);
}

TEST(DiscreteEvaluation, AContinuousYHasNoDiscreteScores) {
  const test::PairSample sine = test::sine_sample(40, 1, 5);
  const ConditionalMixture linear = fit_linear(sine.x, sine.y).model;
  const ModelEvaluation evaluation = evaluate_model(linear, sine.x, sine.y);
  EXPECT_EQ(inapplicable_names(evaluation),
            (std::vector<std::string>{"rps", "brier", "energy_score"}));
  EXPECT_EQ(evaluation.output_kinds, (std::vector<std::string>{"continuous"}));
  for (const auto& check : evaluation.calibration) EXPECT_FALSE(check.randomized);
  EvaluationOptions options;
  options.scores = {"rps"};
  const std::string message =
      test::message_of<InvalidArgument>([&] { evaluate_model(linear, sine.x, sine.y, options); });
  EXPECT_NE(message.find("ask for crps"), std::string::npos) << message;
}

TEST(DiscreteEvaluation, MixedOutputsHaveTheLikelihoodTheCdeLossAndSampledHpdValues) {
  // y0 continuous, y1 unordered on {0, 1}: the log-likelihood is the log of a density times a
  // probability, the CDE loss integrates over y0 and sums over y1; the energy score is left out.
  Rng rng(51);
  const Index n = 80;
  const Matrix x = test::normal_matrix(1, n, rng);
  Matrix y(2, n);
  for (Index i = 0; i < n; ++i) {
    y(0, i) = x(0, i) + 0.5 * rng.normal();
    y(1, i) = y(0, i) + 0.5 * rng.normal() > 0.0 ? 1.0 : 0.0;
  }
  KcdeOptions fit_options;
  fit_options.bandwidth = {0.6, 0.5, 0.3};
  fit_options.discrete = {2};
  const ConditionalMixture model = fit_kcde(x, y, fit_options).model;
  EvaluationOptions options;
  options.draws = 100;
  const ModelEvaluation evaluation = evaluate_model(model, x, y, options);
  EXPECT_EQ(score_names(evaluation),
            (std::vector<std::string>{"log_likelihood", "cde_loss", "hpd_coverage_0.5",
                                      "hpd_coverage_0.9"}));
  EXPECT_EQ(
      inapplicable_names(evaluation),
      (std::vector<std::string>{"crps", "rps", "pinball", "brier", "energy_score", "central"}));
  EXPECT_EQ(evaluation.output_kinds, (std::vector<std::string>{"continuous", "unordered"}));
  EXPECT_EQ(evaluation.hpd_draws, 100);
  EXPECT_EQ(evaluation.score("cde_loss").values, cde_losses(model, x, y));
}

TEST(DiscreteEvaluation, TwoDiscreteModelsCompareAndAContinuousOneIsRefused) {
  const DiscreteCase test = ordered_case();
  const ConditionalMixture smoother = discrete_model(test.data, ColumnKind::ordered, 0.8);
  const Matrix x = test.data.x.leftCols(40);
  const Matrix y = test.data.y.leftCols(40);
  const ModelEvaluation a = evaluate_model(test.model, x, y);
  const ModelEvaluation b = evaluate_model(smoother, x, y);
  const ModelComparison comparison = compare_evaluations({a, b}, {"sharp", "smooth"});
  EXPECT_EQ(comparison.scores, (std::vector<std::string>{"log_likelihood", "rps", "brier"}));
  const Vector improvement = a.score("rps").values - b.score("rps").values;
  EXPECT_NEAR(comparison.differences[1].mean, improvement.mean(), 1e-15);
  const ModelEvaluation linear = evaluate_model(fit_linear(test.data.x, test.data.y).model, x, y);
  const std::string message = test::message_of<InvalidArgument>([&] {
    compare_evaluations({a, linear}, {"kcde", "linear"});
  });
  EXPECT_NE(message.find("log-probability"), std::string::npos) << message;
}

}  // namespace
}  // namespace cdens
