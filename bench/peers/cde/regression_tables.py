"""Conditional density estimators on public regression tables, as a user would try them:
random halves for training and test, every estimator with its defaults, test NLL in the units
of y, and statsmodels' KDEMultivariateConditional(bw='cv_ml') on the first split (time-limited).

    build/venv/bin/python bench/peers/cde/regression_tables.py              # 5 splits
    build/venv/bin/python bench/peers/cde/regression_tables.py --splits 2 --limit 0

Tables (data/, provenance in data/README.md): Auto MPG, Concrete, Energy (heating load), Yacht,
Boston Housing and red wine quality (an integer score: y has atoms, so densities of it are not
comparable with the others and a continuous kernel collapses onto the atoms).
"""

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import run  # noqa: E402  (fit_cdens)
import statsmodels_peer  # noqa: E402

import cdens  # noqa: E402

TABLES = [  # (name, file, y column); every other column is an input
    ("Auto MPG", "auto_mpg.csv", "mpg"),
    ("Concrete", "concrete.csv", "strength"),
    ("Energy", "energy.csv", "y1"),
    ("Yacht", "yacht.csv", "resistance"),
    ("Boston Housing", "boston_housing.csv", "medv"),
    ("Wine (red)", "wine_red.csv", "quality"),
]
DROP = {"energy.csv": ["y2"]}  # the other output of the table

ESTIMATORS = {
    "linear": lambda seed: cdens.LinearGaussianCDE(),
    "KCDE": lambda seed: cdens.KernelCDE(random_state=seed, n_jobs=1),
    "KCDE (linear trend)": lambda seed: cdens.KernelCDE(trend="linear", random_state=seed,
                                                        n_jobs=1),
    "LSCDE": lambda seed: cdens.LSCDE(random_state=seed, n_jobs=1),
    "ε-KDE": lambda seed: cdens.EpsilonKDE(random_state=seed, n_jobs=1),
    "NW-CDE": lambda seed: cdens.NWCDE(random_state=seed, n_jobs=1),
    "RKDE": lambda seed: cdens.RKDE(random_state=seed, n_jobs=1),
    "auto": lambda seed: cdens.AutoCDE(random_state=seed, n_jobs=1),
}
# Ours on the first split, beside statsmodels' number for it.
SPLIT_ZERO = ["KCDE", "KCDE (linear trend)", "auto"]


def load(file, y_column):
    frame = pd.read_csv(os.path.join(REPO, "data", file)).drop(columns=DROP.get(file, []))
    y = frame.pop(y_column).to_numpy(dtype=float)
    return frame.to_numpy(dtype=float), y


def split(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    return order[: n // 2], order[n // 2:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--limit", type=float, default=600.0,
                        help="statsmodels time limit in s on the first split (0: not run)")
    parser.add_argument("--estimators", default=",".join(ESTIMATORS),
                        help="comma-separated column names of the estimators to run")
    parser.add_argument("--tables", default=",".join(title for title, _, _ in TABLES),
                        help="comma-separated table titles to run")
    args = parser.parse_args()
    names = args.estimators.split(",")
    unknown = set(names) - set(ESTIMATORS)
    if unknown:
        parser.error(f"unknown estimators {sorted(unknown)}; known: {', '.join(ESTIMATORS)}")
    tables = [table for table in TABLES if table[0] in args.tables.split(",")]
    print("| table | (n train, d_x) | " + " | ".join(names) + " | statsmodels cv_ml (split 0) |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " | --- |")
    for title, file, y_column in tables:
        x, y = load(file, y_column)
        nll = {name: [] for name in names}
        seconds = {name: [] for name in names}
        peer = None
        for seed in range(args.splits):
            train, test = split(len(y), seed)
            for name in names:
                score, took, _ = run.fit_cdens(ESTIMATORS[name](seed), x[train], y[train],
                                               x[test], y[test])
                nll[name].append(score)
                seconds[name].append(took)
            if seed == 0 and args.limit > 0:
                peer = statsmodels_peer.fit_and_score_within(
                    x[train], y[train].reshape(-1, 1), x[test], y[test].reshape(-1, 1), args.limit)
        cells = [f"{np.mean(nll[name]):.3f} ± {np.std(nll[name]):.3f} ({np.mean(seconds[name]):.2g} s)"
                 for name in names]
        ours = ", ".join(f"{name} {nll[name][0]:.3f}" for name in SPLIT_ZERO if name in names)
        peer_cell = ("not run" if args.limit <= 0 else f"stopped at {args.limit:g} s"
                     if peer is None else f"{peer[0]:.3f} ({peer[1]:.3g} s)")
        peer_cell += f"; ours on split 0: {ours}" if ours else ""
        print(f"| {title} | ({len(y) // 2}, {x.shape[1]}) | " + " | ".join(cells) +
              f" | {peer_cell} |", flush=True)


if __name__ == "__main__":
    main()
