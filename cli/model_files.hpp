#pragma once
// Reading a model file of any kind. The kind is the family of the method that fitted it, as the
// registry knows it: a density p(x) (a Gaussian mixture), a conditional density p(y|x) or a PRESS
// regression (both conditional mixtures); the commands that query models dispatch on it.

#include <optional>
#include <string>

#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"

namespace cdens::cli {

/// A model file's content, its kind and the format version it was written in.
struct ModelFile {
  std::string path;
  MethodFamily kind = MethodFamily::conditional;
  int format_version = 0;
  std::optional<ConditionalModel> conditional;  ///< kinds conditional and regression
  std::optional<DensityModel> density;          ///< kind density

  /// The method that fitted the model (the file's "method").
  const std::string& method() const;
};

/// Reads and checks a model file: IoError, or ModelFormatError naming the file for anything that
/// is not a model this version of cdens can read.
ModelFile load_model_file(const std::string& path);

}  // namespace cdens::cli
