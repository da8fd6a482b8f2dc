// cdens regress fit|predict, deprecated for one release: `cdens fit --method press` and `cdens
// predict --state-weights`. The group registers those verbs once more under itself; each warns,
// then does what it did before (`regress fit` still takes the LASSO weight as --lambda).

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace cdens::cli {

void add_regress_command(CLI::App& app) {
  CLI::App* regress =
      app.add_subcommand("regress", "Deprecated: cdens fit --method press, cdens predict");
  regress->require_subcommand(1);
  // Hidden from --help: the spelling of earlier releases.
  regress->group("");
  const DeprecatedGroup group{"regress", MethodFamily::regression};
  add_fit_command(*regress, group);
  add_predict_command(*regress, group);
}

}  // namespace cdens::cli
