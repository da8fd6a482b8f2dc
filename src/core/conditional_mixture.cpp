#include "cdens/core/conditional_mixture.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "cdens/core/error.hpp"
#include "cdens/core/gaussian_kernel.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/core/log_space.hpp"
#include "cdens/core/parallel.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/validate.hpp"
#include "scalar_mixture.hpp"

namespace cdens {
namespace {

// Queries work through the inputs in blocks of this many columns, one block per task.
constexpr Index kQueryBlock = 256;

Index block_count(Index m) { return (m + kQueryBlock - 1) / kQueryBlock; }

}  // namespace

ConditionalMixture::ConditionalMixture(Standardizer x_scaling, Standardizer y_scaling,
                                       std::shared_ptr<const ConditionalGate> gate, Matrix centers,
                                       Matrix scales, Matrix trend)
    : x_scaling_(std::move(x_scaling)),
      y_scaling_(std::move(y_scaling)),
      gate_(std::move(gate)),
      centers_(std::move(centers)),
      scales_(std::move(scales)),
      trend_(std::move(trend)) {
  if (!gate_) throw InvalidArgument("conditional mixture without a gate");
  if (gate_->input_dim() != x_scaling_.dimension()) {
    throw InvalidArgument("gate input dimension differs from the input standardiser");
  }
  if (centers_.rows() != y_scaling_.dimension() || scales_.rows() != centers_.rows() ||
      scales_.cols() != centers_.cols() || gate_->n_components() != centers_.cols() ||
      centers_.cols() == 0) {
    throw InvalidArgument("conditional mixture: centres, scales and gate disagree in shape");
  }
  require_finite(centers_, "component centres");
  if (trend_.size() > 0) {
    if (trend_.rows() != output_dim() || trend_.cols() != input_dim()) {
      throw InvalidArgument("conditional mixture: the trend must be d_y × d_x");
    }
    require_finite(trend_, "trend");
  }
  if (!(scales_.array() > 0.0).all() || !scales_.allFinite()) {
    throw InvalidArgument("component scales must be finite and positive");
  }
  log_marginal_ = gate_->log_marginal_weights();
  const double normaliser =
      log_marginal_.size() == n_components() ? log_sum_exp(log_marginal_) : -INFINITY;
  if (!std::isfinite(normaliser)) {
    throw InvalidArgument("the gate's marginal weights are all zero");
  }
  log_marginal_.array() -= normaliser;
  component_log_norms_ =
      -scales_.array().log().colwise().sum().transpose() - 0.5 * output_dim() * kLog2Pi;
}

Matrix ConditionalMixture::standardized_outputs(const MatrixView& y, Index expected_samples) const {
  Matrix t = y_scaling_.transform_query(y, "y");
  if (expected_samples >= 0 && y.cols() != expected_samples) {
    throw InvalidArgument("x has " + std::to_string(expected_samples) + " samples but y has " +
                          std::to_string(y.cols()));
  }
  return t;
}

Matrix ConditionalMixture::trend_at(const MatrixView& x) const {
  if (trend_.size() == 0) return Matrix::Zero(output_dim(), x.cols());
  return trend_ * x_scaling_.transform_query(x, "x");
}

void ConditionalMixture::require_scalar_output(const char* query) const {
  if (output_dim() != 1) {
    throw InvalidArgument(std::string(query) + " needs a one-dimensional y; this model has d_y = " +
                          std::to_string(output_dim()));
  }
}

void ConditionalMixture::normalize_log_weights(Eigen::Ref<Vector> log_weights) const {
  // Normalising in log space keeps far-away inputs exact: their log-weights are huge negative
  // numbers whose rounding would otherwise swamp the density.
  const double normaliser = log_sum_exp(log_weights);
  if (normaliser == -INFINITY) {
    log_weights = log_marginal_;
  } else {
    log_weights.array() -= normaliser;
  }
}

void ConditionalMixture::probabilities_of(const MatrixView& z, Eigen::Ref<Matrix> out) const {
  gate_->log_weights(z, out);
  for (Index j = 0; j < out.cols(); ++j) normalize_log_weights(out.col(j));
  exp_flushing_below_in_place(out);
}

Matrix ConditionalMixture::component_probabilities(const MatrixView& x) const {
  const Matrix z = x_scaling_.transform_query(x, "x");
  Matrix probabilities(n_components(), z.cols());
  parallel_for(resolve_threads(0), block_count(z.cols()), [&](Index block) {
    const Index start = block * kQueryBlock;
    const Index width = std::min(kQueryBlock, z.cols() - start);
    probabilities_of(z.middleCols(start, width), probabilities.middleCols(start, width));
  });
  return probabilities;
}

Vector ConditionalMixture::log_pdf(const MatrixView& x, const MatrixView& y) const {
  const Matrix z = x_scaling_.transform_query(x, "x");
  const Matrix t = standardized_outputs(y, z.cols()) - trend_at(x);
  Vector result(z.cols());
  const Index k_count = n_components();
  parallel_for(resolve_threads(0), block_count(z.cols()), [&](Index block) {
    const Index start = block * kQueryBlock;
    const Index width = std::min(kQueryBlock, z.cols() - start);
    Matrix log_weights(k_count, width);
    gate_->log_weights(z.middleCols(start, width), log_weights);
    Vector joint(k_count);
    for (Index j = 0; j < width; ++j) {
      auto weights = log_weights.col(j);
      normalize_log_weights(weights);
      const auto target = t.col(start + j);
      for (Index k = 0; k < k_count; ++k) {
        const double mahalanobis =
            ((target - centers_.col(k)).array() / scales_.col(k).array()).square().sum();
        joint(k) = weights(k) + component_log_norms_(k) - 0.5 * mahalanobis;
      }
      result(start + j) = log_sum_exp(joint) + y_scaling_.log_jacobian();
    }
  });
  return result;
}

Matrix ConditionalMixture::component_densities_at(const MatrixView& t) const {
  Matrix densities(t.cols(), n_components());
  for (Index k = 0; k < n_components(); ++k) {
    const Eigen::ArrayXd mahalanobis =
        ((t.colwise() - centers_.col(k)).array().colwise() / scales_.col(k).array())
            .square()
            .colwise()
            .sum()
            .transpose();
    densities.col(k) = exp_flushing_below((component_log_norms_(k) - 0.5 * mahalanobis).matrix());
  }
  return densities;
}

Matrix ConditionalMixture::pdf_grid(const MatrixView& x, const MatrixView& y_grid) const {
  const Matrix probabilities = component_probabilities(x);
  const Matrix t = standardized_outputs(y_grid, -1);
  if (t.cols() == 0) throw InvalidArgument("the y grid is empty");
  const double jacobian = std::exp(y_scaling_.log_jacobian());
  // Component densities at the grid points (G × K), then one product with π; with a trend the
  // grid moves with x, so each input gets its own densities.
  if (trend_.size() == 0) return jacobian * component_densities_at(t) * probabilities;
  const Matrix shifts = trend_at(x);
  Matrix result(t.cols(), probabilities.cols());
  parallel_for(resolve_threads(0), probabilities.cols(), [&](Index j) {
    result.col(j) =
        jacobian * component_densities_at(t.colwise() - shifts.col(j)) * probabilities.col(j);
  });
  return result;
}

Matrix ConditionalMixture::sample(const MatrixView& x, Index n_per_input,
                                  std::uint64_t seed) const {
  if (n_per_input < 1) throw InvalidArgument("the number of samples per input must be at least 1");
  const Matrix probabilities = component_probabilities(x);
  const Matrix shifts = trend_at(x);
  const Index m = probabilities.cols();
  Matrix draws(output_dim(), m * n_per_input);
  parallel_for(resolve_threads(0), m, [&](Index j) {
    Rng rng(seed, static_cast<std::uint64_t>(j));
    std::discrete_distribution<Index> component(probabilities.col(j).data(),
                                                probabilities.col(j).data() + n_components());
    for (Index r = 0; r < n_per_input; ++r) {
      const Index k = component(rng.engine());
      auto draw = draws.col(j * n_per_input + r);
      for (Index d = 0; d < output_dim(); ++d) {
        draw(d) = shifts(d, j) + centers_(d, k) + scales_(d, k) * rng.normal();
      }
    }
  });
  return y_scaling_.inverse_transform(draws);
}

Matrix ConditionalMixture::mean(const MatrixView& x) const {
  return y_scaling_.inverse_transform(centers_ * component_probabilities(x) + trend_at(x));
}

Matrix ConditionalMixture::covariance(const MatrixView& x) const {
  const Matrix probabilities = component_probabilities(x);
  const Index d = output_dim();
  Matrix result(d * d, probabilities.cols());
  const Matrix variances = scales_.array().square();
  parallel_for(resolve_threads(0), probabilities.cols(), [&](Index j) {
    const auto pi = probabilities.col(j);
    const Vector mean = centers_ * pi;
    // Cov[t] = Σ_k π_k (diag s_k² + c_k c_kᵀ) − μ μᵀ.
    Matrix covariance = centers_ * pi.asDiagonal() * centers_.transpose() - mean * mean.transpose();
    covariance.diagonal() += variances * pi;
    // Back to the user's units: Cov[y] = S Cov[t] S with S = diag(scale).
    covariance = y_scaling_.scale().asDiagonal() * covariance * y_scaling_.scale().asDiagonal();
    result.col(j) = Eigen::Map<const Vector>(covariance.data(), d * d);
  });
  return result;
}

Vector ConditionalMixture::squared_norm(const MatrixView& x) const {
  const Matrix probabilities = component_probabilities(x);
  // ∫ N(t; c_k, S_k) N(t; c_l, S_l) dt = N(c_k; c_l, S_k + S_l) for diagonal S.
  const Index k_count = n_components();
  Matrix overlap(k_count, k_count);
  for (Index k = 0; k < k_count; ++k) {
    for (Index l = 0; l < k_count; ++l) {
      const Eigen::ArrayXd variance =
          scales_.col(k).array().square() + scales_.col(l).array().square();
      overlap(k, l) =
          std::exp(-0.5 * ((centers_.col(k) - centers_.col(l)).array().square() / variance).sum() -
                   0.5 * (variance.log().sum() + output_dim() * kLog2Pi));
    }
  }
  const Vector norms =
      (overlap * probabilities).cwiseProduct(probabilities).colwise().sum().transpose();
  // p_user(y) = p_std(t) |∂t/∂y|, so ∫ p_user² dy = |∂t/∂y| ∫ p_std² dt.
  return norms * std::exp(y_scaling_.log_jacobian());
}

Vector ConditionalMixture::cdf(const MatrixView& x, const MatrixView& y) const {
  require_scalar_output("the CDF");
  const Matrix probabilities = component_probabilities(x);
  const Matrix t = standardized_outputs(y, probabilities.cols()) - trend_at(x);
  Vector result(t.cols());
  parallel_for(resolve_threads(0), t.cols(), [&](Index j) {
    result(j) = detail::ScalarMixture(probabilities.col(j), centers_.row(0).transpose(),
                                      scales_.row(0).transpose())
                    .cdf(t(0, j));
  });
  return result;
}

Matrix ConditionalMixture::quantiles(const MatrixView& x,
                                     const std::vector<double>& probabilities) const {
  require_scalar_output("quantiles");
  require_open_unit_interval(probabilities, "quantile probabilities");
  const Matrix pi = component_probabilities(x);
  Matrix result(static_cast<Index>(probabilities.size()), pi.cols());
  parallel_for(resolve_threads(0), pi.cols(), [&](Index j) {
    const detail::ScalarMixture mixture(pi.col(j), centers_.row(0).transpose(),
                                        scales_.row(0).transpose());
    for (std::size_t r = 0; r < probabilities.size(); ++r) {
      result(static_cast<Index>(r), j) = mixture.quantile(probabilities[r]);
    }
  });
  result.rowwise() += trend_at(x).row(0);
  return ((result.array() * y_scaling_.scale()(0)) + y_scaling_.mean()(0)).matrix();
}

std::vector<HighestDensityRegion> ConditionalMixture::highest_density_regions(
    const MatrixView& x, double coverage) const {
  require_scalar_output("highest-density regions");
  require_open_unit_interval({coverage}, "coverage");
  const Matrix pi = component_probabilities(x);
  std::vector<HighestDensityRegion> regions(static_cast<std::size_t>(pi.cols()));
  const double scale = y_scaling_.scale()(0);
  const Matrix shifts = trend_at(x);
  parallel_for(resolve_threads(0), pi.cols(), [&](Index j) {
    regions[static_cast<std::size_t>(j)] = detail::rescaled(
        detail::ScalarMixture(pi.col(j), centers_.row(0).transpose(), scales_.row(0).transpose())
            .highest_density_region(coverage),
        y_scaling_.mean()(0) + scale * shifts(0, j), scale);
  });
  return regions;
}

Vector ConditionalMixture::highest_density_probability(const MatrixView& x,
                                                       const MatrixView& y) const {
  require_scalar_output("highest-density probabilities");
  const Matrix pi = component_probabilities(x);
  const Matrix t = standardized_outputs(y, pi.cols()) - trend_at(x);
  Vector result(t.cols());
  parallel_for(resolve_threads(0), t.cols(), [&](Index j) {
    const detail::ScalarMixture mixture(pi.col(j), centers_.row(0).transpose(),
                                        scales_.row(0).transpose());
    result(j) = mixture.probability_above(mixture.pdf(t(0, j)));
  });
  return result;
}

nlohmann::json ConditionalMixture::to_json() const {
  nlohmann::json gate = gate_->to_json();
  gate["kind"] = gate_->kind();
  nlohmann::json document = {{"x_scaling", x_scaling_.to_json()},
                             {"y_scaling", y_scaling_.to_json()},
                             {"gate", gate},
                             {"centers", matrix_to_json(centers_)},
                             {"scales", matrix_to_json(scales_)}};
  if (trend_.size() > 0) document["trend"] = matrix_to_json(trend_);
  return document;
}

ConditionalMixture ConditionalMixture::from_json(const nlohmann::json& document,
                                                 const GateReader& read_gate) {
  const auto& gate = json_member(document, "gate");
  const auto& kind = json_member(gate, "kind");
  if (!kind.is_string()) throw ModelFormatError("the gate's kind is not a string");
  try {
    return ConditionalMixture(
        Standardizer::from_json(json_member(document, "x_scaling")),
        Standardizer::from_json(json_member(document, "y_scaling")),
        read_gate(kind.get<std::string>(), gate),
        matrix_from_json(json_member(document, "centers"), "centres"),
        matrix_from_json(json_member(document, "scales"), "scales"),
        document.contains("trend") ? matrix_from_json(document["trend"], "trend") : Matrix());
  } catch (const InvalidArgument& error) {
    throw ModelFormatError(std::string("inconsistent model: ") + error.what());
  }
}

}  // namespace cdens
