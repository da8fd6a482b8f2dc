"""The scikit-learn estimator contract: check_estimator, params, clone, pickling, search."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import cdens


# No check is skipped. The estimators carry no classifier/regressor tag, so scikit-learn runs its
# generic checks (parameters, cloning, pickling, dtypes, NaN/inf refusal, n_features_in_,
# idempotent fits, ...), and every one of them applies to a conditional density estimator. The
# regressor checks (check_regressors_train and the like) are not run: they judge predict() as a
# point forecast against R^2 thresholds, while here score() is the log-likelihood and predict()
# only one of the queries of the fitted distribution. The sample-weight checks fit 16 rows that
# are 4 distinct ones written four times, which are merged into 4 (docs/methods/duplicates.md):
# fewer than 5 folds or the d_x + 3 pairs of a line need, so the fits that need them keep the
# rows as given (duplicates="keep").
@parametrize_with_checks([cdens.LSCDE(random_state=0, duplicates="keep"),
                          cdens.EpsilonKDE(random_state=0),
                          cdens.NWCDE(random_state=0), cdens.RKDE(random_state=0),
                          cdens.KernelCDE(random_state=0),
                          cdens.KernelCDE(trend="linear", random_state=0, duplicates="keep"),
                          cdens.LinearGaussianCDE(duplicates="keep"),
                          cdens.AutoCDE(candidates="linear,kcde:n_restarts=0", random_state=0,
                                        duplicates="keep"),
                          # With the default final model the d_z cross-validation picks d_z = d_x
                          # (W = I, no update of W) on check_transformer_n_iter's class labels,
                          # whose n_iter_ must be at least 1: d_z is fixed there, and the paper
                          # mode runs the d_z cross-validation.
                          cdens.LSCE(n_components=1, n_restarts=2, random_state=0),
                          cdens.LSCE(final_model="paper", n_restarts=2, random_state=0),
                          cdens.LSMI(n_components=1, estimator="ekde", n_restarts=2,
                                     random_state=0)])
def test_scikit_learn_checks(estimator, check):
    check(estimator)


# PRESSRegressor is a regressor (score = R^2), so the regressor checks run as well. Small
# optimiser settings keep the many fits of the checks quick.
@parametrize_with_checks([cdens.PRESSRegressor(n_restarts=1, patience=20, max_iter=200,
                                               random_state=0)])
def test_scikit_learn_checks_press(estimator, check):
    check(estimator)


def test_init_stores_parameters_and_set_params_round_trips():
    estimator = cdens.LSCDE(sigma=[0.1, 0.3], regularization=0.5, n_centers=50, cv=4,
                            cv_loss="sq", random_state=2, n_jobs=1)
    params = estimator.get_params()
    assert params == {"sigma": [0.1, 0.3], "regularization": 0.5, "n_centers": 50, "cv": 4,
                      "cv_loss": "sq", "random_state": 2, "y_lower": None, "y_upper": None,
                      "n_jobs": 1, "duplicates": "merge", "verbose": 0}
    assert cdens.LSCDE().set_params(**params).get_params() == params
    assert clone(estimator).get_params() == params


def test_fitted_attributes(toy):
    x, y = toy
    model = cdens.LSCDE(random_state=0).fit(x, y)
    assert model.n_features_in_ == 1 and model.n_outputs_ == 1
    assert model.sigma_ in model.cv_results_["param_sigma"]
    best = int(np.argmin(model.cv_results_["rank_test_score"]))
    assert model.cv_results_["params"][best] == {"sigma": model.sigma_,
                                                 "regularization": model.regularization_}
    fixed = cdens.LSCDE(sigma=0.4, regularization=0.2, random_state=0).fit(x, y)
    assert fixed.cv_results_ is None
    assert (fixed.sigma_, fixed.regularization_) == (0.4, 0.2)


ESTIMATORS = [cdens.LSCDE, cdens.EpsilonKDE, cdens.NWCDE, cdens.RKDE, cdens.KernelCDE]


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_pickle_and_json_round_trips_give_identical_predictions(estimator_class, toy, tmp_path):
    x, y = toy
    model = estimator_class(random_state=1).fit(x, y)
    grid = np.linspace(-3, 3, 50)
    restored = [pickle.loads(pickle.dumps(model))]
    model.save(tmp_path / "model.json")
    restored.append(cdens.load(tmp_path / "model.json"))
    for other in restored:
        np.testing.assert_array_equal(other.log_pdf(x, y), model.log_pdf(x, y))
        np.testing.assert_array_equal(other.pdf_grid(x[:5], grid), model.pdf_grid(x[:5], grid))
        np.testing.assert_array_equal(other.sample(x[:5], 3, random_state=2),
                                      model.sample(x[:5], 3, random_state=2))
        assert other.model_.hyperparameters == model.model_.hyperparameters


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_loaded_model_refits_to_the_same_model(estimator_class, toy, tmp_path):
    # cdens.load sets the parameters to the chosen values: a refit with the same seed (which
    # draws LSCDE's and NW-CDE's centres) needs no search and gives back the saved model.
    x, y = toy
    model = estimator_class(random_state=3).fit(x, y)
    model.save(tmp_path / "model.json")
    refit = clone(cdens.load(tmp_path / "model.json")).set_params(random_state=3).fit(x, y)
    assert refit.cv_results_ is None
    np.testing.assert_array_equal(refit.log_pdf(x, y), model.log_pdf(x, y))


def test_grid_search_over_sigma_agrees_with_the_built_in_cross_validation(faithful):
    x, y = faithful
    sigmas = [0.03, 0.1, 0.3, 1.0, 3.0]
    built_in = cdens.LSCDE(sigma=sigmas, regularization=0.1, random_state=0).fit(x, y)
    search = GridSearchCV(cdens.LSCDE(regularization=0.1, random_state=0), {"sigma": sigmas},
                          cv=KFold(5, shuffle=True, random_state=0)).fit(x, y)
    assert search.best_params_["sigma"] == built_in.sigma_
    # Folds and centres differ between the two, so the scores agree within their spread.
    built_in_scores = built_in.cv_results_["mean_test_score"]
    spread = 3 * (built_in.cv_results_["std_error_test_score"]
                  + search.cv_results_["std_test_score"] / np.sqrt(5))
    np.testing.assert_array_less(np.abs(search.cv_results_["mean_test_score"] - built_in_scores),
                                 spread)


def test_cross_val_score_uses_the_log_likelihood(faithful):
    x, y = faithful
    folds = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0), x, y,
                             cv=folds)
    # Each score is the fit on the other folds, scored by the held-out mean log-likelihood.
    expected = []
    for train, test in folds.split(x):
        model = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x[train], y[train])
        expected.append(np.mean(model.log_pdf(x[test], y[test])))
    np.testing.assert_array_equal(scores, expected)
