// The declared range of every option is the rule of the fit itself: for every registered method
// and every option whose table row declares a range, values just outside it (the next number
// past each finite end, as scikit-learn's generate_invalid_param_val does) are refused by the fit
// with a message naming the option, and the ends inside are accepted. The registry's entries
// build their options without checking ranges (OptionTable::build), so a refusal here comes from
// the fit's own validation (OptionTable::validate), which a C++ caller of fit_* meets too.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// A value of `option` of `method` holding `number`: the integer or real itself; a list of the
/// method's test options (or defaults) with its first (`first`) or last number replaced, so that
/// a grid keeps its count of candidates (one value per column of `columns` for a per-column
/// list); the default pair with its first or second number replaced.
OptionValue holding(const MethodEntry& method, const OptionInfo& option, double number, bool first,
                    Index columns) {
  switch (option.type) {
    case OptionType::integer:
      return static_cast<std::int64_t>(number);
    case OptionType::real:
      return number;
    case OptionType::real_list: {
      if (option.per_column) return std::vector<double>(static_cast<std::size_t>(columns), number);
      const auto given = method.test_options.find(option.name);
      std::vector<double> list = std::get<std::vector<double>>(
          given != method.test_options.end() ? given->second : option.default_value);
      if (list.empty()) return std::vector<double>{number};
      (first ? list.front() : list.back()) = number;
      return list;
    }
    case OptionType::real_pair: {
      std::vector<double> pair = std::get<std::vector<double>>(option.default_value);
      pair[first ? 0 : 1] = number;
      return pair;
    }
    default:
      ADD_FAILURE() << option.name << ": a range on an option of type " << to_string(option.type);
      return {};
  }
}

bool is_integer(const OptionInfo& option) { return option.type == OptionType::integer; }

/// The number just below the range's lower end: the end itself when it is excluded.
double below_minimum(const OptionInfo& option) {
  if (option.exclusive_minimum) return option.minimum;
  return is_integer(option)
             ? option.minimum - 1
             : std::nextafter(option.minimum, -std::numeric_limits<double>::infinity());
}

/// The smallest number inside: the lower end, or the next number above an excluded one — and
/// above a 0 that stands for the method's choice, which a value given explicitly must not be.
double lowest_inside(const OptionInfo& option) {
  const bool skip_end =
      option.exclusive_minimum || (stands_for_default(option) && option.minimum == 0);
  if (!skip_end) return option.minimum;
  return is_integer(option)
             ? option.minimum + 1
             : std::nextafter(option.minimum, std::numeric_limits<double>::infinity());
}

double above_maximum(const OptionInfo& option) {
  return is_integer(option)
             ? option.maximum + 1
             : std::nextafter(option.maximum, std::numeric_limits<double>::infinity());
}

/// Fits `method` on n rows with `values` and `name` set to `value`.
void fit_with(const MethodEntry& method, OptionValues values, const std::string& name,
              const OptionValue& value, Index n = 60) {
  values[name] = value;
  if (method.family == MethodFamily::density) {
    Rng rng(3);
    fit_method(method, test::normal_matrix(2, n, rng), values);
  } else {
    const test::PairSample data = test::sine_sample(n, 2, 8);
    fit_method(method, data.x, data.y, Matrix(2, 0), values);
  }
}

void expect_refused(const MethodEntry& method, const OptionInfo& option, const OptionValue& value,
                    const std::string& what) {
  SCOPED_TRACE(method.name + " " + option.name + " " + what);
  const std::string message = test::message_of<InvalidArgument>(
      [&] { fit_with(method, method.test_options, option.name, value); });
  EXPECT_NE(message.find("option " + option.name + " "), std::string::npos) << message;
}

/// The test options with every grid cut to its first candidate: a fit that chooses nothing.
OptionValues single_candidates(const MethodEntry& method) {
  OptionValues values = method.test_options;
  for (auto& [name, value] : values) {
    auto* list = std::get_if<std::vector<double>>(&value);
    if (list && find_option(method, name).type == OptionType::real_list && !list->empty()) {
      list->resize(1);
    }
  }
  return values;
}

/// Expects a fit with `value` of `option`: with the method's test options on 60 rows, else on
/// 1,000 rows (a value that needs more data: PRESS's hold-out fraction 0.99 leaves 10 rows to
/// fit), else with the method's defaults (a value a rule refuses beside another test option:
/// PRESS's max_states beside n_states), else with one candidate per grid (NW-CDE's single
/// centre, which cannot choose σ by leave-one-out).
void expect_accepted(const MethodEntry& method, const OptionInfo& option, const OptionValue& value,
                     const std::string& what) {
  SCOPED_TRACE(method.name + " " + option.name + " " + what);
  std::string failures;
  const auto attempt = [&](const OptionValues& values, Index n) {
    try {
      fit_with(method, values, option.name, value, n);
      return true;
    } catch (const std::exception& error) {
      failures += std::string("\n  ") + error.what();
      return false;
    }
  };
  if (attempt(method.test_options, 60) || attempt(method.test_options, 1000) || attempt({}, 60) ||
      attempt(single_candidates(method), 60)) {
    return;
  }
  ADD_FAILURE() << "refused:" << failures;
}

TEST(OptionLimitsTest, ValuesJustOutsideADeclaredRangeAreRefusedAndItsEndsAccepted) {
  int ranges = 0;
  for (const MethodEntry& method : methods()) {
    const Index columns = method.family == MethodFamily::density ? 2 : 3;
    for (const OptionInfo& option : method.options) {
      const bool has_minimum = std::isfinite(option.minimum);
      const bool has_maximum = std::isfinite(option.maximum);
      if (!has_minimum && !has_maximum) continue;
      ++ranges;
      // A pair's lower end is its first number's, its upper end its second's, so an ordered
      // pair stays ordered. A per-column list (KCDE's bandwidths) has, within the table's range,
      // each column's own (a Gaussian width, a discrete column's λ), which the fit checks naming
      // the column: the table's ends are not every column's, so only values outside are tried.
      if (has_minimum) {
        expect_refused(method, option,
                       holding(method, option, below_minimum(option), true, columns),
                       "below the minimum");
        if (!option.per_column) {
          expect_accepted(method, option,
                          holding(method, option, lowest_inside(option), true, columns),
                          "at the minimum");
        }
      }
      if (has_maximum) {
        expect_refused(method, option,
                       holding(method, option, above_maximum(option), false, columns),
                       "above the maximum");
        if (!option.per_column) {
          expect_accepted(method, option, holding(method, option, option.maximum, false, columns),
                          "at the maximum");
        }
      }
    }
  }
  EXPECT_GT(ranges, 50);  // every method declares some
}

TEST(OptionLimitsTest, ADirectFitRefusesWhatItsTableRefusesWithTheSameMessage) {
  const test::PairSample data = test::sine_sample(40, 1, 2);
  LscdeOptions lscde;
  lscde.regularization = {0.1, 0.0};
  const std::string direct =
      test::message_of<InvalidArgument>([&] { fit_lscde(data.x, data.y, lscde); });
  const std::string through_registry = test::message_of<InvalidArgument>([&] {
    fit_method(*method_named("lscde"), data.x, data.y, Matrix(1, 0),
               {{"regularization", std::vector<double>{0.1, 0.0}}});
  });
  EXPECT_EQ(direct, through_registry);
  EXPECT_NE(direct.find("option regularization must be greater than 0, got 0"), std::string::npos)
      << direct;

  // A rule over two options: GSKD's hold-out subsample needs two samples per fold.
  GskdOptions gskd;
  gskd.folds = 4;
  gskd.holdout_subsample = 7;
  const std::string subsample = test::message_of<InvalidArgument>([&] { fit_gskd(data.y, gskd); });
  EXPECT_NE(subsample.find("at least 2 per fold, 8 for 4 folds"), std::string::npos) << subsample;

  // PRESS's patience: 0 would stop as 1 does; the table's rule refuses it.
  PressOptions press;
  press.patience = 0;
  const std::string patience =
      test::message_of<InvalidArgument>([&] { fit_press(data.x, data.y, press); });
  EXPECT_NE(patience.find("option patience must be at least 1"), std::string::npos) << patience;

  // A value the front ends cannot give (NaN) is refused by the fit too.
  KcdeOptions kcde;
  kcde.search.lower = std::nan("");
  const std::string bounds =
      test::message_of<InvalidArgument>([&] { fit_kcde(data.x, data.y, kcde); });
  EXPECT_NE(bounds.find("option bandwidth_bounds must hold finite numbers"), std::string::npos)
      << bounds;
}

}  // namespace
}  // namespace cdens
