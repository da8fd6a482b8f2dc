#pragma once
// The registry's entries, one function per method (or family of methods sharing a fit), each
// defined in the file of its method beside its option table; registry.cpp lists them.

#include <string>
#include <utility>
#include <vector>

#include "cdens/methods/registry.hpp"

namespace cdens::registry_internal {

MethodEntry lscde_method();
MethodEntry ekde_method();
MethodEntry nwcde_method();
MethodEntry rkde_method();
MethodEntry kcde_method();
MethodEntry linear_method();
MethodEntry auto_method();
MethodEntry sacde_method();
MethodEntry salscde_method();
/// fw-lscde, fw-ekde, fw-nwcde.
std::vector<MethodEntry> forward_selection_methods();
/// lsce, lsce-ekde, lsmi-lscde, lsmi-ekde.
std::vector<MethodEntry> reduced_cde_methods();
MethodEntry press_method();
MethodEntry parzen_method();
MethodEntry gmm_method();
MethodEntry rsde_method();
MethodEntry skd_method();
MethodEntry gskd_method();

/// The extras of a method that declares none.
struct NoExtras {
  template <class Result>
  FitExtras operator()(const Result&) const {
    return {};
  }
};

/// The entry of a conditional or regression method whose fit is
/// `fit(x, y, table.build(values), context)`, returning a model and its report;
/// `extras(result)` its declared extras (MethodEntry::extras).
template <class Options, class Fit, class Extras = NoExtras>
MethodEntry conditional_method(std::string name, std::string summary, std::string python_class,
                               const OptionTable<Options>& table, Fit fit,
                               std::vector<GateKind> gates, Extras extras = {}) {
  MethodEntry entry;
  entry.name = std::move(name);
  entry.summary = std::move(summary);
  entry.python_class = std::move(python_class);
  entry.options = table.describe();
  entry.fit_conditional = [&table, fit, extras](const MatrixView& x, const MatrixView& y,
                                                const MatrixView&, const OptionValues& values,
                                                const FitContext& context) {
    auto result = fit(x, y, table.build(values), context);
    FitExtras declared = extras(result);
    return MethodFit<ConditionalModel>{unnamed_model(std::move(result)), std::move(declared)};
  };
  entry.gates = std::move(gates);
  return entry;
}

/// The entry of a density method whose fit is `fit(x, table.build(values))`.
template <class Options, class Fit>
MethodEntry density_method(std::string name, std::string summary, std::string python_class,
                           const OptionTable<Options>& table, Fit fit) {
  MethodEntry entry;
  entry.name = std::move(name);
  entry.family = MethodFamily::density;
  entry.summary = std::move(summary);
  entry.python_class = std::move(python_class);
  entry.options = table.describe();
  entry.fit_density = [&table, fit](const MatrixView& x, const OptionValues& values,
                                    const FitContext& context) {
    return MethodFit<DensityModel>{unnamed_density_model(fit(x, table.build(values), context)), {}};
  };
  return entry;
}

/// The gate kind `kind` read by Gate::from_json(parameters).
template <class Gate>
GateKind gate_kind(std::string kind) {
  return {std::move(kind),
          [](const nlohmann::json& parameters, const GateReader&)
              -> std::shared_ptr<const ConditionalGate> { return Gate::from_json(parameters); }};
}

/// The gate kind `kind` of a gate that wraps another: Gate::from_json(parameters, read_gate).
template <class Gate>
GateKind wrapping_gate_kind(std::string kind) {
  return {std::move(kind),
          [](const nlohmann::json& parameters,
             const GateReader& read_gate) -> std::shared_ptr<const ConditionalGate> {
            return Gate::from_json(parameters, read_gate);
          }};
}

}  // namespace cdens::registry_internal
