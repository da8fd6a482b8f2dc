// GSKD's construction stage by stage on a noise-free and on a noisy target (issue 18,
// docs/benchmarks.md "GSKD stopping"): Table I's eight Gaussians (1-D, N = 200, γ_Parz = 0.17,
// P_S = 10, N_G = 10, M_I = 200, the box [γ²_Parz, s²]). Per stage n: log J_n (eq. 37), γ²_n and
// whether it sits at the box floor, whether eq. (38) stops there (J_n ≥ J_{n−1}: the kernel is
// not added), and the RMS error of the least-squares model Σ β_l φ_l of the kernels added so far
// on 10,000 fresh points against the Parzen
// target p̂_Parz (first run) or against the true density (second run, target
// t_k = p(x_k) + N(0, 0.01²)).
//
//   stopping_probe TRAIN.csv FRESH.csv     (columns x, p(x); written by stopping_probe.py)

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/density/gskd.hpp"
#include "density/fixed_kernels.hpp"
#include "density/gskd_construction.hpp"

using namespace cdens;

namespace {

Matrix read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string cell;
    std::vector<double> row;
    while (std::getline(cells, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  Matrix data(static_cast<Index>(rows[0].size()), static_cast<Index>(rows.size()));
  for (std::size_t j = 0; j < rows.size(); ++j) {
    for (std::size_t i = 0; i < rows[j].size(); ++i) {
      data(static_cast<Index>(i), static_cast<Index>(j)) = rows[j][i];
    }
  }
  return data;
}

void probe(const char* title, const Matrix& x, const Vector& target, const Matrix& fresh,
           const Vector& reference, double target_width) {
  std::printf("\n%s\n\n| n | log10 J_n | γ²_n | at floor | eq. (38) | RMS error ×1e3 |\n", title);
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  const GskdBox box = gskd_box(x, target_width, 1.0, 1.0);
  const double floor = box.lower(1);
  GskdConstruction construction(x, target, box, gskd_paper_rwbs(1), 1e-6, 1);
  for (int stage = 1; stage <= 30; ++stage) {
    const GskdStage found = construction.add_stage();
    if (!std::isfinite(found.loo_mse)) break;
    // The least-squares model Σ β_l φ_l of the kernels added so far.
    const std::vector<Vector>& kernels = construction.kernels();
    const Vector beta = construction.least_squares_weights();
    Vector fitted = Vector::Zero(fresh.cols());
    Vector column(fresh.cols());
    for (std::size_t l = 0; l < kernels.size(); ++l) {
      gskd_kernel_column(fresh, kernels[l], column);
      fitted += beta(static_cast<Index>(l)) * column;
    }
    const double rms = std::sqrt((fitted - reference).squaredNorm() / fresh.cols());
    std::printf("| %d | %.3f | %.4f | %s | %s | %.3f |\n", stage, std::log10(found.loo_mse),
                found.kernel(1), found.kernel(1) <= floor * (1 + 1e-3) ? "yes" : "no",
                found.added ? "-" : "stops", 1e3 * rms);
    if (!found.added) break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: stopping_probe TRAIN.csv FRESH.csv\n");
    return 2;
  }
  const Matrix train = read_csv(argv[1]);
  const Matrix fresh = read_csv(argv[2]);
  const Matrix x = train.topRows(1), xf = fresh.topRows(1);
  const double width = 0.17;
  const Vector parzen = parzen_at_samples(x, width);
  const Vector parzen_fresh = isotropic_kernel_columns(xf, x, width).rowwise().mean();
  probe("Noise-free target t_k = p̂_Parz(x_k); error against p̂_Parz", x, parzen, xf, parzen_fresh,
        width);
  Rng rng(5);
  Vector noisy = train.row(1).transpose();
  for (Index k = 0; k < noisy.size(); ++k) noisy(k) += 0.01 * rng.normal();
  probe("Noisy target t_k = p(x_k) + N(0, 0.01²); error against p", x, noisy, xf,
        fresh.row(1).transpose(), width);
}
