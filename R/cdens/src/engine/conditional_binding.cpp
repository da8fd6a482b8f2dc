// The queries of a fitted conditional model p(y|x) from R: every query of ConditionalMixture and
// the method's declared queries, on inputs x (n × d_x) and outputs y (n × d_y) as R matrices in
// the user's units (labels coded by the R functions), and the model's description.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "cdens/core/support.hpp"
#include "cdens/methods/registry.hpp"
#include "core/validate.hpp"
#include "entry_points.hpp"
#include "guard.hpp"
#include "json_to_r.hpp"
#include "models.hpp"

namespace cdens::r {
namespace {

const ConditionalModel& conditional(SEXP model) { return model_of<ConditionalModel>(model); }

Rcpp::List labels_to_r(const std::map<std::string, ColumnLabels>& labels) {
  Rcpp::List result;
  std::vector<std::string> names;
  for (const auto& [name, levels] : labels) {
    result.push_back(strings_to_r(levels));
    names.push_back(name);
  }
  result.attr("names") = strings_to_r(names);
  return result;
}

/// One answer per (x_j, y_j) pair.
template <class Query>
SEXP pair_query(SEXP model, SEXP x, SEXP y, Query query) {
  return guarded([&] {
    const ConditionalMixture& mixture = conditional(model).mixture;
    return Rcpp::wrap(vector_to_r(query(mixture, samples_of(x, "x"), samples_of(y, "y"))));
  });
}

/// One row of answers per input x_j.
template <class Query>
SEXP input_query(SEXP model, SEXP x, Query query) {
  return guarded([&] {
    return Rcpp::wrap(samples_to_r(query(conditional(model).mixture, samples_of(x, "x"))));
  });
}

}  // namespace
}  // namespace cdens::r

using namespace cdens;
using namespace cdens::r;

extern "C" SEXP cdens_conditional_info(SEXP model) {
  return guarded([&] {
    const ConditionalModel& m = conditional(model);
    const ConditionalMixture& mixture = m.mixture;
    std::vector<std::string> output_kinds;
    for (const ColumnKernel& kernel : mixture.output_kernels()) {
      output_kinds.push_back(to_string(kernel.kind()));
    }
    Rcpp::RObject input_range = R_NilValue;
    if (mixture.input_range()) {
      input_range =
          Rcpp::List::create(Rcpp::Named("lower") = vector_to_r(mixture.input_range()->lower),
                             Rcpp::Named("upper") = vector_to_r(mixture.input_range()->upper));
    }
    const OutputBounds& bounds = mixture.output_bounds();
    return Rcpp::wrap(Rcpp::List::create(
        Rcpp::Named("method") = m.report.method, Rcpp::Named("x_names") = strings_to_r(m.x_names),
        Rcpp::Named("y_names") = strings_to_r(m.y_names),
        Rcpp::Named("labels") = labels_to_r(m.labels),
        Rcpp::Named("input_dim") = static_cast<double>(mixture.input_dim()),
        Rcpp::Named("output_dim") = static_cast<double>(mixture.output_dim()),
        Rcpp::Named("n_components") = static_cast<double>(mixture.n_components()),
        Rcpp::Named("output_kinds") = strings_to_r(output_kinds),
        Rcpp::Named("atom") = mixture.atom() ? Rcpp::wrap(mixture.atom()->value) : R_NilValue,
        Rcpp::Named("input_range") = input_range,
        Rcpp::Named("output_bounds") = Rcpp::NumericVector::create(bounds.y_lower, bounds.y_upper),
        Rcpp::Named("report") = json_to_r(m.report.to_json())));
  });
}

extern "C" SEXP cdens_log_pdf(SEXP model, SEXP x, SEXP y) {
  return pair_query(model, x, y,
                    [](const ConditionalMixture& mixture, const Matrix& xs, const Matrix& ys) {
                      return mixture.log_pdf(xs, ys);
                    });
}

extern "C" SEXP cdens_cdf(SEXP model, SEXP x, SEXP y) {
  return pair_query(model, x, y,
                    [](const ConditionalMixture& mixture, const Matrix& xs, const Matrix& ys) {
                      return mixture.cdf(xs, ys);
                    });
}

extern "C" SEXP cdens_pdf_grid(SEXP model, SEXP x, SEXP grid) {
  return guarded([&] {
    const Matrix grid_points = samples_of(grid, "grid");
    return Rcpp::wrap(
        samples_to_r(conditional(model).mixture.pdf_grid(samples_of(x, "x"), grid_points)));
  });
}

extern "C" SEXP cdens_mean(SEXP model, SEXP x) {
  return input_query(model, x, [](const ConditionalMixture& mixture, const Matrix& xs) {
    return mixture.mean(xs);
  });
}

extern "C" SEXP cdens_covariance(SEXP model, SEXP x) {
  return input_query(model, x, [](const ConditionalMixture& mixture, const Matrix& xs) {
    return mixture.covariance(xs);
  });
}

extern "C" SEXP cdens_atom_probability(SEXP model, SEXP x) {
  return guarded([&] {
    return Rcpp::wrap(vector_to_r(conditional(model).mixture.atom_probability(samples_of(x, "x"))));
  });
}

extern "C" SEXP cdens_quantiles(SEXP model, SEXP x, SEXP probabilities) {
  return guarded([&] {
    const std::vector<double> levels = numbers_of(probabilities, "probs");
    return Rcpp::wrap(
        samples_to_r(conditional(model).mixture.quantiles(samples_of(x, "x"), levels)));
  });
}

extern "C" SEXP cdens_hdr(SEXP model, SEXP x, SEXP coverage) {
  return guarded([&] {
    const std::vector<HighestDensityRegion> regions =
        conditional(model).mixture.highest_density_regions(samples_of(x, "x"),
                                                           number_of(coverage, "level"));
    Rcpp::List result;
    for (const HighestDensityRegion& region : regions) result.push_back(region_to_r(region));
    return Rcpp::wrap(result);
  });
}

extern "C" SEXP cdens_sample(SEXP model, SEXP x, SEXP n_per_input, SEXP seed) {
  return guarded([&] {
    const ConditionalMixture& mixture = conditional(model).mixture;
    const Matrix xs = samples_of(x, "x");
    const Index n = integer_of(n_per_input, "nsim");
    if (n < 1) throw InvalidArgument("nsim must be a positive whole number");
    require_memory_for(static_cast<double>(n) * static_cast<double>(xs.cols()) *
                           static_cast<double>(mixture.output_dim()),
                       "nsim");
    const auto draw_seed = static_cast<std::uint64_t>(integer_of(seed, "seed"));
    return Rcpp::wrap(samples_to_r(mixture.sample(xs, n, draw_seed)));
  });
}

extern "C" SEXP cdens_query(SEXP model, SEXP name, SEXP x) {
  return guarded([&] {
    const ConditionalModel& m = conditional(model);
    const std::string query = string_of(name, "query");
    const Matrix answer = answer_query(m, query, samples_of(x, "x"));
    const std::size_t dimensions =
        find_query(*method_named(m.report.method), query).result.shape.size();
    if (dimensions == 1) return Rcpp::wrap(vector_to_r(answer.col(0)));
    return Rcpp::wrap(matrix_to_r(answer));
  });
}

extern "C" SEXP cdens_extrapolation(SEXP model, SEXP x) {
  return guarded([&] {
    const ConditionalModel& m = conditional(model);
    const Matrix xs = samples_of(x, "x");
    const ExtrapolatedRows rows = m.mixture.extrapolated_rows(xs);
    Rcpp::IntegerVector row_numbers;  // 1-based, as R numbers rows
    for (const Index row : rows.rows) row_numbers.push_back(static_cast<int>(row + 1));
    return Rcpp::wrap(Rcpp::List::create(
        Rcpp::Named("rows") = row_numbers,
        Rcpp::Named("message") = extrapolation_warning(rows, xs.cols(), m.x_names)));
  });
}
