"""The UCI regression benchmark with the standard splits of Hernández-Lobato & Adams (2015): test
NLL of y in its own units (mean over the test pairs of each split, then mean ± standard error over
the splits), RMSE of the predicted mean, CRPS, fit and predict seconds, for auto and each of its
candidates, beside the best published NLL of MC dropout, deep ensembles and NGBoost. Two peers run
in the same table on the same splits: deep_ensemble and xgboost (peers.py; they need PyTorch and
XGBoost, Debian's python3-torch and python3-xgboost, and not cdens), each labelled with its
method's published NLL on the set.

Reads ../shared/data/uci (the sets, their splits and the published table in its README); without
it the script says so and exits 0.

    build/venv/bin/python bench/peers/uci/run.py                         # every set and split
    build/venv/bin/python bench/peers/uci/run.py --sets yacht,boston --splits 3
    build/venv/bin/python bench/peers/uci/run.py --estimators auto,kcde:trend=gp
    build/venv/bin/python bench/peers/uci/run.py --estimators auto,deep_ensemble,xgboost
    build/venv/bin/python bench/peers/uci/run.py --quick                 # make test: asserts

--quick runs the first three splits of yacht with KCDE around the Gaussian-process trend and
asserts that its mean test NLL is below the best published one (0.20), the headline figure of
docs/benchmarks.md ("UCI regression benchmark").
"""

import argparse
import ast
import json
import os
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import peers  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "bench", "papers"))
from headline import Headline  # noqa: E402
UCI = os.path.join(os.path.dirname(REPO), "shared", "data", "uci")

# Best test NLL of MC dropout (with its repository's grid search), deep ensembles and NGBoost
# (../shared/data/uci/README.md).
PUBLISHED_BEST = {"boston": 2.40, "concrete": 2.93, "energy": 0.60, "protein": 2.81,
                  "wine_red": 0.91, "yacht": 0.20}
SETS = ["yacht", "boston", "energy", "concrete", "wine_red", "protein"]


def estimator(spec, seed):
    """auto, or a candidate written as auto takes it (method[:option=value]...), fitted as its own
    estimator class (auto with one candidate would cross-validate it for nothing), or a peer
    (deep_ensemble or xgboost[:option=python literal]...). cdens is imported only for its own."""
    name, *settings = spec.split(":")
    options = dict(setting.split("=", 1) for setting in settings)
    if name in peers.PEERS:
        literal = {key: ast.literal_eval(value) for key, value in options.items()}
        return peers.PEERS[name](random_state=seed, **literal)
    import cdens
    from cdens._methods import methods

    if spec == "auto":
        return cdens.AutoCDE(random_state=seed)
    entry = methods()[name]
    if any(option["python_name"] == "random_state" for option in entry["options"]):
        options["random_state"] = seed
    return getattr(cdens, entry["python_class"])(**options)


def load(name):
    frame = pd.read_csv(os.path.join(UCI, name + ".csv"))
    with open(os.path.join(UCI, name + "_splits.json")) as handle:
        splits = json.load(handle)
    return frame[splits["x"]].to_numpy(float), frame[splits["y"]].to_numpy(float), splits


def run_split(spec, x, y, train, test, seed):
    model = estimator(spec, seed)
    start = time.perf_counter()
    with warnings.catch_warnings():  # the inputs that look discrete, once per fit
        warnings.simplefilter("ignore")
        model.fit(x[train], y[train])
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    log_density = model.log_pdf(x[test], y[test])
    mean = model.predict(x[test]).ravel()
    if isinstance(model, peers.GaussianMixturePeer):  # a Gaussian mixture: closed-form CRPS
        continuous, crps = True, model.crps(x[test], y[test])
    else:
        import cdens.metrics

        # The CRPS is a score of continuous outputs; a mass function over levels (wine's quality
        # by default) gets none here. Each pair's CRPS is taken on its reduced components
        # (docs/methods/kcde.md), so auto's pool on protein (82,000 components) has one too.
        continuous = model.model_.output_kinds[0] == "continuous"
        crps = cdens.metrics.crps(model, x[test], y[test]) if continuous else np.nan
    predict_seconds = time.perf_counter() - start
    return {"nll": -float(np.mean(log_density)), "kind": "density" if continuous else "mass",
            "rmse": float(np.sqrt(np.mean((mean - y[test]) ** 2))),
            "crps": float(np.mean(crps)), "fit": fit_seconds, "predict": predict_seconds,
            "weights": getattr(model, "weights_", {spec: 1.0})}


def summary(values):
    values = np.asarray(values, float)
    if np.isnan(values).all():
        return "—"
    error = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{values.mean():.3f} ± {error:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--splits", type=int, default=0, help="first N splits (0: all)")
    parser.add_argument("--estimators", default="auto",
                        help="comma-separated: auto, candidates as auto takes them, "
                             "deep_ensemble, xgboost")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if not os.path.isdir(UCI):
        print(f"skipped: {UCI} (the shared UCI benchmark) is not here")
        return 0
    if args.quick:
        args.sets, args.splits, args.estimators = "yacht", 3, "kcde:trend=gp"
    specs = args.estimators.split(",")
    print("| set | estimator | test NLL | RMSE | CRPS | fit s | predict s | published best NLL |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.sets.split(","):
        x, y, splits = load(name)
        available = len(splits["train"])
        count = available if args.splits == 0 else min(args.splits, available)
        for spec in specs:
            rows = [run_split(spec, x, y, np.array(splits["train"][s]),
                              np.array(splits["test"][s]), s) for s in range(count)]
            table = {key: [row[key] for row in rows] for key in rows[0]}
            # auto: each candidate's mean weight in the stacked pool over the splits.
            weights = {}
            for split_weights in table["weights"]:
                for candidate, weight in split_weights.items():
                    weights[candidate] = weights.get(candidate, 0.0) + weight / count
            pooled = ", ".join(f"{candidate} {weight:.2f}" for candidate, weight in
                               sorted(weights.items(), key=lambda item: -item[1]))
            label = spec if spec != "auto" else "auto (mean weights: " + pooled + ")"
            peer = spec.split(":")[0]
            if peer in peers.PUBLISHED_NLL:
                label += f" (published NLL {peers.PUBLISHED_NLL[peer][name]:.2f})"
            if "mass" in table["kind"]:
                label += ", log-loss of the mass function"
            print(f"| {name} ({count} splits) | {label} | {summary(table['nll'])} | "
                  f"{summary(table['rmse'])} | {summary(table['crps'])} | "
                  f"{np.mean(table['fit']):.2f} | {np.mean(table['predict']):.2f} | "
                  f"{PUBLISHED_BEST[name]:.2f} |", flush=True)
            figures = {"test NLL": float(np.mean(table["nll"])),
                       "fit seconds": float(np.mean(table["fit"]))}
    if args.quick:
        headline = Headline("UCI regression benchmark, yacht, 3 splits, kcde:trend=gp")
        headline.require(figures["test NLL"] < PUBLISHED_BEST["yacht"],
                         f"yacht's mean test NLL {figures['test NLL']:.3f} is below the best "
                         f"published {PUBLISHED_BEST['yacht']:.2f}", figures)
        headline.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
