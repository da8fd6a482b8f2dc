#include "model_kinds.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "cdens/core/types.hpp"
#include "io/text.hpp"

namespace cdens::cli {
namespace {

/// A command that reads a model file and the kinds of model it answers for.
struct VerbKinds {
  std::string verb;
  std::vector<MethodFamily> kinds;
};

const std::vector<VerbKinds>& verbs_by_kind() {
  using F = MethodFamily;
  static const std::vector<VerbKinds> verbs = {
      {"score", {F::conditional, F::density, F::regression}},
      {"evaluate", {F::conditional, F::density, F::regression}},
      {"compare", {F::conditional, F::density, F::regression}},
      {"predict", {F::conditional, F::regression}},
      {"grid", {F::conditional, F::density, F::regression}},
      {"sample", {F::conditional, F::density, F::regression}},
      {"info", {F::conditional, F::density, F::regression}},
      {"features", {F::conditional}},
  };
  return verbs;
}

bool serves(const std::vector<MethodFamily>& families, MethodFamily family) {
  return std::find(families.begin(), families.end(), family) != families.end();
}

}  // namespace

std::string describe_kind(MethodFamily kind) {
  switch (kind) {
    case MethodFamily::conditional:
      return "a conditional density model p(y|x)";
    case MethodFamily::density:
      return "a density model p(x)";
    case MethodFamily::regression:
      return "a PRESS regression model";
  }
  return "a model";
}

std::string model_subject(const ModelFile& model) {
  return model.path + ", " + describe_kind(model.kind);
}

ModelFile load_model_for(const std::string& verb, const std::string& path,
                         const std::vector<FamilyOption>& options) {
  ModelFile model = load_model_file(path);
  std::vector<std::string> applicable;
  bool applies = false;
  for (const VerbKinds& entry : verbs_by_kind()) {
    if (!serves(entry.kinds, model.kind)) continue;
    applicable.push_back(entry.verb);
    applies = applies || entry.verb == verb;
  }
  if (!applies) {
    throw InvalidArgument("'cdens " + verb + "' does not apply to " + model_subject(model) +
                          " fitted by " + model.method() +
                          " (its commands: " + join(applicable, ", ") + ")");
  }
  refuse_options_of_other_families(options, model.kind, model_subject(model));
  return model;
}

void refuse_options_of_other_families(const std::vector<FamilyOption>& options, MethodFamily family,
                                      const std::string& subject) {
  for (const FamilyOption& entry : options) {
    if (entry.option->count() > 0 && !serves(entry.families, family)) {
      throw InvalidArgument("option " + entry.option->get_name() + " does not apply to " + subject);
    }
  }
}

}  // namespace cdens::cli
