// The MPI communicator's collectives against their closed forms on K ranks.

#include <gtest/gtest.h>

#include <algorithm>

#include "cdens/core/types.hpp"
#include "mpi_support.hpp"

namespace cdens {
namespace {

using testing_mpi::world;

TEST(MpiCommunicator, SumsMaximaAndBroadcastsAcrossRanks) {
  const int rank = world().rank();
  const int size = world().size();
  double values[2] = {rank + 1.0, -rank * 0.5};
  world().allreduce_sum(values, 2);
  EXPECT_EQ(values[0], size * (size + 1) / 2.0);
  EXPECT_EQ(values[1], -0.25 * size * (size - 1));

  double largest[2] = {static_cast<double>(rank), -static_cast<double>(rank)};
  world().allreduce_max(largest, 2);
  EXPECT_EQ(largest[0], size - 1.0);
  EXPECT_EQ(largest[1], 0.0);

  double root_value[3] = {rank * 1.0, rank * 2.0, 7.0};
  world().broadcast(root_value, 3, size - 1);
  EXPECT_EQ(root_value[0], size - 1.0);
  EXPECT_EQ(root_value[1], 2.0 * (size - 1));
}

TEST(MpiCommunicator, EveryRankGetsTheSameBitsOfASum) {
  // Terms whose sum depends on the order of addition (1e16 absorbs the small ones unless they
  // meet first): every rank must still hold the same result.
  std::vector<double> terms(1000);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    terms[i] = (world().rank() % 2 == 0 ? 1e16 : 0.0) + 0.1 * static_cast<double>(i % 7) +
               0.37 * world().rank();
  }
  world().allreduce_sum(terms.data(), terms.size());
  const std::vector<double> everyone = world().gather_all(terms);
  for (int r = 0; r < world().size(); ++r) {
    EXPECT_TRUE(std::equal(terms.begin(), terms.end(), everyone.begin() + r * 1000))
        << "rank " << r;
  }
}

TEST(MpiCommunicator, CountsRowsAndTheirGlobalOffsets) {
  const int rank = world().rank();
  const int size = world().size();
  // Rank r holds r + 1 rows: rows of ranks below r number r(r + 1)/2.
  EXPECT_EQ(world().sum_counts(rank + 1), size * (size + 1) / 2);
  EXPECT_EQ(world().sum_counts_below(rank + 1), rank * (rank + 1) / 2);
  // Counts beyond 32 bits stay exact.
  const std::int64_t large = std::int64_t{1} << 40;
  EXPECT_EQ(world().sum_counts(large), large * size);
}

TEST(MpiCommunicator, GathersEveryRanksValuesInRankOrder) {
  const int rank = world().rank();
  // Rank r sends r copies of r (rank 0 sends nothing).
  const std::vector<double> mine(static_cast<std::size_t>(rank), rank);
  std::vector<double> expected;
  for (int r = 0; r < world().size(); ++r) expected.insert(expected.end(), r, r);
  EXPECT_EQ(world().gather_all(mine), expected);
}

TEST(MpiCommunicator, ScattersRankZerosValuesInRankOrder) {
  const int rank = world().rank();
  const int size = world().size();
  std::vector<std::int32_t> all;
  if (rank == 0) {
    for (std::int32_t r = 0; r < size; ++r) all.insert(all.end(), r + 1, 10 * r);
  }
  EXPECT_EQ(world().scatter_from_root(all, rank + 1),
            std::vector<std::int32_t>(static_cast<std::size_t>(rank + 1), 10 * rank));
}

TEST(MpiCommunicator, EveryRankThrowsTheErrorOfTheLowestFailingRank) {
  const int rank = world().rank();
  const int size = world().size();
  // The last rank and, with more than two ranks, rank 1 fail; rank 0 never does (unless alone).
  const auto step = [&] {
    if (rank == size - 1) throw ParseError("part.csv:" + std::to_string(10 + rank) + ":2: bad");
    if (rank == 1) throw IoError("rank 1 cannot read");
  };
  const int first_failing = size > 2 ? 1 : size - 1;
  const std::string expected = first_failing == 1 && size > 2
                                   ? "rank 1 cannot read"
                                   : "part.csv:" + std::to_string(10 + size - 1) + ":2: bad";
  try {
    agree_on_errors(world(), step);
    ADD_FAILURE() << "no error";
  } catch (const IoError& error) {
    EXPECT_EQ(first_failing, 1);
    EXPECT_EQ(error.what(), expected);
  } catch (const ParseError& error) {
    EXPECT_EQ(first_failing, size - 1);
    EXPECT_EQ(error.what(), expected);
  }
  EXPECT_NO_THROW(agree_on_errors(world(), [] {}));
}

}  // namespace
}  // namespace cdens
