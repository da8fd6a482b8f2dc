// The contract every registered method keeps, checked for each entry of the registry with its
// own cheap test options (MethodEntry::test_options) — our check_estimator: registering a method
// is enough to have it checked. A fit through the registry equals the method's fit called
// directly (and a fit with equal sample weights, where it takes weights); the result does not
// depend on the thread count; the model file round-trips bit for bit; densities integrate to 1;
// scaling the data rescales the density exactly as a change of units must; bad data is refused;
// every extra a method declares comes with its declared shape, and every query answers with its
// declared shape, row by row, the same from a model read back from its file; identical rows
// (docs/methods/duplicates.md): the table written twice or five times is the table, a fifth of
// its rows written twice is the table with weight 2 on them (a method without weights keeps
// them, as `duplicates = keep` does: the fit on the rows as given).

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr Index kPairs = 60;

/// The conditional methods' data: x in 2 dimensions, a scalar y (sine_sample), and a second
/// output for the methods that take several.
struct Pairs {
  Matrix x;
  Matrix y;
};

Pairs pairs(Index output_dim) {
  const test::PairSample sample = test::sine_sample(kPairs, 2, 8);
  Pairs data{sample.x, Matrix(output_dim, kPairs)};
  data.y.row(0) = sample.y.row(0);
  if (output_dim > 1)
    data.y.row(1) = sample.x.row(1).array().square() + 0.5 * sample.y.row(0).array();
  return data;
}

/// The density methods' samples: standard normal draws in `dimension` dimensions.
Matrix samples(Index dimension) {
  Rng rng(3);
  return test::normal_matrix(dimension, kPairs, rng);
}

ConditionalModel fit_pairs(const MethodEntry& method, const Matrix& x, const Matrix& y,
                           const OptionValues& values, const FitContext& context = {}) {
  return fit_method(method, x, y, Matrix(x.rows(), 0), values, context);
}

/// The test options with `name` (an option of type `type`, if the method has one) set to `value`.
OptionValues with_option_of_type(const MethodEntry& method, OptionType type, OptionValue value) {
  OptionValues values = method.test_options;
  for (const OptionInfo& option : method.options) {
    if (option.type == type) values[option.name] = value;
  }
  return values;
}

bool has_option_of_type(const MethodEntry& method, OptionType type) {
  for (const OptionInfo& option : method.options) {
    if (option.type == type) return true;
  }
  return false;
}

/// `model` written to a model file with `save` and read back with `load`; expects the model
/// read to write the same bytes again. Small models are written as JSON text, large ones as CBOR
/// (json_io.hpp): either way.
template <class Model>
Model written_read_and_rewritten(const Model& model, void (*save)(const Model&, const std::string&),
                                 Model (*load)(const std::string&)) {
  const std::string path = test::temporary_path("conformance.model");
  save(model, path);
  const Model loaded = load(path);
  const std::string written = test::file_bytes(path);
  save(loaded, path);
  EXPECT_EQ(test::file_bytes(path), written) << "written again, the file differs";
  std::remove(path.c_str());
  return loaded;
}

std::string method_name(const testing::TestParamInfo<const MethodEntry*>& info) {
  std::string name = info.param->name;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

std::vector<const MethodEntry*> of_family(bool density) {
  std::vector<const MethodEntry*> chosen;
  for (const MethodEntry& method : methods()) {
    if ((method.family == MethodFamily::density) == density) chosen.push_back(&method);
  }
  return chosen;
}

class ConditionalConformance : public testing::TestWithParam<const MethodEntry*> {};
class DensityConformance : public testing::TestWithParam<const MethodEntry*> {};

INSTANTIATE_TEST_SUITE_P(Registry, ConditionalConformance, testing::ValuesIn(of_family(false)),
                         method_name);
INSTANTIATE_TEST_SUITE_P(Registry, DensityConformance, testing::ValuesIn(of_family(true)),
                         method_name);

TEST_P(ConditionalConformance, RegistryFitEqualsTheDirectFitAndEqualWeightsAreNoWeights) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  const ConditionalModel registry = fit_pairs(method, data.x, data.y, method.test_options);
  const ConditionalModel direct =
      method.fit_conditional(data.x, data.y, Matrix(2, 0), method.test_options, {}).model;
  EXPECT_EQ(registry.mixture.log_pdf(data.x, data.y), direct.mixture.log_pdf(data.x, data.y));
  // The registry adds what the fit saw beyond the parameters: the range of its inputs
  // (docs/design.md, "Beyond the data"; a method that fits through the registry itself, as auto
  // its candidates, has one already).
  nlohmann::json registry_document = registry.mixture.to_json();
  nlohmann::json direct_document = direct.mixture.to_json();
  EXPECT_EQ(registry_document.count("input_range"), 1u);
  registry_document.erase("input_range");
  direct_document.erase("input_range");
  EXPECT_EQ(registry_document, direct_document);
  if (method.sample_weights) {
    const ConditionalModel weighted =
        fit_pairs(method, data.x, data.y, method.test_options,
                  test::weighted_context(Vector::Constant(kPairs, 2.5)));
    EXPECT_EQ(weighted.mixture.log_pdf(data.x, data.y), direct.mixture.log_pdf(data.x, data.y));
  }
}

/// The columns of `data` written `times` times, one copy after the other (a file written twice).
Matrix written(const Matrix& data, Index times) { return data.replicate(1, times); }

/// Every fifth column of `data` (a fifth of the rows) written once more, at the end.
Matrix fifth_written_twice(const Matrix& data) {
  std::vector<Index> columns(static_cast<std::size_t>(data.cols()));
  for (Index i = 0; i < data.cols(); ++i) columns[static_cast<std::size_t>(i)] = i;
  for (Index i = 0; i < data.cols(); i += 5) columns.push_back(i);
  return data(Eigen::all, columns);
}

/// Weight 2 on the rows fifth_written_twice repeats, 1 on the others.
Vector weight_two_on_every_fifth(Index n) {
  Vector weights = Vector::Ones(n);
  for (Index i = 0; i < n; i += 5) weights(i) = 2.0;
  return weights;
}

/// Whether one of the report's warnings contains `text`.
bool warns(const FitReport& report, const std::string& text) {
  return std::any_of(report.warnings.begin(), report.warnings.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

/// The method's test options with duplicates = keep.
OptionValues keeping_duplicates(const MethodEntry& method) {
  OptionValues values = method.test_options;
  values["duplicates"] = std::string("keep");
  return values;
}

TEST_P(ConditionalConformance, TableWrittenTwiceOrFiveTimesIsTheTable) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  const MethodFit<ConditionalModel> once =
      fit_method_with_extras(method, data.x, data.y, Matrix(2, 0), method.test_options);
  for (const Index times : {2, 5}) {
    SCOPED_TRACE(times);
    const MethodFit<ConditionalModel> repeated = fit_method_with_extras(
        method, written(data.x, times), written(data.y, times), Matrix(2, 0), method.test_options);
    EXPECT_EQ(repeated.model.mixture.to_json(), once.model.mixture.to_json());
    EXPECT_EQ(repeated.model.mixture.log_pdf(data.x, data.y),
              once.model.mixture.log_pdf(data.x, data.y));
    EXPECT_EQ(repeated.model.report.hyperparameters, once.model.report.hyperparameters);
    EXPECT_EQ(repeated.model.report.statistics.at("duplicate_rows"), (times - 1) * kPairs);
    EXPECT_TRUE(warns(repeated.model.report, "fitted as one row weighing their total"));
    // An extra of the rows has a row for each row given: its group's.
    for (const ArrayDeclaration& declared : method.extras) {
      if (declared.shape.front() != "n") continue;
      const Matrix& every = std::get<Matrix>(repeated.extras.at(declared.name));
      EXPECT_EQ(every, std::get<Matrix>(once.extras.at(declared.name)).replicate(times, 1))
          << declared.name;
    }
  }
  // A table with duplicates of its own, written twice: the common factor of the groups' sizes
  // goes, with or without weights.
  const Matrix x = fifth_written_twice(data.x);
  const Matrix y = fifth_written_twice(data.y);
  EXPECT_EQ(fit_pairs(method, written(x, 2), written(y, 2), method.test_options).mixture.to_json(),
            fit_pairs(method, x, y, method.test_options).mixture.to_json());
}

TEST_P(ConditionalConformance, RowsWrittenTwiceAreWeightedRowsOrKeptAsKeepKeepsThem) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  const Matrix x = fifth_written_twice(data.x);
  const Matrix y = fifth_written_twice(data.y);
  const ConditionalModel merged = fit_pairs(method, x, y, method.test_options);
  // The method's own fit of the rows as given, with the range of the inputs the registry's fit
  // adds to every model.
  ConditionalModel as_given =
      method.fit_conditional(x, y, Matrix(2, 0), method.test_options, {}).model;
  as_given.mixture = as_given.mixture.with_input_range(InputRange::of(x));
  EXPECT_EQ(merged.report.statistics.at("duplicate_rows"), kPairs / 5);
  if (method.sample_weights) {
    const ConditionalModel weighted =
        fit_pairs(method, data.x, data.y, method.test_options,
                  test::weighted_context(weight_two_on_every_fifth(kPairs)));
    EXPECT_EQ(merged.mixture.to_json(), weighted.mixture.to_json());
    EXPECT_EQ(merged.mixture.log_pdf(data.x, data.y), weighted.mixture.log_pdf(data.x, data.y));
  } else {
    EXPECT_EQ(merged.mixture.log_pdf(data.x, data.y), as_given.mixture.log_pdf(data.x, data.y));
    EXPECT_TRUE(warns(merged.report, "takes no sample weights"));
  }
  const ConditionalModel kept = fit_pairs(method, x, y, keeping_duplicates(method));
  EXPECT_EQ(kept.mixture.to_json(), as_given.mixture.to_json());
  EXPECT_EQ(kept.mixture.log_pdf(data.x, data.y), as_given.mixture.log_pdf(data.x, data.y));
  EXPECT_EQ(kept.report.statistics.at("duplicate_rows"), kPairs / 5);
  EXPECT_TRUE(warns(kept.report, "duplicates = keep"));
}

TEST_P(ConditionalConformance, ResultDoesNotDependOnTheThreadCount) {
  const MethodEntry& method = *GetParam();
  if (!has_option_of_type(method, OptionType::threads)) GTEST_SKIP() << "runs on one thread";
  const Pairs data = pairs(1);
  const ConditionalModel one = fit_pairs(
      method, data.x, data.y, with_option_of_type(method, OptionType::threads, std::int64_t{1}));
  const ConditionalModel two = fit_pairs(
      method, data.x, data.y, with_option_of_type(method, OptionType::threads, std::int64_t{2}));
  EXPECT_EQ(one.mixture.to_json(), two.mixture.to_json());
  EXPECT_EQ(one.mixture.log_pdf(data.x, data.y), two.mixture.log_pdf(data.x, data.y));
}

/// Sets the calling thread's OpenMP thread count for the scope (the count a query outside the
/// fit's own threads runs with: the BLAS under it, and a library's parallel products, may split
/// their work by it).
class CallerThreads {
 public:
  explicit CallerThreads(int threads) : saved_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~CallerThreads() { omp_set_num_threads(saved_); }
  CallerThreads(const CallerThreads&) = delete;
  CallerThreads& operator=(const CallerThreads&) = delete;

 private:
  int saved_;
};

/// Every answer a fitted model gives at the query pairs (x, y): densities, moments, CDF,
/// quantiles, draws of a fixed seed, CRPS, and the method's own queries, in one list.
std::vector<Matrix> every_answer(const MethodEntry& method, const ConditionalModel& model,
                                 const Matrix& x, const Matrix& y) {
  const ConditionalMixture& mixture = model.mixture;
  std::vector<Matrix> answers = {mixture.log_pdf(x, y), mixture.mean(x), mixture.covariance(x),
                                 mixture.sample(x, 3, 11)};
  if (mixture.output_dim() == 1) {
    answers.push_back(mixture.cdf(x, y));
    answers.push_back(mixture.quantiles(x, {0.05, 0.5, 0.95}));
    answers.push_back(crps(mixture, x, y));
  }
  for (const MethodQuery& query : method.queries) answers.push_back(query.answer(model, x));
  return answers;
}

TEST_P(ConditionalConformance, AnswersDoNotDependOnTheCallersThreadCount) {
  // Issue 55: PRESS's conditional means differed in the last place between a caller of one
  // OpenMP thread and one of two (a threaded BLAS split the product by the caller's count). The
  // queries outside the fit's threads are asked of 2,000 rows, enough for a BLAS to split them
  // (more caller threads than cores leave libomp's thread descriptors to LeakSanitizer).
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  const ConditionalModel model = fit_pairs(method, data.x, data.y, method.test_options);
  const test::PairSample queries = test::sine_sample(2000, 2, 9);
  std::vector<Matrix> one;
  {
    const CallerThreads threads(1);
    one = every_answer(method, model, queries.x, queries.y);
  }
  const CallerThreads threads(2);
  const std::vector<Matrix> two = every_answer(method, model, queries.x, queries.y);
  ASSERT_EQ(two.size(), one.size());
  for (std::size_t k = 0; k < two.size(); ++k) {
    EXPECT_EQ(two[k], one[k]) << "answer " << k << " with 2 threads";
  }
}

TEST_P(ConditionalConformance, ModelFileRoundTripsBitForBit) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(method.multi_output ? 2 : 1);
  ConditionalModel model = fit_pairs(method, data.x, data.y, method.test_options);
  model.x_names = {"a", "b"};
  for (Index d = 0; d < data.y.rows(); ++d) model.y_names.push_back("y" + std::to_string(d));
  const ConditionalModel loaded =
      written_read_and_rewritten(model, &save_conditional_model, &load_conditional_model);
  EXPECT_EQ(loaded.mixture.log_pdf(data.x, data.y), model.mixture.log_pdf(data.x, data.y));
}

/// The size a declared dimension stands for in a fit of `rows` rows whose model is `model`.
Index size_of(const std::string& dimension, Index rows, const ConditionalModel& model) {
  return declared_size(dimension, rows, model.mixture.input_dim(), model.mixture.output_dim(),
                       model.report);
}

TEST_P(ConditionalConformance, ExtrasComeWithTheirDeclaredShapes) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  const MethodFit<ConditionalModel> fit =
      fit_method_with_extras(method, data.x, data.y, Matrix(2, 0), method.test_options);
  EXPECT_EQ(fit.extras.size(), method.extras.size()) << "an extra returned but not declared";
  for (const ArrayDeclaration& declared : method.extras) {
    SCOPED_TRACE(declared.name);
    ASSERT_EQ(fit.extras.count(declared.name), 1u);
    ASSERT_TRUE(declared.shape.size() == 1 || declared.shape.size() == 2);
    const ArrayValue& value = fit.extras.at(declared.name);
    const Index first = size_of(declared.shape.front(), kPairs, fit.model);
    if (declared.shape.back() == "*") {
      const auto& items = std::get<std::vector<Vector>>(value);
      EXPECT_EQ(static_cast<Index>(items.size()), first);
      for (const Vector& item : items) EXPECT_TRUE(item.allFinite());
      continue;
    }
    const Matrix& matrix = std::get<Matrix>(value);
    EXPECT_EQ(matrix.rows(), first);
    EXPECT_EQ(matrix.cols(),
              declared.shape.size() == 1 ? 1 : size_of(declared.shape[1], kPairs, fit.model));
    EXPECT_TRUE(matrix.allFinite());
  }
}

/// Each query answers n rows of its declared width, finite; a row's answer is the answer for
/// that row alone (a query is per row: 1e-12 relative, for sums a block of rows may order
/// otherwise); the model read back from its file answers the same to the bit; a query the
/// method does not declare is refused naming the ones it does.
TEST_P(ConditionalConformance, QueriesAnswerWithTheirDeclaredShapesRowByRow) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  ConditionalModel model = fit_pairs(method, data.x, data.y, method.test_options);
  EXPECT_THROW(answer_query(model, "no_such_query", data.x), InvalidArgument);
  model.x_names = {"a", "b"};
  model.y_names = {"y0"};
  const ConditionalModel loaded =
      written_read_and_rewritten(model, &save_conditional_model, &load_conditional_model);
  for (const MethodQuery& query : method.queries) {
    SCOPED_TRACE(query.result.name);
    ASSERT_EQ(query.result.shape.front(), "n");
    const Matrix answer = answer_query(model, query.result.name, data.x);
    EXPECT_EQ(answer.rows(), kPairs);
    EXPECT_EQ(answer.cols(),
              query.result.shape.size() == 1 ? 1 : size_of(query.result.shape[1], kPairs, model));
    EXPECT_TRUE(answer.allFinite());
    for (const Index row : {Index{0}, Index{17}, Index{41}}) {
      const Matrix alone = answer_query(model, query.result.name, data.x.col(row));
      ASSERT_EQ(alone.rows(), 1);
      for (Index c = 0; c < answer.cols(); ++c) {
        EXPECT_NEAR(alone(0, c), answer(row, c), 1e-12 * std::max(1.0, std::abs(answer(row, c))))
            << "row " << row << ", column " << c;
      }
    }
    EXPECT_EQ(answer_query(loaded, query.result.name, data.x), answer);
    EXPECT_THROW(answer_query(model, query.result.name, Matrix(3, 2)), InvalidArgument)
        << "inputs of another dimension";
  }
}

/// ∫ p(y | x) dy by the trapezoid rule, on steps of a quarter of the narrowest component's width
/// (user units) over the training outputs and the conditional mean ± 40 standard deviations,
/// widened by 12 of the widest component's widths: within 1e-6 of 1. The rule's error on a
/// Gaussian of width σ at step h is about exp(−2π²σ²/h²) (e^−316 here), the tails beyond 12
/// widths hold less than 1e-32, so the tolerance is the sums' rounding with room to spare.
double integral_over_y(const ConditionalMixture& model, const Vector& x, const Matrix& y) {
  const double user_scale = model.y_scaling().scale()(0);
  const double narrowest = model.scales().minCoeff() * user_scale;
  const double widest = model.scales().maxCoeff() * user_scale;
  const double mean = model.mean(x)(0, 0);
  const double spread = std::sqrt(model.covariance(x)(0, 0));
  const double low = std::min(y.minCoeff(), mean - 40 * spread) - 12 * widest;
  const double high = std::max(y.maxCoeff(), mean + 40 * spread) + 12 * widest;
  const int points = static_cast<int>((high - low) / (0.25 * narrowest)) + 2;
  return test::integral_over_y(model, x, low, high, points);
}

TEST_P(ConditionalConformance, DensityIntegratesToOneOverY) {
  const MethodEntry& method = *GetParam();
  const Pairs data = pairs(1);
  const ConditionalModel model = fit_pairs(method, data.x, data.y, method.test_options);
  for (const Index column : {Index{0}, Index{17}, Index{41}}) {
    EXPECT_NEAR(integral_over_y(model.mixture, data.x.col(column), data.y), 1.0, 1e-6)
        << "at x of pair " << column;
  }
  // Far outside the training inputs the weights underflow: the marginal fallback integrates
  // to 1 too (DESIGN: the edge of the data).
  EXPECT_NEAR(integral_over_y(model.mixture, Vector::Constant(2, 1e3), data.y), 1.0, 1e-6);
}

/// y in other units (times c): log p(c y | x) = log p(y | x) − d_y log c, and x in other units
/// leaves p(y | x) as it was. Every method works on standardised data, so the two fits see the
/// same numbers up to the rounding of the standardisation (c = 3 is not a power of two) carried
/// through the fit: 1e-6 relative on log-densities of order 1 is far below any change of a
/// choice (a grid point, a centre, a bandwidth), and above what an iterative solve stopped by a
/// tolerance moves (auto's stacking weights: EM stopped at a gain below 1e-12 in the mean log
/// score leaves the weights about 1e-6 from the optimum, the log-densities 3e-8 apart).
TEST_P(ConditionalConformance, ScalingTheDataIsAChangeOfUnits) {
  const MethodEntry& method = *GetParam();
  const Index output_dim = method.multi_output ? 2 : 1;
  const Pairs data = pairs(output_dim);
  const double c = 3.0;
  const Vector base =
      fit_pairs(method, data.x, data.y, method.test_options).mixture.log_pdf(data.x, data.y);
  const Matrix scaled_y = c * data.y;
  const Vector in_y =
      fit_pairs(method, data.x, scaled_y, method.test_options).mixture.log_pdf(data.x, scaled_y);
  const Matrix scaled_x = c * data.x;
  const Vector in_x =
      fit_pairs(method, scaled_x, data.y, method.test_options).mixture.log_pdf(scaled_x, data.y);
  const double shift = static_cast<double>(output_dim) * std::log(c);
  for (Index i = 0; i < base.size(); ++i) {
    const double tolerance = 1e-6 * std::max(1.0, std::abs(base(i)));
    EXPECT_NEAR(in_y(i), base(i) - shift, tolerance) << "y scaled, pair " << i;
    EXPECT_NEAR(in_x(i), base(i), tolerance) << "x scaled, pair " << i;
  }
}

TEST_P(ConditionalConformance, RefusesBadData) {
  const MethodEntry& method = *GetParam();
  test::expect_rejects_bad_training_pairs([&](const Matrix& x, const Matrix& y) {
    return fit_pairs(method, x, y, method.test_options);
  });
  const Pairs data = pairs(1);
  EXPECT_ANY_THROW(fit_pairs(method, data.x.leftCols(1), data.y.leftCols(1), method.test_options))
      << "one pair";
}

TEST_P(DensityConformance, RegistryFitEqualsTheDirectFitAndEqualWeightsAreNoWeights) {
  const MethodEntry& method = *GetParam();
  const Matrix x = samples(2);
  const DensityModel registry = fit_method(method, x, method.test_options);
  const DensityModel direct = method.fit_density(x, method.test_options, {}).model;
  EXPECT_EQ(registry.mixture.log_pdf(x), direct.mixture.log_pdf(x));
  if (method.sample_weights) {
    const DensityModel weighted = fit_method(method, x, method.test_options,
                                             test::weighted_context(Vector::Constant(kPairs, 0.5)));
    EXPECT_EQ(weighted.mixture.log_pdf(x), direct.mixture.log_pdf(x));
  }
}

TEST_P(DensityConformance, TableWrittenTwiceOrFiveTimesIsTheTable) {
  const MethodEntry& method = *GetParam();
  const Matrix x = samples(2);
  const DensityModel once = fit_method(method, x, method.test_options);
  for (const Index times : {2, 5}) {
    SCOPED_TRACE(times);
    const DensityModel repeated = fit_method(method, written(x, times), method.test_options);
    EXPECT_EQ(repeated.mixture.log_pdf(x), once.mixture.log_pdf(x));
    EXPECT_EQ(repeated.report.hyperparameters, once.report.hyperparameters);
    EXPECT_EQ(repeated.report.statistics.at("duplicate_rows"), (times - 1) * kPairs);
  }
  const Matrix doubled = fifth_written_twice(x);
  EXPECT_EQ(fit_method(method, written(doubled, 2), method.test_options).mixture.log_pdf(x),
            fit_method(method, doubled, method.test_options).mixture.log_pdf(x));
}

TEST_P(DensityConformance, RowsWrittenTwiceAreWeightedRowsOrKeptAsKeepKeepsThem) {
  const MethodEntry& method = *GetParam();
  const Matrix x = samples(2);
  const Matrix doubled = fifth_written_twice(x);
  const DensityModel merged = fit_method(method, doubled, method.test_options);
  const DensityModel as_given = method.fit_density(doubled, method.test_options, {}).model;
  if (method.sample_weights) {
    const DensityModel weighted = fit_method(
        method, x, method.test_options, test::weighted_context(weight_two_on_every_fifth(kPairs)));
    EXPECT_EQ(merged.mixture.log_pdf(x), weighted.mixture.log_pdf(x));
  } else {
    EXPECT_EQ(merged.mixture.log_pdf(x), as_given.mixture.log_pdf(x));
  }
  const DensityModel kept = fit_method(method, doubled, keeping_duplicates(method));
  EXPECT_EQ(kept.mixture.log_pdf(x), as_given.mixture.log_pdf(x));
  EXPECT_TRUE(warns(kept.report, "duplicates = keep"));
}

TEST_P(DensityConformance, ResultDoesNotDependOnTheThreadCount) {
  const MethodEntry& method = *GetParam();
  const Matrix x = samples(2);
  const DensityModel one =
      fit_method(method, x, with_option_of_type(method, OptionType::threads, std::int64_t{1}));
  const DensityModel two =
      fit_method(method, x, with_option_of_type(method, OptionType::threads, std::int64_t{2}));
  EXPECT_EQ(one.mixture.to_json(), two.mixture.to_json());
  EXPECT_EQ(one.mixture.log_pdf(x), two.mixture.log_pdf(x));
}

TEST_P(DensityConformance, AnswersDoNotDependOnTheCallersThreadCount) {
  const MethodEntry& method = *GetParam();
  const DensityModel model = fit_method(method, samples(2), method.test_options);
  Rng rng(5);
  const Matrix queries = test::normal_matrix(2, 2000, rng);
  std::pair<Vector, Matrix> one;
  {
    const CallerThreads threads(1);
    one = {model.mixture.log_pdf(queries), model.mixture.sample(500, 7)};
  }
  const CallerThreads threads(2);
  EXPECT_EQ(model.mixture.log_pdf(queries), one.first) << "2 threads";
  EXPECT_EQ(model.mixture.sample(500, 7), one.second) << "2 threads";
}

TEST_P(DensityConformance, ModelFileRoundTripsBitForBit) {
  const MethodEntry& method = *GetParam();
  const Matrix x = samples(2);
  DensityModel model = fit_method(method, x, method.test_options);
  model.names = {"a", "b"};
  const DensityModel loaded =
      written_read_and_rewritten(model, &save_density_model, &load_density_model);
  EXPECT_EQ(loaded.mixture.log_pdf(x), model.mixture.log_pdf(x));
}

/// The trapezoid rule on steps of a quarter of the narrowest kernel width over the samples
/// widened by 12 of the widest kernel's widths: in 1-D within 1e-6 of 1, in 2-D (a product grid,
/// the same step) too. The rule's error on a Gaussian is about exp(−2π²σ²/h²) (e^−316), the
/// tails hold less than 1e-32; the kernel-sum engine answers each density within 1e-6 relative.
TEST_P(DensityConformance, DensityIntegratesToOneIn1DAnd2D) {
  const MethodEntry& method = *GetParam();
  for (const Index dimension : {Index{1}, Index{2}}) {
    const Matrix x = samples(dimension);
    const DensityModel model = fit_method(method, x, method.test_options);
    const Vector user_scale = model.mixture.x_scaling().scale();
    double narrowest = INFINITY;
    double widest = 0.0;
    for (Index d = 0; d < dimension; ++d) {
      narrowest = std::min(narrowest, model.mixture.scales().row(d).minCoeff() * user_scale(d));
      widest = std::max(widest, model.mixture.scales().row(d).maxCoeff() * user_scale(d));
    }
    const double step = 0.25 * narrowest;
    std::vector<Vector> axes;
    for (Index d = 0; d < dimension; ++d) {
      const double low = x.row(d).minCoeff() - 12 * widest;
      const double high = x.row(d).maxCoeff() + 12 * widest;
      const Index points = static_cast<Index>((high - low) / step) + 2;
      axes.push_back(Vector::LinSpaced(points, low, high));
    }
    // Trapezoid weights per axis, multiplied on the product grid.
    const auto trapezoid = [](const Vector& axis) {
      Vector weights = Vector::Constant(axis.size(), axis(1) - axis(0));
      weights(0) *= 0.5;
      weights(axis.size() - 1) *= 0.5;
      return weights;
    };
    double integral = 0.0;
    if (dimension == 1) {
      integral =
          trapezoid(axes[0]).dot(model.mixture.log_pdf(axes[0].transpose()).array().exp().matrix());
    } else {
      const Vector w0 = trapezoid(axes[0]);
      const Vector w1 = trapezoid(axes[1]);
      Matrix row(2, axes[0].size());
      row.row(0) = axes[0].transpose();
      for (Index j = 0; j < axes[1].size(); ++j) {
        row.row(1).setConstant(axes[1](j));
        integral += w1(j) * w0.dot(model.mixture.log_pdf(row).array().exp().matrix());
      }
    }
    EXPECT_NEAR(integral, 1.0, 1e-6) << dimension << "-D";
  }
}

/// x in other units (times c): log p(c x) = log p(x) − d log c; the kernel-sum engine answers
/// each log-density within 1e-6 of the exact one, which bounds the difference.
TEST_P(DensityConformance, ScalingTheDataIsAChangeOfUnits) {
  const MethodEntry& method = *GetParam();
  const Matrix x = samples(2);
  const double c = 3.0;
  const Vector base = fit_method(method, x, method.test_options).mixture.log_pdf(x);
  const Matrix scaled = c * x;
  const Vector in_c = fit_method(method, scaled, method.test_options).mixture.log_pdf(scaled);
  for (Index i = 0; i < base.size(); ++i) {
    EXPECT_NEAR(in_c(i), base(i) - 2 * std::log(c), 2e-6) << "sample " << i;
  }
}

TEST_P(DensityConformance, RefusesBadData) {
  const MethodEntry& method = *GetParam();
  Matrix x = samples(2);
  x(1, 5) = std::nan("");
  EXPECT_THROW(fit_method(method, x, method.test_options), DataError);
  x(1, 5) = INFINITY;
  EXPECT_THROW(fit_method(method, x, method.test_options), DataError);
  EXPECT_ANY_THROW(fit_method(method, samples(2).leftCols(1), method.test_options)) << "one sample";
  EXPECT_THROW(fit_method(method, Matrix(2, 0), method.test_options), DataError);
}

}  // namespace
}  // namespace cdens
