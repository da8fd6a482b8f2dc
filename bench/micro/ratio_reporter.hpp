#pragma once
// Google Benchmark's console table, keeping each benchmark's real time per iteration so that a
// micro-benchmark can print its ratios against the peers measured in the same run, and the main
// of every micro-benchmark that does.

#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace cdens_bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type == Run::RT_Iteration)
        seconds_[run.benchmark_name()] = run.GetAdjustedRealTime() / 1e3;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  /// Real seconds per iteration of the benchmark `name` (as the table names it), NaN if absent.
  double seconds(const std::string& name) const {
    const auto found = seconds_.find(name);
    return found == seconds_.end() ? NAN : found->second;
  }

 private:
  std::map<std::string, double> seconds_;
};

/// Runs the benchmarks the command line selects, then `summary` on their times (the ratios
/// against the peers); the exit status of main.
template <class Summary>
int run_benchmarks(int argc, char** argv, Summary&& summary) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  summary(reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace cdens_bench
