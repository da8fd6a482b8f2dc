#pragma once
// Values typed as text (the command line's lists and numbers, the option settings of a
// candidate of `--method auto`: "kcde:trend=linear") and text written for people to read, the
// same way by the library's messages and every command.

#include <string>
#include <vector>

namespace cdens {

/// Splits `text` at `delimiter` and trims spaces around the items. InvalidArgument naming `what`
/// if the text or one of its items is empty ("1,,2" is a typo, not a request for a default).
std::vector<std::string> split_list(const std::string& text, char delimiter,
                                    const std::string& what);

/// A finite decimal number; InvalidArgument naming `what` otherwise.
double parse_number(const std::string& text, const std::string& what);

/// The shortest text that parse_number reads back as `value` exactly (std::to_chars).
std::string exact_text(double value);

/// A comma-separated list of finite numbers.
std::vector<double> parse_number_list(const std::string& text, const std::string& what);

/// `names` separated by `separator`.
std::string join(const std::vector<std::string>& names, const std::string& separator);

/// A number for people to read: integers in full, anything else to 6 significant digits.
std::string format_short(double value);

}  // namespace cdens
