// The illustrative data of LSCDE paper §4.1: x ~ U(−1, 1), y = sinc(2πx) + exp(1 − x)/8 · ε with
// Gaussian, bimodal and skewed noise, n = 200. LSCDE with its default cross-validation must come
// close to the true conditional density in test negative log-likelihood.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cdens/cdens.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A Gaussian mixture for the noise ε: weights, means, standard deviations.
struct NoiseModel {
  const char* name;
  std::vector<double> weights, means, deviations;

  double draw(Rng& rng) const {
    double u = rng.uniform();
    std::size_t k = 0;
    while (k + 1 < weights.size() && u >= weights[k]) u -= weights[k++];
    return means[k] + deviations[k] * rng.normal();
  }
  double log_density(double e) const {
    double density = 0.0;
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const double z = (e - means[k]) / deviations[k];
      density += weights[k] * std::exp(-0.5 * z * z) / (std::sqrt(2 * kPi) * deviations[k]);
    }
    return std::log(density);
  }
};

// sinc(t) = sin(t)/t, the unnormalised sinc, so sinc(2πx) has one lobe on (−0.5, 0.5).
double trend(double x) { return x == 0.0 ? 1.0 : std::sin(2 * kPi * x) / (2 * kPi * x); }
double noise_scale(double x) { return std::exp(1.0 - x) / 8.0; }

void draw(const NoiseModel& noise, Index n, Rng& rng, Matrix& x, Matrix& y) {
  x.resize(1, n);
  y.resize(1, n);
  for (Index i = 0; i < n; ++i) {
    x(0, i) = 2.0 * rng.uniform() - 1.0;
    y(0, i) = trend(x(0, i)) + noise_scale(x(0, i)) * noise.draw(rng);
  }
}

/// Excess test NLL over the true conditional density, of LSCDE and of a Gaussian fitted to y
/// alone (a reference that ignores x).
struct Excess {
  double lscde;
  double marginal_gaussian;
};

Excess excess_nll(const NoiseModel& noise, std::uint64_t seed) {
  Rng rng(seed);
  Matrix x, y, x_test, y_test;
  draw(noise, 200, rng, x, y);
  draw(noise, 4000, rng, x_test, y_test);
  const ConditionalFit fit = fit_lscde(x, y);
  const double mean = y.mean();
  const double variance = (y.array() - mean).square().sum() / (y.cols() - 1.0);
  double true_nll = 0.0, gaussian_nll = 0.0;
  for (Index i = 0; i < x_test.cols(); ++i) {
    const double s = noise_scale(x_test(0, i));
    true_nll -= noise.log_density((y_test(0, i) - trend(x_test(0, i))) / s) - std::log(s);
    gaussian_nll += 0.5 * std::log(2 * kPi * variance) +
                    0.5 * (y_test(0, i) - mean) * (y_test(0, i) - mean) / variance;
  }
  const double n_test = static_cast<double>(x_test.cols());
  return {negative_log_likelihood(fit.model, x_test, y_test) - true_nll / n_test,
          (gaussian_nll - true_nll) / n_test};
}

const std::vector<NoiseModel> kNoiseModels = {
    {"gaussian", {1.0}, {0.0}, {1.0}},
    {"bimodal", {0.5, 0.5}, {-1.0, 1.0}, {2.0 / 3.0, 2.0 / 3.0}},
    {"skewed", {0.75, 0.25}, {0.0, 1.5}, {1.0, 1.0 / 3.0}},
};

// The excess NLL is the KL divergence of the fit from the truth plus test-set noise. With 4000
// test points that noise has a standard error near 0.01 nats, so a mean excess below −0.03
// would mean a density that is not normalised. Over five training sets of n = 200 we measured
// mean excesses of 0.33 (Gaussian noise), 0.24 (bimodal) and 0.26 (skewed) nats, against about
// 0.6 for a Gaussian fitted to y alone, which ignores x. LSCDE's single width σ for x and y
// cannot follow noise whose scale changes sevenfold over the x range, and the paper's coarse
// grid sometimes picks λ = 10; a finer grid gains only a few hundredths. We require a mean
// excess below 0.40 nats and below 0.6 times that of the Gaussian on y alone: a wrong basis,
// normalisation or model selection fails both.
TEST(LscdeHeteroscedasticTest, TestNllIsCloseToTheTrueDensity) {
  constexpr int kRepetitions = 5;
  for (const auto& noise : kNoiseModels) {
    double lscde = 0.0, marginal = 0.0;
    for (int r = 0; r < kRepetitions; ++r) {
      const Excess excess = excess_nll(noise, 2024 + static_cast<std::uint64_t>(r));
      lscde += excess.lscde / kRepetitions;
      marginal += excess.marginal_gaussian / kRepetitions;
    }
    std::printf("%s: mean excess NLL %.3f (Gaussian on y alone %.3f)\n", noise.name, lscde,
                marginal);
    EXPECT_GT(lscde, -0.03) << noise.name;
    EXPECT_LT(lscde, 0.40) << noise.name;
    EXPECT_LT(lscde, 0.6 * marginal) << noise.name;
  }
}

}  // namespace
}  // namespace cdens
