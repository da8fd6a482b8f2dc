// Tests of the copies of the vector loops (src/core/vector_instruction_set.hpp): every copy this
// CPU runs fits and sums kernels as the baseline copy does, and CDENS_ISA is refused when it
// names a copy that cannot run.
//
// Tolerance: the copies evaluate the same expressions with 2, 4 or 8 doubles per instruction, so
// sums are added in another order, products are fused (FMA) and Eigen's vectorised exp may differ
// in the last bit: each term agrees to a few ε and a sum of n terms to about n ε relative (n ≤
// 400 here: 1e-13). Fits that choose their hyper-parameters on a grid (LSCDE, the Parzen window)
// or run a fixed number of steps from the same start (GMM's EM, KCDE at fixed bandwidths) then
// agree to the bit in their choices unless two candidates tie to 1e-13, and their log-densities
// to 1e-10. KCDE's L-BFGS search of the bandwidths stops where its criterion changes by less than
// its relative tolerance (1e-5): copies may stop a step apart, along a flat direction far apart
// (an irrelevant input's bandwidth of 42 moved by 7e-4, log-densities by 3e-7), so only their
// criterion at the optimum is compared, within that tolerance.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "core/vector_dispatch.hpp"
#include "core/vector_instruction_set.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// What a fit by one copy produced: chosen hyper-parameters, statistics and log-densities at
/// test points.
struct FitOutcome {
  std::map<std::string, double> hyperparameters;
  std::map<std::string, double> statistics;
  Vector log_densities;
};

/// KCDE (at fixed bandwidths, and searched), LSCDE, GMM and the Parzen window, on one thread,
/// fitted and queried by the copy in use.
std::map<std::string, FitOutcome> fit_every_method() {
  const test::PairSample train = test::sine_sample(400, 2, 21);
  const test::PairSample test_points = test::sine_sample(150, 2, 22);
  const Matrix none(2, 0);
  const OptionValues one_thread{{"threads", std::int64_t{1}}};
  OptionValues fixed_bandwidths = one_thread;
  fixed_bandwidths["bandwidth"] = std::vector<double>{0.3, 0.6, 0.25};
  std::map<std::string, FitOutcome> outcomes;
  for (const auto& [name, method, options] :
       {std::tuple{"kcde, fixed bandwidths", "kcde", fixed_bandwidths},
        std::tuple{"kcde", "kcde", one_thread}, std::tuple{"lscde", "lscde", one_thread}}) {
    const ConditionalModel model =
        fit_method(*method_named(method), train.x, train.y, none, options);
    outcomes[name] = {model.report.hyperparameters, model.report.statistics,
                      model.mixture.log_pdf(test_points.x, test_points.y)};
  }
  Matrix joint(3, 400);
  joint << train.x, train.y;
  Matrix joint_test(3, 150);
  joint_test << test_points.x, test_points.y;
  for (const std::string method : {"gmm", "parzen"}) {
    const DensityModel model = fit_method(find_method(method, MethodFamily::density), joint,
                                          {{"threads", std::int64_t{1}}});
    outcomes[method] = {model.report.hyperparameters, model.report.statistics,
                        model.mixture.log_pdf(joint_test)};
  }
  return outcomes;
}

/// Kernel sums by the exact and the tree path, from points of two clusters.
std::map<std::string, Vector> kernel_sums_by_path() {
  Rng rng(5);
  Matrix points = test::normal_matrix(3, 3000, rng);
  points.leftCols(1000).array() = points.leftCols(1000).array() * 0.2 + 1.5;
  const Vector weights =
      (test::normal_matrix(1, 3000, rng).transpose().array().abs() + 0.05).matrix();
  const Matrix queries = test::normal_matrix(3, 700, rng) * 1.3;
  std::map<std::string, Vector> sums;
  for (const KernelSumPath path : {KernelSumPath::exact, KernelSumPath::tree}) {
    KernelSumOptions options;
    options.path = path;
    options.threads = 1;
    sums[to_string(path)] =
        gaussian_kernel_log_sums(points / 0.4, weights, queries / 0.4, options).log_sums;
  }
  return sums;
}

/// The copies this CPU runs besides the baseline copy of a portable build.
std::vector<std::string> wider_copies_this_cpu_runs() {
  const std::vector<std::string> compiled = compiled_vector_instruction_sets();
  // A one-copy build: "native" or "baseline" alone.
  if (compiled.size() == 1) return {};
  std::vector<std::string> wider;
  for (const std::string& name : compiled) {
    if (name != "baseline" && cpu_runs_vector_instruction_set(name)) wider.push_back(name);
  }
  return wider;
}

/// Restores the copy chosen at load when a test ends.
class VectorInstructionSetTest : public ::testing::Test {
 protected:
  void TearDown() override { use_vector_instruction_set(chosen_); }

 private:
  std::string chosen_ = vector_instruction_set();
};

/// Runs `compute` with the baseline copy and with every wider copy this CPU runs, and calls
/// `compare(name, result, baseline_result)` for each wider one; skips the test in a one-copy
/// build.
template <class Compute, class Compare>
void compare_with_baseline_copy(Compute&& compute, Compare&& compare) {
  const std::vector<std::string> wider = wider_copies_this_cpu_runs();
  if (wider.empty()) GTEST_SKIP() << "this build (or CPU) has one copy of the vector loops";
  use_vector_instruction_set("baseline");
  const auto expected = compute();
  for (const std::string& name : wider) {
    use_vector_instruction_set(name);
    EXPECT_EQ(vector_instruction_set(), name);
    compare(name, compute(), expected);
  }
}

TEST_F(VectorInstructionSetTest, EveryCopyTheCpuRunsFitsAsTheBaselineCopy) {
  compare_with_baseline_copy(
      fit_every_method, [](const std::string& name, const auto& got, const auto& expected) {
        for (const auto& [method, outcome] : expected) {
          SCOPED_TRACE(name + " copy, " + method);
          const FitOutcome& other = got.at(method);
          if (method == "kcde") {
            const double criterion = outcome.statistics.at("loo_nll");
            EXPECT_NEAR(other.statistics.at("loo_nll"), criterion, 1e-5 * std::abs(criterion));
            continue;
          }
          ASSERT_EQ(other.hyperparameters.size(), outcome.hyperparameters.size());
          for (const auto& [parameter, value] : outcome.hyperparameters) {
            EXPECT_NEAR(other.hyperparameters.at(parameter), value, 1e-10 * std::abs(value))
                << parameter;
          }
          EXPECT_LT((other.log_densities - outcome.log_densities).cwiseAbs().maxCoeff(), 1e-10);
        }
      });
}

TEST_F(VectorInstructionSetTest, EveryCopyTheCpuRunsSumsKernelsAsTheBaselineCopy) {
  compare_with_baseline_copy(
      kernel_sums_by_path, [](const std::string& name, const auto& got, const auto& expected) {
        for (const auto& [path, sums] : got) {
          SCOPED_TRACE(name + " copy, " + path + " path");
          const Vector& baseline = expected.at(path);
          const double difference =
              ((sums - baseline).array() / baseline.array().abs().max(1.0)).abs().maxCoeff();
          EXPECT_LT(difference, 1e-11);
          // Two million exponentials summed 2 or 4 or 8 at a time round differently somewhere: sums
          // equal to the bit would mean that the baseline copy ran again.
          EXPECT_GT(difference, 0.0);
        }
      });
}

TEST_F(VectorInstructionSetTest, ACopyTheBuildLacksOrTheCpuCannotRunIsRefused) {
  const std::string message =
      test::message_of<InvalidArgument>([] { use_vector_instruction_set("avx1024"); });
  EXPECT_NE(message.find("no copy of the vector loops is named avx1024"), std::string::npos)
      << message;
  for (const std::string& name : compiled_vector_instruction_sets()) {
    if (cpu_runs_vector_instruction_set(name)) continue;
    const std::string refusal =
        test::message_of<InvalidArgument>([&] { use_vector_instruction_set(name); });
    EXPECT_NE(refusal.find("this CPU cannot run the " + name + " copy"), std::string::npos);
  }
  EXPECT_FALSE(cpu_runs_vector_instruction_set("avx1024"));
  EXPECT_TRUE(cpu_runs_vector_instruction_set("baseline"));
}

/// How `cdens --version` ended with CDENS_ISA=`value`.
struct VersionRun {
  int status;
  std::string out;
  std::string err;
};

VersionRun version_with_isa(const std::string& value) {
  const std::string out = test::temporary_path("isa_stdout.txt");
  const std::string err = test::temporary_path("isa_stderr.txt");
  const std::string command = "CDENS_ISA='" + value + "' '" + std::string(CDENS_CLI_PATH) +
                              "' --version > '" + out + "' 2> '" + err + "'";
  const int status = std::system(command.c_str());
  VersionRun run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::file_bytes(out),
                 test::file_bytes(err)};
  std::remove(out.c_str());
  std::remove(err.c_str());
  return run;
}

TEST_F(VectorInstructionSetTest, TheCommandReportsItsCopyAndRefusesACdensIsaItCannotHonour) {
  const VersionRun unknown = version_with_isa("avx1024");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("cdens: error: CDENS_ISA=avx1024 names no copy of this build's "
                             "vector loops: it has " +
                             compiled_vector_instruction_sets().front()),
            std::string::npos)
      << unknown.err;
  for (const std::string& name : compiled_vector_instruction_sets()) {
    const VersionRun run = version_with_isa(name);
    if (cpu_runs_vector_instruction_set(name)) {
      EXPECT_EQ(run.status, 0) << run.err;
      EXPECT_NE(run.out.find("(vector instructions: " + name + ")"), std::string::npos) << run.out;
    } else {
      EXPECT_EQ(run.status, 2);
      EXPECT_NE(run.err.find("this CPU cannot run that copy"), std::string::npos) << run.err;
    }
  }
}

}  // namespace
}  // namespace cdens
