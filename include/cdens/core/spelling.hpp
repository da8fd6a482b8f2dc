#pragma once
// How the messages of the library spell the advice they give — another method, an option with a
// value — in the words of the front end whose user reads them: the command's flags
// ("--method linear", "--trend linear"), or Python's classes and keywords ("LinearGaussianCDE()",
// "trend='linear'"). The columns a message names are the user's names in either front end
// (FitContext::column_names, the model's variable names).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdens {

/// The command's spelling; the Python package's (src/methods/python_spelling.hpp) overrides it.
class Spelling {
 public:
  virtual ~Spelling() = default;
  /// How to fit method `name` with options given as (name, value) pairs, a value as the command
  /// line writes it ("kcde", {{"ordered", "year"}}): "--method kcde --ordered year".
  virtual std::string method(std::string_view name,
                             const std::vector<std::pair<std::string, std::string>>& options) const;
  std::string method(std::string_view name) const { return method(name, {}); }
  /// What a method is called where a message names it: "nwcde" (the command's --method NAME).
  virtual std::string method_name(std::string_view name) const;
  /// Option `name` given `value` (as the command line writes it): "--trend linear".
  virtual std::string option(std::string_view name, std::string_view value) const;
  /// Option `name` itself: "--sigma" (its name in kebab case).
  virtual std::string option_name(std::string_view name) const;
};

/// The command's Spelling.
const Spelling& command_spelling();

/// The Spelling of this process's messages. A process has one front end: the command's spelling
/// unless the front end that loaded the library set its own (the Python module does when it is
/// imported, before any fit).
const Spelling& message_spelling();

/// Makes `spelling` (which must outlive every fit) the spelling of this process's messages.
void set_message_spelling(const Spelling& spelling);

}  // namespace cdens
