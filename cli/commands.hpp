#pragma once
// The subcommands of `cdens`, one file each. Each adds itself to its parent; its callback does
// the work and throws cdens::Error (or std::exception) on bad input, which main() turns into
// exit status 2.
//
// The grammar is flat: `cdens fit --method M` fits a method of any family, and the verbs that
// read a model file dispatch on its kind (model_kinds.hpp).

namespace CLI {
class App;
}  // namespace CLI

namespace cdens::cli {

/// `cdens fit DATA --method M`: fits a method of any family.
void add_fit_command(CLI::App& app);
/// `cdens score MODEL DATA`: the mean log-likelihood.
void add_score_command(CLI::App& app);
/// `cdens evaluate MODEL DATA`: scores and calibration of one model.
void add_evaluate_command(CLI::App& app);
/// `cdens compare MODEL... DATA`: several models on the same data.
void add_compare_command(CLI::App& app);
/// `cdens predict MODEL DATA`: per row the conditional mean, variance and quantiles, and with
/// --query the answers of the queries the model's method declares.
void add_predict_command(CLI::App& app);
/// `cdens grid MODEL`: the density on a regular grid.
void add_grid_command(CLI::App& app);
/// `cdens sample MODEL --n N`: draws from the model.
void add_sample_command(CLI::App& app);
/// `cdens info MODEL`: what a model file holds.
void add_info_command(CLI::App& app);
/// `cdens features MODEL`: the features a feature-selecting fit kept.
void add_features_command(CLI::App& app);
/// `cdens methods [NAME]`: the registry of methods and one method's options.
void add_methods_command(CLI::App& app);

}  // namespace cdens::cli
