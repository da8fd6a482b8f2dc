#pragma once
// What applies to each kind of model (the registry's families): the verbs that query it and the
// options of a command that serve it. A verb or an option given for a kind it does not serve is
// refused with a message naming the kind and what does apply.

#include <string>
#include <vector>

#include "cdens/methods/registry.hpp"
#include "model_files.hpp"

namespace CLI {
class Option;
}  // namespace CLI

namespace cdens::cli {

/// "a density model p(x)", "a conditional density model p(y|x)", "a PRESS regression model".
std::string describe_kind(MethodFamily kind);

/// "FILE, a density model p(x)": the subject of a refused option.
std::string model_subject(const ModelFile& model);

/// An option of a command that serves the models (or methods) of some families only.
struct FamilyOption {
  const CLI::Option* option;
  std::vector<MethodFamily> families;
};

/// InvalidArgument for the first of `options` given on the command line that does not serve
/// `family`: "option --grid does not apply to SUBJECT".
void refuse_options_of_other_families(const std::vector<FamilyOption>& options, MethodFamily family,
                                      const std::string& subject);

/// The model file at `path` for `verb` (a command that reads one): InvalidArgument unless the
/// verb applies to the model's kind (naming the file, its kind and the verbs that apply to it)
/// and none of `options` that does not serve that kind was given.
ModelFile load_model_for(const std::string& verb, const std::string& path,
                         const std::vector<FamilyOption>& options = {});

}  // namespace cdens::cli
