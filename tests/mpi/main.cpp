// GoogleTest under MPI: every rank runs every test inside one MpiSession. Rank 0 prints the usual
// report; the other ranks print only their failures, prefixed with their rank. A failure on any
// rank fails the run on all (mpirun then returns a failing status).

#include <gtest/gtest.h>

#include <iostream>

#include "cdens/core/communicator.hpp"
#include "mpi_support.hpp"

namespace {

/// Prints the failed assertions of a rank other than 0.
class RankFailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::cerr << "rank " << rank_ << ": " << (result.file_name() ? result.file_name() : "") << ":"
              << result.line_number() << ": " << result.summary() << std::endl;
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  cdens::MpiSession session;
  const cdens::Communicator& world = session.world();
  cdens::testing_mpi::set_world(world);
  if (world.rank() != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(world.rank()));
  }
  const int status = RUN_ALL_TESTS();
  return world.sum_counts(status != 0 ? 1 : 0) > 0 ? 1 : 0;
}
