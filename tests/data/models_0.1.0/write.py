"""Writes the model files of this directory and expected.json with the build installed in
build/venv (README.md says which commit): one model per extension of the conditional mixture's
output side, and the answers of the queries test_model_files_0_1_0.py repeats."""

import json
import pathlib

import numpy as np

import cdens

HERE = pathlib.Path(__file__).resolve().parent


def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + 0.3 * np.exp(0.5 * X[:, 1]) * rng.normal(size=40)
    Y2 = np.column_stack([y, X[:, 1] - y + 0.2 * rng.normal(size=40)])
    return X, y, Y2, np.exp(0.4 * y), np.round(np.clip(y + 2.0, 0.0, 4.0))


def estimators():
    """(file name, estimator, outputs) for each extension."""
    X, y, Y2, positive, levels = data()
    return X, [
        ("linear_log_linear_spread", cdens.LinearGaussianCDE(variance="log_linear"), y),
        ("kcde_gaussian_process_trend", cdens.KernelCDE(trend="gp", trend_basis=8,
                                                        random_state=0), y),
        ("kcde_linear_trend_2d", cdens.KernelCDE(trend="linear", random_state=0), Y2),
        ("kcde_log_transform", cdens.KernelCDE(trend="linear", y_transform="log",
                                               random_state=0), positive),
        ("linear_yeo_johnson", cdens.LinearGaussianCDE(y_transform="yeo_johnson"), positive),
        ("kcde_discrete_output", cdens.KernelCDE(discrete=[2], random_state=0), levels),
        ("auto_pool_of_trends", cdens.AutoCDE(candidates="linear,nwcde,lscde", cv=3,
                                              random_state=0), y),
        ("auto_pool_of_transforms", cdens.AutoCDE(
            candidates="linear:y_transform=yeo_johnson,kcde:trend=linear:y_transform=log",
            cv=3, random_state=0), positive),
    ]


def queries(model, X, Y):
    """The answers compared after loading: log-densities, means, and for one-dimensional y the
    10/50/90% quantiles."""
    answers = {"log_pdf": model.log_pdf(X, Y).tolist(),
               "mean": np.asarray(model.predict(X)).tolist()}
    if np.ndim(Y) == 1:
        answers["quantiles"] = model.predict_quantiles(X, [0.1, 0.5, 0.9]).tolist()
    return answers


def main():
    X, fits = estimators()
    expected = {}
    for name, estimator, Y in fits:
        estimator.fit(X, Y)
        estimator.save(HERE / f"{name}.json")
        expected[name] = queries(estimator, X[:10], Y[:10])
    with open(HERE / "expected.json", "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
