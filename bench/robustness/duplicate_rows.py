"""Identical rows (issue 50, docs/methods/duplicates.md): every method with a leave-one-out or
cross-validated criterion fitted to data/engel.csv as it is, written twice, and with a random
fifth of its rows written twice, under duplicates = keep (the papers' estimators as written) and
merge (the default).

    build/venv/bin/python bench/robustness/duplicate_rows.py [--methods kcde,auto,...]

The split is fixed: every fourth row of the table is held out (59 rows), the others (176) are the
training table. Conditional methods model food expenditure given income and are scored by the
held-out NLL and the coverage of the equal-tailed 90 % interval; density methods model the two
columns together and are scored by the held-out NLL of the pair. Each line gives the chosen
widths (the report's hyper-parameters), the held-out scores and the fit's seconds.
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import cdens

REPO = Path(__file__).resolve().parents[2]

CONDITIONAL = {
    "kcde": lambda duplicates: cdens.KernelCDE(random_state=0, duplicates=duplicates),
    "lscde": lambda duplicates: cdens.LSCDE(random_state=0, duplicates=duplicates),
    "auto": lambda duplicates: cdens.AutoCDE(random_state=0, duplicates=duplicates),
}
DENSITY = {
    "parzen": lambda duplicates: cdens.ParzenWindow(duplicates=duplicates),
    "rsde": lambda duplicates: cdens.RSDE(random_state=0, duplicates=duplicates),
    "skd": lambda duplicates: cdens.SKD(random_state=0, duplicates=duplicates),
    "gskd": lambda duplicates: cdens.GSKD(random_state=0, duplicates=duplicates),
    "gmm": lambda duplicates: cdens.GMM(n_components=3, random_state=0, duplicates=duplicates),
}


def tables():
    """The training tables (x (n, 1), y (n,)) by name, and the held-out rows."""
    data = np.genfromtxt(REPO / "data" / "engel.csv", delimiter=",", names=True)
    x = data["income"].reshape(-1, 1)
    y = data["foodexp"]
    held_out = np.arange(len(y)) % 4 == 0
    x_train, y_train = x[~held_out], y[~held_out]
    fifth = np.random.default_rng(5).choice(len(y_train), size=len(y_train) // 5, replace=False)
    return {
        "once": (x_train, y_train),
        "twice": (np.vstack([x_train, x_train]), np.concatenate([y_train, y_train])),
        "fifth twice": (np.vstack([x_train, x_train[fifth]]),
                        np.concatenate([y_train, y_train[fifth]])),
    }, (x[held_out], y[held_out])


def widths(fitted):
    chosen = fitted.model_.hyperparameters
    names = [name for name in sorted(chosen) if "bandwidth" in name or name in (
        "sigma", "regularization", "variance_upper", "stages")]
    return ", ".join(f"{name} {chosen[name]:.4g}" for name in names) or "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default=",".join([*CONDITIONAL, *DENSITY]))
    arguments = parser.parse_args()
    training, (x_test, y_test) = tables()
    print("| method | table | duplicates | chosen | held-out NLL | 90 % coverage | seconds |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for method in arguments.methods.split(","):
        for name, (x, y) in training.items():
            for duplicates in ("keep", "merge"):
                started = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if method in CONDITIONAL:
                        fitted = CONDITIONAL[method](duplicates).fit(x, y)
                        nll = -np.mean(fitted.log_pdf(x_test, y_test))
                        interval = fitted.predict_interval(x_test, 0.9)
                        coverage = np.mean((y_test >= interval[:, 0]) & (y_test <= interval[:, 1]))
                        cover = f"{coverage:.3f}"
                    else:
                        fitted = DENSITY[method](duplicates).fit(np.column_stack([x, y]))
                        nll = -np.mean(fitted.score_samples(np.column_stack([x_test, y_test])))
                        cover = "-"
                seconds = time.perf_counter() - started
                print(f"| {method} | {name} | {duplicates} | {widths(fitted)} | {nll:.4g} | "
                      f"{cover} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
