#include "conditional/lscde_gate.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/types.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/gate_coefficients.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {

LscdeGate::LscdeGate(Matrix centers_x, Vector alpha, double sigma)
    : centers_x_(std::move(centers_x)), alpha_(std::move(alpha)), sigma_(sigma) {
  if (centers_x_.cols() != alpha_.size() || alpha_.size() == 0) {
    throw InvalidArgument("LSCDE gate: centres and coefficients disagree in number");
  }
  require_gate_coefficients(centers_x_, alpha_, sigma_, "LSCDE");
}

void LscdeGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  out = log_basis_factors(x, centers_x_, sigma_).transpose();
  out.colwise() += alpha_.array().log().matrix();
}

Vector LscdeGate::log_marginal_weights() const { return alpha_.array().log(); }

nlohmann::json LscdeGate::to_json() const {
  return {{"centers_x", matrix_to_json(centers_x_)},
          {"alpha", vector_to_json(alpha_)},
          {"sigma", sigma_}};
}

std::shared_ptr<const LscdeGate> LscdeGate::from_json(const nlohmann::json& document) {
  const auto& sigma = json_member(document, "sigma");
  if (!sigma.is_number()) throw ModelFormatError("LSCDE gate: sigma is not a number");
  return reading_model_part("LSCDE gate", [&] {
    return std::make_shared<const LscdeGate>(
        matrix_from_json(json_member(document, "centers_x"), "LSCDE centres"),
        vector_from_json(json_member(document, "alpha"), "LSCDE coefficients"),
        sigma.get<double>());
  });
}

ConditionalMixture make_lscde_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const LscdeBasis& basis, const VectorView& alpha) {
  std::vector<Index> kept;
  for (Index l = 0; l < alpha.size(); ++l) {
    if (alpha(l) > 0.0) kept.push_back(l);
  }
  if (kept.empty()) {
    for (Index l = 0; l < alpha.size(); ++l) kept.push_back(l);
  }
  const auto count = static_cast<Index>(kept.size());
  Matrix centers_x(basis.centers_x.rows(), count);
  Matrix centers_y(basis.centers_y.rows(), count);
  Vector kept_alpha(count);
  for (Index c = 0; c < count; ++c) {
    centers_x.col(c) = basis.centers_x.col(kept[c]);
    centers_y.col(c) = basis.centers_y.col(kept[c]);
    kept_alpha(c) = alpha(kept[c]);
  }
  // Every coefficient zero (a heavy regulariser): the model is the marginal mixture of the
  // outputs, written as such.
  const std::shared_ptr<const ConditionalGate> gate =
      (kept_alpha.array() > 0.0).any()
          ? std::shared_ptr<const ConditionalGate>(std::make_shared<const LscdeGate>(
                std::move(centers_x), std::move(kept_alpha), basis.sigma))
          : uniform_gate(centers_x.rows(), count);
  return ConditionalMixture(
      x_scaling, y_scaling, gate,
      MixtureOutputs::gaussian(centers_y, Matrix::Constant(centers_y.rows(), count, basis.sigma)));
}

}  // namespace cdens
