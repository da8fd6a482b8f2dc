"""LSCE's d_z rule (issue 37): the refitted LSCDE's d_z chosen by its own cross-validated
criterion (dz_loss="kl", the held-out negative log-likelihood) against the SQ criterion of
section 3.2 (dz_loss="sq", the default), and against LSMI/LSCDE's reduction.

One LSCE fit per run gives both d_z tables (the same fold fits scored two ways: the report's
auxiliary tables "n_components" and "n_components_sq"); where the SQ table's best d_z differs,
LSCE is fitted again at that d_z with the same seed, which is the model the SQ rule fits.
Errors are the SQ criterion of section 3.2 on the test rows (run.py's sq_error), in
standardised y and in y rescaled to [0, 1] as the UCI table of docs/benchmarks.md; splits and
seeds are run.py's.

    build/venv/bin/python bench/papers/lsce/dz_rules.py --parts uci --runs 3
    build/venv/bin/python bench/papers/lsce/dz_rules.py --parts robot --joints 9 --runs 2 --lsmi
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cdens  # noqa: E402
import robot_arm  # noqa: E402
from datasets import DATASETS, ROBOT  # noqa: E402
from run import load, mean_se, sq_error, standardise  # noqa: E402


def best_dz(table):
    mean_loss = np.asarray(table["mean_loss"])
    return int(table["candidates"][int(np.argmin(mean_loss)), 0])


def one_run(X, Y, n, run, restarts, lsmi):
    order = np.random.default_rng(run).permutation(X.shape[0])
    train, test = order[:n], order[n:]
    Xtr, Xte = standardise(X[train], X[test])
    Ytr, Yte = standardise(Y[train], Y[test])
    factor = float(np.prod((Y.max(axis=0) - Y.min(axis=0)) / Y[train].std(axis=0, ddof=1)))
    started = time.perf_counter()
    kl = cdens.LSCE(n_restarts=restarts, dz_loss="kl", random_state=run).fit(Xtr, Ytr)
    seconds = time.perf_counter() - started
    tables = kl.model_.auxiliary_cross_validation
    dz_kl, dz_sq = best_dz(tables["n_components"]), best_dz(tables["n_components_sq"])
    assert dz_kl == kl.n_components_
    result = {"dz_kl": dz_kl, "dz_sq": dz_sq, "kl": sq_error(kl, Xte, Yte), "factor": factor,
              "seconds": seconds, "nll_kl": -kl.score(Xte, Yte)}
    if dz_sq == dz_kl:
        result["sq"], result["nll_sq"] = result["kl"], result["nll_kl"]
    else:
        sq = cdens.LSCE(n_components=dz_sq, n_restarts=restarts, random_state=run).fit(Xtr, Ytr)
        result["sq"], result["nll_sq"] = sq_error(sq, Xte, Yte), -sq.score(Xte, Yte)
    if lsmi:
        model = cdens.LSMI(n_restarts=restarts, random_state=run).fit(Xtr, Ytr)
        result["lsmi"] = sq_error(model, Xte, Yte)
        result["dz_lsmi"] = model.n_components_
    return result


def row(name, X, Y, n, runs, restarts, lsmi, paper=None, scale=1.0):
    results = []
    for run in runs:
        r = one_run(X, Y, n, run, restarts, lsmi)
        results.append(r)
        extra = f", LSMI/LSCDE {r['lsmi']:.4g} (d_z {r['dz_lsmi']})" if lsmi else ""
        print(f"  {name} run {run}: kl rule {r['kl']:.4g} (d_z {r['dz_kl']}, test NLL "
              f"{r['nll_kl']:.4g}), sq rule {r['sq']:.4g} (d_z {r['dz_sq']}, test NLL "
              f"{r['nll_sq']:.4g}){extra}, {r['seconds']:.0f} s",
              file=sys.stderr, flush=True)
    columns = ["kl", "sq"] + (["lsmi"] if lsmi else [])
    cells = []
    for units in ("std", "rescaled"):
        for column in columns:
            values = np.array([r[column] * (r["factor"] if units == "rescaled" else 1.0) / scale
                               for r in results])
            mean, se = mean_se(values)
            cells.append(f"{mean:.3g} ({se:.2g})" if np.isfinite(se) else f"{mean:.3g}")
    dims = " / ".join(f"{np.mean([r['dz_' + c] for r in results]):.1f}" for c in columns)
    wins = sum(r["kl"] < r["sq"] for r in results)
    ties = sum(r["kl"] == r["sq"] for r in results)
    nll = " / ".join(f"{np.mean([r['nll_' + c] for r in results]):.3g}" for c in ("kl", "sq"))
    paper_cell = "" if paper is None else f" {paper[0]} ({paper[1]})"
    print(f"| {name} | " + " | ".join(cells) + f" | {dims} | {wins} / {ties} / "
          f"{len(results) - wins - ties} | {nll} |{paper_cell}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="uci")
    parser.add_argument("--datasets", default="")
    parser.add_argument("--joints", default="9")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--first-run", type=int, default=0)
    parser.add_argument("--restarts", type=int, default=20)
    parser.add_argument("--lsmi", action="store_true", help="fit LSMI/LSCDE too")
    args = parser.parse_args()
    runs = range(args.first_run, args.first_run + args.runs)
    columns = ["kl rule", "sq rule"] + (["LSMI/LSCDE"] if args.lsmi else [])
    header = ("| row | " + " | ".join(f"{c} (std)" for c in columns) + " | " +
              " | ".join(f"{c} (rescaled, printed units)" for c in columns) +
              " | d_z " + " / ".join(columns) + " | kl better / equal / worse (SQ) "
              "| test NLL kl / sq rule (std) | paper |")
    print(header)
    print("|" + " --- |" * (2 * len(columns) + 5))
    if "uci" in args.parts:
        names = args.datasets.split(",") if args.datasets else []
        for dataset in DATASETS:
            if names and dataset.name not in names:
                continue
            X, Y = load(dataset)
            row(dataset.name, X, Y, dataset.n, runs, args.restarts, args.lsmi,
                dataset.table1["LSCE/LSCDE"], dataset.scale)
    if "robot" in args.parts:
        joints = [int(j) for j in args.joints.split(",")]
        for count, generated, n, _scale, _table1, _table2 in ROBOT:
            if count not in joints:
                continue
            X, Y = robot_arm.transitions(count, generated, seed=count)
            row(f"{count} joints", X, Y, n, runs, args.restarts, args.lsmi)


if __name__ == "__main__":
    main()
