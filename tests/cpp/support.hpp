#pragma once
// Helpers shared by the C++ tests.

#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens::test {

/// d × n matrix of independent standard normal draws.
Matrix normal_matrix(Index d, Index n, Rng& rng);

/// The message of the `Exception` that `function` throws; a test failure if it throws nothing
/// or something else.
template <typename Exception, typename Function>
std::string message_of(Function&& function) {
  try {
    function();
  } catch (const Exception& error) {
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "wrong exception type: " << error.what();
    return {};
  }
  ADD_FAILURE() << "no exception thrown";
  return {};
}

/// Path of a fresh file name in the system's temporary directory.
std::string temporary_path(const std::string& stem);

}  // namespace cdens::test
