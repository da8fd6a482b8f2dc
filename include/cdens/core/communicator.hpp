#pragma once
// How the processes of one fit share their work. Each rank holds a shard of the rows; an
// estimator adds up its per-row statistics (LSCDE's Ĥ and ĥ, GMM responsibilities, …) locally
// and then calls allreduce_sum. The single-process implementation returns its input; the MPI one
// (mpi_communicator.hpp, built with CDENS_WITH_MPI) wraps MPI's collectives. Every member is a
// collective call: every rank calls it, in the same order, or the ranks wait for each other
// forever.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cdens {

/// An error one rank met, in a form every rank can rethrow: the cdens exception type (as the
/// names of types.hpp: "InvalidArgument", "DataError", "ParseError", "IoError",
/// "ModelFormatError", "Error") and its message.
struct RankError {
  std::string type;
  std::string message;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  /// This process's rank, 0 … size() − 1.
  virtual int rank() const = 0;
  /// Number of processes sharing the work.
  virtual int size() const = 0;
  /// Replaces data[0 … count) on every rank by its sum over all ranks, the same bits on every
  /// rank (so that decisions taken from the sums agree).
  virtual void allreduce_sum(double* data, std::size_t count) const = 0;
  /// Replaces data[0 … count) on every rank by its largest value over all ranks.
  virtual void allreduce_max(double* data, std::size_t count) const = 0;
  /// Copies data[0 … count) of rank `root` to every rank.
  virtual void broadcast(double* data, std::size_t count, int root) const = 0;
  /// The sum of `value` over all ranks (exact, for counts of rows).
  virtual std::int64_t sum_counts(std::int64_t value) const = 0;
  /// The sum of `value` over the ranks below this one (an exclusive scan): with a rank's row
  /// count, the global index of its first row.
  virtual std::int64_t sum_counts_below(std::int64_t value) const = 0;
  /// Every rank's `local`, concatenated in rank order, on every rank (a few rows: candidate
  /// centres, headers).
  virtual std::vector<double> gather_all(const std::vector<double>& local) const = 0;
  /// Rank 0's `root_values` split in rank order: each rank receives the next `local_count`
  /// values (rank 0 sends the fold of every row, each rank keeps its rows').
  virtual std::vector<std::int32_t> scatter_from_root(const std::vector<std::int32_t>& root_values,
                                                      std::int64_t local_count) const = 0;
  /// The error of the lowest rank whose `local` is set, on every rank; nothing when no rank
  /// failed.
  virtual std::optional<RankError> first_error(const std::optional<RankError>& local) const = 0;
};

/// One process: every collective returns this process's own values.
class LocalCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(double*, std::size_t) const override {}
  void allreduce_max(double*, std::size_t) const override {}
  void broadcast(double*, std::size_t, int) const override {}
  std::int64_t sum_counts(std::int64_t value) const override { return value; }
  std::int64_t sum_counts_below(std::int64_t) const override { return 0; }
  std::vector<double> gather_all(const std::vector<double>& local) const override { return local; }
  std::vector<std::int32_t> scatter_from_root(const std::vector<std::int32_t>& root_values,
                                              std::int64_t) const override {
    return root_values;
  }
  std::optional<RankError> first_error(const std::optional<RankError>& local) const override {
    return local;
  }
};

/// A process-wide LocalCommunicator, the default for every fit.
const Communicator& local_communicator();

/// Runs `step` on every rank and agrees on how it ended: if it threw on any rank, every rank
/// throws the error of the lowest failing rank — the same cdens exception type (any other
/// exception becomes an Error with its message) and the same message — so that all ranks stop
/// together and a front end prints one message. Every rank must call it at the same point.
void agree_on_errors(const Communicator& communicator, const std::function<void()>& step);

/// InvalidArgument on every rank unless every rank passed the same `values` (the dimensions of
/// its shard, say); `what` names them.
void require_equal_on_every_rank(const Communicator& communicator, std::vector<double> values,
                                 const std::string& what);

// MPI for a program whose fits run on many processes (`mpirun -n K program`): the session
// initialises MPI and hands out the Communicator of all its processes, which a fit takes in its
// FitContext. Only a cdens built with CDENS_WITH_MPI=ON has it; elsewhere the session refuses
// with InvalidArgument.

/// Whether this process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE, and
/// PMIx launchers PMIX_RANK): a program started alone need not initialise MPI. The child of a
/// process that initialised MPI alone (OMPI_MCA_ess=singleton, which sets PMIX_RANK too) was not.
bool started_by_mpi_launcher();

/// Whether this build of cdens has MPI (CDENS_WITH_MPI=ON).
bool mpi_available();

/// MPI from construction to destruction: MPI_Init_thread with MPI_THREAD_FUNNELED (only the
/// thread that calls a fit calls MPI; OpenMP threads compute between the calls) and
/// MPI_Finalize. One per process, for the whole run: MPI cannot be initialised twice.
class MpiSession {
 public:
  /// InvalidArgument when cdens was built without MPI.
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// Every process of the run (a duplicate of MPI_COMM_WORLD, so that the fits' collectives
  /// never meet the program's own).
  const Communicator& world() const { return *world_; }

  /// Ends every process of the run with `status` (MPI_Abort): for a failure on one rank that the
  /// others cannot learn of, because they wait in a collective call it will never make.
  [[noreturn]] void abort(int status) const;

 private:
  std::unique_ptr<Communicator> world_;
};

}  // namespace cdens
