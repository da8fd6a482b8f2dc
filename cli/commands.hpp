#pragma once
// The subcommands of `cdens`, one file each. Each adds itself to its parent; its callback does
// the work and throws cdens::Error (or std::exception) on bad input, which main() turns into
// exit status 2.
//
// The grammar is flat: `cdens fit --method M` fits a method of any family, and the verbs that
// read a model file dispatch on its kind (model_kinds.hpp). The groups of earlier releases,
// `cdens density VERB` and `cdens regress VERB`, register the same verbs once more under
// themselves (deprecation.hpp); each verb then serves the group's family and warns.

#include <optional>

#include "deprecation.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace cdens::cli {

/// `cdens fit DATA --method M`: fits a method of any family (under a deprecated group: of the
/// group's family, by default its first method, as `cdens density fit` did).
void add_fit_command(CLI::App& parent, const std::optional<DeprecatedGroup>& group = {});
/// `cdens score MODEL DATA`: the mean log-likelihood.
void add_score_command(CLI::App& parent, const std::optional<DeprecatedGroup>& group = {});
/// `cdens evaluate MODEL DATA`: scores and calibration of one model.
void add_evaluate_command(CLI::App& app);
/// `cdens compare MODEL... DATA`: several models on the same data.
void add_compare_command(CLI::App& app);
/// `cdens predict MODEL DATA`: per row the conditional mean, variance and quantiles (under the
/// deprecated `regress` group: the PRESS table of --state-weights).
void add_predict_command(CLI::App& parent, const std::optional<DeprecatedGroup>& group = {});
/// `cdens grid MODEL`: the density on a regular grid.
void add_grid_command(CLI::App& parent, const std::optional<DeprecatedGroup>& group = {});
/// `cdens sample MODEL --n N`: draws from the model.
void add_sample_command(CLI::App& parent, const std::optional<DeprecatedGroup>& group = {});
/// `cdens info MODEL`: what a model file holds.
void add_info_command(CLI::App& parent, const std::optional<DeprecatedGroup>& group = {});
/// `cdens features MODEL`: the features a feature-selecting fit kept.
void add_features_command(CLI::App& app);
/// `cdens methods [NAME]`: the registry of methods and one method's options.
void add_methods_command(CLI::App& app);
/// `cdens density fit|score|grid|sample|info`, deprecated: `cdens fit|score|grid|sample|info`.
void add_density_command(CLI::App& app);
/// `cdens regress fit|predict`, deprecated: `cdens fit --method press`, `cdens predict
/// --state-weights`.
void add_regress_command(CLI::App& app);

}  // namespace cdens::cli
