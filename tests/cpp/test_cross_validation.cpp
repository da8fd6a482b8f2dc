// Tests of core/cross_validation.hpp: K-fold splits, choosing the best candidate, log-spaced
// grids and the CV table's serialisation.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {
namespace {

void expect_valid_split(const KFold& split, Index n, int folds) {
  ASSERT_EQ(split.n_folds(), folds);
  ASSERT_EQ(split.n_samples(), n);
  std::vector<int> owner(static_cast<std::size_t>(n), -1);
  std::size_t smallest = static_cast<std::size_t>(n), largest = 0;
  for (int k = 0; k < folds; ++k) {
    const auto& test = split.test(k);
    smallest = std::min(smallest, test.size());
    largest = std::max(largest, test.size());
    EXPECT_TRUE(std::is_sorted(test.begin(), test.end())) << "fold " << k;
    for (const Index i : test) {
      ASSERT_GE(i, 0);
      ASSERT_LT(i, n);
      // Disjoint: no sample is held out twice.
      EXPECT_EQ(owner[static_cast<std::size_t>(i)], -1)
          << "sample " << i << " in folds " << owner[static_cast<std::size_t>(i)] << " and " << k;
      owner[static_cast<std::size_t>(i)] = k;
    }
    // train(k) is exactly the complement of test(k), increasing.
    std::vector<Index> complement;
    for (Index i = 0; i < n; ++i) {
      if (!std::binary_search(test.begin(), test.end(), i)) complement.push_back(i);
    }
    EXPECT_EQ(split.train(k), complement) << "fold " << k;
  }
  // Covering: every sample is held out once.
  for (Index i = 0; i < n; ++i) EXPECT_NE(owner[static_cast<std::size_t>(i)], -1) << "sample " << i;
  EXPECT_LE(largest - smallest, 1u);
}

TEST(KFoldTest, FoldsAreDisjointCoverEverythingAndBalanced) {
  const std::vector<std::pair<Index, int>> shapes = {{2, 2},    {5, 2},    {10, 3}, {7, 7},
                                                     {100, 10}, {101, 10}, {99, 5}, {1000, 7}};
  for (const auto& [n, folds] : shapes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " folds=" << folds);
    Rng rng(static_cast<std::uint64_t>(n * 31 + folds));
    expect_valid_split(KFold(n, folds, rng), n, folds);
  }
}

TEST(KFoldTest, FoldOfNamesTheTestSetOfEverySample) {
  Rng rng(4);
  const KFold folds(23, 4, rng);
  const std::vector<int> fold_of = folds.fold_of();
  ASSERT_EQ(fold_of.size(), 23u);
  for (int k = 0; k < 4; ++k) {
    for (Index i = 0; i < 23; ++i) {
      const auto& test = folds.test(k);
      EXPECT_EQ(fold_of[static_cast<std::size_t>(i)] == k,
                std::find(test.begin(), test.end(), i) != test.end());
    }
  }
}

TEST(KFoldTest, SameSeedSameSplitOtherSeedOtherSplit) {
  Rng first(5), second(5), third(6);
  const KFold a(50, 5, first), b(50, 5, second), c(50, 5, third);
  bool all_equal = true;
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(a.test(k), b.test(k));
    all_equal = all_equal && a.test(k) == c.test(k);
  }
  // Two seeds giving the same split of 50 samples: probability 50!/(10!)⁵ ≈ 0 to 31 digits.
  EXPECT_FALSE(all_equal);
}

TEST(KFoldTest, SplitIsRandomAndUniform) {
  // Over many seeds, sample 0 lands in each of 4 folds of 20 with probability 1/4. With 4000
  // splits the count per fold has standard deviation √(4000·¼·¾) ≈ 27.4; allow five of them.
  std::vector<int> counts(4, 0);
  for (std::uint64_t seed = 0; seed < 4000; ++seed) {
    Rng rng(seed);
    const KFold split(20, 4, rng);
    for (int k = 0; k < 4; ++k) {
      if (!split.test(k).empty() && split.test(k).front() == 0)
        ++counts[static_cast<std::size_t>(k)];
    }
  }
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(counts[static_cast<std::size_t>(k)], 1000, 5 * 27.4) << "fold " << k;
}

TEST(KFoldTest, TooFewSamplesOrFoldsIsInvalidArgument) {
  Rng rng(1);
  EXPECT_THROW(KFold(4, 5, rng), InvalidArgument);
  EXPECT_THROW(KFold(0, 2, rng), InvalidArgument);
  EXPECT_THROW(KFold(10, 1, rng), InvalidArgument);
  EXPECT_THROW(KFold(10, 0, rng), InvalidArgument);
  EXPECT_THROW(KFold(10, -3, rng), InvalidArgument);
  EXPECT_NO_THROW(KFold(5, 5, rng));
}

TEST(KFoldTest, BestCandidateTakesTheFirstOfTiesAndSkipsNonFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Vector loss(5);
  loss << 3.0, 1.0, 2.0, 1.0, 1.5;
  EXPECT_EQ(best_candidate(loss), 1);
  loss << nan, 2.0, -inf, 2.0, inf;
  EXPECT_EQ(best_candidate(loss), 1);
  loss << 0.5, 0.5, 0.5, 0.5, 0.5;
  EXPECT_EQ(best_candidate(loss), 0);
  loss << nan, nan, inf, -inf, nan;
  EXPECT_EQ(best_candidate(loss), -1);
  EXPECT_EQ(best_candidate(Vector()), -1);
  Vector last(3);
  last << 2.0, 1.0, -7.0;
  EXPECT_EQ(best_candidate(last), 2);
}

TEST(KFoldTest, OneStandardErrorRowIsTheSimplestWithinOneErrorAtTheBestsOtherParameters) {
  // Rows (a, b): a ∈ {1, 2}, b ∈ {1, 2, 3, 4}; the best is (2, 3) with mean 1.0, se 0.5.
  CvTable table;
  table.candidates = product_grid({1.0, 2.0}, {1.0, 2.0, 3.0, 4.0});
  table.mean_loss.resize(8);
  table.mean_loss << 1.1, 1.2, 1.3, 1.4, 1.6, 1.5, 1.0, 1.5;
  table.standard_error = Vector::Constant(8, 0.5);
  table.best = 6;
  // Smallest b at a = 2 with mean ≤ 1.5: (2, 2); (1, 1) is within too, but at another a.
  EXPECT_EQ(one_standard_error_row(table, 1, false), 5);
  // Largest b: (2, 4) at exactly the limit.
  EXPECT_EQ(one_standard_error_row(table, 1, true), 7);
  // Along a at b = 3: a = 1 is within one error.
  EXPECT_EQ(one_standard_error_row(table, 0, false), 2);
  table.standard_error.setZero();
  EXPECT_EQ(one_standard_error_row(table, 1, false), 6);
  table.best = -1;
  EXPECT_EQ(one_standard_error_row(table, 1, false), -1);
}

TEST(KFoldTest, LogSpacedHasExactEndpointsAndConstantRatios) {
  for (const auto& [low, high, count] :
       {std::tuple{1e-3, 1e3, 7}, std::tuple{0.01, 100.0, 9}, std::tuple{0.5, 0.75, 3},
        std::tuple{2.0, 2.0, 4}, std::tuple{1e-300, 1e300, 61}}) {
    SCOPED_TRACE(testing::Message() << low << " … " << high << " × " << count);
    const auto values = log_spaced(low, high, count);
    ASSERT_EQ(values.size(), static_cast<std::size_t>(count));
    EXPECT_EQ(values.front(), low);
    EXPECT_EQ(values.back(), high);
    const double ratio = std::exp((std::log(high) - std::log(low)) / (count - 1));
    for (std::size_t i = 0; i < values.size(); ++i) {
      // Closed form low · r^i, up to a few ulps of exp/log.
      const double expected = std::exp(std::log(low) + static_cast<double>(i) * std::log(ratio));
      EXPECT_NEAR(values[i], expected, 1e-12 * expected);
      if (i > 0) {
        EXPECT_NEAR(values[i] / values[i - 1], ratio, 1e-12 * ratio);
      }
    }
  }
  EXPECT_EQ(log_spaced(0.25, 8.0, 1), std::vector<double>{0.25});
}

TEST(KFoldTest, LogSpacedRejectsBadRanges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(log_spaced(0.0, 1.0, 3), InvalidArgument);
  EXPECT_THROW(log_spaced(-1.0, 1.0, 3), InvalidArgument);
  EXPECT_THROW(log_spaced(2.0, 1.0, 3), InvalidArgument);
  EXPECT_THROW(log_spaced(1.0, 2.0, 0), InvalidArgument);
  EXPECT_THROW(log_spaced(nan, 2.0, 3), InvalidArgument);
  EXPECT_THROW(log_spaced(1.0, nan, 3), InvalidArgument);
}

TEST(KFoldTest, LogSpacedRejectsAnInfiniteEnd) {
  // docs/design.md: grids must be finite and positive; [1, ∞) would put ∞ into a bandwidth grid.
  EXPECT_THROW(log_spaced(1.0, std::numeric_limits<double>::infinity(), 3), InvalidArgument);
}

TEST(KFoldTest, CvTableJsonRoundTripIsExact) {
  CvTable table;
  table.parameter_names = {"sigma", "lambda"};
  table.candidates = Matrix(3, 2);
  table.candidates << 0.1, 1e-3, 0.3, 1.0 / 3.0, 1.7, 10.0;
  table.mean_loss = Vector(3);
  table.mean_loss << 0.1 + 0.2, -1.0 / 7.0, 5e-320;
  table.standard_error = Vector(3);
  table.standard_error << 0.01, 2.0 / 3.0, 0.0;
  table.loss = "sq";
  table.best = 1;
  const CvTable back = CvTable::from_json(nlohmann::json::parse(table.to_json().dump()));
  EXPECT_EQ(back.parameter_names, table.parameter_names);
  EXPECT_EQ(back.loss, "sq");
  EXPECT_EQ(back.best, 1);
  ASSERT_EQ(back.candidates.rows(), 3);
  ASSERT_EQ(back.candidates.cols(), 2);
  EXPECT_TRUE((back.candidates.array() == table.candidates.array()).all());
  EXPECT_TRUE((back.mean_loss.array() == table.mean_loss.array()).all());
  EXPECT_TRUE((back.standard_error.array() == table.standard_error.array()).all());
  EXPECT_THROW(CvTable::from_json(nlohmann::json::parse(R"({"loss": "kl"})")), ModelFormatError);
}

}  // namespace
}  // namespace cdens
