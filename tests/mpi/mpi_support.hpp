#pragma once
// What the MPI tests share: the communicator of every process of the run, and files every rank
// reads.

#include <string>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens::testing_mpi {

/// The communicator of all ranks, set once by main().
const Communicator& world();
void set_world(const Communicator& communicator);

/// A path in the temporary directory that is the same on every rank (rank 0's process id).
std::string shared_temporary_path(const std::string& stem);

/// Rank 0 writes `text` to `path`; every rank returns once the file is there.
void write_shared_file(const std::string& path, const std::string& text);

/// Every rank's columns of `local` (d × n_r), concatenated in rank order: the whole data set.
Matrix gather_columns(const MatrixView& local);

}  // namespace cdens::testing_mpi

#include <nlohmann/json.hpp>

namespace cdens::testing_mpi {

/// The largest relative difference between the numbers of two model documents of the same
/// structure: |a − b| / max(|a|, |b|, 10⁻⁶ · the largest magnitude of the array it belongs to),
/// so that a coefficient rounded to zero on one side and left at 10⁻¹¹ on the other does not
/// count as a relative difference of 1. Text, integers and structure must be equal (a failure
/// names the path); the fit's timings are skipped.
double model_difference(const nlohmann::json& a, const nlohmann::json& b,
                        const std::string& path = "");

}  // namespace cdens::testing_mpi
