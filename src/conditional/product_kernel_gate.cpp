#include "cdens/conditional/product_kernel_gate.hpp"

#include <nlohmann/json.hpp>

#include "cdens/core/error.hpp"
#include "cdens/core/gaussian_kernel.hpp"
#include "cdens/core/json_io.hpp"

namespace cdens {

ProductKernelGate::ProductKernelGate(Matrix centers_x, Vector bandwidths)
    : centers_x_(std::move(centers_x)), bandwidths_(std::move(bandwidths)) {
  if (centers_x_.cols() == 0 || centers_x_.rows() == 0) {
    throw InvalidArgument("a kernel gate needs at least one centre of dimension at least 1");
  }
  if (!centers_x_.allFinite()) throw InvalidArgument("kernel gate centres must be finite");
  if (bandwidths_.size() != centers_x_.rows()) {
    throw InvalidArgument("the kernel gate needs one bandwidth per input dimension");
  }
  if (!bandwidths_.allFinite() || (bandwidths_.array() <= 0.0).any()) {
    throw InvalidArgument("kernel gate bandwidths must be finite and positive");
  }
  scaled_centers_ = bandwidths_.cwiseInverse().asDiagonal() * centers_x_;
}

void ProductKernelGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  squared_distances(scaled_centers_, bandwidths_.cwiseInverse().asDiagonal() * x, out);
  out *= -0.5;
}

Vector ProductKernelGate::log_marginal_weights() const { return Vector::Zero(n_components()); }

nlohmann::json ProductKernelGate::to_json() const {
  return {{"centers_x", matrix_to_json(centers_x_)}, {"bandwidths", vector_to_json(bandwidths_)}};
}

std::shared_ptr<const ProductKernelGate> ProductKernelGate::from_json(
    const nlohmann::json& document) {
  return std::make_shared<const ProductKernelGate>(
      matrix_from_json(json_member(document, "centers_x"), "gate centres"),
      vector_from_json(json_member(document, "bandwidths"), "gate bandwidths"));
}

}  // namespace cdens
