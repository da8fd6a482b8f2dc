#include "cdens/core/gaussian_mixture.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "core/validate.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "model/scalar_mixture.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Queries work through the points in blocks of this many columns, one block per task, so the
// result does not depend on the thread count.
constexpr Index kQueryBlock = 256;

}  // namespace

struct GaussianMixture::KernelSumCache {
  std::once_flag built;
  std::unique_ptr<const KernelSumReference> reference;
};

GaussianMixture::GaussianMixture(Standardizer x_scaling, Vector weights, Matrix centers,
                                 Matrix scales)
    : x_scaling_(std::move(x_scaling)),
      weights_(std::move(weights)),
      centers_(std::move(centers)),
      scales_(std::move(scales)) {
  use_one_blas_thread();  // before any query's product
  if (centers_.cols() == 0 || centers_.rows() == 0) {
    throw InvalidArgument("a Gaussian mixture needs at least one component and one dimension");
  }
  if (centers_.rows() != x_scaling_.dimension() || scales_.rows() != centers_.rows() ||
      scales_.cols() != centers_.cols() || weights_.size() != centers_.cols()) {
    throw InvalidArgument(
        "Gaussian mixture: weights, centres, scales and standardiser disagree in shape");
  }
  if (!centers_.allFinite()) throw InvalidArgument("Gaussian mixture centres must be finite");
  if (!scales_.allFinite() || !(scales_.array() > 0.0).all()) {
    throw InvalidArgument("Gaussian mixture widths must be finite and positive");
  }
  if (!weights_.allFinite() || (weights_.array() < 0.0).any()) {
    throw InvalidArgument("Gaussian mixture weights must be finite and non-negative");
  }
  const double total = weights_.sum();
  if (!(std::abs(total - 1.0) <= 1e-9)) {
    throw InvalidArgument("Gaussian mixture weights must sum to 1, they sum to " +
                          std::to_string(total));
  }
  log_weights_ = weights_.array().log();  // log 0 = −∞ leaves a component out of the sum
  component_log_norms_ =
      -scales_.array().log().colwise().sum().transpose() - 0.5 * dimension() * kLog2Pi;
  shared_widths_ = (scales_.colwise() - scales_.col(0)).cwiseAbs().maxCoeff() == 0.0;
  if (shared_widths_) kernel_sum_cache_ = std::make_shared<KernelSumCache>();
}

Vector GaussianMixture::log_pdf(const MatrixView& x) const {
  DensityQuery query;
  return log_pdf(x, query);
}

Vector GaussianMixture::log_pdf(const MatrixView& x, DensityQuery& query) const {
  const Matrix z = x_scaling_.transform_query(x, "x");
  if (shared_widths_) {
    // log Σ_l β_l N(z; c_l, diag γ²) = log Σ_l β_l exp(−½‖(z − c_l)/γ‖²) − Σ_d log γ_d − (d/2) log
    // 2π.
    const auto inverse_widths = scales_.col(0).cwiseInverse().asDiagonal();
    KernelSumCache& cache = *kernel_sum_cache_;
    std::call_once(cache.built, [&] {
      cache.reference =
          std::make_unique<const KernelSumReference>(inverse_widths * centers_, weights_);
    });
    KernelSumOptions options;
    options.log_tolerance = query.log_tolerance;
    const KernelSums sums = gaussian_kernel_log_sums(*cache.reference, inverse_widths * z, options);
    query.path = to_string(sums.path);
    return sums.log_sums.array() + component_log_norms_(0) + x_scaling_.log_jacobian();
  }
  query.path = "components";
  const Index m = z.cols();
  const Index k_count = n_components();
  Vector result(m);
  const Index blocks = (m + kQueryBlock - 1) / kQueryBlock;
  parallel_for(resolve_threads(0), blocks, [&](Index block) {
    const Index start = block * kQueryBlock;
    const Index width = std::min(kQueryBlock, m - start);
    const auto points = z.middleCols(start, width);
    Matrix joint(k_count, width);  // log β_l + log N(z_j; c_l, diag γ_l²)
    for (Index l = 0; l < k_count; ++l) {
      // ((z − c) / γ)², not (z − c)² / γ²: in a model file whose widths and centres are far
      // apart in scale, (z − c)² overflowed while 1/γ² underflowed to 0, and ∞ · 0 scored NaN (a
      // fuzzed Parzen file); the quotient first keeps each term finite or +∞.
      const Eigen::ArrayXd mahalanobis =
          ((points.colwise() - centers_.col(l)).array().colwise() / scales_.col(l).array())
              .square()
              .colwise()
              .sum()
              .transpose();
      joint.row(l) =
          (log_weights_(l) + component_log_norms_(l) - 0.5 * mahalanobis).matrix().transpose();
    }
    for (Index j = 0; j < width; ++j) result(start + j) = log_sum_exp(joint.col(j));
  });
  return result.array() + x_scaling_.log_jacobian();
}

Vector GaussianMixture::pdf(const MatrixView& grid) const {
  if (grid.cols() == 0) throw InvalidArgument("the grid is empty");
  return log_pdf(grid).array().exp();
}

double GaussianMixture::mean_log_likelihood(const MatrixView& x) const {
  if (x.cols() == 0) throw DataError("no samples to score");
  return log_pdf(x).mean();
}

Matrix GaussianMixture::sample(Index n, std::uint64_t seed) const {
  if (n < 1) throw InvalidArgument("the number of samples must be at least 1");
  require_memory_for(static_cast<double>(n) * static_cast<double>(dimension()),
                     "the number of samples");
  Rng rng(seed);
  std::discrete_distribution<Index> component(weights_.data(), weights_.data() + weights_.size());
  Matrix draws(dimension(), n);
  for (Index j = 0; j < n; ++j) {
    const Index l = component(rng.engine());
    for (Index d = 0; d < dimension(); ++d) {
      draws(d, j) = centers_(d, l) + scales_(d, l) * rng.normal();
    }
  }
  return x_scaling_.inverse_transform(draws);
}

Vector GaussianMixture::mean() const { return x_scaling_.inverse_transform(centers_ * weights_); }

Matrix GaussianMixture::covariance() const {
  const Vector mu = centers_ * weights_;
  Matrix covariance = centers_ * weights_.asDiagonal() * centers_.transpose() - mu * mu.transpose();
  covariance.diagonal() += scales_.array().square().matrix() * weights_;
  const auto scale = x_scaling_.scale().asDiagonal();
  return scale * covariance * scale;
}

void GaussianMixture::require_one_dimension(const char* query) const {
  if (dimension() != 1) {
    throw InvalidArgument(std::string(query) + " needs a one-dimensional density; this one has " +
                          std::to_string(dimension()) + " dimensions");
  }
}

Vector GaussianMixture::cdf(const MatrixView& x) const {
  require_one_dimension("the CDF");
  const Matrix z = x_scaling_.transform_query(x, "x");
  const detail::ScalarMixture mixture(weights_, centers_.row(0).transpose(),
                                      scales_.row(0).transpose());
  Vector result(z.cols());
  for (Index j = 0; j < z.cols(); ++j) result(j) = mixture.cdf(z(0, j));
  return result;
}

Matrix GaussianMixture::quantiles(const std::vector<double>& probabilities) const {
  require_open_unit_interval(probabilities, "quantile probabilities");
  Matrix result(dimension(), static_cast<Index>(probabilities.size()));
  for (Index d = 0; d < dimension(); ++d) {
    const detail::ScalarMixture marginal(weights_, centers_.row(d).transpose(),
                                         scales_.row(d).transpose());
    for (std::size_t r = 0; r < probabilities.size(); ++r) {
      result(d, static_cast<Index>(r)) =
          x_scaling_.mean()(d) + x_scaling_.scale()(d) * marginal.quantile(probabilities[r]);
    }
  }
  return result;
}

HighestDensityRegion GaussianMixture::highest_density_region(double coverage) const {
  require_one_dimension("a highest-density region");
  require_open_unit_interval({coverage}, "coverage");
  return detail::rescaled(
      detail::ScalarMixture(weights_, centers_.row(0).transpose(), scales_.row(0).transpose())
          .highest_density_region(coverage),
      x_scaling_.mean()(0), x_scaling_.scale()(0));
}

double GaussianMixture::squared_norm() const {
  // ∫ N(z; c_l, Γ_l) N(z; c_l', Γ_l') dz = N(c_l; c_l', Γ_l + Γ_l') for diagonal Γ (eq. 14).
  const Index k_count = n_components();
  const Matrix variances = scales_.array().square();
  double total = 0.0;
  for (Index l = 0; l < k_count; ++l) {
    for (Index k = 0; k < k_count; ++k) {
      const Eigen::ArrayXd variance = variances.col(l).array() + variances.col(k).array();
      total +=
          weights_(l) * weights_(k) *
          std::exp(-0.5 * ((centers_.col(l) - centers_.col(k)).array().square() / variance).sum() -
                   0.5 * (variance.log().sum() + dimension() * kLog2Pi));
    }
  }
  // p_user(x) = p(z) |∂z/∂x|, so ∫ p_user² dx = |∂z/∂x| ∫ p² dz.
  return total * std::exp(x_scaling_.log_jacobian());
}

nlohmann::json GaussianMixture::to_json() const {
  return {{"scaling", x_scaling_.to_json()},
          {"weights", vector_to_json(weights_)},
          {"centers", matrix_to_json(centers_)},
          {"widths", matrix_to_json(scales_)}};
}

GaussianMixture GaussianMixture::from_json(const nlohmann::json& document) {
  return reading_model_part("inconsistent Gaussian mixture", [&] {
    return GaussianMixture(Standardizer::from_json(json_member(document, "scaling")),
                           vector_from_json(json_member(document, "weights"), "weights"),
                           matrix_from_json(json_member(document, "centers"), "centres"),
                           matrix_from_json(json_member(document, "widths"), "widths"));
  });
}

}  // namespace cdens
