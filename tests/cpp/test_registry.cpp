// The registry of methods and their option tables: every entry is found by its name, its
// spellings are unique, its defaults are those of its Options struct (read here field by field,
// independently of the table), building options sets exactly the fields named, a fit through the
// registry equals the fit called directly with the options written out, and model files written
// before the registry existed (tests/data/models_ed836a3) still load and predict what they did.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cdens/cdens.hpp"
#include "io/csv.hpp"
#include "io/json_io.hpp"
#include "methods/option_tables.hpp"
#include "support.hpp"

namespace cdens {
namespace {

const OptionInfo& option_of(const std::string& method, const std::string& name) {
  const MethodEntry* entry = method_named(method);
  EXPECT_NE(entry, nullptr) << method;
  return find_option(*entry, name);
}

template <class Value>
Value default_of(const std::string& method, const std::string& name) {
  return std::get<Value>(option_of(method, name).default_value);
}

TEST(RegistryTest, FindsEveryMethodByNameAndFamilyAndRefusesUnknownOnes) {
  std::set<std::string> names;
  for (const MethodEntry& method : methods()) {
    EXPECT_TRUE(names.insert(method.name).second) << "two entries named " << method.name;
    EXPECT_EQ(&find_method(method.name, method.family), &method);
    EXPECT_EQ(method_named(method.name), &method);
    EXPECT_EQ(method.family == MethodFamily::density, static_cast<bool>(method.fit_density));
    EXPECT_EQ(method.family != MethodFamily::density, static_cast<bool>(method.fit_conditional));
    EXPECT_FALSE(method.python_class.empty()) << method.name;
  }
  // The methods of the papers and ours stay registered; a new method needs no edit here.
  const std::set<std::string> kept = {
      "auto",   "ekde",  "fw-ekde", "fw-lscde",  "fw-nwcde",  "gmm",        "gskd",  "kcde",
      "linear", "lscde", "lsce",    "lsce-ekde", "lsmi-ekde", "lsmi-lscde", "nwcde", "parzen",
      "press",  "rkde",  "rsde",    "sacde",     "salscde",   "skd"};
  EXPECT_TRUE(std::includes(names.begin(), names.end(), kept.begin(), kept.end()));
  // An unknown name is refused with the family's methods listed, in the registry's order.
  std::string density_methods;
  for (const MethodEntry& method : methods()) {
    if (method.family != MethodFamily::density) continue;
    density_methods += (density_methods.empty() ? "" : ", ") + method.name;
  }
  const std::string message =
      test::message_of<InvalidArgument>([] { find_method("lscdx", MethodFamily::density); });
  EXPECT_NE(message.find("unknown density method 'lscdx'"), std::string::npos) << message;
  EXPECT_NE(message.find("(known methods: " + density_methods + ")"), std::string::npos) << message;
  // A method of the other family is known: named as one of it, with the family's methods.
  const std::string other =
      test::message_of<InvalidArgument>([] { find_method("lscde", MethodFamily::density); });
  EXPECT_NE(other.find("method 'lscde' is a conditional method, not a density one (density "
                       "methods: " +
                       density_methods + ")"),
            std::string::npos)
      << other;
}

TEST(RegistryTest, SpellingsAreUniqueWithinAMethodAndAFlagMeansOneTypeWithinACommand) {
  std::map<std::pair<MethodFamily, std::string>, OptionType> flag_types;
  for (const MethodEntry& method : methods()) {
    std::set<std::string> names, flags, python_names;
    for (const OptionInfo& option : method.options) {
      EXPECT_TRUE(names.insert(option.name).second) << method.name << " " << option.name;
      if (!option.cli_flag.empty()) {
        EXPECT_TRUE(flags.insert(option.cli_flag).second) << method.name << " " << option.cli_flag;
        const auto [entry, inserted] =
            flag_types.insert({{method.family, option.cli_flag}, option.type});
        EXPECT_EQ(entry->second, option.type)
            << option.cli_flag << " changes type at " << method.name;
      }
      if (!option.python_name.empty()) {
        EXPECT_TRUE(python_names.insert(option.python_name).second)
            << method.name << " " << option.python_name;
      }
      EXPECT_TRUE(fits_type(option.default_value, option.type) ||
                  (option.type == OptionType::real_list && option.none_is_default))
          << method.name << " " << option.name << ": the default does not suit the type";
    }
  }
}

// Each option has one name: the command's flag, the Python parameter and the R argument are
// spelt from it; only scikit-learn's three conventions differ in Python, and the thread count
// (n_jobs) in R.
TEST(RegistryTest, EveryFlagPythonAndRNameIsSpeltFromTheOptionsName) {
  const std::map<std::string, std::string> scikit_learn = {
      {"folds", "cv"}, {"seed", "random_state"}, {"threads", "n_jobs"}};
  for (const MethodEntry& method : methods()) {
    for (const OptionInfo& option : method.options) {
      SCOPED_TRACE(method.name + " " + option.name);
      if (!option.offered) {
        EXPECT_EQ(option.cli_flag, "");
        EXPECT_EQ(option.python_name, "");
        EXPECT_EQ(option.r_name, "");
        continue;
      }
      std::string flag = "--" + option.name;
      std::replace(flag.begin(), flag.end(), '_', '-');
      if (option.type == OptionType::boolean && std::get<bool>(option.default_value)) {
        flag.insert(2, "no-");
      }
      EXPECT_EQ(option.cli_flag, flag);
      const auto convention = scikit_learn.find(option.name);
      EXPECT_EQ(option.python_name,
                convention == scikit_learn.end() ? option.name : convention->second);
      EXPECT_EQ(option.r_name, option.name == "threads" ? "n_jobs" : option.name);
    }
  }
  EXPECT_EQ(option_of("press", "standardize").cli_flag, "--no-standardize");
  EXPECT_EQ(option_of("press", "single_precision").cli_flag, "--single-precision");
  EXPECT_EQ(option_of("lscde", "folds").python_name, "cv");
  EXPECT_EQ(option_of("lscde", "folds").r_name, "folds");
  EXPECT_EQ(option_of("lscde", "seed").r_name, "seed");
}

TEST(RegistryTest, DefaultsAreTheOptionsStructs) {
  EXPECT_EQ(default_of<std::vector<double>>("lscde", "sigma"), lscde_paper_grid());
  EXPECT_EQ(default_of<std::int64_t>("lscde", "n_centers"), LscdeOptions{}.n_centers);
  EXPECT_EQ(default_of<std::string>("lscde", "cv_loss"), "kl");
  EXPECT_EQ(default_of<std::vector<double>>("ekde", "epsilon"), ekde_paper_radii());
  // FW-LSCDE and SA-LSCDE take the SA-CDE paper's grid for LSCDE, not LSCDE's own.
  EXPECT_EQ(default_of<std::vector<double>>("fw-lscde", "sigma"), sa_cde_width_grid());
  EXPECT_EQ(default_of<std::vector<double>>("salscde", "regularization"), sa_cde_width_grid());
  EXPECT_EQ(default_of<double>("sacde", "tol"), GroupLassoOptions{}.tol);
  EXPECT_EQ(default_of<std::string>("sacde", "lambda_rule"), "1se");
  EXPECT_EQ(default_of<std::int64_t>("lsce", "n_restarts"), ReductionOptions{}.n_restarts);
  EXPECT_EQ(default_of<double>("press", "learning_rate"), PressOptions{}.learning_rate);
  EXPECT_EQ(default_of<std::int64_t>("press", "max_iter"), PressOptions{}.max_iter);
  EXPECT_EQ(default_of<bool>("press", "standardize"), true);
  EXPECT_EQ(default_of<std::vector<double>>("gmm", "box"),
            (std::vector<double>{GmmOptions{}.box_lower, GmmOptions{}.box_upper}));
  EXPECT_EQ(default_of<std::vector<double>>("rsde", "bandwidth"), RsdeOptions{}.bandwidth);
  EXPECT_TRUE(default_of<std::vector<double>>("parzen", "bandwidth").empty());
  EXPECT_EQ(default_of<std::uint64_t>("gmm", "seed"), 0u);
}

TEST(RegistryTest, BuildSetsTheNamedFieldsAndNamesTheOptionInItsErrors) {
  const GmmOptions gmm = gmm_option_table().build({{"box", std::vector<double>{-1.0, 2.0}},
                                                   {"n_components", std::int64_t{3}},
                                                   {"init", std::string("box")},
                                                   {"tol", std::int64_t{1}},
                                                   {"seed", std::uint64_t{9}}});
  EXPECT_EQ(gmm.box_lower, -1.0);
  EXPECT_EQ(gmm.box_upper, 2.0);
  EXPECT_EQ(gmm.n_components, 3);
  EXPECT_EQ(gmm.init, GmmInitialization::box);
  EXPECT_EQ(gmm.tol, 1.0);  // an integer is a real too
  EXPECT_EQ(gmm.seed, 9u);
  EXPECT_EQ(gmm.n_init, GmmOptions{}.n_init);  // not named: the default

  const LsceOptions reduced =
      lsce_option_table(ReducedCdeMethod::lsce_ekde).build({{"folds", std::int64_t{3}}});
  EXPECT_EQ(reduced.reduction.folds, 3);
  EXPECT_EQ(reduced.epsilon_kde.folds, 3);  // one K for every cross-validation of the method
  const SalscdeOptions two_stages =
      salscde_option_table().build({{"sigma", std::vector<double>{0.5}}});
  EXPECT_EQ(two_stages.selection.sigma, std::vector<double>{0.5});
  EXPECT_EQ(two_stages.estimation.sigma, std::vector<double>{0.5});

  const auto error = [](const OptionValues& values) {
    return test::message_of<InvalidArgument>([&] { gmm_option_table().build(values); });
  };
  EXPECT_NE(error({{"components", std::int64_t{2}}}).find("unknown option 'components'"),
            std::string::npos);
  EXPECT_NE(error({{"init", std::string("random")}}).find("kmeans++, box"), std::string::npos);
  EXPECT_NE(error({{"box", std::vector<double>{1.0}}}).find("option box must be a pair"),
            std::string::npos);
  EXPECT_NE(error({{"n_init", 2.5}}).find("option n_init must be an integer"), std::string::npos);
  EXPECT_NE(error({{"n_init", std::int64_t{1} << 40}}).find("out of range"), std::string::npos);
}

TEST(RegistryTest, AFitThroughTheRegistryEqualsTheDirectFit) {
  const test::PairSample data = test::sine_sample(70, 2, 4);
  const Matrix none(2, 0);
  const auto registry_fit = [&](const std::string& method, const OptionValues& values) {
    return fit_method(*method_named(method), data.x, data.y, none, values);
  };
  const auto expect_same = [&](const ConditionalModel& a, const ConditionalMixture& b) {
    const Vector expected = b.log_pdf(data.x, data.y);
    const Vector got = a.mixture.log_pdf(data.x, data.y);
    for (Index i = 0; i < expected.size(); ++i) EXPECT_EQ(got(i), expected(i)) << i;
  };

  LscdeOptions lscde;
  lscde.sigma = {0.3, 1.0};
  lscde.regularization = {0.1};
  lscde.n_centers = 30;
  lscde.seed = 5;
  expect_same(registry_fit("lscde", {{"sigma", std::vector<double>{0.3, 1.0}},
                                     {"regularization", std::vector<double>{0.1}},
                                     {"n_centers", std::int64_t{30}},
                                     {"seed", std::uint64_t{5}}}),
              fit_lscde(data.x, data.y, lscde).model);

  // FW-LSCDE: the greedy selection around LSCDE on the SA-CDE paper's grid, one thread a fit.
  LscdeOptions wrapped;
  wrapped.sigma = sa_cde_width_grid();
  wrapped.regularization = {0.1};
  wrapped.n_centers = 20;
  ForwardSelectionOptions selection;
  selection.method = "fw-lscde";
  const ConditionalFit by_hand = fit_forward_selection(
      data.x, data.y,
      [&](const MatrixView& x, const MatrixView& y) {
        return fit_lscde(x, y, wrapped, FitContext{}.with_threads(1));
      },
      selection);
  const ConditionalModel through_registry =
      registry_fit("fw-lscde", {{"regularization", std::vector<double>{0.1}},
                                {"n_centers", std::int64_t{20}},
                                {"threads", std::int64_t{2}}});
  EXPECT_EQ(through_registry.report.method, "fw-lscde");
  EXPECT_EQ(through_registry.report.feature_selection->selected,
            by_hand.report.feature_selection->selected);
  expect_same(through_registry, by_hand.model);

  const std::string refused = test::message_of<InvalidArgument>(
      [&] { fit_method(*method_named("rkde"), data.x, data.y, data.x, {}); });
  EXPECT_NE(refused.find("takes no unlabelled inputs"), std::string::npos) << refused;
}

/// The log-densities the cdens package of ed836a3 computed for a file, and the rows it used.
struct WrittenBefore {
  nlohmann::json expected;
  Matrix rows;  // fl, rw, cl, cw, bd × 60
};

WrittenBefore written_before() {
  const std::string directory = std::string(CDENS_TEST_DATA_DIR) + "/models_ed836a3/";
  WrittenBefore written;
  written.expected = read_model_document(directory + "expected.json");
  written.rows = read_csv(directory + "crabs60.csv").values;
  return written;
}

TEST(RegistryTest, ModelFilesWrittenBeforeTheRegistryLoadAndPredictAsBefore) {
  const WrittenBefore written = written_before();
  const std::string directory = std::string(CDENS_TEST_DATA_DIR) + "/models_ed836a3/";
  for (const auto& [name, expected] : written.expected.items()) {
    SCOPED_TRACE(name);
    const nlohmann::json file = read_model_document(directory + name + ".json");
    Vector log_pdf;
    if (model_file_shape(file) == "gaussian_mixture") {
      log_pdf = density_model_from_json(file).mixture.log_pdf(written.rows.topRows(2));
    } else {
      log_pdf = conditional_model_from_json(file).mixture.log_pdf(written.rows.topRows(3),
                                                                  written.rows.row(3));
    }
    const auto values = expected.at("log_pdf").get<std::vector<double>>();
    ASSERT_EQ(log_pdf.size(), static_cast<Index>(values.size()));
    // The expected values come from a -march=native build; a build for generic x86-64 (the
    // sanitizer build of make test) rounds some sums differently in the last bits.
    for (Index i = 0; i < log_pdf.size(); ++i) {
      const double expected_value = values[static_cast<std::size_t>(i)];
      EXPECT_NEAR(log_pdf(i), expected_value, 1e-12 * std::max(1.0, std::abs(expected_value))) << i;
    }
    EXPECT_NE(method_named(file.at("method").get<std::string>()), nullptr);
  }
}

// cdens 0.1.0 named the chosen values by the papers' symbols; they read under the options' names,
// with the values the files hold (tests/data/models_ed836a3: lscde λ = 0.1, lsce d_z = 1, the
// Parzen width 0.16676…, SKD's width 0.5 and target width, SA-LSCDE's two λ).
TEST(RegistryTest, ReportsWrittenBy010ReadUnderTheOptionsNames) {
  const std::string directory = std::string(CDENS_TEST_DATA_DIR) + "/models_ed836a3/";
  const auto report_of = [&](const std::string& name) {
    const nlohmann::json file = read_model_document(directory + name + ".json");
    return model_file_shape(file) == "gaussian_mixture" ? density_model_from_json(file).report
                                                        : conditional_model_from_json(file).report;
  };
  const auto written = [&](const std::string& name, const std::string& key) {
    return read_model_document(directory + name + ".json")
        .at("fit")
        .at("hyperparameters")
        .at(key)
        .get<double>();
  };
  const FitReport lscde = report_of("lscde");
  EXPECT_EQ(lscde.hyperparameters.at("regularization"), written("lscde", "lambda"));
  EXPECT_EQ(lscde.hyperparameters.count("lambda"), 0U);
  EXPECT_EQ(lscde.cross_validation->parameter_names,
            (std::vector<std::string>{"sigma", "regularization"}));
  EXPECT_EQ(report_of("lsce").hyperparameters.at("n_components"), written("lsce", "d_z"));
  EXPECT_EQ(report_of("parzen").hyperparameters.at("bandwidth"), written("parzen", "width"));
  EXPECT_EQ(report_of("parzen").cross_validation->parameter_names,
            std::vector<std::string>{"bandwidth"});
  const FitReport skd = report_of("skd");
  EXPECT_EQ(skd.hyperparameters.at("bandwidth"), written("skd", "width"));
  EXPECT_EQ(skd.hyperparameters.at("target_bandwidth"), written("skd", "target_width"));
  const FitReport salscde = report_of("salscde");
  EXPECT_EQ(salscde.hyperparameters.at("selection_regularization"),
            written("salscde", "selection_lambda"));
  EXPECT_EQ(salscde.hyperparameters.at("regularization"), written("salscde", "lambda"));
  EXPECT_EQ(salscde.hyperparameters.at("selection_sigma"), written("salscde", "selection_sigma"));
}

}  // namespace
}  // namespace cdens
