// Tests of the extrapolation rule (support.hpp, ConditionalMixture::extrapolated_rows): which
// query rows a model flags — an input beyond its training range by more than a tenth of that
// range, or a row no component weighs — counted against the rule written out; the range a fit
// through the registry keeps (the rows it saw, over the weights); the range in model files, and
// files without it; the warning's words.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/support.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/kernel_gates.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// A mixture of two inputs and one output whose gate is `gate`.
ConditionalMixture two_input_mixture(std::shared_ptr<const ConditionalGate> gate) {
  const Index k = gate->n_components();
  return ConditionalMixture(Standardizer(Vector::Constant(2, 0.5), Vector::Constant(2, 2.0)),
                            Standardizer::identity(1), std::move(gate),
                            MixtureOutputs::gaussian(Matrix::Zero(1, k), Matrix::Ones(1, k)));
}

ConditionalMixture constant_gate_mixture() {
  return two_input_mixture(std::make_shared<const ConstantGate>(2, Vector::Zero(3)));
}

/// Input 0 ranges over [0, 1] (margin 0.1), input 1 over [−1, 1] (margin 0.2).
InputRange training_range() {
  InputRange range{Vector(2), Vector(2)};
  range.lower << 0.0, -1.0;
  range.upper << 1.0, 1.0;
  return range;
}

TEST(Extrapolation, RowsBeyondAnInputsRangeByMoreThanATenthOfItAreFlagged) {
  const ConditionalMixture model = constant_gate_mixture().with_input_range(training_range());
  Matrix x(2, 7);
  x << 0.5, 1.1, 1.1001, -0.2, 0.5, 0.5, 3.0,  //
      0.0, 0.0, 0.0, 0.0, 1.25, -1.21, -5.0;
  const ExtrapolatedRows rows = model.extrapolated_rows(x);
  // Row 1 sits on the widened end (not beyond it); rows 2, 3 pass input 0's, 4, 5 input 1's,
  // 6 both.
  EXPECT_EQ(rows.rows, (std::vector<Index>{2, 3, 4, 5, 6}));
  EXPECT_EQ(rows.beyond_range, (std::vector<Index>{3, 3}));
  EXPECT_EQ(rows.answered_by_marginal, 0);
  EXPECT_EQ(extrapolation_warning(rows, 7, {"speed", "load"}),
            "5 of 7 query rows lie outside the inputs the model was fitted on (beyond the "
            "training range of speed (3 rows), load (3 rows) by more than a tenth of that range); "
            "their answers extrapolate");
  EXPECT_EQ(extrapolation_warning(model.extrapolated_rows(x.leftCols(2)), 2), "");
}

TEST(Extrapolation, AnInputOfZeroRangeIsNeverTheReason) {
  // A fit ignores a constant input: any value of it is answered alike.
  InputRange range = training_range();
  range.lower(1) = range.upper(1) = 4.0;
  const ConditionalMixture model = constant_gate_mixture().with_input_range(range);
  Matrix x(2, 2);
  x << 0.5, 2.0,  //
      -300.0, 4.0;
  EXPECT_EQ(model.extrapolated_rows(x).rows, (std::vector<Index>{1}));
}

TEST(Extrapolation, RowsWhereEveryWeightVanishesAreFlaggedWithinTheRangeToo) {
  // ε-balls of radius 0.5 (standardised) around two centres: a row between them, inside the
  // range, is weighed by no component and answered by the marginal mixture.
  Matrix centers(2, 2);
  centers << -1.0, 1.0,  //
      0.0, 0.0;
  const ConditionalMixture model =
      two_input_mixture(std::make_shared<const EpsilonBallGate>(centers, 0.5));
  EXPECT_TRUE(model.gate().weights_can_all_vanish());
  // Inputs in the user's units: z = (x − 0.5) / 2.
  Matrix x(2, 3);
  x << -1.5, 0.5, 2.5,  //
      0.5, 0.5, 0.5;
  ExtrapolatedRows rows = model.extrapolated_rows(x);
  EXPECT_EQ(rows.rows, (std::vector<Index>{1}));
  EXPECT_EQ(rows.answered_by_marginal, 1);
  EXPECT_TRUE(rows.beyond_range.empty());  // the model knows no range
  EXPECT_EQ(extrapolation_warning(rows, 3),
            "1 of 3 query rows lie outside the inputs the model was fitted on (weighed by no "
            "component, answered by the marginal mixture (1 row)); their answers extrapolate");
  // Gates whose log-weights are finite never vanish: the gate is not evaluated for them.
  EXPECT_FALSE(constant_gate_mixture().gate().weights_can_all_vanish());
}

TEST(Extrapolation, TheRangeSurvivesTheModelFileAndAFileWithoutItFlagsNothing) {
  const ConditionalMixture model = constant_gate_mixture().with_input_range(training_range());
  const nlohmann::json document = model.to_json();
  ASSERT_TRUE(document.contains("input_range"));
  const ConditionalMixture loaded = ConditionalMixture::from_json(document, read_builtin_gate);
  ASSERT_TRUE(loaded.input_range().has_value());
  EXPECT_EQ(loaded.input_range()->lower, training_range().lower);
  EXPECT_EQ(loaded.input_range()->upper, training_range().upper);
  // The range needs no new version of the file: a reader that ignores it gives no warning.
  EXPECT_EQ(conditional_model_to_json({model, {"a", "b"}, {"y"}, FitReport{}, {}})["version"], 1);
  nlohmann::json older = document;
  older.erase("input_range");
  const ConditionalMixture old = ConditionalMixture::from_json(older, read_builtin_gate);
  EXPECT_FALSE(old.input_range().has_value());
  EXPECT_TRUE(old.extrapolated_rows(Matrix::Constant(2, 1, 1e9)).empty());
  // A range of the wrong size or order is refused, in C++ and in a file.
  InputRange wrong = training_range();
  wrong.lower(0) = 2.0;
  EXPECT_THROW(constant_gate_mixture().with_input_range(wrong), InvalidArgument);
  nlohmann::json broken = document;
  broken["input_range"]["lower"] = {0.0};
  EXPECT_THROW(ConditionalMixture::from_json(broken, read_builtin_gate), ModelFormatError);
}

TEST(Extrapolation, AFitKeepsTheRangeOfTheRowsItSaw) {
  const test::PairSample data = test::sine_sample(60, 2, 3);
  const MethodEntry& linear = find_method("linear");
  const ConditionalModel model = fit_method(linear, data.x, data.y, Matrix(), {});
  ASSERT_TRUE(model.mixture.input_range().has_value());
  EXPECT_EQ(model.mixture.input_range()->lower, Vector(data.x.rowwise().minCoeff()));
  EXPECT_EQ(model.mixture.input_range()->upper, Vector(data.x.rowwise().maxCoeff()));
  // A row of weight 0 is one the fit never sees: it widens no range.
  Matrix x = data.x;
  x(0, 0) = 1e6;
  Vector weights = Vector::Ones(60);
  weights(0) = 0.0;
  const ConditionalModel weighted =
      fit_method(linear, x, data.y, Matrix(), {}, test::weighted_context(weights));
  EXPECT_LT(weighted.mixture.input_range()->upper(0), 1e6);
  // Inside the training inputs nothing is flagged; 1,000 ranges beyond, every row.
  EXPECT_TRUE(model.mixture.extrapolated_rows(data.x).empty());
  const Matrix far = data.x.array() * 1000.0;
  EXPECT_GT(model.mixture.extrapolated_rows(far).rows.size(), 50u);
}

}  // namespace
}  // namespace cdens
