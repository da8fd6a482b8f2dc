// Tests of core/validate.hpp: each check throws the documented type with a message naming the
// argument, and accepts what is valid.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "core/validate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::message_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ValidationTest, RequireFiniteNamesArgumentSampleAndDimension) {
  Matrix data = Matrix::Ones(3, 4);
  EXPECT_NO_THROW(require_finite(data, "inputs"));
  for (const double bad : {kNaN, kInf, -kInf}) {
    SCOPED_TRACE(bad);
    data(2, 1) = bad;
    const std::string message = message_of<DataError>([&] { require_finite(data, "inputs"); });
    EXPECT_TRUE(contains(message, "inputs")) << message;
    EXPECT_TRUE(contains(message, "sample 1")) << message;
    EXPECT_TRUE(contains(message, "dimension 2")) << message;
  }
  // Extreme but finite values pass.
  data(2, 1) = std::numeric_limits<double>::max();
  data(0, 0) = std::numeric_limits<double>::denorm_min();
  EXPECT_NO_THROW(require_finite(data, "inputs"));
  EXPECT_NO_THROW(require_finite(Matrix(0, 0), "nothing"));
}

TEST(ValidationTest, RequireNonemptyIsDataErrorNamingTheArgument) {
  EXPECT_NO_THROW(require_nonempty(Matrix::Zero(1, 1), "x"));
  for (const auto& shape : {std::pair<Index, Index>{0, 3}, {3, 0}, {0, 0}}) {
    const Matrix empty(shape.first, shape.second);
    const std::string message =
        message_of<DataError>([&] { require_nonempty(empty, "training outputs"); });
    EXPECT_TRUE(contains(message, "training outputs")) << message;
  }
}

TEST(ValidationTest, RequireSameSamplesIsInvalidArgumentNamingBoth) {
  EXPECT_NO_THROW(require_same_samples(Matrix(2, 5), "x", Matrix(1, 5), "y"));
  const std::string message = message_of<InvalidArgument>(
      [&] { require_same_samples(Matrix(2, 5), "inputs", Matrix(1, 4), "outputs"); });
  EXPECT_TRUE(contains(message, "inputs")) << message;
  EXPECT_TRUE(contains(message, "outputs")) << message;
  EXPECT_TRUE(contains(message, "5")) << message;
  EXPECT_TRUE(contains(message, "4")) << message;
}

TEST(ValidationTest, RequireDimensionIsInvalidArgumentNamingTheArgument) {
  EXPECT_NO_THROW(require_dimension(Matrix(3, 2), 3, "x"));
  EXPECT_NO_THROW(require_dimension(Matrix(3, 0), 3, "x"));
  const std::string message =
      message_of<InvalidArgument>([&] { require_dimension(Matrix(2, 7), 3, "query inputs"); });
  EXPECT_TRUE(contains(message, "query inputs")) << message;
  EXPECT_TRUE(contains(message, "2")) << message;
  EXPECT_TRUE(contains(message, "3")) << message;
}

TEST(ValidationTest, RequirePositiveIsInvalidArgumentNamingTheArgument) {
  for (const double good : {1.0, 1e-300, std::numeric_limits<double>::denorm_min(), 1e300}) {
    EXPECT_NO_THROW(require_positive(good, "sigma")) << good;
  }
  for (const double bad : {0.0, -0.0, -1.0, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(bad);
    const std::string message =
        message_of<InvalidArgument>([&] { require_positive(bad, "sigma"); });
    EXPECT_TRUE(contains(message, "sigma")) << message;
  }
}

TEST(ValidationTest, RequirePositiveValuesIsInvalidArgumentNamingTheArgument) {
  EXPECT_NO_THROW(require_positive_values({0.1, 1.0, 10.0}, "lambdas"));
  const std::vector<std::vector<double>> bad = {{}, {1.0, 0.0}, {-2.0}, {1.0, kNaN, 2.0}, {kInf}};
  for (const auto& values : bad) {
    SCOPED_TRACE(values.size());
    const std::string message =
        message_of<InvalidArgument>([&] { require_positive_values(values, "lambdas"); });
    EXPECT_TRUE(contains(message, "lambdas")) << message;
  }
}

TEST(ValidationTest, RequireOpenUnitIntervalIsInvalidArgumentNamingTheArgument) {
  EXPECT_NO_THROW(require_open_unit_interval({0.5, 1e-300, std::nextafter(1.0, 0.0)}, "levels"));
  const std::vector<std::vector<double>> bad = {{},    {0.0},  {1.0}, {0.5, -0.1},
                                                {1.5}, {kNaN}, {kInf}};
  for (const auto& values : bad) {
    SCOPED_TRACE(values.empty() ? std::string("empty") : std::to_string(values.back()));
    const std::string message =
        message_of<InvalidArgument>([&] { require_open_unit_interval(values, "levels"); });
    EXPECT_TRUE(contains(message, "levels")) << message;
  }
}

TEST(ValidationTest, ErrorTypesFormTheDocumentedHierarchy) {
  // Callers catch cdens::Error for everything cdens throws on purpose; a ParseError is a
  // DataError; InvalidArgument and DataError are distinct.
  EXPECT_THROW(require_positive(-1.0, "a"), Error);
  EXPECT_THROW(require_finite(Matrix::Constant(1, 1, kNaN), "a"), Error);
  try {
    require_finite(Matrix::Constant(1, 1, kNaN), "a");
  } catch (const InvalidArgument&) {
    ADD_FAILURE() << "a non-finite value is a DataError, not an InvalidArgument";
  } catch (const DataError&) {
  }
  try {
    throw ParseError("p");
  } catch (const DataError& error) {
    EXPECT_STREQ(error.what(), "p");
  }
}

}  // namespace
}  // namespace cdens
