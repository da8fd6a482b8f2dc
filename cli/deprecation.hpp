#pragma once
// Earlier spellings of the command line that still work for one release, with a warning.

#include <string>

#include "cdens/methods/registry.hpp"

namespace cdens::cli {

/// One line on standard error: `cdens: warning: OLD is deprecated and will be removed; use NEW`.
void warn_deprecated(const std::string& old_spelling, const std::string& preferred);

/// A group of subcommands of earlier releases, `cdens density VERB` and `cdens regress VERB`,
/// which served the models of one family; its verbs are now `cdens VERB` for every family.
struct DeprecatedGroup {
  std::string name;  ///< "density", "regress"
  MethodFamily family = MethodFamily::density;
};

/// The warning of `cdens GROUP VERB`: use `replacement` ("cdens fit --method gmm").
void warn_deprecated_group(const DeprecatedGroup& group, const std::string& verb,
                           const std::string& replacement);

}  // namespace cdens::cli
