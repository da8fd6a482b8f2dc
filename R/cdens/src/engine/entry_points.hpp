#pragma once
// The functions R calls with .Call: each takes and returns R values and runs its work through
// guarded (guard.hpp). C as well as C++: the package's src/init.c, which R compiles, includes it
// to register them.

#include <Rinternals.h>

#ifdef __cplusplus
extern "C" {
#endif
// fit_binding.cpp
SEXP cdens_methods(void);
SEXP cdens_fit(SEXP method_name, SEXP x, SEXP y, SEXP options, SEXP weights, SEXP x_names,
               SEXP y_names, SEXP labels, SEXP verbose);
// conditional_binding.cpp
SEXP cdens_conditional_info(SEXP model);
SEXP cdens_log_pdf(SEXP model, SEXP x, SEXP y);
SEXP cdens_cdf(SEXP model, SEXP x, SEXP y);
SEXP cdens_pdf_grid(SEXP model, SEXP x, SEXP grid);
SEXP cdens_mean(SEXP model, SEXP x);
SEXP cdens_covariance(SEXP model, SEXP x);
SEXP cdens_atom_probability(SEXP model, SEXP x);
SEXP cdens_quantiles(SEXP model, SEXP x, SEXP probabilities);
SEXP cdens_hdr(SEXP model, SEXP x, SEXP coverage);
SEXP cdens_sample(SEXP model, SEXP x, SEXP n_per_input, SEXP seed);
SEXP cdens_query(SEXP model, SEXP name, SEXP x);
SEXP cdens_extrapolation(SEXP model, SEXP x);
// density_binding.cpp
SEXP cdens_density_info(SEXP model);
SEXP cdens_density_log_pdf(SEXP model, SEXP x);
SEXP cdens_density_cdf(SEXP model, SEXP x);
SEXP cdens_density_sample(SEXP model, SEXP n, SEXP seed);
SEXP cdens_density_quantiles(SEXP model, SEXP probabilities);
SEXP cdens_density_hdr(SEXP model, SEXP coverage);
// evaluation_binding.cpp
SEXP cdens_crps(SEXP model, SEXP x, SEXP y);
SEXP cdens_pinball(SEXP model, SEXP x, SEXP y, SEXP levels);
SEXP cdens_evaluate(SEXP model, SEXP x, SEXP y, SEXP options, SEXP verbose, SEXP label);
SEXP cdens_compare(SEXP evaluations, SEXP names);
// files_binding.cpp
SEXP cdens_save_model(SEXP model, SEXP path);
SEXP cdens_load_model(SEXP path);
// initialize.cpp
SEXP cdens_version(void);
SEXP cdens_vector_instruction_set(void);
/// Called by R_init_cdens when the package loads.
void cdens_r_initialize(void);
#ifdef __cplusplus
}
#endif
