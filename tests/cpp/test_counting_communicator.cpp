// CountingCommunicator: every call reaches the communicator it wraps, and its payload is counted.

#include <gtest/gtest.h>

#include <vector>

#include "parallel/counting_communicator.hpp"
#include "support.hpp"

namespace cdens {
namespace {

TEST(CountingCommunicator, PassesEveryCallOnAndCountsItsPayload) {
  const test::TwoRankCommunicator two_ranks;
  const CountingCommunicator counting(two_ranks);
  EXPECT_EQ(counting.size(), 2);
  EXPECT_EQ(counting.rank(), 0);

  std::vector<double> values{1.0, 2.0, 3.0};
  counting.allreduce_sum(values.data(), values.size());                         // 24 bytes
  counting.allreduce_max(values.data(), 2);                                     // 16
  counting.broadcast(values.data(), 1, 0);                                      // 8
  EXPECT_EQ(counting.sum_counts(5), 5);                                         // 8
  EXPECT_EQ(counting.sum_counts_below(5), 0);                                   // 8
  EXPECT_EQ(counting.gather_all({4.0, 5.0}), (std::vector<double>{4.0, 5.0}));  // 2 + 2 doubles
  EXPECT_EQ(counting.scatter_from_root({7, 8, 9}, 3),
            (std::vector<std::int32_t>{7, 8, 9}));               // 3 + 3 int32
  EXPECT_FALSE(counting.first_error(std::nullopt).has_value());  // one int
  const std::optional<RankError> error = counting.first_error(RankError{"DataError", "bad"});
  ASSERT_TRUE(error.has_value());  // one int and 12 characters
  EXPECT_EQ(error->message, "bad");

  EXPECT_EQ(counting.calls(), 9u);
  EXPECT_EQ(counting.bytes(), 24u + 16 + 8 + 8 + 8 + 32 + 24 + 4 + (4 + 9 + 3));
  EXPECT_EQ(values, (std::vector<double>{1.0, 2.0, 3.0}));  // the local sums leave them alone
}

}  // namespace
}  // namespace cdens
