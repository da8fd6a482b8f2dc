#pragma once
// The gate of the product-kernel CDE (docs/methods/kcde.md): Gaussian kernel weights with one
// bandwidth per input dimension,
//
//   w_k(x) = exp(−½ Σ_d (x_d − u_kd)² / h_d²),
//
// over the stored (standardised) training inputs u_k. Where every weight underflows the mixture
// takes each component's weight relative to the largest (log space), and where all are exactly
// zero it falls back to equal weights.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cdens/core/conditional_gate.hpp"

namespace cdens {

class ProductKernelGate final : public ConditionalGate {
 public:
  /// `centers_x` holds the training inputs u_k (d_x × K, K ≥ 1, finite); `bandwidths` h (d_x)
  /// are finite and positive. InvalidArgument otherwise.
  ProductKernelGate(Matrix centers_x, Vector bandwidths);

  std::string kind() const override { return "product_kernel"; }
  Index input_dim() const override { return centers_x_.rows(); }
  Index n_components() const override { return centers_x_.cols(); }
  /// −½ Σ_d (x_d − u_kd)² / h_d².
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// Equal weights: the fallback is the kernel density estimate of y.
  Vector log_marginal_weights() const override;
  /// {"centers_x": u (d_x × K), "bandwidths": h}.
  nlohmann::json to_json() const override;
  /// The gate written by to_json(); ModelFormatError if a field is missing or malformed.
  static std::shared_ptr<const ProductKernelGate> from_json(const nlohmann::json& document);

  const Matrix& centers_x() const { return centers_x_; }
  /// h, one per input dimension (standardised units).
  const Vector& bandwidths() const { return bandwidths_; }

 private:
  Matrix centers_x_;
  Vector bandwidths_;
  Matrix scaled_centers_;  ///< u_kd / h_d: the weights are Gaussian kernels of width 1 on x / h
};

}  // namespace cdens
