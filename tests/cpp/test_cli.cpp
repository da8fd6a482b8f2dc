// End-to-end tests of the `cdens` command: every subcommand is run as a separate process and its
// output compared with the library's answer for the same model and data, and every kind of bad
// input must end in exit status 2 with a single `cdens: error:` line.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cdens/conditional/ekde.hpp"
#include "cdens/conditional/nwcde.hpp"
#include "cdens/conditional/rkde.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/evaluation/scores.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "core/vector_instruction_set.hpp"
#include "io/csv.hpp"
#include "support.hpp"

namespace cdens::test {
namespace {

const std::string kFaithful = std::string(CDENS_DATA_DIR) + "/faithful.csv";

std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

/// A file in the temporary directory, removed when the object goes away.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& stem) : path_(temporary_path(stem)) {}
  TemporaryFile(const std::string& stem, const std::string& contents) : TemporaryFile(stem) {
    std::ofstream(path_, std::ios::binary) << contents;
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct CliResult {
  int status;
  std::string out;
  std::string err;
};

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char character : text)
    quoted += character == '\'' ? std::string("'\\''") : std::string(1, character);
  return quoted + "'";
}

/// Runs `cdens arguments…` through the shell and collects its exit status and output.
CliResult run_cli(const std::vector<std::string>& arguments) {
  const TemporaryFile out("stdout.txt");
  const TemporaryFile err("stderr.txt");
  std::string command = shell_quote(CDENS_CLI_PATH);
  for (const auto& argument : arguments) command += " " + shell_quote(argument);
  command += " < /dev/null > " + shell_quote(out.path()) + " 2> " + shell_quote(err.path());
  const int raw_status = std::system(command.c_str());
  const int status = WIFEXITED(raw_status) ? WEXITSTATUS(raw_status) : -1;
  return {status, read_text(out.path()), read_text(err.path())};
}

/// The value of the line `key: value` in the output; fails the test if there is none.
std::string value_of(const std::string& output, const std::string& key) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(key + ": ", 0) == 0) return line.substr(key.size() + 2);
  }
  ADD_FAILURE() << "no line '" << key << ": …' in:\n" << output;
  return "nan";
}

double number_of(const std::string& output, const std::string& key) {
  return std::stod(value_of(output, key));
}

CsvTable parse_output_csv(const std::string& text) {
  std::istringstream input(text);
  return parse_csv(input, "cdens output");
}

/// One column of a CSV table by name.
Vector column(const CsvTable& table, const std::string& name) {
  return select_columns(table, resolve_columns(table, {name})).row(0).transpose();
}

/// Named columns of a CSV table as a d × n matrix of samples.
Matrix columns(const CsvTable& table, const std::vector<std::string>& names) {
  return select_columns(table, resolve_columns(table, names));
}

/// The CSV text is written with shortest round-trip numbers, so values computed by the same
/// code on the same model agree to the last bit; the tolerance only absorbs -ffast-math-like
/// reorderings should a compiler ever choose them.
void expect_close(const VectorView& actual, const VectorView& expected, double relative = 1e-12) {
  ASSERT_EQ(actual.size(), expected.size());
  for (Index i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual(i), expected(i), relative * std::max(1.0, std::abs(expected(i))))
        << "at row " << i;
  }
}

/// Checks the contract for bad input: status 2, nothing on stdout, one stderr line starting
/// "cdens: error:" that mentions `expected_fragment`.
void expect_usage_error(const std::vector<std::string>& arguments,
                        const std::string& expected_fragment) {
  std::string joined;
  for (const auto& argument : arguments) joined += " " + argument;
  SCOPED_TRACE("cdens" + joined);
  const CliResult result = run_cli(arguments);
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("cdens: error: ", 0), 0u) << result.err;
  ASSERT_FALSE(result.err.empty());
  EXPECT_EQ(result.err.back(), '\n');
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "more than one line: " << result.err;
  EXPECT_NE(result.err.find(expected_fragment), std::string::npos)
      << "'" << expected_fragment << "' missing from: " << result.err;
}

/// Eruption time given waiting time on the faithful data, fitted once through the CLI with a
/// single (σ, λ) so that the suite stays fast under the sanitizers.
class FaithfulModel {
 public:
  static const FaithfulModel& get() {
    static const FaithfulModel instance;
    return instance;
  }
  FaithfulModel(const FaithfulModel&) = delete;
  FaithfulModel& operator=(const FaithfulModel&) = delete;

  const std::string& path() const { return file_.path(); }
  const CliResult& fit() const { return fit_; }
  ConditionalModel load() const { return load_conditional_model(path()); }
  const Matrix& x() const { return x_; }
  const Matrix& y() const { return y_; }

 private:
  FaithfulModel()
      : file_("faithful_model.json"),
        fit_(run_cli({"fit", kFaithful, "--method", "lscde", "--x", "waiting", "--y", "eruptions",
                      "--sigma", "0.3", "--regularization", "0.1", "--out", file_.path()})) {
    const CsvTable table = read_csv(kFaithful);
    x_ = columns(table, {"waiting"});
    y_ = columns(table, {"eruptions"});
  }

  TemporaryFile file_;
  CliResult fit_;
  Matrix x_;
  Matrix y_;
};

TEST(CliRoundTrip, FitPrintsSummaryAndWritesLoadableModel) {
  const auto& faithful = FaithfulModel::get();
  ASSERT_EQ(faithful.fit().status, 0) << faithful.fit().err;
  EXPECT_EQ(faithful.fit().err, "");
  const std::string& out = faithful.fit().out;
  EXPECT_EQ(value_of(out, "method"), "lscde");
  EXPECT_EQ(value_of(out, "n"), "272");
  EXPECT_EQ(value_of(out, "d_x"), "1");
  EXPECT_EQ(value_of(out, "d_y"), "1");
  EXPECT_EQ(value_of(out, "x_variables"), "waiting");
  EXPECT_EQ(value_of(out, "y_variables"), "eruptions");
  EXPECT_EQ(value_of(out, "sigma"), "0.3");
  EXPECT_EQ(value_of(out, "regularization"), "0.1");
  EXPECT_EQ(value_of(out, "model"), faithful.path());
  EXPECT_NE(out.find("cross-validation: none"), std::string::npos);

  const ConditionalModel model = faithful.load();
  EXPECT_EQ(model.x_names, std::vector<std::string>{"waiting"});
  EXPECT_EQ(model.y_names, std::vector<std::string>{"eruptions"});
  EXPECT_EQ(model.report.method, "lscde");
  EXPECT_EQ(model.report.hyperparameters.at("sigma"), 0.3);
  EXPECT_EQ(model.report.hyperparameters.at("regularization"), 0.1);
  EXPECT_EQ(number_of(out, "n_active_basis"), model.report.statistics.at("n_active_basis"));
  EXPECT_GE(model.report.statistics.at("n_active_basis"), 1.0);
}

TEST(CliRoundTrip, ScoreEqualsLibraryMeanLogLikelihood) {
  const auto& faithful = FaithfulModel::get();
  const CliResult result = run_cli({"score", faithful.path(), kFaithful});
  ASSERT_EQ(result.status, 0) << result.err;
  const ConditionalModel model = faithful.load();
  const double expected = mean_log_likelihood(model.mixture, faithful.x(), faithful.y());
  EXPECT_EQ(value_of(result.out, "n"), "272");
  EXPECT_NEAR(number_of(result.out, "mean_log_likelihood"), expected, 1e-9 * std::abs(expected));
  EXPECT_NEAR(number_of(result.out, "nll"), -expected, 1e-9 * std::abs(expected));

  // Explicit columns, by position, give the same score.
  const CliResult by_index = run_cli({"score", faithful.path(), kFaithful, "--x", "1", "--y", "0"});
  ASSERT_EQ(by_index.status, 0) << by_index.err;
  EXPECT_EQ(value_of(by_index.out, "mean_log_likelihood"),
            value_of(result.out, "mean_log_likelihood"));
}

TEST(CliRoundTrip, PredictColumnsEqualLibrary) {
  const auto& faithful = FaithfulModel::get();
  const TemporaryFile predictions("predictions.csv");
  const CliResult to_file =
      run_cli({"predict", faithful.path(), kFaithful, "--out", predictions.path()});
  ASSERT_EQ(to_file.status, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  const CliResult to_stdout = run_cli({"predict", faithful.path(), kFaithful});
  ASSERT_EQ(to_stdout.status, 0) << to_stdout.err;
  EXPECT_EQ(read_text(predictions.path()), to_stdout.out);

  const CsvTable table = parse_output_csv(to_stdout.out);
  EXPECT_EQ(table.column_names, (std::vector<std::string>{"waiting", "log_density", "mean",
                                                          "variance", "q0.05", "q0.5", "q0.95"}));
  const ConditionalModel model = faithful.load();
  const Matrix& x = faithful.x();
  expect_close(column(table, "waiting"), x.row(0).transpose());
  expect_close(column(table, "log_density"), model.mixture.log_pdf(x, faithful.y()));
  expect_close(column(table, "mean"), model.mixture.mean(x).row(0).transpose());
  expect_close(column(table, "variance"), model.mixture.covariance(x).row(0).transpose());
  const Matrix quantiles = model.mixture.quantiles(x, {0.05, 0.5, 0.95});
  expect_close(column(table, "q0.05"), quantiles.row(0).transpose());
  expect_close(column(table, "q0.5"), quantiles.row(1).transpose());
  expect_close(column(table, "q0.95"), quantiles.row(2).transpose());
}

TEST(CliRoundTrip, PredictWithoutOutputColumnsOmitsLogDensity) {
  const auto& faithful = FaithfulModel::get();
  const TemporaryFile inputs("inputs.csv", "waiting\n50\n70\n90\n");
  const CliResult result = run_cli({"predict", faithful.path(), inputs.path(), "--q", "0.25,0.75"});
  ASSERT_EQ(result.status, 0) << result.err;
  const CsvTable table = parse_output_csv(result.out);
  EXPECT_EQ(table.column_names,
            (std::vector<std::string>{"waiting", "mean", "variance", "q0.25", "q0.75"}));
  const Matrix x = (Matrix(1, 3) << 50, 70, 90).finished();
  const Matrix quantiles = faithful.load().mixture.quantiles(x, {0.25, 0.75});
  expect_close(column(table, "q0.25"), quantiles.row(0).transpose());
  expect_close(column(table, "q0.75"), quantiles.row(1).transpose());
}

TEST(CliRoundTrip, GridIntegratesToOneForEachX) {
  const auto& faithful = FaithfulModel::get();
  // Eruptions lie in [1.6, 5.1] minutes; [-1, 8] leaves several component widths on each side.
  constexpr Index kGridSize = 1801;
  const CliResult result = run_cli({"grid", faithful.path(), "--x-values", "45,65,85", "--y-grid",
                                    "-1:8:" + std::to_string(kGridSize)});
  ASSERT_EQ(result.status, 0) << result.err;
  const CsvTable table = parse_output_csv(result.out);
  EXPECT_EQ(table.column_names, (std::vector<std::string>{"waiting", "eruptions", "density"}));
  ASSERT_EQ(table.values.cols(), 3 * kGridSize);
  const Vector waiting = column(table, "waiting");
  const Vector eruptions = column(table, "eruptions");
  const Vector density = column(table, "density");

  const Matrix x = (Matrix(1, 3) << 45, 65, 85).finished();
  const Matrix y_grid = eruptions.head(kGridSize).transpose();
  const Matrix expected = faithful.load().mixture.pdf_grid(x, y_grid);
  const double step = 9.0 / (kGridSize - 1);
  for (Index j = 0; j < 3; ++j) {
    SCOPED_TRACE("x point " + std::to_string(j));
    const Vector block = density.segment(j * kGridSize, kGridSize);
    EXPECT_TRUE((waiting.segment(j * kGridSize, kGridSize).array() == x(0, j)).all());
    expect_close(eruptions.segment(j * kGridSize, kGridSize), y_grid.row(0).transpose());
    expect_close(block, expected.col(j));
    EXPECT_TRUE((block.array() >= 0.0).all());
    const double integral = step * (block.sum() - 0.5 * (block(0) + block(kGridSize - 1)));
    EXPECT_NEAR(integral, 1.0, 1e-3);
  }
  EXPECT_EQ(eruptions(0), -1.0);
  EXPECT_EQ(eruptions(kGridSize - 1), 8.0);
}

TEST(CliRoundTrip, GridReadsInputPointsFromFile) {
  const auto& faithful = FaithfulModel::get();
  const TemporaryFile inputs("grid_inputs.csv", "eruptions,waiting\n0,55\n0,75\n");
  const CliResult from_file =
      run_cli({"grid", faithful.path(), "--x-file", inputs.path(), "--y-grid", "0:6:13"});
  const CliResult from_values =
      run_cli({"grid", faithful.path(), "--x-values", "55,75", "--y-grid", "0:6:13"});
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  ASSERT_EQ(from_values.status, 0) << from_values.err;
  EXPECT_EQ(from_file.out, from_values.out);
}

TEST(CliRoundTrip, SampleEqualsLibraryDraws) {
  const auto& faithful = FaithfulModel::get();
  constexpr Index kDraws = 200;
  const CliResult result = run_cli({"sample", faithful.path(), "--x-values", "50,80", "--n",
                                    std::to_string(kDraws), "--seed", "7"});
  ASSERT_EQ(result.status, 0) << result.err;
  const CsvTable table = parse_output_csv(result.out);
  EXPECT_EQ(table.column_names, (std::vector<std::string>{"waiting", "eruptions"}));
  ASSERT_EQ(table.values.cols(), 2 * kDraws);
  const Matrix x = (Matrix(1, 2) << 50, 80).finished();
  const Matrix expected = faithful.load().mixture.sample(x, kDraws, 7);
  expect_close(column(table, "eruptions"), expected.row(0).transpose(), 0.0);
  const Vector waiting = column(table, "waiting");
  EXPECT_TRUE((waiting.head(kDraws).array() == 50.0).all());
  EXPECT_TRUE((waiting.tail(kDraws).array() == 80.0).all());
}

TEST(CliRoundTrip, InfoDescribesModel) {
  const auto& faithful = FaithfulModel::get();
  const CliResult result = run_cli({"info", faithful.path()});
  ASSERT_EQ(result.status, 0) << result.err;
  const ConditionalModel model = faithful.load();
  EXPECT_EQ(value_of(result.out, "method"), "lscde");
  // A model without labels or row weights is written in the first version of the format.
  EXPECT_EQ(value_of(result.out, "format_version"), std::to_string(kUnlabelledModelFileVersion));
  EXPECT_EQ(value_of(result.out, "x_variables"), "waiting");
  EXPECT_EQ(value_of(result.out, "y_variables"), "eruptions");
  EXPECT_EQ(value_of(result.out, "d_x"), "1");
  EXPECT_EQ(value_of(result.out, "d_y"), "1");
  EXPECT_EQ(value_of(result.out, "n_components"), std::to_string(model.mixture.n_components()));
  EXPECT_EQ(value_of(result.out, "sigma"), "0.3");
  EXPECT_EQ(value_of(result.out, "regularization"), "0.1");
  // Old Faithful's 272 rows hold 16 that repeat an earlier one, merged before the fit
  // (docs/methods/duplicates.md).
  EXPECT_EQ(value_of(result.out, "n_train"), "256");
  EXPECT_EQ(value_of(result.out, "duplicate_rows"), "16");
  EXPECT_NEAR(number_of(result.out, "fit_seconds"), model.report.fit_seconds,
              1e-5 * model.report.fit_seconds + 1e-9);
}

/// The lines of `text` from the one starting with `first` to the one starting with `last`.
std::string section(const std::string& text, const std::string& first, const std::string& last) {
  const auto begin = text.find(first);
  if (begin == std::string::npos) return {};
  const auto end = text.find('\n', text.find(last, begin));
  return text.substr(begin, end == std::string::npos ? end : end - begin + 1);
}

TEST(CliFit, CrossValidationTableMarksChosenCell) {
  const TemporaryFile model_file("cv_model.json");
  const CliResult fit = run_cli({"fit", kFaithful, "--x", "waiting", "--y", "eruptions", "--sigma",
                                 "0.2,0.5", "--regularization", "0.1,1", "--folds", "3",
                                 "--cv-loss", "kl", "--out", model_file.path()});
  ASSERT_EQ(fit.status, 0) << fit.err;
  const ConditionalModel model = load_conditional_model(model_file.path());
  ASSERT_TRUE(model.report.cross_validation.has_value());
  const CvTable& cv = *model.report.cross_validation;
  EXPECT_EQ(cv.mean_loss.size(), 4);

  const std::string table = section(fit.out, "cross-validation:", "cv_loss:");
  ASSERT_FALSE(table.empty()) << fit.out;
  // Header, column labels, one row per σ, the loss line.
  std::vector<std::string> lines;
  std::istringstream stream(table);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << table;
  EXPECT_NE(lines[1].find("sigma \\ regularization"), std::string::npos);
  EXPECT_EQ(lines[4], "cv_loss: kl (negative log-likelihood)");
  // Exactly one '*', in the row of the chosen σ.
  EXPECT_EQ(std::count(table.begin(), table.end(), '*'), 2) << "the header mentions '*' once";
  const double chosen_sigma = model.report.hyperparameters.at("sigma");
  const std::string starred_row = chosen_sigma == 0.2 ? lines[2] : lines[3];
  EXPECT_NE(starred_row.find('*'), std::string::npos) << table;
  EXPECT_EQ(number_of(fit.out, "sigma"), chosen_sigma);
  EXPECT_EQ(number_of(fit.out, "folds"), 3.0);

  // info prints the same table from the saved report.
  const CliResult info = run_cli({"info", model_file.path()});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(section(info.out, "cross-validation:", "cv_loss:"), table);
}

TEST(CliFit, HoldoutNllEqualsLibrary) {
  const TemporaryFile model_file("holdout_model.json");
  const CliResult fit = run_cli({"fit", kFaithful, "--x", "waiting", "--y", "eruptions", "--sigma",
                                 "0.3", "--regularization", "0.1", "--holdout", "0.25", "--seed",
                                 "4", "--out", model_file.path()});
  ASSERT_EQ(fit.status, 0) << fit.err;

  // The documented split: the first round(F·n) entries of Rng(seed, 1).permutation(n).
  const auto& faithful = FaithfulModel::get();
  const Index n = faithful.x().cols();
  const std::vector<Index> order = Rng(4, 1).permutation(n);
  const auto held_out = static_cast<Index>(std::llround(0.25 * static_cast<double>(n)));
  Matrix x(1, held_out), y(1, held_out);
  for (Index i = 0; i < held_out; ++i) {
    x(0, i) = faithful.x()(0, order[static_cast<std::size_t>(i)]);
    y(0, i) = faithful.y()(0, order[static_cast<std::size_t>(i)]);
  }
  const ConditionalModel model = load_conditional_model(model_file.path());
  // The training rows, those that repeat an earlier one merged (docs/methods/duplicates.md).
  const auto repeats = model.report.statistics.find("duplicate_rows");
  EXPECT_EQ(model.report.statistics.at("n_train") +
                (repeats == model.report.statistics.end() ? 0.0 : repeats->second),
            static_cast<double>(n - held_out));
  EXPECT_EQ(value_of(fit.out, "n"), std::to_string(n - held_out));
  EXPECT_EQ(value_of(fit.out, "held_out_n"), std::to_string(held_out));
  const double expected = negative_log_likelihood(model.mixture, x, y);
  EXPECT_NEAR(number_of(fit.out, "held_out_nll"), expected, 1e-9 * std::abs(expected));
  EXPECT_NEAR(number_of(fit.out, "held_out_mean_log_likelihood"), -expected,
              1e-9 * std::abs(expected));
}

TEST(CliFit, UnlabeledInputsReachTheFit) {
  const TemporaryFile unlabeled("unlabeled.csv", "waiting\n48\n52\n61\n77\n83\n90\n");
  const TemporaryFile model_file("semi_model.json");
  const CliResult fit = run_cli({"fit", kFaithful, "--x", "waiting", "--y", "eruptions", "--sigma",
                                 "0.3", "--regularization", "0.1", "--unlabeled", unlabeled.path(),
                                 "--out", model_file.path()});
  ASSERT_EQ(fit.status, 0) << fit.err;
  EXPECT_EQ(value_of(fit.out, "n_unlabeled"), "6");
  EXPECT_EQ(load_conditional_model(model_file.path()).report.statistics.at("n_unlabeled"), 6.0);
}

TEST(CliFit, NoHeaderNamesColumnsByPosition) {
  // faithful without its header line.
  std::string contents = read_text(kFaithful);
  contents.erase(0, contents.find('\n') + 1);
  const TemporaryFile data("no_header.csv", contents);
  const TemporaryFile model_file("no_header_model.json");
  const CliResult fit =
      run_cli({"fit", data.path(), "--no-header", "--x", "1", "--y", "0", "--sigma", "0.3",
               "--regularization", "0.1", "--out", model_file.path()});
  ASSERT_EQ(fit.status, 0) << fit.err;
  const ConditionalModel model = load_conditional_model(model_file.path());
  EXPECT_EQ(model.x_names, std::vector<std::string>{"1"});
  EXPECT_EQ(model.y_names, std::vector<std::string>{"0"});
  // Same data, same options: the same model as with the header.
  const CliResult score = run_cli({"score", model_file.path(), data.path(), "--no-header"});
  const CliResult reference = run_cli({"score", FaithfulModel::get().path(), kFaithful});
  ASSERT_EQ(score.status, 0) << score.err;
  EXPECT_EQ(value_of(score.out, "nll"), value_of(reference.out, "nll"));
}

/// Inputs a and b, outputs c = a + noise and d = a·b + noise: a model with d_x = d_y = 2.
std::string two_dimensional_data() {
  Rng rng(11);
  std::ostringstream csv;
  csv << "a,b,c,d\n";
  for (int i = 0; i < 200; ++i) {
    const double a = rng.normal();
    const double b = rng.normal();
    csv << format_number(a) << ',' << format_number(b) << ','
        << format_number(a + 0.5 * rng.normal()) << ',' << format_number(a * b + rng.normal())
        << '\n';
  }
  return csv.str();
}

TEST(CliFit, TwoDimensionalInputsAndOutputs) {
  const TemporaryFile data("two_dimensional.csv", two_dimensional_data());
  const TemporaryFile model_file("two_dimensional_model.json");
  const CliResult fit = run_cli({"fit", data.path(), "--x", "a,b", "--y", "c,d", "--sigma", "0.5",
                                 "--regularization", "0.1", "--out", model_file.path()});
  ASSERT_EQ(fit.status, 0) << fit.err;
  const ConditionalModel model = load_conditional_model(model_file.path());
  ASSERT_EQ(model.mixture.input_dim(), 2);
  ASSERT_EQ(model.mixture.output_dim(), 2);

  // predict: one mean and one variance column per output.
  const CliResult predict = run_cli({"predict", model_file.path(), data.path()});
  ASSERT_EQ(predict.status, 0) << predict.err;
  const CsvTable predictions = parse_output_csv(predict.out);
  EXPECT_EQ(predictions.column_names, (std::vector<std::string>{"a", "b", "log_density", "mean_c",
                                                                "mean_d", "var_c", "var_d"}));
  const CsvTable table = read_csv(data.path());
  const Matrix x = columns(table, {"a", "b"});
  const Matrix mean = model.mixture.mean(x);
  const Matrix covariance = model.mixture.covariance(x);
  expect_close(column(predictions, "mean_d"), mean.row(1).transpose());
  expect_close(column(predictions, "var_c"), covariance.row(0).transpose());
  expect_close(column(predictions, "var_d"), covariance.row(3).transpose());

  // grid: the first output varies fastest and each conditional density integrates to one.
  constexpr Index kAxisSize = 121;
  const std::string axis = "-6:6:" + std::to_string(kAxisSize);
  const CliResult grid = run_cli(
      {"grid", model_file.path(), "--x-values", "0,0;1,-1", "--y-grid", axis, "--y-grid", axis});
  ASSERT_EQ(grid.status, 0) << grid.err;
  const CsvTable densities = parse_output_csv(grid.out);
  EXPECT_EQ(densities.column_names, (std::vector<std::string>{"a", "b", "c", "d", "density"}));
  ASSERT_EQ(densities.values.cols(), 2 * kAxisSize * kAxisSize);
  EXPECT_EQ(densities.values(2, 1), -6.0 + 0.1);  // c moves first …
  EXPECT_EQ(densities.values(3, 1), -6.0);        // … while d stays
  EXPECT_EQ(densities.values(3, kAxisSize), -6.0 + 0.1);
  const Vector density = column(densities, "density");
  for (Index j = 0; j < 2; ++j) {
    // 2-D trapezoid rule: weight ½ per edge, ¼ per corner.
    double integral = 0.0;
    for (Index d = 0; d < kAxisSize; ++d) {
      for (Index c = 0; c < kAxisSize; ++c) {
        const double weight =
            (c == 0 || c == kAxisSize - 1 ? 0.5 : 1.0) * (d == 0 || d == kAxisSize - 1 ? 0.5 : 1.0);
        integral += weight * density(j * kAxisSize * kAxisSize + d * kAxisSize + c);
      }
    }
    EXPECT_NEAR(integral * 0.1 * 0.1, 1.0, 1e-2) << "x point " << j;
  }

  // sample: x columns repeated, both outputs drawn.
  const CliResult sample =
      run_cli({"sample", model_file.path(), "--x-values", "0,0;1,-1", "--n", "5", "--seed", "3"});
  ASSERT_EQ(sample.status, 0) << sample.err;
  const CsvTable draws = parse_output_csv(sample.out);
  EXPECT_EQ(draws.column_names, (std::vector<std::string>{"a", "b", "c", "d"}));
  const Matrix points = (Matrix(2, 2) << 0, 1, 0, -1).finished();
  const Matrix expected_draws = model.mixture.sample(points, 5, 3);
  expect_close(column(draws, "c"), expected_draws.row(0).transpose(), 0.0);
  expect_close(column(draws, "d"), expected_draws.row(1).transpose(), 0.0);
  EXPECT_EQ(draws.values(1, 7), -1.0);

  expect_usage_error(
      {"grid", model_file.path(), "--x-values", "0,0,1", "--y-grid", axis, "--y-grid", axis},
      "--x-values");
  expect_usage_error({"grid", model_file.path(), "--x-values", "0,0", "--y-grid", axis},
                     "--y-grid");
  expect_usage_error({"predict", model_file.path(), data.path(), "--q", "0.5"}, "--q");
}

TEST(CliHelp, HelpAndVersionExitZero) {
  const CliResult help = run_cli({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("fit"), std::string::npos);
  const CliResult fit_help = run_cli({"fit", "--help"});
  EXPECT_EQ(fit_help.status, 0);
  EXPECT_NE(fit_help.out.find("--sigma"), std::string::npos);
  const CliResult version = run_cli({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out, "cdens 0.1.0 (vector instructions: " + vector_instruction_set() + ")\n");
}

// Bad input. Every case must exit with status 2 and one `cdens: error:` line.

TEST(CliErrors, BadDataFiles) {
  const TemporaryFile ragged("ragged.csv", "a,b\n1,2\n3\n4,5\n");
  const TemporaryFile non_numeric("non_numeric.csv", "a,b\n1,2\n3,abc\n4,5\n");
  const TemporaryFile not_a_number("nan.csv", "a,b\n1,2\n3,NaN\n4,5\n");
  const TemporaryFile constant("constant.csv", "a,b\n1,2\n2,2\n3,2\n4,2\n");
  const TemporaryFile empty("empty.csv", "");
  const auto fit = [](const std::string& path) {
    return std::vector<std::string>{
        "fit", path, "--x", "a", "--y", "b", "--sigma", "0.3", "--regularization", "0.1"};
  };
  expect_usage_error(fit("/nonexistent/data.csv"), "/nonexistent/data.csv");
  // Line 3, column 2: the first field the short row lacks.
  expect_usage_error(fit(ragged.path()), ragged.path() + ":3:2:");
  expect_usage_error(fit(non_numeric.path()), non_numeric.path() + ":3:2:");
  expect_usage_error(fit(not_a_number.path()), not_a_number.path() + ":3:2:");
  expect_usage_error(fit(constant.path()), "constant");
  expect_usage_error(fit(empty.path()), "empty");
  expect_usage_error({"fit", kFaithful, "--x", "speed", "--y", "eruptions"},
                     "unknown column 'speed'");
  expect_usage_error({"fit", kFaithful, "--x", "waiting", "--y", "waiting"}, "waiting");
}

TEST(CliErrors, BadFitOptions) {
  const TemporaryFile four_rows("four_rows.csv", "a,b\n1,2\n3,5\n4,1\n2,2\n");
  const std::vector<std::string> faithful = {"fit",     kFaithful, "--x",
                                             "waiting", "--y",     "eruptions"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> arguments = faithful;
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
  };
  expect_usage_error(with({"--sigma", "-1", "--regularization", "0.1"}), "sigma");
  expect_usage_error(with({"--sigma", "0.3,,1"}), "--sigma");
  expect_usage_error(with({"--regularization", "abc"}), "--regularization");
  expect_usage_error(with({"--sigma", "0.2,0.5", "--regularization", "0.1", "--folds", "1"}),
                     "fold");
  expect_usage_error({"fit", four_rows.path(), "--x", "a", "--y", "b", "--sigma", "0.2,0.5",
                      "--regularization", "0.1", "--folds", "5"},
                     "fold");
  expect_usage_error(with({"--cv-loss", "foo"}), "foo");
  // `cdens fit` fits a method of any family.
  // The message lists every registered method (by name, as the registry sorts them).
  std::string known;
  for (const MethodEntry& method : methods()) known += (known.empty() ? "" : ", ") + method.name;
  expect_usage_error(with({"--method", "foo"}), "known methods: " + known + ")");
  expect_usage_error(with({"--bogus"}), "--bogus");
  // A thread count the machine cannot hold is refused, not handed to the OpenMP runtime.
  expect_usage_error(with({"--threads", "100000"}), "--threads must be at most");
  expect_usage_error(with({"--folds", "many"}), "--folds");
  expect_usage_error(with({"--holdout", "1.5"}), "--holdout");
  expect_usage_error(with({"--seed", "-1"}), "--seed");
  expect_usage_error(with({"--n-centers", "0"}), "--n-centers must be at least 1");
  expect_usage_error({"fit", kFaithful, "--x", "waiting"}, "--y");
  expect_usage_error({"frobnicate"}, "frobnicate");
  expect_usage_error({}, "subcommand");
}

TEST(CliErrors, BadModelFiles) {
  const auto& faithful = FaithfulModel::get();
  ASSERT_EQ(faithful.fit().status, 0) << faithful.fit().err;
  const TemporaryFile not_json("not_json.json", "this is not JSON\n");
  const TemporaryFile not_a_model("not_a_model.json", "{\"answer\": 42}\n");
  nlohmann::json document = nlohmann::json::parse(read_text(faithful.path()));
  document["version"] = kModelFileVersion + 1;
  const TemporaryFile future("future_model.json", document.dump());
  expect_usage_error({"score", not_json.path(), kFaithful}, "JSON");
  expect_usage_error({"info", not_a_model.path()}, "not a cdens model file");
  expect_usage_error({"score", future.path(), kFaithful}, "version");
  expect_usage_error({"info", "/nonexistent/model.json"}, "/nonexistent/model.json");
}

TEST(CliErrors, BadQueries) {
  const auto& faithful = FaithfulModel::get();
  ASSERT_EQ(faithful.fit().status, 0) << faithful.fit().err;
  const std::string& model = faithful.path();
  expect_usage_error({"predict", model, kFaithful, "--q", "1.5"}, "1.5");
  expect_usage_error({"predict", model, kFaithful, "--y", "nothing"}, "nothing");
  expect_usage_error({"score", model, kFaithful, "--x", "speed"}, "speed");
  for (const std::string spec : {"0:7", "7:0:10", "0:7:1", "0:7:2.5", "0:x:10", "0:7:10:3"}) {
    expect_usage_error({"grid", model, "--x-values", "60", "--y-grid", spec}, "--y-grid");
  }
  expect_usage_error({"grid", model, "--y-grid", "0:7:10"}, "--x-values");
  expect_usage_error(
      {"grid", model, "--x-values", "60", "--x-file", kFaithful, "--y-grid", "0:7:10"}, "--x-file");
  expect_usage_error({"grid", model, "--x-values", "60,inf", "--y-grid", "0:7:10"}, "inf");
  expect_usage_error({"sample", model, "--x-values", "60", "--n", "0"}, "at least 1");
  expect_usage_error({"sample", model, "--x-values", "60"}, "--n");
}

/// A kernel method run through `cdens fit` and the same fit through the library.
struct KernelMethodCase {
  std::string method;
  std::vector<std::string> options;
  std::vector<std::string> hyperparameters;
  std::function<ConditionalFit(const Matrix& x, const Matrix& y)> library_fit;
};

std::vector<KernelMethodCase> kernel_method_cases() {
  return {
      {"ekde",
       {"--epsilon", "0.2,0.5", "--sigma", "0.1,0.3", "--folds", "4"},
       {"epsilon", "sigma"},
       [](const Matrix& x, const Matrix& y) {
         EkdeOptions options;
         options.epsilon = {0.2, 0.5};
         options.sigma = {0.1, 0.3};
         options.folds = 4;
         options.seed = 2;
         return fit_ekde(x, y, options);
       }},
      {"nwcde",
       {"--sigma", "0.1,0.3,1", "--n-centers", "60"},
       {"sigma"},
       [](const Matrix& x, const Matrix& y) {
         NwcdeOptions options;
         options.sigma = {0.1, 0.3, 1.0};
         options.n_centers = 60;
         options.seed = 2;
         return fit_nwcde(x, y, options);
       }},
      {"rkde",
       {"--sigma", "0.1,0.3,1"},
       {"sigma", "sigma_marginal"},
       [](const Matrix& x, const Matrix& y) {
         RkdeOptions options;
         options.sigma = {0.1, 0.3, 1.0};
         options.seed = 2;
         return fit_rkde(x, y, options);
       }},
  };
}

TEST(CliKernelMethods, FitEqualsLibraryAndEveryQueryWorksOnTheSavedModel) {
  const CsvTable data = read_csv(kFaithful);
  const Matrix x = columns(data, {"waiting"});
  const Matrix y = columns(data, {"eruptions"});
  for (const auto& method_case : kernel_method_cases()) {
    SCOPED_TRACE("method " + method_case.method);
    const TemporaryFile model_file(method_case.method + "_model.json");
    std::vector<std::string> arguments = {"fit",    kFaithful, "--method", method_case.method,
                                          "--x",    "waiting", "--y",      "eruptions",
                                          "--seed", "2",       "--out",    model_file.path()};
    arguments.insert(arguments.end(), method_case.options.begin(), method_case.options.end());
    const CliResult fit = run_cli(arguments);
    ASSERT_EQ(fit.status, 0) << fit.err;
    EXPECT_EQ(value_of(fit.out, "method"), method_case.method);
    EXPECT_NE(fit.out.find("cross-validation: mean held-out loss"), std::string::npos) << fit.out;

    const ConditionalModel model = load_conditional_model(model_file.path());
    const ConditionalFit library = method_case.library_fit(x, y);
    EXPECT_EQ(model.report.method, method_case.method);
    EXPECT_EQ(model.report.hyperparameters, library.report.hyperparameters);
    EXPECT_EQ(model.mixture.log_pdf(x, y), library.model.log_pdf(x, y));
    for (const auto& name : method_case.hyperparameters) {
      EXPECT_NEAR(number_of(fit.out, name), model.report.hyperparameters.at(name),
                  1e-5 * model.report.hyperparameters.at(name));
    }

    const CliResult score = run_cli({"score", model_file.path(), kFaithful});
    ASSERT_EQ(score.status, 0) << score.err;
    const double expected = mean_log_likelihood(model.mixture, x, y);
    EXPECT_NEAR(number_of(score.out, "mean_log_likelihood"), expected, 1e-9 * std::abs(expected));

    constexpr Index kGridSize = 1801;
    const CliResult grid = run_cli({"grid", model_file.path(), "--x-values", "48,66,84", "--y-grid",
                                    "-1:8:" + std::to_string(kGridSize)});
    ASSERT_EQ(grid.status, 0) << grid.err;
    const Vector density = column(parse_output_csv(grid.out), "density");
    ASSERT_EQ(density.size(), 3 * kGridSize);
    for (Index j = 0; j < 3; ++j) {
      const Vector block = density.segment(j * kGridSize, kGridSize);
      const double integral =
          9.0 / (kGridSize - 1) * (block.sum() - 0.5 * (block(0) + block(kGridSize - 1)));
      EXPECT_NEAR(integral, 1.0, 1e-3) << "x point " << j;
    }

    const CliResult sample =
        run_cli({"sample", model_file.path(), "--x-values", "60", "--n", "40", "--seed", "3"});
    ASSERT_EQ(sample.status, 0) << sample.err;
    expect_close(column(parse_output_csv(sample.out), "eruptions"),
                 model.mixture.sample(Matrix::Constant(1, 1, 60.0), 40, 3).row(0).transpose(), 0.0);

    const CliResult predict = run_cli({"predict", model_file.path(), kFaithful});
    ASSERT_EQ(predict.status, 0) << predict.err;
    expect_close(column(parse_output_csv(predict.out), "mean"),
                 model.mixture.mean(x).row(0).transpose());

    const CliResult info = run_cli({"info", model_file.path()});
    ASSERT_EQ(info.status, 0) << info.err;
    EXPECT_EQ(value_of(info.out, "method"), method_case.method);
    EXPECT_EQ(value_of(info.out, "n_components"), std::to_string(model.mixture.n_components()));
  }
}

TEST(CliKernelMethods, RkdePrintsBothCrossValidationTables) {
  const CliResult fit = run_cli({"fit", kFaithful, "--method", "rkde", "--x", "waiting", "--y",
                                 "eruptions", "--sigma", "0.1,0.3,1"});
  ASSERT_EQ(fit.status, 0) << fit.err;
  EXPECT_NE(fit.out.find("cv_loss: joint_nll"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("auxiliary_cross_validation: marginal_kde"), std::string::npos);
  EXPECT_NE(fit.out.find("cv_loss: marginal_nll"), std::string::npos);
  EXPECT_EQ(value_of(fit.out, "n_train"), "272");
  number_of(fit.out, "mean_log_ratio_mass");
}

TEST(CliKernelMethods, OptionsAMethodDoesNotTakeAreErrors) {
  const TemporaryFile inputs("kernel_unlabeled.csv", "waiting\n50\n70\n");
  const auto fit = [](const std::string& method, std::vector<std::string> extra) {
    std::vector<std::string> arguments = {"fit", kFaithful, "--method", method,
                                          "--x", "waiting", "--y",      "eruptions"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
  };
  expect_usage_error(fit("ekde", {"--regularization", "0.1"}),
                     "--regularization does not apply to --method ekde");
  expect_usage_error(fit("ekde", {"--cv-loss", "sq"}), "--cv-loss");
  expect_usage_error(fit("nwcde", {"--folds", "3"}), "--folds");
  expect_usage_error(fit("rkde", {"--n-centers", "10"}), "--n-centers");
  expect_usage_error(fit("rkde", {"--unlabeled", inputs.path()}), "--unlabeled");
  expect_usage_error(fit("lscde", {"--epsilon", "0.5"}), "--epsilon");
  expect_usage_error(fit("ekde", {"--epsilon", "0.5,-1"}), "epsilon");
  expect_usage_error(fit("ekde", {"--epsilon", "0.5,"}), "--epsilon");
  expect_usage_error(fit("nwcde", {"--sigma", "0.1,0.2", "--n-centers", "1"}), "leave-one-out");
  expect_usage_error(fit("rkde", {"--sigma", "0"}), "sigma");
}

TEST(CliErrors, FailedFitLeavesExistingModelUntouched) {
  const std::string previous = "{\"previous\": \"model\"}\n";
  const TemporaryFile model_file("kept_model.json", previous);
  const TemporaryFile constant("constant_y.csv", "a,b\n1,2\n2,2\n3,2\n4,2\n");
  expect_usage_error({"fit", constant.path(), "--x", "a", "--y", "b", "--sigma", "0.3",
                      "--regularization", "0.1", "--out", model_file.path()},
                     "column 'b' is constant");
  EXPECT_EQ(read_text(model_file.path()), previous);
  expect_usage_error({"fit", kFaithful, "--x", "waiting", "--y", "eruptions", "--sigma", "-1",
                      "--out", model_file.path()},
                     "sigma");
  EXPECT_EQ(read_text(model_file.path()), previous);
}

TEST(CliMethods, ListsTheRegistryAndEveryOptionOfAMethod) {
  const CliResult list = run_cli({"methods"});
  ASSERT_EQ(list.status, 0) << list.err;
  for (const MethodEntry& method : methods()) {
    EXPECT_NE(list.out.find(method.name + ": " + method.summary), std::string::npos) << method.name;
  }
  const CliResult lscde = run_cli({"methods", "lscde"});
  ASSERT_EQ(lscde.status, 0) << lscde.err;
  for (const OptionInfo& option : method_named("lscde")->options) {
    EXPECT_NE(lscde.out.find("option " + option.name + "\n  flag: " + option.cli_flag),
              std::string::npos)
        << option.name;
  }
  // The defaults printed are LscdeOptions{}'s.
  EXPECT_NE(lscde.out.find("default: 100\n"), std::string::npos);  // n_centers
  EXPECT_NE(lscde.out.find("default: kl\n"), std::string::npos);   // cv_loss
  expect_usage_error({"methods", "nonsense"}, "unknown method 'nonsense'");
}

TEST(CliErrors, PressRefusesBadInput) {
  const std::vector<std::string> fit = {"fit", kFaithful, "--method", "press",
                                        "--x", "waiting", "--y",      "eruptions"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> arguments = fit;
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
  };
  expect_usage_error(with({"--n-states", "3", "--max-states", "5"}), "n_states or max_states");
  expect_usage_error(with({"--criterion", "aic"}), "criterion");
  expect_usage_error(with({"--optimizer", "sgd"}), "--optimizer");
  expect_usage_error(with({"--holdout-fraction", "1.5"}), "--holdout-fraction must lie in");
  expect_usage_error(
      {"fit", kFaithful, "--method", "press", "--x", "waiting", "--y", "waiting,eruptions"},
      "one output");
  // --regularization is the other methods' λ grid; PRESS's LASSO weight is --lasso-weight.
  expect_usage_error(with({"--regularization", "0.1"}),
                     "option --regularization does not apply to --method press (its options: ");
  // A model of another method answers other queries (here none), named before the data are read.
  expect_usage_error(
      {"predict", FaithfulModel::get().path(), kFaithful, "--query", "state_weights"},
      "models of method lscde answer no query 'state_weights' (they answer none)");
}

// The grammar: `cdens fit --method M` for every family, and verbs that dispatch on the kind of
// the model file.

TEST(CliGrammar, TheFlatVerbsAnswerForADensityModelAndAPressModel) {
  const TemporaryFile density_file("flat_gmm.json");
  ASSERT_EQ(run_cli({"fit", kFaithful, "--method", "gmm", "--n-components", "2", "--seed", "3",
                     "--out", density_file.path()})
                .status,
            0);
  const DensityModel density = load_density_model(density_file.path());
  const CliResult score = run_cli({"score", density_file.path(), kFaithful});
  const Matrix x = columns(read_csv(kFaithful), density.names);
  EXPECT_EQ(value_of(score.out, "mean_log_likelihood"),
            format_number(density.mixture.log_pdf(x).mean()));

  const TemporaryFile press_file("flat_press.json");
  ASSERT_EQ(run_cli({"fit", kFaithful, "--method", "press", "--x", "waiting", "--y", "eruptions",
                     "--n-states", "2", "--n-restarts", "1", "--max-iter", "100", "--lasso-weight",
                     "0.01", "--out", press_file.path()})
                .status,
            0);
  EXPECT_EQ(load_conditional_model(press_file.path()).report.method, "press");
  // Without --query a PRESS model answers `predict` as every conditional model does.
  const CliResult predict = run_cli({"predict", press_file.path(), kFaithful});
  ASSERT_EQ(predict.status, 0) << predict.err;
  EXPECT_EQ(parse_output_csv(predict.out).column_names,
            (std::vector<std::string>{"waiting", "log_density", "mean", "variance", "q0.05", "q0.5",
                                      "q0.95"}));
  // Its method's queries add their columns: the registry's answers, written in full precision.
  const CliResult queried = run_cli(
      {"predict", press_file.path(), kFaithful, "--query", "point_prediction,state_weights"});
  ASSERT_EQ(queried.status, 0) << queried.err;
  const auto table = parse_output_csv(queried.out);
  EXPECT_EQ(table.column_names,
            (std::vector<std::string>{"waiting", "log_density", "mean", "variance", "q0.05", "q0.5",
                                      "q0.95", "point_prediction", "state_weights_1",
                                      "state_weights_2"}));
  const ConditionalModel model = load_conditional_model(press_file.path());
  const Matrix waiting = columns(read_csv(kFaithful), {"waiting"});
  const Matrix weights = answer_query(model, "state_weights", waiting);
  const Matrix prediction = answer_query(model, "point_prediction", waiting);
  for (Index i = 0; i < waiting.cols(); i += 37) {
    EXPECT_EQ(table.values(7, i), prediction(i, 0)) << "row " << i;
    EXPECT_EQ(table.values(8, i), weights(i, 0)) << "row " << i;
    EXPECT_EQ(table.values(9, i), weights(i, 1)) << "row " << i;
  }
}

TEST(CliGrammar, TestScoresAConditionalFitOnAnotherFile) {
  // Scored on its own training rows here, so that the figures can be recomputed: the NLL is the
  // mean of the model's log-densities, the MSE that of its conditional mean.
  const TemporaryFile model_file("test_scores.json");
  const CliResult fit = run_cli({"fit", kFaithful, "--method", "nwcde", "--x", "waiting", "--y",
                                 "eruptions", "--test", kFaithful, "--out", model_file.path()});
  ASSERT_EQ(fit.status, 0) << fit.err;
  const ConditionalModel model = load_conditional_model(model_file.path());
  const CsvTable data = read_csv(kFaithful);
  const Matrix x = columns(data, {"waiting"});
  const Matrix y = columns(data, {"eruptions"});
  const Vector residuals = y.row(0).transpose() - model.mixture.mean(x).row(0).transpose();
  EXPECT_EQ(value_of(fit.out, "test_n"), std::to_string(x.cols()));
  EXPECT_EQ(value_of(fit.out, "test_nll"), format_number(-model.mixture.log_pdf(x, y).mean()));
  EXPECT_EQ(value_of(fit.out, "test_mse"),
            format_number(residuals.squaredNorm() / static_cast<double>(residuals.size())));
  EXPECT_EQ(value_of(fit.out, "test_mad"), format_number(residuals.cwiseAbs().mean()));
}

TEST(CliGrammar, AVerbOrOptionForAnotherKindOfModelIsRefusedNamingTheKind) {
  const TemporaryFile density_file("kind_gmm.json");
  const TemporaryFile press_file("kind_press.json");
  ASSERT_EQ(run_cli({"fit", kFaithful, "--method", "gmm", "--n-components", "2", "--out",
                     density_file.path()})
                .status,
            0);
  ASSERT_EQ(run_cli({"fit", kFaithful, "--method", "press", "--x", "waiting", "--y", "eruptions",
                     "--n-states", "2", "--n-restarts", "1", "--max-iter", "50", "--out",
                     press_file.path()})
                .status,
            0);
  const std::string& density = density_file.path();
  const std::string& press = press_file.path();
  const std::string& lscde = FaithfulModel::get().path();
  const CliResult predict = run_cli({"predict", density, kFaithful});
  EXPECT_EQ(predict.status, 2);
  EXPECT_EQ(predict.out, "");
  EXPECT_EQ(predict.err, "cdens: error: 'cdens predict' does not apply to " + density +
                             ", a density model p(x) fitted by gmm (its commands: score, "
                             "evaluate, compare, grid, sample, info)\n");
  expect_usage_error({"features", density},
                     "'cdens features' does not apply to " + density + ", a density model p(x)");
  expect_usage_error({"features", press}, "'cdens features' does not apply to " + press +
                                              ", a PRESS regression model fitted by press");
  expect_usage_error(
      {"grid", lscde, "--x-values", "60", "--grid", "0:1:5"},
      "option --grid does not apply to " + lscde + ", a conditional density model p(y|x)");
  expect_usage_error({"grid", density, "--x-values", "60", "--grid", "0:1:5", "--grid", "0:1:5"},
                     "option --x-values does not apply to " + density + ", a density model p(x)");
  expect_usage_error({"sample", density, "--x-values", "60", "--n", "3"},
                     "option --x-values does not apply to " + density);
  expect_usage_error({"score", density, kFaithful, "--x", "waiting"},
                     "option --x does not apply to " + density);
  expect_usage_error({"score", lscde, kFaithful, "--columns", "waiting"},
                     "option --columns does not apply to " + lscde);
  expect_usage_error({"fit", kFaithful, "--method", "gmm", "--x", "waiting"},
                     "option --x does not apply to --method gmm, which fits a density model p(x)");
  expect_usage_error({"fit", kFaithful, "--x", "waiting", "--y", "eruptions", "--columns", "a"},
                     "option --columns does not apply to --method lscde");
  expect_usage_error({"fit", kFaithful, "--method", "press", "--x", "waiting", "--y", "eruptions",
                      "--holdout", "0.2"},
                     "option --holdout does not apply to --method press");
  expect_usage_error({"fit", kFaithful, "--method", "parzen", "--test", kFaithful},
                     "option --test does not apply to --method parzen");
  // Each verb answers for the kinds it serves.
  for (const std::string& model : {density, press, lscde}) {
    SCOPED_TRACE(model);
    EXPECT_EQ(run_cli({"info", model}).status, 0);
    EXPECT_EQ(run_cli({"score", model, kFaithful}).status, 0);
  }
  EXPECT_EQ(run_cli({"grid", press, "--x-values", "60", "--y-grid", "1:6:5"}).status, 0);
  EXPECT_EQ(run_cli({"sample", density, "--n", "5"}).status, 0);
}

}  // namespace
}  // namespace cdens::test
