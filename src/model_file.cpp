#include "cdens/model_file.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "cdens/conditional/kernel_gates.hpp"
#include "cdens/conditional/lscde_gate.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"

namespace cdens {

std::shared_ptr<const ConditionalGate> read_builtin_gate(const std::string& kind,
                                                         const nlohmann::json& parameters) {
  if (kind == "lscde") return LscdeGate::from_json(parameters);
  if (kind == "epsilon_ball") return EpsilonBallGate::from_json(parameters);
  if (kind == "gaussian_kernel") return GaussianKernelGate::from_json(parameters);
  throw ModelFormatError("unknown gate kind '" + kind + "' (written by a newer cdens?)");
}

nlohmann::json conditional_model_to_json(const ConditionalModel& model) {
  return {{"format", "cdens-model"},
          {"version", kModelFileVersion},
          {"shape", "conditional_mixture"},
          {"method", model.report.method},
          {"variables", {{"x", model.x_names}, {"y", model.y_names}}},
          {"model", model.mixture.to_json()},
          {"fit", model.report.to_json()}};
}

namespace {

ConditionalModel read_conditional_model(const nlohmann::json& document) {
  if (!document.is_object() || !document.contains("format") ||
      document["format"] != "cdens-model") {
    throw ModelFormatError("not a cdens model file");
  }
  const auto& version = json_member(document, "version");
  if (!version.is_number_integer() || version.get<std::int64_t>() < 1 ||
      version.get<std::int64_t>() > kModelFileVersion) {
    throw ModelFormatError("model file version " + version.dump() +
                           " is not supported (this cdens reads up to " +
                           std::to_string(kModelFileVersion) + ")");
  }
  if (json_member(document, "shape") != "conditional_mixture") {
    throw ModelFormatError("the model file holds a " + json_member(document, "shape").dump() +
                           ", not a conditional density model");
  }
  ConditionalMixture mixture =
      ConditionalMixture::from_json(json_member(document, "model"), read_builtin_gate);
  const auto& variables = json_member(document, "variables");
  auto x_names = json_member(variables, "x").get<std::vector<std::string>>();
  auto y_names = json_member(variables, "y").get<std::vector<std::string>>();
  if (static_cast<Index>(x_names.size()) != mixture.input_dim() ||
      static_cast<Index>(y_names.size()) != mixture.output_dim()) {
    throw ModelFormatError("the variable names do not match the model's dimensions");
  }
  return {std::move(mixture), std::move(x_names), std::move(y_names),
          FitReport::from_json(json_member(document, "fit"))};
}

}  // namespace

ConditionalModel conditional_model_from_json(const nlohmann::json& document) {
  try {
    return read_conditional_model(document);
  } catch (const nlohmann::json::exception& error) {
    // A field of the wrong type or a number out of range: the file is not a valid model.
    throw ModelFormatError(std::string("malformed model file: ") + error.what());
  }
}

void save_conditional_model(const ConditionalModel& model, const std::string& path) {
  write_file_atomically(path, conditional_model_to_json(model).dump(1) + "\n");
}

ConditionalModel load_conditional_model(const std::string& path) {
  return conditional_model_from_json(read_json_file(path));
}

}  // namespace cdens
