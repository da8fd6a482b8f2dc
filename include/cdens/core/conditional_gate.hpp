#pragma once
// The part of a conditional mixture that each estimator supplies: the unnormalised weights
// w_k(x) ≥ 0 of the components (DESIGN.md, "one idea"). Everything else — densities, sampling,
// moments, quantiles, scores — is written once in ConditionalMixture.

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// The centres u_k (d_x × K, standardised) and width σ of a gate whose log-weights are
/// −‖x − u_k‖² / 2σ², a Gaussian kernel (NW-CDE, RKDE).
struct GaussianKernelCenters {
  const Matrix* centers = nullptr;
  double sigma = 0.0;
};

class ConditionalGate {
 public:
  virtual ~ConditionalGate() = default;

  /// Name stored in model files and used to read the gate back ("lscde", …).
  virtual std::string kind() const = 0;
  /// Dimension of the (standardised) input x.
  virtual Index input_dim() const = 0;
  /// Number of mixture components K.
  virtual Index n_components() const = 0;

  /// log w_k(x_j) for standardised inputs x (d_x × m) into `out` (K × m); a zero weight is −∞.
  /// Working in log space keeps weights of far-away inputs from underflowing.
  virtual void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const = 0;

  /// log of x-independent weights (any scale) used where every w_k(x) is exactly zero: the
  /// mixture then falls back to this marginal mixture of its components.
  virtual Vector log_marginal_weights() const = 0;

  /// The gate's parameters for the model file; `kind()` is stored beside them.
  virtual nlohmann::json to_json() const = 0;

  /// The inputs (rows of x) whose kernels work on the recorded values themselves (discrete
  /// levels): the mixture must pass them to the gate unstandardised. None by default.
  virtual std::vector<Index> discrete_inputs() const { return {}; }

  /// For a Gaussian-kernel gate, its centres and width: queries of a mixture whose components
  /// share their widths then sum the kernels with the kernel-sum engine. Nothing otherwise.
  virtual std::optional<GaussianKernelCenters> gaussian_kernel() const { return std::nullopt; }
};

/// Rebuilds a gate from its kind and parameters; throws ModelFormatError for an unknown kind.
using GateReader = std::function<std::shared_ptr<const ConditionalGate>(const std::string&,
                                                                        const nlohmann::json&)>;

}  // namespace cdens
