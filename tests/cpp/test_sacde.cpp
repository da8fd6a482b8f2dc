// SA-CDE (Shiga, Tangkaratt, Sugiyama 2015, §2): Ĥ and ĥ against the double sums of eqs. (12)
// and (14), the proximal solver against the paper's plain update and the KKT conditions, the
// monotone objective of FISTA with restart, λ_max, the renormalised density (eqs. 20–21) written
// out and integrated over y, feature selection on the paper's Toy data 1, model files, thread
// counts and bad options.

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/nonnegative_group_lasso.hpp"
#include "conditional/sacde_gate.hpp"
#include "conditional/sacde_system.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A small basis on standardised-looking data: D features, B centres from the pairs.
struct SmallProblem {
  Matrix x;
  Matrix y;
  SaCdeBasis basis;
};

SmallProblem small_problem(Index features, Index outputs, Index n, Index size, double sigma,
                           std::uint64_t seed) {
  Rng rng(seed);
  SmallProblem problem{test::normal_matrix(features, n, rng), Matrix(outputs, n), {}};
  for (Index i = 0; i < n; ++i) {
    for (Index o = 0; o < outputs; ++o) {
      problem.y(o, i) = std::sin(1.5 * problem.x(0, i)) + 0.3 * o + 0.4 * rng.normal();
    }
  }
  problem.basis = {problem.x.leftCols(size), problem.y.leftCols(size), sigma};
  return problem;
}

TEST(SaCdeSystemTest, MatricesMatchTheDoubleSumsOfEquationsTwelveAndFourteen) {
  const SmallProblem p = small_problem(3, 2, 17, 5, 0.7, 1);
  SaCdeSystem system(p.x, p.y, p.basis);
  const Index D = 3, B = 5, n = 17;
  const double s2 = 2 * 0.7 * 0.7;
  Matrix expected_h(D * B, D * B);
  Vector expected_vector(D * B);
  for (Index d1 = 0; d1 < D; ++d1) {
    for (Index b1 = 0; b1 < B; ++b1) {
      double joint = 0.0;
      for (Index i = 0; i < n; ++i) {
        joint += std::exp(-(p.y.col(i) - p.basis.centers_y.col(b1)).squaredNorm() / s2 -
                          std::pow(p.x(d1, i) - p.basis.centers_x(d1, b1), 2) / s2);
      }
      expected_vector(d1 * B + b1) = joint / n;
      for (Index d2 = 0; d2 < D; ++d2) {
        for (Index b2 = 0; b2 < B; ++b2) {
          double sum = 0.0;
          for (Index i = 0; i < n; ++i) {
            sum += std::exp(-std::pow(p.x(d1, i) - p.basis.centers_x(d1, b1), 2) / s2 -
                            std::pow(p.x(d2, i) - p.basis.centers_x(d2, b2), 2) / s2);
          }
          expected_h(d1 * B + b1, d2 * B + b2) =
              std::pow(std::sqrt(kPi) * 0.7, 2) / n *
              std::exp(-(p.basis.centers_y.col(b1) - p.basis.centers_y.col(b2)).squaredNorm() /
                       (4 * 0.7 * 0.7)) *
              sum;
        }
      }
    }
  }
  EXPECT_TRUE(system.h_vector().isApprox(expected_vector, 1e-13));
  EXPECT_TRUE(system.h_matrix().isApprox(expected_h, 1e-13));
  for (Index d = 0; d < D; ++d) {
    EXPECT_TRUE(system.h_columns(d).isApprox(expected_h.middleCols(d * B, B), 1e-13));
  }
  EXPECT_DOUBLE_EQ(system.lambda_max(), std::max({expected_vector.segment(0, B).norm(),
                                                  expected_vector.segment(B, B).norm(),
                                                  expected_vector.segment(2 * B, B).norm()}));
}

TEST(SaCdeSolverTest, SolutionSatisfiesKktAndMatchesThePapersPlainUpdate) {
  const SmallProblem p = small_problem(4, 1, 40, 6, 0.5, 2);
  SaCdeSystem system(p.x, p.y, p.basis);
  const Matrix h = system.h_matrix();
  const double lipschitz = Eigen::SelfAdjointEigenSolver<Matrix>(h).eigenvalues().maxCoeff();
  EXPECT_GE(nonnegative_spectral_bound(h), lipschitz * (1 - 1e-12));
  EXPECT_LE(nonnegative_spectral_bound(h), lipschitz * (1 + 2e-2));
  for (const double fraction : {0.05, 0.3, 0.8}) {
    const double lambda = fraction * system.lambda_max();
    // Reference: the paper's update (eqs. 18–19) with L = the largest eigenvalue, iterated long.
    Vector reference = Vector::Zero(h.rows());
    for (int t = 0; t < 300000; ++t) {
      reference = group_lasso_proximal_step(reference, h * reference - system.h_vector(), 6, lambda,
                                            lipschitz);
    }
    for (const GroupLassoMethod method :
         {GroupLassoMethod::block_coordinate, GroupLassoMethod::accelerated_gradient}) {
      GroupLassoOptions options;
      options.method = method;
      options.solver_tolerance = 1e-12;
      options.tol = 1e-8;
      options.solver_max_iterations = 200000;
      const GroupLassoSolution solution =
          solve_sacde_problem(system, lambda, Vector::Zero(h.rows()), options);
      // Block-coordinate descent may stop at the iteration cap here with a KKT violation between
      // 1e-8 and the 1e-5 checked below (one λ of three; rounding of its maintained gradient).
      if (method == GroupLassoMethod::accelerated_gradient) {
        EXPECT_TRUE(solution.converged);
      }
      const Vector gradient = h * solution.alpha - system.h_vector();
      EXPECT_LT(group_lasso_kkt_violation(gradient, solution.alpha, 6, lambda), 1e-5)
          << "lambda = " << lambda;
      EXPECT_GE(solution.alpha.minCoeff(), 0.0);
      EXPECT_LT((solution.alpha - reference).norm(), 1e-6 * std::max(1.0, reference.norm()));
      EXPECT_NEAR(group_lasso_objective(h, system.h_vector(), 6, lambda, solution.alpha),
                  group_lasso_objective(h, system.h_vector(), 6, lambda, reference), 1e-12);
      // Exact zeros: a group is zero exactly when its pull ‖[−∇Ĵ₀]_d‖₊ stays below λ.
      for (Index d = 0; d < 4; ++d) {
        const double pull = (-gradient.segment(d * 6, 6)).cwiseMax(0.0).norm();
        if (reference.segment(d * 6, 6).norm() == 0.0 && pull < lambda * (1 - 1e-6)) {
          EXPECT_EQ(solution.alpha.segment(d * 6, 6).norm(), 0.0) << "group " << d;
        }
      }
    }
  }
}

TEST(SaCdeSystemTest, WorkingMatrixIsHRestrictedToTheWorkingGroupsInJoinOrder) {
  const SmallProblem p = small_problem(4, 1, 25, 5, 0.6, 7);
  SaCdeSystem system(p.x, p.y, p.basis);
  const Matrix h = system.h_matrix();
  // Column blocks formed in reverse order reuse the transposes of those formed before.
  for (Index d = 3; d >= 0; --d) {
    EXPECT_TRUE(system.h_columns(d).isApprox(h.middleCols(d * 5, 5), 1e-13)) << "group " << d;
  }
  std::vector<Index> order;
  for (const Index d : {2, 0, 3}) {
    system.add_working_groups({d});
    order.push_back(d);
    std::vector<Index> rows;
    for (const Index g : order) {
      for (Index b = 0; b < 5; ++b) rows.push_back(g * 5 + b);
    }
    EXPECT_TRUE(Matrix(system.working_matrix()).isApprox(Matrix(h(rows, rows)), 1e-13));
  }
  system.add_working_groups({0, 2});  // already there: nothing changes
  EXPECT_EQ(system.working_groups(), (std::vector<Index>{2, 0, 3}));
  // The last group: the set is every group, in increasing order, and its matrix Ĥ itself.
  system.add_working_groups({1});
  EXPECT_TRUE(Matrix(system.working_matrix()).isApprox(h, 1e-13));
  EXPECT_EQ(system.working_groups(), (std::vector<Index>{0, 1, 2, 3}));
}

TEST(SaCdeSystemTest, AssignedSystemEqualsANewOne) {
  const SmallProblem first = small_problem(4, 1, 25, 5, 0.6, 7);
  const SmallProblem second = small_problem(4, 2, 30, 5, 1.3, 8);
  SaCdeSystem reused(first.x, first.y, first.basis);
  reused.add_working_groups({0, 1, 2, 3});
  reused.working_matrix();
  const Vector solved =
      solve_sacde_problem(reused, 0.2 * reused.lambda_max(), Vector::Zero(20)).alpha;
  reused.assign(second.x, second.y, second.basis);
  SaCdeSystem fresh(second.x, second.y, second.basis);
  EXPECT_TRUE(reused.working_groups().empty());
  EXPECT_EQ(reused.h_vector(), fresh.h_vector());
  for (Index d = 0; d < 4; ++d) EXPECT_EQ(Matrix(reused.h_columns(d)), Matrix(fresh.h_columns(d)));
  const double lambda = 0.2 * fresh.lambda_max();
  EXPECT_EQ(solve_sacde_problem(reused, lambda, Vector::Zero(20)).alpha,
            solve_sacde_problem(fresh, lambda, Vector::Zero(20)).alpha);
  EXPECT_GT(solved.norm(), 0.0);
}

TEST(SaCdeSolverTest, ExtrapolationAndNewtonStepsKeepTheSolutionOnCorrelatedGroups) {
  // Noisy copies of one feature with wide kernels: the regime where plain block-coordinate
  // descent needs thousands of sweeps on the paper's Toy data 1 (docs/methods/sacde.md).
  Rng rng(11);
  const Index n = 120, features = 8, size = 20;
  Matrix x(features, n), y(1, n);
  for (Index i = 0; i < n; ++i) {
    x(0, i) = 2.0 * rng.uniform() - 1.0;
    for (Index d = 1; d < features; ++d) x(d, i) = x(0, i) + 1.7 * rng.normal();
    y(0, i) = std::sin(2.0 * x(0, i)) + 0.2 * rng.normal();
  }
  const SaCdeBasis basis{x.leftCols(size), y.leftCols(size), 2.0};
  const Vector zero = Vector::Zero(features * size);
  for (const double fraction : {0.02, 0.1}) {
    GroupLassoSolution solutions[2];
    for (const int interval : {0, 5}) {
      SaCdeSystem system(x, y, basis);
      GroupLassoOptions options;
      options.extrapolation_interval = interval;
      options.tol = 1e-5;
      options.solver_max_iterations = 200000;
      const double lambda = fraction * system.lambda_max();
      GroupLassoSolution& solution = solutions[interval == 0 ? 0 : 1];
      solution = solve_sacde_problem(system, lambda, zero, options);
      EXPECT_TRUE(solution.converged) << "interval " << interval;
      const Matrix h = system.h_matrix();
      EXPECT_LE(group_lasso_kkt_violation(h * solution.alpha - system.h_vector(), solution.alpha,
                                          size, lambda),
                1e-5);
    }
    SaCdeSystem system(x, y, basis);
    const Matrix h = system.h_matrix();
    const double lambda = fraction * system.lambda_max();
    const double plain =
        group_lasso_objective(h, system.h_vector(), size, lambda, solutions[0].alpha);
    const double fast =
        group_lasso_objective(h, system.h_vector(), size, lambda, solutions[1].alpha);
    EXPECT_NEAR(fast, plain, 1e-7 * std::abs(plain));
    EXPECT_LT((solutions[1].alpha - solutions[0].alpha).norm(), 1e-3 * solutions[0].alpha.norm());
    EXPECT_LE(solutions[1].iterations, solutions[0].iterations);
  }
  // Along a whole warm-started path too (the sweep counts are in docs/benchmarks.md).
  GroupLassoOptions plain;
  plain.extrapolation_interval = 0;
  SaCdeSystem first(x, y, basis), second(x, y, basis);
  const std::vector<double> lambdas = sa_cde_width_grid();
  const Matrix reference = sacde_path(first, lambdas, plain);
  const Matrix accelerated = sacde_path(second, lambdas, {});
  for (Index j = 0; j < reference.cols(); ++j) {
    EXPECT_LT((accelerated.col(j) - reference.col(j)).norm(),
              1e-2 * std::max(1e-12, reference.col(j).norm()))
        << "lambda " << lambdas[static_cast<std::size_t>(j)];
    EXPECT_EQ((sacde_group_norms(accelerated.col(j), features).array() > 0.0).count(),
              (sacde_group_norms(reference.col(j), features).array() > 0.0).count());
  }
}

TEST(SaCdeSolverTest, KktViolationDetectsAWrongSolution) {
  const SmallProblem p = small_problem(3, 1, 30, 5, 0.5, 3);
  SaCdeSystem system(p.x, p.y, p.basis);
  const double lambda = 0.2 * system.lambda_max();
  const Vector zero = Vector::Zero(15);
  // α = 0 below λ_max: the group of the largest ‖ĥ_d‖ pulls harder than λ.
  EXPECT_GT(group_lasso_kkt_violation(-system.h_vector(), zero, 5, lambda), 1.0);
}

TEST(SaCdeSolverTest, ObjectiveNeverIncreasesAlongEitherSolver) {
  for (const double sigma : {0.1, 0.5, 2.0}) {
    const SmallProblem p = small_problem(5, 1, 60, 8, sigma, 4);
    SaCdeSystem system(p.x, p.y, p.basis);
    GroupLassoOptions options;
    options.solver_tolerance = 1e-10;
    options.tol = 1e-8;
    options.record_objective = true;
    const Matrix h = system.h_matrix();
    const double lambda = 0.1 * system.lambda_max();
    const Vector start = Vector::Constant(40, 0.5);
    const GroupLassoSolution accelerated =
        solve_group_lasso_dense(h, system.h_vector(), 8, lambda, start, options);
    const GroupLassoSolution block_coordinate =
        solve_group_lasso_block_coordinate(h, system.h_vector(), 8, lambda, start, {}, options);
    for (const GroupLassoSolution* solution : {&accelerated, &block_coordinate}) {
      ASSERT_GT(solution->objective.size(), 2u);
      for (std::size_t t = 1; t < solution->objective.size(); ++t) {
        // Block-coordinate descent evaluates J through its maintained gradient: a relative
        // rounding allowance of 1e-12 (a few hundred products of size 40 at ~1e-16 each).
        EXPECT_LE(solution->objective[t],
                  solution->objective[t - 1] + 1e-12 * std::abs(solution->objective[t - 1]))
            << "step " << t;
      }
    }
    // Both reach the same minimum.
    EXPECT_NEAR(block_coordinate.objective.back(), accelerated.objective.back(),
                1e-7 * std::abs(accelerated.objective.back()));
  }
}

TEST(SaCdeSolverTest, LambdaAtOrAboveLambdaMaxGivesZeroCoefficients) {
  const SmallProblem p = small_problem(3, 1, 30, 5, 0.5, 5);
  SaCdeSystem system(p.x, p.y, p.basis);
  const double lambda_max = system.lambda_max();
  // The solver on its own (not the path's shortcut) stays at zero from zero and from a start.
  const Matrix h = system.h_matrix();
  for (const double lambda : {lambda_max, 2 * lambda_max}) {
    EXPECT_EQ(solve_sacde_problem(system, lambda, Vector::Zero(15)).alpha, Vector::Zero(15));
    EXPECT_EQ(
        solve_group_lasso_dense(h, system.h_vector(), 5, lambda, Vector::Constant(15, 1.0)).alpha,
        Vector::Zero(15));
    EXPECT_EQ(solve_group_lasso_block_coordinate(h, system.h_vector(), 5, lambda,
                                                 Vector::Constant(15, 1.0), {})
                  .alpha,
              Vector::Zero(15));
  }
  const Matrix path = sacde_path(system, {2 * lambda_max, lambda_max, 0.99 * lambda_max, 0.5});
  EXPECT_EQ(path.col(0), Vector::Zero(15));
  EXPECT_EQ(path.col(1), Vector::Zero(15));
  EXPECT_GT(path.col(2).norm(), 0.0);
  EXPECT_GT(path.col(3).norm(), path.col(2).norm());
}

/// Eqs. (3)–(6), (20)–(21) in the user's units, summed directly.
double direct_log_density(const ConditionalMixture& model, const Vector& x, const Vector& y) {
  const auto& gate = dynamic_cast<const SaCdeGate&>(model.gate());
  const Vector z = (x - model.x_scaling().mean()).cwiseQuotient(model.x_scaling().scale());
  const Vector t = (y - model.y_scaling().mean()).cwiseQuotient(model.y_scaling().scale());
  const double sigma = gate.sigma();
  double numerator = 0.0, denominator = 0.0;
  for (Index b = 0; b < gate.n_components(); ++b) {
    const double eta = std::exp(-(t - model.centers().col(b)).squaredNorm() / (2 * sigma * sigma));
    for (Index d = 0; d < gate.input_dim(); ++d) {
      const double phi =
          std::exp(-std::pow(z(d) - gate.centers_x()(d, b), 2) / (2 * sigma * sigma));
      numerator += gate.alpha()(d, b) * eta * phi;
      denominator += gate.alpha()(d, b) * phi;
    }
  }
  const double integral = std::pow(std::sqrt(2 * kPi) * sigma, static_cast<double>(y.size()));
  return std::log(numerator / (integral * denominator)) + model.y_scaling().log_jacobian();
}

SacdeOptions single(double sigma, double lambda) {
  SacdeOptions options;
  options.sigma = {sigma};
  options.regularization = {lambda};
  return options;
}

TEST(SaCdeTest, LogPdfMatchesTheRenormalisedAdditiveModel) {
  const test::PairSample train = test::sine_sample(60, 3, 6);
  const ConditionalFit fit = fit_sacde(train.x, train.y, single(0.6, 0.01));
  EXPECT_EQ(fit.model.gate().kind(), "sacde");
  EXPECT_FALSE(fit.report.cross_validation.has_value());
  ASSERT_TRUE(fit.report.feature_selection.has_value());
  const test::PairSample queries = test::sine_sample(15, 3, 7);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  for (Index j = 0; j < queries.x.cols(); ++j) {
    EXPECT_NEAR(log_density(j), direct_log_density(fit.model, queries.x.col(j), queries.y.col(j)),
                1e-10);
  }
}

TEST(SaCdeTest, RenormalisedDensityIntegratesToOne) {
  const test::PairSample train = test::sine_sample(80, 2, 8);
  const ConditionalFit fit = fit_sacde(train.x, train.y, single(0.3, 0.005));
  const double width = fit.model.scales().minCoeff() * fit.model.y_scaling().scale()(0);
  const double low = train.y.minCoeff() - 12 * width;
  const double high = train.y.maxCoeff() + 12 * width;
  const int points = static_cast<int>((high - low) / (width / 20)) + 1;
  for (const Index j : {0, 5, 33}) {
    EXPECT_NEAR(test::integral_over_y(fit.model, train.x.col(j), low, high, points), 1.0, 1e-6);
  }
  // Far from every centre the weights underflow in linear space, not in log space.
  EXPECT_NEAR(test::integral_over_y(fit.model, Vector::Constant(2, 1e3), low, high, points), 1.0,
              1e-6);
}

TEST(SaCdeTest, HeldOutSumsEqualScoringTheMixture) {
  const SmallProblem p = small_problem(3, 2, 50, 10, 0.2, 9);
  SaCdeSystem system(p.x, p.y, p.basis);
  const Matrix alphas = sacde_path(system, {0.5 * system.lambda_max(), 0.01, 1e9});
  Rng rng(10);
  Matrix x = test::normal_matrix(3, 12, rng);
  Matrix y = test::normal_matrix(2, 12, rng);
  x(0, 3) = 40.0;  // far away: every weight underflows outside log space
  y(1, 5) = -30.0;
  const Vector sums = sacde_held_out_nll_sums(x, y, p.basis, alphas);
  for (Index j = 0; j < alphas.cols(); ++j) {
    const ConditionalMixture mixture = make_sacde_mixture(
        Standardizer::identity(3), Standardizer::identity(2), p.basis, alphas.col(j));
    EXPECT_NEAR(sums(j), -mixture.log_pdf(x, y).sum(), 1e-9 * std::abs(sums(j)));
  }
}

/// Toy data 1 of §3.2 (eq. 26): x₁ ~ U(−1, 1), x₂ … x₆ = x₁ + N(0, (3σ̂)²) with σ̂ the sample
/// standard deviation of x₁, y = sinc(3πx₁/4) + exp(1 − x₁)/8 · ε.
test::PairSample toy_data_1(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{Matrix(6, n), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) sample.x(0, i) = 2 * rng.uniform() - 1;
  const double spread = test::sample_scale(sample.x.topRows(1))(0);
  for (Index i = 0; i < n; ++i) {
    for (Index d = 1; d < 6; ++d) sample.x(d, i) = sample.x(0, i) + 3 * spread * rng.normal();
    const double u = 0.75 * kPi * sample.x(0, i);
    sample.y(0, i) = std::sin(u) / u + std::exp(1 - sample.x(0, i)) / 8 * rng.normal();
  }
  return sample;
}

TEST(SaCdeTest, CrossValidationKeepsTheRelevantFeatureOfToyDataOne) {
  // The paper's set-up (§3.2, Figure 4a) at N = 300 on a coarser grid than §3's (the bench runs
  // the whole grid over ten seeds): x₁ must carry by far the largest ‖α_d‖. The noisy copies
  // x₂ … x₆ explain at most a tenth of y's variance through x₁, so a CV choice that weights
  // one of them like x₁ would be a bug, not bad luck.
  const test::PairSample train = toy_data_1(300, 12);
  SacdeOptions options;
  options.sigma = {0.1, 0.25, 0.5, 1.0};
  options.regularization = {0.01, 0.03, 0.1, 0.3, 1.0};
  options.seed = 3;
  const ConditionalFit fit = fit_sacde(train.x, train.y, options);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  const FeatureSelection& selection = *fit.report.feature_selection;
  ASSERT_FALSE(selection.selected.empty());
  EXPECT_EQ(selection.selected.front(), 0);
  EXPECT_GT(selection.importances(0), 10 * selection.importances.tail(5).maxCoeff());
  ASSERT_TRUE(selection.path.has_value());
  EXPECT_EQ(selection.path->group_norms.rows(), 6);
  EXPECT_EQ(selection.path->group_norms.cols(), 5);
  EXPECT_EQ(selection.path->lambdas(0), 1.0);  // decreasing
  EXPECT_EQ(selection.path->chosen_lambda, fit.report.hyperparameters.at("regularization"));
  // The path at the chosen λ is the model's ‖α_d‖.
  Index chosen = 0;
  while (selection.path->lambdas(chosen) != selection.path->chosen_lambda) ++chosen;
  EXPECT_EQ(selection.path->group_norms.col(chosen), selection.importances);
}

TEST(SaCdeTest, LambdaRulesPickFromTheCrossValidationTable) {
  const test::PairSample train = test::sine_sample(70, 3, 15);
  SacdeOptions options;
  options.sigma = {0.2, 0.5, 1.0};
  options.regularization = {0.001, 0.01, 0.03, 0.1, 0.3};
  options.seed = 5;
  options.lambda_rule = SaCdeLambdaRule::minimum;
  const ConditionalFit minimum = fit_sacde(train.x, train.y, options);
  const CvTable& table = *minimum.report.cross_validation;
  EXPECT_EQ(minimum.report.hyperparameters.at("sigma"), table.candidates(table.best, 0));
  EXPECT_EQ(minimum.report.hyperparameters.at("regularization"), table.candidates(table.best, 1));
  options.lambda_rule = SaCdeLambdaRule::one_standard_error;
  const ConditionalFit sparse = fit_sacde(train.x, train.y, options);
  // Brute force over the table: the largest λ at the best σ within one standard error.
  double expected = 0.0;
  for (Index row = 0; row < table.candidates.rows(); ++row) {
    if (table.candidates(row, 0) == table.candidates(table.best, 0) &&
        table.mean_loss(row) <= table.mean_loss(table.best) + table.standard_error(table.best)) {
      expected = std::max(expected, table.candidates(row, 1));
    }
  }
  EXPECT_EQ(sparse.report.hyperparameters.at("sigma"), table.candidates(table.best, 0));
  EXPECT_EQ(sparse.report.hyperparameters.at("regularization"), expected);
  EXPECT_GE(expected, table.candidates(table.best, 1));
  EXPECT_EQ(sparse.report.statistics.at("regularization_cv_minimum"),
            table.candidates(table.best, 1));
}

TEST(SaCdeTest, ModelFileRoundTripAndThreadIndependence) {
  const test::PairSample train = test::sine_sample(70, 3, 13);
  SacdeOptions options;
  options.sigma = {0.2, 0.5, 1.0};
  options.regularization = {0.001, 0.01, 0.1};
  options.seed = 4;
  const ConditionalFit fit = fit_sacde(train.x, train.y, options);
  test::expect_model_file_round_trip(fit.model, fit.report, train.x, train.y);
  test::expect_independent_of_thread_count(
      [&](const FitContext& context) { return fit_sacde(train.x, train.y, options, context); });
}

TEST(SaCdeTest, RejectsBadInput) {
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_sacde(x, y, single(0.5, 0.1)); });
  const test::PairSample train = test::sine_sample(30, 2, 14);
  SacdeOptions options = single(0.5, 0.1);
  options.sigma = {0.5, -1.0};
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_sacde(train.x, train.y, options);
            }).find("sigma"),
            std::string::npos);
  options = single(0.5, 0.1);
  options.regularization = {};
  EXPECT_THROW(fit_sacde(train.x, train.y, options), InvalidArgument);
  options = single(0.5, 0.1);
  options.n_centers = 0;
  EXPECT_THROW(fit_sacde(train.x, train.y, options), InvalidArgument);
  options = single(0.5, 0.1);
  options.solver.tol = 0.0;
  EXPECT_THROW(fit_sacde(train.x, train.y, options), InvalidArgument);
  options = SacdeOptions{};
  options.folds = 50;
  EXPECT_THROW(fit_sacde(train.x, train.y, options), InvalidArgument);
}

}  // namespace
}  // namespace cdens
