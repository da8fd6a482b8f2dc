#pragma once
// The spelling of advice (cdens/core/spelling.hpp) for a front end whose users call functions with
// keyword arguments: Python's `KernelCDE(ordered=['year'])` and R's `cde_kcde(ordered = "year")`.
// The two differ only in how a call names a method and an option and how a value is written
// (KeywordSyntax) and in what they call a method and an option; the option's type, from the
// registry, says whether a value is a list, a pair, a number, a word or a truth value.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cdens/core/spelling.hpp"

namespace cdens {

struct MethodEntry;

/// How a language writes a keyword argument's value and the keyword itself.
struct KeywordSyntax {
  std::string assign;      ///< between a keyword and its value: "=" (Python), " = " (R)
  std::string quote;       ///< around a word: "'" (Python), "\"" (R)
  std::string list_open;   ///< a list of names, numbers or columns: "[" (Python), "c(" (R)
  std::string list_close;  ///< "]", ")"
  std::string pair_open;   ///< a pair of numbers: "(" (Python), "c(" (R)
  std::string pair_close;  ///< ")", ")"
  std::string true_word;   ///< "True", "TRUE"
  std::string false_word;  ///< "False", "FALSE"
  /// Whether a list of one item is written as the item alone (R, whose scalars are vectors).
  bool scalar_is_list = false;
};

/// A method as a call of its function or class with options as keywords, an option as its
/// keyword with its value in the language's syntax; the front end names a registered method by
/// `function_of` its entry (Python's class, R's function) and an option by `keyword_of` its name
/// (python_name_of, r_name_of).
class KeywordSpelling final : public Spelling {
 public:
  KeywordSpelling(KeywordSyntax syntax, std::string (*function_of)(const MethodEntry&),
                  std::string (*keyword_of)(const std::string&))
      : syntax_(std::move(syntax)), function_of_(function_of), keyword_of_(keyword_of) {}
  std::string method(
      std::string_view name,
      const std::vector<std::pair<std::string, std::string>>& options) const override;
  std::string method_name(std::string_view name) const override;
  std::string option(std::string_view name, std::string_view value) const override;
  std::string option_name(std::string_view name) const override;

 private:
  /// `value`, as the command line writes it ("linear", "year,month", "0.1,1"), as the language
  /// writes a value of option `name`'s type.
  std::string value_text(std::string_view name, std::string_view value) const;

  KeywordSyntax syntax_;
  std::string (*function_of_)(const MethodEntry&);
  std::string (*keyword_of_)(const std::string&);
};

}  // namespace cdens
