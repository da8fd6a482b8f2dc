// Registers the package's entry points with R (R_init_<package>, run when the package loads) and
// makes the library's messages advise the R functions and arguments.

#include <R_ext/Rdynload.h>

#include "entry_points.hpp"
#include "guard.hpp"
#include "methods/r_spelling.hpp"

extern "C" SEXP cdens_version() {
  return cdens::r::guarded([] { return Rf_mkString(CDENS_VERSION); });
}

namespace {

// Through void (*)(), the function type that converts to any other without a warning.
#define CDENS_ENTRY(name, arguments) \
  { #name, reinterpret_cast < DL_FUNC>(reinterpret_cast <void (*)()>(&name)), arguments }

const R_CallMethodDef entry_points[] = {CDENS_ENTRY(cdens_methods, 0),
                                        CDENS_ENTRY(cdens_fit, 9),
                                        CDENS_ENTRY(cdens_conditional_info, 1),
                                        CDENS_ENTRY(cdens_log_pdf, 3),
                                        CDENS_ENTRY(cdens_cdf, 3),
                                        CDENS_ENTRY(cdens_pdf_grid, 3),
                                        CDENS_ENTRY(cdens_mean, 2),
                                        CDENS_ENTRY(cdens_covariance, 2),
                                        CDENS_ENTRY(cdens_atom_probability, 2),
                                        CDENS_ENTRY(cdens_quantiles, 3),
                                        CDENS_ENTRY(cdens_hdr, 3),
                                        CDENS_ENTRY(cdens_sample, 4),
                                        CDENS_ENTRY(cdens_query, 3),
                                        CDENS_ENTRY(cdens_extrapolation, 2),
                                        CDENS_ENTRY(cdens_density_info, 1),
                                        CDENS_ENTRY(cdens_density_log_pdf, 2),
                                        CDENS_ENTRY(cdens_density_cdf, 2),
                                        CDENS_ENTRY(cdens_density_sample, 3),
                                        CDENS_ENTRY(cdens_density_quantiles, 2),
                                        CDENS_ENTRY(cdens_density_hdr, 2),
                                        CDENS_ENTRY(cdens_crps, 3),
                                        CDENS_ENTRY(cdens_pinball, 4),
                                        CDENS_ENTRY(cdens_evaluate, 6),
                                        CDENS_ENTRY(cdens_compare, 2),
                                        CDENS_ENTRY(cdens_save_model, 2),
                                        CDENS_ENTRY(cdens_load_model, 1),
                                        CDENS_ENTRY(cdens_version, 0),
                                        {nullptr, nullptr, 0}};

#undef CDENS_ENTRY

}  // namespace

extern "C" void R_init_cdens(DllInfo* library) {
  R_registerRoutines(library, nullptr, entry_points, nullptr, nullptr);
  R_useDynamicSymbols(library, FALSE);
  R_forceSymbols(library, TRUE);
  cdens::set_message_spelling(cdens::r_spelling());
}
