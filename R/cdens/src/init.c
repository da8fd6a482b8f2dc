/* The registration of the package's entry points with R, run when the package loads. R compiles
   this file; the entry points are the Rcpp glue of src/engine, which the project's CMake build
   compiles with the library's flags into the archive src/Makevars links; entry_points.hpp
   declares them. */

#include <R_ext/Rdynload.h>
#include <Rinternals.h>

#include "engine/entry_points.hpp"

#define ENTRY(name, arguments) {#name, (DL_FUNC)&name, arguments}

static const R_CallMethodDef entry_points[] = {
    ENTRY(cdens_methods, 0),
    ENTRY(cdens_fit, 9),
    ENTRY(cdens_conditional_info, 1),
    ENTRY(cdens_log_pdf, 3),
    ENTRY(cdens_cdf, 3),
    ENTRY(cdens_pdf_grid, 3),
    ENTRY(cdens_mean, 2),
    ENTRY(cdens_covariance, 2),
    ENTRY(cdens_atom_probability, 2),
    ENTRY(cdens_quantiles, 3),
    ENTRY(cdens_hdr, 3),
    ENTRY(cdens_sample, 4),
    ENTRY(cdens_query, 3),
    ENTRY(cdens_extrapolation, 2),
    ENTRY(cdens_density_info, 1),
    ENTRY(cdens_density_log_pdf, 2),
    ENTRY(cdens_density_cdf, 2),
    ENTRY(cdens_density_sample, 3),
    ENTRY(cdens_density_quantiles, 2),
    ENTRY(cdens_density_hdr, 2),
    ENTRY(cdens_crps, 3),
    ENTRY(cdens_pinball, 4),
    ENTRY(cdens_evaluate, 6),
    ENTRY(cdens_compare, 2),
    ENTRY(cdens_save_model, 2),
    ENTRY(cdens_load_model, 1),
    ENTRY(cdens_version, 0),
    ENTRY(cdens_vector_instruction_set, 0),
    {NULL, NULL, 0}};

void R_init_cdens(DllInfo *library) {
  R_registerRoutines(library, NULL, entry_points, NULL, NULL);
  R_useDynamicSymbols(library, FALSE);
  R_forceSymbols(library, TRUE);
  cdens_r_initialize();
}
