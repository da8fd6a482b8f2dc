// Constant inputs (src/methods/constant_inputs.hpp): a fit through the registry ignores an input
// that is constant on its rows. The model equals the fit without that input, whatever value a
// query gives it; declared columns and per-column options follow the kept inputs; the report
// keeps the full input's positions; a fold in which a rare indicator is constant still scores.

#include <gtest/gtest.h>

#include <cmath>

#include "cdens/cdens.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// x with a constant row inserted at `position`.
Matrix with_constant_row(const Matrix& x, Index position, double value) {
  Matrix result(x.rows() + 1, x.cols());
  result.topRows(position) = x.topRows(position);
  result.row(position).setConstant(value);
  result.bottomRows(x.rows() - position) = x.bottomRows(x.rows() - position);
  return result;
}

TEST(ConstantInputs, TheModelIsTheFitWithoutTheInputAroundAGaussianProcessTrend) {
  const test::PairSample data = test::sine_sample(80, 2, 3);
  const Matrix x = with_constant_row(data.x, 1, 4.25);
  const MethodEntry& kcde = find_method("kcde", MethodFamily::conditional);
  const OptionValues values = {{"trend", std::string("gp")}};
  const ConditionalModel with = fit_method(kcde, x, data.y, Matrix(3, 0), values);
  const ConditionalModel without = fit_method(kcde, data.x, data.y, Matrix(2, 0), values);
  EXPECT_EQ(with.report.warnings.front(),
            "input 'x1' is constant on the training rows (4.25): ignored");
  const test::PairSample queries = test::sine_sample(10, 2, 4);
  const Vector expected = without.mixture.log_pdf(queries.x, queries.y);
  for (const double value : {4.25, -30.0}) {
    EXPECT_TRUE(with.mixture.log_pdf(with_constant_row(queries.x, 1, value), queries.y)
                    .isApprox(expected, 1e-14));
  }
  // The report names inputs by their position in the full input: x2 is the second kept one.
  EXPECT_EQ(with.report.hyperparameters.at("bandwidth_x2"),
            without.report.hyperparameters.at("bandwidth_x1"));
  EXPECT_EQ(with.report.hyperparameters.at("trend_length_scale_x2"),
            without.report.hyperparameters.at("trend_length_scale_x1"));
  EXPECT_EQ(with.report.hyperparameters.count("bandwidth_x1"), 0u);
  test::expect_model_file_round_trip(with.mixture, with.report,
                                     with_constant_row(queries.x, 1, 0.5), queries.y);
}

TEST(ConstantInputs, DeclaredColumnsAndPerColumnBandwidthsFollowTheKeptInputs) {
  // x0 continuous, x1 constant, x2 ordered levels; fixed bandwidths given for all four columns.
  const test::PairSample data = test::sine_sample(60, 1, 7);
  Matrix x(2, 60);
  x.row(0) = data.x.row(0);
  for (Index i = 0; i < 60; ++i) x(1, i) = static_cast<double>(i % 4);
  const Matrix full = with_constant_row(x, 1, 1.0);
  const MethodEntry& kcde = find_method("kcde", MethodFamily::conditional);
  const OptionValues declared = {{"ordered", std::vector<std::int64_t>{2}},
                                 {"bandwidth", std::vector<double>{0.4, 9.0, 0.3, 0.5}}};
  const OptionValues kept = {{"ordered", std::vector<std::int64_t>{1}},
                             {"bandwidth", std::vector<double>{0.4, 0.3, 0.5}}};
  const ConditionalModel with = fit_method(kcde, full, data.y, Matrix(3, 0), declared);
  const ConditionalModel without = fit_method(kcde, x, data.y, Matrix(2, 0), kept);
  const Matrix queries = with_constant_row(x.leftCols(8), 1, 1.0);
  EXPECT_TRUE(with.mixture.log_pdf(queries, data.y.leftCols(8))
                  .isApprox(without.mixture.log_pdf(x.leftCols(8), data.y.leftCols(8)), 1e-14));
  EXPECT_EQ(with.report.hyperparameters.at("bandwidth_x2"), 0.3);
}

TEST(ConstantInputs, EveryInputConstantIsRefused) {
  const test::PairSample data = test::sine_sample(30, 1, 8);
  const Matrix x = Matrix::Constant(2, 30, 1.5);
  const std::string message = test::message_of<DataError>([&] {
    fit_method(find_method("kcde", MethodFamily::conditional), x, data.y, Matrix(2, 0), {});
  });
  EXPECT_NE(message.find("every input is constant"), std::string::npos) << message;
}

TEST(ConstantInputs, AutoScoresEveryFoldWhenARareIndicatorIsConstantInOne) {
  // The indicator is 1 on one pair only: in the fold that holds that pair out, the training rows
  // see it constant. Every candidate is still scored on every fold.
  const test::PairSample data = test::sine_sample(60, 1, 9);
  Matrix x = with_constant_row(data.x, 1, 0.0);
  x(1, 17) = 1.0;
  const ConditionalModel model =
      fit_method(find_method("auto", MethodFamily::conditional), x, data.y, Matrix(2, 0),
                 {{"candidates", std::string("linear,kcde")}});
  ASSERT_TRUE(model.report.method_selection.has_value());
  for (const CandidateScore& score : model.report.method_selection->candidates) {
    EXPECT_EQ(score.status, "scored") << score.candidate;
    EXPECT_TRUE(std::isfinite(score.mean_nll));
  }
}

}  // namespace
}  // namespace cdens
