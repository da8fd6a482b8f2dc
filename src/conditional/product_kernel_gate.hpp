#pragma once
// The gate of the product-kernel CDE (docs/methods/kcde.md): Gaussian kernel weights with one
// bandwidth per input dimension,
//
//   w_k(x) = exp(−½ Σ_d (x_d − u_kd)² / h_d²),
//
// over the stored (standardised) training inputs u_k. A discrete input d (column_kernel.hpp)
// contributes its kernel instead, w_k(x) = exp(−½ Σ_{d continuous} …) · Π_{d discrete}
// L_d(x_d, u_kd; λ_d), on its raw values. Where every weight underflows the mixture takes each
// component's weight relative to the largest (log space), and where all are exactly zero it
// falls back to equal weights.
//
// With a marginal weight ε > 0 (marginal_mixing.hpp) the normalised weights are mixed with equal
// ones: w̃_k(x) = (1 − ε) w_k(x) / Σ_l w_l(x) + ε / K.
//
// A fit with sample weights c_k (sample_weights.hpp) keeps them as row weights: every kernel
// weight is c_k w_k(x), and the marginal (equal) weights become c_k / Σc.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/conditional_gate.hpp"

namespace cdens {

class ProductKernelGate final : public ConditionalGate {
 public:
  /// `centers_x` holds the training inputs u_k (d_x × K, K ≥ 1, finite); `bandwidths` h (d_x)
  /// are finite and positive, λ_d of a discrete input (`kernels`, empty: all continuous) within
  /// its interval, and its centres are its levels; `marginal_weight` ε lies in [0, 1];
  /// `row_weights` c_k are K finite positive numbers, or empty (every c_k = 1). InvalidArgument
  /// otherwise.
  ProductKernelGate(Matrix centers_x, Vector bandwidths, ColumnKernels kernels = {},
                    double marginal_weight = 0.0, Vector row_weights = {});

  std::string kind() const override { return "product_kernel"; }
  Index input_dim() const override { return centers_x_.rows(); }
  Index n_components() const override { return centers_x_.cols(); }
  /// −½ Σ_d (x_d − u_kd)² / h_d² over continuous inputs, plus Σ_d log L_d(x_d, u_kd; λ_d) over
  /// discrete ones; with ε > 0, the logs of the mixed normalised weights w̃_k(x).
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// Equal weights (log c_k with row weights): the fallback is the kernel density estimate of y.
  Vector log_marginal_weights() const override;
  std::vector<Index> discrete_inputs() const override;
  /// The kernels, widths, row weights and ε when every input is continuous; nothing otherwise.
  std::optional<GaussianKernelCenters> gaussian_kernel() const override;
  /// {"centers_x": u (d_x × K), "bandwidths": h (λ for a discrete input)} and, when an input is
  /// discrete, "input_kernels" (ColumnKernel::to_json of each input); "marginal_weight" when
  /// ε > 0 (files without it have ε = 0); "row_weights" c when given (model file version 2).
  nlohmann::json to_json() const override;
  /// The gate written by to_json(); ModelFormatError if a field is missing or malformed.
  static std::shared_ptr<const ProductKernelGate> from_json(const nlohmann::json& document);

  const Matrix& centers_x() const { return centers_x_; }
  /// h, one per input dimension (standardised units), λ for a discrete one.
  const Vector& bandwidths() const { return bandwidths_; }
  /// The kernel of every input.
  const ColumnKernels& kernels() const { return kernels_; }
  /// ε, the weight of the equal weights in the mixed ones.
  double marginal_weight() const { return marginal_weight_; }
  /// c_k, or empty.
  const Vector& row_weights() const { return row_weights_; }

 private:
  /// Replaces the log kernel weights in `out` by the logs of the mixed normalised ones.
  void mix_with_marginal_weights(Eigen::Ref<Matrix> out) const;

  Matrix centers_x_;
  Vector bandwidths_;
  ColumnKernels kernels_;
  double marginal_weight_;
  Vector row_weights_;
  Vector log_row_weights_;
  std::vector<Index> continuous_rows_;
  /// u_kd / h_d of the continuous inputs: their weights are Gaussian kernels of width 1 on x / h.
  Matrix scaled_centers_;
  /// Per discrete input (the others empty): the level index of every centre.
  std::vector<std::vector<Index>> center_levels_;
};

}  // namespace cdens
