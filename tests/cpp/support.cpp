#include "support.hpp"

#include <unistd.h>

#include <Eigen/QR>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/conditional/kcde.hpp"
#include "cdens/model_file.hpp"

namespace cdens::test {

Matrix normal_matrix(Index d, Index n, Rng& rng) {
  Matrix values(d, n);
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < d; ++i) values(i, j) = rng.normal();
  }
  return values;
}

double explicit_loo_mse(const Matrix& x, const Vector& t, double lambda) {
  const Index n = x.rows();
  double total = 0.0;
  for (Index k = 0; k < n; ++k) {
    Matrix rows(n - 1, x.cols());
    Vector targets(n - 1);
    rows << x.topRows(k), x.bottomRows(n - k - 1);
    targets << t.head(k), t.tail(n - k - 1);
    Vector g;
    if (lambda == 0.0) {
      g = rows.colPivHouseholderQr().solve(targets);
    } else {
      const Matrix normal = rows.transpose() * rows + lambda * Matrix::Identity(x.cols(), x.cols());
      g = normal.ldlt().solve(rows.transpose() * targets);
    }
    const double error = t(k) - x.row(k).dot(g);
    total += error * error;
  }
  return total / static_cast<double>(n);
}

std::string temporary_path(const std::string& stem) {
  static std::atomic<int> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("cdens_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" + stem))
      .string();
}

PairSample sine_sample(Index n, Index input_dim, std::uint64_t seed) {
  Rng rng(seed);
  PairSample sample{normal_matrix(input_dim, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) sample.y(0, i) = std::sin(2 * sample.x(0, i)) + 0.3 * rng.normal();
  for (Index d = 0; d < input_dim; ++d) {
    sample.x.row(d) = (sample.x.row(d).array() * (2.0 + d) + 10.0 * d - 3.0).matrix();
  }
  sample.y = (sample.y.array() * 0.25 + 4.0).matrix();
  return sample;
}

ConditionalFit small_kernel_fit() {
  const PairSample train = sine_sample(30, 2, 6);
  KcdeOptions options;
  options.bandwidth = {0.5, 1.0, 0.3};
  return fit_kcde(train.x, train.y, options);
}

Vector sample_scale(const Matrix& data) {
  const Vector mean = data.rowwise().mean();
  return ((data.colwise() - mean).rowwise().squaredNorm() / (data.cols() - 1.0)).cwiseSqrt();
}

std::string file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

Vector brute_force_log_kernel_sums(const Matrix& points, const Vector& weights,
                                   const Matrix& queries) {
  Vector result(queries.cols());
  for (Index j = 0; j < queries.cols(); ++j) {
    std::vector<long double> exponents;
    long double largest = -INFINITY;
    for (Index i = 0; i < points.cols(); ++i) {
      if (weights(i) == 0.0) continue;
      long double squared = 0.0L;
      for (Index k = 0; k < points.rows(); ++k) {
        const long double difference =
            static_cast<long double>(queries(k, j)) - static_cast<long double>(points(k, i));
        squared += difference * difference;
      }
      exponents.push_back(std::log(static_cast<long double>(weights(i))) - 0.5L * squared);
      largest = std::max(largest, exponents.back());
    }
    long double sum = 0.0L;
    for (const long double exponent : exponents) sum += std::exp(exponent - largest);
    result(j) = static_cast<double>(largest + std::log(sum));
  }
  return result;
}

Matrix grid_points(Index d, Index count, double low, double high) {
  Index total = 1;
  for (Index k = 0; k < d; ++k) total *= count;
  Matrix grid(d, total);
  for (Index j = 0; j < total; ++j) {
    Index rest = j;
    for (Index k = 0; k < d; ++k) {
      grid(k, j) =
          low + (high - low) * static_cast<double>(rest % count) / static_cast<double>(count - 1);
      rest /= count;
    }
  }
  return grid;
}

Vector integer_weights(Index n) {
  Vector weights(n);
  for (Index i = 0; i < n; ++i) weights(i) = static_cast<double>(1 + i % 3);
  return weights;
}

Matrix repeated_columns(const Matrix& data, const Vector& weights) {
  std::vector<Index> columns;
  for (Index i = 0; i < weights.size(); ++i) {
    for (int k = 0; k < static_cast<int>(weights(i)); ++k) columns.push_back(i);
  }
  return data(Eigen::all, columns);
}

FitContext weighted_context(const Vector& weights) {
  return {local_communicator(), silent_progress(), {}, weights};
}

double simpson(const Vector& grid, const Vector& f) {
  const Index last = grid.size() - 1;
  double total = f(0) + f(last);
  for (Index g = 1; g < last; ++g) total += (g % 2 == 1 ? 4.0 : 2.0) * f(g);
  return total * (grid(1) - grid(0)) / 3.0;
}

Vector central_differences(const std::function<double(const Vector&)>& f, const Vector& theta,
                           double step) {
  Vector differences(theta.size());
  for (Index k = 0; k < theta.size(); ++k) {
    Vector up = theta;
    Vector down = theta;
    up(k) += step;
    down(k) -= step;
    differences(k) = (f(up) - f(down)) / (2.0 * step);
  }
  return differences;
}

double gaussian_density(const Vector& y, const Vector& mean, double sigma) {
  constexpr double kPi = 3.14159265358979323846;
  return std::exp(-(y - mean).squaredNorm() / (2 * sigma * sigma)) /
         std::pow(std::sqrt(2 * kPi) * sigma, static_cast<double>(y.size()));
}

double integral_over_y(const ConditionalMixture& model, const Vector& x, double low, double high,
                       int points) {
  Matrix grid(1, points);
  for (int g = 0; g < points; ++g) grid(0, g) = low + (high - low) * g / (points - 1.0);
  const Vector density = model.pdf_grid(x, grid).col(0);
  const double step = (high - low) / (points - 1.0);
  return step * (density.sum() - 0.5 * (density(0) + density(points - 1)));
}

void expect_integrates_to_one(const ConditionalMixture& model, const Matrix& y,
                              const std::vector<double>& inputs) {
  const double width = model.scales().minCoeff() * model.y_scaling().scale()(0);
  const double low = y.minCoeff() - 12 * width;
  const double high = y.maxCoeff() + 12 * width;
  const int points = static_cast<int>((high - low) / (0.05 * width)) + 2;
  for (double x : inputs) {
    EXPECT_NEAR(integral_over_y(model, Vector::Constant(1, x), low, high, points), 1.0, 1e-6)
        << "x = " << x;
  }
}

std::string fit_fingerprint(const ConditionalMixture& model, const FitReport& report) {
  nlohmann::json report_json = report.to_json();
  report_json.erase("fit_seconds");
  return model.to_json().dump() + report_json.dump();
}

ConditionalMixture expect_model_file_round_trip(const ConditionalMixture& model,
                                                const FitReport& report, const Matrix& x,
                                                const Matrix& y) {
  ConditionalModel saved{model, {}, {}, report, {}};
  for (Index d = 0; d < model.input_dim(); ++d) saved.x_names.push_back("x" + std::to_string(d));
  for (Index d = 0; d < model.output_dim(); ++d) saved.y_names.push_back("y" + std::to_string(d));
  const std::string path = temporary_path("model.json");
  save_conditional_model(saved, path);
  const ConditionalModel loaded = load_conditional_model(path);
  std::remove(path.c_str());
  EXPECT_EQ(loaded.mixture.gate().kind(), model.gate().kind());
  EXPECT_EQ(loaded.mixture.log_pdf(x, y), model.log_pdf(x, y));
  EXPECT_EQ(loaded.report.to_json(), report.to_json());
  return loaded.mixture;
}

namespace {

/// The kernel of dimension d between a value and a centre b: Gaussian exp(−½ u²) for an input
/// (as an output, divided by √(2π) h), a discrete kernel (as an output, a probability mass over
/// the levels) otherwise.
double kernel_value(const ColumnKernel& kernel, double a, double b, double smoothing, bool output) {
  if (!kernel.is_discrete()) {
    const double u = (a - b) / smoothing;
    return std::exp(-0.5 * u * u) / (output ? std::sqrt(2 * M_PI) * smoothing : 1.0);
  }
  if (kernel.kind() == ColumnKind::unordered) {
    return unordered_kernel(a, b, smoothing, kernel.n_levels());
  }
  if (!output) return ordered_kernel(a, b, smoothing);
  double total = 0.0;
  for (const double level : kernel.levels()) total += ordered_kernel(level, b, smoothing);
  return ordered_kernel(a, b, smoothing) / total;
}

}  // namespace

double unordered_kernel(double a, double b, double lambda, Index c) {
  return a == b ? 1.0 - lambda : lambda / static_cast<double>(c - 1);
}

double ordered_kernel(double a, double b, double lambda) {
  return a == b ? 1.0 - lambda : 0.5 * (1.0 - lambda) * std::pow(lambda, std::abs(a - b));
}

Vector explicit_leave_one_out(const Matrix& z, Index c, const ColumnKernels& kernels,
                              const Vector& smoothing, const Vector& weights) {
  const Index n = z.cols();
  Vector result(n);
  for (Index i = 0; i < n; ++i) {
    double joint = 0.0;
    double conditioning = 0.0;
    for (Index j = 0; j < n; ++j) {
      if (j == i) continue;
      double x_part = weights.size() > 0 ? weights(j) : 1.0;
      double y_part = 1.0;
      for (Index d = 0; d < z.rows(); ++d) {
        const double value = kernel_value(kernels[static_cast<std::size_t>(d)], z(d, i), z(d, j),
                                          smoothing(d), d >= c);
        (d < c ? x_part : y_part) *= value;
      }
      joint += x_part * y_part;
      conditioning += x_part;
    }
    result(i) = -std::log(joint / conditioning);
  }
  return result;
}

}  // namespace cdens::test
