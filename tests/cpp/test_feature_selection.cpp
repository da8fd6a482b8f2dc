// SA-LSCDE and the forward-selection wrapper (SA-CDE paper §3.1): the wrapper against the greedy
// procedure written out with explicit fits, SA-LSCDE against LSCDE fitted by hand on SA-CDE's
// features, the selected-features gate through a model file, and the errors.

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/kernel_gates.hpp"
#include "conditional/selected_features_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// x₀ drives y; x₁, x₂ are independent noise.
test::PairSample relevant_first(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(3, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) sample.y(0, i) = std::sin(2 * sample.x(0, i)) + 0.2 * rng.normal();
  return sample;
}

EkdeOptions small_ekde() {
  EkdeOptions options;
  options.epsilon = {0.3, 0.6, 1.2};
  options.sigma = {0.1, 0.3};
  return options;
}

double cv_nll(const FitReport& report) {
  return report.cross_validation->mean_loss(report.cross_validation->best);
}

TEST(ForwardSelectionTest, MatchesTheGreedyProcedureWrittenOut) {
  const test::PairSample data = relevant_first(80, 1);
  const EkdeOptions options = small_ekde();
  const ConditionalFit fit = fit_forward_selection(
      data.x, data.y,
      [&](const MatrixView& x, const MatrixView& y) {
        return fit_ekde(x, y, options, FitContext{}.with_threads(1));
      },
      {"fw-ekde"}, FitContext{}.with_threads(2));
  // The greedy loop by hand.
  std::vector<Index> chosen;
  double best = std::numeric_limits<double>::infinity();
  for (;;) {
    Index winner = -1;
    double winner_nll = std::numeric_limits<double>::infinity();
    for (Index d = 0; d < 3; ++d) {
      if (std::find(chosen.begin(), chosen.end(), d) != chosen.end()) continue;
      std::vector<Index> set = chosen;
      set.push_back(d);
      std::sort(set.begin(), set.end());
      const double nll = cv_nll(fit_ekde(data.x(set, Eigen::all), data.y, options).report);
      if (nll < winner_nll) {
        winner_nll = nll;
        winner = d;
      }
    }
    if (winner < 0 || !(winner_nll < best)) break;
    chosen.push_back(winner);
    best = winner_nll;
  }
  std::sort(chosen.begin(), chosen.end());
  ASSERT_TRUE(fit.report.feature_selection.has_value());
  EXPECT_EQ(fit.report.feature_selection->selected, chosen);
  EXPECT_EQ(fit.report.feature_selection->selected.front(), 0);
  EXPECT_EQ(fit.report.method, "fw-ekde");
  EXPECT_NEAR(fit.report.auxiliary_cross_validation.at("forward_selection").mean_loss.tail(1)(0),
              best, 1e-12);
  // The model is ε-KDE on the chosen columns, taking every column.
  const ConditionalFit direct = fit_ekde(data.x(chosen, Eigen::all), data.y, options);
  const test::PairSample queries = relevant_first(20, 2);
  EXPECT_EQ(fit.model.input_dim(), 3);
  EXPECT_TRUE(fit.model.log_pdf(queries.x, queries.y)
                  .isApprox(direct.model.log_pdf(queries.x(chosen, Eigen::all), queries.y), 1e-12));
  const ConditionalMixture loaded =
      test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
  EXPECT_EQ(loaded.gate().kind(), "selected_features");
}

TEST(ForwardSelectionTest, NeedsAnEstimatorThatCrossValidatesTheLikelihood) {
  const test::PairSample data = relevant_first(30, 3);
  EkdeOptions options = small_ekde();
  options.epsilon = {0.5};
  options.sigma = {0.3};
  EXPECT_THROW(fit_forward_selection(data.x, data.y,
                                     [&](const MatrixView& x, const MatrixView& y) {
                                       return fit_ekde(x, y, options);
                                     }),
               InvalidArgument);
}

TEST(SaLscdeTest, IsLscdeOnTheFeaturesSaCdeKeeps) {
  const test::PairSample data = relevant_first(90, 4);
  SalscdeOptions options;
  options.selection.sigma = {0.3, 0.6};
  options.selection.regularization = {0.01, 0.05, 0.2};
  options.estimation.sigma = {0.2, 0.5};
  options.estimation.regularization = {0.05, 0.5};
  const ConditionalFit fit = fit_salscde(data.x, data.y, options);
  const ConditionalFit selection = fit_sacde(data.x, data.y, options.selection);
  const std::vector<Index>& features = selection.report.feature_selection->selected;
  ASSERT_FALSE(features.empty());
  EXPECT_EQ(fit.report.feature_selection->selected, features);
  EXPECT_EQ(fit.report.method, "salscde");
  EXPECT_EQ(fit.report.hyperparameters.at("selection_sigma"),
            selection.report.hyperparameters.at("sigma"));
  EXPECT_TRUE(fit.report.auxiliary_cross_validation.count("sacde"));
  const ConditionalFit direct = fit_lscde(data.x(features, Eigen::all), data.y, options.estimation);
  const test::PairSample queries = relevant_first(25, 5);
  EXPECT_TRUE(
      fit.model.log_pdf(queries.x, queries.y)
          .isApprox(direct.model.log_pdf(queries.x(features, Eigen::all), queries.y), 1e-12));
  test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
}

TEST(SelectedFeaturesGateTest, RejectsInconsistentFeatures) {
  auto inner = std::make_shared<const GaussianKernelGate>(Matrix::Zero(2, 3), 0.5);
  EXPECT_THROW(SelectedFeaturesGate(4, {0}, inner), InvalidArgument);
  EXPECT_THROW(SelectedFeaturesGate(4, {1, 1}, inner), InvalidArgument);
  EXPECT_THROW(SelectedFeaturesGate(4, {1, 4}, inner), InvalidArgument);
  EXPECT_NO_THROW(SelectedFeaturesGate(4, {3, 1}, inner));
}

}  // namespace
}  // namespace cdens
