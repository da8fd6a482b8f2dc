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
#include "model_files.hpp"
#include "model_kinds.hpp"

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

/// Checked before anything is scored (or warned of): the models of `files` are of one kind
/// (densities or conditional densities), of the same variables unless --y names them, and of
/// outputs that are discrete or continuous alike (a log-probability is no log-density).
void require_comparable_models(const std::vector<ModelFile>& files,
                               const std::vector<std::string>& names,
                               const EvaluationArguments& arguments) {
  const ModelFile& first = files.front();
  const auto variables = [](const ModelFile& model) {
    return model.density ? model.density->names : model.conditional->y_names;
  };
  for (std::size_t m = 0; m < files.size(); ++m) {
    const ModelFile& file = files[m];
    if (file.density.has_value() != first.density.has_value()) {
      throw InvalidArgument("cannot compare " + model_subject(first) + ", and " +
                            model_subject(file) +
                            ": a density p(x) and a conditional density p(y|x) have no common "
                            "score; compare models of the same kind");
    }
    // Without --y each model scores its own variables, which must be the same.
    if (arguments.y_columns.empty() && variables(file) != variables(first)) {
      throw InvalidArgument(file.path + " models " + join(variables(file), ",") + " but " +
                            first.path + " models " + join(variables(first), ",") +
                            ": compare models of the same variables");
    }
  }
  // compare_evaluations' refusal, before any model is scored (a density model has no kinds).
  std::vector<std::vector<std::string>> output_kinds;
  for (const ModelFile& file : files) {
    output_kinds.emplace_back();
    if (!file.conditional) continue;
    for (const ColumnKernel& kernel : file.conditional->mixture.output_kernels()) {
      output_kinds.back().push_back(to_string(kernel.kind()));
    }
  }
  require_comparable_output_kinds(output_kinds, names);
}

void run_compare(const CompareArguments& arguments) {
  if (arguments.paths.size() < 3) {
    throw InvalidArgument("cdens compare needs at least two model files and a data file");
  }
  require_writable_reports(arguments.evaluation);
  const std::vector<std::string> models(arguments.paths.begin(), arguments.paths.end() - 1);
  const std::string& data_path = arguments.paths.back();
  std::vector<ModelFile> files;
  for (const auto& path : models) files.push_back(load_model_file(path));
  require_comparable_models(files, model_labels(models), arguments.evaluation);
  CsvTable table = load_table(data_path, arguments.evaluation.no_header);
  drop_rows_missing_for_models(table, files, arguments.evaluation);
  std::vector<ModelEvaluation> evaluations;
  std::vector<std::string> y_names;
  CommandProgress shown(arguments.evaluation.quiet);
  std::string columns_line;
  for (const ModelFile& file : files) {
    const std::string& path = file.path;
    PrefixedProgress evaluating(
        shown.progress(), "compare, model " + std::to_string(evaluations.size() + 1) + " of " +
                              std::to_string(models.size()) + " (" +
                              std::filesystem::path(path).filename().string() + "): ");
    EvaluatedModel model = evaluate_model_file(file, table, arguments.evaluation, evaluating);
    columns_line = scored_columns_line(model);
    y_names = model.y_names;
    std::cout << "model: " << path << " (" << model.description << ")\n";
    print_discrete_outputs(std::cout, model.y_names, model.evaluation, false);
    // Flushed now, so that no report text is pending while the next model's progress line shows.
    std::cout.flush();
    evaluations.push_back(std::move(model.evaluation));
  }
  const ModelComparison comparison = compare_evaluations(evaluations, model_labels(models));
  std::cout << columns_line << '\n' << "n: " << comparison.n << '\n';
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
