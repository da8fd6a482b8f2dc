#pragma once
// Rows that many option tables share, spelled once with one meaning: the candidate grids,
// centres, folds, seed and threads. Their defaults are each method's own.

#include <limits>
#include <string>
#include <vector>

#include "cdens/core/output_transform.hpp"
#include "cdens/core/support.hpp"
#include "cdens/methods/registry.hpp"

namespace cdens::registry_internal {

/// A row with no more than its name, type and documentation, offered by the command and Python
/// under the spellings derived from its name.
OptionInfo option(std::string name, OptionType type, std::string doc);

/// `info` as a setting only C++ callers change: no flag, no Python parameter.
OptionInfo library_only(OptionInfo info);

/// `info` with none_is_default set (its default is the method's choice, or an "off": Python
/// spells it None).
OptionInfo none_by_default(OptionInfo info);

/// `info` whose numbers must lie in [minimum, maximum] ((minimum, maximum] when `exclusive`).
OptionInfo in_range(OptionInfo info, double minimum,
                    double maximum = std::numeric_limits<double>::infinity(),
                    bool exclusive = false);
/// `info` whose numbers must be greater than 0 (rates, tolerances, scales).
OptionInfo positive(OptionInfo info);

/// `info` whose numbers are kernel widths: at least 10⁻⁸ and at most 10⁸, where their squares and
/// reciprocal squares stay far from under- and overflow.
OptionInfo kernel_widths(OptionInfo info);

/// Candidate widths σ ("sigma").
OptionInfo sigma_grid();
/// Candidate regularisation parameters λ ("regularization": Python has no `lambda`).
OptionInfo lambda_grid();
/// Candidate radii ε of ε-KDE ("epsilon").
OptionInfo epsilon_grid();
/// Candidate kernel widths of a density estimator ("bandwidth").
OptionInfo width_grid();
/// Number of kernel or basis centres ("n_centers").
OptionInfo n_centers_option();
/// K of K-fold cross-validation ("folds"; Python cv).
OptionInfo folds_option();
/// The seed ("seed"; Python random_state).
OptionInfo seed_option();
/// OpenMP threads ("threads"; Python n_jobs), described with its default: the row the registry
/// appends to the options of every method that runs on threads (MethodEntry::threads); its value
/// lives in FitContext::threads, not in the method's options.
OptionInfo threads_option();
/// What fit_method does with training rows equal in every column ("duplicates": merge or keep),
/// described with its default: the row the registry appends to the options of every method; its
/// value lives in FitContext::duplicates, not in the method's options.
OptionInfo duplicates_option();
/// The bounds of a one-dimensional continuous y ("y_lower", "y_upper"; none by default): the
/// rows the registry appends to the options of every conditional method, before threads; their
/// values live in an OutputBounds (support.hpp) that fit_method applies to the fitted model, not
/// in the method's options.
const OptionTable<OutputBounds>& output_bounds_table();

/// Whether to standardise the data first ("standardize"; --no-standardize turns it off).
OptionInfo standardize_option();

/// The output transform of a one-dimensional y ("y_transform": scikit-learn reserves `transform`
/// for a method).
OptionInfo output_transform_option();
/// Its values, in the order the table lists them.
const std::vector<OutputTransformChoice>& output_transform_choices();
/// Why a fit with these option values takes no sample weights because it transforms y (a
/// y_transform other than none; output_transform_fit.cpp refuses them), or empty.
std::string output_transform_refuses_weights(const OptionValues& values);

/// The atom of a one-dimensional continuous y ("atom"): a choice of auto (find it by the rule of
/// find_output_atom, src/model/tied_outputs.hpp) or none that takes a number too (the atom's
/// value); `doc` says what the method does with it after the rule's statement.
OptionInfo output_atom_option(const std::string& doc);

/// A list of declared discrete columns, `discrete` or `ordered`, none by default; `doc` says what
/// the method does with them.
OptionInfo declared_columns_option(const std::string& name, std::string doc);

}  // namespace cdens::registry_internal
