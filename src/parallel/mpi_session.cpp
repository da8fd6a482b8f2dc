// The MPI session and the Communicator over MPI's collectives (CDENS_WITH_MPI=ON; OpenMPI on
// Debian).

#include <mpi.h>

#include <climits>
#include <numeric>
#include <string>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {
namespace {

/// MPI counts are ints; a larger transfer is refused rather than truncated.
int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    throw InvalidArgument("a transfer of " + std::to_string(count) +
                          " values between processes exceeds MPI's limit of " +
                          std::to_string(INT_MAX));
  }
  return static_cast<int>(count);
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_dup(MPI_COMM_WORLD, &communicator_);
    MPI_Comm_rank(communicator_, &rank_);
    MPI_Comm_size(communicator_, &size_);
  }
  ~MpiCommunicator() override { MPI_Comm_free(&communicator_); }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void allreduce_sum(double* data, std::size_t count) const override {
    // A reduction to rank 0, then a broadcast of its result: MPI_Allreduce may add in a
    // different order on different ranks, and a fit that takes decisions from the sums (the
    // blocks SA-CDE's solver asks for next) needs the same bits on every rank.
    const int size = mpi_count(count);
    MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : data, rank_ == 0 ? data : nullptr, size, MPI_DOUBLE,
               MPI_SUM, 0, communicator_);
    MPI_Bcast(data, size, MPI_DOUBLE, 0, communicator_);
  }

  void allreduce_max(double* data, std::size_t count) const override {
    MPI_Allreduce(MPI_IN_PLACE, data, mpi_count(count), MPI_DOUBLE, MPI_MAX, communicator_);
  }

  void broadcast(double* data, std::size_t count, int root) const override {
    MPI_Bcast(data, mpi_count(count), MPI_DOUBLE, root, communicator_);
  }

  std::int64_t sum_counts(std::int64_t value) const override {
    std::int64_t total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_INT64_T, MPI_SUM, communicator_);
    return total;
  }

  std::int64_t sum_counts_below(std::int64_t value) const override {
    std::int64_t below = 0;
    MPI_Exscan(&value, &below, 1, MPI_INT64_T, MPI_SUM, communicator_);
    // MPI_Exscan leaves rank 0's result undefined.
    return rank_ == 0 ? 0 : below;
  }

  std::vector<double> gather_all(const std::vector<double>& local) const override {
    int local_count = mpi_count(local.size());
    std::vector<int> counts(static_cast<std::size_t>(size_));
    MPI_Allgather(&local_count, 1, MPI_INT, counts.data(), 1, MPI_INT, communicator_);
    const std::vector<int> offsets = offsets_of(counts);
    std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
    MPI_Allgatherv(local.data(), local_count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(),
                   MPI_DOUBLE, communicator_);
    return all;
  }

  std::vector<std::int32_t> scatter_from_root(const std::vector<std::int32_t>& root_values,
                                              std::int64_t local_count) const override {
    int count = mpi_count(static_cast<std::size_t>(local_count));
    std::vector<int> counts(static_cast<std::size_t>(size_));
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, communicator_);
    std::vector<int> offsets;
    if (rank_ == 0) {
      offsets = offsets_of(counts);
      if (static_cast<std::size_t>(offsets.back()) + static_cast<std::size_t>(counts.back()) !=
          root_values.size()) {
        // Every rank would wait for data that never comes; the caller's counts disagree.
        throw InvalidArgument("scatter_from_root: the ranks' counts do not add up to rank 0's");
      }
    }
    std::vector<std::int32_t> mine(static_cast<std::size_t>(count));
    MPI_Scatterv(root_values.data(), counts.data(), offsets.data(), MPI_INT32_T, mine.data(), count,
                 MPI_INT32_T, 0, communicator_);
    return mine;
  }

  std::optional<RankError> first_error(const std::optional<RankError>& local) const override {
    int failing = local ? rank_ : size_;
    MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, communicator_);
    if (failing == size_) return std::nullopt;
    // The type and the message as one text: type, a newline (which neither contains), message.
    std::string text = rank_ == failing ? local->type + '\n' + local->message : std::string();
    int length = mpi_count(text.size());
    MPI_Bcast(&length, 1, MPI_INT, failing, communicator_);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, failing, communicator_);
    const std::size_t split = text.find('\n');
    return RankError{text.substr(0, split), text.substr(split + 1)};
  }

 private:
  /// Where each rank's part starts in a concatenation of parts of `counts` values.
  static std::vector<int> offsets_of(const std::vector<int>& counts) {
    std::vector<int> offsets(counts.size(), 0);
    std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
    return offsets;
  }

  MPI_Comm communicator_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool mpi_available() { return true; }

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw InvalidArgument("MPI is already initialised: one MpiSession per process");
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw InvalidArgument("this MPI library cannot run alongside OpenMP threads");
  }
  world_ = std::make_unique<MpiCommunicator>();
}

MpiSession::~MpiSession() {
  world_.reset();
  MPI_Finalize();
}

void MpiSession::abort(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);  // MPI_Abort does not return; this tells the compiler so.
}

}  // namespace cdens
