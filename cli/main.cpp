// The `cdens` command: fit conditional density models from CSV files and query them.
//
// Every failure — a usage error found by the argument parser, bad data or a bad model file
// reported by the library — ends the same way: one line `cdens: error: <message>` on standard
// error and exit status 2, so that scripts can tell "bad input" from a crash.

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "common.hpp"

namespace {

constexpr int kErrorStatus = 2;

int report_error(const std::string& message) {
  // The message must stay on one line whatever the library or the parser put into it.
  std::string line = message;
  for (char& character : line) {
    if (character == '\n' || character == '\r') character = ' ';
  }
  std::cerr << "cdens: error: " << line << std::endl;
  return kErrorStatus;
}

/// CLI11 answers both `cdens` and `cdens fitt` with "A subcommand is required"; say which
/// subcommands exist and, for a misspelt one, what was typed.
std::string missing_subcommand_message(CLI::App& app, int argc, char** argv) {
  std::string known;
  for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    known += (known.empty() ? "" : ", ") + command->get_name();
  }
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (!argument.empty() && argument.front() != '-') {
      return "unknown subcommand '" + argument + "' (subcommands: " + known + ")";
    }
  }
  return "a subcommand is required: " + known + " (see cdens --help)";
}

}  // namespace

int main(int argc, char** argv) {
  // Subcommands print as they go; stdout is not synchronised with C stdio, which only the
  // progress line on stderr uses.
  std::ios::sync_with_stdio(false);
  try {
    CLI::App app{"cdens: conditional density estimation from CSV files", "cdens"};
    app.set_version_flag("--version", std::string("cdens ") + CDENS_VERSION);
    app.require_subcommand(1);
    cdens::cli::add_fit_command(app);
    cdens::cli::add_score_command(app);
    cdens::cli::add_predict_command(app);
    cdens::cli::add_grid_command(app);
    cdens::cli::add_sample_command(app);
    cdens::cli::add_info_command(app);
    try {
      // The chosen subcommand runs inside parse(), from its callback.
      app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      // --help and --version arrive as "errors" with exit code 0.
      if (error.get_exit_code() == 0) return app.exit(error);
      if (app.get_subcommands().empty()) {
        return report_error(missing_subcommand_message(app, argc, argv));
      }
      return report_error(error.what());
    }
  } catch (const std::bad_alloc&) {
    return report_error("out of memory (is the grid, the sample or the data set too large?)");
  } catch (const std::exception& error) {
    // cdens::Error and everything else the standard library throws (bad_alloc, …).
    return report_error(error.what());
  }
  return 0;
}
