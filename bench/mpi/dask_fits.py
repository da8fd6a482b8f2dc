"""Fits from dask collections: the start of a LocalCluster (worker threads of this process or
worker processes) and the wall time of LSCDE, KCDE and GMM fitted from a dask array spread over
its workers, beside the same fit of all rows in this process, with the largest relative
difference of the models (docs/distributed.md, "Dask"). A benchmark, not a test.

    build/venv/bin/python bench/mpi/dask_fits.py --rows 3000 --workers 1,2,4 --processes
"""

import argparse
import json
import os
import tempfile
import time
import warnings

import numpy as np

import cdens


def generated(n, seed=1):
    generator = np.random.default_rng(seed)
    x = generator.normal(size=(n, 5))
    return x, np.sin(2 * x[:, 0]) + 0.5 * x[:, 1] + 0.3 * generator.normal(size=n)


def estimators(kcde_search):
    """The estimators by name, each with whether it is conditional; KCDE with `kcde_search` (its
    search parameters: fewer starts and evaluations at 10^6 rows)."""
    return {
        "lscde": (lambda: cdens.LSCDE(random_state=1, n_jobs=1), True),
        "kcde": (lambda: cdens.KernelCDE(random_state=1, n_jobs=1, **kcde_search), True),
        "gmm": (lambda: cdens.GMM(n_components=5, random_state=1, n_jobs=1), False),
    }


def fitted(make, conditional, x, y):
    start = time.perf_counter()
    estimator = make().fit(x, y) if conditional else make().fit(x)
    return estimator, time.perf_counter() - start


def document(estimator, conditional, test):
    """The model file's document; a model in the binary encoding (beyond 2^20 numbers, KCDE at
    10^6 rows) by its log-densities of the test points instead."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.json")
        estimator.save(path)
        with open(path, "rb") as file:
            binary = file.read(3) == b"\xd9\xd9\xf7"
        if not binary:
            with open(path) as file:
                return json.load(file)
    x, y = test
    return (estimator.log_pdf(x, y) if conditional else estimator.score_samples(x)).tolist()


def largest_difference(a, b):
    """The largest relative difference between the numbers of two model documents."""
    if isinstance(a, dict):
        return max([largest_difference(a[k], b[k]) for k in a if k != "fit_seconds"],
                   default=0.0)
    if isinstance(a, list):
        return max([largest_difference(u, v) for u, v in zip(a, b)], default=0.0)
    if isinstance(a, float):
        return abs(a - b) / max(abs(a), abs(b), 1e-300)
    return 0.0


def main():
    import dask.array as da
    import distributed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--methods", default="lscde,kcde,gmm")
    parser.add_argument("--kcde-search", default="",
                        help="KCDE search parameters, e.g. 'n_restarts=0,max_iter=4'")
    parser.add_argument("--processes", action="store_true",
                        help="worker processes (default: worker threads of this process)")
    arguments = parser.parse_args()
    warnings.simplefilter("ignore", cdens.CdensWarning)
    x, y = generated(arguments.rows)
    test = generated(2000, seed=2)
    kcde_search = {key: int(value) for key, value in
                   (item.split("=") for item in arguments.kcde_search.split(",") if item)}
    fits = estimators(kcde_search)
    methods = arguments.methods.split(",")
    alone = {}
    for name in methods:
        estimator, seconds = fitted(*fits[name], x, y)
        alone[name] = document(estimator, fits[name][1], test)
        print(f"{name}: one process, {arguments.rows} rows: {seconds:.2f} s")
    for workers in map(int, arguments.workers.split(",")):
        start = time.perf_counter()
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                      processes=arguments.processes,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster):
            print(f"{workers} workers ({'processes' if arguments.processes else 'threads'}): "
                  f"cluster started in {time.perf_counter() - start:.2f} s")
            chunk = -(-arguments.rows // workers)
            X, Y = da.from_array(x, chunks=(chunk, 5)), da.from_array(y, chunks=chunk)
            X, Y = X.persist(), Y.persist()
            for name in methods:
                make, conditional = fits[name]
                estimator, seconds = fitted(make, conditional, X, Y)
                difference = largest_difference(alone[name],
                                                document(estimator, conditional, test))
                print(f"  {name}: {seconds:.2f} s, largest relative difference from one process "
                      f"{difference:.1e}")


if __name__ == "__main__":
    main()
