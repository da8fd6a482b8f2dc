#pragma once
// Model files: a versioned JSON document holding a fitted model, the names of its variables and
// the fit report. Written atomically; predictions of a loaded model equal the saved model's
// bit for bit (doubles are stored in round-trip form).
//
//   {"format": "cdens-model", "version": 1, "shape": "conditional_mixture", "method": "lscde",
//    "variables": {"x": [...], "y": [...]}, "model": {...}, "fit": {...}}
//
// A model with labelled discrete columns (words such as "M", "F", "I" coded 0, 1, 2 for the
// fit) adds them to its variables, {"labels": {"sex": ["F", "I", "M"]}}, and is version 2, so
// that a cdens that cannot name the levels refuses the file instead of answering in codes.
//
// or, for an unconditional density (docs/design.md's second shape),
//
//   {"format": "cdens-model", "version": 1, "shape": "gaussian_mixture", "method": "gmm",
//    "variables": {"x": [...]}, "model": {...}, "fit": {...}}

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"

namespace cdens {

/// Current version of the model file format; files of a newer version are refused. Version 2
/// added the labels of discrete variables ("variables": {"labels": …}) and the row weights of a
/// kernel gate fitted with sample weights ("row_weights"); version 3 the atom of an output
/// ("output_atom", conditional_mixture.hpp) and the bounds of the output ("output_bounds"), which
/// a reader that does not know them would drop (and answer without the atom, or outside the
/// bounds). A file is written in the lowest version that holds what it has (without any of these,
/// version 1, which every release reads), so that earlier releases read what they can read right.
/// The range of the inputs ("input_range") needs no version: a reader that ignores it only gives
/// no warning of extrapolation.
inline constexpr int kModelFileVersion = 3;
/// The version of a file without labels or row weights, which earlier readers read as well.
inline constexpr int kUnlabelledModelFileVersion = 1;
/// The version of a file with labels or row weights but without an atom or output bounds.
inline constexpr int kLabelledModelFileVersion = 2;

/// The labels of a discrete column's codes: labels[k] is the name of code k.
using ColumnLabels = std::vector<std::string>;

/// The version a model's document ("model" of the file) needs: the lowest that holds every field
/// it has (labels aside, which are among the variables).
int model_file_version(const nlohmann::json& model);

/// A fitted conditional density model with the names of its variables.
struct ConditionalModel {
  ConditionalMixture mixture;
  std::vector<std::string> x_names;
  std::vector<std::string> y_names;
  FitReport report;
  /// The labels of the variables (by name) whose values were words, coded 0, 1, … for the fit.
  std::map<std::string, ColumnLabels> labels;
};

/// A fitted unconditional density model with the names of its variables.
struct DensityModel {
  GaussianMixture mixture;
  std::vector<std::string> names;
  FitReport report;
};

/// The model of a fit (a ConditionalFit, LsceFit, PressFit: a `model` and its `report`),
/// without variable names yet.
template <class Fit>
ConditionalModel unnamed_model(Fit fit) {
  return {std::move(fit.model), {}, {}, std::move(fit.report), {}};
}

/// The density model of a DensityFit, without variable names yet.
template <class Fit>
DensityModel unnamed_density_model(Fit fit) {
  return {std::move(fit.model), {}, std::move(fit.report)};
}

/// Reads any gate this version of cdens can fit; ModelFormatError for an unknown kind.
std::shared_ptr<const ConditionalGate> read_builtin_gate(const std::string& kind,
                                                         const nlohmann::json& parameters);

nlohmann::json conditional_model_to_json(const ConditionalModel& model);
ConditionalModel conditional_model_from_json(const nlohmann::json& document);

/// Writes the model file atomically (temporary file, then rename).
void save_conditional_model(const ConditionalModel& model, const std::string& path);
/// A collective call: writes on rank 0 the file of the model every rank holds a part of — a
/// model that keeps its training pairs, each rank its own (FitReport::rows_of_this_rank), written
/// as the model of every rank's pairs in rank order without gathering them (json_io.hpp,
/// write_model_document_of_ranks) — or rank 0's model when each rank holds the whole. IoError on
/// every rank when rank 0 cannot write. `binary_from`: as for write_model_document
/// (kBinaryModelFileNumbers of json_io.hpp, or 0 for the binary encoding whatever the size).
void save_conditional_model_of_ranks(const ConditionalModel& model, const std::string& path,
                                     const Communicator& communicator, Index binary_from);
/// Reads a model file; IoError or ModelFormatError with the reason.
ConditionalModel load_conditional_model(const std::string& path);

nlohmann::json density_model_to_json(const DensityModel& model);
DensityModel density_model_from_json(const nlohmann::json& document);

/// Writes the density model file atomically (temporary file, then rename).
void save_density_model(const DensityModel& model, const std::string& path);
/// Reads a density model file; IoError or ModelFormatError with the reason (a conditional
/// model file is refused with a message saying so).
DensityModel load_density_model(const std::string& path);

/// The "shape" of a model file's document: "conditional_mixture" or "gaussian_mixture";
/// ModelFormatError if it is not a cdens model of a supported version.
std::string model_file_shape(const nlohmann::json& document);

}  // namespace cdens
