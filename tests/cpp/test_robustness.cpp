// Tests of the input checks that issue 23 put at the roots of its classes: option values that
// are refused rather than rounded or taken as the default, files named as what they are, CSV
// headers as spreadsheets write them, model files whose coefficients vanished, sizes checked
// against the machine, and the warning for spike models on tied outputs.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "cdens/conditional/lscde.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "conditional/kernel_gates.hpp"
#include "conditional/lscde_basis.hpp"
#include "conditional/lscde_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "core/validate.hpp"
#include "io/csv.hpp"
#include "io/input_file.hpp"
#include "io/json_io.hpp"
#include "methods/option_tables.hpp"
#include "model/tied_outputs.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::message_of;

const OptionInfo& option_of(const std::string& method, const std::string& name) {
  for (const MethodEntry& entry : methods()) {
    if (entry.name != method) continue;
    for (const OptionInfo& option : entry.options) {
      if (option.name == name) return option;
    }
  }
  throw std::logic_error("no option " + name);
}

TEST(OptionCheckTest, AFractionForACountIsRefusedNamingTheFlag) {
  const std::string message = message_of<InvalidArgument>(
      [] { parse_option_text(option_of("lscde", "folds"), "2.5", "--folds"); });
  EXPECT_NE(message.find("--folds"), std::string::npos) << message;
}

TEST(OptionCheckTest, AZeroThatStandsForTheDefaultIsRefusedWhenGiven) {
  const OptionInfo& states = option_of("press", "n_states");
  ASSERT_TRUE(stands_for_default(states));
  const std::string message =
      message_of<InvalidArgument>([&] { parse_option_text(states, "0", "--n-states"); });
  EXPECT_NE(message.find("--n-states must be positive"), std::string::npos) << message;
  EXPECT_NO_THROW(parse_option_text(states, "3", "--n-states"));
  // Through the table, as both front ends build options.
  EXPECT_THROW(press_option_table().build({{"n_states", std::int64_t{0}}}), InvalidArgument);
}

TEST(OptionCheckTest, APairWhoseLowerBoundExceedsTheUpperIsRefused) {
  const OptionInfo& bounds = option_of("kcde", "bandwidth_bounds");
  const std::string message =
      message_of<InvalidArgument>([&] { parse_option_text(bounds, "2,1", "--bandwidth-bounds"); });
  EXPECT_NE(message.find("--bandwidth-bounds"), std::string::npos) << message;
  EXPECT_NE(message.find("lower bound"), std::string::npos) << message;
  EXPECT_NO_THROW(parse_option_text(bounds, "0.01,100", "--bandwidth-bounds"));
}

TEST(OptionCheckTest, WidthsThatBreakTheKernelsAreRefusedNamingThem) {
  const OptionInfo& sigmas = option_of("lscde", "sigma");
  for (const std::string text : {"1e300", "1e-300", "0.1,1e9", "1e-9"}) {
    const std::string message =
        message_of<InvalidArgument>([&] { parse_option_text(sigmas, text, "--sigma"); });
    EXPECT_NE(message.find("--sigma"), std::string::npos) << message;
    EXPECT_NE(message.find("must lie in"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(parse_option_text(sigmas, "1e-8,1e8", "--sigma"));
  EXPECT_THROW(parse_option_text(sigmas, "", "--sigma"), InvalidArgument);
}

TEST(MemoryCheckTest, ARequestBeyondTheMachineIsRefusedNamingIt) {
  EXPECT_GT(machine_memory_bytes(), 1e8);
  const std::string message = message_of<InvalidArgument>([] { require_memory_for(1e12, "--n"); });
  EXPECT_EQ(message.rfind("--n", 0), 0u) << message;
  EXPECT_NE(message.find("GiB"), std::string::npos) << message;
  EXPECT_NO_THROW(require_memory_for(1e6, "--n"));
}

TEST(CsvHeaderTest, AByteOrderMarkIsDroppedAndQuotedNamesAreUnquoted) {
  std::istringstream input("\xEF\xBB\xBF\"eruptions\",\"wait, \"\"min\"\"\"\n1,2\n3,4\n");
  const CsvTable table = parse_csv(input, "data.csv", {});
  ASSERT_EQ(table.column_names.size(), 2u);
  EXPECT_EQ(table.column_names[0], "eruptions");
  EXPECT_EQ(table.column_names[1], "wait, \"min\"");
  EXPECT_EQ(table.values(1, 1), 4.0);
  std::istringstream unterminated("a,\"b\n1,2\n");
  const std::string message =
      message_of<ParseError>([&] { parse_csv(unterminated, "data.csv", {}); });
  EXPECT_NE(message.find("data.csv:1:2"), std::string::npos) << message;
}

TEST(InputFileTest, ADirectoryIsNamedAsADirectory) {
  const std::string directory = std::filesystem::temp_directory_path().string();
  std::string message = message_of<IoError>([&] { open_input_file(directory); });
  EXPECT_NE(message.find("is a directory"), std::string::npos) << message;
  message = message_of<IoError>([&] { read_model_document(directory); });
  EXPECT_NE(message.find("is a directory"), std::string::npos) << message;
  message = message_of<IoError>([] { open_input_file("/no/such/file.csv"); });
  EXPECT_NE(message.find("No such file"), std::string::npos) << message;
}

TEST(GateCentresTest, ACentreWhoseSquaredDistancesOverflowIsRefused) {
  // A model file's centre of −1.7·10³⁰⁸ (found by fuzzing: finite, but its squared distances are
  // not) made every log-density NaN; every kernel gate refuses centres beyond 10¹⁵⁰.
  Matrix centers = Matrix::Zero(1, 3);
  centers(0, 1) = -1.7e308;
  EXPECT_THROW(LscdeGate(centers, Vector::Ones(3), 0.5), InvalidArgument);
  EXPECT_THROW(GaussianKernelGate(centers, 0.5), InvalidArgument);
  EXPECT_THROW(ProductKernelGate(centers, Vector::Ones(1)), InvalidArgument);
  centers(0, 1) = 1e150;
  const LscdeGate largest(centers, Vector::Ones(3), 0.5);
  Matrix log_weights(3, 1);
  largest.log_weights(Matrix::Zero(1, 1), log_weights);
  EXPECT_FALSE(log_weights.array().isNaN().any());
}

TEST(ZeroCoefficientsTest, AnLscdeGateWithoutWeightIsRefusedButTheFitWritesTheMarginal) {
  EXPECT_THROW(LscdeGate(Matrix::Zero(1, 3), Vector::Zero(3), 0.5), InvalidArgument);
  // Coefficients that all rounded to zero in a fit: the model is the marginal mixture of the
  // basis outputs, written with a constant gate, which reads back.
  Rng rng(3);
  const LscdeBasis basis{test::normal_matrix(1, 4, rng), test::normal_matrix(1, 4, rng), 0.5};
  const ConditionalMixture model = make_lscde_mixture(
      Standardizer::identity(1), Standardizer::identity(1), basis, Vector::Zero(4));
  EXPECT_EQ(model.gate().kind(), "constant");
  const Matrix x = test::normal_matrix(1, 5, rng);
  const Vector log_density = model.log_pdf(x, test::normal_matrix(1, 5, rng));
  EXPECT_TRUE(log_density.allFinite());
  const ConditionalMixture read_back =
      ConditionalMixture::from_json(model.to_json(), read_builtin_gate);
  EXPECT_EQ(read_back.log_pdf(x, x), model.log_pdf(x, x));
}

TEST(SpikeWarningTest, ASigmaFarBelowTheGapsOfTiedOutputsIsNamedWithTheRemedy) {
  Matrix y(1, 12);
  y << 1, 2, 2, 3, 3, 3, 1, 2, 3, 2, 2, 1;
  const std::vector<double> grid = {0.01, 0.1, 1.0};
  const auto warning = spike_warning(y, 0.01, grid, {"quality"});
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("'quality' (3 distinct values in 12)"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("--ordered"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("from 1 up"), std::string::npos) << *warning;
  // A width that blends neighbouring values, or no ties, or no choice: nothing to say.
  EXPECT_TRUE(spike_warning(y, 0.1, grid).has_value());
  EXPECT_FALSE(spike_warning(y, 0.3, grid).has_value());
  Matrix distinct(1, 6);
  distinct << 0.1, 0.7, 1.3, 2.9, 3.3, 5.0;
  EXPECT_FALSE(spike_warning(distinct, 0.01, grid).has_value());
  EXPECT_FALSE(spike_warning(y, 0.01, {0.01}).has_value());
}

}  // namespace
}  // namespace cdens
