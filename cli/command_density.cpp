// cdens density fit|score|grid|sample|info, deprecated for one release: the verbs of `cdens`
// serve density models p(x) as well (`cdens fit --method parzen|gmm|rsde|skd|gskd`). The group
// registers those verbs once more under itself; each warns, then does what it did before.

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace cdens::cli {

void add_density_command(CLI::App& app) {
  CLI::App* density =
      app.add_subcommand("density", "Deprecated: cdens fit|score|grid|sample|info (density p(x))");
  density->require_subcommand(1);
  // Hidden from --help: the spelling of earlier releases.
  density->group("");
  const DeprecatedGroup group{"density", MethodFamily::density};
  add_fit_command(*density, group);
  add_score_command(*density, group);
  add_grid_command(*density, group);
  add_sample_command(*density, group);
  add_info_command(*density, group);
}

}  // namespace cdens::cli
