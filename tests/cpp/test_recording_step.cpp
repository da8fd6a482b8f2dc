// Outputs recorded on a grid (model/tied_outputs.hpp, docs/methods/kcde.md): the recording step
// against grids written out by hand, and KCDE's output kernels on rounded data, which stay at
// least half a step wide (with a line and around a Gaussian-process trend too) so that the
// density has no spike at a recorded value.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cdens/cdens.hpp"
#include "model/tied_outputs.hpp"
#include "support.hpp"

namespace cdens {
namespace {

Vector values_of(std::initializer_list<double> list) {
  Vector values(static_cast<Index>(list.size()));
  Index i = 0;
  for (const double value : list) values(i++) = value;
  return values;
}

TEST(RecordingStepTest, IsTheLargestCommonStepOfTheGaps) {
  EXPECT_EQ(recording_step(values_of({3, 5, 6, 5, 9})), 1.0);
  // Gaps of 0.02 and 0.03 only: the step is their common 0.01 (decimals rounded in binary).
  EXPECT_NEAR(recording_step(values_of({1.23, 1.25, 1.28, 1.25})), 0.01, 1e-12);
  // A grid off zero: 0.25 + 0.5 k.
  EXPECT_NEAR(recording_step(values_of({0.25, 1.75, 0.75, 3.25})), 0.5, 1e-12);
  EXPECT_NEAR(recording_step(values_of({-120.5, 3.0, 70.0})), 0.5, 1e-12);
}

TEST(RecordingStepTest, ContinuousOrDegenerateValuesHaveNone) {
  Rng rng(3);
  const Matrix normal = test::normal_matrix(1, 500, rng);
  EXPECT_EQ(recording_step(normal.row(0).transpose()), 0.0);
  EXPECT_EQ(recording_step(values_of({2.0, 2.0, 2.0})), 0.0);
  EXPECT_EQ(recording_step(values_of({1.0, NAN, 3.0})), 0.0);
  // Two values are always on a grid of their gap.
  EXPECT_EQ(recording_step(values_of({1.0, 1.5})), 0.5);
}

/// y = 4 + (sin(2x) + 0.3ε) / 4 rounded to steps of 0.1: about a dozen recorded values among 300
/// pairs, on which the leave-one-out likelihood grows without limit as the output kernel shrinks.
test::PairSample rounded_sample() {
  test::PairSample data = test::sine_sample(300, 1, 21);
  data.y = (data.y.array() / 0.1).round() * 0.1;
  return data;
}

/// How far log p at each of the three central recorded values at input x stands above the mean
/// of log p at the two points half a step away: h²/2σ² ≈ 0.15 for the smooth conditional spread
/// (σ ≈ 0.09: noise 0.075 and a kernel of at least 0.05), hundreds of nats for spikes.
double largest_peak(const ConditionalMixture& model, double x, double centre) {
  double largest = -INFINITY;
  for (const double level : {centre - 0.1, centre, centre + 0.1}) {
    const Matrix inputs = Matrix::Constant(1, 3, x);
    const Matrix outputs = (Matrix(1, 3) << level - 0.05, level, level + 0.05).finished();
    const Vector log_densities = model.log_pdf(inputs, outputs);
    largest = std::max(largest, log_densities(1) - 0.5 * (log_densities(0) + log_densities(2)));
  }
  return largest;
}

TEST(RecordingStepTest, KcdeKernelsStayAtLeastHalfAStepWideOnRoundedOutputs) {
  const test::PairSample data = rounded_sample();
  const double x_middle = data.x.mean();
  const double y_middle = std::round(data.y.mean() / 0.1) * 0.1;
  for (const KernelTrend trend :
       {KernelTrend::none, KernelTrend::linear, KernelTrend::gaussian_process}) {
    KcdeOptions options;
    options.trend = trend;
    const ConditionalFit fit = fit_kcde(data.x, data.y, options);
    const auto& hyperparameters = fit.report.hyperparameters;
    EXPECT_NEAR(hyperparameters.at("recording_step_y0"), 0.1, 1e-12) << to_string(trend);
    // The output kernel's spread in y's units: h times the standardisation, times the trend's
    // noise spread σ_n (the least factor f of the residual) around a Gaussian process.
    double width = hyperparameters.at("bandwidth_y0") * fit.model.y_scaling().scale()(0);
    if (trend == KernelTrend::gaussian_process) {
      width *= std::sqrt(hyperparameters.at("trend_noise_variance"));
    }
    EXPECT_GE(width, 0.05 * (1.0 - 1e-9)) << to_string(trend);
    EXPECT_LT(largest_peak(fit.model, x_middle, y_middle), 0.4) << to_string(trend);
    // The kernels would shrink to spikes without the floor: it binds, and the report says so.
    bool named = false;
    for (const std::string& warning : fit.report.warnings) {
      named = named || warning.find("recording step") != std::string::npos;
    }
    EXPECT_TRUE(named) << to_string(trend);
  }
}

TEST(RecordingStepTest, FixedBandwidthsAreTheUsersChoice) {
  const test::PairSample data = rounded_sample();
  KcdeOptions options;
  options.bandwidth = {0.5, 0.01};
  const ConditionalFit fit = fit_kcde(data.x, data.y, options);
  EXPECT_EQ(fit.report.hyperparameters.at("bandwidth_y0"), 0.01);
  // Kernels of a fifth of the step make the spikes the floor prevents.
  const double y_middle = std::round(data.y.mean() / 0.1) * 0.1;
  EXPECT_GT(largest_peak(fit.model, data.x.mean(), y_middle), 10.0);
}

}  // namespace
}  // namespace cdens
