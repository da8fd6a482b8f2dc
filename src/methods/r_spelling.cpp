// How the messages of a fit from the R package spell their advice (r_spelling.hpp): each method
// by its R function, each option by its R argument, values as R writes them.

#include "methods/r_spelling.hpp"

#include <string>
#include <string_view>

#include "cdens/methods/registry.hpp"
#include "methods/keyword_spelling.hpp"

namespace cdens {
namespace {

class RSpelling final : public KeywordSpelling {
 public:
  RSpelling() : KeywordSpelling({" = ", "\"", "c(", ")", "c(", ")", "TRUE", "FALSE", true}) {}
  std::string method_name(std::string_view name) const override {
    const MethodEntry* entry = method_named(std::string(name));
    return entry ? r_function_of(*entry) : std::string(name);
  }
  std::string option_name(std::string_view name) const override {
    return r_name_of(std::string(name));
  }
};

}  // namespace

const Spelling& r_spelling() {
  static const RSpelling spelling;
  return spelling;
}

}  // namespace cdens
