#include "guard.hpp"

#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::r {
namespace {

/// The classes of a library error, most specific first, before "cdens_error".
std::vector<std::string> kinds_of_current_exception(std::string& message) {
  try {
    throw;
  } catch (const ParseError& error) {
    message = error.what();
    return {"cdens_parse_error", "cdens_data_error"};
  } catch (const DataError& error) {
    message = error.what();
    return {"cdens_data_error"};
  } catch (const InvalidArgument& error) {
    message = error.what();
    return {"cdens_invalid_argument"};
  } catch (const IoError& error) {
    message = error.what();
    return {"cdens_io_error"};
  } catch (const ModelFormatError& error) {
    message = error.what();
    return {"cdens_model_format_error"};
  } catch (const std::bad_alloc&) {
    message = "out of memory";
    return {"cdens_memory_error"};
  } catch (const std::exception& error) {
    message = error.what();
    return {};
  } catch (...) {
    message = "an unknown C++ exception";
    return {};
  }
}

}  // namespace

SEXP condition_of_current_exception() {
  std::string message;
  std::vector<std::string> classes = kinds_of_current_exception(message);
  classes.insert(classes.end(), {"cdens_error", "error", "condition"});
  SEXP condition = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(condition, 0, Rf_mkString(message.c_str()));
  SET_VECTOR_ELT(condition, 1, R_NilValue);
  SEXP names = PROTECT(Rf_allocVector(STRSXP, 2));
  SET_STRING_ELT(names, 0, Rf_mkChar("message"));
  SET_STRING_ELT(names, 1, Rf_mkChar("call"));
  Rf_setAttrib(condition, R_NamesSymbol, names);
  SEXP class_names = PROTECT(Rf_allocVector(STRSXP, static_cast<R_xlen_t>(classes.size())));
  for (std::size_t k = 0; k < classes.size(); ++k) {
    SET_STRING_ELT(class_names, static_cast<R_xlen_t>(k), Rf_mkChar(classes[k].c_str()));
  }
  Rf_setAttrib(condition, R_ClassSymbol, class_names);
  UNPROTECT(3);
  return condition;
}

void raise_condition(SEXP condition) {
  SEXP call = PROTECT(Rf_lang2(Rf_install("stop"), condition));
  Rf_eval(call, R_BaseEnv);
  UNPROTECT(1);
  // stop() does not return.
  std::terminate();
}

}  // namespace cdens::r
