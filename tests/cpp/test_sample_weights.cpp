// Sample weights (docs: README "Sample weights", docs/methods/*.md): integer weights against the
// rows repeated, the weighted leave-one-out criteria against explicit leave-one-out, rows of
// weight 0 against dropping them, scaling every weight, the refusals, and the kernel gate's row
// weights through a model file.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/cdens.hpp"
#include "core/bandwidth_likelihood.hpp"
#include "core/sample_weights.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Expects log_pdf of two conditional models to agree within `tolerance` at `x`, `y`.
void expect_same_densities(const ConditionalMixture& a, const ConditionalMixture& b,
                           const Matrix& x, const Matrix& y, double tolerance) {
  const Vector first = a.log_pdf(x, y);
  const Vector second = b.log_pdf(x, y);
  EXPECT_LT((first - second).cwiseAbs().maxCoeff(), tolerance);
}

void expect_same_densities(const GaussianMixture& a, const GaussianMixture& b, const Matrix& x,
                           double tolerance) {
  EXPECT_LT((a.log_pdf(x) - b.log_pdf(x)).cwiseAbs().maxCoeff(), tolerance);
}

// -- the checks every weighted fit shares --------------------------------------------------------

TEST(SampleWeights, RefusesWeightsThatAreNotNonNegativeFiniteNumbers) {
  EXPECT_EQ(
      test::message_of<InvalidArgument>([] { validate_sample_weights(Vector::Ones(3), 4, "w"); }),
      "w has 3 weights for 4 rows");
  Vector weights = Vector::Ones(4);
  weights(2) = -1.0;
  EXPECT_EQ(test::message_of<InvalidArgument>([&] { validate_sample_weights(weights, 4, "w"); }),
            "w: the weight of row 2 is -1; weights must be non-negative finite numbers");
  weights(2) = std::nan("");
  EXPECT_THROW(validate_sample_weights(weights, 4, "w"), InvalidArgument);
  weights(2) = INFINITY;
  EXPECT_THROW(validate_sample_weights(weights, 4, "w"), InvalidArgument);
  EXPECT_EQ(
      test::message_of<InvalidArgument>([] { validate_sample_weights(Vector::Zero(4), 4, "w"); }),
      "w: every weight is zero");
  EXPECT_NO_THROW(validate_sample_weights(Vector::Unit(4, 1), 4, "w"));
}

TEST(SampleWeights, KishEffectiveSizeIgnoresScale) {
  EXPECT_DOUBLE_EQ(effective_sample_size(Vector::Constant(5, 3.0)), 5.0);
  const Vector weights = test::integer_weights(6);
  EXPECT_NEAR(effective_sample_size(weights), effective_sample_size(0.01 * weights), 1e-12);
  EXPECT_NEAR(effective_sample_size(weights), 144.0 / 28.0, 1e-12);
}

TEST(SampleWeights, WeightedStandardizerIsTheUnweightedOneForEqualWeights) {
  const test::PairSample data = test::sine_sample(40, 2, 3);
  const Standardizer plain = Standardizer::fit(data.x, "x");
  const Standardizer equal = Standardizer::fit(data.x, Vector::Constant(40, 2.5), "x");
  EXPECT_LT((plain.mean() - equal.mean()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((plain.scale() - equal.scale()).cwiseAbs().maxCoeff(), 1e-12);
  // The weighted mean, and a spread with Kish's n_e in Bessel's correction.
  const Vector weights = test::integer_weights(40);
  const Standardizer fitted = Standardizer::fit(data.x, weights, "x");
  const Vector mean = data.x * weights / weights.sum();
  const double n_e = effective_sample_size(weights);
  for (Index d = 0; d < 2; ++d) {
    const double spread =
        (data.x.row(d).array() - mean(d)).square().matrix().dot(weights) / weights.sum();
    EXPECT_NEAR(fitted.mean()(d), mean(d), 1e-12);
    EXPECT_NEAR(fitted.scale()(d), std::sqrt(spread * n_e / (n_e - 1.0)), 1e-12);
  }
}

TEST(SampleWeights, MethodsWithoutWeightsRefuseThemNamingTheSupportedOnes) {
  const test::PairSample data = test::sine_sample(30, 1, 4);
  const std::string message = test::message_of<InvalidArgument>([&] {
    fit_method(find_method("nwcde"), data.x, data.y, Matrix(1, 0), {},
               test::weighted_context(Vector::Ones(30)));
  });
  EXPECT_EQ(message,
            "nwcde does not support sample weights; supported: auto, gmm, gskd, kcde, linear, "
            "lscde, parzen, rsde, skd");
  EXPECT_THROW(fit_method(find_method("press"), data.x, data.y, Matrix(1, 0), {},
                          test::weighted_context(Vector::Ones(30))),
               InvalidArgument);
}

TEST(SampleWeights, RegistryRefusesBadWeightsBeforeTheFit) {
  const test::PairSample data = test::sine_sample(30, 1, 4);
  const MethodEntry& linear = find_method("linear");
  const auto fit = [&](const Vector& weights) {
    return fit_method(linear, data.x, data.y, Matrix(1, 0), {}, test::weighted_context(weights));
  };
  EXPECT_EQ(test::message_of<InvalidArgument>([&] { fit(Vector::Ones(29)); }),
            "sample weights has 29 weights for 30 rows");
  Vector negative = Vector::Ones(30);
  negative(7) = -2.0;
  EXPECT_EQ(test::message_of<InvalidArgument>([&] { fit(negative); }),
            "sample weights: the weight of row 7 is -2; weights must be non-negative finite "
            "numbers");
  EXPECT_THROW(fit(Vector::Zero(30)), InvalidArgument);
  Vector not_a_number = Vector::Ones(30);
  not_a_number(0) = std::nan("");
  EXPECT_THROW(fit(not_a_number), InvalidArgument);
}

TEST(SampleWeights, RowsOfWeightZeroAreRowsTheFitNeverSees) {
  const test::PairSample data = test::sine_sample(40, 2, 5);
  Vector weights = test::integer_weights(40);
  std::vector<Index> kept;
  for (Index i = 0; i < 40; ++i) {
    if (i % 5 == 0) {
      weights(i) = 0.0;
    } else {
      kept.push_back(i);
    }
  }
  OptionValues kcde_options;
  kcde_options["bandwidth"] = std::vector<double>{0.4, 0.6, 0.3};
  for (const auto& [name, options] :
       std::vector<std::pair<std::string, OptionValues>>{{"linear", {}}, {"kcde", kcde_options}}) {
    const MethodEntry& method = find_method(name);
    const ConditionalModel with_zeros =
        fit_method(method, data.x, data.y, Matrix(2, 0), options, test::weighted_context(weights));
    const ConditionalModel dropped =
        fit_method(method, data.x(Eigen::all, kept), data.y(Eigen::all, kept), Matrix(2, 0),
                   options, test::weighted_context(weights(kept)));
    EXPECT_EQ(test::fit_fingerprint(with_zeros.mixture, with_zeros.report),
              test::fit_fingerprint(dropped.mixture, dropped.report))
        << name;
  }
}

// -- the linear-Gaussian baseline -----------------------------------------------------------------

/// A heteroscedastic line in two inputs.
test::PairSample linear_sample(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(2, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    const double spread = 0.3 * std::exp(0.4 * sample.x(0, i));
    sample.y(0, i) = 2.0 + 1.5 * sample.x(0, i) - 0.5 * sample.x(1, i) + spread * rng.normal();
  }
  sample.x.row(1) = (sample.x.row(1).array() * 4.0 + 10.0).matrix();
  return sample;
}

TEST(LinearSampleWeights, IntegerWeightsEqualTheRowsRepeated) {
  const test::PairSample data = linear_sample(60, 1);
  const test::PairSample query = linear_sample(20, 2);
  const Vector weights = test::integer_weights(60);
  for (const LinearVariance variance : {LinearVariance::constant, LinearVariance::log_linear}) {
    LinearOptions options;
    options.variance = variance;
    const ConditionalFit with_weights =
        fit_linear(data.x, data.y, options, test::weighted_context(weights));
    const ConditionalFit with_rows = fit_linear(test::repeated_columns(data.x, weights),
                                                test::repeated_columns(data.y, weights), options);
    expect_same_densities(with_weights.model, with_rows.model, query.x, query.y, 1e-8);
  }
}

TEST(LinearSampleWeights, ScalingEveryWeightChangesNothing) {
  const test::PairSample data = linear_sample(50, 3);
  const test::PairSample query = linear_sample(20, 4);
  const Vector weights = test::integer_weights(50);
  const ConditionalFit fit = fit_linear(data.x, data.y, {}, test::weighted_context(weights));
  const ConditionalFit scaled =
      fit_linear(data.x, data.y, {}, test::weighted_context(0.013 * weights));
  expect_same_densities(fit.model, scaled.model, query.x, query.y, 1e-9);
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), scaled.report.statistics.at("loo_nll"), 1e-9);
}

TEST(LinearSampleWeights, LeaveOneOutDropsARowWithAllItsWeight) {
  // Σ_i c_i log p_{−i}(y_i | x_i) / Σc, p_{−i} the weighted fit without row i: refitted here.
  const Index n = 40;
  const test::PairSample data = linear_sample(n, 5);
  const Vector weights = test::integer_weights(n);
  for (const auto& [variance, statistic] : std::vector<std::pair<LinearVariance, std::string>>{
           {LinearVariance::constant, "loo_nll_constant_variance"},
           {LinearVariance::log_linear, "loo_nll_log_linear_variance"}}) {
    LinearOptions options;
    options.variance = variance;
    double total = 0.0;
    for (Index i = 0; i < n; ++i) {
      std::vector<Index> others;
      for (Index j = 0; j < n; ++j) {
        if (j != i) others.push_back(j);
      }
      const ConditionalFit without =
          fit_linear(data.x(Eigen::all, others), data.y(Eigen::all, others), options,
                     test::weighted_context(weights(others)));
      total -= weights(i) * without.model.log_pdf(data.x.col(i), data.y.col(i))(0);
    }
    const ConditionalFit fit = fit_linear(data.x, data.y, options, test::weighted_context(weights));
    // The log-linear spread's refits stop at a tolerance of 1e-12 per pair in the mean NLL.
    EXPECT_NEAR(fit.report.statistics.at(statistic), total / weights.sum(), 1e-6) << statistic;
  }
}

TEST(LinearSampleWeights, OutputTransformsRefuseWeights) {
  const test::PairSample data = linear_sample(30, 6);
  LinearOptions options;
  options.y_transform = OutputTransformChoice::yeo_johnson;
  EXPECT_THROW(
      fit_linear(data.x, data.y, options, test::weighted_context(test::integer_weights(30))),
      InvalidArgument);
}

// -- Parzen window
// ----------------------------------------------------------------------------------

TEST(ParzenSampleWeights, IntegerWeightsEqualTheRowsRepeated) {
  Rng rng(7);
  const Matrix x = test::normal_matrix(2, 50, rng);
  const Matrix query = test::normal_matrix(2, 20, rng);
  const Vector weights = test::integer_weights(50);
  ParzenOptions options;
  options.bandwidth = {0.4};
  options.standardize = false;  // the standardisation's n − 1 is Kish's with weights
  const DensityFit with_weights = fit_parzen(x, options, test::weighted_context(weights));
  const DensityFit with_rows = fit_parzen(test::repeated_columns(x, weights), options);
  expect_same_densities(with_weights.model, with_rows.model, query, 1e-10);
}

TEST(ParzenSampleWeights, CriteriaAreTheWeightedLeaveOneOutOnes) {
  Rng rng(8);
  const Index n = 30;
  const Matrix z = test::normal_matrix(2, n, rng);
  const Vector c = test::integer_weights(n) + Vector::LinSpaced(n, 0.0, 0.5);
  const std::vector<double> widths = {0.3, 0.8};
  const double total = c.sum();
  for (const ParzenCriterion criterion :
       {ParzenCriterion::leave_one_out_likelihood, ParzenCriterion::least_squares}) {
    const Vector values = parzen_criterion(z, widths, criterion, 1, nullptr, c);
    for (std::size_t w = 0; w < widths.size(); ++w) {
      const double gamma = widths[w];
      const auto kernel = [&](Index i, Index j, double width) {
        return std::exp(-0.5 * (z.col(i) - z.col(j)).squaredNorm() / (width * width)) /
               (2.0 * M_PI * width * width);
      };
      double expected = 0.0;
      for (Index i = 0; i < n; ++i) {
        double others = 0.0;
        double leave_one_out = 0.0;
        double square = 0.0;
        for (Index j = 0; j < n; ++j) {
          square += c(i) * c(j) * kernel(i, j, std::sqrt(2.0) * gamma) / (total * total);
          if (j == i) continue;
          others += c(j);
          leave_one_out += c(j) * kernel(i, j, gamma);
        }
        leave_one_out /= others;
        expected += criterion == ParzenCriterion::leave_one_out_likelihood
                        ? -c(i) * std::log(leave_one_out) / total
                        : square - 2.0 * c(i) * leave_one_out / total;
      }
      EXPECT_NEAR(values(static_cast<Index>(w)), expected, 1e-12) << to_string(criterion);
    }
  }
}

TEST(ParzenSampleWeights, PerDimensionWidthsMaximiseTheWeightedLeaveOneOutLikelihood) {
  Rng rng(9);
  Matrix x = test::normal_matrix(2, 40, rng);
  x.row(1) *= 3.0;
  const Vector weights = test::integer_weights(40);
  ParzenOptions options;
  options.per_dimension = true;
  options.standardize = false;
  const DensityFit fit = fit_parzen(x, options, test::weighted_context(weights));
  const Vector widths = (Vector(2) << fit.report.hyperparameters.at("bandwidth_0"),
                         fit.report.hyperparameters.at("bandwidth_1"))
                            .finished();
  const Vector terms = test::explicit_leave_one_out(x, 0, ColumnKernels(2), widths, weights);
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), terms.dot(weights) / weights.sum(), 1e-9);
  // A maximum: each width moved by 1% lowers the weighted likelihood.
  for (Index d = 0; d < 2; ++d) {
    for (const double factor : {0.99, 1.01}) {
      Vector moved = widths;
      moved(d) *= factor;
      const Vector moved_terms =
          test::explicit_leave_one_out(x, 0, ColumnKernels(2), moved, weights);
      EXPECT_GT(moved_terms.dot(weights), terms.dot(weights));
    }
  }
  EXPECT_NEAR(fit.model.weights()(2) / fit.model.weights()(0), 3.0, 1e-12);
}

TEST(ParzenSampleWeights, ChosenWidthIgnoresTheScaleOfTheWeights) {
  Rng rng(10);
  const Matrix x = test::normal_matrix(1, 60, rng);
  const Vector weights = test::integer_weights(60);
  const DensityFit fit = fit_parzen(x, {}, test::weighted_context(weights));
  const DensityFit scaled = fit_parzen(x, {}, test::weighted_context(1e-3 * weights));
  EXPECT_NEAR(fit.report.hyperparameters.at("bandwidth"),
              scaled.report.hyperparameters.at("bandwidth"), 1e-9);
  EXPECT_NEAR(fit.model.weights().sum(), 1.0, 1e-12);
  EXPECT_NEAR(fit.model.weights()(2) / fit.model.weights()(0), 3.0, 1e-12);
}

// -- GMM ----------------------------------------------------------------------------------------

TEST(GmmSampleWeights, WeightedEmEqualsEmOnTheRowsRepeated) {
  Rng rng(11);
  Matrix x = test::normal_matrix(2, 80, rng);
  x.rightCols(40).array() += 3.0;
  const Matrix query = test::normal_matrix(2, 20, rng);
  const Vector weights = test::integer_weights(80);
  GmmOptions options;
  options.n_components = 2;
  options.init = GmmInitialization::box;  // no draw of rows: the same start
  options.box_lower = -1.0;
  options.box_upper = 4.0;
  options.standardize = false;
  options.max_iter = 50;
  const DensityFit with_weights = fit_gmm(x, options, test::weighted_context(weights));
  const DensityFit with_rows = fit_gmm(test::repeated_columns(x, weights), options);
  expect_same_densities(with_weights.model, with_rows.model, query, 1e-9);
  const DensityFit scaled = fit_gmm(x, options, test::weighted_context(4.5 * weights));
  expect_same_densities(with_weights.model, scaled.model, query, 1e-9);
}

TEST(GmmSampleWeights, KMeansPlusPlusStartFitsTheWeightedData) {
  Rng rng(12);
  Matrix x = test::normal_matrix(1, 100, rng);
  x.rightCols(50).array() += 6.0;
  // The right cluster weighs 9 times the left one.
  Vector weights = Vector::Ones(100);
  weights.tail(50).setConstant(9.0);
  GmmOptions options;
  options.n_components = 2;
  const DensityFit fit = fit_gmm(x, options, test::weighted_context(weights));
  const Index right = fit.model.centers()(0, 0) > fit.model.centers()(0, 1) ? 0 : 1;
  EXPECT_NEAR(fit.model.weights()(right), 0.9, 0.02);
}

// -- KCDE ---------------------------------------------------------------------------------------

TEST(KcdeSampleWeights, CriterionIsTheWeightedLeaveOneOutLikelihood) {
  Rng rng(13);
  const Index n = 40;
  const Matrix z = test::normal_matrix(3, n, rng);
  const Vector weights = test::integer_weights(n) + Vector::LinSpaced(n, 0.1, 0.9);
  const Vector h = (Vector(3) << 0.5, 0.8, 0.4).finished();
  for (const Index c : {Index{0}, Index{2}}) {
    const Vector expected = test::explicit_leave_one_out(z, c, ColumnKernels(3), h, weights);
    const BandwidthLikelihood every(z, c, {}, 2, {}, weights);
    Vector terms;
    const double mean = every.mean_negative_log_likelihood(every.parameters_of(h), nullptr, &terms);
    EXPECT_LT((terms - expected).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_NEAR(mean, expected.dot(weights) / weights.sum(), 1e-10);
    // A subset of held-out rows: their weighted mean.
    const std::vector<Index> held_out = {1, 4, 9, 22, 31};
    const BandwidthLikelihood some(z, c, held_out, 2, {}, weights);
    const Vector held_weights = weights(held_out);
    EXPECT_NEAR(some.mean_negative_log_likelihood(some.parameters_of(h)),
                Vector(expected(held_out)).dot(held_weights) / held_weights.sum(), 1e-10);
  }
}

TEST(KcdeSampleWeights, GradientIsTheWeightedCriterionsDerivative) {
  Rng rng(14);
  const Matrix z = test::normal_matrix(2, 30, rng);
  const BandwidthLikelihood likelihood(z, 1, {}, 1, {}, test::integer_weights(30));
  const Vector theta = (Vector(2) << std::log(0.6), std::log(0.4)).finished();
  Vector gradient;
  likelihood.mean_negative_log_likelihood(theta, &gradient);
  const Vector differences = test::central_differences(
      [&](const Vector& at) { return likelihood.mean_negative_log_likelihood(at); }, theta, 1e-6);
  for (Index d = 0; d < 2; ++d) EXPECT_NEAR(gradient(d), differences(d), 1e-6);
}

TEST(KcdeSampleWeights, IntegerWeightsEqualTheRowsRepeatedAtEqualBandwidths) {
  // With fixed bandwidths the model is the kernel sum; bandwidths are in standardised units, and
  // the weighted standardisation takes Kish's n_e where the repeated rows take n − 1, so the
  // repeated rows' bandwidths are converted to describe the same kernels in the user's units.
  const test::PairSample data = test::sine_sample(40, 2, 15);
  const test::PairSample query = test::sine_sample(20, 2, 16);
  const Vector weights = test::integer_weights(40);
  const Matrix x_rows = test::repeated_columns(data.x, weights);
  const Matrix y_rows = test::repeated_columns(data.y, weights);
  const Vector user_bandwidths = (Vector(3) << 0.5, 0.7, 0.3).finished();
  Matrix joint(3, 40);
  joint << data.x, data.y;
  Matrix joint_rows(3, x_rows.cols());
  joint_rows << x_rows, y_rows;
  const Vector weighted_scale = Standardizer::fit(joint, weights, "pairs").scale();
  const Vector repeated_scale = Standardizer::fit(joint_rows, "pairs").scale();
  for (const KernelTrend trend : {KernelTrend::none, KernelTrend::linear}) {
    KcdeOptions options;
    options.marginal_mixing = MarginalMixing::none;
    options.trend = trend;
    const auto in_units_of = [&](const Vector& scale) {
      const Vector h = user_bandwidths.cwiseQuotient(scale);
      return std::vector<double>(h.data(), h.data() + h.size());
    };
    options.bandwidth = in_units_of(weighted_scale);
    const ConditionalFit with_weights =
        fit_kcde(data.x, data.y, options, test::weighted_context(weights));
    options.bandwidth = in_units_of(repeated_scale);
    const ConditionalFit with_rows = fit_kcde(x_rows, y_rows, options);
    expect_same_densities(with_weights.model, with_rows.model, query.x, query.y, 1e-10);
  }
}

TEST(KcdeSampleWeights, SearchAndMixingIgnoreTheScaleOfTheWeights) {
  const test::PairSample data = test::sine_sample(60, 1, 17);
  const test::PairSample query = test::sine_sample(20, 1, 18);
  const Vector weights = test::integer_weights(60);
  KcdeOptions options;
  options.search.n_restarts = 1;
  const ConditionalFit fit = fit_kcde(data.x, data.y, options, test::weighted_context(weights));
  const ConditionalFit scaled =
      fit_kcde(data.x, data.y, options, test::weighted_context(250.0 * weights));
  expect_same_densities(fit.model, scaled.model, query.x, query.y, 1e-6);
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), scaled.report.statistics.at("loo_nll"), 1e-6);
  // Equal weights are no weights, up to rounding.
  const ConditionalFit equal =
      fit_kcde(data.x, data.y, options, test::weighted_context(Vector::Constant(60, 2.0)));
  const ConditionalFit plain = fit_kcde(data.x, data.y, options);
  expect_same_densities(equal.model, plain.model, query.x, query.y, 1e-6);
}

TEST(KcdeSampleWeights, GaussianProcessTrendAndOutputTransformsRefuseWeights) {
  const test::PairSample data = test::sine_sample(30, 1, 19);
  KcdeOptions options;
  options.trend = KernelTrend::gaussian_process;
  EXPECT_THROW(fit_kcde(data.x, data.y, options, test::weighted_context(test::integer_weights(30))),
               InvalidArgument);
  options.trend = KernelTrend::none;
  options.y_transform = OutputTransformChoice::yeo_johnson;
  EXPECT_THROW(fit_kcde(data.x, data.y, options, test::weighted_context(test::integer_weights(30))),
               InvalidArgument);
}

TEST(KcdeSampleWeights, RowWeightsSurviveTheModelFileAsVersionTwo) {
  const test::PairSample data = test::sine_sample(30, 2, 20);
  KcdeOptions options;
  options.bandwidth = {0.5, 0.7, 0.3};
  options.marginal_mixing = MarginalMixing::none;
  const ConditionalFit fit =
      fit_kcde(data.x, data.y, options, test::weighted_context(test::integer_weights(30)));
  const test::PairSample query = test::sine_sample(10, 2, 21);
  test::expect_model_file_round_trip(fit.model, fit.report, query.x, query.y);
  const nlohmann::json document = conditional_model_to_json({fit.model, {}, {}, fit.report, {}});
  EXPECT_EQ(document["version"], 2);
  const ConditionalFit plain = fit_kcde(data.x, data.y, options);
  EXPECT_EQ(conditional_model_to_json({plain.model, {}, {}, plain.report, {}})["version"], 1);
}

}  // namespace
}  // namespace cdens
