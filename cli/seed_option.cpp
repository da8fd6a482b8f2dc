#include "seed_option.hpp"

#include <CLI/CLI.hpp>
#include <charconv>

namespace cdens::cli {

void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description) {
  const CLI::Validator digits_only(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
            status == std::errc() && end == text.data() + text.size()) {
          return {};
        }
        // A seed beyond 2⁶⁴ − 1 must not saturate into a different seed.
        return "must be an integer from 0 to 18446744073709551615, got '" + text + "'";
      },
      "UINT");
  command.add_option("--seed", seed, description)->check(digits_only);
}

}  // namespace cdens::cli
