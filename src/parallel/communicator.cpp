#include "cdens/core/communicator.hpp"

#include <exception>
#include <new>

#include "cdens/core/types.hpp"

namespace cdens {
namespace {

/// The error an exception is, under the name of its most derived cdens type.
RankError describe(const std::exception& error) {
  const auto type = [&]() -> std::string {
    if (dynamic_cast<const ParseError*>(&error)) return "ParseError";
    if (dynamic_cast<const DataError*>(&error)) return "DataError";
    if (dynamic_cast<const InvalidArgument*>(&error)) return "InvalidArgument";
    if (dynamic_cast<const IoError*>(&error)) return "IoError";
    if (dynamic_cast<const ModelFormatError*>(&error)) return "ModelFormatError";
    return "Error";
  }();
  // The command's own words for running out of memory (cli/main.cpp), since what() says only
  // "std::bad_alloc".
  if (dynamic_cast<const std::bad_alloc*>(&error)) {
    return {type, "out of memory (is the grid, the sample or the data set too large?)"};
  }
  return {type, error.what()};
}

[[noreturn]] void throw_rank_error(const RankError& error) {
  if (error.type == "ParseError") throw ParseError(error.message);
  if (error.type == "DataError") throw DataError(error.message);
  if (error.type == "InvalidArgument") throw InvalidArgument(error.message);
  if (error.type == "IoError") throw IoError(error.message);
  if (error.type == "ModelFormatError") throw ModelFormatError(error.message);
  throw Error(error.message);
}

}  // namespace

const Communicator& local_communicator() {
  static const LocalCommunicator instance;
  return instance;
}

void agree_on_errors(const Communicator& communicator, const std::function<void()>& step) {
  // One process keeps its exception as it is (a std::bad_alloc stays one).
  if (communicator.size() == 1) return step();
  std::optional<RankError> local;
  try {
    step();
  } catch (const std::exception& error) {
    local = describe(error);
  }
  if (const std::optional<RankError> first = communicator.first_error(local)) {
    throw_rank_error(*first);
  }
}

void require_equal_on_every_rank(const Communicator& communicator, std::vector<double> values,
                                 const std::string& what) {
  // Equal everywhere exactly when the largest of each value equals the largest of its negation,
  // negated.
  const std::size_t count = values.size();
  for (std::size_t i = 0; i < count; ++i) values.push_back(-values[i]);
  communicator.allreduce_max(values.data(), values.size());
  for (std::size_t i = 0; i < count; ++i) {
    if (values[i] != -values[count + i]) {
      throw InvalidArgument(what + " differ between the processes");
    }
  }
}

}  // namespace cdens
