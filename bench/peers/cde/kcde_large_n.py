"""KCDE at large n on the peer benchmark's data (run.py): the sub-quadratic criterion (held-out
subsample, each pair predicted from all others) against the exact leave-one-out criterion at
n = 20,000, and the fit time up to n = 100,000.

    build/venv/bin/python bench/peers/cde/kcde_large_n.py                 # d_x = 5
    build/venv/bin/python bench/peers/cde/kcde_large_n.py --sizes 20000 --dims 1

Test NLL on 10,000 fresh pairs, in the units of y; time = wall-clock seconds of the fit on all
cores (n_jobs=None).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run  # noqa: E402  (the peer benchmark's data)

import cdens  # noqa: E402

TEST_SIZE = 10000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20000,50000,100000")
    parser.add_argument("--dims", default="5")
    args = parser.parse_args()
    print("| d_x | n | criterion | test NLL | fit time | evaluations | bandwidths |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for d_x in [int(v) for v in args.dims.split(",")]:
        for n in [int(v) for v in args.sizes.split(",")]:
            rng = np.random.default_rng([1, d_x, n])
            x, y = run.draw(n, d_x, rng)
            x_test, y_test = run.draw(TEST_SIZE, d_x, rng)
            variants = [("held-out subsample of 2,000", {"exact_limit": min(n - 1, 20000)})]
            if n <= 20000:
                variants.insert(0, ("exact leave-one-out", {}))
            for label, options in variants:
                nll, seconds, model = run.fit_cdens(cdens.KernelCDE(random_state=0, **options),
                                                    x, y, x_test, y_test)
                bandwidths = ", ".join(f"{h:.3g}" for h in model.bandwidths_)
                print(f"| {d_x} | {n} | {label} | {nll:.4f} | {seconds:.3g} s | "
                      f"{model.model_.statistics['evaluations']:.0f} | {bandwidths} |", flush=True)


if __name__ == "__main__":
    main()
