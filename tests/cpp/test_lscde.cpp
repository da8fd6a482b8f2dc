// LSCDE engine and fit against brute force: quadrature for Φ̄, double loops for Ĥ and ĥ, a
// direct solve for every λ, an explicit cross-validation loop, and pair-by-pair scoring.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/lscde_basis.hpp"
#include "conditional/lscde_gate.hpp"
#include "conditional/lscde_system.hpp"
#include "core/samples.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

LscdeBasis random_basis(Index dx, Index dy, Index b, double sigma, Rng& rng) {
  return {test::normal_matrix(dx, b, rng), test::normal_matrix(dy, b, rng), sigma};
}

double basis_value(const LscdeBasis& basis, Index l, const Vector& x, const Vector& y) {
  const double s2 = basis.sigma * basis.sigma;
  return std::exp(-(x - basis.centers_x.col(l)).squaredNorm() / (2 * s2) -
                  (y - basis.centers_y.col(l)).squaredNorm() / (2 * s2));
}

TEST(LscdeSystemTest, PhiBarMatchesQuadratureOverOneDimensionalY) {
  Rng rng(1);
  const LscdeBasis basis = random_basis(2, 1, 4, 0.7, rng);
  const Matrix x = test::normal_matrix(2, 1, rng);
  const Matrix y = Matrix::Zero(1, 1);
  // With one input, Ĥ = Φ̄(x) (eq. 4 with n = 1).
  LscdeSums sums = lscde_pair_sums(x, y, basis);
  const Matrix h = lscde_system(sums, output_overlap(basis), basis).h_matrix;
  const int points = 20001;
  const double low = -12.0, high = 12.0, step = (high - low) / (points - 1);
  for (Index l = 0; l < 4; ++l) {
    for (Index k = 0; k < 4; ++k) {
      double integral = 0.0;
      for (int g = 0; g < points; ++g) {
        const Vector yy = Vector::Constant(1, low + g * step);
        const double weight = (g == 0 || g == points - 1) ? 0.5 : 1.0;
        integral +=
            weight * basis_value(basis, l, x.col(0), yy) * basis_value(basis, k, x.col(0), yy);
      }
      EXPECT_NEAR(h(l, k), integral * step, 1e-10 * std::max(1.0, integral * step));
    }
  }
}

TEST(LscdeSystemTest, PhiBarMatchesQuadratureOverTwoDimensionalY) {
  Rng rng(2);
  const LscdeBasis basis = random_basis(1, 2, 3, 0.9, rng);
  const Matrix x = test::normal_matrix(1, 1, rng);
  const Matrix h =
      lscde_system(lscde_pair_sums(x, Matrix::Zero(2, 1), basis), output_overlap(basis), basis)
          .h_matrix;
  const int points = 801;
  const double low = -8.0, high = 8.0, step = (high - low) / (points - 1);
  for (Index l = 0; l < 3; ++l) {
    for (Index k = 0; k <= l; ++k) {
      double integral = 0.0;
      for (int a = 0; a < points; ++a) {
        for (int c = 0; c < points; ++c) {
          const Vector yy = (Vector(2) << low + a * step, low + c * step).finished();
          integral += basis_value(basis, l, x.col(0), yy) * basis_value(basis, k, x.col(0), yy);
        }
      }
      integral *= step * step;  // the integrand vanishes at the edges: plain Riemann sum
      EXPECT_NEAR(h(l, k), integral, 1e-9 * std::max(1.0, integral));
    }
  }
}

TEST(LscdeSystemTest, HMatrixAndVectorMatchDoubleLoopOfThePaper) {
  Rng rng(3);
  const Index n = 40, dx = 3, dy = 2, b = 7;
  const LscdeBasis basis = random_basis(dx, dy, b, 0.8, rng);
  const Matrix x = test::normal_matrix(dx, n, rng);
  const Matrix y = test::normal_matrix(dy, n, rng);
  const LscdeSystem system =
      lscde_system(lscde_pair_sums(x, y, basis), output_overlap(basis), basis);
  // Eq. (4) with Φ̄_ll'(x) = (√π σ)^{d_y} exp(−ξ_ll'(x) / 4σ²) of §2.6.
  const double s2 = basis.sigma * basis.sigma;
  Matrix h_matrix = Matrix::Zero(b, b);
  Vector h_vector = Vector::Zero(b);
  for (Index i = 0; i < n; ++i) {
    for (Index l = 0; l < b; ++l) {
      h_vector(l) += basis_value(basis, l, x.col(i), y.col(i)) / n;
      for (Index k = 0; k < b; ++k) {
        const double xi = 2 * (x.col(i) - basis.centers_x.col(l)).squaredNorm() +
                          2 * (x.col(i) - basis.centers_x.col(k)).squaredNorm() +
                          (basis.centers_y.col(l) - basis.centers_y.col(k)).squaredNorm();
        h_matrix(l, k) += std::pow(std::sqrt(kPi) * basis.sigma, dy) * std::exp(-xi / (4 * s2)) / n;
      }
    }
  }
  EXPECT_LT((system.h_matrix - h_matrix).norm(), 1e-12 * h_matrix.norm());
  EXPECT_LT((system.h_vector - h_vector).norm(), 1e-12 * h_vector.norm());
}

TEST(LscdeSystemTest, SemiSupervisedMatrixAveragesOverAllInputs) {
  Rng rng(4);
  const LscdeBasis basis = random_basis(2, 1, 5, 0.6, rng);
  const Matrix x = test::normal_matrix(2, 20, rng), y = test::normal_matrix(1, 20, rng);
  const Matrix unlabeled = test::normal_matrix(2, 13, rng);
  LscdeSums sums = lscde_pair_sums(x, y, basis);
  sums += lscde_input_sums(unlabeled, basis);
  const Matrix overlap = output_overlap(basis);
  const LscdeSystem semi = lscde_system(sums, overlap, basis);
  // §2.7: Ĥ = (1/(n+n')) Σ over labelled and unlabelled inputs; ĥ stays over the n pairs.
  Matrix all_inputs(2, 33);
  all_inputs << x, unlabeled;
  const LscdeSystem all =
      lscde_system(lscde_pair_sums(all_inputs, Matrix::Zero(1, 33), basis), overlap, basis);
  const LscdeSystem labeled = lscde_system(lscde_pair_sums(x, y, basis), overlap, basis);
  EXPECT_LT((semi.h_matrix - all.h_matrix).norm(), 1e-13 * all.h_matrix.norm());
  EXPECT_EQ(semi.h_vector, labeled.h_vector);
}

/// Ĥ and ĥ of 80 random pairs in 2-D → 1-D and 30 random centres of width 0.5.
LscdeSystem random_system(std::uint64_t seed) {
  Rng rng(seed);
  const LscdeBasis basis = random_basis(2, 1, 30, 0.5, rng);
  const Matrix x = test::normal_matrix(2, 80, rng), y = test::normal_matrix(1, 80, rng);
  return lscde_system(lscde_pair_sums(x, y, basis), output_overlap(basis), basis);
}

TEST(LscdeSystemTest, LambdaPathMatchesDirectSolveForEveryLambda) {
  const LscdeSystem system = random_system(5);
  const auto lambdas = lscde_paper_grid();
  const Matrix path = LscdeLambdaPath(system).coefficients(lambdas);
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    const Matrix regularised = system.h_matrix + lambdas[j] * Matrix::Identity(30, 30);
    Vector direct = regularised.ldlt().solve(system.h_vector).cwiseMax(0.0);  // eqs. (6), (7)
    direct = (direct.array() < kRelativeCoefficientFloor * direct.maxCoeff()).select(0.0, direct);
    EXPECT_LT((path.col(static_cast<Index>(j)) - direct).norm(), 1e-10 * (1.0 + direct.norm()))
        << "lambda " << lambdas[j];
  }
  EXPECT_TRUE((path.array() >= 0.0).all());
}

TEST(LscdeSystemTest, SolutionsMatchDirectSolveOnBothSidesOfTheCholeskyLimit) {
  const LscdeSystem system = random_system(15);
  // Few λ take the Cholesky branch, many the eigen path.
  for (const int count : {3, static_cast<int>(kCholeskySolveLimit) + 5}) {
    const std::vector<double> lambdas = log_spaced(1e-3, 10.0, count);
    const Matrix solutions = lscde_solutions(system, lambdas);
    ASSERT_EQ(solutions.cols(), count);
    for (int j = 0; j < count; ++j) {
      const Matrix regularised = system.h_matrix + lambdas[j] * Matrix::Identity(30, 30);
      const Vector direct = regularised.ldlt().solve(system.h_vector);  // eq. (6)
      EXPECT_LT((solutions.col(j) - direct).norm(), 1e-10 * (1.0 + direct.norm()))
          << count << " values, lambda " << lambdas[j];
    }
  }
}

TEST(LscdeGateTest, MixtureEqualsEquationEightInUserUnits) {
  Rng rng(6);
  const LscdeBasis basis = random_basis(2, 1, 6, 0.4, rng);
  Vector alpha = Vector::Random(6).cwiseMax(0.0);
  alpha(0) = 0.3;  // at least one positive
  const Standardizer x_scaling((Vector(2) << 1.0, -2.0).finished(),
                               (Vector(2) << 2.0, 0.5).finished());
  const Standardizer y_scaling(Vector::Constant(1, 3.0), Vector::Constant(1, 4.0));
  const ConditionalMixture model = make_lscde_mixture(x_scaling, y_scaling, basis, alpha);
  const Matrix x = x_scaling.inverse_transform(test::normal_matrix(2, 9, rng));
  const Matrix y = y_scaling.inverse_transform(test::normal_matrix(1, 9, rng));
  const Vector log_density = model.log_pdf(x, y);
  const Matrix z = x_scaling.transform(x), t = y_scaling.transform(y);
  for (Index i = 0; i < 9; ++i) {
    double numerator = 0.0, normaliser = 0.0;
    for (Index l = 0; l < 6; ++l) {
      numerator += alpha(l) * basis_value(basis, l, z.col(i), t.col(i));
      normaliser += alpha(l) * std::exp(-(z.col(i) - basis.centers_x.col(l)).squaredNorm() /
                                        (2 * basis.sigma * basis.sigma));
    }
    normaliser *= std::sqrt(2 * kPi) * basis.sigma;  // §2.6: ∫ α̂ᵀφ(x, y) dy
    EXPECT_NEAR(log_density(i), std::log(numerator / normaliser) - std::log(4.0), 1e-10);
  }
  EXPECT_EQ(model.n_components(), (alpha.array() > 0.0).count());
}

/// The fast held-out scoring must equal scoring the mixture pair by pair — including small σ,
/// where most terms underflow, and a column of coefficients that are all zero — and, with
/// integer sample weights, scoring every pair as often as its weight says.
void expect_loss_sums_match_pairwise_scoring(CvLoss loss, double sigma, bool weighted) {
  Rng rng(7);
  const LscdeBasis basis = random_basis(3, 1, 25, sigma, rng);
  const Matrix pairs_x = test::normal_matrix(3, 60, rng), pairs_y = test::normal_matrix(1, 60, rng);
  Matrix alphas = Matrix::Random(25, 4).cwiseMax(0.0);
  alphas.col(3).setZero();
  const Vector weights = weighted ? test::integer_weights(60) : Vector();
  const Vector sums = lscde_held_out_loss_sums(pairs_x, pairs_y, basis, output_overlap(basis),
                                               alphas, loss, weights);
  const Matrix x = weighted ? test::repeated_columns(pairs_x, weights) : pairs_x;
  const Matrix y = weighted ? test::repeated_columns(pairs_y, weights) : pairs_y;
  for (Index j = 0; j < 4; ++j) {
    const ConditionalMixture model = make_lscde_mixture(
        Standardizer::identity(3), Standardizer::identity(1), basis, alphas.col(j));
    // Per pair: −log p̂(y_i|x_i), or ½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i).
    const Vector log_density = model.log_pdf(x, y);
    const double expected =
        loss == CvLoss::kl
            ? -log_density.sum()
            : (0.5 * model.squared_norm(x) - log_density.array().exp().matrix()).sum();
    EXPECT_NEAR(sums(j), expected, 1e-9 * std::max(1.0, std::abs(expected)))
        << "column " << j << " sigma " << sigma;
  }
}

TEST(LscdeSystemTest, HeldOutKlSumsMatchPairwiseScoring) {
  for (double sigma : {0.01, 0.1, 1.0, 5.0}) {
    expect_loss_sums_match_pairwise_scoring(CvLoss::kl, sigma, false);
    expect_loss_sums_match_pairwise_scoring(CvLoss::kl, sigma, true);
  }
}

TEST(LscdeSystemTest, HeldOutSqSumsMatchPairwiseScoring) {
  for (double sigma : {0.01, 0.1, 1.0, 5.0}) {
    expect_loss_sums_match_pairwise_scoring(CvLoss::sq, sigma, false);
    expect_loss_sums_match_pairwise_scoring(CvLoss::sq, sigma, true);
  }
}

TEST(LscdeSystemTest, WeightedSumsEqualTheSumsOfPairsRepeated) {
  // 1,500 pairs: the weights must follow the pairs across row chunks and blocks.
  Rng rng(12);
  const LscdeBasis basis = random_basis(2, 1, 30, 0.8, rng);
  const Matrix x = test::normal_matrix(2, 1500, rng), y = test::normal_matrix(1, 1500, rng);
  const Vector weights = test::integer_weights(1500);
  const Matrix no_inputs(2, 0);
  const LscdeSums weighted = lscde_sums(x, y, no_inputs, basis, 2, weights);
  const LscdeSums repeated = lscde_sums(test::repeated_columns(x, weights),
                                        test::repeated_columns(y, weights), no_inputs, basis, 2);
  EXPECT_EQ(weighted.input_weight, repeated.input_weight);
  EXPECT_EQ(weighted.pair_weight, repeated.pair_weight);
  EXPECT_LT((weighted.input_gram - repeated.input_gram).cwiseAbs().maxCoeff(),
            1e-12 * repeated.input_gram.cwiseAbs().maxCoeff());
  EXPECT_LT((weighted.joint - repeated.joint).cwiseAbs().maxCoeff(),
            1e-12 * repeated.joint.cwiseAbs().maxCoeff());
}

struct Sample {
  Matrix x, y;
};

Sample regression_sample(Index n, Index dx, std::uint64_t seed) {
  Rng rng(seed);
  Sample s{test::normal_matrix(dx, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) s.y(0, i) = std::sin(2 * s.x(0, i)) + 0.3 * rng.normal();
  return s;
}

/// Cross-validation redone by hand: same draws (same seed), and for every fold and (σ, λ) a model
/// fitted on the other folds, with centres taken from them only (§2.5), and scored on this one;
/// with sample `weights` (empty: none) the standardisation, the sums and each fold's mean loss
/// are weighted.
void expect_cv_matches_explicit_loop(CvLoss loss, Index n_centers,
                                     const Vector& weights = Vector()) {
  const Sample data = regression_sample(45, 2, 8);
  LscdeOptions options;
  options.sigma = {0.05, 0.3, 1.0};
  options.regularization = {0.01, 0.1, 1.0};
  options.folds = 4;
  options.n_centers = n_centers;
  options.cv_loss = loss;
  options.seed = 11;
  const ConditionalFit fit = fit_lscde(data.x, data.y, options, test::weighted_context(weights));
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  const CvTable& table = *fit.report.cross_validation;

  const bool weighted = weights.size() > 0;
  const Vector pair_weights = weighted ? weights : Vector(Vector::Ones(45));
  const Standardizer x_scaling = Standardizer::fit(data.x, weights, "x");
  const Standardizer y_scaling = Standardizer::fit(data.y, weights, "y");
  const Matrix z = x_scaling.transform(data.x), t = y_scaling.transform(data.y);
  Rng rng(options.seed);
  std::vector<Index> order;
  if (n_centers >= 45) {
    for (Index i = 0; i < 45; ++i) order.push_back(i);
  } else {
    order = rng.permutation(45);
  }
  const KFold folds(45, options.folds, rng);
  for (std::size_t s = 0; s < options.sigma.size(); ++s) {
    for (std::size_t l = 0; l < options.regularization.size(); ++l) {
      double mean = 0.0;
      for (int k = 0; k < options.folds; ++k) {
        const auto train = folds.train(k);
        // The first n_centers training pairs of the centre order (all of them when fewer).
        std::vector<Index> centers;
        for (const Index i : order) {
          if (static_cast<Index>(centers.size()) < n_centers &&
              std::binary_search(train.begin(), train.end(), i)) {
            centers.push_back(i);
          }
        }
        const LscdeBasis basis{gather_samples(z, centers), gather_samples(t, centers),
                               options.sigma[s]};
        const LscdeSystem system =
            lscde_system(lscde_pair_sums(gather_samples(z, train), gather_samples(t, train), basis,
                                         weighted ? Vector(weights(train)) : Vector()),
                         output_overlap(basis), basis);
        // The solver itself is checked against a direct solve in LambdaPathMatchesDirectSolve.
        const Vector alpha =
            LscdeLambdaPath(system).coefficients({options.regularization[l]}).col(0);
        const ConditionalMixture model = make_lscde_mixture(x_scaling, y_scaling, basis, alpha);
        // Per pair: −log p̂(y_i|x_i), or ½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i); the fold's weighted mean.
        const std::vector<Index>& test_pairs = folds.test(k);
        const Matrix x_test = gather_samples(data.x, test_pairs);
        const Vector log_density = model.log_pdf(x_test, gather_samples(data.y, test_pairs));
        const Vector pair_loss =
            loss == CvLoss::kl
                ? Vector(-log_density)
                : Vector(0.5 * model.squared_norm(x_test) - log_density.array().exp().matrix());
        const Vector test_weights = pair_weights(test_pairs);
        mean += test_weights.dot(pair_loss) / test_weights.sum() / options.folds;
      }
      const Index row = static_cast<Index>(s * options.regularization.size() + l);
      // Both sides add the same terms in different orders. At σ = 0.05 on 45 points a held-out
      // density can hinge on a coefficient 1e−8 of the largest, whose last digits follow that
      // order; 1e−6 relative is still far below any difference between grid candidates.
      EXPECT_EQ(table.candidates(row, 0), options.sigma[s]);
      EXPECT_EQ(table.candidates(row, 1), options.regularization[l]);
      EXPECT_NEAR(table.mean_loss(row), mean, 1e-6 * std::max(1.0, std::abs(mean)))
          << "sigma " << options.sigma[s] << " lambda " << options.regularization[l];
    }
  }
  const Index best = best_candidate(table.mean_loss);
  EXPECT_EQ(table.best, best);
  EXPECT_EQ(fit.report.hyperparameters.at("sigma"), table.candidates(best, 0));
  EXPECT_EQ(fit.report.hyperparameters.at("regularization"), table.candidates(best, 1));
}

TEST(LscdeFitTest, KlCrossValidationMatchesExplicitLoop) {
  expect_cv_matches_explicit_loop(CvLoss::kl, 100);
}

TEST(LscdeFitTest, SqCrossValidationMatchesExplicitLoop) {
  expect_cv_matches_explicit_loop(CvLoss::sq, 100);
}

TEST(LscdeFitTest, CrossValidationWithRandomCentresMatchesExplicitLoop) {
  expect_cv_matches_explicit_loop(CvLoss::kl, 12);
}

TEST(LscdeFitTest, WeightedCrossValidationMatchesExplicitLoop) {
  const Vector weights = test::integer_weights(45) + Vector::LinSpaced(45, 0.0, 0.7);
  expect_cv_matches_explicit_loop(CvLoss::kl, 100, weights);
  expect_cv_matches_explicit_loop(CvLoss::sq, 12, weights);
}

TEST(LscdeFitTest, ScalingEveryWeightChangesNothing) {
  const Sample data = regression_sample(60, 2, 13);
  const Vector weights = test::integer_weights(60) + Vector::LinSpaced(60, 0.0, 0.4);
  LscdeOptions options;
  options.sigma = {0.3, 1.0};
  options.regularization = {0.01, 0.1};
  const ConditionalFit fit = fit_lscde(data.x, data.y, options, test::weighted_context(weights));
  const ConditionalFit scaled =
      fit_lscde(data.x, data.y, options, test::weighted_context(0.013 * weights));
  EXPECT_EQ(fit.report.hyperparameters, scaled.report.hyperparameters);
  const Vector expected = fit.model.log_pdf(data.x, data.y);
  EXPECT_LT((scaled.model.log_pdf(data.x, data.y) - expected).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(LscdeFitTest, WeightsAreRefusedWithUnlabelledInputsAndOfTheWrongCount) {
  const Sample data = regression_sample(30, 1, 14);
  Rng rng(1);
  const Matrix unlabeled = test::normal_matrix(1, 10, rng);
  EXPECT_THROW(fit_lscde(data.x, data.y, unlabeled, {}, test::weighted_context(Vector::Ones(30))),
               InvalidArgument);
  EXPECT_THROW(fit_lscde(data.x, data.y, {}, test::weighted_context(Vector::Ones(29))),
               InvalidArgument);
}

TEST(LscdeFitTest, AllPairsBecomeCentresInDataOrderWhenCentresOutnumberSamples) {
  const Sample data = regression_sample(30, 1, 9);
  LscdeOptions options;
  options.sigma = {0.3};
  options.regularization = {0.001};
  options.n_centers = 1000;
  const ConditionalFit fit = fit_lscde(data.x, data.y, options);
  const auto& gate = dynamic_cast<const LscdeGate&>(fit.model.gate());
  const Matrix z = fit.model.x_scaling().transform(data.x);
  // Kept centres (α̂ > 0) appear in data order.
  Index next = 0;
  for (Index c = 0; c < gate.centers_x().cols(); ++c) {
    while (next < 30 && z(0, next) != gate.centers_x()(0, c)) ++next;
    ASSERT_LT(next, 30) << "centre " << c << " is not a later training input";
    ++next;
  }
  EXPECT_EQ(fit.report.statistics.at("n_basis"), 30.0);
  EXPECT_FALSE(fit.report.cross_validation.has_value());
}

TEST(LscdeFitTest, ResultDoesNotDependOnThreadCount) {
  const Sample data = regression_sample(700, 3, 10);
  LscdeOptions options;
  const ConditionalFit one = fit_lscde(data.x, data.y, options, FitContext{}.with_threads(1));
  const ConditionalFit two = fit_lscde(data.x, data.y, options, FitContext{}.with_threads(2));
  const ConditionalFit three = fit_lscde(data.x, data.y, options, FitContext{}.with_threads(3));
  EXPECT_EQ(one.report.cross_validation->mean_loss, two.report.cross_validation->mean_loss);
  EXPECT_EQ(one.report.cross_validation->mean_loss, three.report.cross_validation->mean_loss);
  const auto& alpha_one = dynamic_cast<const LscdeGate&>(one.model.gate()).alpha();
  EXPECT_EQ(alpha_one, dynamic_cast<const LscdeGate&>(two.model.gate()).alpha());
  EXPECT_EQ(alpha_one, dynamic_cast<const LscdeGate&>(three.model.gate()).alpha());
}

TEST(LscdeFitTest, SemiSupervisedFitUsesUnlabelledInputs) {
  const Sample data = regression_sample(60, 1, 12);
  Rng rng(13);
  const Matrix unlabeled = test::normal_matrix(1, 200, rng);
  LscdeOptions options;
  options.sigma = {0.3};
  options.regularization = {0.1};
  const ConditionalFit plain = fit_lscde(data.x, data.y, options);
  const ConditionalFit empty = fit_lscde(data.x, data.y, Matrix(1, 0), options);
  const ConditionalFit semi = fit_lscde(data.x, data.y, unlabeled, options);
  const auto alpha = [](const ConditionalFit& f) {
    return dynamic_cast<const LscdeGate&>(f.model.gate()).alpha();
  };
  EXPECT_EQ(alpha(plain), alpha(empty));
  EXPECT_NE(alpha(plain), alpha(semi));
  EXPECT_EQ(semi.report.statistics.at("n_unlabeled"), 200.0);
}

TEST(LscdeFitTest, RejectsBadInput) {
  const Sample data = regression_sample(20, 2, 14);
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_lscde(x, y); });
  LscdeOptions options;
  options.sigma = {0.1, -1.0};
  EXPECT_THROW(fit_lscde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.regularization = {};
  EXPECT_THROW(fit_lscde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.folds = 1;
  EXPECT_THROW(fit_lscde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.folds = 21;
  EXPECT_THROW(fit_lscde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.n_centers = 0;
  EXPECT_THROW(fit_lscde(data.x, data.y, options), InvalidArgument);
  EXPECT_THROW(fit_lscde(data.x, data.y, LscdeOptions{}, FitContext{}.with_threads(-1)),
               InvalidArgument);
  EXPECT_THROW(fit_lscde(data.x, data.y, Matrix::Zero(3, 4), LscdeOptions{}), InvalidArgument);
}

}  // namespace
}  // namespace cdens
