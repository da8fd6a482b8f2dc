"""Conditional density estimators on public regression tables, as a user would try them:
random halves for training and test, every estimator with its defaults, test NLL in the units
of y, and statsmodels' KDEMultivariateConditional(bw='cv_ml') on the first --peer-splits splits
(time-limited; its fit takes minutes), beside ours on the same splits.

    build/venv/bin/python bench/peers/cde/regression_tables.py              # 5 splits
    build/venv/bin/python bench/peers/cde/regression_tables.py --splits 2 --limit 0
    build/venv/bin/python bench/peers/cde/regression_tables.py --discrete   # declared columns
    build/venv/bin/python bench/peers/cde/regression_tables.py --peer-splits 5 --estimators \
        linear,KCDE,auto                                                      # statsmodels x 5

Tables (data/, provenance in data/README.md): Auto MPG, Concrete, Energy (heating load), Yacht,
Boston Housing and red wine quality (an integer score: y has atoms, so densities of it are not
comparable with the others and a continuous kernel collapses onto the atoms).

--discrete: the tables with obviously discrete columns, declared (DISCRETE) for KCDE and for
statsmodels ('u'/'o'): wine's quality as an ordered y, so both give probability masses of it
(test NLL in nats of mass; statsmodels' ordered y is also shown normalised over the training
levels, which is what cdens's mass is), and the discrete inputs of Auto MPG and Boston Housing.
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
# Obviously discrete columns: (unordered, ordered), by name; the y column may be among them.
DISCRETE = {
    "wine_red.csv": ([], ["quality"]),
    "auto_mpg.csv": (["origin"], ["cylinders", "model_year"]),
    "boston_housing.csv": (["chas"], ["rad"]),
}

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
# Ours on the splits statsmodels ran, beside its number for them.
BESIDE_PEER = ["KCDE", "KCDE (linear trend)", "auto"]


def load(file, y_column, names=False):
    frame = pd.read_csv(os.path.join(REPO, "data", file)).drop(columns=DROP.get(file, []))
    y = frame.pop(y_column).to_numpy(dtype=float)
    if names:
        return frame.to_numpy(dtype=float), y, list(frame.columns)
    return frame.to_numpy(dtype=float), y


def declarations(file, x_names, y_column):
    """(cdens positions of the unordered and ordered columns, statsmodels' indep_type and
    dep_type) of a table's DISCRETE columns."""
    unordered, ordered = DISCRETE[file]
    columns = x_names + [y_column]
    kind = {name: "u" for name in unordered} | {name: "o" for name in ordered}
    types = "".join(kind.get(name, "c") for name in columns)
    return ([columns.index(name) for name in unordered],
            [columns.index(name) for name in ordered], types[:-1], types[-1])


def main_discrete(args):
    print("| table | (n train, d_x) | declared | KCDE, declared | auto, declared | "
          "KCDE, all continuous (split 0) | statsmodels cv_ml, declared (split 0) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for title, file, y_column in TABLES:
        if file not in DISCRETE:
            continue
        x, y, x_names = load(file, y_column, names=True)
        unordered, ordered, indep_type, dep_type = declarations(file, x_names, y_column)
        nll, seconds, auto_nll, auto_seconds = [], [], [], []
        for seed in range(args.splits):
            train, test = split(len(y), seed)
            for estimator_class, scores, times in ((cdens.KernelCDE, nll, seconds),
                                                   (cdens.AutoCDE, auto_nll, auto_seconds)):
                estimator = estimator_class(discrete=unordered or None, ordered=ordered or None,
                                            random_state=seed, n_jobs=1)
                score, took, _ = run.fit_cdens(estimator, x[train], y[train], x[test], y[test])
                scores.append(score)
                times.append(took)
            if seed == 0:
                continuous = run.fit_cdens(cdens.KernelCDE(random_state=seed, n_jobs=1),
                                           x[train], y[train], x[test], y[test])
                peer = (statsmodels_peer.fit_and_score_within(
                    x[train], y[train].reshape(-1, 1), x[test], y[test].reshape(-1, 1),
                    args.limit, indep_type, dep_type) if args.limit > 0 else None)
        declared = ", ".join(f"{name} ({kind})" for name, kind in zip(
            x_names + [y_column], indep_type + dep_type) if kind != "c")
        if args.limit <= 0:
            peer_cell = "not run"
        elif peer is None:
            peer_cell = f"stopped at {args.limit:g} s"
        else:
            peer_cell = f"{peer[0]:.3f} ({peer[1]:.3g} s)"
            if len(peer) > 2:
                peer_cell += f"; masses normalised over the levels: {peer[2]:.3f}"
        print(f"| {title} | ({len(y) // 2}, {x.shape[1]}) | {declared} | {np.mean(nll):.3f} ± "
              f"{np.std(nll):.3f} ({np.mean(seconds):.2g} s); split 0: {nll[0]:.3f} | "
              f"{np.mean(auto_nll):.3f} ± {np.std(auto_nll):.3f} ({np.mean(auto_seconds):.2g} s); "
              f"split 0: {auto_nll[0]:.3f} | "
              f"{continuous[0]:.3f} ({continuous[1]:.2g} s) | {peer_cell} |", flush=True)


def split(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    return order[: n // 2], order[n // 2:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--limit", type=float, default=600.0,
                        help="statsmodels time limit in s per split (0: not run)")
    parser.add_argument("--peer-splits", type=int, default=1,
                        help="statsmodels on this many of the first splits")
    parser.add_argument("--discrete", action="store_true",
                        help="the tables with discrete columns, declared (see above)")
    parser.add_argument("--estimators", default=",".join(ESTIMATORS),
                        help="comma-separated column names of the estimators to run")
    parser.add_argument("--tables", default=",".join(title for title, _, _ in TABLES),
                        help="comma-separated table titles to run")
    args = parser.parse_args()
    if args.discrete:
        main_discrete(args)
        return
    names = args.estimators.split(",")
    unknown = set(names) - set(ESTIMATORS)
    if unknown:
        parser.error(f"unknown estimators {sorted(unknown)}; known: {', '.join(ESTIMATORS)}")
    tables = [table for table in TABLES if table[0] in args.tables.split(",")]
    print("| table | (n train, d_x) | " + " | ".join(names) + " | statsmodels cv_ml |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " | --- |")
    for title, file, y_column in tables:
        x, y = load(file, y_column)
        nll = {name: [] for name in names}
        seconds = {name: [] for name in names}
        peer = []
        for seed in range(args.splits):
            train, test = split(len(y), seed)
            for name in names:
                score, took, _ = run.fit_cdens(ESTIMATORS[name](seed), x[train], y[train],
                                               x[test], y[test])
                nll[name].append(score)
                seconds[name].append(took)
            if seed < args.peer_splits and args.limit > 0 and None not in peer:
                peer.append(statsmodels_peer.fit_and_score_within(
                    x[train], y[train].reshape(-1, 1), x[test], y[test].reshape(-1, 1), args.limit))
        cells = [f"{np.mean(nll[name]):.3f} ± {np.std(nll[name]):.3f} "
                 f"({np.mean(seconds[name]):.2g} s)"
                 for name in names]
        print(f"| {title} | ({len(y) // 2}, {x.shape[1]}) | " + " | ".join(cells) +
              f" | {peer_cell(peer, nll, args.limit)} |", flush=True)


def peer_cell(peer, nll, limit):
    """statsmodels' mean test NLL over the splits it ran, beside ours over the same splits."""
    if limit <= 0:
        return "not run"
    if None in peer:
        return f"stopped at {limit:g} s on split {peer.index(None)}"
    splits = len(peer)
    cell = (f"{np.mean([p[0] for p in peer]):.3f} ({np.mean([p[1] for p in peer]):.3g} s)"
            f" on {'split 0' if splits == 1 else f'splits 0-{splits - 1}'}")
    ours = ", ".join(f"{name} {np.mean(nll[name][:splits]):.3f}" for name in BESIDE_PEER
                     if name in nll)
    return cell + (f"; ours on the same: {ours}" if ours else "")


if __name__ == "__main__":
    main()
