// Tests of core/standardizer.hpp: the per-dimension map z = (x − mean) / scale, its Jacobian and
// its serialisation.

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::message_of;

constexpr double kLog2Pi = 1.8378770664093454836;

/// 3 × n data with different means and spreads per dimension.
Matrix shifted_data(Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix data = test::normal_matrix(3, n, rng);
  data.row(0) = data.row(0) * 0.01 + Eigen::RowVectorXd::Constant(n, 1000.0);
  data.row(1) = data.row(1) * 250.0 - Eigen::RowVectorXd::Constant(n, 3.0);
  data.row(2) = data.row(2) * 2.0;
  return data;
}

TEST(StandardizerTest, FitComputesMeanAndSampleStandardDeviation) {
  // Hand example: {1, 2, 3, 4} has mean 2.5 and sample variance 5/3 (divisor n − 1).
  Matrix small(1, 4);
  small << 1, 2, 3, 4;
  const Standardizer hand = Standardizer::fit(small, "x");
  EXPECT_DOUBLE_EQ(hand.mean()(0), 2.5);
  EXPECT_DOUBLE_EQ(hand.scale()(0), std::sqrt(5.0 / 3.0));

  const Matrix data = shifted_data(57, 1);
  const Standardizer fitted = Standardizer::fit(data, "x");
  ASSERT_EQ(fitted.dimension(), 3);
  for (Index i = 0; i < 3; ++i) {
    long double sum = 0.0L;
    for (Index j = 0; j < data.cols(); ++j) sum += data(i, j);
    const long double mean = sum / data.cols();
    long double squares = 0.0L;
    for (Index j = 0; j < data.cols(); ++j) squares += (data(i, j) - mean) * (data(i, j) - mean);
    const double deviation = static_cast<double>(std::sqrt(squares / (data.cols() - 1)));
    // Summation error is relative to the size of the values, not of their mean.
    const double magnitude = data.row(i).cwiseAbs().mean();
    EXPECT_NEAR(fitted.mean()(i), static_cast<double>(mean), 1e-13 * magnitude);
    EXPECT_NEAR(fitted.scale()(i), deviation, 1e-12 * deviation);
  }
}

TEST(StandardizerTest, TransformedDataHasMeanZeroAndSampleVarianceOne) {
  const Matrix data = shifted_data(200, 2);
  const Standardizer fitted = Standardizer::fit(data, "x");
  const Matrix z = fitted.transform(data);
  ASSERT_EQ(z.rows(), 3);
  ASSERT_EQ(z.cols(), 200);
  for (Index i = 0; i < 3; ++i) {
    const double mean = z.row(i).mean();
    const double variance = (z.row(i).array() - mean).square().sum() / (z.cols() - 1);
    // x − mean carries a rounding error of about one ulp of |mean|, i.e. 1e-16 |mean| / scale in
    // z units (1e-11 for the first row, whose mean is 1000 and scale 0.01); allow 1000 times that.
    const double tolerance = 1e-12 + 1e-13 * std::abs(fitted.mean()(i)) / fitted.scale()(i);
    EXPECT_NEAR(mean, 0.0, tolerance);
    EXPECT_NEAR(variance, 1.0, tolerance);
  }
  // Each entry is (x − mean) / scale.
  for (Index j = 0; j < data.cols(); ++j) {
    for (Index i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(z(i, j), (data(i, j) - fitted.mean()(i)) / fitted.scale()(i));
    }
  }
}

TEST(StandardizerTest, TransformAndInverseRoundTrip) {
  const Matrix data = shifted_data(40, 3);
  const Standardizer fitted = Standardizer::fit(data, "x");
  const Matrix back = fitted.inverse_transform(fitted.transform(data));
  for (Index j = 0; j < data.cols(); ++j) {
    for (Index i = 0; i < 3; ++i) {
      // Two roundings of a value of size |mean| + |x|.
      EXPECT_NEAR(back(i, j), data(i, j),
                  4e-16 * (std::abs(data(i, j)) + std::abs(fitted.mean()(i))));
    }
  }
  Rng rng(4);
  const Matrix z = test::normal_matrix(3, 30, rng);
  const Matrix z_back = fitted.transform(fitted.inverse_transform(z));
  EXPECT_LT((z_back - z).cwiseAbs().maxCoeff(), 1e-9);  // x − mean cancels up to 1000/0.01 ulps
}

TEST(StandardizerTest, ConstantColumnIsDataErrorNamingTheColumn) {
  Matrix data = shifted_data(20, 5);
  data.row(1).setConstant(7.25);
  std::string message = message_of<DataError>([&] {
    Standardizer::fit(data, "inputs", {"temperature", "pressure", "speed"});
  });
  EXPECT_NE(message.find("'pressure'"), std::string::npos) << message;
  EXPECT_NE(message.find("inputs"), std::string::npos) << message;
  EXPECT_EQ(message.find("temperature"), std::string::npos) << message;

  // Without names the dimension number is given.
  message = message_of<DataError>([&] { Standardizer::fit(data, "inputs"); });
  EXPECT_NE(message.find("dimension 1"), std::string::npos) << message;

  // A large constant is constant; the same column with rounding noise is not (it varies, and
  // the standardiser must not guess which variation is noise).
  Matrix level(1, 4);
  level << 1e6, 1e6, 1e6, 1e6;
  message = message_of<DataError>([&] { Standardizer::fit(level, "y", {"level"}); });
  EXPECT_NE(message.find("'level'"), std::string::npos) << message;
  Matrix noisy(1, 4);
  noisy << 1e6, 1e6 + 1.2e-10, 1e6, 1e6 - 1.2e-10;
  EXPECT_NO_THROW(Standardizer::fit(noisy, "y", {"level"}));
}

// The data's own magnitude must not matter between 1e−300 and 1e300: the same shape of data
// times any such factor standardises to the same z (up to rounding).
TEST(StandardizerTest, MagnitudeOfTheDataDoesNotMatter) {
  const Matrix data = shifted_data(30, 2);
  const Matrix reference = Standardizer::fit(data, "x").transform(data);
  for (const double factor : {1e-300, 1e-150, 1e-14, 1.0, 1e14, 1e150, 1e250, 1e300}) {
    const Matrix scaled = data * factor;
    const Standardizer fitted = Standardizer::fit(scaled, "x", {"a", "b"});
    const Matrix z = fitted.transform(scaled);
    ASSERT_TRUE(z.allFinite()) << factor;
    EXPECT_LT((z - reference).cwiseAbs().maxCoeff(), 1e-9) << factor;
    EXPECT_TRUE(std::isfinite(fitted.log_jacobian())) << factor;
  }
}

TEST(StandardizerTest, UnusableDataIsDataError) {
  EXPECT_THROW(Standardizer::fit(Matrix(2, 0), "x"), DataError);
  EXPECT_THROW(Standardizer::fit(Matrix(0, 5), "x"), DataError);
  EXPECT_THROW(Standardizer::fit(Matrix::Ones(2, 1), "x"), DataError);
  Matrix data = shifted_data(10, 6);
  data(2, 4) = std::nan("");
  EXPECT_THROW(Standardizer::fit(data, "x"), DataError);
  data(2, 4) = INFINITY;
  EXPECT_THROW(Standardizer::fit(data, "x"), DataError);
}

TEST(StandardizerTest, InvalidParametersAreRejected) {
  EXPECT_THROW(Standardizer(Vector::Zero(2), Vector::Ones(3)), InvalidArgument);
  EXPECT_THROW(Standardizer(Vector::Zero(1), Vector::Zero(1)), InvalidArgument);
  EXPECT_THROW(Standardizer(Vector::Zero(1), Vector::Constant(1, -1.0)), InvalidArgument);
  EXPECT_THROW(Standardizer(Vector::Zero(1), Vector::Constant(1, std::nan(""))), InvalidArgument);
  EXPECT_THROW(Standardizer(Vector::Zero(1), Vector::Constant(1, INFINITY)), InvalidArgument);
  EXPECT_THROW(Standardizer(Vector::Constant(1, std::nan("")), Vector::Ones(1)), InvalidArgument);
  const Standardizer map(Vector::Zero(2), Vector::Ones(2));
  EXPECT_THROW(map.transform(Matrix::Zero(3, 4)), InvalidArgument);
  EXPECT_THROW(map.inverse_transform(Matrix::Zero(1, 4)), InvalidArgument);
}

TEST(StandardizerTest, IdentityChangesNothing) {
  const Standardizer identity = Standardizer::identity(3);
  const Matrix data = shifted_data(8, 7);
  EXPECT_EQ(identity.transform(data), data);
  EXPECT_EQ(identity.inverse_transform(data), data);
  EXPECT_EQ(identity.log_jacobian(), 0.0);
}

TEST(StandardizerTest, LogJacobianConvertsGaussianDensities) {
  // X ~ N(μ, diag s²) in user units; Z = (X − μ)/s is standard normal, so
  // log N(x; μ, diag s²) = log φ(z) + log |det ∂z/∂x| exactly.
  Vector mu(3), s(3);
  mu << 4.0, -120.0, 0.25;
  s << 0.003, 37.0, 1.5;
  const Standardizer map(mu, s);
  EXPECT_NEAR(map.log_jacobian(), -(std::log(0.003) + std::log(37.0) + std::log(1.5)), 1e-14);
  Rng rng(8);
  const Matrix x = map.inverse_transform(1.7 * test::normal_matrix(3, 25, rng));
  const Matrix z = map.transform(x);
  for (Index j = 0; j < x.cols(); ++j) {
    double closed_form = 0.0;
    for (Index i = 0; i < 3; ++i) {
      const double u = (x(i, j) - mu(i)) / s(i);
      closed_form += -0.5 * kLog2Pi - std::log(s(i)) - 0.5 * u * u;
    }
    const double standard = -1.5 * kLog2Pi - 0.5 * z.col(j).squaredNorm();
    EXPECT_NEAR(standard + map.log_jacobian(), closed_form, 1e-11);
  }
}

TEST(StandardizerTest, LogJacobianEqualsLogDeterminantByFiniteDifferences) {
  const Matrix data = shifted_data(30, 9).topRows(2);
  const Standardizer map = Standardizer::fit(data, "x");
  Vector point(2);
  point << 1000.02, 50.0;
  Eigen::Matrix2d jacobian;
  for (Index c = 0; c < 2; ++c) {
    const double h = 1e-3 * map.scale()(c);
    Matrix plus = point, minus = point;
    plus(c, 0) += h;
    minus(c, 0) -= h;
    // The map is affine, so central differences are exact up to rounding.
    jacobian.col(c) = (map.transform(plus) - map.transform(minus)).col(0) / (2.0 * h);
  }
  EXPECT_NEAR(std::log(std::abs(jacobian.determinant())), map.log_jacobian(), 1e-8);
  EXPECT_NEAR(jacobian(0, 1), 0.0, 1e-6);
  EXPECT_NEAR(jacobian(1, 0), 0.0, 1e-6);
}

TEST(StandardizerTest, JsonRoundTripIsExact) {
  const Standardizer fitted = Standardizer::fit(shifted_data(33, 10), "x");
  // Through text, as in a model file.
  const auto text = fitted.to_json().dump();
  const Standardizer back = Standardizer::from_json(nlohmann::json::parse(text));
  ASSERT_EQ(back.dimension(), fitted.dimension());
  for (Index i = 0; i < fitted.dimension(); ++i) {
    EXPECT_EQ(back.mean()(i), fitted.mean()(i));
    EXPECT_EQ(back.scale()(i), fitted.scale()(i));
  }
  EXPECT_EQ(back.log_jacobian(), fitted.log_jacobian());
}

TEST(StandardizerTest, MalformedJsonIsModelFormatError) {
  EXPECT_THROW(Standardizer::from_json(nlohmann::json::parse(R"({"mean": [0, 1]})")),
               ModelFormatError);
  EXPECT_THROW(Standardizer::from_json(nlohmann::json::parse(R"({"mean": [0], "scale": "one"})")),
               ModelFormatError);
  EXPECT_THROW(Standardizer::from_json(nlohmann::json::parse(R"([1, 2])")), ModelFormatError);
}

}  // namespace
}  // namespace cdens
