#pragma once
// The part of a conditional mixture that each estimator supplies: the unnormalised weights
// w_k(x) ≥ 0 of the components (docs/design.md, "Two fitted shapes"). Everything else — densities,
// sampling, moments, quantiles, scores — is written once in ConditionalMixture.

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// A gate whose weights are Gaussian kernels with one width per input dimension, possibly mixed
/// with its marginal weights:
///
///   w̃_k(x) = (1 − ε) c_k K(x, u_k) / Σ_l c_l K(x, u_l) + ε c_k / Σ_l c_l,
///   K(x, u_k) = exp(−½ Σ_d (x_d − u_kd)² / h_d²),
///
/// with row weights c_k (1 when `row_weights` is null) — NW-CDE and RKDE (one h, ε = 0) and KCDE
/// with continuous inputs. Its centres u_k are d_x × K, standardised. With a broad weight δ > 0
/// the gate has one more component, the last, of constant weight δ, and the kernel weights above
/// take 1 − δ (KCDE around its Gaussian-process trend, broad_component_gate.hpp).
struct GaussianKernelCenters {
  const Matrix* centers = nullptr;
  Vector inverse_widths;                ///< 1 / h_d
  const Vector* row_weights = nullptr;  ///< c_k, or null
  double marginal_weight = 0.0;         ///< ε
  double broad_weight = 0.0;            ///< δ
};

class ConditionalGate;
/// A member of a linear pool of gates: its gate, its weight a_c and, where the members
/// standardise x otherwise than each other, its own input standardisation, which its gate takes
/// the pool's inputs through (the pool's standardisation is then the identity: the raw inputs).
struct PooledMember {
  std::shared_ptr<const ConditionalGate> gate;
  double weight = 0.0;
  std::optional<Standardizer> input_scaling = std::nullopt;
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

  /// Whether every w_k(x) can be exactly zero at a finite input (an ε-ball that holds no
  /// centre): the mixture then answers with its marginal fallback, and a query of such a gate is
  /// checked for it (ConditionalMixture::extrapolated_rows). False by default: weights kept in
  /// log space — Gaussian kernels, positive coefficients — never all vanish.
  virtual bool weights_can_all_vanish() const { return false; }

  /// For a Gaussian-kernel gate, its centres, widths and mixing: queries of a mixture whose
  /// components share their widths then sum the kernels with the kernel-sum engine. Nothing
  /// otherwise.
  virtual std::optional<GaussianKernelCenters> gaussian_kernel() const { return std::nullopt; }

  /// For a linear pool of gates over consecutive components (component k of member c weighs
  /// a_c π_ck(x)), its members in order: the mixture then answers a query member by member, each
  /// by its own fastest path. Empty otherwise.
  virtual std::vector<PooledMember> pooled_members() const { return {}; }
};

/// Rebuilds a gate from its kind and parameters; throws ModelFormatError for an unknown kind.
using GateReader = std::function<std::shared_ptr<const ConditionalGate>(const std::string&,
                                                                        const nlohmann::json&)>;

}  // namespace cdens
