// The log-densities, marginal log-densities, means and covariances of a kernel mixture through the
// kernel-sum engine (ConditionalMixture::log_pdf, marginal_log_pdf, mean and covariance with a
// Gaussian-kernel gate) against the same mixture queried component by component: KCDE with its
// marginal mixing, sample weights, a linear and a Gaussian-process trend, two outputs, NW-CDE, and
// a pool of KCDE models (auto's stacking, answered member by member), at sizes where the engine
// takes its tree path. The engine keeps every
// log-density within 1e−6 of the exact sums, every mean within 1e−6 of its output's conditional
// standard deviation and every covariance entry within 1e−6 of the product of the two standard
// deviations.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "cdens/cdens.hpp"
#include "conditional/pooled_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// A gate that hides the Gaussian kernel of the gate it wraps: a mixture behind it takes the
/// general path, every component's density weighted by the gate's log-weights.
class ComponentwiseGate final : public ConditionalGate {
 public:
  explicit ComponentwiseGate(std::shared_ptr<const ConditionalGate> inner)
      : inner_(std::move(inner)) {}
  std::string kind() const override { return inner_->kind(); }
  Index input_dim() const override { return inner_->input_dim(); }
  Index n_components() const override { return inner_->n_components(); }
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override {
    inner_->log_weights(x, out);
  }
  Vector log_marginal_weights() const override { return inner_->log_marginal_weights(); }
  nlohmann::json to_json() const override { return inner_->to_json(); }
  // Neither gaussian_kernel() nor pooled_members(): the mixture cannot see what is inside.

 private:
  std::shared_ptr<const ConditionalGate> inner_;
};

/// The same mixture behind a ComponentwiseGate.
ConditionalMixture componentwise(const ConditionalMixture& model) {
  EXPECT_TRUE(model.gate().gaussian_kernel().has_value() || !model.gate().pooled_members().empty());
  return ConditionalMixture(model.x_scaling(), model.y_scaling(),
                            std::make_shared<ComponentwiseGate>(model.shared_gate()),
                            model.outputs());
}

/// mean_and_covariance(x) is mean(x) and covariance(x), to the bit.
void expect_moments_in_one_pass(const ConditionalMixture& model, const MatrixView& x,
                                const Matrix& mean, const Matrix& covariance) {
  const ConditionalMixture::OutputMoments moments = model.mean_and_covariance(x);
  EXPECT_TRUE(moments.means == mean);
  EXPECT_TRUE(moments.covariances == covariance);
}

/// The largest |log p| difference between the model and the same mixture queried componentwise,
/// and the largest differences of its means and covariances, each in units of the componentwise
/// conditional standard deviations (of the output; of the two outputs' product). Each answers
/// its means and covariances in one pass as it does one by one.
double largest_difference(const ConditionalMixture& model, const MatrixView& x,
                          const MatrixView& y) {
  const ConditionalMixture reference = componentwise(model);
  const Matrix mean = model.mean(x);
  const Matrix covariance = model.covariance(x);
  const Matrix reference_mean = reference.mean(x);
  const Matrix reference_covariance = reference.covariance(x);
  expect_moments_in_one_pass(model, x, mean, covariance);
  expect_moments_in_one_pass(reference, x, reference_mean, reference_covariance);
  const Index d = model.output_dim();
  const Vector log_pdf = model.log_pdf(x, y);
  // The model keeps its sums' references from its first query on (kernel_sum_references.hpp):
  // asked again, and made anew from its parts, it answers as it did, to the bit.
  const ConditionalMixture anew(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                                model.outputs());
  EXPECT_TRUE(anew.log_pdf(x, y) == log_pdf);
  EXPECT_TRUE(model.log_pdf(x, y) == log_pdf);
  EXPECT_TRUE(anew.mean(x) == mean);
  EXPECT_TRUE(anew.covariance(x) == covariance);
  double largest = (log_pdf - reference.log_pdf(x, y)).cwiseAbs().maxCoeff();
  // The marginal counterpart (the density ε mixes in) by the same sums.
  largest = std::max(
      largest,
      (model.marginal_log_pdf(x, y) - reference.marginal_log_pdf(x, y)).cwiseAbs().maxCoeff());
  for (Index j = 0; j < x.cols(); ++j) {
    for (Index r = 0; r < d; ++r) {
      const double deviation = std::sqrt(reference_covariance(r + r * d, j));
      largest = std::max(largest, std::abs(mean(r, j) - reference_mean(r, j)) / deviation);
      for (Index c = 0; c < d; ++c) {
        const double scale = deviation * std::sqrt(reference_covariance(c + c * d, j));
        largest = std::max(
            largest,
            std::abs(covariance(r + c * d, j) - reference_covariance(r + c * d, j)) / scale);
      }
    }
  }
  return largest;
}

/// KCDE with fixed bandwidths (marginal mixing chosen as by default) on n pairs of the sine
/// sample.
ConditionalFit kcde_fit(Index n, Index input_dim, KernelTrend trend, const FitContext& context) {
  const test::PairSample train = test::sine_sample(n, input_dim, 21);
  KcdeOptions options;
  options.bandwidth.assign(static_cast<std::size_t>(input_dim), 0.3);
  options.bandwidth.push_back(0.2);
  options.trend = trend;
  options.trend_basis = 200;
  return fit_kcde(train.x, train.y, options, context);
}

// 1e−6 is the engine's bound; 1e−9 more covers the rounding of the componentwise sums.
constexpr double kTolerance = 1e-6 + 1e-9;

TEST(KernelSumQueriesTest, KcdeWithMarginalMixingMatchesTheComponentwiseDensity) {
  const ConditionalFit fit = kcde_fit(3000, 2, KernelTrend::none, {});
  ASSERT_GT(fit.report.hyperparameters.at("marginal_weight"), 0.0);
  const test::PairSample queries = test::sine_sample(2000, 2, 22);
  EXPECT_LT(largest_difference(fit.model, queries.x, queries.y), kTolerance);
  // Far from every training input the kernel sums underflow and the engine works in log space.
  const Matrix far = queries.x.array() + 40.0;
  EXPECT_LT(largest_difference(fit.model, far, queries.y), kTolerance);
}

TEST(KernelSumQueriesTest, WeightedKcdeMatchesTheComponentwiseDensity) {
  const Vector weights = test::integer_weights(2500);
  const ConditionalFit fit = kcde_fit(2500, 1, KernelTrend::none, test::weighted_context(weights));
  const test::PairSample queries = test::sine_sample(1500, 1, 24);
  EXPECT_LT(largest_difference(fit.model, queries.x, queries.y), kTolerance);
}

TEST(KernelSumQueriesTest, KcdeAroundATrendMatchesTheComponentwiseDensity) {
  const test::PairSample queries = test::sine_sample(1500, 2, 25);
  for (const KernelTrend trend : {KernelTrend::linear, KernelTrend::gaussian_process}) {
    const ConditionalFit fit = kcde_fit(2000, 2, trend, {});
    EXPECT_LT(largest_difference(fit.model, queries.x, queries.y), kTolerance) << to_string(trend);
  }
}

TEST(KernelSumQueriesTest, PoolOfKcdeModelsMatchesTheComponentwiseDensity) {
  // Auto's pool at scale: KCDE plain and around the Gaussian-process trend (with its broad
  // component), weights 0.3 and 0.7; each member answers by its kernel sums.
  const ConditionalFit plain = kcde_fit(2000, 2, KernelTrend::none, {});
  const ConditionalFit around_trend = kcde_fit(2000, 2, KernelTrend::gaussian_process, {});
  const ConditionalMixture pool =
      pool_mixtures({&plain.model, &around_trend.model}, (Vector(2) << 0.3, 0.7).finished());
  ASSERT_EQ(pool.gate().pooled_members().size(), 2u);
  const test::PairSample queries = test::sine_sample(1500, 2, 28);
  EXPECT_LT(largest_difference(pool, queries.x, queries.y), kTolerance);
}

TEST(KernelSumQueriesTest, TwoOutputsAndNadarayaWatsonMatchTheComponentwiseDensity) {
  Rng rng(26);
  const Matrix x = test::normal_matrix(2, 2000, rng);
  const Matrix y = test::normal_matrix(2, 2000, rng) + x;
  KcdeOptions options;
  options.bandwidth = {0.4, 0.4, 0.3, 0.3};
  const ConditionalFit kcde = fit_kcde(x, y, options);
  const Matrix query_x = test::normal_matrix(2, 1000, rng);
  const Matrix query_y = test::normal_matrix(2, 1000, rng) + query_x;
  EXPECT_LT(largest_difference(kcde.model, query_x, query_y), kTolerance);

  NwcdeOptions nw;
  nw.sigma = {0.3};
  nw.n_centers = 2000;
  const ConditionalFit nw_fit = fit_nwcde(x, y, nw);
  EXPECT_LT(largest_difference(nw_fit.model, query_x, query_y), kTolerance);
}

TEST(KernelSumQueriesTest, SurveyShapedTiedTableMatchesTheComponentwiseDensity) {
  // The shape of the survey table of issue 50: integer-coded inputs of few levels (here six
  // cells of about 350 tied rows each) and an output that is 0 on most rows. Its held-out
  // log-densities take the dual tree of blocks, whose leaves of more than 256 tied points once
  // overran their GEMM block. KCDE with its bandwidth search.
  Rng rng(27);
  auto table = [&](Index rows, Matrix& x, Matrix& y) {
    x.resize(2, rows);
    y.resize(1, rows);
    for (Index i = 0; i < rows; ++i) {
      x(0, i) = std::floor(2.0 * rng.uniform());
      x(1, i) = std::floor(3.0 * rng.uniform());
      const bool zero = rng.uniform() < 0.55 + 0.1 * x(0, i);
      y(0, i) = zero ? 0.0 : std::exp(1.0 + 0.2 * x(1, i) + 0.5 * rng.normal());
    }
  };
  Matrix x, y, query_x, query_y;
  table(2100, x, y);
  table(600, query_x, query_y);
  KcdeOptions options;
  options.search.n_restarts = 0;
  options.atom = "none";  // the estimator as written, whose queries take the kernel sums
  const ConditionalFit fit = fit_kcde(x, y, options);
  ASSERT_FALSE(fit.model.atom().has_value());
  EXPECT_LT(largest_difference(fit.model, query_x, query_y), kTolerance);
}

TEST(KernelSumQueriesTest, DiscreteInputsKeepTheComponentwisePath) {
  const Matrix x = (Matrix(2, 6) << 0, 1, 2, 0, 1, 2, 0.1, 0.5, 0.2, 0.9, 0.4, 0.7).finished();
  const Matrix y = (Matrix(1, 6) << 0.3, 0.1, 0.8, 0.5, 0.2, 0.6).finished();
  KcdeOptions options;
  options.bandwidth = {0.3, 0.5, 0.4};
  options.discrete = {0};
  const ConditionalFit fit = fit_kcde(x, y, options);
  EXPECT_FALSE(fit.model.gate().gaussian_kernel().has_value());
}

}  // namespace
}  // namespace cdens
