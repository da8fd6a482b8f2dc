#pragma once
// The boundary between R and the library: every entry point runs its body through `guarded`, so
// that no C++ exception and no R long jump crosses the other's frames. A library error becomes
// an R condition of a class that says what went wrong (cdens_invalid_argument, cdens_data_error,
// …, each a cdens_error and an error), raised once every C++ object of the body is gone; R's
// interrupt and a long jump out of R code the body called (a handler of message()) resume as
// Rcpp does after its own unwinding.

#include <Rcpp.h>

#include <utility>

namespace cdens::r {

/// The R condition of the exception being handled (call it inside a catch block): its message
/// and the classes of its kind, c(kind…, "cdens_error", "error", "condition").
SEXP condition_of_current_exception();

/// Raises `condition` with R's stop(); does not return.
[[noreturn]] void raise_condition(SEXP condition);

/// body()'s result, or the R condition of what it threw (see the file's comment).
template <class Body>
SEXP guarded(Body&& body) {
  SEXP condition = R_NilValue;
  SEXP jump = R_NilValue;
  bool interrupted = false;
  try {
    return std::forward<Body>(body)();
  } catch (Rcpp::internal::InterruptedException&) {
    interrupted = true;
  } catch (Rcpp::LongjumpException& long_jump) {
    jump = long_jump.token;
  } catch (...) {
    condition = PROTECT(condition_of_current_exception());
  }
  // Every object of the body is destroyed here: R may jump.
  if (interrupted) Rf_onintr();
  if (jump != R_NilValue) Rcpp::internal::resumeJump(jump);
  raise_condition(condition);
}

}  // namespace cdens::r
