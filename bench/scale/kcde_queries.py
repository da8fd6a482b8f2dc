"""KCDE queries at scale (issues 35, 51): n training pairs, m query pairs, one process.

    build/venv/bin/python bench/scale/kcde_queries.py            # n = m = 10^6, d_x = 1, 2, 5
    build/venv/bin/python bench/scale/kcde_queries.py --input-dims 1   # d_x = 1 only
    build/venv/bin/python bench/scale/kcde_queries.py --quick    # n = m = 20,000, d_x = 2, asserts
                                                                 # (in `make test`)

A KCDE model is its n kernels: p(y|x) = Σ_k c_k K_h(x − x_k) N(y; y_k, h_y²) / Σ_k c_k K_h(x − x_k),
mixed with the marginal kernel density of y. Its log-densities are sums of the kernel-sum engine
(exact blocks, dual k-d trees or binned FFT by cost; docs/methods/kernel_sums.md), each within
1e-6 in log of the exact sum; its means and variances are sums of the same engine (E[y|x] within
1e-6 of the conditional standard deviation, Var[y|x] within 1e-6 of itself; the C++ tests check
both against every component summed), and no query holds the m × n component weights. Its
quantiles, highest-density regions, CRPS and draws take each input's components from their kernel
neighbours, reduced within a query tolerance of 1e-6 in probability (docs/methods/kcde.md,
"Queries of large models"; tests/cpp/test_reduced_queries.cpp checks them against every component).

Data: x uniform on [−2, 2]^d_x, y = sin(2 x_0) + 0.5 x_1 + 0.3 ε (x_1 where d_x > 1), seed 0.
Bandwidths: KCDE's leave-one-out search on the first 5,000 pairs, shrunk to n by the rate
n^(−1/(d+4)) (d = d_x + 1), then fixed, so that the fit on n pairs is the standardisation and the
marginal weight's leave-one-out choice. Reported: the fit's and the m log-densities' wall seconds
(all cores), and the largest |Δ log p| on 100 of the queries against `pdf_grid` at each query's y
(every component summed, no engine), the seconds of the m means and of the m variances, and the
process's peak resident memory so far; then, on the first 10,000 queries (2,000 in the quick
mode), the seconds of three quantiles (0.05, 0.5, 0.95), of the 90 % highest-density regions, of
the CRPS and of 10 draws per row, and the largest |F(q) − p| over the quantiles of 100 queries, F
the CDF of every component (the model at query tolerance 0). `uptime` before and after says what
else was running. The
full run also reports each engine sum of the log-densities (joint, input, marginal; d = d_x + 1,
d_x and 1): its dimension, the path the engine took and its seconds, from the engine's notes
(CDENS_DEBUG=1, standard error captured around the query).
"""

import argparse
import os
import re
import resource
import sys
import tempfile
import time

import numpy as np

import cdens
import cdens.metrics

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "papers"))
from headline import Headline, uptime  # noqa: E402

HEADLINE_SECONDS = 60.0
# The quick mode's peak resident memory: its data, model and queries take tens of MB; the means
# of its 20,000 queries once held the 20,000 × 20,000 component weights, 3.2 GB.
QUICK_PEAK_GB = 1.0
SEARCH_ROWS = 5000
CHECKED_QUERIES = 100
# The query rows of the one-dimensional queries (quantiles, regions, CRPS, draws): full, quick.
ONE_DIMENSIONAL_ROWS = 10**4
QUICK_ONE_DIMENSIONAL_ROWS = 2000
PROBABILITIES = [0.05, 0.5, 0.95]
# The quantiles' agreement: the query tolerance, 1e-6 (plus rounding).
QUANTILE_TOLERANCE = 1e-6 + 1e-9


def pairs(n, input_dim, rng):
    x = rng.uniform(-2.0, 2.0, size=(n, input_dim))
    trend = np.sin(2.0 * x[:, 0]) + (0.5 * x[:, 1] if input_dim > 1 else 0.0)
    return x, trend + 0.3 * rng.standard_normal(n)


def timed(work):
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


ENGINE_NOTE = re.compile(r"kernel sums: path (\w+), n = \d+, m = \d+, d = (\d+),.*; took (\S+) s")


def with_engine_notes(work):
    """work() with standard error captured: its result and the engine's notes (path, d, s)."""
    with tempfile.TemporaryFile() as captured:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            result = work()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        text = captured.read().decode(errors="replace")
    notes = [match.groups() for match in map(ENGINE_NOTE.search, text.splitlines()) if match]
    return result, notes


def shrunk_bandwidths(x, y, n):
    """KCDE's searched bandwidths on the first SEARCH_ROWS pairs, scaled to n pairs."""
    searched = cdens.KernelCDE(random_state=0).fit(x[:SEARCH_ROWS], y[:SEARCH_ROWS])
    rate = (SEARCH_ROWS / n) ** (1.0 / (x.shape[1] + 5))
    return list(searched.bandwidths_ * rate)


def peak_gb():
    """The process's peak resident memory so far, GB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def largest_difference(estimator, queries_x, queries_y, log_p):
    """The largest |log p − log of the componentwise density| over the first CHECKED_QUERIES."""
    worst = 0.0
    for j in range(CHECKED_QUERIES):
        exact = estimator.pdf_grid(queries_x[j:j + 1], queries_y[j:j + 1, None])[0, 0]
        worst = max(worst, abs(log_p[j] - np.log(exact)))
    return worst


def quantile_error(estimator, queries_x, quantiles):
    """The largest |F(q) − p| over the first CHECKED_QUERIES rows, F the CDF of the same model
    from every component (query tolerance 0)."""
    exact = estimator.model_.with_query_tolerance(0.0)
    rows = np.repeat(queries_x[:CHECKED_QUERIES], len(PROBABILITIES), axis=0)
    at = exact.cdf(rows, quantiles[:CHECKED_QUERIES].reshape(-1, 1))
    return float(np.max(np.abs(at - np.tile(PROBABILITIES, CHECKED_QUERIES))))


def one_dimensional_queries(estimator, queries_x, queries_y):
    """Seconds of the quantiles, regions, CRPS and draws, and the quantiles' largest error."""
    quantiles, quantile_seconds = timed(
        lambda: estimator.predict_quantiles(queries_x, PROBABILITIES))
    regions, region_seconds = timed(lambda: estimator.hdr(queries_x, 0.9))
    crps, crps_seconds = timed(lambda: cdens.metrics.crps(estimator, queries_x, queries_y))
    draws, draw_seconds = timed(lambda: estimator.sample(queries_x, 10, random_state=0))
    assert len(regions) == len(queries_x) and np.all(crps > 0.0) and np.all(np.isfinite(draws))
    error = quantile_error(estimator, queries_x, quantiles)
    return quantile_seconds, region_seconds, crps_seconds, draw_seconds, error


def run(n, m, input_dim, rows):
    rng = np.random.default_rng(0)
    x, y = pairs(n, input_dim, rng)
    queries_x, queries_y = pairs(m, input_dim, rng)
    bandwidths = shrunk_bandwidths(x, y, n)
    estimator, fit_seconds = timed(
        lambda: cdens.KernelCDE(bandwidth=bandwidths, random_state=0).fit(x, y))
    (log_p, notes), query_seconds = timed(
        lambda: with_engine_notes(lambda: estimator.log_pdf(queries_x, queries_y)))
    difference = largest_difference(estimator, queries_x, queries_y, log_p)
    means, mean_seconds = timed(lambda: estimator.predict(queries_x))
    variances, variance_seconds = timed(lambda: estimator.predict_var(queries_x))
    assert np.all(np.isfinite(means)) and np.all(variances > 0.0)
    *seconds_1d, quantile_difference = one_dimensional_queries(
        estimator, queries_x[:rows], queries_y[:rows])
    # The engine's order of the sums is the compiler's: they are named by dimension (the joint
    # sum's is d_x + 1, the input's d_x, the marginal's 1).
    sums = ", ".join(f"d = {d}: {path} {float(seconds):.3g} s"
                     for path, d, seconds in sorted(notes, key=lambda note: -int(note[1])))
    print(f"| {input_dim} | {n:,} | {m:,} | {fit_seconds:.3g} s | {query_seconds:.3g} s | "
          f"{sums or 'not reported'} | {np.mean(-log_p):.4f} | {difference:.2e} | "
          f"{mean_seconds:.3g} s | {variance_seconds:.3g} s | {rows:,} | "
          + " | ".join(f"{seconds:.3g} s" for seconds in seconds_1d)
          + f" | {quantile_difference:.1e} | {peak_gb():.2f} GB |", flush=True)
    return query_seconds, difference, quantile_difference


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="n = m = 20,000 with d_x = 2; asserts the agreement")
    parser.add_argument("--input-dims", type=int, nargs="+", default=[1, 2, 5],
                        help="the d_x of the full run (default 1 2 5)")
    args = parser.parse_args()
    print("before:", uptime())
    if not args.quick:
        os.environ["CDENS_DEBUG"] = "1"  # read at the engine's first note
    print("| d_x | n | m | fit (fixed bandwidths) | log-densities | engine sums | mean NLL | "
          f"max abs. diff. log p ({CHECKED_QUERIES} queries) | means | variances | rows of the "
          "next | 3 quantiles | 90 % regions | CRPS | 10 draws per row | max abs. F(q) − p | "
          "peak memory |")
    print("|" + " --- |" * 17)
    cases = ([(20000, 20000, 2, QUICK_ONE_DIMENSIONAL_ROWS)] if args.quick
             else [(10**6, 10**6, d, ONE_DIMENSIONAL_ROWS) for d in args.input_dims])
    results = {case: run(*case) for case in cases}
    print("\nafter:", uptime())
    for (n, m, input_dim, _), (seconds, difference, quantile_difference) in results.items():
        # The engine's bound, 1e-6 in log, plus the rounding of the componentwise sums.
        assert difference <= 1e-6 + 1e-9, (input_dim, difference)
        assert quantile_difference <= QUANTILE_TOLERANCE, (input_dim, quantile_difference)
        if not args.quick:
            print(f"headline, d_x = {input_dim}: {m:,} log-densities of a {n:,}-pair KCDE in "
                  f"{seconds:.1f} s (target {HEADLINE_SECONDS:.0f} s)")
    if args.quick:
        seconds, difference, quantile_difference = results[cases[0]]
        headline = Headline("KCDE queries at scale")
        headline.require(difference <= 1e-6 + 1e-9, f"log-densities within 1e-6 of the "
                         f"componentwise sums ({difference:.2e})",
                         {"n = m = 20,000: log-densities' seconds": seconds})
        headline.require(quantile_difference <= QUANTILE_TOLERANCE, f"quantiles within "
                         f"{QUANTILE_TOLERANCE:g} in probability ({quantile_difference:.1e})")
        headline.require(peak_gb() <= QUICK_PEAK_GB, f"peak memory {peak_gb():.2f} GB (at most "
                         f"{QUICK_PEAK_GB} GB)", {"peak memory, GB": peak_gb()})
        headline.finish()


if __name__ == "__main__":
    main()
