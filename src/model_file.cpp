#include "cdens/model_file.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "conditional/input_kernels.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {
namespace {

constexpr const char* kConditionalShape = "conditional_mixture";
constexpr const char* kDensityShape = "gaussian_mixture";

}  // namespace

std::shared_ptr<const ConditionalGate> read_builtin_gate(const std::string& kind,
                                                         const nlohmann::json& parameters) {
  // The gate kinds are those the registered methods write.
  for (const MethodEntry& method : methods()) {
    for (const GateKind& gate : method.gates) {
      if (gate.kind == kind) return gate.read(parameters, read_builtin_gate);
    }
  }
  throw ModelFormatError("unknown gate kind '" + kind + "' (written by a newer cdens?)");
}

namespace {

/// Whether `document` has the field `name` at any depth.
bool has_field(const nlohmann::json& document, const std::string& name) {
  if (document.is_object()) {
    if (document.contains(name)) return true;
    for (const auto& item : document.items()) {
      if (has_field(item.value(), name)) return true;
    }
  } else if (document.is_array()) {
    for (const auto& item : document) {
      if (has_field(item, name)) return true;
    }
  }
  return false;
}

}  // namespace

int model_file_version(const nlohmann::json& model) {
  if (has_field(model, "output_atom") || has_field(model, "output_bounds")) {
    return kModelFileVersion;
  }
  return has_field(model, "row_weights") ? kLabelledModelFileVersion : kUnlabelledModelFileVersion;
}

nlohmann::json conditional_model_to_json(const ConditionalModel& model) {
  nlohmann::json parameters = model.mixture.to_json();
  nlohmann::json variables = {{"x", model.x_names}, {"y", model.y_names}};
  if (!model.labels.empty()) variables["labels"] = model.labels;
  const int version =
      std::max(model_file_version(parameters),
               model.labels.empty() ? kUnlabelledModelFileVersion : kLabelledModelFileVersion);
  return {{"format", "cdens-model"},      {"version", version},
          {"shape", kConditionalShape},   {"method", model.report.method},
          {"variables", variables},       {"model", std::move(parameters)},
          {"fit", model.report.to_json()}};
}

namespace {

/// What each shape is called in a message, and the command that works with it.
std::string shape_description(const std::string& shape) {
  if (shape == kConditionalShape) return "a conditional density model (p(y|x))";
  if (shape == kDensityShape) return "an unconditional density model";
  return "a model of shape '" + shape + "'";
}

/// The document's shape after checking it is a cdens model of a supported version; the shape
/// must be `expected` unless that is empty.
std::string checked_shape(const nlohmann::json& document, const std::string& expected) {
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
  const auto& shape_field = json_member(document, "shape");
  if (!shape_field.is_string()) throw ModelFormatError("the model file's shape is not a string");
  const auto shape = shape_field.get<std::string>();
  if (shape != kConditionalShape && shape != kDensityShape) {
    throw ModelFormatError("unknown model shape '" + shape + "' (written by a newer cdens?)");
  }
  if (!expected.empty() && shape != expected) {
    throw ModelFormatError("the model file holds " + shape_description(shape) + ", not " +
                           shape_description(expected));
  }
  return shape;
}

/// The labels of a model file's variables: an object of lists of distinct strings, each of a
/// discrete variable whose levels are codes of its labels; ModelFormatError otherwise.
std::map<std::string, ColumnLabels> read_labels(const nlohmann::json& document,
                                                const ConditionalMixture& mixture,
                                                const std::vector<std::string>& x_names,
                                                const std::vector<std::string>& y_names) {
  if (!document.is_object()) throw ModelFormatError("the variables' labels are not an object");
  std::map<std::string, ColumnLabels> labels;
  for (const auto& [name, list] : document.items()) {
    // An input's kernel is the gate's own (the gate says which inputs are discrete); an
    // output's is the mixture's.
    const auto x_found = std::find(x_names.begin(), x_names.end(), name);
    const auto y_found = std::find(y_names.begin(), y_names.end(), name);
    const ColumnKernel* kernel =
        x_found != x_names.end()
            ? discrete_input_kernel(mixture.gate(), static_cast<Index>(x_found - x_names.begin()))
        : y_found == y_names.end() || mixture.output_kernels().empty()
            ? nullptr
            : &mixture.output_kernels()[static_cast<std::size_t>(y_found - y_names.begin())];
    if (kernel == nullptr || !kernel->is_discrete()) {
      throw ModelFormatError("labels are given for '" + name +
                             "', which is no discrete variable of the model");
    }
    if (!list.is_array() || !std::all_of(list.begin(), list.end(),
                                         [](const auto& label) { return label.is_string(); })) {
      throw ModelFormatError("the labels of '" + name + "' are not a list of strings");
    }
    ColumnLabels column = list.get<ColumnLabels>();
    ColumnLabels sorted = column;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw ModelFormatError("the labels of '" + name + "' repeat one");
    }
    // Level k is the code of label k: every level needs its label, and an unordered variable's
    // labels are its levels (an ordered one's may name a stated label the data did not hold).
    const std::string variable =
        std::string(x_found != x_names.end() ? "input" : "output") + " '" + name + "'";
    const auto codes = static_cast<double>(column.size());
    const std::vector<double>& levels = kernel->levels();
    if (std::any_of(levels.begin(), levels.end(), [&](double level) {
          return level < 0.0 || level >= codes || level != std::floor(level);
        })) {
      throw ModelFormatError("the labels of " + variable + " (" + std::to_string(column.size()) +
                             ") do not name every one of its " + std::to_string(levels.size()) +
                             " levels");
    }
    if (kernel->kind() == ColumnKind::unordered && column.size() != levels.size()) {
      throw ModelFormatError("the unordered " + variable + " has " + std::to_string(levels.size()) +
                             " levels but " + std::to_string(column.size()) + " labels");
    }
    labels[name] = std::move(column);
  }
  return labels;
}

ConditionalModel read_conditional_model(const nlohmann::json& document) {
  checked_shape(document, kConditionalShape);
  ConditionalMixture mixture =
      ConditionalMixture::from_json(json_member(document, "model"), read_builtin_gate);
  const auto& variables = json_member(document, "variables");
  auto x_names = json_member(variables, "x").get<std::vector<std::string>>();
  auto y_names = json_member(variables, "y").get<std::vector<std::string>>();
  if (static_cast<Index>(x_names.size()) != mixture.input_dim() ||
      static_cast<Index>(y_names.size()) != mixture.output_dim()) {
    throw ModelFormatError("the variable names do not match the model's dimensions");
  }
  std::map<std::string, ColumnLabels> labels;
  if (variables.contains("labels"))
    labels = read_labels(variables["labels"], mixture, x_names, y_names);
  return {std::move(mixture), std::move(x_names), std::move(y_names),
          FitReport::from_json(json_member(document, "fit")), std::move(labels)};
}

DensityModel read_density_model(const nlohmann::json& document) {
  checked_shape(document, kDensityShape);
  GaussianMixture mixture = GaussianMixture::from_json(json_member(document, "model"));
  auto names = json_member(json_member(document, "variables"), "x").get<std::vector<std::string>>();
  if (static_cast<Index>(names.size()) != mixture.dimension()) {
    throw ModelFormatError("the variable names do not match the model's dimension");
  }
  return {std::move(mixture), std::move(names), FitReport::from_json(json_member(document, "fit"))};
}

}  // namespace

ConditionalModel conditional_model_from_json(const nlohmann::json& document) {
  return reading_json("malformed model file", [&] { return read_conditional_model(document); });
}

std::string model_file_shape(const nlohmann::json& document) {
  return reading_json("malformed model file", [&] { return checked_shape(document, ""); });
}

nlohmann::json density_model_to_json(const DensityModel& model) {
  nlohmann::json parameters = model.mixture.to_json();
  const int version = model_file_version(parameters);
  return {{"format", "cdens-model"},
          {"version", version},
          {"shape", kDensityShape},
          {"method", model.report.method},
          {"variables", {{"x", model.names}}},
          {"model", std::move(parameters)},
          {"fit", model.report.to_json()}};
}

DensityModel density_model_from_json(const nlohmann::json& document) {
  return reading_json("malformed model file", [&] { return read_density_model(document); });
}

void save_density_model(const DensityModel& model, const std::string& path) {
  write_model_document(path, density_model_to_json(model));
}

DensityModel load_density_model(const std::string& path) {
  return density_model_from_json(read_model_document(path));
}

void save_conditional_model(const ConditionalModel& model, const std::string& path) {
  write_model_document(path, conditional_model_to_json(model));
}

void save_conditional_model_of_ranks(const ConditionalModel& model, const std::string& path,
                                     const Communicator& communicator, Index binary_from) {
  if (!model.report.rows_of_this_rank) {
    agree_on_errors(communicator, [&] {
      if (communicator.rank() == 0) {
        write_model_document(path, conditional_model_to_json(model), binary_from);
      }
    });
    return;
  }
  // A model of a kernel gate over the pairs (KCDE's): the gate's inputs, the components' outputs
  // and widths have a column per pair; everything else is the same on every rank.
  const ConditionalMixture& mixture = model.mixture;
  const auto* gate = dynamic_cast<const ProductKernelGate*>(&mixture.gate());
  agree_on_errors(communicator, [&] {
    if (gate == nullptr || gate->row_weights().size() > 0 || mixture.trend_groups().size() != 1) {
      throw InvalidArgument(
          "a model of the ranks' own pairs is a kernel gate over them without row weights");
    }
  });
  // The document of the model of the rank's first pair, whose columns the writer replaces by
  // every rank's: the rows never become JSON.
  ConditionalMixture first_mixture(
      mixture.x_scaling(), mixture.y_scaling(),
      std::make_shared<const ProductKernelGate>(gate->centers_x().leftCols(1), gate->bandwidths(),
                                                gate->kernels(), gate->marginal_weight()),
      MixtureOutputs::gaussian(mixture.centers().leftCols(1), mixture.scales().leftCols(1))
          .with_groups(mixture.trend_groups())
          .with_output_kernels(mixture.output_kernels()));
  // The range of every rank's inputs, as the model of one process keeps it.
  if (mixture.input_range()) first_mixture = first_mixture.with_input_range(*mixture.input_range());
  const ConditionalModel first_pair{std::move(first_mixture), model.x_names, model.y_names,
                                    model.report, model.labels};
  using Pointer = nlohmann::json::json_pointer;
  write_model_document_of_ranks(path, conditional_model_to_json(first_pair),
                                {{Pointer("/model/gate/centers_x"), gate->centers_x()},
                                 {Pointer("/model/centers"), mixture.centers()},
                                 {Pointer("/model/scales"), mixture.scales()}},
                                communicator, binary_from);
}

ConditionalModel load_conditional_model(const std::string& path) {
  return conditional_model_from_json(read_model_document(path));
}

}  // namespace cdens
