"""KernelCDE with discrete and ordered columns: the leave-one-out likelihood against statsmodels'
own loop where the definitions coincide (discrete inputs, an unordered output), the probability
mass function of a discrete y, model files, the CLI's column names and bad declarations."""

import subprocess

import numpy as np
import pytest
from statsmodels.nonparametric.kernel_density import KDEMultivariateConditional

import cdens

from conftest import REPO


def standardized(values):
    values = np.asarray(values, dtype=float)
    return (values - values.mean(axis=0)) / values.std(axis=0, ddof=1)


@pytest.fixture(scope="module")
def mixed():
    """x0 continuous, x1 unordered on {2, 5, 7}, x2 ordered on 0..4; y unordered on {0, 1, 2}
    and y_ordered on 1..5, both depending on the inputs. Every level appears many times (so
    statsmodels, which counts the levels of each leave-one-out sample, sees all of them)."""
    rng = np.random.default_rng(11)
    n = 150
    x = np.column_stack([rng.normal(size=n), rng.choice([2.0, 5.0, 7.0], size=n),
                         rng.integers(0, 5, size=n).astype(float)])
    y = np.where(rng.uniform(size=n) < 0.7, (x[:, 1] % 3), (x[:, 1] + 1) % 3)
    y_ordered = np.clip(np.round(1 + x[:, 2] + 0.5 * x[:, 0] + 0.7 * rng.normal(size=n)), 1, 5)
    return x, y, y_ordered


def test_criterion_equals_statsmodels_with_discrete_columns(mixed):
    """Unordered (Aitchison-Aitken) and ordered (Wang-van Ryzin) inputs and an unordered output:
    our leave-one-out NLL at the chosen parameters is statsmodels' at the same parameters."""
    x, y, _ = mixed
    model = cdens.KernelCDE(discrete=[1, 3], ordered=[2], marginal_mixing="none",
                            random_state=0).fit(x, y)
    assert model.input_kinds_ == ["continuous", "unordered", "ordered"]
    assert model.output_kinds_ == ["unordered"]
    bw = np.concatenate([model.bandwidths_[3:], model.bandwidths_[:3]])  # statsmodels' order
    exog = np.column_stack([standardized(x[:, 0]), x[:, 1], x[:, 2]])  # discrete ones raw
    peer = KDEMultivariateConditional(endog=y.reshape(-1, 1), exog=exog, dep_type="u",
                                      indep_type="cuo", bw=bw)
    theirs = peer.loo_likelihood(bw, func=np.log) / len(y)
    # An unordered y is a probability mass in its raw values: no Jacobian.
    assert model.loo_nll_ == pytest.approx(theirs, abs=1e-10)


def test_ordered_output_is_a_probability_mass_function(mixed):
    x, _, y = mixed
    model = cdens.KernelCDE(ordered=[2, 3], random_state=0).fit(x, y)
    assert model.output_kinds_ == ["ordered"]
    levels = np.arange(1.0, 6.0)
    masses = model.pdf_grid(x[:10], levels)
    np.testing.assert_allclose(masses.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.exp(model.log_pdf(x[:10], y[:10])),
                               masses[np.arange(10), (y[:10] - 1).astype(int)], rtol=1e-13)
    np.testing.assert_allclose(model.predict(x[:10]), masses @ levels, rtol=1e-12)
    draws = model.sample(x[:3], 50, random_state=1)
    assert set(np.unique(draws)) <= set(levels)
    quantiles = model.predict_quantiles(x[:10], [0.5])
    assert set(np.unique(quantiles)) <= set(levels)


def test_discrete_columns_survive_a_model_file(mixed, tmp_path):
    x, y, _ = mixed
    model = cdens.KernelCDE(discrete=[1, 3], ordered=[2], random_state=0).fit(x, y)
    model.save(tmp_path / "discrete.json")
    loaded = cdens.load(tmp_path / "discrete.json")
    assert loaded.discrete == [1, 3] and loaded.ordered == [2]
    assert loaded.output_kinds_ == ["unordered"]
    np.testing.assert_array_equal(loaded.log_pdf(x, y), model.log_pdf(x, y))
    np.testing.assert_array_equal(loaded.bandwidths_, model.bandwidths_)


def test_undeclared_discrete_output_is_warned_about(mixed):
    x, _, y = mixed
    with pytest.warns(cdens.CdensWarning, match=r"column y0 looks discrete.*ordered=\['y0'\]"):
        cdens.KernelCDE(discrete=[1], ordered=[2], random_state=0).fit(x, y)


def test_bad_declarations_are_refused(mixed):
    x, y, _ = mixed
    with pytest.raises(ValueError, match="column x0 is declared ordered but holds the value"):
        cdens.KernelCDE(ordered=[0]).fit(x, y)
    with pytest.raises(ValueError, match="column x1 is declared discrete more than once"):
        cdens.KernelCDE(discrete=[1], ordered=[1]).fit(x, y)
    with pytest.raises(ValueError, match="out of range"):
        cdens.KernelCDE(discrete=[7]).fit(x, y)
    with pytest.raises(ValueError, match="discrete must be a list of column indices"):
        cdens.KernelCDE(discrete=1.5).fit(x, y)
    # A name is a column (x0, x1, … of an array), as the command's --discrete takes them.
    with pytest.raises(ValueError, match="column 'x9' is none of the columns of X and Y"):
        cdens.KernelCDE(discrete="x9").fit(x, y)
    with pytest.raises(ValueError, match="column positions from 0 on"):
        cdens.KernelCDE(discrete=[-1]).fit(x, y)
    with pytest.raises(ValueError, match="has only one level"):
        cdens.KernelCDE(discrete=[3]).fit(x, np.full(len(y), 2.0))


def test_cli_declares_columns_by_name(cli, tmp_path):
    path = tmp_path / "wine.json"
    result = subprocess.run(
        [cli, "fit", str(REPO / "data" / "wine_red.csv"), "--method", "kcde", "--x",
         "alcohol,volatile_acidity", "--y", "quality", "--ordered", "quality", "--out", str(path)],
        capture_output=True, text=True, check=True)
    assert "output_kinds: ordered" in result.stdout
    assert "scores: log probability mass" in result.stdout
    assert "bandwidth_y0:" in result.stdout
    info = subprocess.run([cli, "info", str(path)], capture_output=True, text=True, check=True)
    assert "scores: log probability mass" in info.stdout
    loaded = cdens.load(path)
    assert loaded.ordered == [2] and loaded.output_kinds_ == ["ordered"]
    undeclared = subprocess.run(
        [cli, "fit", str(REPO / "data" / "wine_red.csv"), "--method", "kcde", "--x", "alcohol",
         "--y", "quality", "--n-restarts", "0"], capture_output=True, text=True, check=True)
    assert "scores: log density" in undeclared.stdout
    assert "column quality looks discrete" in undeclared.stdout
    assert "--ordered quality" in undeclared.stdout
    for arguments, message in [
            (["--ordered", "ph"], "column 'ph' is declared discrete or ordered but is neither"),
            (["--ordered", "alcohol"], "column alcohol is declared ordered but holds the value"),
            (["--ordered", "nonsense"], "nonsense")]:
        refused = subprocess.run(
            [cli, "fit", str(REPO / "data" / "wine_red.csv"), "--method", "kcde", "--x", "alcohol",
             "--y", "quality"] + arguments, capture_output=True, text=True)
        assert refused.returncode == 2, refused.stderr
        assert message in refused.stderr
    other = subprocess.run(
        [cli, "fit", str(REPO / "data" / "wine_red.csv"), "--method", "lscde", "--x", "alcohol",
         "--y", "quality", "--ordered", "quality"], capture_output=True, text=True)
    assert other.returncode == 2
    assert "--ordered does not apply to --method lscde" in other.stderr
