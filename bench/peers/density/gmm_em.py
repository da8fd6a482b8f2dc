"""Diagonal Gaussian mixture by EM against scikit-learn's GaussianMixture, from the same start,
in the same run (issue 24).

    build/venv/bin/python bench/peers/density/gmm_em.py           # n = 10^5 and 10^6, d = 10
    build/venv/bin/python bench/peers/density/gmm_em.py --sizes 100000
    build/venv/bin/python bench/peers/density/gmm_em.py --quick   # n = 20,000, asserts (make test)

n points of a K = 8 component diagonal Gaussian mixture in d = 10 (seed 0) and m = 20,000 fresh
test points, in two cases: separated components (centres 8 sd apart on average), where EM
converges in a few steps, and overlapping ones (1.5 sd), where EM creeps and runs all
`iterations` steps.

The same start, steps and algorithm: cdens.GMM(max_iter=0) gives cdens's k-means++ start, which
scikit-learn receives as weights_init, means_init and precisions_init; cdens runs EM from it (the
same seed, so the same start) until a step does not raise the likelihood (tol=1e-300) or for
`iterations` steps, and scikit-learn runs as many steps (tol=0). Neither regularises: cdens's
floor of 1e-6 on a variance never binds on these data, and scikit-learn's reg_covar is 0.
cdens: GMM(standardize=False); scikit-learn: GaussianMixture(covariance_type="diag").

Seconds per EM step: each side's fit timed with its steps and with as few as it allows (cdens:
max_iter=0, the start alone; scikit-learn: max_iter=1), the difference divided by the steps
between, so that neither side's setup counts (input checks, cdens's start, scikit-learn's own
initialisation that the given start then replaces, its final E-step); best of --repeats. Reported:
each side's whole fit and seconds per step, their ratio (scikit-learn's over ours), and the mean
test log-likelihood of each. `uptime` before and after says what else was running.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.mixture import GaussianMixture

import cdens

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "papers"))
from headline import Headline, uptime  # noqa: E402

COMPONENTS = 8
DIMENSION = 10
TEST_POINTS = 20_000


def mixture_sample(n, rng, centres, scales):
    labels = rng.integers(COMPONENTS, size=n)
    return centres[labels] + scales[labels] * rng.standard_normal((n, DIMENSION))


def best_time(work, repeats):
    """The last result of `work` and the least of its wall times over `repeats` calls."""
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = work()
        seconds.append(time.perf_counter() - started)
    return result, min(seconds)


def ours(x, max_iter):
    return cdens.GMM(n_components=COMPONENTS, standardize=False, tol=1e-300, max_iter=max_iter,
                     variance_floor=1e-6, random_state=0).fit(x)


def peer(x, start, max_iter):
    return GaussianMixture(
        n_components=COMPONENTS, covariance_type="diag", reg_covar=0.0, tol=0.0,
        max_iter=max_iter, init_params="random_from_data", weights_init=start.weights_,
        means_init=start.means_, precisions_init=1.0 / start.widths_**2,
        random_state=0).fit(x)


def compare(n, iterations, repeats, rng, spread):
    centres = spread * rng.standard_normal((COMPONENTS, DIMENSION))
    scales = rng.uniform(0.5, 1.5, (COMPONENTS, DIMENSION))
    x = mixture_sample(n, rng, centres, scales)
    test = mixture_sample(TEST_POINTS, rng, centres, scales)
    start, ours_start_s = best_time(lambda: ours(x, 0), repeats)
    fitted, ours_s = best_time(lambda: ours(x, iterations), repeats)
    steps = int(fitted.model_.statistics["iterations"])
    peer_fitted, peer_s = best_time(lambda: peer(x, start, steps), repeats)
    row = {"n": n, "spread": spread, "steps": steps, "peer_steps": int(peer_fitted.n_iter_),
           "ours_s": ours_s, "ours_start_s": ours_start_s, "peer_s": peer_s,
           "ours_ll": float(np.mean(fitted.score_samples(test))),
           "peer_ll": float(peer_fitted.score(test)),
           "ours_step_s": float("nan"), "peer_step_s": float("nan")}
    # scikit-learn's time per step needs two steps or more; with fewer (EM converged at once)
    # neither side's is reported, one step's time being within the noise of the setup's.
    if steps >= 2:
        _, peer_one_step_s = best_time(lambda: peer(x, start, 1), repeats)
        row["ours_step_s"] = (ours_s - ours_start_s) / steps
        row["peer_step_s"] = (peer_s - peer_one_step_s) / (steps - 1)
    row["ratio"] = row["peer_step_s"] / row["ours_step_s"]
    return row


def milliseconds(seconds):
    return "—" if np.isnan(seconds) else f"{1e3 * seconds:.2f}"


def check_quick(rows, iterations):
    headline = Headline("GMM by EM against scikit-learn")
    for row in rows:
        case = f"{'separated' if row['spread'] > 2.0 else 'overlapping'}, n = {row['n']}"
        # Same start, same steps, the same EM: the two differ by rounding only (cdens takes the
        # squares around each centre, scikit-learn expands them); measured 7e-15 apart. What
        # the check is for moves the test log-likelihood far more: scikit-learn's default
        # reg_covar = 1e-6 by 2e-8, one step more or fewer by 9e-7 (overlapping), another
        # k-means++ start by 0.2 or more.
        gap = abs(row["ours_ll"] - row["peer_ll"])
        headline.require(row["steps"] == row["peer_steps"] and gap < 1e-9,
                         f"{case}: the same test log-likelihood from the same start and "
                         f"{row['steps']} steps, {row['ours_ll']:.10f} and {row['peer_ll']:.10f} "
                         f"(|difference| {gap:.1e} < 1e-9)",
                         {f"{case}: test log-likelihood": row["ours_ll"]})
        if row["spread"] <= 2.0:
            headline.require(row["steps"] == iterations,
                             f"{case}: EM runs all {iterations} steps ({row['steps']})")
            # Issue 24's 3x. Measured at this size: 14-16x idle, 9x at load average 3.5, 10x with
            # three copies of this quick mode at once on two cores (best of --repeats fits each).
            headline.require(row["ratio"] >= 3.0,
                             f"{case}: an EM step of ours at least 3x faster than scikit-learn's "
                             f"({row['ratio']:.1f}x)",
                             {f"{case}: scikit-learn's EM step / ours": row["ratio"]})
    headline.finish()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 20,000; asserts the figures")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many fits")
    parser.add_argument("--sizes", default="100000,1000000", help="n of the full run")
    args = parser.parse_args()
    # scikit-learn warns that its run "did not converge" after max_iter steps: that is the plan.
    warnings.filterwarnings("ignore", message="Initialization")
    warnings.filterwarnings("ignore", message="Best performing initialization")
    warnings.filterwarnings("ignore", message="EM stopped at max_iterations")
    rng = np.random.default_rng(0)
    sizes = [20_000] if args.quick else [int(n) for n in args.sizes.split(",")]
    print(f"before: {uptime()}\n")
    print("| centres | n | steps | cdens fit s (start s) | scikit-learn fit s | cdens ms/step | "
          "scikit-learn ms/step | ratio per step | cdens test LL | scikit-learn test LL |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    for spread, case in ((8.0, "separated"), (1.5, "overlapping")):
        for n in sizes:
            row = compare(n, args.iterations, args.repeats, rng, spread)
            rows.append(row)
            print(f"| {case} | {n} | {row['steps']} | {row['ours_s']:.3f} "
                  f"({row['ours_start_s']:.3f}) | {row['peer_s']:.3f} | "
                  f"{milliseconds(row['ours_step_s'])} | {milliseconds(row['peer_step_s'])} | "
                  f"{'—' if np.isnan(row['ratio']) else format(row['ratio'], '.2f')} | "
                  f"{row['ours_ll']:.10f} | {row['peer_ll']:.10f} |", flush=True)
    print(f"\nafter: {uptime()}")
    if args.quick:
        check_quick(rows, args.iterations)


if __name__ == "__main__":
    main()
