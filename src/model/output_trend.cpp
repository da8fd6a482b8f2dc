#include "cdens/core/output_trend.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "core/selected_features.hpp"
#include "core/validate.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"
#include "kernel_sums/gaussian_kernel.hpp"

namespace cdens {
namespace {

double json_positive(const nlohmann::json& document, const char* key) {
  const auto& value = json_member(document, key);
  if (!value.is_number() || !(value.get<double>() > 0.0) || !std::isfinite(value.get<double>())) {
    throw ModelFormatError(std::string("the trend's ") + key + " is not a positive number");
  }
  return value.get<double>();
}

double json_finite(const nlohmann::json& document, const char* key) {
  const auto& value = json_member(document, key);
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    throw ModelFormatError(std::string("the trend's ") + key + " is not a finite number");
  }
  return value.get<double>();
}

}  // namespace

LinearTrend::LinearTrend(Vector intercept, Matrix slopes, Matrix log_scale_slopes)
    : intercept_(std::move(intercept)),
      slopes_(std::move(slopes)),
      log_scale_slopes_(std::move(log_scale_slopes)) {
  if (intercept_.size() != slopes_.rows() ||
      (log_scale_slopes_.size() > 0 && (log_scale_slopes_.rows() != slopes_.rows() ||
                                        log_scale_slopes_.cols() != slopes_.cols()))) {
    throw InvalidArgument("linear trend: the intercept, slopes and scale slopes disagree in shape");
  }
  require_finite(intercept_, "trend intercept");
  require_finite(slopes_, "trend");
  require_finite(log_scale_slopes_, "scale trend");
}

Matrix LinearTrend::location(const MatrixView& z) const {
  return (slopes_ * z).colwise() + intercept_;
}

Matrix LinearTrend::scale(const MatrixView& z) const {
  if (!has_scale()) return Matrix::Ones(output_dim(), z.cols());
  return (log_scale_slopes_ * z).array().max(-kLogScaleLimit).min(kLogScaleLimit).exp().matrix();
}

nlohmann::json LinearTrend::to_json() const {
  nlohmann::json document = {{"kind", kind()},
                             {"intercept", vector_to_json(intercept_)},
                             {"slopes", matrix_to_json(slopes_)}};
  if (has_scale()) document["log_scale_slopes"] = matrix_to_json(log_scale_slopes_);
  return document;
}

std::shared_ptr<const LinearTrend> LinearTrend::from_json(const nlohmann::json& document) {
  return std::make_shared<const LinearTrend>(
      vector_from_json(json_member(document, "intercept"), "trend intercept"),
      matrix_from_json(json_member(document, "slopes"), "trend slopes"),
      document.contains("log_scale_slopes")
          ? matrix_from_json(document["log_scale_slopes"], "trend scale slopes")
          : Matrix());
}

GaussianProcessTrend::GaussianProcessTrend(Matrix centers,
                                           std::vector<GaussianProcessOutput> outputs)
    : centers_(std::move(centers)), outputs_(std::move(outputs)) {
  require_finite(centers_, "trend centres");
  if (outputs_.empty() || centers_.cols() == 0) {
    throw InvalidArgument("Gaussian-process trend without outputs or centres");
  }
  for (const GaussianProcessOutput& output : outputs_) {
    if (output.slopes.size() != input_dim() || output.length_scales.size() != input_dim() ||
        output.weights.size() != centers_.cols() ||
        output.variance_factor.rows() != centers_.cols()) {
      throw InvalidArgument("Gaussian-process trend: an output's parameters disagree in shape");
    }
    require_finite(output.slopes, "trend slopes");
    require_finite(output.weights, "trend weights");
    require_finite(output.variance_factor, "trend variance factor");
    if (!std::isfinite(output.intercept) || !(output.length_scales.array() > 0.0).all() ||
        !output.length_scales.allFinite() || !(output.signal_variance > 0.0) ||
        !std::isfinite(output.signal_variance) || !(output.noise_variance > 0.0) ||
        !std::isfinite(output.noise_variance)) {
      throw InvalidArgument(
          "Gaussian-process trend: length scales and variances must be finite and positive");
    }
  }
}

Matrix GaussianProcessTrend::kernel_values(Index output, const MatrixView& z) const {
  const GaussianProcessOutput& process = outputs_[static_cast<std::size_t>(output)];
  const auto inverse_lengths = process.length_scales.cwiseInverse().asDiagonal();
  const Matrix scaled_z = inverse_lengths * z;
  const Matrix scaled_centers = inverse_lengths * centers_;
  return process.signal_variance *
         (-0.5 * squared_distances(scaled_z, scaled_centers).array()).exp().matrix();
}

Matrix GaussianProcessTrend::location(const MatrixView& z) const {
  Matrix result(output_dim(), z.cols());
  for (Index d = 0; d < output_dim(); ++d) {
    const GaussianProcessOutput& process = outputs_[static_cast<std::size_t>(d)];
    result.row(d) = (kernel_values(d, z) * process.weights).transpose() +
                    (process.slopes.transpose() * z).array().matrix() +
                    Eigen::RowVectorXd::Constant(z.cols(), process.intercept);
  }
  return result;
}

Matrix GaussianProcessTrend::scale(const MatrixView& z) const {
  Matrix result(output_dim(), z.cols());
  for (Index d = 0; d < output_dim(); ++d) {
    const GaussianProcessOutput& process = outputs_[static_cast<std::size_t>(d)];
    const Vector explained =
        (kernel_values(d, z) * process.variance_factor).rowwise().squaredNorm();
    // f² = σ_n² + max(0, σ_f² − ‖Rᵀk‖²): rounding may take the posterior variance below 0.
    result.row(d) =
        (process.noise_variance + (process.signal_variance - explained.array()).max(0.0))
            .sqrt()
            .transpose();
  }
  return result;
}

nlohmann::json GaussianProcessTrend::to_json() const {
  nlohmann::json outputs = nlohmann::json::array();
  for (const GaussianProcessOutput& output : outputs_) {
    outputs.push_back({{"intercept", output.intercept},
                       {"slopes", vector_to_json(output.slopes)},
                       {"length_scales", vector_to_json(output.length_scales)},
                       {"signal_variance", output.signal_variance},
                       {"noise_variance", output.noise_variance},
                       {"weights", vector_to_json(output.weights)},
                       {"variance_factor", matrix_to_json(output.variance_factor)}});
  }
  return {{"kind", kind()}, {"centers", matrix_to_json(centers_)}, {"outputs", outputs}};
}

std::shared_ptr<const GaussianProcessTrend> GaussianProcessTrend::from_json(
    const nlohmann::json& document) {
  const auto& list = json_member(document, "outputs");
  if (!list.is_array()) throw ModelFormatError("the trend's outputs are not a list");
  std::vector<GaussianProcessOutput> outputs;
  for (const auto& output : list) {
    outputs.push_back(
        {json_finite(output, "intercept"),
         vector_from_json(json_member(output, "slopes"), "trend slopes"),
         vector_from_json(json_member(output, "length_scales"), "trend length scales"),
         json_positive(output, "signal_variance"), json_positive(output, "noise_variance"),
         vector_from_json(json_member(output, "weights"), "trend weights"),
         matrix_from_json(json_member(output, "variance_factor"), "trend variance factor")});
  }
  return std::make_shared<const GaussianProcessTrend>(
      matrix_from_json(json_member(document, "centers"), "trend centres"), std::move(outputs));
}

SelectedFeaturesTrend::SelectedFeaturesTrend(Index input_dim, std::vector<Index> features,
                                             std::shared_ptr<const OutputTrend> inner)
    : input_dim_(input_dim), features_(std::move(features)), inner_(std::move(inner)) {
  if (!inner_) throw InvalidArgument("selected-features trend: no inner trend");
  require_selected_features(features_, input_dim_, inner_->input_dim(), "selected-features trend");
}

Matrix SelectedFeaturesTrend::location(const MatrixView& z) const {
  return inner_->location(z(features_, Eigen::all));
}

Matrix SelectedFeaturesTrend::scale(const MatrixView& z) const {
  return inner_->scale(z(features_, Eigen::all));
}

nlohmann::json SelectedFeaturesTrend::to_json() const {
  return {{"kind", kind()},
          {"input_dim", input_dim_},
          {"features", features_},
          {"inner", inner_->to_json()}};
}

std::shared_ptr<const SelectedFeaturesTrend> SelectedFeaturesTrend::from_json(
    const nlohmann::json& document) {
  const Index input_dim = json_integer(json_member(document, "input_dim"), "trend input_dim", 1);
  return std::make_shared<const SelectedFeaturesTrend>(
      input_dim,
      json_integers(json_member(document, "features"), "trend features", 0, input_dim - 1),
      output_trend_from_json(json_member(document, "inner")));
}

PoolMemberTrend::PoolMemberTrend(Index input_dim, Index output_dim,
                                 std::shared_ptr<const OutputTrend> inner,
                                 std::optional<Standardizer> input_scaling,
                                 std::optional<Standardizer> output_scaling,
                                 std::optional<Standardizer> pool_output_scaling)
    : input_dim_(input_dim),
      output_dim_(output_dim),
      inner_(std::move(inner)),
      input_scaling_(std::move(input_scaling)),
      output_scaling_(std::move(output_scaling)),
      pool_output_scaling_(std::move(pool_output_scaling)) {
  if ((inner_ && (inner_->input_dim() != input_dim_ || inner_->output_dim() != output_dim_)) ||
      (input_scaling_ && input_scaling_->dimension() != input_dim_)) {
    throw InvalidArgument(
        "pool member's trend: its trend or input standardisation does not match "
        "the pool's dimensions");
  }
  if (output_scaling_.has_value() != pool_output_scaling_.has_value() ||
      (output_scaling_ && (output_scaling_->dimension() != output_dim_ ||
                           pool_output_scaling_->dimension() != output_dim_))) {
    throw InvalidArgument(
        "pool member's trend: the member's and the pool's output "
        "standardisations are given together, one value per output");
  }
  if (output_scaling_) {
    shift_ = (output_scaling_->mean() - pool_output_scaling_->mean())
                 .cwiseQuotient(pool_output_scaling_->scale());
    factor_ = output_scaling_->scale().cwiseQuotient(pool_output_scaling_->scale());
  }
}

Matrix PoolMemberTrend::member_inputs(const MatrixView& z) const {
  return input_scaling_ ? input_scaling_->transform(z) : Matrix(z);
}

Matrix PoolMemberTrend::location(const MatrixView& z) const {
  Matrix location =
      inner_ ? inner_->location(member_inputs(z)) : Matrix::Zero(output_dim_, z.cols());
  if (!output_scaling_) return location;
  return (factor_.asDiagonal() * location).colwise() + shift_;
}

Matrix PoolMemberTrend::scale(const MatrixView& z) const {
  Matrix scale = inner_ && inner_->has_scale() ? inner_->scale(member_inputs(z))
                                               : Matrix::Ones(output_dim_, z.cols());
  if (!output_scaling_) return scale;
  return factor_.asDiagonal() * scale;
}

nlohmann::json PoolMemberTrend::to_json() const {
  nlohmann::json document = {
      {"kind", kind()}, {"input_dim", input_dim_}, {"output_dim", output_dim_}};
  if (inner_) document["inner"] = inner_->to_json();
  if (input_scaling_) document["input_scaling"] = input_scaling_->to_json();
  if (output_scaling_) {
    document["output_scaling"] = output_scaling_->to_json();
    document["pool_output_scaling"] = pool_output_scaling_->to_json();
  }
  return document;
}

std::shared_ptr<const PoolMemberTrend> PoolMemberTrend::from_json(const nlohmann::json& document) {
  const auto optional_scaling = [&](const char* key) -> std::optional<Standardizer> {
    if (!document.contains(key)) return std::nullopt;
    return Standardizer::from_json(document.at(key));
  };
  return std::make_shared<const PoolMemberTrend>(
      json_integer(json_member(document, "input_dim"), "trend input_dim", 1),
      json_integer(json_member(document, "output_dim"), "trend output_dim", 1),
      document.contains("inner") ? output_trend_from_json(document.at("inner")) : nullptr,
      optional_scaling("input_scaling"), optional_scaling("output_scaling"),
      optional_scaling("pool_output_scaling"));
}

std::shared_ptr<const OutputTrend> output_trend_from_json(const nlohmann::json& document) {
  const auto& kind = json_member(document, "kind");
  if (!kind.is_string()) throw ModelFormatError("the trend's kind is not a string");
  auto trend =
      reading_model_part("inconsistent trend", [&]() -> std::shared_ptr<const OutputTrend> {
        if (kind == "linear") return LinearTrend::from_json(document);
        if (kind == "gaussian_process") return GaussianProcessTrend::from_json(document);
        if (kind == "selected_features") return SelectedFeaturesTrend::from_json(document);
        if (kind == "pool_member") return PoolMemberTrend::from_json(document);
        return nullptr;
      });
  if (!trend) {
    throw ModelFormatError("unknown trend kind " + kind.dump() + " (written by a newer cdens?)");
  }
  return trend;
}

}  // namespace cdens
