"""The evaluation protocol of Table 1 of Sugiyama et al., Least-Squares Conditional Density
Estimation (IEICE 2010), section 4.2, as reusable pieces.

* Each run draws a random half of the rows for fitting and keeps the rest for testing; the
  paper's (n, d_X) column gives n = floor(N / 2) for every dataset whose size we know.
* The score is the test negative log-likelihood NLL = -(1/n~) sum_i log p(y~_i | x~_i) (eq. 10).
  The paper standardises every input and output dimension (section 2.6) and its NLL values
  are in those units: heights scores 1.29, the NLL of a Gaussian with the residual standard
  deviation 0.87 of a standardised regression with correlation 0.49 (in inches it would be
  2.24). Here each run standardises x and y with the mean and the n - 1 standard deviation of
  its training half and applies that map to both halves, so an estimator that reports
  densities in the units it was given reports them in the paper's units, and every estimator
  sees the same data.
* An estimator is a callable fit_and_score(X_train, Y_train, X_test, Y_test, seed) -> test NLL,
  or a dict of test scores with the NLL under "nll" (cdens's estimators add the mean CRPS and
  the coverage of the central 90 % interval); seed drives its own randomness (centres, folds)
  and is the run number.
* Marking (Table 1 caption): the method with the best mean NLL and the methods comparable to it
  by the two-sided paired t-test at the 5% level are in bold face. The pairs are the runs,
  which share their split.
* mean +- std over the runs; std with divisor runs - 1 (MATLAB's std, the authors' tool).
"""

import time
from typing import Dict, NamedTuple

import numpy as np
from scipy import stats

SIGNIFICANCE = 0.05


def split_indices(n_rows, seed):
    """A seeded random half of range(n_rows) for training (floor(n_rows / 2) rows) and the rest
    for testing, as two sorted index arrays."""
    order = np.random.default_rng(seed).permutation(n_rows)
    n_train = n_rows // 2
    return np.sort(order[:n_train]), np.sort(order[n_train:])


def standardise(train, test):
    """Both arrays mapped with the training mean and n - 1 standard deviation per column."""
    mean = train.mean(axis=0)
    scale = train.std(axis=0, ddof=1)
    if not (scale > 0).all():
        raise ValueError(f"column {int(np.argmin(scale))} is constant on the training half")
    return (train - mean) / scale, (test - mean) / scale


class Outcome(NamedTuple):
    """One estimator over the runs: the test NLL, the seconds per fit and every score it
    reported ("nll" included), each an array over the runs."""
    nll: np.ndarray
    seconds: np.ndarray
    scores: Dict[str, np.ndarray]


def run_once(estimators, X, Y, seed):
    """One split of (X, Y) scored by every estimator: {name: ({score: value}, seconds)}."""
    train, test = split_indices(X.shape[0], seed)
    X_train, X_test = standardise(X[train], X[test])
    Y_train, Y_test = standardise(Y[train], Y[test])
    results = {}
    for name, fit_and_score in estimators.items():
        started = time.perf_counter()
        scores = fit_and_score(X_train, Y_train, X_test, Y_test, seed)
        if not isinstance(scores, dict):
            scores = {"nll": scores}
        results[name] = ({key: float(value) for key, value in scores.items()},
                         time.perf_counter() - started)
    return results


def evaluate(estimators, X, Y, runs):
    """Every estimator on runs = 0 .. runs-1: {name: Outcome}."""
    per_run = [run_once(estimators, X, Y, seed) for seed in range(runs)]
    outcomes = {}
    for name in estimators:
        scores = {key: np.array([r[name][0][key] for r in per_run]) for key in per_run[0][name][0]}
        outcomes[name] = Outcome(scores["nll"], np.array([r[name][1] for r in per_run]), scores)
    return outcomes


def mean_std(values):
    values = np.asarray(values, dtype=float)
    return values.mean(), (values.std(ddof=1) if values.size > 1 else 0.0)


def bold_methods(nll_by_method):
    """Names in bold as in the Table 1 caption: the best mean, and every method whose paired
    two-sided t-test against the best does not reject equality at the 5% level (any score
    where lower is better: the NLL, the CRPS)."""
    means = {name: np.mean(values) for name, values in nll_by_method.items()}
    best = min(means, key=means.get)
    marked = {best}
    for name, values in nll_by_method.items():
        if name == best:
            continue
        differences = np.asarray(values) - np.asarray(nll_by_method[best])
        if not differences.any():
            marked.add(name)  # identical runs: the test is undefined, the methods are equal
            continue
        if stats.ttest_rel(values, nll_by_method[best]).pvalue >= SIGNIFICANCE:
            marked.add(name)
    return marked


def within_paper(mean, paper_mean, paper_std, slack=0.05):
    """Our mean is no worse than the paper's mean + max(paper std, slack)."""
    return mean <= paper_mean + max(paper_std, slack)


def format_cell(mean, std, bold=False):
    text = f"{mean:.2f} ± {std:.2f}"
    return f"**{text}**" if bold else text


def markdown_table(header, rows):
    """A GitHub markdown table from a header list and rows of strings."""
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
