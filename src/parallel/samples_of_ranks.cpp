#include "parallel/samples_of_ranks.hpp"

#include <algorithm>

namespace cdens {

std::optional<std::vector<double>> distinct_values_of_ranks(const VectorView& values,
                                                            std::size_t limit,
                                                            const Communicator& communicator) {
  std::vector<double> distinct(values.data(), values.data() + values.size());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  double too_many = distinct.size() > limit ? 1.0 : 0.0;
  communicator.allreduce_max(&too_many, 1);
  if (too_many > 0.0) return std::nullopt;
  std::vector<double> every = communicator.gather_all(distinct);
  std::sort(every.begin(), every.end());
  every.erase(std::unique(every.begin(), every.end()), every.end());
  return every;
}

Matrix gather_every_sample(const MatrixView& local, const Communicator& communicator) {
  if (communicator.size() == 1) return local;
  // A view may have an outer stride other than its rows: copied column by column.
  std::vector<double> mine(static_cast<std::size_t>(local.size()));
  Eigen::Map<Matrix>(mine.data(), local.rows(), local.cols()) = local;
  const std::vector<double> every = communicator.gather_all(mine);
  const Index columns = local.rows() > 0 ? static_cast<Index>(every.size()) / local.rows() : 0;
  return Eigen::Map<const Matrix>(every.data(), local.rows(), columns);
}

Matrix samples_at_global_indices(const MatrixView& local, const std::vector<Index>& pairs,
                                 const Communicator& communicator) {
  if (pairs.empty()) return gather_every_sample(local, communicator);
  if (communicator.size() == 1) return local(Eigen::all, pairs);
  const Index first = communicator.sum_counts_below(local.cols());
  Matrix chosen = Matrix::Zero(local.rows(), static_cast<Index>(pairs.size()));
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const Index own = pairs[p] - first;
    if (own >= 0 && own < local.cols()) chosen.col(static_cast<Index>(p)) = local.col(own);
  }
  communicator.allreduce_sum(chosen.data(), static_cast<std::size_t>(chosen.size()));
  return chosen;
}

}  // namespace cdens
