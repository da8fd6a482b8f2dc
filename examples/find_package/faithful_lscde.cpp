// Fits LSCDE to the Old Faithful data through the installed headers alone and checks the fitted
// density: p̂(eruptions | waiting) must integrate to 1 over eruptions at every waiting time
// (trapezoid rule on a fine grid), since LSCDE normalises its estimate analytically.
//
// Usage: faithful_lscde data/faithful.csv; exit status 0 when every check holds.

#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"

namespace {

// The pairs of faithful.csv ("eruptions,waiting" then one pair per line) as the library takes
// them: one sample per column. Reading the data is the caller's part; cdens starts at matrices.
void read_faithful(const char* path, cdens::Matrix& waiting, cdens::Matrix& eruptions) {
  std::ifstream input(path);
  std::string line;
  if (!std::getline(input, line) || line != "eruptions,waiting") {
    throw std::runtime_error(std::string(path) + ": expected the header 'eruptions,waiting'");
  }
  std::vector<double> eruption_values, waiting_values;
  while (std::getline(input, line)) {
    const std::size_t comma = line.find(',');
    if (comma == std::string::npos) throw std::runtime_error("no comma in '" + line + "'");
    eruption_values.push_back(std::stod(line.substr(0, comma)));
    waiting_values.push_back(std::stod(line.substr(comma + 1)));
  }
  const auto n = static_cast<cdens::Index>(waiting_values.size());
  waiting = Eigen::Map<const cdens::Matrix>(waiting_values.data(), 1, n);
  eruptions = Eigen::Map<const cdens::Matrix>(eruption_values.data(), 1, n);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s faithful.csv\n", argv[0]);
    return 2;
  }
  try {
    cdens::Matrix x, y;
    read_faithful(argv[1], x, y);
    const cdens::ConditionalFit fit = cdens::fit_lscde(x, y);
    std::printf("LSCDE on %ld pairs: sigma %g, regularization %g\n", static_cast<long>(x.cols()),
                fit.report.hyperparameters.at("sigma"),
                fit.report.hyperparameters.at("regularization"));

    // ∫ p̂(y | x) dy over [0, 7] minutes, far beyond the data's 1.6–5.1, at five waiting times.
    const int points = 2001;
    const double low = 0.0, high = 7.0, step = (high - low) / (points - 1);
    int failures = 0;
    for (const double waiting : {45.0, 55.0, 65.0, 75.0, 85.0}) {
      cdens::Matrix queries_x = cdens::Matrix::Constant(1, points, waiting);
      cdens::Matrix queries_y(1, points);
      for (int k = 0; k < points; ++k) queries_y(0, k) = low + step * k;
      const cdens::Vector log_density = fit.model.log_pdf(queries_x, queries_y);
      double integral = 0.0;
      for (int k = 0; k < points; ++k) {
        const double weight = (k == 0 || k == points - 1) ? 0.5 : 1.0;
        integral += weight * std::exp(log_density(k)) * step;
      }
      const bool ok = std::abs(integral - 1.0) < 1e-3;
      failures += ok ? 0 : 1;
      std::printf("waiting %g: integral %.6f %s\n", waiting, integral, ok ? "ok" : "FAILED");
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "faithful_lscde: %s\n", error.what());
    return 1;
  }
}
