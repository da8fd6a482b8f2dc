"""Outputs with an atom (docs/methods/kcde.md, "Outputs with an atom"): KCDE with the atom
(`atom = auto`, the default) against KCDE as written (`atom = none`) and the continuous auto pool
(`auto` with `atom = none`), on a zero-inflated table whose truth is known and on Fair's affairs
survey (statsmodels' copy, 6,366 rows: `affairs` is 0 for 68 % of them).

    build/venv/bin/python bench/peers/cde/zero_inflated.py            # 2 seeds, 3,000 pairs
    build/venv/bin/python bench/peers/cde/zero_inflated.py --quick    # asserts the headline

Synthetic: x ~ U(-2, 2)^2, P(y = 0 | x) = 1 / (1 + exp(-(0.4 - 1.5 x0))), and for y > 0
log y ~ N(0.2 + 0.6 x0 + 0.4 x1, 0.5^2); held-out rows 4,000 (the auto pool's CRPS costs the
square of its components per row). Scores on them, each a mean with
its paired standard error against the atom model:
  mass      the mass's log-likelihood, log P(y = 0|x) at 0 and log P(y > 0|x) elsewhere (the
            atom model and the truth only: the others have no mass);
  cont.     the continuous part's, log f(y | x, y > 0) over the rows 0 < y <= the largest
            training output (likewise);
  ll>0      the log-density there, log P(y > 0|x) + log f: a density in every model;
  crps      the CRPS over every row (a proper score of any distribution on the line);
  cover90   the share of rows inside the 90 % central interval, those at the atom by their
            randomised PIT (0.9 for a calibrated model);
  seconds   the fit's.
A logistic regression of the indicator y = 0 on x (scikit-learn, standardised inputs) scores the
mass as the two-part alternative to the kernel-weighted one.
The truth's CRPS is the integral of (F - 1{y <= z})^2 on a grid of 4,001 points. The rows
beyond the largest training output (a few, in the log-normal's right tail) are counted apart:
there the kernels' tails are those of a Gaussian of the chosen width, and a row loses up to
hundreds of nats under the atom model and thousands under KCDE as written, which would hide
everything else in a mean.

Fair: a random half (seed 0) for the fit, the other half held out; the same scores but the
truth's. Its positive `affairs` take 76 values among 2,053 rows (a derived rate, tied), so the
continuous part's leave-one-out likelihood rewards spikes on the ties as today's KCDE's does on
the zeros; the mass and the CRPS are unaffected.

--quick: one seed of 1,500 pairs (the auto pool's CRPS on the first 1,000 held-out rows) and Fair
without the auto pool; asserts that the mass's and the
continuous part's held-out log-likelihood are within 0.02 and 0.12 nats of the truth's (plus
three paired standard errors; tests/python/test_output_atom.py says why), that the CRPS is
lower than KCDE as written's and the continuous pool's by more than three paired standard errors,
that the 90 % intervals cover within 0.03 of 0.9 and closer to it than KCDE as written's (the
kernels' smoothing in x widens p(y|x) at this n: measured 0.927 against 0.979), and on Fair that
the CRPS is lower than KCDE as written's.
"""

import argparse
import os
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import cdens  # noqa: E402
import cdens.metrics as metrics  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "papers"))
from headline import Headline  # noqa: E402


def zero_inflated(n, seed):
    """x, y and the truth's P(y = 0|x), log y's mean and spread."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, size=(n, 2))
    p_zero = 1.0 / (1.0 + np.exp(-(0.4 - 1.5 * x[:, 0])))
    mu = 0.2 + 0.6 * x[:, 0] + 0.4 * x[:, 1]
    zero = rng.uniform(size=n) < p_zero
    y = np.where(zero, 0.0, np.exp(mu + 0.5 * rng.normal(size=n)))
    return x, y, p_zero, mu


def truth_log_likelihood(y, p_zero, mu, sigma=0.5):
    """The truth's log-likelihood per row in two parts: the mass's (log P(y = 0|x) at 0,
    log P(y > 0|x) elsewhere) and the continuous part's (log of the log-normal density at y > 0,
    NaN at 0)."""
    zero = y == 0.0
    log_y = np.log(np.where(zero, 1.0, y))
    mass = np.where(zero, np.log(p_zero), np.log1p(-p_zero))
    continuous = np.where(zero, np.nan, -log_y - np.log(sigma * np.sqrt(2 * np.pi))
                          - 0.5 * ((log_y - mu) / sigma) ** 2)
    return mass, continuous


def truth_scores(y, p_zero, mu, sigma=0.5):
    """The truth's mass and continuous log-likelihood per row, and its CRPS by quadrature."""
    mass, continuous = truth_log_likelihood(y, p_zero, mu, sigma)
    from scipy.special import ndtr
    crps = np.empty(len(y))
    for i in range(len(y)):
        top = max(y[i], np.exp(mu[i] + 8 * sigma)) * 1.01
        grid = np.linspace(0.0, top, 4001)
        cdf = p_zero[i] + (1 - p_zero[i]) * ndtr((np.log(np.maximum(grid, 1e-300)) - mu[i]) / sigma)
        cdf[0] = p_zero[i]
        crps[i] = np.trapz((cdf - (grid >= y[i])) ** 2, grid)
    return mass, continuous, crps


def model_scores(model, x, y, largest, seconds, crps_rows=None):
    """The per-row scores of a fitted model (mass and continuous part where it has an atom);
    the log-densities at 0 < y <= `largest` only; the CRPS on the first `crps_rows` rows (every
    row by default; NaN beyond them, which the paired differences leave out)."""
    inside = (y > 0.0) & (y <= largest)
    log_density = model.log_pdf(x, y)
    crps = np.full(len(y), np.nan)
    scored = slice(0, crps_rows)
    crps[scored] = metrics.crps(model, x[scored], y[scored])
    scores = {"ll>0": np.where(inside, log_density, np.nan), "crps": crps, "seconds": seconds}
    if model.atom_ is not None:
        p_zero = model.predict_atom_probability(x)
        scores["mass"] = np.where(y == 0.0, np.log(p_zero), np.log1p(-p_zero))
        scores["cont."] = np.where(inside, log_density - np.log1p(-p_zero), np.nan)
    pit = metrics.pit(model, x, y, random_state=0)
    scores["cover90"] = (np.abs(pit - 0.5) <= 0.45).astype(float)
    return scores


def logistic_scores(x, y, test_x, test_y):
    """The mass's log-likelihood of a logistic regression of the indicator y = 0 on x (inputs
    standardised, scikit-learn's default penalty): the two-part model's alternative to the
    kernel-weighted mass."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    started = time.perf_counter()
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(x, y == 0.0)
    seconds = time.perf_counter() - started
    p_zero = model.predict_proba(test_x)[:, list(model.classes_).index(True)]
    zero = test_y == 0.0
    return {"mass": np.where(zero, np.log(p_zero), np.log1p(-p_zero)), "seconds": seconds}


def fitted(make, x, y):
    started = time.perf_counter()
    model = make().fit(x, y)
    return model, time.perf_counter() - started


def paired(ours, theirs):
    """Mean of theirs − ours over the rows both have, and its standard error."""
    kept = ~(np.isnan(ours) | np.isnan(theirs))
    difference = theirs[kept] - ours[kept]
    return difference.mean(), difference.std(ddof=1) / np.sqrt(kept.sum())


def report(name, results, reference="atom"):
    print(f"\n{name}")
    columns = ["mass", "cont.", "ll>0", "crps", "cover90"]
    print(f"  {'model':<22}" + "".join(f"{c:>22}" for c in columns) + f"{'seconds':>10}")
    ours = results[reference]
    for label, scores in results.items():
        cells = []
        for column in columns:
            if column not in scores:
                cells.append("—")
                continue
            values = scores[column]
            mean = np.nanmean(values)
            if label == reference or column not in ours or column == "cover90":
                kept = values[~np.isnan(values)]
                cells.append(f"{mean:.4f} ± {kept.std(ddof=1) / np.sqrt(len(kept)):.4f}")
            else:
                difference, error = paired(ours[column], values)
                cells.append(f"{mean:.4f} ({difference:+.4f}±{error:.4f})")
        seconds = scores.get("seconds")
        print(f"  {label:<22}" + "".join(f"{c:>22}" for c in cells)
              + (f"{seconds:>10.1f}" if seconds is not None else f"{'':>10}"))
    print("  (in parentheses: the row's model minus the atom model, paired standard error)")


def synthetic(n_train, seed, with_pool, pool_crps_rows=None):
    x, y, _, _ = zero_inflated(n_train, seed)
    test_x, test_y, p_zero, mu = zero_inflated(4000, 1000 + seed)
    mass, continuous, crps = truth_scores(test_y, p_zero, mu)
    inside = (test_y > 0) & (test_y <= y.max())
    continuous = np.where(inside, continuous, np.nan)
    results = {"truth": {"mass": mass, "cont.": continuous, "ll>0": mass + continuous,
                         "crps": crps}}
    models = {"atom": lambda: cdens.KernelCDE(random_state=seed),
              "kcde, atom=none": lambda: cdens.KernelCDE(atom="none", random_state=seed)}
    if with_pool:
        models["auto, atom=none"] = lambda: cdens.AutoCDE(atom="none", random_state=seed)
    for label, make in models.items():
        model, seconds = fitted(make, x, y)
        crps_rows = pool_crps_rows if label.startswith("auto") else None
        results[label] = model_scores(model, test_x, test_y, y.max(), seconds, crps_rows)
    results["logistic (mass only)"] = logistic_scores(x, y, test_x, test_y)
    results = {"atom": results.pop("atom"), **results}
    report(f"synthetic, {n_train} pairs, seed {seed} (4,000 held out, "
           f"{np.mean(test_y == 0):.3f} at 0, {np.sum(test_y > y.max())} beyond the largest "
           f"training output)", results)
    return results


def fair(with_pool):
    from statsmodels.datasets import fair as fair_data
    data = fair_data.load_pandas().data
    y = data["affairs"].to_numpy(dtype=float)
    x = np.ascontiguousarray(data.drop(columns="affairs").to_numpy(dtype=float))
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[: len(y) // 2], order[len(y) // 2:]
    results = {}
    models = {"atom": lambda: cdens.KernelCDE(random_state=0),
              "kcde, atom=none": lambda: cdens.KernelCDE(atom="none", random_state=0)}
    if with_pool:
        models["auto, atom=none"] = lambda: cdens.AutoCDE(atom="none", random_state=0)
    for label, make in models.items():
        model, seconds = fitted(make, x[train], y[train])
        results[label] = model_scores(model, x[test], y[test], y[train].max(), seconds)
    results["logistic (mass only)"] = logistic_scores(x[train], y[train], x[test], y[test])
    report(f"Fair's affairs, {len(train)} pairs fitted, {len(test)} held out "
           f"({np.mean(y[test] == 0):.3f} at 0, {np.sum(y[test] > y[train].max())} beyond the "
           f"largest training output)", results)
    return results


def main():
    # Fair's coded inputs look discrete and are smoothed as continuous, as a user fitting them
    # undeclared does (the warning says so once per input and fit).
    warnings.filterwarnings("ignore", category=cdens.CdensWarning)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=2)
    arguments = parser.parse_args()
    if arguments.quick:
        # The pool's CRPS on 1,000 of the held-out rows: its closed form costs the square of the
        # pool's components per row (108 s more for all 4,000).
        results = synthetic(1500, 1, True, pool_crps_rows=1000)
        ours, truth = results["atom"], results["truth"]
        headline = Headline("Outputs with an atom")
        for column, tolerance in (("mass", 0.02), ("cont.", 0.12)):
            difference, error = paired(ours[column], truth[column])
            headline.require(difference < tolerance + 3 * error,
                             f"{column} log-likelihood within {tolerance} + 3 SE of the truth's "
                             f"({difference:.4f}, SE {error:.4f})",
                             {f"{column} log-likelihood below the truth's": difference})
        for other in ("kcde, atom=none", "auto, atom=none"):
            difference, error = paired(ours["crps"], results[other]["crps"])
            headline.require(difference > 3 * error,
                             f"CRPS lower than {other}'s by {difference:.4f} (SE {error:.4f})",
                             {f"CRPS below {other}'s": difference})
        # The kernels' smoothing in x widens p(y|x) (y's mean moves with x0 within a bandwidth):
        # KCDE over-covers at this n, the atom model by 0.027 and KCDE as written by 0.08.
        coverage = ours["cover90"].mean()
        plain = results["kcde, atom=none"]["cover90"].mean()
        headline.require(abs(coverage - 0.9) < 0.03 and abs(coverage - 0.9) < abs(plain - 0.9),
                         f"90 % intervals cover {coverage:.4f}, within 0.03 of 0.9 and closer "
                         f"than KCDE as written's {plain:.4f}",
                         {"coverage of the 90 % intervals": coverage})
        survey = fair(False)
        difference, error = paired(survey["atom"]["crps"], survey["kcde, atom=none"]["crps"])
        headline.require(difference > 3 * error,
                         f"Fair: CRPS lower than KCDE as written's by {difference:.4f} "
                         f"(SE {error:.4f})", {"Fair: CRPS below KCDE as written's": difference})
        headline.finish()
        return
    for seed in range(arguments.seeds):
        synthetic(arguments.n, seed, True)
    fair(True)


if __name__ == "__main__":
    main()
