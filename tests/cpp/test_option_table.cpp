// OptionTable's rule that a row's name is the name of the field it sets (CDENS_OPTION_FIELD),
// on a small local Options struct: a table that keeps it builds and sets the named fields, one
// that breaks it is refused when it is built.

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cdens/methods/registry.hpp"

namespace cdens {
namespace {

enum class Shape { round, square };

std::string shape_name(Shape shape) { return shape == Shape::round ? "round" : "square"; }

struct Stage {
  std::vector<double> sigma = {1.0};
  std::vector<double> regularization = {0.1};
  int folds = 5;
};

struct Options {
  std::vector<double> sigma = {0.5};
  Shape shape = Shape::round;
  double box_lower = -1.0;
  double box_upper = 1.0;
  Stage first;
  Stage second;
};

OptionInfo row(const std::string& name, OptionType type) {
  OptionInfo info;
  info.name = name;
  info.type = type;
  return info;
}

TEST(OptionTableTest, RowsNamedAsTheirFieldsSetThoseFields) {
  OptionTable<Options> rows;
  rows.add(row("sigma", OptionType::real_list), CDENS_OPTION_FIELD(Options, sigma));
  rows.add_choice(row("shape", OptionType::choice), CDENS_OPTION_FIELD(Options, shape),
                  {Shape::round, Shape::square}, shape_name);
  rows.add_pair(row("box", OptionType::real_pair), CDENS_OPTION_FIELD(Options, box_lower),
                CDENS_OPTION_FIELD(Options, box_upper));
  rows.add_to_both(row("folds", OptionType::integer), &Options::first,
                   CDENS_OPTION_FIELD(Stage, folds), &Options::second,
                   CDENS_OPTION_FIELD(Stage, folds));

  const Options options = rows.build({{"sigma", std::vector<double>{0.25, 2.0}},
                                      {"shape", std::string("square")},
                                      {"box", std::vector<double>{-3.0, 4.0}},
                                      {"folds", std::int64_t{3}}});
  EXPECT_EQ(options.sigma, (std::vector<double>{0.25, 2.0}));
  EXPECT_EQ(options.shape, Shape::square);
  EXPECT_EQ(options.box_lower, -3.0);
  EXPECT_EQ(options.box_upper, 4.0);
  EXPECT_EQ(options.first.folds, 3);
  EXPECT_EQ(options.second.folds, 3);
  // Fields no row names keep their defaults.
  EXPECT_EQ(options.first.sigma, (std::vector<double>{1.0}));

  const std::vector<OptionInfo> described = rows.describe();
  ASSERT_EQ(described.size(), 4u);
  EXPECT_EQ(described[2].default_value, OptionValue(std::vector<double>{-1.0, 1.0}));
  EXPECT_EQ(described[3].default_value, OptionValue(std::int64_t{5}));
}

/// The message of the std::logic_error that `add_row` throws, or "" when it throws none.
template <class AddRow>
std::string refusal(AddRow add_row) {
  OptionTable<Options> rows;
  try {
    add_row(rows);
  } catch (const std::logic_error& error) {
    return error.what();
  }
  return "";
}

TEST(OptionTableTest, ARowNamedOtherwiseThanItsFieldIsRefused) {
  const std::string expected =
      "option table: the row 'sigmas' sets the field 'sigma'; a row's name is the name of the "
      "field it sets";
  EXPECT_EQ(refusal([](OptionTable<Options>& rows) {
              rows.add(row("sigmas", OptionType::real_list), CDENS_OPTION_FIELD(Options, sigma));
            }),
            expected);
  EXPECT_EQ(refusal([](OptionTable<Options>& rows) {
              rows.add(row("sigmas", OptionType::real_list), &Options::first,
                       CDENS_OPTION_FIELD(Stage, sigma));
            }),
            expected);
  EXPECT_NE(refusal([](OptionTable<Options>& rows) {
              rows.add_choice(row("form", OptionType::choice), CDENS_OPTION_FIELD(Options, shape),
                              {Shape::round, Shape::square}, shape_name);
            }),
            "");
  // Both fields of a shared row must carry its name, the second as well as the first.
  EXPECT_NE(refusal([](OptionTable<Options>& rows) {
              rows.add_to_both(row("sigma", OptionType::real_list), &Options::first,
                               CDENS_OPTION_FIELD(Stage, sigma), &Options::second,
                               CDENS_OPTION_FIELD(Stage, regularization));
            }),
            "");
}

}  // namespace
}  // namespace cdens
