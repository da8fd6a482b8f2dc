// How the messages of a fit from the Python package spell their advice (python_spelling.hpp):
// each method by its class, each option by its Python name, values as Python writes them.

#include "methods/python_spelling.hpp"

#include <string>
#include <string_view>

#include "cdens/methods/registry.hpp"
#include "methods/keyword_spelling.hpp"

namespace cdens {
namespace {

class PythonSpelling final : public KeywordSpelling {
 public:
  PythonSpelling() : KeywordSpelling({"=", "'", "[", "]", "(", ")", "True", "False", false}) {}
  std::string method_name(std::string_view name) const override {
    const MethodEntry* entry = method_named(std::string(name));
    return entry ? entry->python_class : std::string(name);
  }
  std::string option_name(std::string_view name) const override {
    return python_name_of(std::string(name));
  }
};

}  // namespace

const Spelling& python_spelling() {
  static const PythonSpelling spelling;
  return spelling;
}

}  // namespace cdens
