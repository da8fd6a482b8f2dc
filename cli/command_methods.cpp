// cdens methods [NAME]: the registry of methods — every method with its command and summary, or
// one method's options with their flags, Python names, types, defaults and meanings, and the
// extras and queries it declares. The text comes from the registry, like the flags of the
// fitting commands.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "commands.hpp"
#include "io/text.hpp"

namespace cdens::cli {
namespace {

void list_methods(std::ostream& out) {
  for (const MethodEntry& method : methods()) {
    out << method.name << ": " << method.summary << " (" << to_string(method.family)
        << "; Python cdens." << method.python_class << ")\n";
  }
}

void describe_method(std::ostream& out, const std::string& name) {
  const MethodEntry* method = method_named(name);
  if (method == nullptr) {
    throw InvalidArgument("unknown method '" + name + "' (cdens methods lists them)");
  }
  out << method->name << ": " << method->summary << '\n'
      << "command: cdens fit --method " << method->name << '\n'
      << "family: " << to_string(method->family) << '\n'
      << "python: cdens." << method->python_class << '\n'
      << "model_shape: " << model_shape(method->family) << '\n'
      << "sample_weights: " << (method->sample_weights ? "yes (--weights COLUMN)" : "no") << '\n';
  for (const OptionInfo& option : method->options) {
    out << "option " << option.name << '\n'
        << "  flag: " << (option.cli_flag.empty() ? "-" : option.cli_flag) << '\n'
        << "  python: " << (option.python_name.empty() ? "-" : option.python_name) << '\n'
        << "  type: " << to_string(option.type);
    if (!option.choices.empty()) {
      out << " (" << join(option.choices, ", ") << (option.takes_numbers ? ", or a number" : "")
          << ")";
    }
    out << '\n' << "  default: " << describe_default(option) << '\n';
    out << "  doc: " << option.doc << '\n';
  }
  // What the fit returns beside the model (Python's fitted attributes NAME_) and what its
  // models answer beyond the family's (cdens predict --query NAME, Python's method NAME).
  for (const ArrayDeclaration& extra : method->extras) {
    out << "extra " << extra.name << " (" << join(extra.shape, " x ") << "): " << extra.doc << '\n';
  }
  for (const MethodQuery& query : method->queries) {
    out << "query " << query.result.name << " (" << join(query.result.shape, " x ")
        << "): " << query.result.doc << '\n';
  }
}

}  // namespace

void add_methods_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  CLI::App* command =
      app.add_subcommand("methods", "List the methods, or describe one method's options");
  command->add_option("name", *name, "A method: its options, flags, Python names and defaults");
  command->callback([name] {
    std::ostringstream out;
    if (name->empty()) {
      list_methods(out);
    } else {
      describe_method(out, *name);
    }
    std::cout << out.str() << std::flush;
  });
}

}  // namespace cdens::cli
