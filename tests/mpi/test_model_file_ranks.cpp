// A model file written by the ranks together, each holding its own training pairs
// (write_model_document_of_ranks), against the file one process writes of the whole document:
// the same bytes, in either encoding, on any sharding of the pairs — so the command and Python
// read it as they read any model file.

#include <gtest/gtest.h>

#include <cstdio>

#include "cdens/conditional/kcde.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "core/samples.hpp"
#include "io/json_io.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::file_bytes;
using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;
using Pointer = nlohmann::json::json_pointer;

const std::vector<Pointer> kRowMatrices = {Pointer("/model/gate/centers_x"),
                                           Pointer("/model/centers"), Pointer("/model/scales")};

/// The document of a KCDE model of n pairs (given bandwidths: no search).
nlohmann::json kcde_document(Index n) {
  KcdeOptions options;
  options.bandwidth = {0.4, 0.7, 0.3};
  const test::PairSample pairs = test::sine_sample(n, 2, 6);
  return conditional_model_to_json(
      unnamed_model(fit_kcde(pairs.x, pairs.y, options, FitContext{})));
}

/// The columns `rows` of each row matrix of `document`.
std::vector<Matrix> columns_of(const nlohmann::json& document, const std::vector<Index>& rows) {
  std::vector<Matrix> columns;
  for (const Pointer& pointer : kRowMatrices) {
    columns.push_back(gather_samples(matrix_from_json(document.at(pointer), "rows"), rows));
  }
  return columns;
}

/// write_model_document_of_ranks of `document` whose row matrices hold `columns` on this rank.
void write_of_ranks(const std::string& path, const nlohmann::json& document,
                    const std::vector<Matrix>& columns, Index binary_from) {
  std::vector<ColumnsOfRank> matrices;
  for (std::size_t m = 0; m < kRowMatrices.size(); ++m) {
    matrices.push_back({kRowMatrices[m], columns[m]});
  }
  write_model_document_of_ranks(path, document, matrices, world(), binary_from);
}

TEST(ModelFileRanks, TheRanksWriteTheBytesOneProcessWrites) {
  const Index n = 90;
  const nlohmann::json whole = kcde_document(n);
  const std::string single_path = testing_mpi::shared_temporary_path("single_model");
  const std::string ranks_path = testing_mpi::shared_temporary_path("ranks_model");
  // 0: the binary encoding whatever the size (the chunks a rank sends); the default: JSON text.
  for (const Index binary_from : {Index{0}, kBinaryModelFileNumbers}) {
    if (world().rank() == 0) write_model_document(single_path, whole, binary_from);
    for (const auto& cut : shardings(n)) {
      write_of_ranks(ranks_path, whole, columns_of(whole, rows_of_rank(cut)), binary_from);
      EXPECT_EQ(file_bytes(ranks_path), file_bytes(single_path)) << "binary from " << binary_from;
      world().sum_counts(0);  // every rank has read before the next write
    }
  }
  if (world().rank() == 0) {
    std::remove(single_path.c_str());
    std::remove(ranks_path.c_str());
  }
}

TEST(ModelFileRanks, ARankThatCannotWriteFailsEveryRank) {
  const Index n = 40;
  const nlohmann::json whole = kcde_document(n);
  const std::vector<Index> rows = rows_of_rank(shardings(n).front());
  const std::string message = test::message_of<IoError>([&] {
    write_of_ranks("/nonexistent-directory/model.json", whole, columns_of(whole, rows), 0);
  });
  EXPECT_EQ(message.substr(0, 54), "cannot create a temporary file beside /nonexistent-dir")
      << message;
}

}  // namespace
}  // namespace cdens
