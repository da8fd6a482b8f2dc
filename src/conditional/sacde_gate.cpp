#include "conditional/sacde_gate.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/types.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/gate_coefficients.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {

SaCdeGate::SaCdeGate(Matrix centers_x, Matrix alpha, double sigma)
    : centers_x_(std::move(centers_x)), alpha_(std::move(alpha)), sigma_(sigma) {
  if (centers_x_.rows() != alpha_.rows() || centers_x_.cols() != alpha_.cols() ||
      alpha_.size() == 0) {
    throw InvalidArgument("SA-CDE gate: centres and coefficients disagree in shape");
  }
  require_gate_coefficients(centers_x_, alpha_, sigma_, "SA-CDE");
}

void SaCdeGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  const double scale = -0.5 / (sigma_ * sigma_);
  for (Index b = 0; b < centers_x_.cols(); ++b) {
    // Only the features with α_{d,b} > 0 contribute (most are zero in a sparse model).
    std::vector<Index> features;
    for (Index d = 0; d < alpha_.rows(); ++d) {
      if (alpha_(d, b) > 0.0) features.push_back(d);
    }
    if (features.empty()) {
      out.row(b).setConstant(-INFINITY);
      continue;
    }
    // log α_{d,b} − (x_d − μ_{d,b})²/2σ² for the contributing d (rows) and every input, then
    // log-sum-exp down each column around its largest term.
    const Eigen::ArrayXd log_alpha = alpha_(features, b).array().log();
    const Eigen::ArrayXXd terms =
        ((x(features, Eigen::all).colwise() - centers_x_(features, b)).array().square() * scale)
            .colwise() +
        log_alpha;
    const Eigen::ArrayXd largest = terms.colwise().maxCoeff().transpose();
    out.row(b) =
        (largest + (terms.rowwise() - largest.transpose()).exp().colwise().sum().transpose().log())
            .transpose();
  }
}

Vector SaCdeGate::log_marginal_weights() const {
  // Some total is positive: the constructor refuses coefficients that are all zero.
  return alpha_.colwise().sum().transpose().array().log();
}

nlohmann::json SaCdeGate::to_json() const {
  return {{"centers_x", matrix_to_json(centers_x_)},
          {"alpha", matrix_to_json(alpha_)},
          {"sigma", sigma_}};
}

std::shared_ptr<const SaCdeGate> SaCdeGate::from_json(const nlohmann::json& document) {
  const auto& sigma = json_member(document, "sigma");
  if (!sigma.is_number()) throw ModelFormatError("SA-CDE gate: sigma is not a number");
  return reading_model_part("", [&] {
    return std::make_shared<const SaCdeGate>(
        matrix_from_json(json_member(document, "centers_x"), "SA-CDE centres"),
        matrix_from_json(json_member(document, "alpha"), "SA-CDE coefficients"),
        sigma.get<double>());
  });
}

ConditionalMixture make_sacde_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const SaCdeBasis& basis, const VectorView& alpha) {
  const Index features = basis.n_features();
  const Index size = basis.size();
  if (alpha.size() != features * size) {
    throw InvalidArgument("SA-CDE: the coefficients do not match the basis");
  }
  const Eigen::Map<const Matrix> stacked(alpha.data(), size, features);  // column d = α_d
  std::vector<Index> kept;
  for (Index b = 0; b < size; ++b) {
    if ((stacked.row(b).array() > 0.0).any()) kept.push_back(b);
  }
  if (kept.empty()) {
    for (Index b = 0; b < size; ++b) kept.push_back(b);
  }
  Matrix kept_alpha = stacked(kept, Eigen::all).transpose();  // D × K
  Matrix centers_x = basis.centers_x(Eigen::all, kept);
  Matrix centers_y = basis.centers_y(Eigen::all, kept);
  const auto count = static_cast<Index>(kept.size());
  const std::shared_ptr<const ConditionalGate> gate =
      (kept_alpha.array() > 0.0).any()
          ? std::shared_ptr<const ConditionalGate>(std::make_shared<const SaCdeGate>(
                std::move(centers_x), std::move(kept_alpha), basis.sigma))
          : uniform_gate(x_scaling.dimension(), count);
  return ConditionalMixture(
      x_scaling, y_scaling, gate,
      MixtureOutputs::gaussian(centers_y, Matrix::Constant(centers_y.rows(), count, basis.sigma)));
}

}  // namespace cdens
