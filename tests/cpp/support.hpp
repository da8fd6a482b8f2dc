#pragma once
// Helpers shared by the C++ tests.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens::test {

/// A communicator that claims a second process (and sums nothing): what a fit that runs on one
/// process only must refuse.
class TwoRankCommunicator final : public LocalCommunicator {
 public:
  int size() const override { return 2; }
};

/// d × n matrix of independent standard normal draws.
Matrix normal_matrix(Index d, Index n, Rng& rng);

/// The message of the `Exception` that `function` throws; a test failure if it throws nothing
/// or something else.
template <typename Exception, typename Function>
std::string message_of(Function&& function) {
  try {
    function();
  } catch (const Exception& error) {
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "wrong exception type: " << error.what();
    return {};
  }
  ADD_FAILURE() << "no exception thrown";
  return {};
}

/// Mean squared LOO error of ridge regression t ≈ X g with penalty λ‖g‖² (least squares for
/// λ = 0), each row k predicted from a fit on the other rows (explicit refits): the brute-force
/// reference of the OFR-LOO recursions.
double explicit_loo_mse(const Matrix& x, const Vector& t, double lambda);

/// log Σ_i w_i exp(−½‖q_j − p_i‖²) for every query column, term by term, max-shifted, in long
/// double: the reference of the kernel-sum engine's paths.
Vector brute_force_log_kernel_sums(const Matrix& points, const Vector& weights,
                                   const Matrix& queries);

/// The points of a grid with `count` nodes per dimension spanning [low, high] in every dimension,
/// the first dimension varying fastest (the order of `cdens grid`).
Matrix grid_points(Index d, Index count, double low, double high);

/// Path of a fresh file name in the system's temporary directory.
std::string temporary_path(const std::string& stem);

/// Training pairs in the user's units.
struct PairSample {
  Matrix x;
  Matrix y;
};

/// n pairs with x ~ N(0, I) in d_x dimensions, then shifted and scaled per dimension, and a
/// scalar y = sin(2 x_0) + 0.3 ε, likewise shifted and scaled: non-trivial standardisations for
/// checking that densities come out in the user's units.
PairSample sine_sample(Index n, Index input_dim, std::uint64_t seed);

/// KCDE with fixed bandwidths (0.5, 1, 0.3) on sine_sample(30, 2, 6): a 30-component mixture
/// with two inputs, on which queries of a modified mixture are compared with the plain one's.
ConditionalFit small_kernel_fit();

/// Checks that `fit(x, y)` refuses what no estimator can be fitted to: a NaN input (DataError),
/// an infinite output (DataError), x and y of different lengths (InvalidArgument), a constant
/// output (DataError) and no pairs at all (DataError).
template <class Fit>
void expect_rejects_bad_training_pairs(const Fit& fit) {
  const PairSample data = sine_sample(20, 2, 11);
  Matrix with_nan = data.x;
  with_nan(1, 3) = std::nan("");
  EXPECT_THROW(fit(with_nan, data.y), DataError);
  Matrix with_inf = data.y;
  with_inf(0, 4) = INFINITY;
  EXPECT_THROW(fit(data.x, with_inf), DataError);
  EXPECT_THROW(fit(data.x, data.y.leftCols(19)), InvalidArgument);
  EXPECT_THROW(fit(data.x, Matrix::Constant(1, 20, 2.5)), DataError);
  EXPECT_THROW(fit(Matrix(2, 0), Matrix(1, 0)), DataError);
}

/// Per-dimension sample standard deviation (divisor n − 1) of the columns of `data`, written here
/// rather than taken from Standardizer.
Vector sample_scale(const Matrix& data);

/// Every byte of the file at `path` (empty if it cannot be read).
std::string file_bytes(const std::string& path);

/// 1, 2, 3, 1, 2, 3, …: n integer sample weights.
Vector integer_weights(Index n);

/// The columns of `data` each repeated as often as its integer weight says: what integer sample
/// weights must be equivalent to.
Matrix repeated_columns(const Matrix& data, const Vector& weights);

/// A fit context on one process carrying sample `weights`.
FitContext weighted_context(const Vector& weights);

/// The central differences (f(θ + s e_k) − f(θ − s e_k)) / 2s of `f` at `theta`, every k: the
/// reference a gradient is checked against.
Vector central_differences(const std::function<double(const Vector&)>& f, const Vector& theta,
                           double step);

/// ∫ f over an evenly spaced grid of an odd number of points by Simpson's rule (error O(h⁴)).
double simpson(const Vector& grid, const Vector& f);

/// N(y; mean, σ² I) for vectors.
double gaussian_density(const Vector& y, const Vector& mean, double sigma);

/// ∫ p(y | x) dy of a model with scalar y by the trapezoid rule on `points` points of
/// [low, high]; x is one column.
double integral_over_y(const ConditionalMixture& model, const Vector& x, double low, double high,
                       int points);

/// Expects ∫ p(y | x) dy = 1 within 1e-6 at each x of `inputs` (scalar x and y) by the trapezoid
/// rule with steps of σ/20 over the training outputs `y` widened by 12 σ on each side, where σ
/// is the narrowest component width in the user's units.
void expect_integrates_to_one(const ConditionalMixture& model, const Matrix& y,
                              const std::vector<double>& inputs);

/// The model and its report as JSON text, without the fit time: equal for equal fits.
std::string fit_fingerprint(const ConditionalMixture& model, const FitReport& report);

/// Fits in a context of 1, 2 and 3 threads (`fit(context)` returns a struct with `model` and
/// `report`) and expects the same model and report, to the bit, each time.
template <class FitFunction>
void expect_independent_of_thread_count(FitFunction&& fit) {
  std::string first;
  for (int threads : {1, 2, 3}) {
    const auto result = fit(FitContext{}.with_threads(threads));
    const std::string fingerprint = fit_fingerprint(result.model, result.report);
    if (threads == 1) {
      first = fingerprint;
    } else {
      EXPECT_TRUE(fingerprint == first) << "the fit on " << threads << " threads differs";
    }
  }
}

/// Saves `model` to a model file and loads it back; expects log_pdf on (x, y) to agree bit for
/// bit and the gate kind and fit report to survive. Returns the loaded mixture.
ConditionalMixture expect_model_file_round_trip(const ConditionalMixture& model,
                                                const FitReport& report, const Matrix& x,
                                                const Matrix& y);

/// Aitchison & Aitken's kernel written out for c levels.
double unordered_kernel(double a, double b, double lambda, Index c);
/// Wang & van Ryzin's kernel written out.
double ordered_kernel(double a, double b, double lambda);

/// −log p̂_{−i} of every sample of z (k × n, the first c rows conditioning) by explicit
/// leave-one-out sums of the kernels written out: Gaussian exp(−½ u²) for a continuous input
/// (divided by √(2π) h for an output), the discrete kernels for a discrete one (for an output, a
/// probability mass over its levels), with bandwidths or λ `smoothing`. With sample weights (one
/// per sample; empty: all 1) every kernel of sample j counts c_j times, and a density's
/// normaliser n − 1 is Σ_{j≠i} c_j.
Vector explicit_leave_one_out(const Matrix& z, Index c, const ColumnKernels& kernels,
                              const Vector& smoothing, const Vector& weights = Vector());

}  // namespace cdens::test
