// KCDE with an atom of y (docs/methods/kcde.md, "Outputs with an atom"): the pairs at the atom a
// are point masses at a, P(y = a | x) = Σ_{i: y_i = a} K(x − x_i) / Σ_i K(x − x_i). Checked against
// brute force: the leave-one-out criterion against the mixed measure against explicit
// leave-one-out sums (every pair, a subset, underflowing sums, sample weights, the marginal
// counterpart), its gradient against central differences, the fitted model's density against the
// kernel ratio written out in the user's units, the report's held-out log-densities against
// explicit leave-one-out with the marginal mixing; the rule that finds an atom, and the options.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/pooled_gate.hpp"
#include "core/bandwidth_likelihood.hpp"
#include "model/tied_outputs.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Pairs of two inputs and one output in standardised units, a third of them at the atom t = a.
struct AtomSamples {
  Matrix z;      ///< 3 × n: x0, x1, y
  Vector flags;  ///< 1 at the atom
};

AtomSamples atom_samples(Index n, double atom, std::uint64_t seed) {
  Rng rng(seed);
  AtomSamples samples{test::normal_matrix(3, n, rng), Vector::Zero(n)};
  for (Index i = 0; i < n; i += 3) {
    samples.z(2, i) = atom;
    samples.flags(i) = 1.0;
  }
  return samples;
}

double log_sum(const std::vector<double>& logs) {
  const double top = *std::max_element(logs.begin(), logs.end());
  if (top == -INFINITY) return top;
  double sum = 0.0;
  for (const double value : logs) sum += std::exp(value - top);
  return top + std::log(sum);
}

/// −log p̂_{−i}(y_i | x_i) against the mixed measure, written out: for a pair at the atom the
/// kernel weight of the others at it, else the kernel ratio of the others beside it (the first c
/// rows of z are x, the last y; c = 0: the marginal density, each other pair of weight c_j).
Vector explicit_terms(const AtomSamples& samples, Index c, const Vector& h,
                      const Vector& weights = Vector()) {
  const Matrix& z = samples.z;
  const Index n = z.cols();
  const Index y = z.rows() - 1;
  Vector terms(n);
  for (Index i = 0; i < n; ++i) {
    std::vector<double> joint;
    std::vector<double> conditioning;
    for (Index j = 0; j < n; ++j) {
      if (j == i) continue;
      const double log_c = weights.size() > 0 ? std::log(weights(j)) : 0.0;
      double log_kx = log_c;
      for (Index d = 0; d < c; ++d) {
        const double u = (z(d, i) - z(d, j)) / h(d);
        log_kx -= 0.5 * u * u;
      }
      conditioning.push_back(log_kx);
      if (samples.flags(i) != samples.flags(j)) continue;
      if (samples.flags(i) == 1.0) {
        joint.push_back(log_kx);  // a probability: the point mass at a
      } else {
        const double u = (z(y, i) - z(y, j)) / h(y);
        joint.push_back(log_kx - 0.5 * u * u - std::log(std::sqrt(2.0 * kPi) * h(y)));
      }
    }
    terms(i) = log_sum(conditioning) - log_sum(joint);
  }
  return terms;
}

TEST(KcdeAtomCriterionTest, MatchesExplicitLeaveOneOutAgainstTheMixedMeasure) {
  const AtomSamples samples = atom_samples(45, -0.8, 1);
  const Vector h = (Vector(3) << 0.4, 0.9, 0.3).finished();
  const Vector log_h = h.array().log().matrix();
  const Vector expected = explicit_terms(samples, 2, h);
  // Every pair (the pairwise path), a subset (each held-out pair against all), both on one and
  // two threads.
  for (const int threads : {1, 2}) {
    const BandwidthLikelihood every(samples.z, 2, {}, threads, {}, {}, local_communicator(),
                                    samples.flags);
    const Vector terms = every.negative_log_likelihoods(log_h);
    for (Index i = 0; i < samples.z.cols(); ++i) {
      EXPECT_NEAR(terms(i), expected(i), 1e-10 * std::max(1.0, std::abs(expected(i))))
          << "pair " << i << (samples.flags(i) == 1.0 ? " (at the atom)" : "");
    }
  }
  const std::vector<Index> chosen{0, 4, 9, 30, 44};
  const Vector some =
      BandwidthLikelihood(samples.z, 2, chosen, 1, {}, {}, local_communicator(), samples.flags)
          .negative_log_likelihoods(log_h);
  for (std::size_t r = 0; r < chosen.size(); ++r) {
    EXPECT_NEAR(some(static_cast<Index>(r)), expected(chosen[r]),
                1e-10 * std::abs(expected(chosen[r])));
  }
  // The marginal counterpart (c = 0): the share of the others at the atom, the kernel density of
  // the others beside it.
  AtomSamples outputs{samples.z.bottomRows(1), samples.flags};
  const Vector marginal =
      BandwidthLikelihood(outputs.z, 0, {}, 1, {}, {}, local_communicator(), outputs.flags)
          .negative_log_likelihoods(log_h.tail(1));
  const Vector marginal_expected = explicit_terms(outputs, 0, h.tail(1));
  for (Index i = 0; i < outputs.z.cols(); ++i) {
    EXPECT_NEAR(marginal(i), marginal_expected(i), 1e-10 * std::max(1.0, std::abs(marginal(i))));
  }
  EXPECT_NEAR(marginal(0), -std::log(14.0 / 44.0), 1e-12);  // 14 of the 44 others at the atom
}

TEST(KcdeAtomCriterionTest, SampleWeightsAndUnderflowingSums) {
  AtomSamples samples = atom_samples(36, 0.5, 2);
  // Pair 1 (beside the atom) and pair 3 (at it) far from every other in x: their sums underflow
  // at these bandwidths and are taken relative to their largest term.
  samples.z(0, 1) = 40.0;
  samples.z(0, 3) = -40.0;
  const Vector h = (Vector(3) << 0.05, 2.0, 0.2).finished();
  const Vector log_h = h.array().log().matrix();
  const Vector weights = test::integer_weights(36);
  for (const bool weighted : {false, true}) {
    const Vector expected = explicit_terms(samples, 2, h, weighted ? weights : Vector());
    const Vector terms = BandwidthLikelihood(samples.z, 2, {}, 1, {}, weighted ? weights : Vector(),
                                             local_communicator(), samples.flags)
                             .negative_log_likelihoods(log_h);
    ASSERT_TRUE(terms.allFinite());
    for (Index i = 0; i < samples.z.cols(); ++i) {
      EXPECT_NEAR(terms(i), expected(i), 1e-9 * std::max(1.0, std::abs(expected(i))))
          << (weighted ? "weighted, " : "") << "pair " << i;
    }
  }
}

TEST(KcdeAtomCriterionTest, GradientMatchesCentralDifferences) {
  const AtomSamples samples = atom_samples(60, 1.2, 3);
  const Vector log_h = (Vector(3) << -0.7, 0.3, -0.9).finished();
  for (const bool weighted : {false, true}) {
    const BandwidthLikelihood likelihood(samples.z, 2, {}, 2, {},
                                         weighted ? test::integer_weights(60) : Vector(),
                                         local_communicator(), samples.flags);
    Vector gradient;
    likelihood.mean_negative_log_likelihood(log_h, &gradient);
    const Vector differences = test::central_differences(
        [&](const Vector& at) { return likelihood.mean_negative_log_likelihood(at); }, log_h, 1e-5);
    for (Index d = 0; d < 3; ++d)
      EXPECT_NEAR(gradient(d), differences(d), 1e-7) << "dimension " << d;
  }
}

TEST(KcdeAtomCriterionTest, RefusesFlagsThatDoNotFit) {
  const AtomSamples samples = atom_samples(12, 0.0, 4);
  // One flag too few, a flag that is neither 0 nor 1, fewer than two pairs at the atom.
  EXPECT_THROW(BandwidthLikelihood(samples.z, 2, {}, 1, {}, {}, local_communicator(),
                                   samples.flags.head(11)),
               InvalidArgument);
  Vector half = samples.flags;
  half(1) = 0.5;
  EXPECT_THROW(BandwidthLikelihood(samples.z, 2, {}, 1, {}, {}, local_communicator(), half),
               InvalidArgument);
  Vector one = Vector::Zero(12);
  one(0) = 1.0;
  EXPECT_THROW(BandwidthLikelihood(samples.z, 2, {}, 1, {}, {}, local_communicator(), one),
               InvalidArgument);
  // Two outputs.
  EXPECT_THROW(
      BandwidthLikelihood(samples.z, 1, {}, 1, {}, {}, local_communicator(), samples.flags),
      InvalidArgument);
}

/// Zero-inflated pairs in the user's units: x ~ N(3, 2²) in two dimensions, y = 0 with
/// probability 1/(1 + e^{x0 − 3}), otherwise log-normal around e^{(x0 − 3)/2}.
test::PairSample zero_inflated(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample data{Matrix(2, n), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    data.x(0, i) = 3.0 + 2.0 * rng.normal();
    data.x(1, i) = 3.0 + 2.0 * rng.normal();
    const double zero = 1.0 / (1.0 + std::exp(data.x(0, i) - 3.0));
    data.y(0, i) =
        rng.uniform() < zero ? 0.0 : std::exp(0.5 * (data.x(0, i) - 3.0) + 0.4 * rng.normal());
  }
  return data;
}

TEST(KcdeAtomTest, FixedBandwidthModelIsTheKernelRatioAgainstTheMixedMeasure) {
  const test::PairSample data = zero_inflated(80, 5);
  KcdeOptions options;
  options.bandwidth = {0.5, 1.5, 0.3};
  options.marginal_mixing = MarginalMixing::none;
  options.atom = "0";
  const ConditionalFit fit = fit_kcde(data.x, data.y);  // atom = auto finds the zeros too
  ASSERT_TRUE(fit.model.atom().has_value());
  EXPECT_EQ(fit.model.atom()->value, 0.0);
  const ConditionalFit given = fit_kcde(data.x, data.y, options);
  ASSERT_TRUE(given.model.atom().has_value());
  EXPECT_EQ(given.report.hyperparameters.at("atom"), 0.0);
  const Index zeros = (data.y.array() == 0.0).count();
  EXPECT_DOUBLE_EQ(given.report.statistics.at("atom_share"), static_cast<double>(zeros) / 80.0);
  // The kernel ratio in the user's units at new inputs: at 0 the kernel share of the zeros, at a
  // positive y the kernel-weighted density of the positive outputs.
  const Standardizer x_scaling = Standardizer::fit(data.x, "x");
  const Standardizer y_scaling = Standardizer::fit(data.y, "y");
  const Matrix queries_x = (Matrix(2, 4) << 1.0, 3.0, 5.0, 3.2, 2.0, 6.0, 3.0, 0.5).finished();
  const Matrix queries_y = (Matrix(1, 4) << 0.0, 0.7, 2.5, 0.0).finished();
  const Vector log_density = given.model.log_pdf(queries_x, queries_y);
  const Matrix z = x_scaling.transform(data.x);
  const Matrix t = y_scaling.transform(data.y);
  const Matrix zq = x_scaling.transform(queries_x);
  const Matrix tq = y_scaling.transform(queries_y);
  for (Index q = 0; q < 4; ++q) {
    double total = 0.0;
    double at_atom = 0.0;
    double density = 0.0;
    for (Index i = 0; i < 80; ++i) {
      const double k = std::exp(-0.5 * (std::pow((zq(0, q) - z(0, i)) / 0.5, 2) +
                                        std::pow((zq(1, q) - z(1, i)) / 1.5, 2)));
      total += k;
      if (data.y(0, i) == 0.0) {
        at_atom += k;
      } else {
        const double u = (tq(0, q) - t(0, i)) / 0.3;
        density += k * std::exp(-0.5 * u * u) / (std::sqrt(2.0 * kPi) * 0.3 * y_scaling.scale()(0));
      }
    }
    const double expected = queries_y(0, q) == 0.0 ? at_atom / total : density / total;
    EXPECT_NEAR(log_density(q), std::log(expected), 1e-10) << "query " << q;
  }
}

TEST(KcdeAtomTest, HeldOutLogDensitiesAreExplicitLeaveOneOutWithTheMarginalMixing) {
  const test::PairSample data = zero_inflated(70, 6);
  KcdeOptions options;
  options.bandwidth = {0.6, 1.2, 0.35};
  options.atom = "0";
  const ConditionalFit fit = fit_kcde(data.x, data.y, options);
  ASSERT_TRUE(fit.report.held_out.has_value());
  const double epsilon = fit.report.hyperparameters.at("marginal_weight");
  EXPECT_GE(epsilon, 1.0 / 70.0);
  // Explicit: (1 − ε) p̂_{−i} + ε p̂₀_{−i} in standardised units, a density taking the Jacobian
  // 1/s_y of y's standardisation, a probability at the atom taking none.
  const Standardizer x_scaling = Standardizer::fit(data.x, "x");
  const Standardizer y_scaling = Standardizer::fit(data.y, "y");
  AtomSamples samples{Matrix(3, 70), (data.y.array() == 0.0).cast<double>().transpose()};
  samples.z << x_scaling.transform(data.x), y_scaling.transform(data.y);
  const Vector h = (Vector(3) << 0.6, 1.2, 0.35).finished();
  const Vector conditional = explicit_terms(samples, 2, h);
  const Vector marginal = explicit_terms({samples.z.bottomRows(1), samples.flags}, 0, h.tail(1));
  for (Index i = 0; i < 70; ++i) {
    const double mixed =
        std::log((1.0 - epsilon) * std::exp(-conditional(i)) + epsilon * std::exp(-marginal(i))) -
        (samples.flags(i) == 1.0 ? 0.0 : std::log(y_scaling.scale()(0)));
    EXPECT_NEAR(fit.report.held_out->log_densities(i), mixed, 1e-9) << "pair " << i;
  }
  // The model's own density at a training pair is not the held-out one, but the model at the
  // pairs is the kernel ratio with every pair: its log-density at an atom pair is at least the
  // held-out one's (it counts the pair itself).
  const Vector in_sample = fit.model.log_pdf(data.x, data.y);
  for (Index i = 0; i < 70; i += 7) {
    if (samples.flags(i) == 1.0) {
      EXPECT_GE(in_sample(i), fit.report.held_out->log_densities(i));
    }
  }
  // With the bandwidths searched, the report's loo_nll is the mean held-out NLL in y's units.
  KcdeOptions searched;
  searched.atom = "0";
  const ConditionalFit search = fit_kcde(data.x, data.y, searched);
  EXPECT_NEAR(search.report.statistics.at("loo_nll"), -search.report.held_out->log_densities.mean(),
              1e-9);
  EXPECT_EQ(search.report.statistics.count("linear_loo_nll"), 0u);  // a density is no probability
  EXPECT_NE(search.report.parameter_choice.find("atom given"), std::string::npos);
}

TEST(KcdeAtomTest, TheRuleFindsAnAtomAndNotAGridOrFewLevels) {
  Rng rng(7);
  Vector zero_inflated(400);
  for (Index i = 0; i < 400; ++i) zero_inflated(i) = i % 4 == 0 ? 0.0 : std::exp(rng.normal());
  const AtomSearch found = find_output_atom(zero_inflated);
  EXPECT_TRUE(found.found);
  EXPECT_EQ(found.value, 0.0);
  EXPECT_EQ(found.count, 100.0);
  EXPECT_EQ(found.next_count, 1.0);
  EXPECT_EQ(found.other_values, 300);
  EXPECT_NE(found.description().find("25 % of the 400 rows"), std::string::npos);
  // A normal y rounded to 0.1: its most frequent value is as frequent as its neighbours.
  Vector rounded(2000);
  for (Index i = 0; i < 2000; ++i) rounded(i) = std::round(10.0 * rng.normal()) / 10.0;
  EXPECT_FALSE(find_output_atom(rounded).found);
  // Few levels besides the candidate: a discrete y.
  Vector levels(300);
  for (Index i = 0; i < 300; ++i) levels(i) = i % 2 == 0 ? 0.0 : static_cast<double>(i % 7);
  EXPECT_FALSE(find_output_atom(levels).found);
  // A value carried by too few rows (4 %), and one at the top of y's range (top-coding).
  Vector rare = zero_inflated;
  for (Index i = 0; i < 400; ++i) {
    if (rare(i) == 0.0 && i % 25 != 0) rare(i) = 3.0 + std::exp(rng.normal());
  }
  EXPECT_FALSE(find_output_atom(rare).found);
  Vector capped = zero_inflated;
  for (Index i = 0; i < 400; ++i) capped(i) = capped(i) == 0.0 ? 50.0 : capped(i);
  EXPECT_TRUE(find_output_atom(capped).found);
  EXPECT_EQ(find_output_atom(capped).value, 50.0);
}

TEST(KcdeAtomTest, TheRuleCountsWeightedRowsAsTheirCopies) {
  // 40 zeros among 400 distinct rows: 10 % of the rows. Written three times each, the positive
  // rows bring the zeros down to 40 of 1,120 (3.6 %), below the rule's 5 %; as weights (the
  // merged identical rows of duplicates = merge) the rule must say the same.
  Rng rng(9);
  Vector y(400);
  Vector weights(400);
  std::vector<double> copies;
  for (Index i = 0; i < 400; ++i) {
    y(i) = i < 40 ? 0.0 : std::exp(rng.normal());
    weights(i) = i < 40 ? 1.0 : 3.0;
    copies.insert(copies.end(), static_cast<std::size_t>(weights(i)), y(i));
  }
  const Vector expanded =
      Eigen::Map<const Vector>(copies.data(), static_cast<Index>(copies.size()));
  EXPECT_TRUE(find_output_atom(y).found);
  for (const double scale : {1.0, 0.25}) {
    const AtomSearch weighted = find_output_atom(y, Vector(scale * weights));
    const AtomSearch repeated = find_output_atom(expanded);
    EXPECT_FALSE(weighted.found);
    EXPECT_EQ(weighted.found, repeated.found);
    EXPECT_DOUBLE_EQ(weighted.count / weighted.n, repeated.count / repeated.n);
    EXPECT_NE(weighted.description().find("of the rows by weight"), std::string::npos);
  }
  // The zeros weighing 3 and the rest 1: found, as on the rows written out.
  const Vector heavy_zeros = (y.array() == 0.0).select(Vector::Constant(400, 3.0), 1.0);
  EXPECT_TRUE(find_output_atom(y, heavy_zeros).found);
  EXPECT_DOUBLE_EQ(find_output_atom(y, heavy_zeros).count, 120.0);
}

TEST(KcdeAtomTest, OptionsChooseFindOrRefuseTheAtom) {
  const test::PairSample data = zero_inflated(60, 8);
  KcdeOptions options;
  options.bandwidth = {0.5, 1.5, 0.3};
  options.atom = "none";
  EXPECT_FALSE(fit_kcde(data.x, data.y, options).model.atom().has_value());
  options.atom = "auto";
  EXPECT_TRUE(fit_kcde(data.x, data.y, options).model.atom().has_value());
  // A value named must be carried by at least 2 rows: one at none is refused, and so is a word.
  options.atom = "3.5";
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_kcde(data.x, data.y, options);
            }).find("0 of the 60 rows"),
            std::string::npos);
  options.atom = "zero";
  EXPECT_THROW(fit_kcde(data.x, data.y, options), InvalidArgument);
  // With a trend the search is off and says so; a given atom is refused.
  options.atom = "auto";
  options.trend = KernelTrend::linear;
  const ConditionalFit linear = fit_kcde(data.x, data.y, options);
  EXPECT_FALSE(linear.model.atom().has_value());
  EXPECT_TRUE(std::any_of(linear.report.warnings.begin(), linear.report.warnings.end(),
                          [](const std::string& w) { return w.find("has an atom") != w.npos; }));
  options.atom = "0";
  EXPECT_THROW(fit_kcde(data.x, data.y, options), InvalidArgument);
  // Two outputs, or a discrete one: auto looks for none, a given atom is refused.
  options.trend = KernelTrend::none;
  options.bandwidth = {0.5, 1.5, 0.3, 0.3};
  Matrix two(2, 60);
  two << data.y, data.y.array() + 1.0;
  options.atom = "auto";
  const ConditionalFit both = fit_kcde(data.x, two, options);
  EXPECT_FALSE(both.model.atom().has_value());
  EXPECT_TRUE(std::any_of(both.report.warnings.begin(), both.report.warnings.end(),
                          [](const std::string& w) { return w.find("y0: 0 carries") != w.npos; }));
  options.atom = "0";
  EXPECT_THROW(fit_kcde(data.x, two, options), InvalidArgument);
  options.bandwidth = {0.5, 1.5, 0.3};
  options.ordered = {2};
  const Matrix levels = data.y.array().round();
  options.atom = "auto";
  EXPECT_FALSE(fit_kcde(data.x, levels, options).model.atom().has_value());
  options.atom = "0";
  EXPECT_THROW(fit_kcde(data.x, levels, options), InvalidArgument);
}

}  // namespace
}  // namespace cdens

namespace cdens {
namespace {

TEST(KcdeAtomTest, AutoDecidesTheAtomOnceAndRunsTheCandidatesThatModelIt) {
  const test::PairSample data = zero_inflated(240, 9);
  AutoOptions options;
  options.candidates = "linear,kcde:n_restarts=0,kcde:trend=linear:n_restarts=0,kcde";
  options.folds = 3;
  const ConditionalModel model = fit_auto(data.x, data.y, options);
  ASSERT_TRUE(model.mixture.atom().has_value());
  EXPECT_EQ(model.mixture.atom()->value, 0.0);
  const auto& candidates = model.report.method_selection->candidates;
  EXPECT_EQ(candidates[0].status.rfind("not run: it models densities", 0), 0u)
      << candidates[0].status;
  EXPECT_TRUE(candidates[1].scored());
  EXPECT_EQ(candidates[2].status.rfind("not run: y has an atom", 0), 0u) << candidates[2].status;
  EXPECT_TRUE(candidates[3].scored());
  EXPECT_NE(model.report.warnings.front().find("y has an atom"), std::string::npos);
  // Every scored candidate's score is against the mixed measure (its K-fold terms are the fold
  // models' log_pdf, a probability at the atom): finite, where a density model would get −∞.
  for (const CandidateScore& score : candidates) {
    if (score.scored()) {
      EXPECT_TRUE(std::isfinite(score.mean_nll));
    }
  }
  // atom = none: every candidate models densities, none an atom.
  options.atom = "none";
  const ConditionalModel densities = fit_auto(data.x, data.y, options);
  EXPECT_FALSE(densities.mixture.atom().has_value());
  EXPECT_TRUE(densities.report.method_selection->candidates[0].scored());
  // A candidate sets no atom of its own.
  options.candidates = "kcde:atom=0";
  EXPECT_THROW(fit_auto(data.x, data.y, options), InvalidArgument);
}

TEST(KcdeAtomTest, APoolOfAtomModelsIsTheWeightedSumOfItsMembers) {
  const test::PairSample data = zero_inflated(90, 10);
  KcdeOptions narrow;
  narrow.bandwidth = {0.4, 1.0, 0.2};
  narrow.atom = "0";
  KcdeOptions wide = narrow;
  wide.bandwidth = {1.2, 2.0, 0.6};
  const ConditionalFit a = fit_kcde(data.x, data.y, narrow);
  const ConditionalFit b = fit_kcde(data.x, data.y, wide);
  const Vector weights = (Vector(2) << 0.3, 0.7).finished();
  const ConditionalMixture pool = pool_mixtures({&a.model, &b.model}, weights);
  ASSERT_TRUE(pool.atom().has_value());
  EXPECT_EQ(pool.atom()->components.size(), 2 * a.model.atom()->components.size());
  const Matrix x = data.x.leftCols(12);
  const Matrix y = data.y.leftCols(12);  // zeros among them
  const Vector expected =
      (0.3 * a.model.log_pdf(x, y).array().exp() + 0.7 * b.model.log_pdf(x, y).array().exp()).log();
  EXPECT_TRUE(pool.log_pdf(x, y).isApprox(expected, 1e-12));
  EXPECT_TRUE(pool.atom_probability(x).isApprox(
      0.3 * a.model.atom_probability(x) + 0.7 * b.model.atom_probability(x), 1e-12));
  EXPECT_TRUE(pool.cdf(x, y).isApprox(0.3 * a.model.cdf(x, y) + 0.7 * b.model.cdf(x, y), 1e-12));
  // A model without the atom, or with another, joins no pool of these.
  KcdeOptions none = narrow;
  none.atom = "none";
  const ConditionalFit c = fit_kcde(data.x, data.y, none);
  EXPECT_FALSE(can_pool(a.model, c.model));
  EXPECT_THROW(pool_mixtures({&a.model, &c.model}, weights), InvalidArgument);
  // Nor does one of the same atom on other pairs: members of other standardisations are moved by
  // trends, which an atom does not take.
  const ConditionalFit d = fit_kcde(data.x.leftCols(70), data.y.leftCols(70), narrow);
  ASSERT_TRUE(d.model.atom().has_value());
  EXPECT_FALSE(can_pool(a.model, d.model));
  EXPECT_THROW(pool_mixtures({&a.model, &d.model}, weights), InvalidArgument);
}

}  // namespace
}  // namespace cdens
