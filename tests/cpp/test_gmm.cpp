// Tests of density/gmm.hpp: EM (eqs. 5–8) never lowers the likelihood, keeps the variance
// floor, recovers a well-separated known mixture, and does not depend on the thread count.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/gmm.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// N draws of a known diagonal mixture in 2-D: weights 0.2, 0.3, 0.5 and well separated centres.
struct KnownMixture {
  Vector weights;
  Matrix centers;
  Matrix sds;
  Matrix x;
};

KnownMixture known_mixture(Index n, std::uint64_t seed) {
  KnownMixture m;
  m.weights = Vector(3);
  m.weights << 0.2, 0.3, 0.5;
  m.centers = Matrix(2, 3);
  m.centers << -6.0, 0.0, 6.0,  //
      0.0, 8.0, 0.0;
  m.sds = Matrix(2, 3);
  m.sds << 0.5, 1.0, 0.8,  //
      1.5, 0.7, 0.4;
  Rng rng(seed);
  m.x.resize(2, n);
  for (Index j = 0; j < n; ++j) {
    const double u = rng.uniform();
    const Index l = u < 0.2 ? 0 : (u < 0.5 ? 1 : 2);
    for (Index d = 0; d < 2; ++d) m.x(d, j) = m.centers(d, l) + m.sds(d, l) * rng.normal();
  }
  return m;
}

TEST(Gmm, EmNeverLowersTheLikelihood) {
  const KnownMixture data = known_mixture(400, 1);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    Rng rng(seed);
    GmmOptions options;
    options.variance_floor = 1e-3;
    options.tol = 1e-12;
    Matrix centers = test::normal_matrix(2, 5, rng) * 3.0;
    const EmRun run =
        run_em(data.x, Vector::Constant(5, 0.2), centers, Matrix::Constant(2, 5, 0.1), options);
    ASSERT_GE(run.log_likelihood.size(), 3u);
    for (std::size_t t = 1; t < run.log_likelihood.size(); ++t) {
      EXPECT_GE(run.log_likelihood[t],
                run.log_likelihood[t - 1] - 1e-12 * std::abs(run.log_likelihood[t - 1]))
          << "seed " << seed << ", iteration " << t;
    }
    EXPECT_NEAR(run.weights.sum(), 1.0, 1e-12);
    EXPECT_TRUE((run.variances.array() >= options.variance_floor).all());
  }
}

/// Parameters of a diagonal mixture and the mean log-likelihood (1/N) Σ_k log p̂(z_k) of the
/// parameters before them.
struct EmStep {
  Vector weights;
  Matrix centers;
  Matrix variances;
  double log_likelihood = 0.0;
};

/// One EM iteration (eqs. 5–8) written out term by term: every log N(z_ik; c_il, γ²_il) on its
/// own, the responsibilities through the largest term, the centres from Σ_k r_kl z_k and the
/// variances in a second pass around the new centres.
EmStep reference_em_step(const Matrix& z, const EmStep& current, double floor) {
  const Index n = z.cols();
  const Index d = z.rows();
  const Index k_count = current.centers.cols();
  Matrix r(k_count, n);
  EmStep next;
  for (Index k = 0; k < n; ++k) {
    Vector terms(k_count);
    for (Index l = 0; l < k_count; ++l) {
      terms(l) = std::log(current.weights(l));
      for (Index i = 0; i < d; ++i) {
        const double difference = z(i, k) - current.centers(i, l);
        terms(l) -= 0.5 * (std::log(2.0 * M_PI * current.variances(i, l)) +
                           difference * difference / current.variances(i, l));
      }
    }
    const double largest = terms.maxCoeff();
    double total = 0.0;
    for (Index l = 0; l < k_count; ++l) total += std::exp(terms(l) - largest);
    const double log_density = largest + std::log(total);
    next.log_likelihood += log_density / static_cast<double>(n);
    for (Index l = 0; l < k_count; ++l) r(l, k) = std::exp(terms(l) - log_density);
  }
  next.weights.resize(k_count);
  next.centers.resize(d, k_count);
  next.variances.resize(d, k_count);
  for (Index l = 0; l < k_count; ++l) {
    double mass = 0.0;
    for (Index k = 0; k < n; ++k) mass += r(l, k);
    next.weights(l) = mass / static_cast<double>(n);
    for (Index i = 0; i < d; ++i) {
      double first = 0.0;
      for (Index k = 0; k < n; ++k) first += r(l, k) * z(i, k);
      next.centers(i, l) = first / mass;
      double second = 0.0;
      for (Index k = 0; k < n; ++k) {
        const double difference = z(i, k) - next.centers(i, l);
        second += r(l, k) * difference * difference;
      }
      next.variances(i, l) = std::max(second / mass, floor);
    }
  }
  return next;
}

TEST(Gmm, EmStepsMatchTheReferenceStepNearAndFarFromTheOrigin) {
  // Three steps on 700 samples (several blocks) from a start away from the optimum, with the
  // samples at the origin and shifted by 10⁶ (the data's units, standardize off). Far from the
  // origin a variance computed from raw moments, Σ r z² / N_l − c², would keep about 16 − 12
  // digits (relative error ~1e-16 · c²/γ² = 1e-4); the moments around the previous centres keep
  // all but log10(1 + (c' − c)²/γ²) of them.
  const KnownMixture data = known_mixture(700, 7);
  GmmOptions options;
  options.max_iter = 3;
  options.tol = 1e-300;
  options.variance_floor = 1e-6;
  EmStep start;
  start.weights = Vector::Constant(3, 1.0 / 3.0);
  start.centers = Matrix(2, 3);
  start.centers << -3.0, 1.0, 4.0,  //
      1.0, 5.0, -1.0;
  start.variances = Matrix::Constant(2, 3, 4.0);
  for (const double offset : {0.0, 1e6}) {
    const Matrix z = data.x.array() + offset;
    EmStep reference = start;
    reference.centers.array() += offset;
    const EmRun run = run_em(z, reference.weights, reference.centers, reference.variances, options);
    ASSERT_EQ(run.iterations, 3) << offset;
    // A centre at 10⁶ is itself rounded by about 1e-10, which moves the mean log-likelihood by
    // about that times E|z − c|/γ² ≈ 1: the tolerance grows by 1e-16 times the offset.
    for (int t = 0; t <= 3; ++t) {
      const EmStep next = reference_em_step(z, reference, options.variance_floor);
      EXPECT_NEAR(run.log_likelihood[t], next.log_likelihood,
                  1e-12 * std::abs(next.log_likelihood) + 1e-16 * offset)
          << offset << ", step " << t;
      if (t < 3) reference = next;
    }
    EXPECT_LT((run.weights - reference.weights).cwiseAbs().maxCoeff(), 1e-12) << offset;
    // Centres to 1e-12 of the data's spread, whatever the offset (whose own rounding is
    // 1e-16 · 10⁶ = 1e-10 of a unit).
    EXPECT_LT((run.centers - reference.centers).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + offset))
        << offset;
    EXPECT_LT(((run.variances - reference.variances).array() / reference.variances.array())
                  .abs()
                  .maxCoeff(),
              1e-10)
        << offset;
  }
}

TEST(Gmm, RecoversAWellSeparatedMixture) {
  const Index n = 4000;
  const KnownMixture data = known_mixture(n, 2);
  GmmOptions options;
  options.n_components = 3;
  options.n_init = 3;
  const DensityFit fit = fit_gmm(data.x, options);
  ASSERT_EQ(fit.model.n_components(), 3);
  const Vector& scale = fit.model.x_scaling().scale();
  const Vector& shift = fit.model.x_scaling().mean();
  for (Index l = 0; l < 3; ++l) {
    // The fitted component nearest to true centre l, in the user's units.
    Index match = 0;
    double best = INFINITY;
    for (Index k = 0; k < 3; ++k) {
      const Vector center = shift + scale.cwiseProduct(fit.model.centers().col(k));
      const double distance = (center - data.centers.col(l)).norm();
      if (distance < best) {
        best = distance;
        match = k;
      }
    }
    const double w = data.weights(l);
    EXPECT_NEAR(fit.model.weights()(match), w, 5 * std::sqrt(w * (1 - w) / n)) << l;
    for (Index d = 0; d < 2; ++d) {
      const double center = shift(d) + scale(d) * fit.model.centers()(d, match);
      const double sd = scale(d) * fit.model.scales()(d, match);
      const double count = w * n;
      EXPECT_NEAR(center, data.centers(d, l), 5 * data.sds(d, l) / std::sqrt(count)) << l;
      EXPECT_NEAR(sd, data.sds(d, l), 5 * data.sds(d, l) / std::sqrt(2 * count)) << l;
    }
  }
  // The report's likelihood is the model's, in the data's units.
  EXPECT_NEAR(fit.model.mean_log_likelihood(data.x),
              fit.report.statistics.at("mean_log_likelihood"), 1e-10);
  EXPECT_EQ(fit.report.statistics.count("log_likelihood"), 0u);
}

/// (1/n) Σ_i log Σ_k w_k Π_d N(z_di; c_dk, s_dk²) of the model on its own standardised data,
/// written out term by term.
double brute_force_mean_log_likelihood(const GaussianMixture& model, const Matrix& x) {
  const Matrix z = model.x_scaling().transform(x);
  double total = 0.0;
  for (Index i = 0; i < z.cols(); ++i) {
    double density = 0.0;
    for (Index k = 0; k < model.n_components(); ++k) {
      double product = model.weights()(k);
      for (Index d = 0; d < z.rows(); ++d) {
        product *= test::gaussian_density(Vector::Constant(1, z(d, i)),
                                          Vector::Constant(1, model.centers()(d, k)),
                                          model.scales()(d, k));
      }
      density += product;
    }
    total += std::log(density);
  }
  return total / static_cast<double>(z.cols());
}

TEST(Gmm, RestartsKeepTheRunOfLargestLikelihood) {
  // Restart r starts from stream r of the seed, so a fit with n_init = k holds runs 0 … k − 1:
  // with the best run b of n_init = 5, the fits with k ≤ b must end lower and those with k > b
  // at the same likelihood. The likelihood itself is checked against the formula.
  const KnownMixture data = known_mixture(300, 3);
  GmmOptions options;
  options.n_components = 4;
  options.init = GmmInitialization::box;
  options.box_lower = -2.0;
  options.box_upper = 2.0;
  options.n_init = 5;
  const DensityFit all = fit_gmm(data.x, options);
  const double best = all.report.statistics.at("mean_log_likelihood");
  const auto best_run = static_cast<int>(all.report.statistics.at("best_restart"));
  // The brute force is of the standardised data; the report's in the data's units.
  EXPECT_NEAR(
      brute_force_mean_log_likelihood(all.model, data.x) + all.model.x_scaling().log_jacobian(),
      best, 1e-10);
  bool some_run_ends_lower = false;
  for (int k = 1; k <= 5; ++k) {
    options.n_init = k;
    const double likelihood = fit_gmm(data.x, options).report.statistics.at("mean_log_likelihood");
    if (k > best_run) {
      EXPECT_EQ(likelihood, best) << k;
    } else {
      EXPECT_LT(likelihood, best) << k;
      some_run_ends_lower = true;
    }
  }
  // The starts differ enough that the data set is a test of the choice.
  EXPECT_TRUE(some_run_ends_lower);
}

TEST(Gmm, PaperSettingsOnTheFirstOneDimensionalExample) {
  // Eqs. (51)–(52): eight Gaussians; the paper's EM settings [a, b] = [−4, 3], γ²_ini = 0.1,
  // γ²_min = 0.01 in the data's units, N_K = 7.
  Rng rng(4);
  Matrix x(1, 200);
  for (Index j = 0; j < 200; ++j) {
    const int i = static_cast<int>(rng.uniform() * 8);
    const double ratio = std::pow(2.0 / 3.0, i);
    x(0, j) = 3.0 * (ratio - 1.0) + std::sqrt(ratio) * rng.normal();
  }
  GmmOptions options;
  options.n_components = 7;
  options.init = GmmInitialization::box;
  options.box_lower = -4.0;
  options.box_upper = 3.0;
  options.initial_variance = 0.1;
  options.variance_floor = 0.01;
  options.standardize = false;
  options.tol = 1e-6;
  const DensityFit fit = fit_gmm(x, options);
  EXPECT_EQ(fit.report.statistics.at("converged"), 1.0);
  EXPECT_EQ(fit.model.x_scaling().log_jacobian(), 0.0);
  EXPECT_TRUE((fit.model.scales().array().square() >= 0.01 * (1 - 1e-12)).all());
  EXPECT_TRUE(std::isfinite(fit.model.mean_log_likelihood(x)));
}

TEST(Gmm, ResultDoesNotDependOnTheThreadCount) {
  // One restart runs its blocks on every thread; three run on a thread each where there are at
  // most three threads.
  const KnownMixture data = known_mixture(1500, 5);  // several blocks of samples
  GmmOptions options;
  options.n_components = 3;
  for (int n_init : {1, 3}) {
    options.n_init = n_init;
    std::string first;
    for (int threads : {1, 2, 3, 4}) {
      const std::string fingerprint =
          fit_gmm(data.x, options, FitContext{}.with_threads(threads)).model.to_json().dump();
      if (threads == 1) {
        first = fingerprint;
      } else {
        EXPECT_TRUE(fingerprint == first) << n_init << " restarts, " << threads << " threads";
      }
    }
  }
}

TEST(Gmm, RejectsBadInput) {
  const KnownMixture data = known_mixture(30, 6);
  Matrix with_nan = data.x;
  with_nan(0, 2) = std::nan("");
  EXPECT_THROW(fit_gmm(with_nan), DataError);
  EXPECT_THROW(fit_gmm(Matrix(2, 0)), DataError);
  EXPECT_THROW(fit_gmm(Matrix::Constant(1, 10, 1.0)), DataError);
  GmmOptions options;
  options.n_components = 31;
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_gmm(data.x, options);
            }).find("exceeds the number of samples"),
            std::string::npos);
  options = {};
  options.variance_floor = 0.0;
  EXPECT_THROW(fit_gmm(data.x, options), InvalidArgument);
  options = {};
  options.init = GmmInitialization::box;
  options.box_lower = 1.0;
  options.box_upper = -1.0;
  EXPECT_THROW(fit_gmm(data.x, options), InvalidArgument);
}

}  // namespace
}  // namespace cdens
