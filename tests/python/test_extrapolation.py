"""Queries outside the data (docs/design.md, "Beyond the data"): every query of x warns once, with
an ExtrapolationWarning that counts the rows beyond the training inputs (none inside them), from
Python and from every command that takes x; and answers respect a support the fit saw — a log
transform or output bounds keep a positive output positive 1,000 training ranges away, where
the bounded model's density still integrates to one and its CDF, quantiles and draws agree."""

import subprocess
import warnings

import numpy as np
import pytest

import cdens

AUTO_CANDIDATES = "linear,kcde:trend=linear,kcde:trend=gp"


def positive_pairs(n=120, seed=3):
    """Two inputs on [0, 1]; y = exp(0.5 + 0.8 x0 + 0.3 e) > 0, its spread growing with x0."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n, 2))
    y = np.exp(0.5 + 0.8 * x[:, 0] + 0.3 * rng.normal(size=n))
    return x, y


ESTIMATORS = {
    "kcde": lambda **kw: cdens.KernelCDE(random_state=0, **kw),
    "kcde-gp": lambda **kw: cdens.KernelCDE(trend="gp", random_state=0, **kw),
    "linear": lambda **kw: cdens.LinearGaussianCDE(**kw),
    "auto": lambda **kw: cdens.AutoCDE(candidates=AUTO_CANDIDATES, random_state=0, **kw),
}


@pytest.fixture(scope="module")
def pairs():
    return positive_pairs()


@pytest.fixture(scope="module", params=sorted(ESTIMATORS))
def fitted(request, pairs):
    x, y = pairs
    return request.param, ESTIMATORS[request.param]().fit(x, y)


def far_rows(count):
    """`count` rows 1,000 training ranges beyond the inputs, alternately above and below."""
    rows = np.full((count, 2), 0.5)
    rows[:, 0] = np.where(np.arange(count) % 2 == 0, 1001.0, -1000.0)
    return rows


QUERIES = {
    "predict": lambda model, X: model.predict(X),
    "predict_var": lambda model, X: model.predict_var(X),
    "predict_quantiles": lambda model, X: model.predict_quantiles(X, [0.1, 0.9]),
    "predict_interval": lambda model, X: model.predict_interval(X, 0.9),
    "hdr": lambda model, X: model.hdr(X, 0.9),
    "sample": lambda model, X: model.sample(X, 5, random_state=0),
    "pdf_grid": lambda model, X: model.pdf_grid(X, np.linspace(0.5, 6.0, 7)),
    "log_pdf": lambda model, X: model.log_pdf(X, np.full(len(X), 2.0)),
    "score": lambda model, X: model.score(X, np.full(len(X), 2.0)),
    "cdf": lambda model, X: model.cdf(X, np.full(len(X), 2.0)),
}


def extrapolation_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, cdens.ExtrapolationWarning)]


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_every_query_warns_once_with_the_count_of_rows_outside(fitted, pairs, query):
    _, model = fitted
    x, _ = pairs
    inside = x[:7]
    assert extrapolation_warnings(lambda: QUERIES[query](model, inside)) == []
    messages = extrapolation_warnings(lambda: QUERIES[query](model, far_rows(1)))
    assert len(messages) == 1
    assert messages[0].startswith("1 of 1 query rows lie outside the inputs the model was "
                                  "fitted on (beyond the training range of x0 (1 row)")
    mixed = np.vstack([inside, far_rows(3)])
    messages = extrapolation_warnings(lambda: QUERIES[query](model, mixed))
    assert len(messages) == 1
    assert messages[0].startswith("3 of 10 query rows lie outside")
    assert messages[0].endswith("their answers extrapolate")
    np.testing.assert_array_equal(model.model_.extrapolated_rows(mixed), [7, 8, 9])


def test_the_warning_names_the_rule_and_can_be_silenced(fitted, pairs):
    _, model = fitted
    x, _ = pairs
    lower, upper = model.model_.input_range
    np.testing.assert_array_equal(lower, x.min(axis=0))
    np.testing.assert_array_equal(upper, x.max(axis=0))
    # Beyond the widened range by more than a tenth of the range: only then.
    edge = np.array([[upper[0] + 0.099 * (upper[0] - lower[0]), 0.5],
                     [upper[0] + 0.101 * (upper[0] - lower[0]), 0.5]])
    np.testing.assert_array_equal(model.model_.extrapolated_rows(edge), [1])
    assert issubclass(cdens.ExtrapolationWarning, cdens.CdensWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", cdens.ExtrapolationWarning)
        model.predict(far_rows(2))


def test_a_loaded_model_keeps_the_range_and_warns_alike(fitted, pairs, tmp_path):
    _, model = fitted
    path = tmp_path / "model.json"
    model.save(path)
    loaded = cdens.load(path)
    assert extrapolation_warnings(lambda: loaded.predict(far_rows(2))) == [
        "2 of 2 query rows lie outside the inputs the model was fitted on (beyond the training "
        "range of x0 (2 rows) by more than a tenth of that range); their answers extrapolate"]


def stderr_warnings(result):
    return [line for line in result.stderr.splitlines() if "query rows lie outside" in line]


@pytest.mark.parametrize("method, flags", [
    ("kcde", []), ("kcde", ["--trend", "gp"]), ("linear", []),
    ("auto", ["--candidates", AUTO_CANDIDATES])])
def test_every_command_that_takes_x_warns_once_with_the_count(cli, pairs, tmp_path, method,
                                                              flags):
    x, y = pairs
    train = tmp_path / "train.csv"
    np.savetxt(train, np.column_stack([x, y]), delimiter=",", header="a,b,y", comments="")
    model = tmp_path / "model.json"
    subprocess.run([cli, "fit", str(train), "--method", method, "--x", "a,b", "--y", "y",
                    "--seed", "0", "--out", str(model), *flags], check=True,
                   capture_output=True)
    twin = tmp_path / "twin.json"
    twin.write_bytes(model.read_bytes())
    inside = np.column_stack([x[:7], y[:7]])
    mixed = np.vstack([inside, np.column_stack([far_rows(3), np.full(3, 2.0)])])
    files = {}
    for name, rows in (("inside", inside), ("mixed", mixed)):
        files[name] = tmp_path / f"{name}.csv"
        np.savetxt(files[name], rows, delimiter=",", header="a,b,y", comments="")

    def commands(data):
        return {
            "predict": ["predict", str(model), str(data)],
            "score": ["score", str(model), str(data)],
            "evaluate": ["evaluate", str(model), str(data), "--quiet"],
            "compare": ["compare", str(model), str(twin), str(data), "--quiet"],
            "grid": ["grid", str(model), "--x-file", str(data), "--y-grid", "0.5:6:5"],
            "sample": ["sample", str(model), "--x-file", str(data), "--n", "3"],
        }

    for verb, arguments in commands(files["inside"]).items():
        result = subprocess.run([cli, *arguments], capture_output=True, text=True)
        assert result.returncode == 0, (verb, result.stderr)
        assert stderr_warnings(result) == [], verb
    for verb, arguments in commands(files["mixed"]).items():
        result = subprocess.run([cli, *arguments], capture_output=True, text=True)
        assert result.returncode == 0, (verb, result.stderr)
        lines = stderr_warnings(result)
        # compare evaluates two model files: a warning for each.
        assert len(lines) == (2 if verb == "compare" else 1), (verb, result.stderr)
        assert ("3 of 10 query rows lie outside the inputs the model was fitted on (beyond the "
                "training range of a (3 rows)") in lines[0], (verb, lines[0])
        assert lines[0].startswith("cdens: warning: "), lines[0]
        assert lines[0].endswith("(data rows 8, 9, 10)"), (verb, lines[0])
    # fit --test queries its file as predict does.
    refit = subprocess.run([cli, "fit", str(train), "--method", method, "--x", "a,b", "--y", "y",
                            "--seed", "0", "--out", str(tmp_path / "refit.json"), "--test",
                            str(files["mixed"]), *flags], capture_output=True, text=True,
                           check=True)
    assert len(stderr_warnings(refit)) == 1 and "3 of 10 query rows" in refit.stderr
    result = subprocess.run([cli, "sample", str(model), "--x-values", "0.5,0.5;1001,0.5", "--n",
                             "2"], capture_output=True, text=True, check=True)
    assert stderr_warnings(result) == [
        "cdens: warning: --x-values: 1 of 2 query rows lie outside the inputs the model was "
        "fitted on (beyond the training range of a (1 row) by more than a tenth of that range); "
        "their answers extrapolate (point 2)"]


@pytest.mark.parametrize("make", [
    lambda: cdens.KernelCDE(y_transform="log", random_state=0),
    lambda: cdens.KernelCDE(y_transform="log", trend="gp", random_state=0),
    lambda: cdens.LinearGaussianCDE(y_transform="log"),
])
def test_a_log_transform_keeps_every_answer_positive_far_from_the_data(pairs, make):
    x, y = pairs
    model = make().fit(x, y)
    # Far on both sides (log y there stays well within a double's exponent: slope 0.8).
    X = np.vstack([x[:5], far_rows(4)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.ExtrapolationWarning)
        assert np.all(model.predict_quantiles(X, [0.01, 0.5, 0.99]) > 0)
        assert np.all(model.predict_interval(X, 0.9) > 0)
        assert np.all(model.sample(X, 200, random_state=1) > 0)
        assert np.all(model.predict(X) > 0)


def bounded_estimators():
    return {
        "kcde": cdens.KernelCDE(y_lower=0.0, random_state=0),
        "kcde-linear": cdens.KernelCDE(trend="linear", y_lower=0.0, random_state=0),
        "kcde-gp": cdens.KernelCDE(trend="gp", y_lower=0.0, random_state=0),
        "kcde-yeo-johnson": cdens.KernelCDE(trend="gp", y_transform="yeo_johnson", y_lower=0.0,
                                            random_state=0),
        "linear": cdens.LinearGaussianCDE(y_lower=0.0),
        "auto": cdens.AutoCDE(candidates=AUTO_CANDIDATES, y_lower=0.0, random_state=0),
    }


@pytest.mark.parametrize("name", sorted(bounded_estimators()))
def test_a_lower_bound_keeps_every_answer_positive_and_the_queries_agree(pairs, name):
    x, y = pairs
    model = bounded_estimators()[name].fit(x, y)
    assert model.model_.output_bounds == (0.0, np.inf)
    X = np.vstack([x[:3], far_rows(4)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.ExtrapolationWarning)
        quantiles = model.predict_quantiles(X, [0.01, 0.5, 0.99])
        draws = model.sample(X, 2000, random_state=1)
        assert np.all(quantiles > 0), quantiles
        assert np.all(model.predict_interval(X, 0.9) > 0)
        assert np.all(draws > 0)
        assert np.all(model.predict(X) > 0)
        assert np.all(model.log_pdf(X, np.full(len(X), -0.1)) == -np.inf)
        for row in range(len(X)):
            one = X[row:row + 1]
            # Brute force on a grid of 0, the model's own quantiles at 4,001 levels (where its mass
            # is), each step cut in 20 and, where the density falls tenfold across a step (the edge
            # of a pool's narrow peak beside a wide member; a member squeezed into a sliver 10⁻³⁰
            # wide above 0), geometric runs from both its ends down to 10⁻⁴⁰ of it, and one from
            # 10⁻¹² of the median up to it: the density integrates to one; the CDF is its
            # integral.
            levels = np.concatenate([np.geomspace(1e-9, 1e-3, 100),
                                     np.linspace(1e-3, 1 - 1e-3, 3801),
                                     1 - np.geomspace(1e-3, 1e-9, 100)])
            anchors = np.unique(np.concatenate([[0.0], model.predict_quantiles(one, levels)[0]]))
            widths = np.diff(anchors)
            pieces = [(anchors[:-1, None] + widths[:, None] * np.linspace(0, 1, 21)[:-1]).ravel(),
                      [anchors[-1], 4.0 * anchors[-1] - 3.0 * anchors[-2]],
                      np.geomspace(1e-12 * quantiles[row, 1], quantiles[row, 1], 20001)]
            at_anchors = model.pdf_grid(one, anchors)[0]
            ratio = np.maximum(at_anchors[1:], 1e-300) / np.maximum(at_anchors[:-1], 1e-300)
            for step in np.flatnonzero((ratio > 10.0) | (ratio < 0.1)):
                offsets = np.geomspace(1e-40, 1.0, 4001) * widths[step]
                pieces += [anchors[step] + offsets, anchors[step + 1] - offsets]
            grid = np.unique(np.concatenate(pieces))
            density = model.pdf_grid(one, grid)[0]
            cumulative = np.concatenate([[0.0], np.cumsum(np.diff(grid) *
                                                          (density[1:] + density[:-1]) / 2)])
            assert cumulative[-1] == pytest.approx(1.0, abs=1e-4), (row, cumulative[-1])
            probes = grid[::20000]
            np.testing.assert_allclose(model.cdf(np.repeat(one, len(probes), axis=0), probes),
                                       cumulative[::20000], atol=1e-4)
            # Quantiles invert the CDF.
            np.testing.assert_allclose(
                model.cdf(np.repeat(one, 3, axis=0), quantiles[row]), [0.01, 0.5, 0.99],
                atol=1e-7)
            # 2,000 draws against the CDF: the Kolmogorov-Smirnov distance exceeds
            # 1.95 / sqrt(2000) = 0.044 with probability 0.001 under the model.
            sorted_draws = np.sort(draws[row])
            at = model.cdf(np.repeat(one, 2000, axis=0), sorted_draws)
            steps = np.arange(1, 2001) / 2000
            assert max(np.max(np.abs(at - steps)), np.max(np.abs(at - steps + 1 / 2000))) < 0.044


def test_a_bounded_model_reads_back_bounded(pairs, tmp_path):
    x, y = pairs
    model = cdens.KernelCDE(y_lower=0.0, random_state=0).fit(x, y)
    path = tmp_path / "bounded.json"
    model.save(path)
    loaded = cdens.load(path)
    assert loaded.y_lower == 0.0 and loaded.y_upper is None
    assert loaded.model_.output_bounds == (0.0, np.inf)
    np.testing.assert_array_equal(loaded.predict_quantiles(x[:5], [0.1, 0.9]),
                                  model.predict_quantiles(x[:5], [0.1, 0.9]))


def test_bounds_the_training_outputs_break_are_refused(pairs):
    x, y = pairs
    with pytest.raises(ValueError, match="y_lower is .* but .* takes"):
        cdens.KernelCDE(y_lower=y.min() + 0.1).fit(x, y)
    with pytest.raises(ValueError, match="y_lower < y_upper"):
        cdens.KernelCDE(y_lower=2.0, y_upper=1.0).fit(x, y)
    with pytest.raises(ValueError, match="set y_lower on auto itself"):
        cdens.AutoCDE(candidates="linear,kcde:y_lower=0").fit(x, y)
