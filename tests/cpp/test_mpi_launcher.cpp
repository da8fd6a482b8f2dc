// Whether the command was started by an MPI launcher, from the environment the launchers set.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {
namespace {

/// Sets (or, with nullopt, removes) environment variables for one test and restores them after.
class ScopedEnvironment {
 public:
  ScopedEnvironment(
      std::initializer_list<std::pair<const char*, std::optional<std::string>>> values) {
    for (const auto& [name, value] : values) {
      const char* before = std::getenv(name);
      saved_.push_back({name, before ? std::optional<std::string>(before) : std::nullopt});
      set(name, value);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) set(name, value);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  static void set(const char* name, const std::optional<std::string>& value) {
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

constexpr std::nullopt_t kUnset = std::nullopt;

TEST(MpiLauncher, AloneIsNotLaunched) {
  const ScopedEnvironment alone{
      {"OMPI_COMM_WORLD_SIZE", kUnset}, {"PMIX_RANK", kUnset}, {"OMPI_MCA_ess", kUnset}};
  EXPECT_FALSE(started_by_mpi_launcher());
}

TEST(MpiLauncher, MpirunAndPmixLaunchersAreRecognised) {
  {
    const ScopedEnvironment mpirun{
        {"OMPI_COMM_WORLD_SIZE", "4"}, {"PMIX_RANK", "2"}, {"OMPI_MCA_ess", kUnset}};
    EXPECT_TRUE(started_by_mpi_launcher());
  }
  const ScopedEnvironment pmix{
      {"OMPI_COMM_WORLD_SIZE", kUnset}, {"PMIX_RANK", "0"}, {"OMPI_MCA_ess", kUnset}};
  EXPECT_TRUE(started_by_mpi_launcher());
}

TEST(MpiLauncher, TheChildOfAProcessThatInitialisedMpiAloneIsNotLaunched) {
  // What OpenMPI leaves in the environment of a Python script after `from mpi4py import MPI`
  // (measured with OpenMPI 4.1 on Debian 12), which the commands it starts inherit.
  const ScopedEnvironment singleton{
      {"OMPI_COMM_WORLD_SIZE", kUnset}, {"PMIX_RANK", "0"}, {"OMPI_MCA_ess", "singleton"}};
  EXPECT_FALSE(started_by_mpi_launcher());
}

TEST(MpiLauncher, ABuildWithoutMpiRefusesASession) {
  if (mpi_available()) GTEST_SKIP() << "this build has MPI";
  try {
    MpiSession session;
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(std::string(error.what()),
              "this cdens was built without MPI: rebuild it with -DCDENS_WITH_MPI=ON to fit on "
              "many processes");
  }
}

}  // namespace
}  // namespace cdens
