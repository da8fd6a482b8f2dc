// Identical rows (docs/methods/duplicates.md): how fit_method groups them; the weighted
// fixed-kernel density estimators that merging needs (RSDE against the rows repeated, SKD's and
// GSKD's OFR-LOO against explicit weighted leave-one-out refits, scaling every weight); and, for
// every method whose criterion is leave-one-out or cross-validated, with its own search rather
// than the conformance suite's short grids: a sample written twice or five times gives the
// sample's model, a random fifth written twice the sample's model with weight 2 on that fifth
// and a held-out NLL near the sample's, while `duplicates = keep` fits the rows as given and
// collapses; auto's candidates without weights fitted on copies held out together; several
// processes keep the rows. The same properties with the cheap options of every registered method
// are the conformance suite's (tests/cpp/test_conformance.cpp).

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cdens/cdens.hpp"
#include "core/duplicate_rows.hpp"
#include "core/samples.hpp"
#include "core/sampling_plan.hpp"
#include "density/fixed_kernels.hpp"
#include "density/gskd_construction.hpp"
#include "support.hpp"

namespace cdens {
namespace {

// -- the grouping ---------------------------------------------------------------------------------

TEST(DuplicateRows, GroupsRowsEqualInEveryColumnInTheOrderOfTheirFirstRow) {
  // Rows 0, 3 and 5 are one row; 1 and 4 another; 2 equals 0 in x but not in y; −0 is 0.
  Matrix x(2, 6);
  x << 1.0, 2.0, 1.0, 1.0, 2.0, 1.0,  //
      -0.0, 5.0, 0.0, 0.0, 5.0, 0.0;
  Matrix y(1, 6);
  y << 7.0, 8.0, 9.0, 7.0, 8.0, 7.0;
  const RowGroups groups = group_identical_rows(x, y);
  EXPECT_EQ(groups.first_rows, (std::vector<Index>{0, 1, 2}));
  EXPECT_EQ(groups.group_of, (std::vector<Index>{0, 1, 2, 0, 1, 0}));
  EXPECT_EQ(groups.repeated_rows(), 3);
  Vector weights(6);
  weights << 0.5, 1.0, 2.0, 0.25, 3.0, 1.0;
  EXPECT_EQ(group_weights(groups, weights), Vector((Vector(3) << 1.75, 4.0, 2.0).finished()));
  EXPECT_EQ(group_weights(groups, Vector()), Vector((Vector(3) << 3.0, 2.0, 1.0).finished()));
  // A density's rows have no y.
  EXPECT_EQ(group_identical_rows(x, Matrix(0, 6)).first_rows, (std::vector<Index>{0, 1}));
  // Rows with NaN still sort (a fit refuses them after): equal to each other, not to numbers.
  x(0, 1) = x(0, 4) = std::nan("");
  EXPECT_EQ(group_identical_rows(x, y).first_rows, (std::vector<Index>{0, 1, 2}));
}

TEST(DuplicateRows, TableWithoutDuplicatesIsOneGroupPerRow) {
  Rng rng(1);
  const Matrix x = test::normal_matrix(3, 500, rng);
  const RowGroups groups = group_identical_rows(x, Matrix(0, 500));
  EXPECT_EQ(groups.repeated_rows(), 0);
  for (Index i = 0; i < 500; ++i) EXPECT_EQ(groups.first_rows[static_cast<std::size_t>(i)], i);
}

// -- the weighted fixed-kernel estimators -----------------------------------------------------

/// (1/N) Σ_k c̃_k (t_k − φ_k β_{−k})², c̃ = c N / Σc, β_{−k} the weighted least-squares fit
/// Σ_{j≠k} c_j (t_j − φ_j β)² without sample k, refitted for every k.
double explicit_weighted_loo_mse(const Matrix& phi, const Vector& target, const Vector& weights) {
  const Index n = phi.rows();
  const Vector scaled = weights * (static_cast<double>(n) / weights.sum());
  double total = 0.0;
  for (Index k = 0; k < n; ++k) {
    Matrix gram = Matrix::Zero(phi.cols(), phi.cols());
    Vector moment = Vector::Zero(phi.cols());
    for (Index j = 0; j < n; ++j) {
      if (j == k) continue;
      gram += weights(j) * phi.row(j).transpose() * phi.row(j);
      moment += weights(j) * target(j) * phi.row(j).transpose();
    }
    const Vector beta = gram.ldlt().solve(moment);
    const double error = target(k) - phi.row(k).dot(beta);
    total += scaled(k) * error * error;
  }
  return total / static_cast<double>(n);
}

TEST(WeightedFixedKernels, ParzenTargetIsTheRowsRepeated) {
  Rng rng(2);
  const Matrix z = test::normal_matrix(2, 50, rng);
  const Vector weights = test::integer_weights(50);
  const Vector at_rows = parzen_at_samples(test::repeated_columns(z, weights), 0.4);
  const Vector weighted = parzen_at_samples(z, 0.4, 1, weights);
  Index position = 0;  // of row i's first copy among the repeated rows
  for (Index i = 0; i < 50; ++i) {
    EXPECT_NEAR(weighted(i), at_rows(position), 1e-12 * at_rows(position));
    position += static_cast<Index>(weights(i));
  }
  EXPECT_EQ(parzen_at_samples(z, 0.4, 1, Vector::Constant(50, 3.0)), parzen_at_samples(z, 0.4));
}

TEST(WeightedFixedKernels, RsdeWithIntegerWeightsIsRsdeOnTheRowsRepeated) {
  // The ISE of eq. (13) depends on the weights of a row's copies through their sum only, and is
  // strictly convex in the weights of distinct rows: both fits reach one density, to MNQP's
  // tolerance (pruning off, which would cut the split weights of the copies differently; in the
  // data's units, since the weighted standardisation's spread counts Kish's n_e).
  // Few rows, far apart against the width, so that G is well conditioned and MNQP gets close to
  // the one minimum within its iterations.
  Rng rng(3);
  const Matrix x = 3.0 * test::normal_matrix(1, 15, rng);
  const Vector weights = test::integer_weights(15);
  RsdeOptions options;
  options.bandwidth = {0.3};
  options.mnqp.prune_threshold = 0.0;
  options.mnqp.tolerance = 1e-13;
  options.mnqp.max_iterations = 200000;
  options.standardize = false;
  const DensityFit weighted = fit_rsde(x, options, test::weighted_context(weights));
  const DensityFit repeated = fit_rsde(test::repeated_columns(x, weights), options);
  EXPECT_NEAR(weighted.report.statistics.at("ise_objective"),
              repeated.report.statistics.at("ise_objective"), 1e-12);
  const Matrix query = Matrix(Eigen::RowVectorXd::LinSpaced(41, -3.0, 3.0));
  EXPECT_LT((weighted.model.log_pdf(query) - repeated.model.log_pdf(query)).cwiseAbs().maxCoeff(),
            1e-6);
}

TEST(WeightedFixedKernels, SkdLeaveOneOutLeavesASampleOutWithAllItsWeight) {
  // With λ = 0 OFR-LOO is least squares; the selected kernels' J against explicit weighted
  // refits.
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    Rng rng(seed);
    const Matrix z = test::normal_matrix(1, 30, rng);
    const Vector weights = test::integer_weights(30);
    const Vector target = parzen_at_samples(z, 0.3, 1, weights);
    SkdOptions options;
    options.regularization_passes = 1;
    options.initial_regularization = 0.0;
    const SkdSelection selection = select_skd_kernels(z, target, 0.5, options, weights);
    ASSERT_GE(selection.selected.size(), 2u);
    const Matrix phi = isotropic_kernel_columns(z, gather_samples(z, selection.selected), 0.5);
    const double explicit_mse = explicit_weighted_loo_mse(phi, target, weights);
    EXPECT_NEAR(selection.loo_mse, explicit_mse, 1e-8 * explicit_mse) << "seed " << seed;
  }
}

TEST(WeightedFixedKernels, GskdLeaveOneOutLeavesASampleOutWithAllItsWeight) {
  Rng rng(6);
  const Matrix z = test::normal_matrix(2, 40, rng);
  const Vector weights = test::integer_weights(40);
  const Vector target = parzen_at_samples(z, 0.4, 1, weights);
  RwbsOptions rwbs;
  rwbs.population = 6;
  rwbs.generations = 3;
  rwbs.iterations = 30;
  GskdConstruction construction(z, target, gskd_box(z, 0.4, 1.0, 1.0, weights), rwbs, 0.0, 1,
                                weights);
  for (int stage = 0; stage < 4; ++stage) construction.add_stage();
  ASSERT_GE(construction.kernels().size(), 2u);
  Matrix phi(40, static_cast<Index>(construction.kernels().size()));
  for (Index l = 0; l < phi.cols(); ++l) {
    gskd_kernel_column(z, construction.kernels()[static_cast<std::size_t>(l)], phi.col(l));
  }
  const double explicit_mse = explicit_weighted_loo_mse(phi, target, weights);
  EXPECT_NEAR(construction.loo_mse(), explicit_mse, 1e-8 * explicit_mse);
  EXPECT_EQ(construction.target(), target);
}

TEST(WeightedFixedKernels, ScalingEveryWeightChangesNothing) {
  Rng rng(7);
  const Matrix x = test::normal_matrix(2, 50, rng);
  const Vector weights = test::integer_weights(50);
  SkdOptions skd;
  skd.bandwidth = {0.4, 0.7};
  skd.folds = 2;
  GskdOptions gskd;
  gskd.population = 4;
  gskd.generations = 2;
  gskd.iterations = 20;
  gskd.variance_upper_grid = {1.0};
  gskd.folds = 2;
  RsdeOptions rsde;
  rsde.bandwidth = {0.4, 0.7};
  rsde.folds = 2;
  const std::vector<std::pair<std::string, std::function<DensityFit(const FitContext&)>>> fits = {
      {"rsde", [&](const FitContext& context) { return fit_rsde(x, rsde, context); }},
      {"skd", [&](const FitContext& context) { return fit_skd(x, skd, context); }},
      {"gskd", [&](const FitContext& context) { return fit_gskd(x, gskd, context); }}};
  for (const auto& [name, fit] : fits) {
    SCOPED_TRACE(name);
    const Vector plain = fit({}).model.log_pdf(x);
    const Vector weighted = fit(test::weighted_context(weights)).model.log_pdf(x);
    const Vector scaled = fit(test::weighted_context(0.013 * weights)).model.log_pdf(x);
    EXPECT_LT((weighted - scaled).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_GT((weighted - plain).cwiseAbs().maxCoeff(), 1e-6) << "the weights changed nothing";
  }
}

// -- the methods whose criterion is leave-one-out or cross-validated, with their own search ----

constexpr Index kRows = 100;

/// A method and options that keep its search (a shorter grid or search where the default would
/// take seconds under the sanitizers).
struct SearchingFit {
  std::string method;
  OptionValues options;
};

std::string name_of(const testing::TestParamInfo<SearchingFit>& info) { return info.param.method; }

/// The training pairs (x, y: 1 × kRows) and held-out pairs of the same law.
test::PairSample training_pairs() { return test::sine_sample(kRows, 1, 11); }
test::PairSample held_out_pairs() { return test::sine_sample(2000, 1, 12); }

/// The rows of a density fit: the pairs stacked (2 × n).
Matrix stacked(const test::PairSample& pairs) {
  Matrix rows(2, pairs.x.cols());
  rows << pairs.x, pairs.y;
  return rows;
}

/// The model of `fit` on the rows `columns` of the training pairs, its mean held-out NLL and its
/// report: a conditional method's p(y|x), a density method's p(x, y).
struct Fitted {
  Vector held_out_log_pdf;
  FitReport report;
};

Fitted fit_rows(const SearchingFit& fit, const std::vector<Index>& columns,
                const FitContext& context = {}, OptionValues extra = {}) {
  const test::PairSample train = training_pairs();
  const test::PairSample test = held_out_pairs();
  const MethodEntry& method = find_method(fit.method);
  OptionValues options = fit.options;
  options.insert(extra.begin(), extra.end());
  if (method.family == MethodFamily::density) {
    const DensityModel model =
        fit_method(method, stacked(train)(Eigen::all, columns), options, context);
    return {model.mixture.log_pdf(stacked(test)), model.report};
  }
  const ConditionalModel model =
      fit_method(method, train.x(Eigen::all, columns), train.y(Eigen::all, columns), Matrix(1, 0),
                 options, context);
  return {model.mixture.log_pdf(test.x, test.y), model.report};
}

std::vector<Index> every_row() {
  std::vector<Index> rows(static_cast<std::size_t>(kRows));
  for (Index i = 0; i < kRows; ++i) rows[static_cast<std::size_t>(i)] = i;
  return rows;
}

class SearchingFits : public testing::TestWithParam<SearchingFit> {};

INSTANTIATE_TEST_SUITE_P(
    Methods, SearchingFits,
    testing::Values(
        SearchingFit{"kcde", {}}, SearchingFit{"lscde", {}},
        SearchingFit{"auto", {{"candidates", std::string("linear,lscde,kcde")}}},
        SearchingFit{"parzen", {}},
        SearchingFit{"rsde", {{"bandwidth", log_spaced(0.1, 2.0, 6)}, {"folds", std::int64_t{3}}}},
        SearchingFit{"skd", {{"bandwidth", log_spaced(0.1, 2.0, 6)}, {"folds", std::int64_t{3}}}},
        SearchingFit{"gskd",
                     {{"population", std::int64_t{6}},
                      {"generations", std::int64_t{3}},
                      {"iterations", std::int64_t{40}},
                      {"folds", std::int64_t{3}}}}),
    name_of);

TEST_P(SearchingFits, TableWrittenTwiceOrFiveTimesIsTheTable) {
  const Fitted once = fit_rows(GetParam(), every_row());
  for (const Index times : {2, 5}) {
    // One copy after the other (a file appended to itself), and each row `times` times in turn.
    std::vector<Index> appended;
    std::vector<Index> in_turn;
    for (Index copy = 0; copy < times; ++copy) {
      for (Index i = 0; i < kRows; ++i) appended.push_back(i);
    }
    for (Index i = 0; i < kRows; ++i) in_turn.insert(in_turn.end(), times, i);
    for (const auto* rows : {&appended, &in_turn}) {
      const Fitted repeated = fit_rows(GetParam(), *rows);
      EXPECT_EQ(repeated.report.hyperparameters, once.report.hyperparameters) << times;
      EXPECT_EQ(repeated.held_out_log_pdf, once.held_out_log_pdf) << times;
    }
  }
}

TEST_P(SearchingFits, RandomFifthWrittenTwiceIsWeightTwoOnItAndDoesNotCollapse) {
  // A random fifth of the rows written once more, the copies after the table in random order.
  Rng rng(13);
  std::vector<Index> fifth = choose_centers(kRows, kRows / 5, rng);
  std::vector<Index> rows = every_row();
  const std::vector<Index> order = rng.permutation(static_cast<Index>(fifth.size()));
  for (const Index k : order) rows.push_back(fifth[static_cast<std::size_t>(k)]);
  Vector weights = Vector::Ones(kRows);
  for (const Index i : fifth) weights(i) = 2.0;
  const Fitted merged = fit_rows(GetParam(), rows);
  const Fitted weighted = fit_rows(GetParam(), every_row(), test::weighted_context(weights));
  EXPECT_EQ(merged.held_out_log_pdf, weighted.held_out_log_pdf);
  EXPECT_EQ(merged.report.hyperparameters, weighted.report.hyperparameters);
  EXPECT_EQ(merged.report.statistics.at("duplicate_rows"), kRows / 5);
  // Not collapsed: the weight of a fifth of 100 rows moves the mean held-out NLL (over 2,000
  // pairs) by at most 0.10 over these methods (GSKD; by 0.03 or less for the others), less than
  // the seed alone moves GSKD's and SKD's on such a sample (about 1 nat over six seeds); the
  // table written twice and kept costs KCDE and Parzen tens of nats, SKD 2.
  const double once = -fit_rows(GetParam(), every_row()).held_out_log_pdf.mean();
  EXPECT_NEAR(-merged.held_out_log_pdf.mean(), once, 0.25);
}

/// The hyper-parameter `name` of a report.
double chosen(const FitReport& report, const std::string& name) {
  return report.hyperparameters.at(name);
}

TEST(DuplicateRowsKept, ReproduceTheCollapseTheyCause) {
  // duplicates = keep on the table written twice: KCDE's bandwidths and Parzen's width end on
  // the lower bounds of their searches (10⁻³ and 10⁻² standardised units), SKD's Parzen target
  // with them, and the held-out NLL is far above the table's; merged, the table's.
  std::vector<Index> twice = every_row();
  for (Index i = 0; i < kRows; ++i) twice.push_back(i);
  const OptionValues keep{{"duplicates", std::string("keep")}};
  const Fitted kcde = fit_rows({"kcde", {}}, twice, {}, keep);
  EXPECT_NEAR(chosen(kcde.report, "bandwidth_x0"), 1e-3, 1e-12);
  EXPECT_NEAR(chosen(kcde.report, "bandwidth_y0"), 1e-3, 1e-12);
  const double kcde_once = -fit_rows({"kcde", {}}, every_row()).held_out_log_pdf.mean();
  EXPECT_GT(-kcde.held_out_log_pdf.mean(), kcde_once + 10.0);
  const Fitted parzen = fit_rows({"parzen", {}}, twice, {}, keep);
  EXPECT_NEAR(chosen(parzen.report, "bandwidth"), ParzenOptions{}.search_lower, 1e-12);
  const Fitted skd =
      fit_rows({"skd", {{"bandwidth", log_spaced(0.1, 2.0, 6)}, {"folds", std::int64_t{3}}}}, twice,
               {}, keep);
  EXPECT_NEAR(chosen(skd.report, "target_bandwidth"), ParzenOptions{}.search_lower, 1e-12);
  // auto chooses among collapsed candidates.
  const SearchingFit automatic{"auto", {{"candidates", std::string("linear,kcde")}}};
  const double auto_once = -fit_rows(automatic, every_row()).held_out_log_pdf.mean();
  EXPECT_GT(-fit_rows(automatic, twice, {}, keep).held_out_log_pdf.mean(), auto_once + 0.5);
  EXPECT_EQ(-fit_rows(automatic, twice).held_out_log_pdf.mean(), auto_once);
}

TEST(DuplicateRowsInAuto, ACandidateWithoutWeightsIsFittedOnCopiesHeldOutTogether) {
  // Every fifth row written twice: auto fits the merged rows with counts 1 and 2, and the
  // Gaussian-process trend, which takes no weights, on every merged row repeated its count
  // times; its mean NLL is the one of explicit fold fits on those copies over auto's folds of
  // the merged rows, each held-out row counted by its copies.
  const test::PairSample train = training_pairs();
  std::vector<Index> rows = every_row();
  Vector counts = Vector::Ones(kRows);
  for (Index i = 0; i < kRows; i += 5) {
    rows.push_back(i);
    counts(i) = 2.0;
  }
  const OptionValues options{{"candidates", std::string("linear,kcde:trend=gp")},
                             {"folds", std::int64_t{3}},
                             {"combine", std::string("selection")}};
  const ConditionalModel model = fit_method(find_method("auto"), train.x(Eigen::all, rows),
                                            train.y(Eigen::all, rows), Matrix(1, 0), options);
  const MethodSelection& table = *model.report.method_selection;
  ASSERT_EQ(table.candidates[1].status, "scored");
  EXPECT_TRUE(std::any_of(model.report.warnings.begin(), model.report.warnings.end(),
                          [](const std::string& warning) {
                            return warning.find(
                                       "(kcde:trend=gp) were fitted on the merged "
                                       "duplicate rows with their copies") != std::string::npos;
                          }));
  const KFold folds = draw_folds(kRows, 3, 0);
  const OptionValues gp{{"trend", std::string("gp")},
                        {"seed", std::uint64_t{0}},
                        {"duplicates", std::string("keep")}};
  double total = 0.0;
  for (int k = 0; k < 3; ++k) {
    std::vector<Index> copies;
    for (const Index i : folds.train(k))
      copies.insert(copies.end(), static_cast<std::size_t>(counts(i)), i);
    const ConditionalModel fold = fit_method(find_method("kcde"), train.x(Eigen::all, copies),
                                             train.y(Eigen::all, copies), Matrix(1, 0), gp);
    const std::vector<Index>& test = folds.test(k);
    const Vector log_pdf =
        fold.mixture.log_pdf(train.x(Eigen::all, test), train.y(Eigen::all, test));
    for (std::size_t j = 0; j < test.size(); ++j)
      total -= counts(test[j]) * log_pdf(static_cast<Index>(j));
  }
  const double mean = total / counts.sum();
  EXPECT_NEAR(table.candidates[1].mean_nll, mean, 1e-10 * std::abs(mean));
}

TEST(DuplicateRowsOnRanks, AreCountedAndKept) {
  // On several processes each rank holds its own rows: they are fitted as given, and the report
  // counts the repeats within each rank's rows (a fake communicator of two ranks whose sums are
  // this process's).
  const test::TwoRankCommunicator two_ranks;
  std::vector<Index> twice = every_row();
  for (Index i = 0; i < kRows; ++i) twice.push_back(i);
  const OptionValues fixed{{"bandwidth", std::vector<double>{0.3, 0.4}}};
  const Fitted merged = fit_rows({"kcde", fixed}, twice, FitContext{two_ranks});
  const Fitted kept = fit_rows({"kcde", fixed}, twice, {}, {{"duplicates", std::string("keep")}});
  EXPECT_LT((merged.held_out_log_pdf - kept.held_out_log_pdf).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_EQ(merged.report.statistics.at("duplicate_rows"), kRows);
  ASSERT_FALSE(merged.report.warnings.empty());
  EXPECT_NE(merged.report.warnings.front().find("merged on one process only"), std::string::npos);
}

}  // namespace
}  // namespace cdens
