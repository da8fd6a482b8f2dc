#include "conditional/projected_gate.hpp"

#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "conditional/selected_features_gate.hpp"
#include "core/validate.hpp"
#include "io/json_io.hpp"

namespace cdens {

ProjectedGate::ProjectedGate(Matrix projection, Standardizer z_scaling,
                             std::shared_ptr<const ConditionalGate> inner)
    : projection_(std::move(projection)),
      z_scaling_(std::move(z_scaling)),
      inner_(std::move(inner)) {
  if (!inner_) throw InvalidArgument("projected gate without an inner gate");
  if (projection_.rows() != inner_->input_dim() || z_scaling_.dimension() != projection_.rows() ||
      projection_.cols() == 0) {
    throw InvalidArgument(
        "projected gate: projection, z standardisation and inner gate disagree in shape");
  }
  require_finite(projection_, "projection");
}

void ProjectedGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  inner_->log_weights(z_scaling_.transform(projection_ * x), out);
}

nlohmann::json ProjectedGate::to_json() const {
  nlohmann::json inner = inner_->to_json();
  inner["kind"] = inner_->kind();
  return {{"projection", matrix_to_json(projection_)},
          {"z_scaling", z_scaling_.to_json()},
          {"inner", inner}};
}

std::shared_ptr<const ProjectedGate> ProjectedGate::from_json(const nlohmann::json& document,
                                                              const GateReader& read_gate) {
  const auto& inner = json_member(document, "inner");
  const auto& kind = json_member(inner, "kind");
  if (!kind.is_string()) throw ModelFormatError("the inner gate's kind is not a string");
  return std::make_shared<const ProjectedGate>(
      matrix_from_json(json_member(document, "projection"), "projection"),
      Standardizer::from_json(json_member(document, "z_scaling")),
      read_gate(kind.get<std::string>(), inner));
}

ConditionalMixture project_inputs(const Standardizer& x_scaling, const Matrix& w,
                                  const ConditionalMixture& on_z) {
  if (w.cols() != x_scaling.dimension() || w.rows() != on_z.input_dim()) {
    throw InvalidArgument("the projection does not map the inputs onto the model's inputs");
  }
  auto gate = std::make_shared<const ProjectedGate>(w, on_z.x_scaling(), on_z.shared_gate());
  return ConditionalMixture(x_scaling, on_z.y_scaling(), std::move(gate),
                            MixtureOutputs::gaussian(on_z.centers(), on_z.scales()));
}

Matrix input_projection(const ConditionalMixture& model) {
  const ConditionalGate* gate = &model.gate();
  const auto* selected = dynamic_cast<const SelectedFeaturesGate*>(gate);
  if (selected != nullptr) gate = &selected->inner();
  const auto* projected = dynamic_cast<const ProjectedGate*>(gate);
  if (projected == nullptr) return Matrix(0, model.input_dim());
  if (selected == nullptr) return projected->projection();
  Matrix on_all = Matrix::Zero(projected->projection().rows(), model.input_dim());
  on_all(Eigen::all, selected->features()) = projected->projection();
  return on_all;
}

}  // namespace cdens
