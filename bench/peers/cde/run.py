"""Peers in one run: cdens's LSCDE and KCDE (per-dimension bandwidths by leave-one-out
likelihood, the estimator statsmodels' cv_ml computes), the plain numpy LSCDE of the paper
(lscde_numpy.py, every lambda solved directly) and statsmodels'
KDEMultivariateConditional(bw='cv_ml'), fitted on the same training sets and scored by test NLL on
the same test sets.

    build/venv/bin/python bench/peers/cde/run.py                    # n = 300 ... 10,000
    build/venv/bin/python bench/peers/cde/run.py --sizes 300,1000 --dims 1

Data: x ~ N(0, I_{d_x}); y = sinc(2 x_1) + (0.1 + 0.3 |x_1|) e with e ~ N(0, 1), so y depends on
the first input only and its spread grows away from 0 (the heteroscedastic shape of the LSCDE
paper's Figure 1); d_x - 1 inputs are irrelevant. Test sets hold 1,000 draws.

Both LSCDEs use the paper's grid (10 sigma x 10 lambda), b = 100 centres and 5 folds, and the
numpy one is given exactly the centres and folds ours draws (cdens._core.sampling_plan), so they
differ only in how they compute. statsmodels runs in a child process with a time limit
(--limit, 600 s): once a size does not finish, larger sizes of that d_x are not attempted.
NLL is in the units of y. Times are wall-clock seconds of the fit alone, every fit on one
core (OPENBLAS_NUM_THREADS=1 for numpy, n_jobs=1 for cdens): a per-core comparison.
"""

import argparse
import os
import sys
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads BLAS

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "reference"))

import lscde_numpy  # noqa: E402
import statsmodels_peer  # noqa: E402

import cdens  # noqa: E402
from cdens import _core  # noqa: E402

PAPER_GRID = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10)
TEST_SIZE = 1000


def draw(n, d_x, rng):
    x = rng.normal(size=(n, d_x))
    y = np.sinc(2.0 * x[:, 0]) + (0.1 + 0.3 * np.abs(x[:, 0])) * rng.normal(size=n)
    return x, y.reshape(-1, 1)


def fit_cdens(estimator, x, y, x_test, y_test):
    """(test NLL, fit seconds, fitted estimator) of a cdens estimator."""
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        model = estimator.fit(x, y)
    seconds = time.perf_counter() - started
    return -model.score(x_test, y_test), seconds, model


def fit_numpy(x, y, x_test, y_test, seed):
    center_order, fold_of = _core.sampling_plan(len(y), n_centers=100, folds=5, seed=seed)
    started = time.perf_counter()
    model = lscde_numpy.fit(x, y, PAPER_GRID, PAPER_GRID, center_order, 100, fold_of, loss="kl")
    seconds = time.perf_counter() - started
    return -model.log_pdf(x_test, y_test).mean(), seconds


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="300,1000,3000,10000")
    parser.add_argument("--dims", default="1,5")
    parser.add_argument("--limit", type=float, default=600.0, help="statsmodels time limit, s")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    return ([int(v) for v in args.sizes.split(",")], [int(v) for v in args.dims.split(",")],
            args.limit, args.seed)


def cell(result):
    return f"{result[0]:.3f} / {result[1]:.3g} s"


def speed_up(peer, limit, attempted, fit):
    """statsmodels' time over the fit's; where statsmodels stopped at the limit, the limit
    bounds the speed-up from below."""
    if peer is not None:
        return f"{peer[1] / fit[1]:.0f}×"
    return f"> {limit / fit[1]:.0f}×" if attempted else "—"


def main():
    sizes, dims, limit, seed = parse_arguments()
    print("| d_x | n | LSCDE (cdens) NLL / time | KCDE (cdens) | numpy LSCDE | statsmodels cv_ml | "
          "LSCDE speed-up vs numpy | LSCDE speed-up vs statsmodels | "
          "KCDE speed-up vs statsmodels |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for d_x in dims:
        statsmodels_stopped = False
        for n in sizes:
            rng = np.random.default_rng([seed, d_x, n])
            x, y = draw(n, d_x, rng)
            x_test, y_test = draw(TEST_SIZE, d_x, rng)
            ours = fit_cdens(cdens.LSCDE(random_state=seed, n_jobs=1), x, y, x_test, y_test)
            kcde = fit_cdens(cdens.KernelCDE(random_state=seed, n_jobs=1), x, y, x_test, y_test)
            reference = fit_numpy(x, y, x_test, y_test, seed)
            attempted = not statsmodels_stopped
            peer = (statsmodels_peer.fit_and_score_within(x, y, x_test, y_test, limit)
                    if attempted else None)
            statsmodels_stopped = peer is None
            versus_peer = [speed_up(peer, limit, attempted, fit) for fit in (ours, kcde)]
            peer_cell = cell(peer) if peer else (f"stopped at {limit:g} s" if attempted else
                                                 "not run (a smaller n stopped)")
            print(f"| {d_x} | {n} | {cell(ours)} | {cell(kcde)} | {cell(reference)} | "
                  f"{peer_cell} | {reference[1] / ours[1]:.1f}× | {versus_peer[0]} | "
                  f"{versus_peer[1]} |", flush=True)


if __name__ == "__main__":
    main()
