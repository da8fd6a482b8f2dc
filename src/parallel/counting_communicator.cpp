#include "parallel/counting_communicator.hpp"

namespace cdens {

void CountingCommunicator::allreduce_sum(double* data, std::size_t count) const {
  inner_.allreduce_sum(data, count);
  this->count(count * sizeof(double));
}

void CountingCommunicator::allreduce_max(double* data, std::size_t count) const {
  inner_.allreduce_max(data, count);
  this->count(count * sizeof(double));
}

void CountingCommunicator::broadcast(double* data, std::size_t count, int root) const {
  inner_.broadcast(data, count, root);
  this->count(count * sizeof(double));
}

std::int64_t CountingCommunicator::sum_counts(std::int64_t value) const {
  const std::int64_t total = inner_.sum_counts(value);
  count(sizeof value);
  return total;
}

std::int64_t CountingCommunicator::sum_counts_below(std::int64_t value) const {
  const std::int64_t below = inner_.sum_counts_below(value);
  count(sizeof value);
  return below;
}

std::vector<double> CountingCommunicator::gather_all(const std::vector<double>& local) const {
  std::vector<double> all = inner_.gather_all(local);
  count((local.size() + all.size()) * sizeof(double));
  return all;
}

std::vector<std::int32_t> CountingCommunicator::scatter_from_root(
    const std::vector<std::int32_t>& root_values, std::int64_t local_count) const {
  std::vector<std::int32_t> mine = inner_.scatter_from_root(root_values, local_count);
  count((root_values.size() + mine.size()) * sizeof(std::int32_t));
  return mine;
}

std::optional<RankError> CountingCommunicator::first_error(
    const std::optional<RankError>& local) const {
  std::optional<RankError> first = inner_.first_error(local);
  count(sizeof(int) + (first ? first->type.size() + first->message.size() : 0));
  return first;
}

}  // namespace cdens
