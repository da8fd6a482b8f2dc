// The queries of a fitted density p(x) (a diagonal Gaussian mixture) from R, and its description.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "core/validate.hpp"
#include "entry_points.hpp"
#include "guard.hpp"
#include "json_to_r.hpp"
#include "models.hpp"

using namespace cdens;
using namespace cdens::r;

namespace {

const DensityModel& density(SEXP model) { return model_of<DensityModel>(model); }

}  // namespace

extern "C" SEXP cdens_density_info(SEXP model) {
  return guarded([&] {
    const DensityModel& m = density(model);
    const GaussianMixture& mixture = m.mixture;
    return Rcpp::wrap(Rcpp::List::create(
        Rcpp::Named("method") = m.report.method, Rcpp::Named("names") = strings_to_r(m.names),
        Rcpp::Named("dimension") = static_cast<double>(mixture.dimension()),
        Rcpp::Named("n_components") = static_cast<double>(mixture.n_components()),
        Rcpp::Named("weights") = vector_to_r(mixture.weights()),
        Rcpp::Named("centers") =
            samples_to_r(mixture.x_scaling().inverse_transform(mixture.centers())),
        Rcpp::Named("scales") =
            samples_to_r(Matrix(mixture.x_scaling().scale().asDiagonal() * mixture.scales())),
        Rcpp::Named("mean") = vector_to_r(mixture.mean()),
        Rcpp::Named("covariance") = matrix_to_r(mixture.covariance()),
        Rcpp::Named("report") = json_to_r(m.report.to_json())));
  });
}

extern "C" SEXP cdens_density_log_pdf(SEXP model, SEXP x) {
  return guarded(
      [&] { return Rcpp::wrap(vector_to_r(density(model).mixture.log_pdf(samples_of(x, "x")))); });
}

extern "C" SEXP cdens_density_cdf(SEXP model, SEXP x) {
  return guarded(
      [&] { return Rcpp::wrap(vector_to_r(density(model).mixture.cdf(samples_of(x, "x")))); });
}

extern "C" SEXP cdens_density_sample(SEXP model, SEXP n, SEXP seed) {
  return guarded([&] {
    const GaussianMixture& mixture = density(model).mixture;
    const Index count = integer_of(n, "n");
    if (count < 1) throw InvalidArgument("n must be a positive whole number");
    require_memory_for(static_cast<double>(count) * static_cast<double>(mixture.dimension()), "n");
    const auto draw_seed = static_cast<std::uint64_t>(integer_of(seed, "seed"));
    return Rcpp::wrap(samples_to_r(mixture.sample(count, draw_seed)));
  });
}

extern "C" SEXP cdens_density_quantiles(SEXP model, SEXP probabilities) {
  return guarded([&] {
    const std::vector<double> levels = numbers_of(probabilities, "probs");
    return Rcpp::wrap(samples_to_r(density(model).mixture.quantiles(levels)));
  });
}

extern "C" SEXP cdens_density_hdr(SEXP model, SEXP coverage) {
  return guarded([&] {
    return Rcpp::wrap(
        region_to_r(density(model).mixture.highest_density_region(number_of(coverage, "level"))));
  });
}
