// LSCE and LSMI (Tangkaratt, Xie & Sugiyama §2.3–2.7; docs/methods/lsce.md, lsmi.md): the
// estimates against their definitions summed sample by sample, the analytic gradient against
// central differences, cross-validation against explicit refits, the final model against eq. (10)
// written out, the DR error on data with a known subspace, and the usual model-file, thread and
// bad-input checks.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/grassmann.hpp"
#include "conditional/projected_gate.hpp"
#include "conditional/reduced_cde_dimension.hpp"
#include "conditional/sufficient_reduction.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/sampling_plan.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Artificial set (b) of §3.2 with d_x inputs: x ~ N(0, I), y = x₂ + x₂² + x₂³ + ε, ε ~ N(0,
/// 0.25²); the true W* is the second unit vector.
test::PairSample set_b(Index n, Index input_dim, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(input_dim, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    const double v = sample.x(1, i);
    sample.y(0, i) = v + v * v + v * v * v + 0.25 * rng.normal();
  }
  return sample;
}

/// ‖ŴᵀŴ − W*ᵀW*‖_F (§3.2).
double dr_error(const Matrix& w, const Matrix& w_true) {
  return (w.transpose() * w - w_true.transpose() * w_true).norm();
}

/// φ_k(z, y) of eq. (11).
double basis(const Vector& z, const Vector& u, const Vector& y, const Vector& v, double sigma) {
  return std::exp(-((z - u).squaredNorm() + (y - v).squaredNorm()) / (2 * sigma * sigma));
}

/// J by its definition, sample by sample: Ĝ from Φ̄(z) of §2.7 (LSCE) or Ĥ = (1/n²) Σ_ij
/// φ(z_i, y_j) φ(z_i, y_j)ᵀ (LSMI), ĥ = (1/n) Σ_i φ(z_i, y_i), α̂ = (Ĥ + λI)⁻¹ĥ.
double brute_force_objective(ReductionCriterion criterion, const Matrix& x, const Matrix& y,
                             const Matrix& cx, const Matrix& cy, const Matrix& w, double sigma,
                             double lambda) {
  const Index n = x.cols();
  const Index b = cx.cols();
  const Matrix z = w * x;
  const Matrix u = w * cx;
  Matrix h_matrix = Matrix::Zero(b, b);
  Vector h_vector = Vector::Zero(b);
  for (Index i = 0; i < n; ++i) {
    for (Index k = 0; k < b; ++k) {
      h_vector(k) += basis(z.col(i), u.col(k), y.col(i), cy.col(k), sigma) / n;
      for (Index l = 0; l < b; ++l) {
        if (criterion == ReductionCriterion::sce) {
          const double dy = static_cast<double>(y.rows());
          h_matrix(k, l) += std::pow(std::sqrt(kPi) * sigma, dy) *
                            std::exp(-(2 * (z.col(i) - u.col(k)).squaredNorm() +
                                       2 * (z.col(i) - u.col(l)).squaredNorm() +
                                       (cy.col(k) - cy.col(l)).squaredNorm()) /
                                     (4 * sigma * sigma)) /
                            n;
        } else {
          for (Index j = 0; j < n; ++j) {
            h_matrix(k, l) += basis(z.col(i), u.col(k), y.col(j), cy.col(k), sigma) *
                              basis(z.col(i), u.col(l), y.col(j), cy.col(l), sigma) / (n * n);
          }
        }
      }
    }
  }
  const Vector alpha = (h_matrix + lambda * Matrix::Identity(b, b)).ldlt().solve(h_vector);
  const double offset = criterion == ReductionCriterion::smi ? 0.5 : 0.0;
  return 0.5 * alpha.dot(h_matrix * alpha) - h_vector.dot(alpha) + offset;
}

class ObjectiveTest : public ::testing::TestWithParam<ReductionCriterion> {};

TEST_P(ObjectiveTest, ValueMatchesTheDefinitionSampleBySample) {
  Rng rng(1);
  const Matrix x = test::normal_matrix(4, 25, rng);
  const Matrix y = test::normal_matrix(2, 25, rng);
  const Matrix cx = x.leftCols(8);
  const Matrix cy = y.leftCols(8);
  const Matrix w = random_orthonormal_rows(2, 4, rng);
  for (const double sigma : {0.5, 1.3}) {
    const ReductionObjective objective(GetParam(), x, y, cx, cy, sigma, 0.1);
    const double expected = brute_force_objective(GetParam(), x, y, cx, cy, w, sigma, 0.1);
    EXPECT_NEAR(objective.value(w), expected, 1e-12 * (1.0 + std::abs(expected)));
  }
}

TEST_P(ObjectiveTest, GradientMatchesCentralDifferencesAtRandomW) {
  Rng rng(2);
  const test::PairSample data = set_b(60, 5, 3);
  const Matrix x = Standardizer::fit(data.x, "x").transform(data.x);
  const Matrix y = Standardizer::fit(data.y, "y").transform(data.y);
  const Matrix cx = x.leftCols(30);
  const Matrix cy = y.leftCols(30);
  for (const Index dz : {1, 2, 4}) {
    // Random W, orthonormal or not: the formula holds for any W.
    const Matrix w =
        dz == 2 ? test::normal_matrix(dz, 5, rng) : random_orthonormal_rows(dz, 5, rng);
    const ReductionObjective objective(GetParam(), x, y, cx, cy, 0.7, 0.05);
    const ReductionObjective::Solution solution = objective.solve(w);
    const Matrix gradient = objective.gradient(solution);
    EXPECT_DOUBLE_EQ(solution.value, objective.value(w));
    ASSERT_EQ(gradient.rows(), dz);
    ASSERT_EQ(gradient.cols(), 5);
    // Central differences with h = 1e-5: truncation O(h²) ≈ 1e-10, rounding ≈ 1e-16/h ≈ 1e-11
    // relative to J's scale.
    const double h = 1e-5;
    for (Index r = 0; r < dz; ++r) {
      for (Index c = 0; c < 5; ++c) {
        Matrix up = w, down = w;
        up(r, c) += h;
        down(r, c) -= h;
        const double difference = (objective.value(up) - objective.value(down)) / (2 * h);
        EXPECT_NEAR(gradient(r, c), difference, 1e-6 * (1.0 + std::abs(difference)))
            << "d_z " << dz << " entry (" << r << ", " << c << ")";
      }
    }
  }
}

TEST_P(ObjectiveTest, CrossValidationMatchesExplicitRefits) {
  Rng rng(4);
  const test::PairSample data = set_b(40, 3, 5);
  const Matrix x = Standardizer::fit(data.x, "x").transform(data.x);
  const Matrix y = Standardizer::fit(data.y, "y").transform(data.y);
  const SamplingPlan draws = draw_sampling_plan(40, 15, LscdeOptions{}.folds, 9);
  const std::vector<double> sigmas = {0.3, 1.0};
  const std::vector<double> lambdas = {0.01, 0.5};
  // The library's plan of one process (the draws of draw_sampling_plan) and its candidates.
  const ShardedSamplingPlan plan =
      draw_sharded_sampling_plan(40, 15, LscdeOptions{}.folds, 9, local_communicator());
  const ReductionFolds folds(GetParam(), y, plan, gather_samples(x, plan.candidate_order),
                             gather_samples(y, plan.candidate_order), sigmas, lambdas);
  const Matrix w = random_orthonormal_rows(2, 3, rng);
  const CvTable table = folds.cross_validate(x, w, {0, 1}, {0, 1});
  ASSERT_EQ(table.mean_loss.size(), 4);
  for (Index s = 0; s < 2; ++s) {
    for (Index l = 0; l < 2; ++l) {
      double mean = 0.0;
      for (int k = 0; k < draws.folds->n_folds(); ++k) {
        const auto& centers = draws.fold_centers[static_cast<std::size_t>(k)];
        const Matrix cx = gather_samples(x, centers);
        const Matrix cy = gather_samples(y, centers);
        const std::vector<Index> training = draws.folds->train(k);
        const ReductionObjective trained(GetParam(), gather_samples(x, training),
                                         gather_samples(y, training), cx, cy, sigmas[s],
                                         lambdas[l]);
        const Vector alpha = trained.coefficients(w);
        // J of the trained α̂ on the held-out fold: the objective with λ → 0 has the same Ĥ, ĥ;
        // evaluate ½ αᵀĤα − ĥᵀα from its definition.
        const Matrix xt = gather_samples(x, draws.folds->test(k));
        const Matrix yt = gather_samples(y, draws.folds->test(k));
        const Index m = xt.cols();
        const Matrix zt = w * xt;
        const Matrix u = w * cx;
        double quadratic = 0.0, linear = 0.0;
        for (Index i = 0; i < m; ++i) {
          for (Index a = 0; a < cx.cols(); ++a) {
            linear += alpha(a) * basis(zt.col(i), u.col(a), yt.col(i), cy.col(a), sigmas[s]) / m;
            for (Index c = 0; c < cx.cols(); ++c) {
              double integral = 0.0;
              if (GetParam() == ReductionCriterion::sce) {
                integral = std::sqrt(kPi) * sigmas[s] *
                           std::exp(-(2 * (zt.col(i) - u.col(a)).squaredNorm() +
                                      2 * (zt.col(i) - u.col(c)).squaredNorm() +
                                      (cy.col(a) - cy.col(c)).squaredNorm()) /
                                    (4 * sigmas[s] * sigmas[s])) /
                           m;
              } else {
                for (Index j = 0; j < m; ++j) {
                  integral += basis(zt.col(i), u.col(a), yt.col(j), cy.col(a), sigmas[s]) *
                              basis(zt.col(i), u.col(c), yt.col(j), cy.col(c), sigmas[s]) / (m * m);
                }
              }
              quadratic += alpha(a) * alpha(c) * integral;
            }
          }
        }
        mean += (0.5 * quadratic - linear + (GetParam() == ReductionCriterion::smi ? 0.5 : 0.0)) /
                draws.folds->n_folds();
      }
      EXPECT_NEAR(table.mean_loss(s * 2 + l), mean, 1e-10);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Criteria, ObjectiveTest,
                         ::testing::Values(ReductionCriterion::sce, ReductionCriterion::smi));

LsceOptions quick_options(Index dz, int restarts) {
  LsceOptions options;
  options.reduction.n_components = dz;
  options.reduction.n_restarts = restarts;
  options.reduction.n_centers = 40;
  options.reduction.sigma = {0.1, 0.2, 0.5, 1.0, 2.0};
  options.reduction.regularization = {0.01, 0.1, 1.0};
  options.epsilon_kde.epsilon = {0.2, 0.5, 1.0};
  options.epsilon_kde.sigma = {0.1, 0.3, 1.0};
  return options;
}

TEST(LsceTest, SearchIteratesStayOrthonormalAndTracesFall) {
  const test::PairSample data = set_b(80, 4, 7);
  LsceOptions options = quick_options(2, 3);
  options.reduction.tolerance = 0.0;  // every start runs all its updates
  options.reduction.max_iter = 40;
  const LsceFit fit = fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options);
  EXPECT_LT(
      (fit.projection * fit.projection.transpose() - Matrix::Identity(2, 2)).cwiseAbs().maxCoeff(),
      1e-10);
  ASSERT_EQ(fit.traces.size(), 3u);
  for (const auto& trace : fit.traces) {
    ASSERT_FALSE(trace.empty());
    EXPECT_LE(trace.size(), 40u);
    // Between cross-validations σ and λ are fixed, and each update is a descent step.
    for (std::size_t i = 1; i < trace.size(); ++i) {
      if (i % 5 != 0) {
        EXPECT_LE(trace[i], trace[i - 1]) << "update " << i;
      }
    }
  }
  const auto& projected = dynamic_cast<const ProjectedGate&>(fit.model.gate());
  EXPECT_EQ(projected.projection(), fit.projection);
}

/// The registry's transform against z = W x̄ computed here, x̄ standardised by the model's own
/// means and scales and W the fit's extra (its rows orthonormal); with a constant input, which
/// the registry's fit ignores, W has a zero column there and the transform is still W x̄.
/// 1e-12: sums of 3 or 4 products of order-1 numbers.
TEST(LsceTest, RegistryTransformIsTheProjectionOfTheStandardisedInputs) {
  const test::PairSample data = set_b(60, 3, 9);
  const MethodEntry& lsce = find_method("lsce");
  for (const bool with_constant : {false, true}) {
    SCOPED_TRACE(with_constant ? "with a constant input" : "without");
    Matrix x = data.x;
    if (with_constant) {
      x.conservativeResize(4, Eigen::NoChange);
      x.row(3).setConstant(2.5);
    }
    const MethodFit<ConditionalModel> fit =
        fit_method_with_extras(lsce, x, data.y, Matrix(x.rows(), 0), lsce.test_options);
    const Matrix& w = std::get<Matrix>(fit.extras.at("projection"));
    ASSERT_EQ(w.cols(), x.rows());
    EXPECT_LT((w * w.transpose() - Matrix::Identity(w.rows(), w.rows())).cwiseAbs().maxCoeff(),
              1e-10);
    if (with_constant) {
      EXPECT_EQ(w.col(3).cwiseAbs().maxCoeff(), 0.0);
    }
    const Standardizer& scaling = fit.model.mixture.x_scaling();
    const Matrix standardised =
        (x.colwise() - scaling.mean()).array().colwise() / scaling.scale().array();
    const Matrix z = answer_query(fit.model, "transform", x);
    EXPECT_LT((z - (w * standardised).transpose()).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(LsceTest, PaperModelIsTheLscdeOfEquationTenOnTheProjectedInputs) {
  const test::PairSample data = set_b(70, 3, 8);
  LsceOptions options = quick_options(1, 2);
  options.final_model = LsceFinalModel::paper;
  const LsceFit fit = fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options);
  EXPECT_EQ(fit.report.hyperparameters.count("reduction_sigma"), 0u);
  const double sigma = fit.report.hyperparameters.at("sigma");
  const double lambda = fit.report.hyperparameters.at("regularization");
  // The same draws as the fit: centres are the first b pairs of center_order.
  const SamplingPlan draws = draw_sampling_plan(70, 40, LscdeOptions{}.folds, LscdeOptions{}.seed);
  const Standardizer sx = Standardizer::fit(data.x, "x");
  const Standardizer sy = Standardizer::fit(data.y, "y");
  const Matrix x = sx.transform(data.x);
  const Matrix y = sy.transform(data.y);
  const Matrix cx = gather_samples(x, draws.centers);
  const Matrix cy = gather_samples(y, draws.centers);
  const ReductionObjective objective(ReductionCriterion::sce, x, y, cx, cy, sigma, lambda);
  const Vector alpha = objective.coefficients(fit.projection).cwiseMax(0.0);
  // Eq. (10) in the user's units at new points.
  const test::PairSample queries = set_b(15, 3, 9);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  const Matrix zq = fit.projection * sx.transform(queries.x);
  const Matrix yq = sy.transform(queries.y);
  const Matrix u = fit.projection * cx;
  for (Index j = 0; j < 15; ++j) {
    double numerator = 0.0, denominator = 0.0;
    for (Index k = 0; k < cx.cols(); ++k) {
      numerator += alpha(k) * basis(zq.col(j), u.col(k), yq.col(j), cy.col(k), sigma);
      denominator += alpha(k) * std::sqrt(2 * kPi) * sigma *
                     std::exp(-(zq.col(j) - u.col(k)).squaredNorm() / (2 * sigma * sigma));
    }
    const double expected = std::log(numerator / denominator) - std::log(sy.scale()(0));
    EXPECT_NEAR(log_density(j), expected, 1e-6 * (1.0 + std::abs(expected)));
  }
}

TEST(LsceTest, TwoStepModelsAndLsceByDefaultAreTheEstimatorOnTheProjectedInputs) {
  const test::PairSample data = set_b(60, 3, 10);
  const LsceOptions options = quick_options(1, 2);
  const test::PairSample queries = set_b(20, 3, 11);
  const Matrix x = Standardizer::fit(data.x, "x").transform(data.x);
  const Matrix xq = Standardizer::fit(data.x, "x").transform(queries.x);
  for (const auto method : {ReducedCdeMethod::lsmi_ekde, ReducedCdeMethod::lsmi_lscde,
                            ReducedCdeMethod::lsce_ekde, ReducedCdeMethod::lsce}) {
    const LsceFit fit = fit_lsce(data.x, data.y, method, options);
    const Matrix z = fit.projection * x;
    Vector expected;
    if (method == ReducedCdeMethod::lsmi_lscde || method == ReducedCdeMethod::lsce) {
      // lsce's default final model: LSCDE refitted on z with KL cross-validation.
      EXPECT_GT(fit.report.hyperparameters.count("reduction_sigma"), 0u);
      LscdeOptions lscde;
      lscde.sigma = options.reduction.sigma;
      lscde.regularization = options.reduction.regularization;
      lscde.n_centers = options.reduction.n_centers;
      expected = fit_lscde(z, data.y, lscde).model.log_pdf(fit.projection * xq, queries.y);
    } else {
      expected =
          fit_ekde(z, data.y, options.epsilon_kde).model.log_pdf(fit.projection * xq, queries.y);
    }
    const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
    EXPECT_LT((log_density - expected).cwiseAbs().maxCoeff(), 1e-9) << to_string(method);
  }
}

TEST(LsceTest, DimensionReductionErrorFallsAsNGrows) {
  // Set (b) with d_x = 4 and the true d_z = 1. With n samples the subspace estimate is off by
  // O(1/√n); the mean over 3 data sets at n = 300 must beat the mean at n = 50 by a clear margin
  // and be small in absolute terms (the paper's Figure 3 reaches ≈ 0.1 at n = 400).
  const Matrix w_true = Matrix::Identity(4, 4).row(1);
  std::vector<double> means;
  for (const Index n : {50, 300}) {
    double mean = 0.0;
    for (std::uint64_t seed = 0; seed < 3; ++seed) {
      const test::PairSample data = set_b(n, 4, 100 + seed);
      LsceOptions options = quick_options(1, 2);
      options.reduction.seed = seed;
      const LsceFit fit = fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options);
      // W acts on standardised x; map it back to the user's coordinates before comparing.
      const Vector scale = Standardizer::fit(data.x, "x").scale();
      const Matrix w_user = fit.projection * scale.cwiseInverse().asDiagonal();
      mean += dr_error(w_user.normalized(), w_true) / 3.0;
    }
    means.push_back(mean);
  }
  EXPECT_LT(means[1], 0.6 * means[0]) << means[0] << " → " << means[1];
  EXPECT_LT(means[1], 0.25);
}

TEST(LsceTest, ChoosesTheTrueDimensionAndReportsTheTable) {
  // By the SQ criterion (the default). With these small grids and 40 centres the held-out
  // NLL (dz_loss kl) prefers d_z = 2 on this sample; the choice by either loss is checked
  // against explicit fits in DimensionTableMatchesExplicitRefitsWithoutEachFold.
  const test::PairSample data = set_b(150, 3, 12);
  const LsceFit fit = fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, quick_options(0, 2));
  const CvTable& table = fit.report.auxiliary_cross_validation.at("n_components");
  ASSERT_EQ(table.mean_loss.size(), 3);
  EXPECT_EQ(fit.report.hyperparameters.at("n_components"), 1.0);
  EXPECT_EQ(fit.projection.rows(), 1);
  EXPECT_EQ(table.candidates(table.best, 0), 1.0);
}

TEST(LsceTest, DimensionTableMatchesExplicitRefitsWithoutEachFold) {
  // The d_z CV must fit the whole method — W included — without the held-out fold: each entry of
  // both tables (SQ criterion and negative log-likelihood) is recomputed here from an explicit
  // fit on the other folds. lsce's refit is chosen by sq by default, by its own criterion (kl)
  // when asked; the paper's model and the other methods by sq whatever dz_loss says.
  const test::PairSample data = set_b(60, 3, 16);
  const LsceOptions base = quick_options(0, 2);
  struct Case {
    ReducedCdeMethod method;
    LsceFinalModel final_model;
    CvLoss dz_loss;
    CvLoss expected;
  };
  for (const Case c :
       {Case{ReducedCdeMethod::lsce, LsceFinalModel::refit, CvLoss::kl, CvLoss::kl},
        Case{ReducedCdeMethod::lsce, LsceFinalModel::refit, CvLoss::sq, CvLoss::sq},
        Case{ReducedCdeMethod::lsce, LsceFinalModel::paper, CvLoss::kl, CvLoss::sq},
        Case{ReducedCdeMethod::lsmi_ekde, LsceFinalModel::refit, CvLoss::kl, CvLoss::sq}}) {
    LsceOptions options = base;
    options.final_model = c.final_model;
    options.dz_loss = c.dz_loss;
    EXPECT_EQ(dimension_loss(c.method, options), c.expected);
    const DimensionTables tables = cross_validate_dimension(data.x, data.y, c.method, options);
    Rng fold_rng(options.reduction.seed, random_stream::kOuterFolds);
    const KFold folds(60, options.reduction.folds, fold_rng);
    const CvTable& sq = c.expected == CvLoss::sq ? tables.chosen : tables.other;
    const CvTable& kl = c.expected == CvLoss::sq ? tables.other : tables.chosen;
    EXPECT_EQ(sq.loss, "sq");
    EXPECT_EQ(kl.loss, "kl");
    ASSERT_EQ(sq.mean_loss.size(), 3);
    ASSERT_EQ(kl.mean_loss.size(), 3);
    for (Index dz = 1; dz <= 3; ++dz) {
      double mean_sq = 0.0;
      double mean_kl = 0.0;
      for (int k = 0; k < folds.n_folds(); ++k) {
        LsceOptions fixed = options;
        fixed.reduction.n_components = dz;
        const LsceFit fit = fit_at_dimension(
            gather_samples(data.x, folds.train(k)), gather_samples(data.y, folds.train(k)),
            Standardizer::fit(data.x, "x"), Standardizer::fit(data.y, "y"), c.method, fixed);
        const Matrix x_test = gather_samples(data.x, folds.test(k));
        const Matrix y_test = gather_samples(data.y, folds.test(k));
        mean_sq += squared_loss(fit.model, x_test, y_test) / folds.n_folds();
        mean_kl += -fit.model.log_pdf(x_test, y_test).mean() / folds.n_folds();
      }
      EXPECT_NEAR(sq.mean_loss(dz - 1), mean_sq, 1e-12 * (1.0 + std::abs(mean_sq)))
          << to_string(c.method) << " d_z " << dz;
      EXPECT_NEAR(kl.mean_loss(dz - 1), mean_kl, 1e-12 * (1.0 + std::abs(mean_kl)))
          << to_string(c.method) << " d_z " << dz;
    }
  }
  // The fit takes d_z from the chosen table and reports both.
  for (const CvLoss loss : {CvLoss::sq, CvLoss::kl}) {
    LsceOptions options = base;
    options.dz_loss = loss;
    const LsceFit fit = fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options);
    const CvTable& chosen = fit.report.auxiliary_cross_validation.at("n_components");
    const std::string other = loss == CvLoss::sq ? "kl" : "sq";
    EXPECT_EQ(chosen.loss, to_string(loss));
    EXPECT_EQ(fit.report.auxiliary_cross_validation.at("n_components_" + other).loss, other);
    EXPECT_EQ(fit.report.hyperparameters.at("n_components"), chosen.candidates(chosen.best, 0));
  }
}

TEST(LsceTest, DimensionIsChosenWhenAColumnIsConstantWithinAFold) {
  // A column that is 0 but for one pair: the training folds without that pair see it constant.
  test::PairSample data = set_b(40, 3, 17);
  data.x.row(2).setZero();
  data.x(2, 0) = 1.0;
  for (const auto method : {ReducedCdeMethod::lsce, ReducedCdeMethod::lsce_ekde,
                            ReducedCdeMethod::lsmi_lscde, ReducedCdeMethod::lsmi_ekde}) {
    const LsceFit fit = fit_lsce(data.x, data.y, method, quick_options(0, 1));
    EXPECT_EQ(fit.report.auxiliary_cross_validation.at("n_components").mean_loss.size(), 3)
        << to_string(method);
  }
}

TEST(LsceTest, TwoStepEstimatorLeavesOutAProjectedInputConstantOverThePairs) {
  // At d_z = d_x, W = I; with x₃ constant over the pairs (as in a fold of the d_z CV) the
  // estimator on z is the ε-KDE of (x₁, x₂) alone.
  test::PairSample data = set_b(40, 3, 18);
  data.x.row(2).setConstant(0.5);
  const test::PairSample queries = set_b(15, 3, 19);
  const LsceOptions options = quick_options(3, 1);
  const LsceFit fit =
      fit_at_dimension(data.x, data.y, Standardizer::identity(3), Standardizer::identity(1),
                       ReducedCdeMethod::lsmi_ekde, options);
  EXPECT_TRUE(fit.projection.isApprox(Matrix::Identity(3, 3).topRows(2)));
  EXPECT_EQ(fit.report.hyperparameters.at("n_components"), 2.0);
  const Vector expected = fit_ekde(data.x.topRows(2), data.y, options.epsilon_kde)
                              .model.log_pdf(queries.x.topRows(2), queries.y);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  EXPECT_LT((log_density - expected).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(LsceTest, ResultDoesNotDependOnThreadCount) {
  const test::PairSample data = set_b(50, 3, 13);
  LsceOptions options = quick_options(0, 3);
  test::expect_independent_of_thread_count([&](const FitContext& context) {
    return fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options, context);
  });
}

TEST(LsceTest, ModelFilesRoundTrip) {
  const test::PairSample data = set_b(50, 3, 14);
  for (const auto method : {ReducedCdeMethod::lsce, ReducedCdeMethod::lsmi_ekde}) {
    const LsceFit fit = fit_lsce(data.x, data.y, method, quick_options(2, 2));
    const ConditionalMixture loaded =
        test::expect_model_file_round_trip(fit.model, fit.report, data.x, data.y);
    EXPECT_EQ(loaded.gate().kind(), "projected");
  }
}

TEST(LsceTest, RejectsBadInputAndOptions) {
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_lsce(x, y); });
  const test::PairSample data = set_b(30, 3, 15);
  LsceOptions options = quick_options(4, 2);
  EXPECT_THROW(fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options), InvalidArgument);
  options = quick_options(1, 0);
  EXPECT_THROW(fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options), InvalidArgument);
  options = quick_options(1, 1);
  options.reduction.sigma = {0.0};
  EXPECT_THROW(fit_lsce(data.x, data.y, ReducedCdeMethod::lsce, options), InvalidArgument);
  EXPECT_THROW(parse_reduced_cde_method("lsce-rkde"), InvalidArgument);
  EXPECT_EQ(parse_reduced_cde_method("lsmi-lscde"), ReducedCdeMethod::lsmi_lscde);
}

/// Claims two ranks; the methods whose estimator on z is ε-KDE (one process only) must refuse
/// it at every entry point, before any collective call.
TEST(LsceTest, TheEpsilonKdeMethodsRefuseMoreThanOneProcessAtEveryEntryPoint) {
  const test::PairSample data = set_b(30, 3, 16);
  const test::TwoRankCommunicator two_ranks;
  const FitContext context{two_ranks};
  const LsceOptions options = quick_options(1, 1);
  const Standardizer x_scaling = Standardizer::fit(data.x, "x");
  const Standardizer y_scaling = Standardizer::fit(data.y, "y");
  for (const ReducedCdeMethod method : {ReducedCdeMethod::lsce_ekde, ReducedCdeMethod::lsmi_ekde}) {
    const std::string refusal =
        to_string(method) +
        " runs on one process only: its e-KDE on z = Wx chooses its bandwidths by leave-one-out "
        "over all pairs (docs/distributed.md); lsce and lsmi-lscde run on many";
    EXPECT_EQ(test::message_of<InvalidArgument>(
                  [&] { fit_lsce(data.x, data.y, method, options, context); }),
              refusal);
    EXPECT_EQ(test::message_of<InvalidArgument>([&] {
                fit_at_dimension(data.x, data.y, x_scaling, y_scaling, method, options, context);
              }),
              refusal);
    EXPECT_EQ(test::message_of<InvalidArgument>(
                  [&] { cross_validate_dimension(data.x, data.y, method, options, context); }),
              refusal);
  }
}

}  // namespace
}  // namespace cdens
