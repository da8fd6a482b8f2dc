// PRESS (Goerg 2017): the smoother against the explicit N × N matrix S, the closed-form criteria
// against explicit leave-one-out, analytic gradients against finite differences, and fits on
// data whose regression function is known.

#include <gtest/gtest.h>

#include <cmath>

#include "cdens/core/rng.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/regression/press.hpp"
#include "regression/press_gate.hpp"
#include "regression/press_parameters.hpp"
#include "regression/press_smoother.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::normal_matrix;

/// A small problem: inputs (d × n), outputs (n) and coefficients ((d + 1) × J) with columns
/// summing to zero, all drawn from `seed`.
struct SmallProblem {
  Matrix x;
  Vector y;
  Matrix coefficients;
};

SmallProblem small_problem(Index n, Index d, Index j_count, std::uint64_t seed) {
  Rng rng(seed);
  SmallProblem problem{normal_matrix(d, n, rng), Vector(n), normal_matrix(d + 1, j_count, rng)};
  for (Index i = 0; i < n; ++i) problem.y(i) = std::sin(2.0 * problem.x(0, i)) + 0.3 * rng.normal();
  problem.coefficients.colwise() -= problem.coefficients.rowwise().mean();
  return problem;
}

/// S = Wᵀ D(W) W formed explicitly (eq. 22, with W as J × n).
Matrix explicit_smoother(const Matrix& weights) {
  const Vector sizes = weights.rowwise().sum();
  return weights.transpose() * sizes.cwiseInverse().asDiagonal() * weights;
}

TEST(PressSmoother, FactoredSmootherEqualsExplicitMatrix) {
  const SmallProblem problem = small_problem(30, 3, 4, 1);
  const Matrix weights = press_state_weights(problem.coefficients, press_design(problem.x));
  EXPECT_LT((weights.colwise().sum().array() - 1.0).abs().maxCoeff(), 1e-14);
  const Matrix s = explicit_smoother(weights);
  const PressSmoothing smoothing = press_smoothing(weights, problem.y);
  EXPECT_LT((smoothing.fitted - s * problem.y).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((smoothing.smoother_diagonal - s.diagonal()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_NEAR(smoothing.degrees_of_freedom, s.trace(), 1e-12);
  // Corollary 4.2: 1 ≤ ν ≤ J; rows of S sum to one.
  EXPECT_GE(smoothing.degrees_of_freedom, 1.0);
  EXPECT_LE(smoothing.degrees_of_freedom, 4.0);
  EXPECT_LT((s.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_NEAR(smoothing.state_sizes.sum(), 30.0, 1e-12);
}

TEST(PressSmoother, DegreesOfFreedomAtTheExtremes) {
  // Corollary 4.2: deterministic states give ν = J, uniform ones ν = 1.
  Matrix deterministic = Matrix::Zero(3, 9);
  for (Index i = 0; i < 9; ++i) deterministic(i % 3, i) = 1.0;
  const Vector y = Vector::LinSpaced(9, 0.0, 8.0);
  EXPECT_NEAR(press_smoothing(deterministic, y).degrees_of_freedom, 3.0, 1e-14);
  EXPECT_NEAR(press_smoothing(Matrix::Constant(3, 9, 1.0 / 3.0), y).degrees_of_freedom, 1.0, 1e-14);
  // η (eq. 18): 0 for a deterministic state, log2 J for a uniform one.
  EXPECT_LT(press_state_entropies(deterministic).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_NEAR(press_state_entropies(Matrix::Constant(4, 2, 0.25))(1), 2.0, 1e-14);
}

TEST(PressSmoother, CriteriaEqualExplicitLeaveOneOutAndGcv) {
  const Index n = 25;
  const SmallProblem problem = small_problem(n, 2, 3, 2);
  const Matrix design = press_design(problem.x);
  const Matrix s = explicit_smoother(press_state_weights(problem.coefficients, design));
  const Vector residuals = problem.y - s * problem.y;

  // Explicit leave-one-out of a linear smoother: sample i's own weight is removed from row i
  // and the rest renormalised, ŷ_(−i) = Σ_{k≠i} S_ik y_k / Σ_{k≠i} S_ik (the rows sum to one).
  double loo_sum = 0.0;
  for (Index i = 0; i < n; ++i) {
    double numerator = 0.0;
    double denominator = 0.0;
    for (Index k = 0; k < n; ++k) {
      if (k == i) continue;
      numerator += s(i, k) * problem.y(k);
      denominator += s(i, k);
    }
    loo_sum += std::pow(problem.y(i) - numerator / denominator, 2);
  }
  const double mse = residuals.squaredNorm() / n;
  const double nu = s.trace();
  const PressSmoothnessPenalty penalty{0.7, 2.5};
  const double penalty_value = 0.7 * std::pow(2.5 - nu, 2);
  const auto value_of = [&](PressCriterion criterion) {
    return PressObjective(design, problem.y, criterion, penalty, 1)
        .evaluate(problem.coefficients, nullptr);
  };
  const PressEvaluation in_sample = value_of(PressCriterion::mse);
  EXPECT_NEAR(in_sample.criterion, mse, 1e-13);
  EXPECT_NEAR(in_sample.value, mse + penalty_value, 1e-13);
  EXPECT_NEAR(value_of(PressCriterion::loocv).criterion, loo_sum / n, 1e-12);
  EXPECT_NEAR(value_of(PressCriterion::gcv).criterion, mse / std::pow(1.0 - nu / n, 2), 1e-13);
  EXPECT_NEAR(value_of(PressCriterion::gcv).degrees_of_freedom, nu, 1e-13);
}

/// Central differences of `value` at every entry of `point` against `gradient`: relative error
/// below 1e-6 (step 1e-5: truncation error O(h²) ~ 1e-10, rounding ~ 1e-16/h ~ 1e-11).
template <class Value>
void expect_gradient_matches(const Value& value, const Matrix& point, const Matrix& gradient) {
  const double step = 1e-5;
  for (Index k = 0; k < point.size(); ++k) {
    Matrix plus = point;
    Matrix minus = point;
    plus(k) += step;
    minus(k) -= step;
    const double numeric = (value(plus) - value(minus)) / (2.0 * step);
    EXPECT_NEAR(gradient(k), numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << "entry " << k;
  }
}

TEST(PressSmoother, GradientsMatchFiniteDifferences) {
  const SmallProblem problem = small_problem(40, 3, 4, 3);
  const Matrix design = press_design(problem.x);
  for (const PressCriterion criterion :
       {PressCriterion::mse, PressCriterion::loocv, PressCriterion::gcv}) {
    SCOPED_TRACE(to_string(criterion));
    const PressObjective objective(design, problem.y, criterion, {0.3, 3.2}, 2);
    Matrix gradient;
    objective.evaluate(problem.coefficients, &gradient);
    expect_gradient_matches([&](const Matrix& b) { return objective.evaluate(b, nullptr).value; },
                            problem.coefficients, gradient);
  }
}

TEST(PressSmoother, SparseDesignGradientMatchesFiniteDifferences) {
  // 85 % of the inputs zero: the objective keeps the design in sparse storage.
  SmallProblem problem = small_problem(60, 4, 3, 22);
  Rng rng(23);
  for (Index k = 0; k < problem.x.size(); ++k) {
    if (rng.uniform() < 0.85) problem.x(k) = 0.0;
  }
  const PressObjective objective(press_design(problem.x), problem.y, PressCriterion::loocv,
                                 {0.3, 2.5}, 1);
  ASSERT_TRUE(objective.sparse_design());
  Matrix gradient;
  objective.evaluate(problem.coefficients, &gradient);
  expect_gradient_matches([&](const Matrix& b) { return objective.evaluate(b, nullptr).value; },
                          problem.coefficients, gradient);
}

TEST(PressSmoother, SinglePrecisionDesignAgreesWithDouble) {
  // Float GEMMs round the logits to about 1e-7 relative; value and gradient follow within 1e-5.
  const SmallProblem problem = small_problem(60, 4, 3, 14);
  const Matrix design = press_design(problem.x);
  Matrix gradient;
  Matrix single_gradient;
  const PressEvaluation exact =
      PressObjective(design, problem.y, PressCriterion::gcv, {0.2, 2.0}, 1)
          .evaluate(problem.coefficients, &gradient);
  const PressEvaluation single =
      PressObjective(design, problem.y, PressCriterion::gcv, {0.2, 2.0}, 1, true)
          .evaluate(problem.coefficients, &single_gradient);
  EXPECT_NEAR(single.value, exact.value, 1e-5 * exact.value);
  EXPECT_LT((single_gradient - gradient).cwiseAbs().maxCoeff(),
            1e-5 * gradient.cwiseAbs().maxCoeff());
}

TEST(PressParameters, LassoSplitGradientMatchesFiniteDifferences) {
  const SmallProblem problem = small_problem(30, 3, 3, 4);
  const PressObjective objective(press_design(problem.x), problem.y, PressCriterion::loocv, {}, 1);
  const PressParametrization split(4, 3, 0.05);
  EXPECT_EQ(split.size(), 2 * 7);
  // Coefficients with zero column sums survive the round trip through θ.
  EXPECT_LT((split.coefficients(split.parameters(problem.coefficients)) - problem.coefficients)
                .cwiseAbs()
                .maxCoeff(),
            1e-15);
  // Strictly positive parts, so that central differences stay inside the bounds.
  Rng rng(5);
  Vector theta(split.size());
  for (Index k = 0; k < theta.size(); ++k) theta(k) = 0.2 + std::abs(rng.normal());
  const auto value = [&](const Matrix& point) {
    return objective.evaluate(split.coefficients(point), nullptr).value + split.penalty(point);
  };
  Matrix coefficient_gradient;
  objective.evaluate(split.coefficients(theta), &coefficient_gradient);
  expect_gradient_matches(value, Matrix(theta), Matrix(split.gradient(coefficient_gradient)));
  // Without LASSO θ is the first J − 1 columns of B.
  const PressParametrization plain(4, 3, 0.0);
  EXPECT_EQ(plain.size(), 8);
  EXPECT_TRUE(plain.lower_bounds().front() < 0.0);
}

/// y = 1(x > 0.5) + 0.3 ε on x ~ U(0, 1): two deterministic states with means 0 and 1.
test::PairSample step_sample(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{Matrix(1, n), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    sample.x(0, i) = rng.uniform();
    sample.y(0, i) = (sample.x(0, i) > 0.5 ? 1.0 : 0.0) + 0.3 * rng.normal();
  }
  return sample;
}

PressOptions quick_options(Index n_states) {
  PressOptions options;
  options.n_states = n_states;
  options.n_restarts = 2;
  options.patience = 50;
  options.max_iter = 400;
  return options;
}

TEST(Press, RecoversAStepFunction) {
  const test::PairSample data = step_sample(300, 6);
  const PressFit fit = fit_press(data.x, data.y, quick_options(2));
  // Each state mean averages about 150 outputs with noise sd 0.3: standard error 0.025, so
  // 0.1 is four standard errors plus the few samples the soft states share near x = 0.5.
  ASSERT_EQ(fit.state_means.size(), 2);
  EXPECT_NEAR(fit.state_means(0), 0.0, 0.1);
  EXPECT_NEAR(fit.state_means(1), 1.0, 0.1);
  const Matrix probe = (Matrix(1, 2) << 0.1, 0.9).finished();
  const Vector prediction = press_predict(fit.model, probe);
  EXPECT_NEAR(prediction(0), 0.0, 0.1);
  EXPECT_NEAR(prediction(1), 1.0, 0.1);
  // Nearly deterministic states: ν close to J = 2.
  EXPECT_GT(fit.degrees_of_freedom, 1.7);
  EXPECT_NEAR(fit.state_sizes.sum(), 300.0, 1e-9);
}

TEST(Press, PredictiveDistributionIsTheStateMixture) {
  const test::PairSample data = test::sine_sample(120, 1, 7);
  const PressFit fit = fit_press(data.x, data.y, quick_options(3));
  // The mixture mean is eq. (20): Σ_j w_j(x) ȳ⁽ʲ⁾, and on the training inputs ŷ.
  const Matrix weights = press_state_weights(fit.model, data.x);
  EXPECT_LT((weights - fit.training_weights).cwiseAbs().maxCoeff(), 1e-12);
  const Vector by_states = weights.transpose() * fit.state_means;
  EXPECT_LT((press_predict(fit.model, data.x) - by_states).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((by_states - fit.fitted).cwiseAbs().maxCoeff(), 1e-9);
  // States come ordered by increasing mean (§4).
  for (Index j = 1; j < fit.state_means.size(); ++j) {
    EXPECT_LT(fit.state_means(j - 1), fit.state_means(j));
  }
  // The user-unit coefficients give the same states as the gate's standardised ones.
  const Matrix user_weights = press_state_weights(fit.coefficients, press_design(data.x));
  EXPECT_LT((user_weights - weights).cwiseAbs().maxCoeff(), 1e-9);
  // AIC of eq. (37) with k = (J − 1)(d + 1).
  EXPECT_NEAR(fit.aic, 120.0 * std::log(fit.training_mse) + 2.0 * 2 * 2, 1e-9);
  test::expect_integrates_to_one(fit.model, data.y, {-1.0, 0.0, 2.0});
  test::expect_model_file_round_trip(fit.model, fit.report, data.x, data.y);
}

/// The registry's PRESS queries and extras against their closed forms: state weights on the
/// simplex; the point prediction Σ_j w_j(x) ȳ⁽ʲ⁾ (eq. 20) from the extra state_means; the
/// entropy −Σ_j w_j log₂ w_j (eq. 18) computed here; the training weights equal to the state
/// weights at the training inputs; the state sizes the column sums of the training weights
/// (eq. 17). 1e-12 on numbers of order 1 summed over 3 states; 1e-9 where 120 rows are summed.
TEST(Press, RegistryQueriesAndExtrasHaveTheirClosedForms) {
  const test::PairSample data = test::sine_sample(120, 1, 7);
  const MethodEntry& press = find_method("press");
  const OptionValues values = {{"n_states", std::int64_t{3}}, {"n_restarts", std::int64_t{1}}};
  const MethodFit<ConditionalModel> fit =
      fit_method_with_extras(press, data.x, data.y, Matrix(1, 0), values);
  const Matrix probe = (Matrix(1, 4) << -3.0, -0.5, 0.25, 4.0).finished();
  const Matrix weights = answer_query(fit.model, "state_weights", probe);
  ASSERT_EQ(weights.cols(), 3);
  EXPECT_GE(weights.minCoeff(), 0.0);
  EXPECT_LT((weights.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
  const Matrix& state_means = std::get<Matrix>(fit.extras.at("state_means"));
  EXPECT_LT((answer_query(fit.model, "point_prediction", probe) - weights * state_means)
                .cwiseAbs()
                .maxCoeff(),
            1e-12);
  const Matrix entropy = answer_query(fit.model, "state_entropy", probe);
  for (Index i = 0; i < probe.cols(); ++i) {
    double expected = 0.0;
    for (Index j = 0; j < weights.cols(); ++j) {
      if (weights(i, j) > 0) expected -= weights(i, j) * std::log2(weights(i, j));
    }
    EXPECT_NEAR(entropy(i, 0), expected, 1e-12) << "row " << i;
  }
  const Matrix& training = std::get<Matrix>(fit.extras.at("training_weights"));
  EXPECT_LT((answer_query(fit.model, "state_weights", data.x) - training).cwiseAbs().maxCoeff(),
            1e-12);
  const Matrix& sizes = std::get<Matrix>(fit.extras.at("state_sizes"));
  EXPECT_LT((training.colwise().sum().transpose() - sizes).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(Press, EarlyStoppingKeepsTheBestEvaluation) {
  // Outputs independent of the inputs: the hold-out MSE soon stops improving.
  Rng rng(8);
  const Matrix x = normal_matrix(2, 200, rng);
  const Matrix y = normal_matrix(1, 200, rng);
  PressOptions options = quick_options(3);
  options.n_restarts = 1;
  options.patience = 10;
  options.tol = 0.0;
  const PressFit fit = fit_press(x, y, options);
  ASSERT_EQ(fit.report.statistics.at("starts_stopped_early"), 1.0);
  EXPECT_EQ(fit.report.statistics.at("evaluations"),
            fit.report.statistics.at("best_evaluation") + 10.0);
}

TEST(Press, LassoSolutionSatisfiesOptimalityConditions) {
  // Only x_0 matters. J = 2, so B = (b, −b) and θ = b: at the minimiser of F(b) + λ‖b_x‖₁ every
  // zero coefficient has |∂F/∂b_d| ≤ λ and every other ∂F/∂b_d = −λ sign(b_d) (subgradient
  // conditions), up to the optimiser's tolerance (5% of λ).
  Rng rng(9);
  const Index n = 200;
  Matrix x = normal_matrix(5, n, rng);
  Matrix y(1, n);
  for (Index i = 0; i < n; ++i) y(0, i) = (x(0, i) > 0.0 ? 1.0 : 0.0) + 0.2 * rng.normal();
  PressOptions options = quick_options(2);
  options.lasso_weight = 0.2;
  options.holdout_fraction = 0.0;  // keep the minimiser, not an early iterate
  options.tol = 1e-14;
  options.max_iter = 2000;
  const PressFit fit = fit_press(x, y, options);
  const Matrix b = press_gate_of(fit.model).coefficients();
  EXPECT_NE(b(1, 0), 0.0);
  EXPECT_GT(fit.report.statistics.at("nonzero_coefficients"), 0.0);
  EXPECT_LT(fit.report.statistics.at("nonzero_coefficients"), 10.0);
  const Matrix z = fit.model.x_scaling().transform(x);
  const Vector t = fit.model.y_scaling().transform(y).row(0).transpose();
  Matrix gradient;
  PressObjective(press_design(z), t, PressCriterion::gcv, {}, 1).evaluate(b, &gradient);
  for (Index d = 1; d <= 5; ++d) {
    const double slope = gradient(d, 0) - gradient(d, 1);
    if (b(d, 0) == 0.0) {
      EXPECT_LE(std::abs(slope), 1.05 * options.lasso_weight) << "input " << d - 1;
    } else {
      EXPECT_NEAR(slope, -options.lasso_weight * (b(d, 0) > 0 ? 1.0 : -1.0),
                  0.05 * options.lasso_weight)
          << "input " << d - 1;
    }
  }
}

TEST(Press, AicSelectsMoreThanOneStateForAStep) {
  const test::PairSample data = step_sample(200, 10);
  const PressSelection selection = select_press_states(data.x, data.y, 3, quick_options(0));
  ASSERT_EQ(selection.fits.size(), 3u);
  EXPECT_GE(selection.best, 1);
  const FitReport& report = selection.fits[static_cast<std::size_t>(selection.best)].report;
  ASSERT_TRUE(report.cross_validation.has_value());
  EXPECT_EQ(report.cross_validation->loss, "aic");
  EXPECT_EQ(report.cross_validation->best, selection.best);
  // J = 1 predicts the mean: ν = 1 and the in-sample MSE is the variance (divisor n).
  const PressFit& one = selection.fits.front();
  EXPECT_NEAR(one.degrees_of_freedom, 1.0, 1e-12);
  const double mean = data.y.mean();
  EXPECT_NEAR(one.training_mse, (data.y.array() - mean).square().mean(), 1e-12);
}

TEST(Press, ResultIndependentOfThreadCount) {
  const test::PairSample data = test::sine_sample(150, 2, 12);
  test::expect_independent_of_thread_count([&](const FitContext& context) {
    return fit_press(data.x, data.y, quick_options(3), context);
  });
}

TEST(Press, RejectsBadInput) {
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_press(x, y, quick_options(2)); });
  const test::PairSample data = test::sine_sample(20, 2, 13);
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_press(data.x, data.y, quick_options(40));
            }).find("J = 40"),
            std::string::npos);
  PressOptions options = quick_options(2);
  options.holdout_fraction = 1.0;
  EXPECT_THROW(fit_press(data.x, data.y, options), InvalidArgument);
  options = quick_options(2);
  options.smoothness_weight = 1.0;
  options.target_dof = 3.0;
  EXPECT_THROW(fit_press(data.x, data.y, options), InvalidArgument);
  EXPECT_THROW(fit_press(data.x, Matrix(2, 20), quick_options(2)), InvalidArgument);
  EXPECT_THROW(parse_press_criterion("aic"), InvalidArgument);
}

}  // namespace
}  // namespace cdens
