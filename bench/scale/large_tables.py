"""Large tables through the command-line tool (issue 51): for each table and each method, the wall
seconds and the peak resident memory of every step a user takes — `cdens fit --test`, `cdens
predict` (log-density, mean, variance, quantiles 0.05/0.5/0.95), `cdens evaluate` (NLL, CRPS,
PIT, coverage of the central 90 % interval) and `cdens sample` (10 draws per row) — with the test
NLL, CRPS and 90 % coverage, beside two peers fitted in the same run on the same rows: the
Gaussian-output XGBoost of bench/peers/uci/peers.py (test NLL, CRPS, coverage) and scikit-learn's
HistGradientBoostingRegressor with quantile loss (three fits, at 0.05, 0.5 and 0.95; coverage of
their 90 % interval). Each timed step's growth exponent against n (the least-squares slope of
log seconds on log n) is printed when two or more n ran.

    build/venv/bin/python bench/scale/large_tables.py        # n = 10^4, 10^5, 10^6; d = 5, 20;
                                                             # kcde and auto; 10^5 query rows
    build/venv/bin/python bench/scale/large_tables.py --sets d5,d20,protein
    build/venv/bin/python bench/scale/large_tables.py --rows 10000,100000 --methods kcde \\
        --queries 10000 --peers hgb_quantile
    build/venv/bin/python bench/scale/large_tables.py --quick   # n = 10^4, 2,000 queries, d = 5,
                                                                # kcde, no peer; asserts the
                                                                # headline (in make test)

Tables: x uniform on [-2, 2]^d, y = sin(2 x0) + 0.5 x1 + 0.3 (0.5 + 0.5 |x2|) eps, eps standard
normal (the noise's scale moves with x2; the other inputs are irrelevant), d = 5 (d5) and d = 20
(d20); training rows from seed 0, query rows from seed 1, written as CSV (columns x0 … x{d-1}, y)
to a temporary directory. protein is split 0 of ../shared/data/uci (41,157 training and 4,573 test
rows, whatever --rows and --queries say), skipped with a message where ../shared is absent. Each
synthetic table also gets a row of the true p(y|x)'s NLL, CRPS and coverage, the floor the
estimators approach.

Each command runs under /usr/bin/time, whose %M is its peak resident memory; its seconds are the
wall time around it. The cdens commands take their default threads (OMP_NUM_THREADS), XGBoost one
thread (peers.py), the histogram boosting OpenMP's default. Timings need an idle machine: `uptime`
is printed before and after, and a peer's seconds beside cdens's in the same run are the
comparison that survives a busy one. XGBoost's exact greedy search on one thread grows with n:
about 16 s at 10^4 rows and 5 inputs, so expect the better part of an hour at 10^6 (`--peers`
leaves it out).
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

import numpy as np
import pandas as pd
from scipy.special import ndtri

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "papers"))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers", "uci"))
import headline  # noqa: E402
from headline import Headline, uptime  # noqa: E402
import peers  # noqa: E402

UCI = os.path.join(os.path.dirname(ROOT), "shared", "data", "uci")
SYNTHETIC_DIMS = {"d5": 5, "d20": 20}
TRAINING_SEED, QUERY_SEED = 0, 1
DRAWS_PER_ROW = 10
QUANTILES = (0.05, 0.5, 0.95)
LEVEL = 0.9
# The 90 % central interval of a Gaussian: mean ± Z_90 sd.
Z_90 = ndtri(0.5 + LEVEL / 2)
STEPS = ("fit", "predict", "evaluate", "sample")
PEERS = ("xgboost", "hgb_quantile")
PEER_LABELS = {"xgboost": "Gaussian XGBoost (peers.py)",
               "hgb_quantile": "HistGradientBoosting, 3 quantile fits",
               "truth": "true p(y|x)"}

QUICK_ROWS, QUICK_QUERIES = 10**4, 2000
# The quick mode's peak resident memory of each cdens step, at most, in GB. Measured at 10^4
# training rows, d = 5 and 2,000 queries (OMP_NUM_THREADS=1): fit with --test 0.060, predict 0.016,
# evaluate 0.016, sample 0.021. The bounds are about three times those, and each lies below what
# one (2,000 test rows × 10^4 training rows) block of doubles, 0.16 GB, would add to its step:
# the block the issue found behind fit --test's 15.7 GB.
QUICK_PEAK_GB = {"fit": 0.2, "predict": 0.06, "evaluate": 0.06, "sample": 0.06}
# KCDE's test NLL above the true p(y|x)'s in the quick mode, at most. Measured 0.098, the paired
# difference's standard error over the 2,000 query rows 0.008: the bound is 6 standard errors above
# it, so with the seeds fixed it fails on a fit worse by about 0.05 nats, not on another draw.
# (The claim the issue suggests, KCDE's test NLL below the Gaussian XGBoost's, does not hold here:
# 0.249 against 0.185, the truth's 0.151 — a Gaussian of moving mean and scale is this table's own
# family. Nor does a 90 % coverage within 0.03 of 0.9, 4.5 binomial standard errors at 2,000
# rows: KCDE's intervals are too wide on this table, 1.18 against the truth's 0.99 on average,
# and cover 0.940, a figure kept in the history rather than asserted.)
QUICK_EXCESS_NLL = 0.15
# fit --test and evaluate score the same rows with the same model: the kernel-sum engine answers
# each log-density within 1e-6 of the exact sum (docs/methods/kernel_sums.md), so the two mean
# NLLs agree within 1e-6 whichever path each takes.
NLL_AGREEMENT = 1e-6


def true_mean_and_sd(x):
    """The mean and standard deviation of the synthetic tables' p(y|x)."""
    return np.sin(2.0 * x[:, 0]) + 0.5 * x[:, 1], 0.3 * (0.5 + 0.5 * np.abs(x[:, 2]))


def synthetic_rows(n, dim, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, size=(n, dim))
    mean, sd = true_mean_and_sd(x)
    return x, mean + sd * rng.standard_normal(n)


def protein_split():
    """Training and test rows of protein's split 0, or None where ../shared is absent."""
    if not os.path.isdir(UCI):
        return None
    frame = pd.read_csv(os.path.join(UCI, "protein.csv"))
    with open(os.path.join(UCI, "protein_splits.json")) as handle:
        splits = json.load(handle)
    x, y = frame[splits["x"]].to_numpy(float), frame[splits["y"]].to_numpy(float)
    train, test = np.array(splits["train"][0]), np.array(splits["test"][0])
    return x[train], y[train], x[test], y[test]


def input_names(dim):
    return [f"x{i}" for i in range(dim)]


def write_table(path, x, y):
    """x and y as CSV with columns x0 … x{d-1}, y; pandas writes each number's shortest exact
    decimal, so cdens reads the same doubles the peers fit."""
    frame = pd.DataFrame(x, columns=input_names(x.shape[1]))
    frame["y"] = y
    frame.to_csv(path, index=False)


def timed_command(arguments):
    """headline.timed_command with the peak in GB."""
    output, seconds, kilobytes = headline.timed_command(arguments)
    return output, seconds, kilobytes * 1024 / 1e9


def reported(name, text):
    """The number after `name:` in a fit's report, or NaN where the fit does not print it."""
    match = re.search(rf"^{name}: (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else float("nan")


def all_finite(path):
    return bool(np.isfinite(pd.read_csv(path).to_numpy(float)).all())


def evaluate_scores(report_path):
    """NLL, CRPS, 90 % coverage and the PIT's Kolmogorov-Smirnov statistic from evaluate's
    --json report."""
    with open(report_path) as handle:
        report = json.load(handle)
    means = {score["name"]: score["mean"] for score in report["scores"]}
    return {"nll": -means["log_likelihood"], "crps": means["crps"],
            "coverage": means[f"central_coverage_{LEVEL:g}"],
            "pit_d": report["calibration"]["pit"]["statistic"]}


def cdens_steps(cli, method, directory, dim, query_rows):
    """Fits `method` on the directory's train.csv and answers its test.csv: each step's seconds
    and peak GB, the fit's own fit_seconds and test NLL, and evaluate's scores."""
    train, test = os.path.join(directory, "train.csv"), os.path.join(directory, "test.csv")
    model = os.path.join(directory, f"{method}.model")
    output = os.path.join(directory, "output.csv")
    report = os.path.join(directory, "evaluate.json")
    figures = {}
    fit_report, figures["fit s"], figures["fit GB"] = timed_command(
        [cli, "fit", train, "--method", method, "--x", ",".join(input_names(dim)), "--y", "y",
         "--test", test, "--out", model, "--quiet"])
    figures["fit_seconds"] = reported("fit_seconds", fit_report)
    figures["fit's test NLL"] = reported("test_nll", fit_report)
    _, figures["predict s"], figures["predict GB"] = timed_command(
        [cli, "predict", model, test, "--out", output, "--quiet"])
    figures["finite"] = all_finite(output)
    # The scores are read from the --json report (its per-pair values add a few MB at 10^5 rows)
    # rather than from the printed table.
    _, figures["evaluate s"], figures["evaluate GB"] = timed_command(
        [cli, "evaluate", model, test, "--scores", "log_likelihood,crps,central",
         "--interval-levels", f"{LEVEL:g}", "--json", report, "--quiet"])
    figures.update(evaluate_scores(report))
    _, figures["sample s"], figures["sample GB"] = timed_command(
        [cli, "sample", model, "--x-file", test, "--n", str(DRAWS_PER_ROW), "--out", output])
    draws = pd.read_csv(output, usecols=["y"])["y"].to_numpy()
    figures["finite"] &= len(draws) == DRAWS_PER_ROW * query_rows and np.isfinite(draws).all()
    return figures


def gaussian_scores(y, mean, sd):
    """NLL, CRPS and 90 % central coverage of Gaussian predictions N(mean, sd²)."""
    means, sds = mean.reshape(-1, 1), sd.reshape(-1, 1)
    return {"nll": -float(np.mean(peers.gaussian_mixture_log_pdf(y, means, sds))),
            "crps": float(np.mean(peers.gaussian_mixture_crps(y, means, sds))),
            "coverage": float(np.mean(np.abs(y - mean) <= Z_90 * sd))}


def gaussian_boosting(x, y, test_x, test_y):
    started = time.perf_counter()
    model = peers.GaussianBoosting().fit(x, y)
    seconds = time.perf_counter() - started
    means, sds = model.components(test_x)
    return {"fit s": seconds, **gaussian_scores(test_y, means[:, 0], sds[:, 0])}


def quantile_boosting(x, y, test_x, test_y):
    """Three quantile-loss fits (0.05, 0.5, 0.95): their seconds together, and the coverage of
    the interval between the outer two."""
    # Imported here, as peers.py imports XGBoost: the quick mode runs no peer.
    from sklearn.ensemble import HistGradientBoostingRegressor

    started = time.perf_counter()
    models = [HistGradientBoostingRegressor(loss="quantile", quantile=q, random_state=0).fit(x, y)
              for q in QUANTILES]
    seconds = time.perf_counter() - started
    lower, _, upper = (model.predict(test_x) for model in models)
    return {"fit s": seconds, "coverage": float(np.mean((lower <= test_y) & (test_y <= upper)))}


PEER_FITS = {"xgboost": gaussian_boosting, "hgb_quantile": quantile_boosting}

COLUMNS = [("fit s", "{:.3g}"), ("fit_seconds", "{:.3g}"), ("fit GB", "{:.3g}"),
           ("fit's test NLL", "{:.4f}"), ("predict s", "{:.3g}"), ("predict GB", "{:.3g}"),
           ("evaluate s", "{:.3g}"), ("evaluate GB", "{:.3g}"), ("sample s", "{:.3g}"),
           ("sample GB", "{:.3g}"), ("nll", "{:.4f}"), ("crps", "{:.4f}"),
           ("coverage", "{:.3f}"), ("pit_d", "{:.4f}")]
HEADER = ("| n | estimator | fit s | fit's own fit_seconds | fit peak GB | fit's test NLL | "
          "predict s | predict peak GB | evaluate s | evaluate peak GB | "
          f"sample ({DRAWS_PER_ROW} per row) s | sample peak GB | test NLL | CRPS | "
          "90 % coverage | PIT KS D |")


def print_row(n, estimator, figures):
    cells = [form.format(figures[name]) if name in figures else "—" for name, form in COLUMNS]
    print(f"| {n:,} | {estimator} | " + " | ".join(cells) + " |", flush=True)


def growth_exponent(rows, seconds):
    """The least-squares slope of log seconds on log n."""
    return float(np.polyfit(np.log(rows), np.log(seconds), 1)[0])


def print_exponents(results):
    """Each estimator's growth exponent of each timed step against n; results maps (n, estimator)
    to its figures."""
    print("\nGrowth exponents (slope of log seconds on log n):\n\n| estimator | "
          + " | ".join(STEPS) + " |\n| --- |" + " ---: |" * len(STEPS))
    for estimator in dict.fromkeys(name for _, name in results):
        runs = sorted(((n, figures) for (n, name), figures in results.items()
                       if name == estimator), key=lambda run: run[0])
        cells = [f"{growth_exponent([n for n, _ in runs], [f[step + ' s'] for _, f in runs]):.2f}"
                 if f"{step} s" in runs[0][1] else "—" for step in STEPS]
        print(f"| {estimator} | " + " | ".join(cells) + " |")


def table_sets(args):
    """(name, [(n, training x, training y)], test x, test y, true p(y|x) known) per set named."""
    for name in args.sets.split(","):
        if name in SYNTHETIC_DIMS:
            dim = SYNTHETIC_DIMS[name]
            tables = [(n, *synthetic_rows(n, dim, TRAINING_SEED)) for n in args.rows]
            yield name, tables, *synthetic_rows(args.queries, dim, QUERY_SEED), True
        elif name == "protein":
            split = protein_split()
            if split is None:
                print(f"\nprotein: skipped ({UCI}, the shared UCI sets, is not here)")
                continue
            x, y, test_x, test_y = split
            yield name, [(len(y), x, y)], test_x, test_y, False
        else:
            sys.exit(f"unknown table set {name!r}: d5, d20 or protein")


def run_set(args, name, tables, test_x, test_y, truth_known):
    """Every method and peer on every table of one set, printed as one markdown table; the
    figures by (n, estimator)."""
    dim = test_x.shape[1]
    print(f"\n### {name}: {dim} inputs, {len(test_y):,} query rows\n\n{HEADER}\n|"
          + " ---: | --- |" + " ---: |" * len(COLUMNS))
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        write_table(os.path.join(directory, "test.csv"), test_x, test_y)
        for n, x, y in tables:
            write_table(os.path.join(directory, "train.csv"), x, y)
            for method in args.methods.split(","):
                results[n, method] = cdens_steps(args.cli, method, directory, dim, len(test_y))
            for peer in args.peers:
                results[n, PEER_LABELS[peer]] = PEER_FITS[peer](x, y, test_x, test_y)
            if truth_known:
                results[n, PEER_LABELS["truth"]] = gaussian_scores(
                    test_y, *true_mean_and_sd(test_x))
            for (row_n, estimator), figures in results.items():
                if row_n == n:
                    print_row(n, estimator, figures)
    if len(tables) > 1:
        timed = {key: figures for key, figures in results.items()
                 if key[1] != PEER_LABELS["truth"]}
        print_exponents(timed)
    return results


def quick_headline(figures, truth):
    """The quick mode's claims on KCDE's figures, beside the truth's."""
    headline = Headline("Large tables")
    steps = {f"kcde {step} {unit}": figures[f"{step} {unit}"]
             for step in STEPS for unit in ("s", "GB")}
    scores = {"kcde test NLL": figures["nll"], "kcde fit's test NLL": figures["fit's test NLL"],
              "kcde CRPS": figures["crps"], "kcde 90 % coverage": figures["coverage"]}
    finite = figures["finite"] and np.isfinite(list(steps.values()) + list(scores.values())).all()
    headline.require(finite, "fit, predict, evaluate and sample ran, and every figure and "
                     "answer is finite", {**steps, **scores})
    fit_nll, evaluate_nll = figures["fit's test NLL"], figures["nll"]
    headline.require(abs(fit_nll - evaluate_nll) <= NLL_AGREEMENT, f"fit --test and evaluate "
                     f"give the same test NLL ({fit_nll:.6f}, {evaluate_nll:.6f}; within "
                     f"{NLL_AGREEMENT:g})")
    excess = evaluate_nll - truth["nll"]
    headline.require(excess <= QUICK_EXCESS_NLL, f"KCDE's test NLL {evaluate_nll:.4f} is within "
                     f"{QUICK_EXCESS_NLL} of the true p(y|x)'s {truth['nll']:.4f} ({excess:.4f})")
    for step in STEPS:
        peak = figures[f"{step} GB"]
        headline.require(peak <= QUICK_PEAK_GB[step], f"{step}: peak resident memory "
                         f"{peak:.3f} GB (at most {QUICK_PEAK_GB[step]} GB)")
    headline.finish()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="n = 10^4, 2,000 queries, d = 5, kcde, no peer; asserts")
    parser.add_argument("--sets", default="d5,d20", help="of d5, d20, protein (default d5,d20)")
    parser.add_argument("--rows", default="10000,100000,1000000",
                        help="training rows of the synthetic tables")
    parser.add_argument("--queries", type=int, default=10**5,
                        help="query rows of the synthetic tables")
    parser.add_argument("--methods", default="kcde,auto", help="cdens fit's --method values")
    parser.add_argument("--peers", default=",".join(PEERS), help="of " + ", ".join(PEERS))
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "cdens"))
    args = parser.parse_args()
    if args.quick:
        args.sets, args.rows, args.queries = "d5", str(QUICK_ROWS), QUICK_QUERIES
        args.methods, args.peers = "kcde", ""
    args.rows = [int(n) for n in args.rows.split(",")]
    args.peers = [peer for peer in args.peers.split(",") if peer]
    if not set(args.peers) <= set(PEERS):
        sys.exit(f"unknown peer in {args.peers}: of " + ", ".join(PEERS))
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"{args.cli}: no cdens command here (make release, or --cli)")
    print("before:", uptime())
    results = {}
    for name, *tables in table_sets(args):
        results[name] = run_set(args, name, *tables)
    print("\nafter:", uptime())
    if args.quick:
        quick = {estimator: figures for (_, estimator), figures in results["d5"].items()}
        quick_headline(quick["kcde"], quick[PEER_LABELS["truth"]])


if __name__ == "__main__":
    main()
