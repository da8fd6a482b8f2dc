// cdens compare MODEL.json... DATA.csv: two or more models scored on the same pairs — each
// model's mean scores, the paired differences with their standard errors, and the share of
// pairs each wins; --plot draws the differences.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "columns.hpp"
#include "command_progress.hpp"
#include "commands.hpp"
#include "io/text.hpp"
#include "model_evaluation.hpp"

namespace cdens::cli {
namespace {

struct CompareArguments {
  std::vector<std::string> paths;  // the models, then the data file
  EvaluationArguments evaluation;
};

/// The models' labels: file names without the extension, or whole paths where two agree.
std::vector<std::string> model_labels(const std::vector<std::string>& paths) {
  std::vector<std::string> labels;
  for (const auto& path : paths) labels.push_back(std::filesystem::path(path).stem().string());
  for (std::size_t a = 0; a < labels.size(); ++a) {
    for (std::size_t b = a + 1; b < labels.size(); ++b) {
      if (labels[a] == labels[b]) return paths;
    }
  }
  return labels;
}

void print_comparison(std::ostream& out, const ModelComparison& comparison) {
  constexpr int kName = 18;
  constexpr int kCell = 24;
  out << "means: mean ± standard error over the pairs (log_likelihood: higher is better; the "
         "rest are losses)\n  "
      << std::left << std::setw(kName) << "score" << std::right;
  for (const auto& model : comparison.models) out << std::setw(kCell) << model;
  out << '\n';
  for (std::size_t s = 0; s < comparison.scores.size(); ++s) {
    const auto row = static_cast<Index>(s);
    out << "  " << std::left << std::setw(kName) << comparison.scores[s] << std::right;
    for (Index m = 0; m < comparison.means.cols(); ++m) {
      out << std::setw(kCell)
          << format_table_number(comparison.means(row, m)) + " ± " +
                 format_table_number(comparison.standard_errors(row, m));
    }
    out << '\n';
  }
  if (!comparison.not_compared.empty()) {
    out << "not compared:\n";
    for (const auto& score : comparison.not_compared) {
      out << "  " << std::left << std::setw(kName) << score.score << std::right << score.reason
          << '\n';
    }
  }
  out << "best: share of pairs on which each model scores best (ties shared)\n  " << std::left
      << std::setw(kName) << "score" << std::right;
  for (const auto& model : comparison.models) out << std::setw(kCell) << model;
  out << '\n';
  for (std::size_t s = 0; s < comparison.scores.size(); ++s) {
    out << "  " << std::left << std::setw(kName) << comparison.scores[s] << std::right;
    for (Index m = 0; m < comparison.best_shares.cols(); ++m) {
      out << std::setw(kCell)
          << format_table_number(comparison.best_shares(static_cast<Index>(s), m));
    }
    out << '\n';
  }
  out << "improvements: mean improvement of b over a (a's loss minus b's; for the "
         "log-likelihood b's minus a's: > 0, b is better) over the pairs ± paired standard error, "
         "z = mean / standard error, shares of pairs each model wins\n";
  for (const auto& difference : comparison.differences) {
    const auto& a = comparison.models[static_cast<std::size_t>(difference.first)];
    const auto& b = comparison.models[static_cast<std::size_t>(difference.second)];
    const double z =
        difference.standard_error > 0.0 ? difference.mean / difference.standard_error : 0.0;
    out << "  " << std::left << std::setw(kName) << difference.score << std::right << b << " over "
        << a << ": " << format_table_number(difference.mean) << " ± "
        << format_table_number(difference.standard_error) << ", z = " << format_table_number(z)
        << "; " << a << " wins " << format_table_number(difference.first_wins) << ", " << b
        << " wins " << format_table_number(difference.second_wins) << '\n';
  }
}

void run_compare(const CompareArguments& arguments) {
  if (arguments.paths.size() < 3) {
    throw InvalidArgument("cdens compare needs at least two model files and a data file");
  }
  require_writable_reports(arguments.evaluation);
  const std::vector<std::string> models(arguments.paths.begin(), arguments.paths.end() - 1);
  const std::string& data_path = arguments.paths.back();
  CsvTable table = load_table(data_path, arguments.evaluation.no_header);
  drop_rows_missing_for_models(table, models, arguments.evaluation);
  std::vector<ModelEvaluation> evaluations;
  std::vector<std::string> y_names;
  CommandProgress shown(arguments.evaluation.quiet);
  for (const auto& path : models) {
    PrefixedProgress evaluating(
        shown.progress(), "compare, model " + std::to_string(evaluations.size() + 1) + " of " +
                              std::to_string(models.size()) + " (" +
                              std::filesystem::path(path).filename().string() + "): ");
    EvaluatedModel model = evaluate_model_file(path, table, arguments.evaluation, evaluating);
    if (!evaluations.empty() && model.y_names != y_names) {
      throw InvalidArgument(path + " models " + join(model.y_names, ",") + " but " +
                            models.front() + " models " + join(y_names, ",") +
                            ": compare models of the same variables");
    }
    y_names = model.y_names;
    std::cout << "model: " << path << " (" << model.description << ")\n";
    print_discrete_outputs(std::cout, model.y_names, model.evaluation, false);
    // Flushed now, so that no report text is pending while the next model's progress line shows.
    std::cout.flush();
    evaluations.push_back(std::move(model.evaluation));
  }
  const ModelComparison comparison = compare_evaluations(evaluations, model_labels(models));
  std::cout << "y: " << join(y_names, ",") << '\n' << "n: " << comparison.n << '\n';
  print_exclusions(std::cout, comparison.excluded, comparison.pairs_given);
  print_comparison(std::cout, comparison);
  std::cout << std::flush;
  nlohmann::json document = comparison_to_json(comparison);
  document["y_names"] = y_names;
  write_report(std::cout, document, "comparison", arguments.evaluation);
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto arguments = std::make_shared<CompareArguments>();
  CLI::App* command = app.add_subcommand(
      "compare",
      "Two or more models on the same labelled data: mean scores, paired differences "
      "with standard errors, and the share of pairs each wins");
  command
      ->add_option("files", arguments->paths,
                   "Model files (at least two, of the same variables), then the CSV data file")
      ->required();
  add_evaluation_options(*command, arguments->evaluation);
  command->callback([arguments] { run_compare(*arguments); });
}

}  // namespace cdens::cli
