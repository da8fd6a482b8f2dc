// The `cdens` command: fit density, conditional density and regression models from CSV files and
// query them.
//
// Every failure — a usage error found by the argument parser, bad data or a bad model file
// reported by the library — ends the same way: one line `cdens: error: <message>` on standard
// error and exit status 2, so that scripts can tell "bad input" from a crash. Under mpirun
// (`cdens fit`, `predict`, `evaluate` or `sample` on many processes) every process ends with the
// same status and only rank 0 prints the message: the first failing rank's.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "commands.hpp"
#include "core/vector_instruction_set.hpp"
#include "processes.hpp"

namespace {

constexpr int kErrorStatus = 2;

void print_error(const std::string& message) {
  // The message must stay on one line whatever the library or the parser put into it.
  std::string line = message;
  for (char& character : line) {
    if (character == '\n' || character == '\r') character = ' ';
  }
  std::cerr << "cdens: error: " << line << std::endl;
}

/// How the command ended: its exit status and, for a failure, the message.
struct Outcome {
  int status = 0;
  std::optional<std::string> error;
};

Outcome failure(const std::string& message) { return {kErrorStatus, message}; }

/// The innermost subcommand the parser entered (`app` itself when none).
const CLI::App& innermost_command(const CLI::App& app) {
  const CLI::App* command = &app;
  while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
  return *command;
}

/// CLI11 answers both `cdens` and `cdens fitt` with "A subcommand is required"; say which
/// subcommands exist and, for a misspelt one, what was typed: the first word after the name of
/// the command that needs one.
std::string missing_subcommand_message(const CLI::App& command, int argc, char** argv) {
  std::string known;
  for (const CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; })) {
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  int first = 1;
  if (command.get_parent() != nullptr) {
    while (first < argc && argv[first] != command.get_name()) ++first;
    ++first;
  }
  for (int i = first; i < argc; ++i) {
    const std::string argument = argv[i];
    if (!argument.empty() && argument.front() != '-') {
      return "unknown subcommand '" + argument + "' (subcommands: " + known + ")";
    }
  }
  const std::string name =
      command.get_parent() == nullptr ? "cdens" : "cdens " + command.get_name();
  return "a subcommand is required: " + known + " (see " + name + " --help)";
}

/// OpenMP threads that spin while they wait for work starve the other processes of a busy
/// machine (two fits on two cores took 3× as long as one). libgomp reads OMP_WAIT_POLICY once,
/// when it is loaded, before main; so unless the user chose a policy, the command runs itself
/// again with the passive one. If it cannot, it goes on with the default.
void wait_passively_unless_told_otherwise(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  execv("/proc/self/exe", argv);
}

/// `fit`, and `predict`, `evaluate` and `sample` of a KCDE model (model_of_processes.hpp), run on
/// many processes: every other verb of `command` (`cdens score`, `cdens grid`, …) is refused
/// there before it reads anything.
void refuse_many_processes_for_verbs_of_one(CLI::App& command, const std::string& name) {
  const std::vector<CLI::App*> verbs = command.get_subcommands([](CLI::App*) { return true; });
  static const std::set<std::string> on_many = {"fit", "predict", "evaluate", "sample"};
  if (verbs.empty() && on_many.count(command.get_name()) == 0) {
    command.preparse_callback([name](std::size_t) { cdens::cli::require_one_process(name); });
  }
  for (CLI::App* verb : verbs)
    refuse_many_processes_for_verbs_of_one(*verb, name + " " + verb->get_name());
}

/// Parses the arguments and runs the chosen subcommand.
Outcome run_command(int argc, char** argv) {
  try {
    CLI::App app{"cdens: density and conditional density estimation from CSV files", "cdens"};
    // The copy of the vector loops the library chose (a CDENS_ISA it cannot honour is refused
    // here, before any subcommand).
    app.set_version_flag("--version",
                         std::string("cdens ") + CDENS_VERSION +
                             " (vector instructions: " + cdens::vector_instruction_set() + ")");
    app.require_subcommand(1);
    cdens::cli::add_fit_command(app);
    cdens::cli::add_score_command(app);
    cdens::cli::add_evaluate_command(app);
    cdens::cli::add_compare_command(app);
    cdens::cli::add_predict_command(app);
    cdens::cli::add_grid_command(app);
    cdens::cli::add_sample_command(app);
    cdens::cli::add_info_command(app);
    cdens::cli::add_features_command(app);
    cdens::cli::add_methods_command(app);
    refuse_many_processes_for_verbs_of_one(app, "cdens");
    try {
      // The chosen subcommand runs inside parse(), from its callback.
      app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      // --help and --version arrive as "errors" with exit code 0.
      if (error.get_exit_code() == 0) return {app.exit(error), std::nullopt};
      const CLI::App& command = innermost_command(app);
      if (!command.get_subcommands([](const CLI::App*) { return true; }).empty()) {
        // The command has subcommands, none of which the parser could enter.
        return failure(missing_subcommand_message(command, argc, argv));
      }
      return failure(error.what());
    }
    // Every subcommand prints to std::cout (reports, scores, tables); a full disk or a closed
    // pipe shows only when the buffer is flushed, so success is declared only after that.
    std::cout.flush();
    if (!std::cout) return failure("cannot write to standard output");
  } catch (const std::bad_alloc&) {
    return failure("out of memory (is the grid, the sample or the data set too large?)");
  } catch (const std::exception& error) {
    // cdens::Error and everything else the standard library throws (bad_alloc, …).
    return failure(error.what());
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  wait_passively_unless_told_otherwise(argv);
  // Subcommands print as they go; stdout is not synchronised with C stdio, which only the
  // progress line on stderr uses.
  std::ios::sync_with_stdio(false);
  std::optional<cdens::MpiSession> mpi;
  if (cdens::started_by_mpi_launcher()) {
    try {
      mpi.emplace();
    } catch (const std::exception& error) {
      print_error(error.what());
      return kErrorStatus;
    }
    cdens::cli::set_processes(mpi->world());
  }
  Outcome outcome = run_command(argc, argv);
  if (mpi) {
    // Every rank learns whether any failed (a rank that wrote nothing may be the only one whose
    // model file could not be written) and ends with the same status and message.
    const std::optional<cdens::RankError> first = mpi->world().first_error(
        outcome.error ? std::optional<cdens::RankError>({"Error", *outcome.error}) : std::nullopt);
    if (first) outcome = failure(first->message);
    if (mpi->world().rank() != 0) return outcome.status;
  }
  if (outcome.error) print_error(*outcome.error);
  return outcome.status;
}
