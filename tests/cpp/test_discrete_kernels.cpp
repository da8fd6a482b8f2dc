// Discrete and ordered kernels in KCDE (docs/methods/kcde.md, "Mixed data") against brute force:
// the kernels against their definitions, the leave-one-out criterion with mixed columns against
// the kernel ratio written out and against explicit leave-one-out refits of the model, its
// gradient against central differences, and the fitted model of a discrete y as a probability
// mass function: masses that sum to 1, draws with its frequencies, its moments, step CDF,
// quantiles, highest-mass sets, a model-file round trip, and the errors and warnings of
// declarations.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "core/bandwidth_likelihood.hpp"
#include "core/samples.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// n samples of (x0 continuous, x1 unordered on {2, 5, 7}, x2 ordered on 0 … 4, then the
/// outputs): y0 continuous, y1 ordered on 1 … 5 and y2 unordered on {0, 1, 2}, each depending on
/// the inputs. Every level appears at least twice at n = 60.
Matrix mixed_samples(Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix z(6, n);
  const double categories[] = {2.0, 5.0, 7.0};
  for (Index i = 0; i < n; ++i) {
    z(0, i) = rng.normal();
    z(1, i) = categories[i % 3];
    z(2, i) = std::floor(5.0 * rng.uniform());
    z(3, i) = 0.5 * z(0, i) + 0.2 * z(2, i) + 0.3 * rng.normal();
    z(4, i) = std::clamp(std::round(1.0 + z(2, i) + 0.8 * rng.normal()), 1.0, 5.0);
    z(5, i) = std::fmod(z(1, i) + (rng.uniform() < 0.7 ? 0.0 : 1.0), 3.0);
  }
  return z;
}

ColumnKernels mixed_kernels(const Matrix& z, const std::vector<ColumnKind>& kinds) {
  ColumnKernels kernels;
  for (std::size_t d = 0; d < kinds.size(); ++d) {
    kernels.push_back(kinds[d] == ColumnKind::continuous
                          ? ColumnKernel()
                          : ColumnKernel::of_values(kinds[d], z.row(static_cast<Index>(d)),
                                                    "z" + std::to_string(d)));
  }
  return kernels;
}

const std::vector<ColumnKind> kMixedKinds = {ColumnKind::continuous, ColumnKind::unordered,
                                             ColumnKind::ordered,    ColumnKind::continuous,
                                             ColumnKind::ordered,    ColumnKind::unordered};

/// The smoothing parameters used below: bandwidths for continuous dimensions, λ otherwise.
Vector mixed_smoothing() { return (Vector(6) << 0.6, 0.3, 0.4, 0.5, 0.25, 0.2).finished(); }

/// The criterion's parameters θ of smoothing parameters.
Vector parameters_of(const ColumnKernels& kernels, const Vector& smoothing) {
  Vector theta(smoothing.size());
  for (Index d = 0; d < smoothing.size(); ++d) {
    const ColumnKernel& kernel = kernels[static_cast<std::size_t>(d)];
    theta(d) = kernel.is_discrete() ? kernel.parameter_of(smoothing(d)) : std::log(smoothing(d));
  }
  return theta;
}

TEST(ColumnKernelTest, TablesAreTheKernelsOfThePapers) {
  const ColumnKernel unordered(ColumnKind::unordered, {1.0, 4.0, 9.0});
  const ColumnKernel ordered(ColumnKind::ordered, {0.0, 1.0, 3.0, 4.0});
  const double lambda = 0.3;
  for (const ColumnKernel* kernel : {&unordered, &ordered}) {
    const Matrix weights = kernel->table(lambda, false).log_values.array().exp();
    const Matrix masses = kernel->table(lambda, true).log_values.array().exp();
    for (Index b = 0; b < kernel->n_levels(); ++b) {
      for (Index a = 0; a < kernel->n_levels(); ++a) {
        const double la = kernel->levels()[static_cast<std::size_t>(a)];
        const double lb = kernel->levels()[static_cast<std::size_t>(b)];
        const double expected = kernel->kind() == ColumnKind::unordered
                                    ? test::unordered_kernel(la, lb, lambda, 3)
                                    : test::ordered_kernel(la, lb, lambda);
        EXPECT_NEAR(weights(a, b), expected, 1e-15);
        EXPECT_NEAR(std::exp(kernel->log_weight(la, lb, lambda)), expected, 1e-15);
      }
      // As an output, a probability mass function over the levels.
      EXPECT_NEAR(masses.col(b).sum(), 1.0, 1e-14);
    }
  }
  // Wang–van Ryzin sums to 1 over all integers, not over these levels: normalising changes it.
  EXPECT_GT(std::abs(ordered.table(lambda, false).log_values.array().exp().col(0).sum() - 1.0),
            0.05);
  EXPECT_DOUBLE_EQ(unordered.max_smoothing(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(ordered.max_smoothing(), 1.0);
  EXPECT_NEAR(unordered.smoothing_of(unordered.parameter_of(0.5)), 0.5, 1e-15);
  // A value that is none of the levels is unequal to each of them.
  EXPECT_NEAR(std::exp(unordered.log_weight(2.0, 1.0, lambda)), lambda / 2, 1e-15);
  EXPECT_EQ(ordered.level_index(3.0), 2);
  EXPECT_EQ(ordered.level_index(2.0), -1);
}

TEST(ColumnKernelTest, DerivativesMatchCentralDifferences) {
  const ColumnKernel unordered(ColumnKind::unordered, {1.0, 4.0, 9.0});
  const ColumnKernel ordered(ColumnKind::ordered, {0.0, 1.0, 3.0, 4.0});
  for (const ColumnKernel* kernel : {&unordered, &ordered}) {
    for (const bool normalized : {false, true}) {
      for (const double theta : {-2.0, 0.3, 2.5}) {
        const ColumnKernelTable table = kernel->table_at_parameter(theta, normalized);
        const double step = 1e-6;
        const Matrix difference =
            (kernel->table_at_parameter(theta + step, normalized).log_values -
             kernel->table_at_parameter(theta - step, normalized).log_values) /
            (2 * step);
        EXPECT_LT((table.derivatives - difference).cwiseAbs().maxCoeff(), 1e-8)
            << to_string(kernel->kind()) << (normalized ? " normalised" : "") << " at " << theta;
        const ColumnKernelTable direct = kernel->table(kernel->smoothing_of(theta), normalized);
        EXPECT_LT((table.log_values - direct.log_values).cwiseAbs().maxCoeff(), 1e-12);
      }
    }
  }
}

TEST(ColumnKernelTest, RefusesBadLevelsNamingTheColumn) {
  EXPECT_NE(test::message_of<InvalidArgument>([] {
              ColumnKernel::of_values(ColumnKind::unordered, Vector::Constant(5, 3.0), "colour");
            }).find("column colour is declared unordered but has only one level (3)"),
            std::string::npos);
  const Vector halves = (Vector(3) << 1.0, 1.5, 2.0).finished();
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              ColumnKernel::of_values(ColumnKind::ordered, halves, "grade");
            }).find("column grade is declared ordered but holds the value 1.5"),
            std::string::npos);
  const ColumnKernel kernel(ColumnKind::unordered, {0.0, 1.0});
  EXPECT_THROW(kernel.require_smoothing(0.6, "x"), InvalidArgument);
  EXPECT_THROW(kernel.require_smoothing(0.0, "x"), InvalidArgument);
  EXPECT_NO_THROW(kernel.require_smoothing(0.5, "x"));
}

TEST(DiscreteLikelihoodTest, MixedColumnsMatchExplicitLeaveOneOut) {
  const Matrix z = mixed_samples(60, 21);
  const ColumnKernels kernels = mixed_kernels(z, kMixedKinds);
  const Vector smoothing = mixed_smoothing();
  const Vector theta = parameters_of(kernels, smoothing);
  // c = 3: x = (x0, x1, x2), y = (y0, y1, y2) mixed; c = 0: a density of all six.
  for (const Index c : {0, 3}) {
    const BandwidthLikelihood likelihood(z, c, {}, 2, kernels);
    const Vector terms = likelihood.negative_log_likelihoods(theta);
    const Vector expected = test::explicit_leave_one_out(z, c, kernels, smoothing);
    for (Index i = 0; i < z.cols(); ++i) {
      EXPECT_NEAR(terms(i), expected(i), 1e-10 * std::max(1.0, std::abs(expected(i))))
          << "c = " << c << ", sample " << i;
    }
    // The same terms for a subset of held-out samples.
    const std::vector<Index> chosen = {5, 0, 59, 17};
    const Vector some =
        BandwidthLikelihood(z, c, chosen, 1, kernels).negative_log_likelihoods(theta);
    for (std::size_t r = 0; r < chosen.size(); ++r) {
      EXPECT_NEAR(some(static_cast<Index>(r)), terms(chosen[r]),
                  1e-12 * std::abs(terms(chosen[r])));
    }
  }
  // Discrete inputs with an unordered output only: every pair visited once (symmetric kernels).
  const std::vector<Index> rows = {0, 1, 2, 5};
  const Matrix symmetric = gather_rows(z, rows);
  const ColumnKernels symmetric_kernels = {kernels[0], kernels[1], kernels[2], kernels[5]};
  const Vector symmetric_smoothing = (Vector(4) << 0.6, 0.3, 0.4, 0.2).finished();
  const Vector symmetric_terms =
      BandwidthLikelihood(symmetric, 3, {}, 1, symmetric_kernels)
          .negative_log_likelihoods(parameters_of(symmetric_kernels, symmetric_smoothing));
  const Vector symmetric_expected =
      test::explicit_leave_one_out(symmetric, 3, symmetric_kernels, symmetric_smoothing);
  EXPECT_LT((symmetric_terms - symmetric_expected).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(DiscreteLikelihoodTest, TermsAreThoseOfExplicitLeaveOneOutRefits) {
  // Each term is −log p̂(y_i | x_i) of the model refitted without pair i (same kernels and
  // smoothing, identity standardisation): the criterion scores the model the fit returns.
  const Matrix z = mixed_samples(60, 22);
  const ColumnKernels kernels = mixed_kernels(z, kMixedKinds);
  const Vector smoothing = mixed_smoothing();
  const Vector terms = BandwidthLikelihood(z, 3, {}, 1, kernels)
                           .negative_log_likelihoods(parameters_of(kernels, smoothing));
  const ColumnKernels inputs(kernels.begin(), kernels.begin() + 3);
  const ColumnKernels outputs(kernels.begin() + 3, kernels.end());
  for (const Index i : {0, 7, 33, 59}) {
    std::vector<Index> others;
    for (Index j = 0; j < z.cols(); ++j) {
      if (j != i) others.push_back(j);
    }
    const Matrix rest = gather_samples(z, others);
    const ConditionalMixture refit(
        Standardizer::identity(3), Standardizer::identity(3),
        std::make_shared<const ProductKernelGate>(rest.topRows(3), smoothing.head(3), inputs),
        MixtureOutputs::gaussian(rest.bottomRows(3), smoothing.tail(3).replicate(1, rest.cols()))
            .with_output_kernels(outputs));
    const double log_p = refit.log_pdf(z.col(i).head(3), z.col(i).tail(3))(0);
    EXPECT_NEAR(-log_p, terms(i), 1e-10 * std::abs(terms(i))) << "sample " << i;
  }
}

TEST(DiscreteLikelihoodTest, GradientMatchesCentralDifferences) {
  const Matrix z = mixed_samples(80, 23);
  const ColumnKernels kernels = mixed_kernels(z, kMixedKinds);
  const Vector theta = parameters_of(kernels, mixed_smoothing());
  for (const Index c : {0, 3}) {
    for (const bool subset : {false, true}) {
      const BandwidthLikelihood likelihood(
          z, c, subset ? std::vector<Index>{1, 4, 9, 16, 25, 36, 49, 64} : std::vector<Index>{}, 2,
          kernels);
      Vector gradient;
      likelihood.mean_negative_log_likelihood(theta, &gradient);
      const Vector differences = test::central_differences(
          [&](const Vector& at) { return likelihood.mean_negative_log_likelihood(at); }, theta,
          1e-5);
      for (Index d = 0; d < z.rows(); ++d) {
        EXPECT_NEAR(gradient(d), differences(d), 1e-7)
            << "c = " << c << (subset ? ", held-out subset" : "") << ", dimension " << d;
      }
    }
  }
}

/// y ∈ {1, …, 5} whose level rises with x (a quality score).
test::PairSample ordered_outputs(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{Matrix(1, n), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    sample.x(0, i) = rng.normal();
    sample.y(0, i) = std::clamp(std::round(3.0 + sample.x(0, i) + 0.7 * rng.normal()), 1.0, 5.0);
  }
  return sample;
}

KcdeOptions ordered_output_options() {
  KcdeOptions options;
  options.ordered = {1};
  return options;
}

TEST(DiscreteOutputTest, FitIsAProbabilityMassFunctionOverTheLevels) {
  const test::PairSample train = ordered_outputs(300, 31);
  const ConditionalFit fit = fit_kcde(train.x, train.y, ordered_output_options());
  EXPECT_TRUE(fit.model.output_kernels()[0].is_discrete());
  const double lambda = fit.report.hyperparameters.at("bandwidth_y0");
  EXPECT_GT(lambda, 0.0);
  EXPECT_LT(lambda, 1.0);
  EXPECT_TRUE(std::isfinite(fit.report.statistics.at("loo_nll")));
  EXPECT_EQ(fit.report.statistics.count("linear_loo_nll"), 0u);
  const Matrix levels = (Matrix(1, 5) << 1, 2, 3, 4, 5).finished();
  const Matrix inputs = (Matrix(1, 4) << -2.0, 0.0, 0.7, 9.0).finished();
  const Matrix masses = fit.model.pdf_grid(inputs, levels);
  for (Index j = 0; j < inputs.cols(); ++j) {
    EXPECT_NEAR(masses.col(j).sum(), 1.0, 1e-12) << "x = " << inputs(0, j);
  }
  // log_pdf is the log mass; a value that is no level has none.
  const Vector log_masses = fit.model.log_pdf(Matrix::Constant(1, 5, 0.7), levels);
  for (Index l = 0; l < 5; ++l) EXPECT_NEAR(std::exp(log_masses(l)), masses(l, 2), 1e-14);
  EXPECT_EQ(fit.model.log_pdf(Matrix::Constant(1, 1, 0.7), Matrix::Constant(1, 1, 2.5))(0),
            -INFINITY);
  // The mass moves up with x.
  EXPECT_GT(fit.model.mean(inputs)(0, 2), fit.model.mean(inputs)(0, 1));
}

TEST(DiscreteOutputTest, QueriesAreThoseOfTheMasses) {
  const test::PairSample train = ordered_outputs(200, 32);
  const ConditionalFit fit = fit_kcde(train.x, train.y, ordered_output_options());
  const ConditionalMixture& model = fit.model;
  const Matrix x = Matrix::Constant(1, 1, 0.4);
  const Matrix levels = (Matrix(1, 5) << 1, 2, 3, 4, 5).finished();
  const Vector p = model.pdf_grid(x, levels).col(0);
  // Moments.
  const Vector values = levels.row(0).transpose();
  const double mean = p.dot(values);
  EXPECT_NEAR(model.mean(x)(0, 0), mean, 1e-12);
  EXPECT_NEAR(model.covariance(x)(0, 0), p.dot((values.array() - mean).square().matrix()), 1e-12);
  EXPECT_NEAR(model.squared_norm(x)(0), p.squaredNorm(), 1e-12);
  // A step CDF, discrete quantiles and a highest-mass set of levels.
  double total = 0.0;
  for (Index l = 0; l < 5; ++l) {
    total += p(l);
    EXPECT_NEAR(model.cdf(x, Matrix::Constant(1, 1, values(l)))(0), std::min(total, 1.0), 1e-12);
    EXPECT_NEAR(model.cdf(x, Matrix::Constant(1, 1, values(l) + 0.5))(0), std::min(total, 1.0),
                1e-12);
  }
  EXPECT_EQ(model.cdf(x, Matrix::Constant(1, 1, 0.5))(0), 0.0);
  const double first = p(0) + p(1);
  const Matrix quantiles = model.quantiles(x, {first - 1e-6, first + 1e-6});
  EXPECT_EQ(quantiles(0, 0), 2.0);
  EXPECT_EQ(quantiles(1, 0), 3.0);
  const HighestDensityRegion region = model.highest_density_regions(x, 0.8).front();
  double covered = 0.0;
  for (const Interval& interval : region.intervals) {
    EXPECT_EQ(interval.lower, interval.upper);
    covered += p(static_cast<Index>(interval.lower) - 1);
    EXPECT_GE(p(static_cast<Index>(interval.lower) - 1), region.density_threshold * (1 - 1e-12));
  }
  EXPECT_GE(covered, 0.8);
  EXPECT_LT(covered - region.density_threshold, 0.8);  // one level fewer would not do
}

TEST(DiscreteOutputTest, DrawsHaveTheFrequenciesOfTheMasses) {
  const test::PairSample train = ordered_outputs(200, 33);
  const ConditionalFit fit = fit_kcde(train.x, train.y, ordered_output_options());
  const Matrix x = Matrix::Constant(1, 1, -0.3);
  const Vector p = fit.model.pdf_grid(x, (Matrix(1, 5) << 1, 2, 3, 4, 5).finished()).col(0);
  const Index draws = 20000;
  const Matrix sample = fit.model.sample(x, draws, 7);
  std::map<double, Index> counts;
  for (Index r = 0; r < draws; ++r) ++counts[sample(0, r)];
  double chi_square = 0.0;
  for (Index l = 0; l < 5; ++l) {
    const double expected = static_cast<double>(draws) * p(l);
    const double observed = static_cast<double>(counts[static_cast<double>(l + 1)]);
    chi_square += (observed - expected) * (observed - expected) / expected;
  }
  EXPECT_EQ(static_cast<Index>(counts.size()), 5);  // nothing but the levels
  // The 0.999 quantile of χ² with 4 degrees of freedom.
  EXPECT_LT(chi_square, 18.47);
}

TEST(DiscreteOutputTest, MixedOutputsIntegrateToOneAndSurviveAModelFile) {
  // y0 continuous, y1 unordered: summed over y1's levels, the density of y0 integrates to 1.
  const Matrix z = mixed_samples(120, 34);
  const Matrix x = gather_rows(z, {0, 1, 2});
  const Matrix y = gather_rows(z, {3, 5});
  KcdeOptions options;
  options.discrete = {1, 4};
  options.ordered = {2};
  const ConditionalFit fit = fit_kcde(x, y, options);
  EXPECT_TRUE(fit.report.hyperparameters.count("bandwidth_x1"));
  EXPECT_TRUE(fit.report.hyperparameters.count("bandwidth_x2"));
  EXPECT_TRUE(fit.report.hyperparameters.count("bandwidth_y1"));
  EXPECT_TRUE(fit.report.hyperparameters.count("bandwidth_y0"));
  const Vector query = x.col(3);
  const Index points = 4001;
  Matrix grid(2, 3 * points);
  for (Index l = 0; l < 3; ++l) {
    for (Index g = 0; g < points; ++g) {
      grid(0, l * points + g) = -6.0 + 12.0 * static_cast<double>(g) / (points - 1);
      grid(1, l * points + g) = static_cast<double>(l);
    }
  }
  const Vector values = fit.model.pdf_grid(query, grid).col(0);
  double total = 0.0;
  const double step = 12.0 / (points - 1);
  for (Index g = 0; g < 3 * points; ++g) {
    const bool end = g % points == 0 || g % points == points - 1;
    total += (end ? 0.5 : 1.0) * step * values(g);
  }
  EXPECT_NEAR(total, 1.0, 1e-6);
  test::expect_model_file_round_trip(fit.model, fit.report, x.leftCols(20), y.leftCols(20));
}

TEST(DiscreteOutputTest, MoreLevelsThanHalfTheRowsAreWarnedWithTheirCount) {
  // A continuous y declared discrete: every value is its own level, so a new y scores −∞.
  const test::PairSample train = ordered_outputs(40, 36);
  Matrix continuous_y = train.x.row(0) * 2.5;
  KcdeOptions options;
  options.discrete = {1};
  FitContext context;
  context.column_names = {"x", "yield"};
  const auto warned = [](const FitReport& report, const std::string& text) {
    return std::any_of(
        report.warnings.begin(), report.warnings.end(),
        [&](const std::string& warning) { return warning.find(text) != std::string::npos; });
  };
  const ConditionalFit fit = fit_kcde(train.x, continuous_y, options, context);
  EXPECT_TRUE(warned(fit.report,
                     "column yield is declared unordered discrete but has 40 levels in "
                     "40 rows (more than half)"));
  EXPECT_TRUE(warned(fit.report, "a new value of it has probability 0"));
  // Half the rows or fewer: no warning (ordered_outputs has a few integer levels).
  const ConditionalFit declared = fit_kcde(train.x, train.y, ordered_output_options());
  EXPECT_FALSE(warned(declared.report, "levels in"));
}

TEST(DiscreteOutputTest, LabelsSurviveAModelFileAndOnlyTheyMakeItVersionTwo) {
  const test::PairSample train = ordered_outputs(60, 37);
  const ConditionalFit fit = fit_kcde(train.x, train.y, ordered_output_options());
  ConditionalModel model{fit.model, {"x"}, {"grade"}, fit.report, {}};
  EXPECT_EQ(conditional_model_to_json(model)["version"], 1);
  const std::vector<double>& levels = fit.model.output_kernels().front().levels();
  ColumnLabels labels;
  for (std::size_t k = 0; k <= static_cast<std::size_t>(levels.back()); ++k) {
    labels.push_back("grade " + std::to_string(k));
  }
  model.labels["grade"] = labels;
  const nlohmann::json document = conditional_model_to_json(model);
  EXPECT_EQ(document["version"], 2);
  const ConditionalModel loaded = conditional_model_from_json(document);
  EXPECT_EQ(loaded.labels, model.labels);
  EXPECT_EQ(loaded.mixture.log_pdf(train.x, train.y), fit.model.log_pdf(train.x, train.y));
  // Labels of a continuous or unknown variable, too few for the levels, repeated: refused.
  for (const auto& [name, bad] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"nothing", nlohmann::json::array({"a", "b"})},
           {"grade", nlohmann::json::array({"a"})},
           {"grade", nlohmann::json::array({"a", "a", "b", "c", "d", "e", "f", "g"})},
           {"grade", nlohmann::json::array({1, 2})}}) {
    nlohmann::json broken = document;
    broken["variables"]["labels"] = {{name, bad}};
    EXPECT_THROW(conditional_model_from_json(broken), ModelFormatError) << name << bad.dump();
  }
}

TEST(DiscreteOutputTest, DeclarationsAreCheckedAndUndeclaredDiscreteColumnsWarned) {
  const test::PairSample train = ordered_outputs(100, 35);
  // Undeclared: a warning that says how to declare it.
  const ConditionalFit plain = fit_kcde(train.x, train.y);
  ASSERT_FALSE(plain.report.warnings.empty());
  EXPECT_NE(plain.report.warnings.front().find("column y0 looks discrete"), std::string::npos);
  // In the command's spelling (the default): Python's module installs its own
  // (tests/python/test_front_end_names.py).
  EXPECT_NE(plain.report.warnings.front().find("--ordered y0"), std::string::npos);
  EXPECT_EQ(plain.report.warnings.front().find("ordered=["), std::string::npos);
  // Declared: no such warning.
  for (const auto& warning : fit_kcde(train.x, train.y, ordered_output_options()).report.warnings) {
    EXPECT_EQ(warning.find("looks discrete"), std::string::npos) << warning;
  }
  const auto message = [&](KcdeOptions options, const Matrix& x, const Matrix& y) {
    return test::message_of<InvalidArgument>([&] { fit_kcde(x, y, options); });
  };
  KcdeOptions twice = ordered_output_options();
  twice.discrete = {1};
  EXPECT_NE(message(twice, train.x, train.y).find("column y0 is declared discrete more than once"),
            std::string::npos);
  KcdeOptions outside;
  outside.ordered = {2};
  EXPECT_NE(message(outside, train.x, train.y).find("out of range"), std::string::npos);
  KcdeOptions continuous_x;
  continuous_x.ordered = {0};
  EXPECT_NE(message(continuous_x, train.x, train.y).find("column x0 is declared ordered but holds"),
            std::string::npos);
  KcdeOptions trend = ordered_output_options();
  trend.trend = KernelTrend::linear;
  EXPECT_NE(message(trend, train.x, train.y).find("trend = linear needs continuous outputs"),
            std::string::npos);
  KcdeOptions bad_lambda = ordered_output_options();
  bad_lambda.bandwidth = {0.5, 1.0};
  EXPECT_NE(message(bad_lambda, train.x, train.y).find("λ of ordered column y0 must lie in (0, 1)"),
            std::string::npos);
  // With the column names of the command line.
  Matrix one_level(2, 100);
  one_level << train.x, Matrix::Constant(1, 100, 4.0);
  KcdeOptions named;
  named.discrete = {1};
  FitContext context;
  context.column_names = {"alcohol", "colour", "quality"};
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_kcde(one_level, train.y, named, context);
            }).find("column colour is declared unordered but has only one level (4)"),
            std::string::npos);
}

}  // namespace
}  // namespace cdens
