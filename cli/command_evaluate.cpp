// cdens evaluate MODEL.json DATA.csv: proper scores, interval widths and coverage, and the
// calibration of a model (PIT and HPD values, their uniformity tests, histograms and coverage
// curve) on labelled data; --plot draws the calibration figure.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "columns.hpp"
#include "command_progress.hpp"
#include "commands.hpp"
#include "io/csv.hpp"
#include "io/text.hpp"
#include "model_evaluation.hpp"
#include "model_of_processes.hpp"

namespace cdens::cli {
namespace {

struct EvaluateArguments {
  std::string model_path;
  std::string data_path;
  EvaluationArguments evaluation;
};

void print_calibration(std::ostream& out, const ModelEvaluation& evaluation) {
  if (evaluation.calibration.empty()) return;  // neither central nor hpd was asked for
  const bool randomized = evaluation.calibration.front().randomized;
  out << "calibration: "
      << (!randomized              ? ""
          : evaluation.output_atom ? "randomised over the atom's probability at the pairs at it "
                                     "(the uniform draws from --seed), "
                                   : "randomised over the probability of y's level (a discrete "
                                     "y; the uniform draws from --seed), ")
      << "uniform on (0, 1) for a calibrated model; Kolmogorov-Smirnov test\n";
  for (const auto& check : evaluation.calibration) {
    out << "  " << check.name << ": D = " << format_table_number(check.test.statistic)
        << ", p = " << format_table_number(check.test.p_value) << '\n';
  }
  if (evaluation.hpd_draws > 0) {
    out << "  (hpd values from " << evaluation.hpd_draws << " draws per pair)\n";
  }
  const auto& histogram = evaluation.calibration.front().histogram;
  out << "histogram: counts per bin (a calibrated model's 95% band: "
      << format_table_number(histogram.band_lower) << " to "
      << format_table_number(histogram.band_upper) << " per bin)\n  " << std::setw(13) << "bin";
  for (const auto& check : evaluation.calibration) out << std::setw(8) << check.name;
  out << '\n';
  for (Index b = 0; b < histogram.counts.size(); ++b) {
    out << "  " << std::setw(13)
        << format_table_number(histogram.edges(b)) + "-" +
               format_table_number(histogram.edges(b + 1));
    for (const auto& check : evaluation.calibration) {
      out << std::setw(8) << format_table_number(check.histogram.counts(b));
    }
    out << '\n';
  }
  const CoverageCurve& curve = evaluation.coverage;
  out << (evaluation.output_atom
              ? "coverage: share of pairs inside the interval of each level, those at the atom by "
                "their randomised values (band: 95% of a calibrated model)\n  "
          : randomized && evaluation.output_dim == 1
              ? "coverage: share of pairs whose randomised value lies in the interval of each "
                "level (|pit - 1/2| <= level/2, hpd <= level; the sets' own coverage is among the "
                "scores; band: 95% of a calibrated model)\n  "
              : "coverage: share of pairs inside the interval of each level (band: 95% of a "
                "calibrated model)\n  ")
      << std::setw(7) << "level" << std::setw(10) << (curve.central.size() ? "central" : "")
      << std::setw(10) << (curve.highest_density.size() ? "hpd" : "") << std::setw(20) << "band"
      << '\n';
  for (Index r = 0; r < curve.levels.size(); ++r) {
    out << "  " << std::setw(7) << format_table_number(curve.levels(r)) << std::setw(10)
        << (curve.central.size() ? format_table_number(curve.central(r)) : "") << std::setw(10)
        << (curve.highest_density.size() ? format_table_number(curve.highest_density(r)) : "")
        << std::setw(20)
        << format_table_number(curve.band_lower(r)) + " to " +
               format_table_number(curve.band_upper(r))
        << '\n';
  }
}

/// The evaluation of the model `file` on the data file, printed and written as asked.
void evaluate_and_report(const EvaluateArguments& arguments, const ModelFile& file) {
  require_writable_reports(arguments.evaluation);
  const EvaluationOptions options = evaluation_options(arguments.evaluation);
  if (!arguments.evaluation.plot_path.empty() && !options.scores.empty() &&
      std::find(options.scores.begin(), options.scores.end(), "central") == options.scores.end() &&
      std::find(options.scores.begin(), options.scores.end(), "hpd") == options.scores.end()) {
    throw InvalidArgument(
        "--plot draws the calibration, which needs the central or hpd scores in --scores");
  }
  CsvTable table = load_table(arguments.data_path, arguments.evaluation.no_header);
  const std::vector<ModelFile> files = {file};
  drop_rows_missing_for_models(table, files, arguments.evaluation);
  CommandProgress shown(arguments.evaluation.quiet);
  PrefixedProgress evaluating(shown.progress(), "evaluate: ");
  const EvaluatedModel model =
      evaluate_model_file(files.front(), table, arguments.evaluation, evaluating);
  const ModelEvaluation& evaluation = model.evaluation;
  std::cout << "model: " << arguments.model_path << " (" << model.description << ")\n"
            << scored_columns_line(model) << '\n';
  print_discrete_outputs(std::cout, model.y_names, evaluation, true);
  std::cout << "n: " << evaluation.n << '\n';
  std::vector<Index> excluded;
  for (const auto& pair : evaluation.excluded) excluded.push_back(pair.pair);
  print_exclusions(std::cout, excluded, evaluation.pairs_given);
  print_score_table(std::cout, evaluation);
  print_calibration(std::cout, evaluation);
  std::cout << std::flush;
  nlohmann::json document = evaluation_to_json(evaluation);
  document["model"] = arguments.model_path;
  document["y_names"] = model.y_names;
  write_report(std::cout, document, "evaluation", arguments.evaluation);
}

}  // namespace

void add_evaluate_command(CLI::App& app) {
  auto arguments = std::make_shared<EvaluateArguments>();
  CLI::App* command = app.add_subcommand(
      "evaluate",
      "Scores (log-likelihood, CRPS, pinball, CDE loss, energy score; for a discrete y the "
      "ranked probability and Brier scores), intervals and calibration of a model on labelled "
      "data");
  command->add_option("model", arguments->model_path, "Model file (conditional or density)")
      ->required();
  command->add_option("data", arguments->data_path, "CSV file with the model's columns")
      ->required();
  add_evaluation_options(*command, arguments->evaluation);
  command->callback([arguments] {
    with_model_of_processes(
        "evaluate", [&] { return load_model_file(arguments->model_path); },
        [&](const ModelFile& file) { evaluate_and_report(*arguments, file); });
  });
}

}  // namespace cdens::cli
