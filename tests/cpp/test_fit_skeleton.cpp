// The frame every fit shares: the report's method and wall time, a cross-validation kept with
// its losses in the user's units, refused when no candidate has a finite loss; and the density
// fits' context: a constant column named as the caller names it, several processes refused.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "cdens/cdens.hpp"
#include "core/fit_skeleton.hpp"
#include "support.hpp"

namespace cdens {
namespace {

CvTable two_parameter_table(Vector mean_loss) {
  CvTable table;
  table.parameter_names = {"sigma", "lambda"};
  table.candidates = product_grid({0.1, 1.0}, {0.01, 0.1});
  table.standard_error = Vector::Constant(mean_loss.size(), 0.5);
  table.mean_loss = std::move(mean_loss);
  table.loss = "kl";
  table.best = best_candidate(table.mean_loss);
  return table;
}

TEST(FitSkeleton, NamesTheReportAfterTheBodyAndTimesTheWholeFit) {
  const auto fit = timed_fit<double>("outer", [](FitReport& report) {
    FitReport inner;
    inner.method = "inner";
    inner.statistics["n_train"] = 3.0;
    report = inner;  // a wrapping fit takes over its inner fit's report
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return 1.5;
  });
  EXPECT_EQ(fit.model, 1.5);
  EXPECT_EQ(fit.report.method, "outer");
  EXPECT_EQ(fit.report.statistics.at("n_train"), 3.0);
  EXPECT_GE(fit.report.fit_seconds, 0.02);
}

TEST(FitSkeleton, KeepsTheChoiceAndMovesNegativeLogLikelihoodsByTheJacobian) {
  FitReport report;
  report.warnings = {"earlier"};
  // Row 1 (σ = 0.1, λ = 0.1) is best: λ at the top of its grid, σ at the bottom of its grid.
  const CvTable& kept = keep_cross_validation(report, two_parameter_table(Vector{{3, 1, 2, 4}}),
                                              {{0.1, 1.0}, {0.01, 0.1}}, {std::log(2.0)});
  EXPECT_EQ(&kept, &*report.cross_validation);
  EXPECT_EQ(kept.best, 1);
  for (Index i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(kept.mean_loss(i), Vector({{3, 1, 2, 4}})(i) - std::log(2.0));
    EXPECT_EQ(kept.standard_error(i), 0.5);
  }
  std::vector<std::string> expected = {"earlier"};
  for (const std::string& warning : grid_edge_warnings(kept, {{0.1, 1.0}, {0.01, 0.1}})) {
    expected.push_back(warning);
  }
  EXPECT_EQ(expected.size(), 3u);
  EXPECT_EQ(report.warnings, expected);
}

TEST(FitSkeleton, ScalesSquaredLossesAndStandardErrorsByTheJacobian) {
  FitReport report;
  const CvTable& kept = keep_cross_validation(report, two_parameter_table(Vector{{-3, -1, -2, -4}}),
                                              {{0.1, 1.0}, {0.01, 0.1}}, {std::log(0.25), true});
  EXPECT_EQ(kept.best, 3);
  EXPECT_DOUBLE_EQ(kept.mean_loss(3), -1.0);
  EXPECT_DOUBLE_EQ(kept.standard_error(0), 0.125);
}

TEST(FitSkeleton, AnAuxiliaryTableIsKeptUnderItsName) {
  FitReport report;
  const CvTable& kept = keep_auxiliary_cross_validation(
      report, "marginal", two_parameter_table(Vector{{3, 1, 2, 4}}), {{0.1, 1.0}, {0.01, 0.1}});
  EXPECT_FALSE(report.cross_validation.has_value());
  EXPECT_EQ(&kept, &report.auxiliary_cross_validation.at("marginal"));
  EXPECT_EQ(kept.mean_loss(1), 1.0);
}

TEST(FitSkeleton, RefusesATableWithoutAFiniteLossNamingItsParameters) {
  FitReport report;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(test::message_of<DataError>([&] {
              keep_cross_validation(report, two_parameter_table(Vector::Constant(4, nan)),
                                    {{0.1, 1.0}, {0.01, 0.1}});
            }),
            "cross-validation of sigma, lambda found no candidate with a finite held-out kl loss");
  EXPECT_FALSE(report.cross_validation.has_value());
}

TEST(DensityFitContext, EveryDensityMethodNamesAConstantColumnAndTheUndistributedRefuseRanks) {
  Rng rng(4);
  Matrix x = test::normal_matrix(2, 40, rng);
  x.row(1).setConstant(2.5);
  const FitContext named{local_communicator(), silent_progress(), {"height", "weight"}};
  const test::TwoRankCommunicator two_ranks;
  const FitContext sharded{two_ranks};
  std::vector<std::string> distributed;
  for (const MethodEntry* method : methods_of(MethodFamily::density)) {
    SCOPED_TRACE(method->name);
    if (method->distributed) distributed.push_back(method->name);
    const std::string message =
        test::message_of<DataError>([&] { fit_method(*method, x, {}, named); });
    EXPECT_EQ(message.rfind("x column 'weight' is constant", 0), 0u) << message;
    if (!method->distributed) {
      x.row(1) = test::normal_matrix(1, 40, rng);
      // The registry refuses first; the fit itself refuses too when called past it.
      EXPECT_EQ(test::message_of<InvalidArgument>([&] { fit_method(*method, x, {}, sharded); }),
                not_distributed_message(*method));
      EXPECT_EQ(test::message_of<InvalidArgument>([&] { method->fit_density(x, {}, sharded); }),
                "the density estimators run on a single process");
      x.row(1).setConstant(2.5);
    }
  }
  // GMM's model reduces to sums over the samples; the others keep every sample.
  EXPECT_EQ(distributed, std::vector<std::string>{"gmm"});
}

TEST(ConditionalFitContext, EveryConditionalMethodIgnoresAConstantInputAndNamesAConstantOutput) {
  Rng rng(5);
  Matrix x = test::normal_matrix(2, 40, rng);
  Matrix y = test::normal_matrix(1, 40, rng);
  const Matrix constant_x = [&] {
    Matrix copy = x;
    copy.row(1).setConstant(2.5);
    return copy;
  }();
  const Matrix constant_y = Matrix::Constant(1, 40, -1.0);
  const FitContext named{local_communicator(), silent_progress(), {"height", "weight", "price"}};
  for (const MethodEntry* method : methods_of(MethodFamily::conditional)) {
    SCOPED_TRACE(method->name);
    const ConditionalModel model = fit_method(*method, constant_x, y, Matrix(2, 0), {}, named);
    ASSERT_FALSE(model.report.warnings.empty());
    EXPECT_EQ(model.report.warnings.front(),
              "input 'weight' is constant on the training rows (2.5): ignored");
    // Ignored: the value of the input at a query changes nothing.
    Matrix moved = constant_x;
    moved.row(1).setConstant(-7.0);
    EXPECT_TRUE(
        model.mixture.log_pdf(moved, y).isApprox(model.mixture.log_pdf(constant_x, y), 0.0));
    const std::string about_y = test::message_of<DataError>(
        [&] { fit_method(*method, x, constant_y, Matrix(2, 0), {}, named); });
    EXPECT_EQ(about_y.rfind("y column 'price' is constant", 0), 0u) << about_y;
  }
  // PRESS is queried through its own gate, which the wrapper of the other inputs would hide: a
  // constant input stays an error there.
  for (const MethodEntry* method : methods_of(MethodFamily::regression)) {
    SCOPED_TRACE(method->name);
    const std::string about_x = test::message_of<DataError>(
        [&] { fit_method(*method, constant_x, y, Matrix(2, 0), {}, named); });
    EXPECT_EQ(about_x.rfind("x column 'weight' is constant", 0), 0u) << about_x;
  }
}

TEST(ConditionalFitContext, NamesGoToTheColumnsTheyNameOnly) {
  const FitContext named{local_communicator(), silent_progress(), {"a", "b", "c"}};
  const auto [x_names, y_names] = named.pair_names(2, 1);
  EXPECT_EQ(x_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(y_names, (std::vector<std::string>{"c"}));
  // A fit of one of the inputs (a candidate of forward selection) gets no names.
  const auto [subset_names, output_names] = named.pair_names(1, 1);
  EXPECT_TRUE(subset_names.empty() && output_names.empty());
  // A fit on derived columns gets no names either, and reports to the progress it is given.
  PrefixedProgress part(silent_progress(), "part: ");
  EXPECT_TRUE(named.for_derived_columns(part).column_names.empty());
  EXPECT_EQ(&named.for_derived_columns(part).communicator, &named.communicator);
  EXPECT_EQ(&named.for_derived_columns(part).progress, &part);
  // A fit on the same columns keeps them.
  EXPECT_EQ(named.reporting_to(part).column_names, named.column_names);
  EXPECT_EQ(&named.reporting_to(part).progress, &part);
}

}  // namespace
}  // namespace cdens
