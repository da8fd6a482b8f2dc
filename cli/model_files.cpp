#include "model_files.hpp"

#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"

namespace cdens::cli {
namespace {

/// The family of the method that fitted a conditional mixture: PRESS's models are regressions.
/// A method the registry does not know (a file of an earlier name) reads as conditional.
MethodFamily family_of_conditional(const ConditionalModel& model) {
  const MethodEntry* method = method_named(model.report.method);
  return method != nullptr && method->family == MethodFamily::regression
             ? MethodFamily::regression
             : MethodFamily::conditional;
}

}  // namespace

const std::string& ModelFile::method() const {
  return conditional ? conditional->report.method : density->report.method;
}

ModelFile load_model_file(const std::string& path) {
  const nlohmann::json document = read_model_document(path);
  try {
    ModelFile file;
    file.path = path;
    if (model_file_shape(document) == model_shape(MethodFamily::density)) {
      file.kind = MethodFamily::density;
      file.density = density_model_from_json(document);
    } else {
      file.conditional = conditional_model_from_json(document);
      file.kind = family_of_conditional(*file.conditional);
    }
    // The readers have checked that the version is a supported integer.
    file.format_version = document.at("version").get<int>();
    return file;
  } catch (const Error& error) {
    // A format error, or a value the model's parts refuse (a zero scale, coefficients that are
    // all zero): either way the file is what the user must look at.
    throw ModelFormatError(path + ": " + error.what());
  } catch (const nlohmann::json::exception& error) {
    // A field of the wrong JSON type that the library's reader did not check itself.
    throw ModelFormatError(path + ": " + error.what());
  }
}

}  // namespace cdens::cli
