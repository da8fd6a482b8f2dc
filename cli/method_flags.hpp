#pragma once
// The method-specific flags of `cdens fit`, made from the registry's option tables: one flag per
// CLI spelling, its help text listing which methods take it with their defaults, its value
// parsed by the option's type. Seeds and threads are the command's own --seed and --threads,
// which every method takes.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cdens/methods/registry.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace cdens::cli {

class MethodFlags {
 public:
  /// Adds the flags of every one of `methods` to `command`.
  MethodFlags(CLI::App& command, const std::vector<const MethodEntry*>& methods);

  /// The option values given on the command line for `method`, with `seed` and `threads` for the
  /// options of those types. InvalidArgument naming the flag for a value that does not parse or
  /// a flag `method` does not take. Column options are left out: they need the data
  /// (column_values_for).
  OptionValues values_for(const MethodEntry& method, std::uint64_t seed, int threads) const;

  /// The column options given for `method` (values_for has checked that it takes them), each
  /// comma-separated column turned into its position among the inputs, then the outputs, by
  /// `position_of`.
  OptionValues column_values_for(
      const MethodEntry& method,
      const std::function<std::int64_t(const std::string& column)>& position_of) const;

 private:
  struct Flag {
    std::string spelling;  ///< as registered ("--sigma")
    CLI::Option* option = nullptr;
    std::string text;       ///< the value as typed (options with a value)
    bool switched = false;  ///< a boolean switch was given
  };

  /// The flag given for `option`, or nullptr.
  const Flag* given(const OptionInfo& option) const;

  std::vector<std::unique_ptr<Flag>> flags_;
};

/// "Estimator: a, b, c (default NAME)" for the --method flag of a command.
std::string method_flag_help(const std::vector<const MethodEntry*>& methods,
                             const std::string& default_method);

}  // namespace cdens::cli
