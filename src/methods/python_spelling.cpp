// How the messages of a fit from the Python package spell their advice (python_spelling.hpp):
// each method by its class, each option by its Python name, values as Python writes them.

#include "methods/python_spelling.hpp"

#include <string>

#include "cdens/methods/registry.hpp"
#include "methods/keyword_spelling.hpp"

namespace cdens {
namespace {

std::string class_of(const MethodEntry& entry) { return entry.python_class; }

}  // namespace

const Spelling& python_spelling() {
  static const KeywordSpelling spelling({"=", "'", "[", "]", "(", ")", "True", "False", false},
                                        &class_of, &python_name_of);
  return spelling;
}

}  // namespace cdens
