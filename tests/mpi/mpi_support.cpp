#include "mpi_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <numeric>

#include "cdens/conditional/kcde.hpp"
#include "cdens/model_file.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "core/samples.hpp"

namespace cdens::testing_mpi {
namespace {
const Communicator* world_communicator = nullptr;
}

const Communicator& world() { return *world_communicator; }
void set_world(const Communicator& communicator) { world_communicator = &communicator; }

std::string shared_temporary_path(const std::string& stem) {
  double process = world().rank() == 0 ? static_cast<double>(getpid()) : 0.0;
  world().broadcast(&process, 1, 0);
  return (std::filesystem::temp_directory_path() /
          ("cdens_mpi_" + std::to_string(static_cast<long>(process)) + "_" + stem))
      .string();
}

void write_shared_file(const std::string& path, const std::string& text) {
  if (world().rank() == 0) std::ofstream(path, std::ios::binary) << text;
  world().sum_counts(0);  // no rank reads before rank 0 has written
}

std::string file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

Matrix gather_columns(const MatrixView& local) {
  const std::vector<double> all =
      world().gather_all(std::vector<double>(local.data(), local.data() + local.size()));
  return Eigen::Map<const Matrix>(
      all.data(), local.rows(), static_cast<Index>(all.size()) / std::max<Index>(local.rows(), 1));
}

}  // namespace cdens::testing_mpi

namespace cdens::testing_mpi {
namespace {

double relative_difference(double a, double b, double array_magnitude) {
  const double scale = std::max({std::abs(a), std::abs(b), 1e-6 * array_magnitude});
  return scale == 0.0 ? 0.0 : std::abs(a - b) / scale;
}

double largest_magnitude(const nlohmann::json& array) {
  double largest = 0.0;
  for (const auto& value : array) {
    if (value.is_number()) largest = std::max(largest, std::abs(value.get<double>()));
  }
  return largest;
}

}  // namespace

double model_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  if (a.is_number_float() || b.is_number_float()) {
    EXPECT_TRUE(a.is_number() && b.is_number()) << path;
    return relative_difference(a.get<double>(), b.get<double>(), 0.0);
  }
  if (a.type() != b.type() || (a.is_array() && a.size() != b.size())) {
    ADD_FAILURE() << path << ": " << a.dump().substr(0, 200) << " against "
                  << b.dump().substr(0, 200);
    return 0.0;
  }
  double largest = 0.0;
  if (a.is_object()) {
    for (auto entry = a.begin(); entry != a.end(); ++entry) {
      if (entry.key() == "fit_seconds") continue;
      if (!b.contains(entry.key())) {
        ADD_FAILURE() << path << "/" << entry.key() << " is missing";
        continue;
      }
      largest = std::max(largest,
                         model_difference(entry.value(), b[entry.key()], path + "/" + entry.key()));
    }
  } else if (a.is_array()) {
    const double magnitude = std::max(largest_magnitude(a), largest_magnitude(b));
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].is_number() && b[i].is_number()) {
        largest = std::max(largest,
                           relative_difference(a[i].get<double>(), b[i].get<double>(), magnitude));
      } else {
        largest = std::max(largest, model_difference(a[i], b[i], path + "/" + std::to_string(i)));
      }
    }
  } else {
    EXPECT_EQ(a, b) << path;
  }
  return largest;
}

std::vector<Index> rows_of_rank(const std::function<Index(int)>& cut) {
  std::vector<Index> rows;
  for (Index i = cut(world().rank()); i < cut(world().rank() + 1); ++i) rows.push_back(i);
  return rows;
}

std::vector<std::function<Index(int)>> shardings(Index n) {
  const Index size = world().size();
  return {[n, size](int r) { return n * r / size; },
          [n, size](int r) -> Index {
            if (size == 1 || r == 0) return r == 0 ? 0 : n;
            return n * (r - 1) * (r - 1) / ((size - 1) * (size - 1));
          }};
}

void expect_difference_within(double difference, double tolerance, const std::string& name) {
  if (world().size() == 1) {
    EXPECT_EQ(difference, 0.0) << name << ": one rank must compute what one process does";
  }
  EXPECT_LE(difference, tolerance) << name;
  if (world().rank() == 0) {
    std::cout << "[ ranks " << world().size() << " ] " << name
              << ": largest relative difference from the single process " << difference
              << std::endl;
  }
}

void expect_same_model_on_every_sharding(Index n, const ShardModel& fit, const std::string& name,
                                         double tolerance) {
  std::vector<Index> every_row(static_cast<std::size_t>(n));
  std::iota(every_row.begin(), every_row.end(), Index{0});
  const nlohmann::json single = fit(every_row, FitContext{local_communicator()});
  for (const auto& cut : shardings(n)) {
    expect_difference_within(model_difference(fit(rows_of_rank(cut), FitContext{world()}), single),
                             tolerance, name);
  }
}

void expect_rank_count_does_not_matter(const test::PairSample& pairs, const Matrix& unlabeled,
                                       const ShardFit& fit, const std::string& name) {
  expect_same_model_on_every_sharding(
      pairs.x.cols(),
      [&](const std::vector<Index>& rows, const FitContext& context) {
        // The unlabelled inputs split evenly over the ranks of the context.
        const Communicator& ranks = context.communicator;
        std::vector<Index> unlabeled_rows;
        for (Index i = unlabeled.cols() * ranks.rank() / ranks.size();
             i < unlabeled.cols() * (ranks.rank() + 1) / ranks.size(); ++i) {
          unlabeled_rows.push_back(i);
        }
        return conditional_model_to_json(
            unnamed_model(fit(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows),
                              gather_samples(unlabeled, unlabeled_rows), context)));
      },
      name);
}

ConditionalMixture kernel_stretch(const ConditionalMixture& fitted, Index first, Index count,
                                  double marginal_weight, double broad_weight) {
  const auto* broad = dynamic_cast<const BroadComponentGate*>(&fitted.gate());
  const auto& kernels =
      dynamic_cast<const ProductKernelGate&>(broad ? broad->inner() : fitted.gate());
  const Index n = kernels.n_components();
  const Index columns = count + (broad ? 1 : 0);
  Matrix centers(fitted.centers().rows(), columns);
  Matrix scales(fitted.scales().rows(), columns);
  centers.leftCols(count) = fitted.centers().middleCols(first, count);
  scales.leftCols(count) = fitted.scales().middleCols(first, count);
  std::shared_ptr<const ConditionalGate> gate = std::make_shared<const ProductKernelGate>(
      kernels.centers_x().middleCols(first, count), kernels.bandwidths(), kernels.kernels(),
      marginal_weight);
  if (broad) {
    centers.col(count) = fitted.centers().col(n);
    scales.col(count) = fitted.scales().col(n);
    gate = std::make_shared<const BroadComponentGate>(std::move(gate), broad_weight);
  }
  return ConditionalMixture(fitted.x_scaling(), fitted.y_scaling(), std::move(gate),
                            MixtureOutputs::gaussian(centers, scales)
                                .with_groups(fitted.trend_groups())
                                .with_output_kernels(fitted.output_kernels()));
}

ConditionalMixture gaussian_process_yeo_johnson_kcde(const test::PairSample& pairs) {
  KcdeOptions options;
  options.search.seed = 3;
  options.search.n_restarts = 0;
  options.trend = KernelTrend::gaussian_process;
  options.y_transform = OutputTransformChoice::yeo_johnson;
  return fit_kcde(pairs.x, pairs.y, options, FitContext{}).model;
}

}  // namespace cdens::testing_mpi
