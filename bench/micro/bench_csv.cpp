// Reading a numeric CSV file (cdens::read_csv) on one thread: the file named by the environment
// variable CDENS_BENCH_CSV (bench/peers/csv_load.py writes 10⁶ rows × 10 columns and times
// pandas.read_csv on the same file in the same run). The table's values are checked to be there,
// so that nothing of the read is optimised away.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "io/csv.hpp"

namespace {

void read_csv_file(benchmark::State& state, const std::string& path) {
  for (auto _ : state) {
    const cdens::CsvTable table = cdens::read_csv(path);
    benchmark::DoNotOptimize(table.values.data());
    state.counters["rows"] = static_cast<double>(table.values.cols());
    state.counters["columns"] = static_cast<double>(table.values.rows());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = std::getenv("CDENS_BENCH_CSV");
  if (path == nullptr) {
    std::cerr << "cdens_bench_csv: set CDENS_BENCH_CSV to the CSV file to read "
                 "(bench/peers/csv_load.py does)\n";
    return 2;
  }
  benchmark::RegisterBenchmark("read_csv", read_csv_file, std::string(path))
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
