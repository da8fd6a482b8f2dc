// LSCDE's options and registry entry.

#include "conditional/lscde_gate.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<LscdeOptions>& lscde_option_table() {
  using namespace registry_internal;
  static const OptionTable<LscdeOptions> table = [] {
    OptionTable<LscdeOptions> rows;
    rows.add(sigma_grid(), CDENS_OPTION_FIELD(LscdeOptions, sigma));
    rows.add(lambda_grid(), CDENS_OPTION_FIELD(LscdeOptions, regularization));
    rows.add(n_centers_option(), CDENS_OPTION_FIELD(LscdeOptions, n_centers));
    rows.add(folds_option(), CDENS_OPTION_FIELD(LscdeOptions, folds));
    rows.add_choice(option("cv_loss", OptionType::choice,
                           "Cross-validation loss: kl (held-out negative log-likelihood) or sq "
                           "(the paper's squared loss)"),
                    CDENS_OPTION_FIELD(LscdeOptions, cv_loss), {CvLoss::kl, CvLoss::sq},
                    [](CvLoss loss) { return to_string(loss); });
    rows.add(seed_option(), CDENS_OPTION_FIELD(LscdeOptions, seed));
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry lscde_method() {
  MethodEntry entry;
  entry.name = "lscde";
  entry.summary = "least-squares conditional density estimation (Sugiyama et al. 2010)";
  entry.python_class = "LSCDE";
  entry.options = lscde_option_table().describe();
  entry.takes_unlabeled_inputs = true;
  entry.distributed = true;
  entry.sample_weights = true;
  entry.weights_refused = [](const OptionValues&, bool unlabeled_inputs) {
    return unlabeled_inputs ? std::string("unlabelled inputs take no sample weights")
                            : std::string();
  };
  entry.test_options = {{"sigma", std::vector<double>{0.3, 1.0}},
                        {"regularization", std::vector<double>{0.1}},
                        {"n_centers", std::int64_t{30}},
                        {"folds", std::int64_t{2}}};
  entry.fit_conditional = [](const MatrixView& x, const MatrixView& y,
                             const MatrixView& unlabeled_x, const OptionValues& values,
                             const FitContext& context) {
    return MethodFit<ConditionalModel>{
        unnamed_model(fit_lscde(x, y, unlabeled_x, lscde_option_table().build(values), context)),
        {}};
  };
  entry.gates = {gate_kind<LscdeGate>("lscde")};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens
