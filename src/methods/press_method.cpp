// PRESS's options and registry entry.

#include "cdens/regression/press.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"
#include "regression/press_gate.hpp"
#include "regression/press_smoother.hpp"

namespace cdens {

const OptionTable<PressRegressionOptions>& press_option_table() {
  using namespace registry_internal;
  using Options = PressRegressionOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    rows.add(
        none_by_default(in_range(option("n_states", OptionType::integer,
                                        "Number of predictive states J; by default round(log n), "
                                        "at least 2 (the paper's starting point)"),
                                 0)),
        &Options::press, CDENS_OPTION_FIELD(PressOptions, n_states));
    rows.add(none_by_default(in_range(option("max_states", OptionType::integer,
                                             "Fit J = 1 … this and keep the smallest AIC (eq. 37), "
                                             "with the number of states left at its default; by "
                                             "default one J is fitted"),
                                      0)),
             CDENS_OPTION_FIELD(Options, max_states));
    rows.add_choice(option("criterion", OptionType::choice,
                           "Training criterion: in-sample mse, closed-form loocv or gcv (the "
                           "paper's §5)"),
                    &Options::press, CDENS_OPTION_FIELD(PressOptions, criterion),
                    {PressCriterion::gcv, PressCriterion::loocv, PressCriterion::mse},
                    [](PressCriterion criterion) { return to_string(criterion); });
    rows.add_choice(option("optimizer", OptionType::choice,
                           "Optimiser of θ: adam (the paper's gradient path) or lbfgs"),
                    &Options::press, CDENS_OPTION_FIELD(PressOptions, optimizer),
                    {PressOptimizer::adam, PressOptimizer::lbfgs},
                    [](PressOptimizer optimizer) { return to_string(optimizer); });
    rows.add(positive(option("learning_rate", OptionType::real, "Adam's step size")),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, learning_rate));
    rows.add(
        in_range(
            option("smoothness_weight", OptionType::real,
                   "Weight μ of the smoothness penalty μ (ν_smooth − ν)² (eq. 36); 0 turns it off"),
            0),
        &Options::press, CDENS_OPTION_FIELD(PressOptions, smoothness_weight));
    rows.add(none_by_default(
                 in_range(option("target_dof", OptionType::real,
                                 "Target degrees of freedom ν_smooth of eq. (36), in [1, J]; "
                                 "needed when μ > 0"),
                          0)),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, target_dof));
    rows.add(in_range(option("lasso_weight", OptionType::real,
                             "Weight λ of the LASSO penalty on the coefficients of x (eq. 38)"),
                      0),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, lasso_weight));
    rows.add(in_range(option("holdout_fraction", OptionType::real,
                             "Fraction of the training data held out for early stopping, in "
                             "[0, 0.99]; 0 trains on everything"),
                      0, 0.99),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, holdout_fraction));
    rows.add(
        in_range(option("patience", OptionType::integer,
                        "Stop once the hold-out MSE has not improved for this many evaluations"),
                 1),
        &Options::press, CDENS_OPTION_FIELD(PressOptions, patience));
    rows.add(
        in_range(option("max_iter", OptionType::integer, "Objective evaluations per start at most"),
                 1),
        &Options::press, CDENS_OPTION_FIELD(PressOptions, max_iter));
    rows.add(
        in_range(option("tol", OptionType::real,
                        "L-BFGS (not Adam) stops when the objective changes by less than this, "
                        "relatively; 0 runs to the evaluation limit"),
                 0),
        &Options::press, CDENS_OPTION_FIELD(PressOptions, tol));
    rows.add(in_range(option("n_restarts", OptionType::integer,
                             "Random starts; the one with the smallest hold-out MSE is kept"),
                      1),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, n_restarts));
    rows.add(in_range(option("init_scale", OptionType::real,
                             "Standard deviation of the random starting coefficients"),
                      0.0, 1e6, true),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, init_scale));
    rows.add(option("standardize", OptionType::boolean,
                    "Standardise x first; off keeps x as given (constant columns allowed)"),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, standardize));
    rows.add(option("single_precision", OptionType::boolean,
                    "Multiply the design (fitting and held-out samples) in single precision "
                    "(half the memory traffic; large data sets)"),
             &Options::press, CDENS_OPTION_FIELD(PressOptions, single_precision));
    rows.add(seed_option(), &Options::press, CDENS_OPTION_FIELD(PressOptions, seed));
    rows.add_rule([](const Options& options) {
      if (options.max_states > 0 && options.press.n_states > 0) {
        throw InvalidArgument("give either n_states or max_states, not both");
      }
    });
    return rows;
  }();
  return table;
}

namespace registry_internal {
namespace {

/// The arrays of a PRESS fit that its model file does not keep (all over the training rows but
/// the states' means and sizes, which the command prints).
FitExtras press_extras(const PressFit& fit) {
  return {{"training_weights", Matrix(fit.training_weights.transpose())},
          {"fitted", Matrix(fit.fitted)},
          {"smoother_diagonal", Matrix(fit.smoother_diagonal)},
          {"training_entropy", Matrix(fit.entropies)},
          {"state_means", Matrix(fit.state_means)},
          {"state_sizes", Matrix(fit.state_sizes)}};
}

}  // namespace

MethodEntry press_method() {
  MethodEntry entry = conditional_method(
      "press", "predictive state smoothing (Goerg 2017)", "PRESSRegressor", press_option_table(),
      &fit_press_regression, {gate_kind<PressGate>("press")}, &press_extras);
  entry.family = MethodFamily::regression;
  entry.multi_output = false;
  // The criterion and its gradient are sums over the rows (docs/distributed.md).
  entry.distributed = true;
  entry.test_options = {{"n_states", std::int64_t{3}},
                        {"n_restarts", std::int64_t{1}},
                        {"max_iter", std::int64_t{100}}};
  entry.extras = {
      {"training_weights",
       {"n", "n_states"},
       "State weights W of the training rows (this process's under several), each row on the "
       "simplex"},
      {"fitted", {"n"}, "Fitted values y-hat = S y of the training rows (eq. 24)"},
      {"smoother_diagonal", {"n"}, "Diagonal s_ii of the smoother S (eq. 33)"},
      {"training_entropy", {"n"}, "Entropy eta_i of each training row's state, in bits (eq. 18)"},
      {"state_means", {"n_states"}, "The states' mean outputs y-bar_j, increasing (section 4)"},
      {"state_sizes", {"n_states"}, "The states' sizes sigma_j = sum_i W_ij (eq. 17)"}};
  entry.queries = {
      {{"state_weights", {"n", "n_states"}, "State weights w(x) of each row, on the simplex"},
       [](const ConditionalModel& model, const MatrixView& x) -> Matrix {
         return press_state_weights(model.mixture, x).transpose();
       }},
      {{"point_prediction", {"n"}, "The point prediction sum_j w_j(x) y-bar_j (eq. 20)"},
       [](const ConditionalModel& model, const MatrixView& x) -> Matrix {
         return press_predict(model.mixture, x);
       }},
      {{"state_entropy", {"n"}, "Entropy eta(x) of each row's state, in bits (eq. 18)"},
       [](const ConditionalModel& model, const MatrixView& x) -> Matrix {
         return press_state_entropies(press_state_weights(model.mixture, x));
       }}};
  entry.reported_options = {"criterion"};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens
