// cdens regress fit|predict: PRESS regression (Goerg 2017). `fit` is in command_regress_fit.cpp,
// `predict` in command_regress_predict.cpp. A PRESS model file is an ordinary conditional model
// file, so `cdens predict|score|grid|sample|info` query its predictive distribution as well.

#include <CLI/CLI.hpp>

#include "common.hpp"

namespace cdens::cli {

void add_regress_command(CLI::App& app) {
  CLI::App* regress = app.add_subcommand(
      "regress", "PRESS regression: point predictions, predictive states and p(y|x)");
  regress->require_subcommand(1);
  add_regress_fit_command(*regress);
  add_regress_predict_command(*regress);
}

}  // namespace cdens::cli
