#pragma once
// The registry of methods: every estimator the `cdens` command, the Python package and the
// model-file reader know, with its model shape, its option table and its fit. The front ends
// iterate it instead of keeping lists of their own, so a new estimator is one entry here (a
// `*_method()` function in src/methods/ and its line in registry.cpp) and one option table.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"

namespace cdens {

// One table per method that declares each of its options once: its name (from which the
// command line's flag and the Python parameter are derived), the field of the method's Options
// struct it sets, its type, its documentation and its default, read from `Options{}`. The `cdens`
// command registers its flags and prints their defaults from these tables; the Python estimator
// classes build their options through them. A new option of a method is one row in its table and
// its use in the fit. Every fit validates its options through its table (OptionTable::validate), as
// the front ends do value by value (check_value): one rule and one message for every caller.

/// What an option holds and how the front ends read it.
enum class OptionType {
  boolean,    ///< true or false; on the command line a switch that sets the non-default value
  integer,    ///< a whole number
  real,       ///< a finite number
  real_list,  ///< one or more finite numbers (a candidate grid)
  real_pair,  ///< exactly two finite numbers (a box, a pair of bounds)
  choice,     ///< one of OptionInfo::choices
  name_list,  ///< one or more names, comma-separated (a list of strings in Python)
  seed,       ///< a non-negative 64-bit seed; Python's random_state (None draws one)
  threads,    ///< OpenMP threads, 0 for the default; Python's n_jobs (None or -1: 0)
  /// Columns of the data by 0-based position among the inputs, then the outputs (Python's
  /// indices); on the command line the names (or numbers) of the CSV columns, as --x takes them.
  columns,
};

/// "boolean", "integer", …: the type's name in messages and in the Python description.
std::string to_string(OptionType type);

/// A value of an option: bool (boolean), std::int64_t (integer, threads), std::uint64_t (seed),
/// double (real), std::vector<double> (real_list, real_pair), std::string (choice, and name_list
/// with its names joined by commas), std::vector<std::int64_t> (columns).
using OptionValue = std::variant<bool, std::int64_t, std::uint64_t, double, std::vector<double>,
                                 std::string, std::vector<std::int64_t>>;

/// Option values by OptionInfo::name; an option not present keeps its default.
using OptionValues = std::map<std::string, OptionValue>;

/// The description of one option, the same for every front end.
struct OptionInfo {
  /// The option's one name ("n_centers", "sigma"): the key of OptionValues, the report's name
  /// of a value it leads to, and the spelling every front end derives its own from
  /// (cli_flag_of, python_name_of).
  std::string name;
  OptionType type = OptionType::real;
  /// What the option means, in the paper's symbols where it has them.
  std::string doc;
  /// Whether the command and Python offer it; false for a setting only C++ callers change.
  bool offered = true;
  /// The flag of the `cdens` command, the parameter of the Python estimator class and the
  /// argument of the R package's functions, derived from the name by OptionTable::describe
  /// (cli_flag_of, python_name_of, r_name_of); empty when not offered.
  std::string cli_flag;
  std::string python_name;
  std::string r_name;
  /// The values a choice takes.
  std::vector<std::string> choices;
  /// A choice that takes a finite number too, as its text (KCDE's atom: auto, none or the atom's
  /// value): the command reads the number as typed, Python takes an int or a float.
  bool takes_numbers = false;
  /// Python spells the default None: it is a grid of the method's (a paper's), or a 0 that the
  /// documentation explains ("chosen from the data", "off").
  bool none_is_default = false;
  /// The range of every number of a real, real_list or real_pair option, and why it is bounded
  /// (a width whose square or reciprocal square under- or overflows breaks the kernels).
  /// Integer options have one too (a count of folds, of centres, of iterations).
  double minimum = -std::numeric_limits<double>::infinity();
  double maximum = std::numeric_limits<double>::infinity();
  /// The minimum itself is outside the range (a rate or a tolerance must be positive).
  bool exclusive_minimum = false;
  std::string range_reason;
  /// A real_pair whose first number must be smaller than its second (a box [lower, upper]);
  /// otherwise its two numbers are independent (GSKD's multiples of two different variances).
  bool ordered = false;
  /// A real_list of one value per input, then per output (KCDE's fixed bandwidths): its values
  /// follow the columns when a fit drops some (constant inputs).
  bool per_column = false;
  /// The default, `Options{}`'s value (filled in by OptionTable::describe).
  OptionValue default_value;
};

/// The parameter names of scikit-learn's conventions that Python uses in place of an option's
/// name: {"folds": "cv", "seed": "random_state", "threads": "n_jobs"}. The only exceptions to
/// "the Python parameter is the option's name".
const std::map<std::string, std::string>& python_conventions();

/// The Python parameter of the option called `name`: the name, or its python_conventions().
std::string python_name_of(const std::string& name);

/// The argument names of R's conventions that the R package uses in place of an option's name:
/// {"threads": "n_jobs"}, the one exception to "the R argument is the option's name" (R spells
/// a seed `seed`, as set.seed does, and folds `folds`).
const std::map<std::string, std::string>& r_conventions();

/// The R argument of the option called `name`: the name, or its r_conventions().
std::string r_name_of(const std::string& name);

/// The command's flag of `option` (its default filled in): --NAME in kebab case ("n_centers":
/// --n-centers), and for a boolean whose default is true the switch that turns it off
/// (--no-standardize).
std::string cli_flag_of(const OptionInfo& option);

/// Whether the option's default is a 0 that stands for "the method's choice" or "off" (Python
/// spells it None): a value given explicitly must then be positive.
bool stands_for_default(const OptionInfo& option);

/// The OptionType a value of `value`'s alternative can be given for (an integer is also a real).
bool fits_type(const OptionValue& value, OptionType type);

/// The value of `text` as typed on the command line for `option` (a number, a comma-separated
/// list, a choice, …), checked by check_value; errors name `spelling`. InvalidArgument for a
/// boolean, seed or threads option, which take no text here.
OptionValue parse_option_text(const OptionInfo& option, const std::string& text,
                              const std::string& spelling);

/// The default for people to read: numbers to 6 significant digits, a long grid as
/// "first … last (count values)", a boolean as true/false.
std::string describe_default(const OptionInfo& option);

/// A value of an option for people to read, as describe_default writes a default.
std::string describe_value(const OptionValue& value);

/// InvalidArgument naming the option as `spelling` (its name, CLI flag or Python name) unless
/// `value` has the option's form: its type, finite numbers, an integer within the range of an
/// int, a choice among its choices, a positive number where 0 stands for the default
/// (stands_for_default; `option.default_value` must be filled in). What a field of the
/// option's type can hold safely; the range is check_value's.
void check_form(const OptionInfo& option, const OptionValue& value, const std::string& spelling);

/// check_form, then the rule of the option's values: numbers within the declared range, an
/// ordered pair's first number smaller than its second, a thread count this machine allows.
void check_value(const OptionInfo& option, const OptionValue& value, const std::string& spelling);

/// The OptionValue of a field: bool, double, std::vector<double>, std::string and std::uint64_t
/// as they are, a list of integers as std::vector<std::int64_t>, any other integer type as
/// std::int64_t.
template <class Field>
OptionValue to_option_value(const Field& field) {
  if constexpr (std::is_same_v<Field, std::vector<Index>>) {
    return std::vector<std::int64_t>(field.begin(), field.end());
  } else if constexpr (std::is_same_v<Field, bool> || std::is_same_v<Field, double> ||
                       std::is_same_v<Field, std::vector<double>> ||
                       std::is_same_v<Field, std::string> || std::is_same_v<Field, std::uint64_t>) {
    return field;
  } else {
    static_assert(std::is_integral_v<Field>, "an option field of a type OptionValue lacks");
    return static_cast<std::int64_t>(field);
  }
}

/// The field value of an OptionValue that check_value accepted for the field's option.
template <class Field>
Field from_option_value(const OptionValue& value) {
  if constexpr (std::is_same_v<Field, double>) {
    // An integer is a real too (Python's 1 for 1.0).
    if (const auto* integer = std::get_if<std::int64_t>(&value)) {
      return static_cast<double>(*integer);
    }
    return std::get<double>(value);
  } else if constexpr (std::is_same_v<Field, std::vector<Index>>) {
    const auto& list = std::get<std::vector<std::int64_t>>(value);
    return Field(list.begin(), list.end());
  } else if constexpr (std::is_same_v<Field, bool> || std::is_same_v<Field, std::vector<double>> ||
                       std::is_same_v<Field, std::string> || std::is_same_v<Field, std::uint64_t>) {
    return std::get<Field>(value);
  } else {
    return static_cast<Field>(std::get<std::int64_t>(value));
  }
}

/// A field of `Struct` with its spelling, as CDENS_OPTION_FIELD writes them: the way a row of an
/// OptionTable names the field it sets, so that the row's name and the field's cannot differ.
template <class Struct, class Field>
struct OptionField {
  const char* name;
  Field Struct::*pointer;
};

/// The field `field` of `Struct` and its spelling: CDENS_OPTION_FIELD(LscdeOptions, sigma) is
/// OptionField{"sigma", &LscdeOptions::sigma}.
#define CDENS_OPTION_FIELD(Struct, field) \
  ::cdens::OptionField<Struct, decltype(Struct::field)> { #field, &Struct::field }

/// The options of one method: rows of (description, read the field, write the field). A row's
/// name is the name of the field it sets (of the member struct's field, for a field of a member
/// struct): `add` and `add_choice` take the field by CDENS_OPTION_FIELD and throw
/// std::logic_error when the names differ, so a C++ caller spells an option as the command line
/// and Python do. The declared exception is a pair (add_pair), whose two numbers are two fields.
template <class Options>
class OptionTable {
 public:
  /// A row whose value lives in one field of Options of a type OptionValue holds directly
  /// (bool, double, std::vector<double>, std::string) or an integer type.
  template <class Field>
  OptionTable& add(OptionInfo info, OptionField<Options, Field> field) {
    return add_field(std::move(info), field.name, field_access(field));
  }

  /// A row whose value lives in `field` of the member struct `member`: options.*member.*field.
  template <class Member, class Field>
  OptionTable& add(OptionInfo info, Member Options::*member, OptionField<Member, Field> field) {
    return add_field(std::move(info), field.name, field_access(member, field));
  }

  /// A row whose one value goes to the field of its name in two member structs (one grid for
  /// both stages of a two-stage method, one fold count for two cross-validations); its default
  /// is the first's, which the second must share.
  template <class First, class Second, class Field>
  OptionTable& add_to_both(OptionInfo info, First Options::*first,
                           OptionField<First, Field> first_field, Second Options::*second,
                           OptionField<Second, Field> second_field) {
    require_field_name(info, first_field.name);
    require_field_name(info, second_field.name);
    const auto first_access = field_access(first, first_field);
    const auto second_access = field_access(second, second_field);
    return add_row(
        std::move(info),
        [first_access](const Options& options) { return to_option_value(first_access(options)); },
        [first_access, second_access](Options& options, const OptionValue& value) {
          first_access(options) = from_option_value<Field>(value);
          second_access(options) = first_access(options);
        });
  }

  /// A choice stored as an enumeration: its choices are `to_name` of each of `values`.
  template <class Enum, class ToName>
  OptionTable& add_choice(OptionInfo info, OptionField<Options, Enum> field,
                          std::vector<Enum> values, ToName to_name) {
    require_field_name(info, field.name);
    return add_enumeration(std::move(info), field_access(field), std::move(values), to_name);
  }

  /// A choice stored as an enumeration in a member struct: options.*member.*field.
  template <class Member, class Enum, class ToName>
  OptionTable& add_choice(OptionInfo info, Member Options::*member, OptionField<Member, Enum> field,
                          std::vector<Enum> values, ToName to_name) {
    require_field_name(info, field.name);
    return add_enumeration(std::move(info), field_access(member, field), std::move(values),
                           to_name);
  }

  /// The exception to "a row's name is its field's": a real_pair row whose two numbers are the
  /// fields `first` and `second` (a box's lower and upper bound), named in the call.
  OptionTable& add_pair(OptionInfo info, OptionField<Options, double> first,
                        OptionField<Options, double> second) {
    return add_pair_of(std::move(info), field_access(first), field_access(second));
  }

  /// add_pair of the fields `first` and `second` of the member struct `member`.
  template <class Member>
  OptionTable& add_pair(OptionInfo info, Member Options::*member, OptionField<Member, double> first,
                        OptionField<Member, double> second) {
    return add_pair_of(std::move(info), field_access(member, first), field_access(member, second));
  }

  /// A rule over several options (a choice that needs another's value, a count bounded by
  /// another): `check(options)` throws InvalidArgument naming them when it does not hold.
  OptionTable& add_rule(std::function<void(const Options&)> check) {
    rules_.push_back(std::move(check));
    return *this;
  }

  /// Every row's description with its default taken from `Options{}` and its spellings derived
  /// from its name.
  std::vector<OptionInfo> describe() const {
    const Options defaults{};
    std::vector<OptionInfo> options;
    for (const Row& row : rows_) {
      OptionInfo& option = options.emplace_back(row.info);
      option.default_value = row.get(defaults);
      if (option.offered) {
        option.cli_flag = cli_flag_of(option);
        option.python_name = python_name_of(option.name);
        option.r_name = r_name_of(option.name);
      }
    }
    return options;
  }

  /// `Options{}` with the given values set. InvalidArgument naming the option for a name that is
  /// not in the table or a value not of its form (check_form: the wrong type, a choice that is
  /// not one of its choices). Whether the values are within their ranges is the fit's to check
  /// (validate), as it is for options set in C++.
  Options build(const OptionValues& values) const {
    for (const auto& [name, value] : values) find(name);
    Options options{};
    for (const Row& row : rows_) {
      const auto given = values.find(row.info.name);
      if (given == values.end()) continue;
      OptionInfo info = row.info;
      info.default_value = row.get(options);
      check_form(info, given->second, "option " + row.info.name);
      row.set(options, given->second);
    }
    return options;
  }

  /// InvalidArgument naming the option unless every row's value is its default (`Options{}`'s,
  /// valid by construction: 0 where 0 stands for the method's choice, an empty grid where none
  /// means a search) or passes check_value, and every rule holds. Every fit of the method calls
  /// it first, so a C++ caller, the command and Python meet the same rule and message.
  void validate(const Options& options) const {
    const Options defaults{};
    for (const Row& row : rows_) {
      OptionInfo info = row.info;
      info.default_value = row.get(defaults);
      const OptionValue value = row.get(options);
      if (value == info.default_value) continue;
      check_value(info, value, "option " + row.info.name);
    }
    for (const auto& rule : rules_) rule(options);
  }

 private:
  using Getter = std::function<OptionValue(const Options&)>;
  using Setter = std::function<void(Options&, const OptionValue&)>;

  /// std::logic_error unless `field_name` is the row's name: a table that breaks the rule fails
  /// when it is built, so the first use of the method (and every test of it) fails.
  static void require_field_name(const OptionInfo& info, const char* field_name) {
    if (info.name != field_name) {
      throw std::logic_error("option table: the row '" + info.name + "' sets the field '" +
                             field_name + "'; a row's name is the name of the field it sets");
    }
  }

  /// The field as a function of the options: `field_access(field)(options)` is options.*field,
  /// const or not as options is.
  template <class Field>
  static auto field_access(OptionField<Options, Field> field) {
    return [pointer = field.pointer](auto& options) -> auto& { return options.*pointer; };
  }

  /// The field `field` of the member struct `member`: options.*member.*field.
  template <class Member, class Field>
  static auto field_access(Member Options::*member, OptionField<Member, Field> field) {
    return [ member, pointer = field.pointer ](auto& options) -> auto& {
      return options.*member.*pointer;
    };
  }

  /// A row of the field `access(options)` called `field_name`.
  template <class Access>
  OptionTable& add_field(OptionInfo info, const char* field_name, Access access) {
    require_field_name(info, field_name);
    using Field = std::decay_t<decltype(access(std::declval<Options&>()))>;
    return add_row(
        std::move(info),
        [access](const Options& options) { return to_option_value(access(options)); },
        [access](Options& options, const OptionValue& value) {
          access(options) = from_option_value<Field>(value);
        });
  }

  /// A real_pair row of the two doubles `first(options)` and `second(options)`.
  template <class First, class Second>
  OptionTable& add_pair_of(OptionInfo info, First first, Second second) {
    return add_row(
        std::move(info),
        [first, second](const Options& options) {
          return OptionValue(std::vector<double>{first(options), second(options)});
        },
        [first, second](Options& options, const OptionValue& value) {
          const auto& pair = std::get<std::vector<double>>(value);
          first(options) = pair[0];
          second(options) = pair[1];
        });
  }

  OptionTable& add_row(OptionInfo info, Getter get, Setter set) {
    rows_.push_back({std::move(info), std::move(get), std::move(set)});
    return *this;
  }

  /// `access(options)` is the enumeration field (const or not, as options is).
  template <class Enum, class Access, class ToName>
  OptionTable& add_enumeration(OptionInfo info, Access access, std::vector<Enum> values,
                               ToName to_name) {
    info.type = OptionType::choice;
    info.choices.clear();
    for (const Enum value : values) info.choices.push_back(to_name(value));
    return add_row(
        std::move(info),
        [access, to_name](const Options& options) { return OptionValue(to_name(access(options))); },
        [access, values, to_name](Options& options, const OptionValue& value) {
          for (const Enum candidate : values) {
            if (to_name(candidate) == std::get<std::string>(value)) access(options) = candidate;
          }
        });
  }

  struct Row {
    OptionInfo info;
    Getter get;
    Setter set;
  };

  const Row& find(const std::string& name) const {
    std::string known;
    for (const Row& row : rows_) {
      if (row.info.name == name) return row;
      known += (known.empty() ? "" : ", ") + row.info.name;
    }
    throw InvalidArgument("unknown option '" + name + "' (options: " + known + ")");
  }

  std::vector<Row> rows_;
  std::vector<std::function<void(const Options&)>> rules_;
};

/// What a method fits: a conditional density p(y|x), a density p(x) or a regression (PRESS: one
/// output, a point prediction, a scikit-learn regressor in Python; its models skip the
/// constant-input wrapper, since its queries read its own gate).
/// The family fixes the model shape: a density method's model is a Gaussian mixture, every other
/// a conditional mixture (docs/design.md); `cdens fit --method M` fits any of them, and the
/// commands that query a model file dispatch on the family of the method that fitted it.
enum class MethodFamily { conditional, density, regression };

/// "conditional", "density", "regression".
std::string to_string(MethodFamily family);

/// The model-file shape of a family's models: "gaussian_mixture" or "conditional_mixture".
std::string model_shape(MethodFamily family);

/// One array of a method's contract beyond its model: an extra its fit returns (PRESS's state
/// weights of the training rows) or the answer of a query for new inputs (LSCE's z = Wx).
struct ArrayDeclaration {
  std::string name;
  /// Its dimensions, each a size by name: "n" the rows (of the training data for an extra, of
  /// the query's inputs for a query), "d_x" the inputs, "d_y" the outputs, or a count of the
  /// fit report (a hyperparameter or statistic, such as PRESS's "n_states"); "*" as the last
  /// dimension makes it a list of one-dimensional arrays of their own lengths.
  std::vector<std::string> shape;
  /// One line for `cdens methods`, the Python docs and `--help`.
  std::string doc;
};

/// The values of a declared array: a matrix whose rows and columns are its first and second
/// dimension (one column for a one-dimensional array), or one vector per item of a list.
using ArrayValue = std::variant<Matrix, std::vector<Vector>>;

/// A fit's extras by name, as its method declares them (MethodEntry::extras).
using FitExtras = std::map<std::string, ArrayValue>;

/// What a registry fit returns: the model (with its report) and the method's declared extras.
template <class Model>
struct MethodFit {
  Model model;
  FitExtras extras;
};

/// Answers a query for inputs x (d_x × n, in the user's units) of a model of the method: one
/// row per input, one column per entry of the declared shape's second dimension.
using QueryAnswer = std::function<Matrix(const ConditionalModel& model, const MatrixView& x)>;

/// A query a method's models answer beyond the conditional mixture's (PRESS's state weights,
/// LSCE's transform): `cdens predict --query NAME` and a Python method of the same name.
struct MethodQuery {
  ArrayDeclaration result;  ///< its name, shape (first dimension "n") and doc
  QueryAnswer answer;
};

/// Fits a conditional method to pairs (x d_x × n, y d_y × n); unlabeled_x (d_x × n', n' ≥ 0)
/// only for a method that takes unlabelled inputs. The model has no variable names yet.
using ConditionalMethodFit = std::function<MethodFit<ConditionalModel>(
    const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
    const OptionValues& options, const FitContext& context)>;

/// Fits a density method to samples x (d × n). The model has no variable names yet.
using DensityMethodFit = std::function<MethodFit<DensityModel>(
    const MatrixView& x, const OptionValues& options, const FitContext& context)>;

/// Reads the gate parameters of one gate kind of a model file; `read_gate` reads the gates a
/// wrapping gate holds.
using GateKindReader = std::function<std::shared_ptr<const ConditionalGate>(
    const nlohmann::json& parameters, const GateReader& read_gate)>;

/// A gate kind of the model files and how to read it.
struct GateKind {
  std::string kind;
  GateKindReader read;
};

/// One method.
struct MethodEntry {
  /// The name of `--method`, of the model file's "method" field and of the report.
  std::string name;
  MethodFamily family = MethodFamily::conditional;
  /// One line for `--help` and the Python description.
  std::string summary;
  /// The estimator class of the Python package whose models this method fits.
  std::string python_class;
  /// Every option, with its default.
  std::vector<OptionInfo> options;
  /// Whether the fit takes inputs without outputs (semi-supervised LSCDE).
  bool takes_unlabeled_inputs = false;
  /// Whether the fit runs on rows spread over many processes (FitContext::communicator, each
  /// rank passing its own rows); fit_method refuses more than one process to the others.
  bool distributed = false;
  /// Why a method that is not distributed needs one process, for its refusal of several
  /// (not_distributed_message); empty: its fit needs every row in one place.
  std::string single_process_reason;
  /// Whether the fit honours FitContext::sample_weights (weighted criteria, docs/methods/*.md);
  /// fit_method refuses sample weights to the others.
  bool sample_weights = false;
  /// Of a method that takes sample weights: why its fit with these option values (those given)
  /// and, where `unlabeled_inputs`, unlabelled inputs takes none (KCDE's trend = gp, an output
  /// transform, LSCDE's unlabelled inputs); empty where it takes them, and where the function is
  /// unset. fit_method fits identical rows of such a fit as rows rather than merge them into
  /// weights (docs/methods/duplicates.md), and auto does not run such a candidate on weighted
  /// pairs.
  std::function<std::string(const OptionValues& values, bool unlabeled_inputs)> weights_refused;
  /// Whether the fit runs on several OpenMP threads: its options end with the shared `threads`
  /// option (`--threads`, Python's n_jobs), which fit_method moves into FitContext::threads.
  bool threads = true;
  /// Whether y may have several dimensions (PRESS regresses one output).
  bool multi_output = true;
  /// Options that make a fit cheap — short grids, few centres and candidates, few iterations —
  /// on a few dozen pairs: the conformance suite (tests/cpp/test_conformance.cpp,
  /// tests/python/test_conformance.py) fits every method with them.
  OptionValues test_options;
  /// The fit: fit_conditional for the conditional and regression families, fit_density for
  /// density methods.
  ConditionalMethodFit fit_conditional;
  DensityMethodFit fit_density;
  /// The gate kinds its models write to model files (a kind may be listed by several methods).
  std::vector<GateKind> gates;
  /// The arrays its fit returns beside the model (MethodFit::extras), which a model file does
  /// not keep: Python's fitted attributes; `cdens fit` prints those without an "n" or "*".
  std::vector<ArrayDeclaration> extras;
  /// The queries its models answer beyond the family's.
  std::vector<MethodQuery> queries;
  /// Options whose value `cdens fit` prints beside the report (PRESS's criterion: the loss its
  /// figures are of).
  std::vector<std::string> reported_options;
};

/// Every method, in alphabetical order of name.
const std::vector<MethodEntry>& methods();

/// The methods of one family, in alphabetical order of name.
std::vector<const MethodEntry*> methods_of(MethodFamily family);

/// The method called `name` in `family`. InvalidArgument listing the
/// family's methods for an unknown name.
const MethodEntry& find_method(const std::string& name, MethodFamily family);

/// The method called `name` of any family. InvalidArgument listing
/// every method for an unknown name.
const MethodEntry& find_method(const std::string& name);

/// The method whose models carry `name` in their "method" field, or nullptr.
const MethodEntry* method_named(const std::string& name);

/// The R package's function that fits `method`: "cde_" and the name for a conditional or
/// regression method, "kde_" and the name for a density method, a hyphen written as an
/// underscore ("fw-lscde": cde_fw_lscde, "gmm": kde_gmm).
std::string r_function_of(const MethodEntry& method);

/// Fits a conditional or regression method: its fit_conditional, after refusing unlabelled
/// inputs (unlabeled_x with columns) to a method that takes none, and more than one process to
/// a method that is not distributed. With context.sample_weights: refuses them to a method that
/// does not support them, on more than one process, and unless validate_sample_weights accepts
/// them (one per row of x); the rows of weight 0 are dropped before the fit sees them, and equal
/// weights are no weights (the unweighted fit, to the bit). The extras' "n" is then the rows
/// of positive weight.
MethodFit<ConditionalModel> fit_method_with_extras(const MethodEntry& method, const MatrixView& x,
                                                   const MatrixView& y,
                                                   const MatrixView& unlabeled_x,
                                                   const OptionValues& options,
                                                   const FitContext& context = {});

/// fit_method_with_extras without the extras.
ConditionalModel fit_method(const MethodEntry& method, const MatrixView& x, const MatrixView& y,
                            const MatrixView& unlabeled_x, const OptionValues& options,
                            const FitContext& context = {});

/// Fits a density method: its fit_density, after refusing more than one process to a method that
/// is not distributed; sample weights as for the conditional fit_method.
MethodFit<DensityModel> fit_method_with_extras(const MethodEntry& method, const MatrixView& x,
                                               const OptionValues& options,
                                               const FitContext& context = {});

/// fit_method_with_extras without the extras.
DensityModel fit_method(const MethodEntry& method, const MatrixView& x, const OptionValues& options,
                        const FitContext& context = {});

/// The size a dimension of a declared array stands for (ArrayDeclaration::shape): `rows` for
/// "n", the model's d_x or d_y, or the count of that name in the fit report. InvalidArgument for
/// "*" or a name the report lacks.
Index declared_size(const std::string& dimension, Index rows, Index input_dim, Index output_dim,
                    const FitReport& report);

/// The query of `method` called `name`; InvalidArgument listing the method's queries.
const MethodQuery& find_query(const MethodEntry& method, const std::string& name);

/// The answer of the query `name` of the method that fitted `model` (its report's method) for
/// inputs x (d_x × n, the user's units): n × (the declared second dimension, or 1).
/// InvalidArgument for a method without that query or x of another dimension.
Matrix answer_query(const ConditionalModel& model, const std::string& name, const MatrixView& x);

/// Why `method` refuses sample weights, and which methods take them.
std::string no_sample_weights_message(const MethodEntry& method);

/// Why `method` refuses to run on more than one process, and which methods do run there.
std::string not_distributed_message(const MethodEntry& method);

/// The option of `method` called `name` (OptionInfo::name); InvalidArgument otherwise.
const OptionInfo& find_option(const MethodEntry& method, const std::string& name);

}  // namespace cdens
