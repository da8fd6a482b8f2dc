"""Reproduces the experiments of Tangkaratt, Xie & Sugiyama, "Conditional density estimation
with dimensionality reduction via squared-loss conditional entropy minimization" (LSCE):

* artificial: the data sets (a) and (b) of section 3.2 (d_x = 5, d_y = 1, 20 runs per n): the DR
  error ||W^T W - W*^T W*||_F of LSCE and LSMI, and the CDE error (the SQ criterion of section
  3.2 on 1000 test points) of None/LSCE/LSMI/True x LSCDE/ε-KDE; tables and PNG plots;
* uci: the UCI rows of Table 1 (n random training rows, the rest for testing, 10 runs, d_z by
  cross-validation) beside the paper's numbers, and Table 2's chosen d_z;
* robot: the 2-, 4- and 9-joint rows on our robot-arm simulator (robot_arm.py, a stand-in for
  the paper's CB-i simulator).

    build/venv/bin/python bench/papers/lsce/run.py                 # everything, full
    build/venv/bin/python bench/papers/lsce/run.py --quick         # seconds: make test
    build/venv/bin/python bench/papers/lsce/run.py --parts uci --datasets Servo,Yacht --runs 3
    build/venv/bin/python bench/papers/lsce/run.py --parts uci --lsce-only   # LSCE's two modes

Each run standardises x and y with its training half's mean and n - 1 standard deviation; UCI
and robot errors are in those units (the paper normalises every dimension, section 2.7), the
artificial sets' in the units of their generator. The paper's UCI numbers are 3-10 times more
negative than ours in standardised units even for plain LSCDE, which fits y rescaled to [0, 1]
(max - min of the whole dataset) far better; the tables therefore also print our errors in
those units (error x prod_d range_d / sd_d, the Jacobian of the change of units) — a
hypothesis about the paper's units, see docs/benchmarks.md. LSCE/ε-KDE and LSMI/ε-KDE apply
ε-KDE to the projection found by LSCE and LSMI in the same run, which is what cdens's lsce-ekde and
lsmi-ekde methods compute with the same seed.
"""

import argparse
import csv
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import cdens  # noqa: E402
import robot_arm  # noqa: E402
from datasets import DATASETS, METHODS, ROBOT  # noqa: E402
from headline import Headline  # noqa: E402

# Our columns: the paper's, with LSCE/LSCDE in both final-model modes — the default LSCDE
# refitted on z with KL cross-validation, and "LSCE(paper)/LSCDE", the LSCDE inside the SCE
# estimate (section 2.6); both compare with the paper's LSCE/LSCDE.
PAPER_MODE = "LSCE(paper)/LSCDE"
OURS = METHODS[:1] + (PAPER_MODE,) + METHODS[1:]
ARTIFICIAL_NS = (100, 200, 300, 400)
ARTIFICIAL_RUNS = 20
UCI_RUNS = 10
TEST_POINTS = 1000


# -- pieces ------------------------------------------------------------------------------------

def sq_error(model, X, Y):
    """(1/2n') sum_i int p(y|x_i)^2 dy - (1/n') sum_i p(y_i|x_i) (section 3.2)."""
    return 0.5 * float(np.mean(model.model_.squared_norm(X))) - float(np.mean(model.pdf(X, Y)))


def user_subspace(model, X):
    """Orthonormal rows spanning the fitted subspace in the coordinates of X (W acts on x
    standardised by the fit: its rows in X's coordinates are W diag(1/s_x))."""
    w = model.components_ / X.std(axis=0, ddof=1)
    q, _ = np.linalg.qr(w.T)
    return q.T


def dr_error(w, w_true):
    return float(np.linalg.norm(w.T @ w - w_true.T @ w_true))


def two_step(make, Z_train, Y_train, Z_test, Y_test):
    model = make().fit(Z_train, Y_train)
    return sq_error(model, Z_test, Y_test)


def all_methods(X_train, Y_train, X_test, Y_test, seed, dz, restarts, true_w=None,
                lsce_only=False):
    """SQ errors of every combination, the chosen d_z and W of LSCE and LSMI, and LSCE's time;
    with lsce_only, LSCE/LSCDE in its two final-model modes only."""
    errors, chosen, subspaces = {}, {}, {}
    lscde = lambda: cdens.LSCDE(random_state=seed)  # noqa: E731
    ekde = lambda: cdens.EpsilonKDE(random_state=seed)  # noqa: E731
    started = time.perf_counter()
    lsce = cdens.LSCE(n_components=dz, n_restarts=restarts, random_state=seed).fit(X_train, Y_train)
    lsce_seconds = time.perf_counter() - started
    paper_mode = cdens.LSCE(n_components=dz, n_restarts=restarts, final_model="paper",
                            random_state=seed).fit(X_train, Y_train)
    errors[PAPER_MODE] = sq_error(paper_mode, X_test, Y_test)
    chosen["LSCE(paper)"] = paper_mode.n_components_
    if lsce_only:
        errors["LSCE/LSCDE"] = sq_error(lsce, X_test, Y_test)
        chosen["LSCE"] = lsce.n_components_
        return errors, chosen, subspaces, lsce_seconds
    lsmi = cdens.LSMI(n_components=dz, n_restarts=restarts, random_state=seed).fit(X_train, Y_train)
    errors["LSCE/LSCDE"] = sq_error(lsce, X_test, Y_test)
    errors["LSCE/ε-KDE"] = two_step(ekde, lsce.transform(X_train), Y_train,
                                    lsce.transform(X_test), Y_test)
    errors["LSMI/LSCDE"] = sq_error(lsmi, X_test, Y_test)
    errors["LSMI/ε-KDE"] = two_step(ekde, lsmi.transform(X_train), Y_train,
                                    lsmi.transform(X_test), Y_test)
    errors["None/LSCDE"] = two_step(lscde, X_train, Y_train, X_test, Y_test)
    errors["None/ε-KDE"] = two_step(ekde, X_train, Y_train, X_test, Y_test)
    if true_w is not None:
        errors["True/LSCDE"] = two_step(lscde, X_train @ true_w.T, Y_train, X_test @ true_w.T,
                                        Y_test)
        errors["True/ε-KDE"] = two_step(ekde, X_train @ true_w.T, Y_train, X_test @ true_w.T,
                                        Y_test)
    for name, model in (("LSCE", lsce), ("LSMI", lsmi)):
        chosen[name] = model.n_components_
        subspaces[name] = user_subspace(model, X_train)
    return errors, chosen, subspaces, lsce_seconds


def mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else float("nan")
    return float(values.mean()), float(se)


def cell(values):
    if len(values) == 0:
        return "–"  # not fitted (--lsce-only)
    mean, se = mean_se(values)
    return f"{mean:.2f}({se:.2f})" if np.isfinite(se) else f"{mean:.2f}"


# -- artificial sets (section 3.2) ---------------------------------------------------------------

def artificial_sample(which, n, rng):
    x = rng.standard_normal((n, 5))
    noise = 0.25 * rng.standard_normal(n)
    if which == "a":
        return x, x[:, 0] ** 2 + x[:, 1] ** 2 + noise
    v = x[:, 1]
    return x, v + v ** 2 + v ** 3 + noise


TRUE_W = {"a": np.eye(5)[:2], "b": np.eye(5)[1:2]}


def artificial(sets, ns, runs, restarts, out, rows):
    combos = [f"{r}/{e}" for r in ("None", "LSCE", "LSMI", "True") for e in ("LSCDE", "ε-KDE")]
    combos.insert(combos.index("LSCE/ε-KDE"), PAPER_MODE)
    summary = {}
    for which in sets:
        for n in ns:
            dr = {"LSCE": [], "LSMI": []}
            cde = {c: [] for c in combos}
            for run in range(runs):
                rng = np.random.default_rng(1000 * run + n + (0 if which == "a" else 7))
                X, Y = artificial_sample(which, n, rng)
                Xt, Yt = artificial_sample(which, TEST_POINTS, rng)
                errors, _chosen, subspaces, _ = all_methods(
                    X, Y, Xt, Yt, run, TRUE_W[which].shape[0], restarts, TRUE_W[which])
                for name in dr:
                    dr[name].append(dr_error(subspaces[name], TRUE_W[which]))
                for c in combos:
                    cde[c].append(errors[c])
                rows.append({"part": "artificial", "set": which, "n": n, "run": run,
                             **{f"dr_{k}": v[-1] for k, v in dr.items()},
                             **{c: v[-1] for c, v in cde.items()}})
            summary[(which, n)] = (dr, cde)
    print("\n## Artificial sets (section 3.2): DR error ||W^T W - W*^T W*||_F, mean(se) over",
          runs, "runs\n")
    print("| set | n | LSCE | LSMI |\n| --- | --- | --- | --- |")
    for (which, n), (dr, _cde) in summary.items():
        print(f"| ({which}) | {n} | {cell(dr['LSCE'])} | {cell(dr['LSMI'])} |")
    print("\n## Artificial sets: CDE error (SQ criterion, 1000 test points), mean(se)\n")
    print("| set | n | " + " | ".join(combos) + " |\n|" + " --- |" * (len(combos) + 2))
    for (which, n), (_dr, cde) in summary.items():
        print(f"| ({which}) | {n} | " + " | ".join(cell(cde[c]) for c in combos) + " |")
    if out:
        plot_artificial(summary, sets, ns, combos, out)
    return summary


# A subspace drawn at random lies far from the true one: E‖W^T W − W*^T W*‖²_F = 2r − 2r²/5 for
# rank r in 5-D (about 1.55 and 1.26 for sets (a) and (b)); an error of at most 0.5 is a found
# subspace.
FOUND_SUBSPACE = 0.5


def check_artificial(headline, summary):
    """Section 3.2's claims: LSCE finds the subspace, and LSCDE on it is no worse than LSCDE on
    every input."""
    for (which, n), (dr, cde) in summary.items():
        error = np.mean(dr["LSCE"])
        headline.require(error <= FOUND_SUBSPACE,
                         f"set ({which}), n = {n}: LSCE DR error {error:.3f} ≤ {FOUND_SUBSPACE}",
                         {f"set ({which}), n = {n}: LSCE DR error": error})
        reduced, full = np.mean(cde["LSCE/LSCDE"]), np.mean(cde["None/LSCDE"])
        headline.require(reduced <= full,
                         f"set ({which}), n = {n}: LSCE/LSCDE CDE error {reduced:.3f} ≤ "
                         f"None/LSCDE {full:.3f}",
                         {f"set ({which}), n = {n}: LSCE/LSCDE CDE error": reduced,
                          f"set ({which}), n = {n}: None/LSCDE CDE error": full})


def plot_artificial(summary, sets, ns, combos, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(len(sets), 2, figsize=(11, 4 * len(sets)), layout="constrained",
                                squeeze=False)
    for row, which in enumerate(sets):
        for name in ("LSCE", "LSMI"):
            stats = [mean_se(summary[(which, n)][0][name]) for n in ns]
            axes[row, 0].errorbar(ns, [m for m, _ in stats], [s for _, s in stats], label=name,
                                  capsize=3)
        axes[row, 0].set_title(f"({which}) DR error")
        axes[row, 0].set_xlabel("n")
        axes[row, 0].legend()
        for c in combos:
            stats = [mean_se(summary[(which, n)][1][c]) for n in ns]
            axes[row, 1].errorbar(ns, [m for m, _ in stats], [s for _, s in stats], label=c,
                                  capsize=3, linestyle="-" if "LSCDE" in c else "--")
        axes[row, 1].set_title(f"({which}) CDE error (SQ)")
        axes[row, 1].set_xlabel("n")
        axes[row, 1].legend(fontsize="small", ncol=2)
    figure.savefig(os.path.join(out, "lsce_artificial.png"), dpi=110)
    plt.close(figure)


# -- UCI and robot rows (sections 3.3, 3.4) -------------------------------------------------------

def load(dataset):
    import pandas as pd

    frame = pd.read_csv(os.path.join(REPO, "data", dataset.file))
    return frame[list(dataset.x)].to_numpy(float), frame[list(dataset.y)].to_numpy(float)


def standardise(train, test):
    """Both arrays mapped with the training mean and n - 1 standard deviation per column; a
    column constant on the training rows (Forest Fires' rain in a draw of 100) is only
    centred: it carries no information about y there, and the estimators refuse constant
    columns, so it is dropped."""
    mean, scale = train.mean(axis=0), train.std(axis=0, ddof=1)
    keep = scale > 0
    scale = np.where(keep, scale, 1.0)
    return (np.ascontiguousarray(((train - mean) / scale)[:, keep]),
            np.ascontiguousarray(((test - mean) / scale)[:, keep]))


def table_rows(name, X, Y, n, runs, restarts, rows, split_seed, lsce_only=False):
    """Every method (or LSCE's two modes only) on the runs `runs` (indices: run r splits with
    seed split_seed + r and fits with seed r, so runs done by separate processes combine into
    the same table)."""
    errors = {m: [] for m in OURS}
    dims = {"LSCE": [], "LSCE(paper)": [], "LSMI": []}
    seconds = []
    factors = []
    for run in runs:
        order = np.random.default_rng(split_seed + run).permutation(X.shape[0])
        train, test = order[:n], order[n:]
        Xtr, Xte = standardise(X[train], X[test])
        Ytr, Yte = standardise(Y[train], Y[test])
        result, chosen, _w, lsce_seconds = all_methods(Xtr, Ytr, Xte, Yte, run, None, restarts,
                                                       lsce_only=lsce_only)
        for m in result:
            errors[m].append(result[m])
        for k in chosen:
            dims[k].append(chosen[k])
        seconds.append(lsce_seconds)
        # Standardised units to units of y rescaled to [0, 1] over the whole dataset.
        ranges = Y.max(axis=0) - Y.min(axis=0)
        factors.append(float(np.prod(ranges / Y[train].std(axis=0, ddof=1))))
        rows.append({"part": name, "run": run, **result, "dz_LSCE": chosen["LSCE"],
                     "dz_LSCE_paper": chosen["LSCE(paper)"], "dz_LSMI": chosen.get("LSMI", ""),
                     "lsce_seconds": lsce_seconds, "range_factor": factors[-1]})
        others = "" if lsce_only else (f", LSMI/LSCDE {result['LSMI/LSCDE']:.4g}, None/LSCDE "
                                       f"{result['None/LSCDE']:.4g}")
        print(f"  {name} run {run}: LSCE/LSCDE {result['LSCE/LSCDE']:.4g} (paper mode "
              f"{result[PAPER_MODE]:.4g}){others} (standardised), d_z {chosen['LSCE']} / "
              f"{chosen.get('LSMI', '–')}, LSCE {lsce_seconds:.0f} s", file=sys.stderr, flush=True)
    return errors, dims, seconds, factors


def within_paper(ours, paper, scale):
    """Our mean at most the paper's mean plus two of its standard errors (errors read as
    printed value x scale)."""
    mean, _ = mean_se(ours)
    return mean <= (paper[0] + 2 * paper[1]) * scale


def print_table(title, results):
    for units in ("standardised y", "y rescaled to [0, 1]"):
        print(f"\n## {title}: SQ error in {units}, mean(se) over runs, ours / paper (the "
              "printed value; ours divided by the table's scale)\n")
        print("| data | n | " + " | ".join(OURS) +
              " | LSCE/LSCDE ≤ paper + 2se (default / paper mode) | LSCE s |")
        print("|" + " --- |" * (len(OURS) + 4))
        met = {"LSCE/LSCDE": 0, PAPER_MODE: 0}
        for name, n, scale, paper, (errors, _dims, seconds, factors) in results:
            factor = np.asarray(factors) if units != "standardised y" else 1.0
            cells = []
            for m in OURS:
                ours = np.asarray(errors[m]) * (factor if errors[m] else 1.0) / scale
                reference = paper["LSCE/LSCDE" if m == PAPER_MODE else m]
                cells.append(f"{cell(ours)} / {reference[0]:.2f}({reference[1]:.2f})")
            ok = {}
            for m in met:
                ok[m] = within_paper(np.asarray(errors[m]) * factor, paper["LSCE/LSCDE"], scale)
                met[m] += ok[m]
            marks = " / ".join("yes" if ok[m] else "NO" for m in met)
            print(f"| {name} | {n} | " + " | ".join(cells) + f" | {marks} | "
                  f"{np.mean(seconds):.1f} |")
        print(f"\nLSCE/LSCDE within paper mean + 2 se ({units}): {met['LSCE/LSCDE']} of "
              f"{len(results)} (default, LSCDE refitted on z), {met[PAPER_MODE]} of "
              f"{len(results)} (paper mode)")
        for name, _n, _scale, _paper, (errors, *_rest) in results:
            if not errors["LSMI/LSCDE"]:
                continue
            default = np.asarray(errors["LSCE/LSCDE"])
            lsmi = np.asarray(errors["LSMI/LSCDE"])
            print(f"- {name}: default LSCE/LSCDE positive in {int((default > 0).sum())} of "
                  f"{default.size} runs; mean {default.mean():.4g} against LSMI/LSCDE "
                  f"{lsmi.mean():.4g} (standardised)")


def print_dims(title, results):
    print(f"\n## {title}: chosen d_z, mean(se), ours / paper (Table 2, LSCE/LSCDE and "
          "LSMI/LSCDE)\n")
    print("| data | d_x | LSCE | LSCE (paper mode) | LSMI |\n| --- | --- | --- | --- | --- |")
    for name, dx, table2, dims in results:
        print(f"| {name} | {dx} | {cell(dims['LSCE'])} / {table2['LSCE/LSCDE'][0]} | "
              f"{cell(dims['LSCE(paper)'])} | {cell(dims['LSMI'])} / "
              f"{table2['LSMI/LSCDE'][0]} |")


def report_progress(name, out):
    """One line on stderr per finished row, so that a long run shows what it has measured."""
    errors, dims, seconds, factors = out
    rescaled = np.asarray(errors["LSCE/LSCDE"]) * np.asarray(factors)
    print(f"{name}: LSCE/LSCDE {cell(errors['LSCE/LSCDE'])} standardised, {cell(rescaled)} "
          f"rescaled, d_z {cell(dims['LSCE'])}, {np.mean(seconds):.1f} s per LSCE fit",
          file=sys.stderr, flush=True)


def uci(names, runs, restarts, rows, lsce_only=False):
    results, dim_rows = [], []
    for dataset in DATASETS:
        if names and dataset.name not in names:
            continue
        X, Y = load(dataset)
        out = table_rows(dataset.name, X, Y, dataset.n, runs, restarts, rows, 0, lsce_only)
        results.append((dataset.name, dataset.n, dataset.scale, dataset.table1, out))
        dim_rows.append((dataset.name, X.shape[1], dataset.table2, out[1]))
        report_progress(dataset.name, out)
    print_table("UCI rows of Table 1", results)
    print_dims("UCI rows of Table 2", dim_rows)


def robot(joint_counts, runs, restarts, rows, quick, lsce_only=False):
    results, dim_rows = [], []
    for joints, generated, n, scale, table1, table2 in ROBOT:
        if joint_counts and joints not in joint_counts:
            continue
        if quick:
            generated, n = 200, 60
        X, Y = robot_arm.transitions(joints, generated, seed=joints)
        out = table_rows(f"{joints} joints", X, Y, n, runs, restarts, rows, 0, lsce_only)
        results.append((f"{joints} joints", n, scale, table1, out))
        dim_rows.append((f"{joints} joints", X.shape[1], table2, out[1]))
        report_progress(f"{joints} joints", out)
    print_table("Robot rows (our simulator, not CB-i)", results)
    print_dims("Robot rows", dim_rows)


def run_indices(args, default_count):
    return range(args.first_run, args.first_run + (args.runs or default_count))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--parts", default="artificial,uci,robot")
    parser.add_argument("--datasets", default="", help="UCI datasets by Table 1 name")
    parser.add_argument("--joints", default="", help="robot scenarios, e.g. 2,4")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--first-run", type=int, default=0,
                        help="UCI and robot rows: start at this run index (to split the runs "
                             "of a long row over processes)")
    parser.add_argument("--restarts", type=int, default=None)
    parser.add_argument("--lsce-only", action="store_true",
                        help="UCI and robot rows: fit LSCE/LSCDE in its two final-model modes "
                             "only (the other columns print as –)")
    parser.add_argument("--ns", default=None, help="artificial sample sizes, e.g. 100,400")
    parser.add_argument("--sets", default="a,b", help="artificial sets")
    parser.add_argument("--out", default=os.path.join(REPO, "out", "lsce"))
    args = parser.parse_args()
    parts = args.parts.split(",")
    restarts = args.restarts or (2 if args.quick else 20)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    headline = Headline("LSCE paper, section 3.2")
    if "artificial" in parts:
        ns = tuple(int(v) for v in args.ns.split(",")) if args.ns else (
            (100,) if args.quick else ARTIFICIAL_NS)
        summary = artificial(args.sets.split(","), ns,
                             args.runs or (1 if args.quick else ARTIFICIAL_RUNS), restarts,
                             None if args.quick else args.out, rows)
        check_artificial(headline, summary)
    if "uci" in parts:
        names = args.datasets.split(",") if args.datasets else (
            ["Servo"] if args.quick else [])
        uci(names, run_indices(args, 1 if args.quick else UCI_RUNS), restarts, rows,
            args.lsce_only)
    if "robot" in parts:
        joints = [int(j) for j in args.joints.split(",")] if args.joints else (
            [2] if args.quick else [])
        robot(joints, run_indices(args, 1 if args.quick else UCI_RUNS), restarts, rows,
              args.quick, args.lsce_only)
    if rows and not args.quick:
        keys = sorted({k for r in rows for k in r})
        with open(os.path.join(args.out, f"lsce_runs_{'_'.join(parts)}.csv"), "w",
                  newline="", encoding="utf-8") as file:
            writer = csv.DictWriter(file, keys)
            writer.writeheader()
            writer.writerows(rows)
    if args.quick:
        headline.finish()


if __name__ == "__main__":
    main()
