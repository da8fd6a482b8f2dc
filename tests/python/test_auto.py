"""AutoCDE (--method auto): the table against each candidate's K-fold scores computed here with
scikit-learn's own cross-validation loop and against the fits' own leave-one-out NLLs, the refit
of the chosen candidate, lists and strings of candidates, model files, the CLI and bad input."""

import json
import subprocess
import warnings

import numpy as np
import pytest

import cdens
from cdens import _core

from conftest import REPO


def engine_folds(n, folds, seed):
    """The folds of the engine's KFold(n, folds, Rng(seed)): LSCDE's draws with every pair a
    centre (so no permutation is drawn before the folds), as cdens._core.sampling_plan gives
    them."""
    _, fold_of = _core.sampling_plan(n, n_centers=n, folds=folds, seed=seed)
    return np.asarray(fold_of)


def test_table_is_each_candidates_cross_validated_nll_and_the_best_is_refitted(toy):
    x, y = toy
    auto = cdens.AutoCDE(candidates=["linear", "kcde:trend=linear:n_restarts=0"], cv=4,
                         combine="selection", validation="kfold", random_state=5,
                         n_jobs=1).fit(x, y)
    fold_of = engine_folds(len(y), 4, 5)
    candidates = [cdens.LinearGaussianCDE(),
                  cdens.KernelCDE(trend="linear", n_restarts=0, random_state=5, n_jobs=1)]
    expected = []
    for estimator in candidates:
        nll = np.empty(len(y))
        for k in range(4):
            test = fold_of == k
            fitted = estimator.fit(x[~test], y[~test])
            nll[test] = -fitted.log_pdf(x[test], y[test])
        expected.append(nll)
    table = auto.selection_
    assert table["candidate"] == ["linear", "kcde:trend=linear:n_restarts=0"]
    assert table["status"] == ["scored", "scored"]
    # auto starts KCDE's later folds where the first fold's search ended (tests/cpp/test_auto.cpp
    # checks that to 1e-12); these folds fitted from scratch end within the search's relative
    # tolerance of 1e-5 of it.
    np.testing.assert_allclose(table["mean_nll"][0], expected[0].mean(), rtol=1e-12)
    np.testing.assert_allclose(table["mean_nll"][1], expected[1].mean(), rtol=1e-5)
    paired = np.std(expected[0] - expected[1], ddof=1) / np.sqrt(len(y))
    chosen = int(np.argmin(table["mean_nll"]))
    assert auto.method_ == table["candidate"][chosen]
    assert table["difference"][chosen] == 0.0
    np.testing.assert_allclose(table["difference_standard_error"][1 - chosen], paired, rtol=1e-4)
    direct = candidates[chosen].fit(x, y)
    np.testing.assert_allclose(auto.log_pdf(x, y), direct.log_pdf(x, y), rtol=1e-12)


def test_stacking_pools_the_candidates_with_their_weights_and_the_pool_loads_as_auto(
        toy, tmp_path):
    x, y = toy
    # Kernels on y with the line's tails: the pool of the two beats either on the folds.
    candidates = ["kcde:n_restarts=0", "lscde", "linear"]
    auto = cdens.AutoCDE(candidates=candidates, cv=4, validation="kfold", random_state=3,
                         n_jobs=1).fit(x, y)
    weights = auto.selection_["weight"]
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert auto.weights_ == {c: w for c, w in zip(candidates, weights) if w > 0}
    assert auto.method_ == candidates[int(np.argmax(weights))]
    members = [cdens.KernelCDE(n_restarts=0, random_state=3, n_jobs=1),
               cdens.LSCDE(random_state=3, n_jobs=1), cdens.LinearGaussianCDE()]
    density = sum(w * np.exp(m.fit(x, y).log_pdf(x, y))
                  for w, m in zip(weights, members) if w > 0)
    np.testing.assert_allclose(auto.log_pdf(x, y), np.log(density), rtol=1e-10)
    assert (weights > 0).sum() == 2
    assert auto.model_.method == "auto"
    assert auto.selection_["pooled_mean_nll"] <= np.nanmin(auto.selection_["mean_nll"])
    auto.model_.save(str(tmp_path / "pool.json"))
    loaded = cdens.load(tmp_path / "pool.json")
    assert type(loaded) is cdens.AutoCDE
    np.testing.assert_array_equal(loaded.log_pdf(x, y), auto.log_pdf(x, y))
    np.testing.assert_array_equal(loaded.selection_["weight"], weights)


def test_a_candidate_that_scores_as_another_on_every_pair_enters_the_pool_once(toy):
    # Below exact_limit no subsample is drawn, so the fourth candidate is the first: the pool
    # keeps the first, says so, and is the pool without the copy, bit for bit (the stacking
    # weights would otherwise split their share between the two).
    x, y = toy
    candidates = ["kcde:n_restarts=0", "lscde", "linear"]
    copied = candidates + ["kcde:n_restarts=0:subsample_held_out=77"]
    options = dict(cv=4, validation="kfold", random_state=3, n_jobs=1)
    copy_note = (r"kcde:n_restarts=0:subsample_held_out=77 scores as kcde:n_restarts=0 on every "
                 r"held-out pair")
    with pytest.warns(cdens.CdensWarning, match=copy_note):
        pooled = cdens.AutoCDE(candidates=copied, **options).fit(x, y)
    assert pooled.selection_["weight"][3] == 0.0
    assert list(pooled.weights_) == [c for c in candidates if c in pooled.weights_]
    alone = cdens.AutoCDE(candidates=candidates, **options).fit(x, y)
    np.testing.assert_array_equal(pooled.selection_["weight"][:3], alone.selection_["weight"])
    np.testing.assert_array_equal(pooled.log_pdf(x, y), alone.log_pdf(x, y))


def test_a_warning_the_members_give_alike_is_given_once_naming_them():
    rng = np.random.default_rng(1)
    x = np.column_stack([rng.normal(size=300), rng.integers(0, 5, 300).astype(float)])
    y = x[:, 0] + 0.3 * x[:, 1] + rng.normal(size=300) * (0.3 + 0.2 * np.abs(x[:, 0]))
    candidates = ["kcde:n_restarts=0", "kcde:n_restarts=0:trend=linear", "lscde"]
    with pytest.warns(cdens.CdensWarning) as records:
        auto = cdens.AutoCDE(candidates=candidates, cv=3, validation="kfold", random_state=0,
                             n_jobs=1).fit(x, y)
    assert list(auto.weights_) == candidates[:2]
    looks_discrete = [str(r.message) for r in records if "looks discrete" in str(r.message)]
    assert len(looks_discrete) == 1
    assert looks_discrete[0].startswith("kcde:n_restarts=0, kcde:n_restarts=0:trend=linear: "
                                        "column x1 looks discrete")


def test_a_member_fitted_on_the_copies_joins_the_pool_with_its_own_standardisation(faithful):
    # Faithful's 16 repeated rows are merged into weights; the Gaussian-process candidates take
    # none and are fitted on the copies, whose standardisation is not the weighted one of the
    # kernels: the pool keeps each member's own (issue 52), so kcde:trend=gp stays in it, without
    # the warning that once left it out; with it the stacked pool scores below every candidate
    # alone (tests/cpp/test_stacking.cpp checks that such a pool is its members' weighted sum).
    x, y = faithful
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        auto = cdens.AutoCDE(random_state=0, n_jobs=1).fit(x, y)
    assert not [r for r in records if "standardises x or y otherwise" in str(r.message)]
    assert set(auto.weights_) == {"kcde", "kcde:trend=gp"}
    assert auto.selection_["pooled_mean_nll"] < np.min(auto.selection_["mean_nll"])
    assert np.isfinite(auto.log_pdf(x, y)).all()


def test_leave_one_out_scores_are_each_fits_own_and_folds_for_the_others(toy):
    x, y = toy
    # Leave-one-out validation: KCDE and the line are scored by their fits' own leave-one-out
    # NLL (its mean is the fit's loo_nll_), LSCDE, which has none, by 4-fold refits.
    auto = cdens.AutoCDE(candidates=["kcde:n_restarts=0", "linear", "lscde"], cv=4,
                         validation="loo", random_state=3, n_jobs=1).fit(x, y)
    table = auto.selection_
    assert table["validation"] == ["loo", "loo", "kfold"]
    assert table["scored_pairs"] == len(y)
    kcde = cdens.KernelCDE(n_restarts=0, random_state=3, n_jobs=1).fit(x, y)
    linear = cdens.LinearGaussianCDE().fit(x, y)
    fold_of = engine_folds(len(y), 4, 3)
    lscde_nll = np.empty(len(y))
    for k in range(4):
        test = fold_of == k
        fitted = cdens.LSCDE(random_state=3, n_jobs=1).fit(x[~test], y[~test])
        lscde_nll[test] = -fitted.log_pdf(x[test], y[test])
    np.testing.assert_allclose(table["mean_nll"], [kcde.loo_nll_, linear.loo_nll_,
                                                   lscde_nll.mean()], rtol=1e-12)


def test_a_string_and_a_list_of_candidates_are_the_same(faithful):
    x, y = faithful
    as_text = cdens.AutoCDE(candidates="linear,kcde", random_state=1).fit(x, y)
    as_list = cdens.AutoCDE(candidates=("linear", "kcde"), random_state=1).fit(x, y)
    np.testing.assert_array_equal(as_text.selection_["mean_nll"], as_list.selection_["mean_nll"])
    # Old Faithful is bimodal given short waits: the kernel estimate beats the line.
    assert as_text.method_ == "kcde"
    assert as_text.selection_["difference"][0] > 5 * as_text.selection_[
        "difference_standard_error"][0]


def test_the_saved_model_is_the_chosen_methods(faithful, tmp_path):
    x, y = faithful
    auto = cdens.AutoCDE(candidates="linear,kcde", combine="selection",
                         random_state=1).fit(x, y)
    auto.model_.save(str(tmp_path / "auto.json"))
    loaded = cdens.load(tmp_path / "auto.json")
    assert type(loaded) is cdens.KernelCDE
    assert loaded.model_.method_selection["candidates"][1]["candidate"] == "kcde"
    np.testing.assert_array_equal(loaded.log_pdf(x, y), auto.log_pdf(x, y))


def test_cli_auto_is_the_python_fit(faithful, cli, tmp_path):
    x, y = faithful
    model_path = tmp_path / "model.json"
    result = subprocess.run(
        [cli, "fit", "data/faithful.csv", "--x", "waiting", "--y", "eruptions", "--method",
         "auto", "--candidates", "linear,kcde:trend=linear", "--seed", "3", "--out",
         str(model_path)], check=True, capture_output=True, text=True, cwd=str(REPO))
    # 272 pairs: the default validation scores by folds.
    assert "method_selection: 5-fold" in result.stdout
    written = json.loads(model_path.read_text())
    auto = cdens.AutoCDE(candidates="linear,kcde:trend=linear", random_state=3).fit(x, y)
    rows = written["fit"]["method_selection"]["candidates"]
    np.testing.assert_allclose([row["mean_nll"] for row in rows], auto.selection_["mean_nll"],
                               rtol=1e-12)


@pytest.mark.parametrize("candidates, fragment", [
    ("linear,nonesuch", "nonesuch"),
    ("kcde:colour=red", "has no option 'colour'"),
    ("auto", "cannot choose itself"),
    (["linear", 3], "must hold strings"),
    ("", "candidates"),
])
def test_bad_candidates_are_refused_naming_the_problem(toy, candidates, fragment):
    x, y = toy
    with pytest.raises(ValueError, match=fragment):
        cdens.AutoCDE(candidates=candidates).fit(x, y)


def test_a_discrete_output_is_scored_by_masses_among_the_candidates_that_model_them():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(150, 2))
    y = np.clip(np.round(2 + x[:, 0] + 0.5 * rng.normal(size=150)), 0, 4)
    auto = cdens.AutoCDE(ordered=[2], random_state=0).fit(x, y)
    status = dict(zip(auto.selection_["candidate"], auto.selection_["status"]))
    assert status["linear"].startswith("not run") and status["lscde"].startswith("not run")
    # A trend moves a continuous y: the candidates with one are not run on a discrete y.
    assert status["kcde:trend=linear"].startswith("not run: a trend")
    assert status["kcde:trend=gp"].startswith("not run: a trend")
    assert status["kcde"] == "scored" and auto.method_ == "kcde"
    masses = auto.pdf_grid(x[:5], np.arange(5.0))
    np.testing.assert_allclose(masses.sum(axis=1), 1.0, rtol=1e-12)
