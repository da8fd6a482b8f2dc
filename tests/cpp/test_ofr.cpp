// Tests of density/ofr.hpp: the recursive LOO criterion (eqs. 33–36, 66–68) against explicit
// leave-one-out refits, and the orthogonal decomposition (eqs. 26–28, 63–64) against a QR
// factorisation.

#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <limits>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "density/ofr.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Gaussian kernel columns on N random points (N × columns) and a positive target, as in the
/// paper's regression on the Parzen estimate.
struct Regression {
  Matrix phi;
  Vector t;
};

Regression kernel_regression(Index n, Index columns, std::uint64_t seed) {
  Rng rng(seed);
  const Matrix points = test::normal_matrix(2, n, rng);
  const Matrix centers = test::normal_matrix(2, columns, rng);
  Regression r;
  r.phi = gaussian_kernel(points, centers, 0.8);
  r.t = gaussian_kernel(points, points, 0.5).rowwise().mean();
  return r;
}

TEST(Ofr, RecursiveLooEqualsExplicitRefits) {
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    const Regression r = kernel_regression(30, 5, seed);
    OfrLoo model(r.t);
    EXPECT_NEAR(model.loo_mse(), r.t.squaredNorm() / 30.0, 1e-15);  // J_0, eq. (62)
    for (Index n = 1; n <= 5; ++n) {
      const OfrCandidate candidate = model.evaluate(r.phi.col(n - 1));
      const double expected = test::explicit_loo_mse(r.phi.leftCols(n), r.t, 0.0);
      EXPECT_NEAR(candidate.loo_mse, expected, 1e-9 * expected) << "seed " << seed << ", n " << n;
      model.add(candidate);
      EXPECT_EQ(model.loo_mse(), candidate.loo_mse);
    }
  }
}

TEST(Ofr, RegularisedLooEqualsExplicitRidgeRefitsOnTheOrthogonalColumns) {
  // With λ > 0 the model is t ≈ W g with penalty λ‖g‖² on the orthogonal weights (eq. 65).
  const Regression r = kernel_regression(25, 4, 7);
  const double lambda = 1e-2;
  OfrLoo model(r.t, lambda);
  for (Index n = 1; n <= 4; ++n) model.add(model.evaluate(r.phi.col(n - 1)));
  const double expected = test::explicit_loo_mse(model.orthogonal_columns(), r.t, lambda);
  EXPECT_NEAR(model.loo_mse(), expected, 1e-9 * expected);
}

TEST(Ofr, OrthogonalisationMatchesAQrFactorisation) {
  const Regression r = kernel_regression(40, 6, 11);
  OfrLoo model(r.t);
  for (Index n = 0; n < 6; ++n) model.add(model.evaluate(r.phi.col(n)));
  const Matrix w = model.orthogonal_columns();
  const Matrix a = model.triangular_factor();
  EXPECT_LT((w * a - r.phi).cwiseAbs().maxCoeff(), 1e-12 * r.phi.cwiseAbs().maxCoeff());  // (26)
  const Matrix gram = w.transpose() * w;
  EXPECT_LT((gram - Matrix(gram.diagonal().asDiagonal())).cwiseAbs().maxCoeff(),
            1e-10 * gram.diagonal().maxCoeff());
  // Φ = Q R (Householder, no pivoting): Q's columns are W's normalised up to sign, and
  // R = diag(‖w_j‖) A up to the same signs.
  const Eigen::HouseholderQR<Matrix> qr(r.phi);
  const Matrix q = qr.householderQ() * Matrix::Identity(40, 6);
  const Matrix upper = qr.matrixQR().topRows(6).triangularView<Eigen::Upper>();
  for (Index j = 0; j < 6; ++j) {
    const double norm = w.col(j).norm();
    const double sign = q.col(j).dot(w.col(j)) > 0 ? 1.0 : -1.0;
    EXPECT_LT((sign * q.col(j) - w.col(j) / norm).cwiseAbs().maxCoeff(), 1e-8) << j;
    EXPECT_LT((sign * upper.row(j) - norm * a.row(j)).cwiseAbs().maxCoeff(),
              1e-8 * upper.cwiseAbs().maxCoeff())
        << j;
  }
  // Back substitution (28) gives the least-squares weights of the original columns.
  const Vector least_squares = r.phi.colPivHouseholderQr().solve(r.t);
  EXPECT_LT((model.weights() - least_squares).norm(), 1e-7 * least_squares.norm());
}

TEST(Ofr, EvaluateLeavesTheModelUnchangedAndRefusesColumnsInTheSpan) {
  const Regression r = kernel_regression(20, 3, 13);
  OfrLoo model(r.t);
  model.add(model.evaluate(r.phi.col(0)));
  const Vector residuals = model.residuals();
  const double criterion = model.loo_mse();
  (void)model.evaluate(r.phi.col(1));
  EXPECT_TRUE(model.residuals() == residuals);
  EXPECT_EQ(model.loo_mse(), criterion);
  const OfrCandidate repeated = model.evaluate(2.0 * r.phi.col(0));
  EXPECT_EQ(repeated.loo_mse, std::numeric_limits<double>::infinity());
  EXPECT_THROW(model.add(repeated), InvalidArgument);
  EXPECT_THROW(model.evaluate(r.phi.col(1).head(10)), InvalidArgument);
  EXPECT_THROW(OfrLoo{Vector()}, InvalidArgument);
  EXPECT_THROW(OfrLoo(r.t, -1.0), InvalidArgument);
}

TEST(Ofr, CandidatePoolScoresEqualEvaluateOnTheOriginalColumns) {
  // The pool deflates its columns one term at a time; its scores must be exactly what
  // OfrLoo::evaluate gives for the original columns (each with its own λ), at every stage.
  const Regression r = kernel_regression(35, 12, 17);
  Vector lambdas(12);
  for (Index j = 0; j < 12; ++j) lambdas(j) = 1e-3 * static_cast<double>(j % 4);
  OfrLoo model(r.t);
  OfrCandidatePool pool(model, r.phi);
  Index last_taken = -1;
  for (Index stage = 0; stage < 5; ++stage) {
    const Vector scores = pool.scores(model, lambdas);
    for (Index j = 0; j < 12; ++j) {
      if (!pool.available(j)) {
        EXPECT_EQ(scores(j), std::numeric_limits<double>::infinity());
        continue;
      }
      const double expected = model.evaluate(r.phi.col(j), lambdas(j)).loo_mse;
      EXPECT_NEAR(scores(j), expected, 1e-9 * expected) << "stage " << stage << ", column " << j;
    }
    Index best = 0;
    scores.minCoeff(&best);
    const OfrCandidate direct = model.evaluate(r.phi.col(best), lambdas(best));
    const OfrCandidate taken = pool.take(best, model, lambdas(best));
    EXPECT_LT((taken.w - direct.w).norm(), 1e-10 * direct.w.norm());
    EXPECT_LT((taken.alpha - direct.alpha).norm(), 1e-9 * (1.0 + direct.alpha.norm()));
    EXPECT_NEAR(taken.g, direct.g, 1e-10 * std::abs(direct.g));
    EXPECT_NEAR(taken.loo_mse, direct.loo_mse, 1e-10 * direct.loo_mse);
    model.add(taken);
    last_taken = best;
  }
  EXPECT_THROW(pool.take(last_taken, model, 0.0), InvalidArgument);  // already taken
  Index available = 0;
  while (!pool.available(available)) ++available;
  EXPECT_THROW(pool.take(available, OfrLoo(r.t), 0.0), InvalidArgument);  // another model
  EXPECT_THROW(pool.scores(model, Vector::Zero(3)), InvalidArgument);
  EXPECT_THROW(OfrCandidatePool(model, r.phi), InvalidArgument);  // model already has terms
}

TEST(Ofr, LooOfManyColumnsEqualsEvaluate) {
  const Regression r = kernel_regression(30, 9, 19);
  OfrLoo model(r.t);
  model.add(model.evaluate(r.phi.col(0)));
  const Vector together = model.loo_mse_of_columns(r.phi);
  EXPECT_EQ(together(0), std::numeric_limits<double>::infinity());  // in the span
  for (Index j = 1; j < r.phi.cols(); ++j) {
    const double alone = model.evaluate(r.phi.col(j)).loo_mse;
    EXPECT_NEAR(together(j), alone, 1e-12 * alone) << j;
  }
  EXPECT_THROW(model.loo_mse_of_columns(r.phi.topRows(10)), InvalidArgument);
}

TEST(Ofr, BlockOrthogonalisationEqualsModifiedGramSchmidtOnNearlyCollinearColumns) {
  // Nine 1-D Gaussian kernels whose centres and widths differ by a few percent: a candidate
  // among them keeps about 2·10⁻⁵ of its norm once the model's columns are removed, so w_n
  // carries rounding errors of about 10⁻¹¹ of its norm, whichever order removes them.
  Rng rng(23);
  const Matrix points = test::normal_matrix(1, 400, rng);
  const auto column = [&](double center, double width) {
    return Vector(gaussian_kernel(points, Matrix::Constant(1, 1, center), width));
  };
  OfrLoo model(gaussian_kernel(points, points, 0.3).rowwise().mean(), 1e-6);
  for (int j = 0; j < 9; ++j) model.add(model.evaluate(column(0.08 * j - 0.32, 0.8 + 0.01 * j)));
  const Matrix w = model.orthogonal_columns();
  const Vector centers = Eigen::Vector3d(0.01, 0.1, 0.23);
  Matrix phis(points.cols(), centers.size());
  Vector expected(centers.size());
  for (Index c = 0; c < centers.size(); ++c) {
    const Vector phi = column(centers(c), 0.83);
    phis.col(c) = phi;
    // The reference: MGS as a loop, w_j removed one after the other (eqs. 63–64).
    Vector mgs = phi;
    Vector alpha(w.cols());
    for (Index j = 0; j < w.cols(); ++j) {
      alpha(j) = w.col(j).dot(mgs) / w.col(j).squaredNorm();
      mgs -= alpha(j) * w.col(j);
    }
    const double kept = mgs.norm() / phi.norm();
    EXPECT_LT(kept, 1e-4) << c;
    const OfrCandidate candidate = model.evaluate(phi);
    EXPECT_LT((candidate.w - mgs).norm(), 1e-10 * mgs.norm()) << c << ", kept " << kept;
    EXPECT_LT((candidate.alpha - alpha).norm(), 1e-10 * alpha.norm()) << c;
    expected(c) = model.score_orthogonal(mgs, phi.squaredNorm(), model.lambda());
    EXPECT_NEAR(candidate.loo_mse, expected(c), 1e-10 * expected(c)) << c;
  }
  // The block of three columns at once (matrix products rather than matrix-vector products).
  const Vector together = model.loo_mse_of_columns(phis);
  for (Index c = 0; c < centers.size(); ++c) {
    EXPECT_NEAR(together(c), expected(c), 1e-10 * expected(c)) << c;
  }
}

}  // namespace
}  // namespace cdens
