"""Fitting releases the GIL: other Python threads keep running during a fit."""

import threading
import time

import numpy as np

import cdens


def test_fit_lets_other_python_threads_run():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8000, 5))
    y = np.sin(2.0 * x[:, 0]) + 0.3 * rng.normal(size=8000)
    estimator = cdens.LSCDE(random_state=0, n_jobs=1)
    worker = threading.Thread(target=estimator.fit, args=(x, y))
    longest_gap = 0.0
    worker.start()
    last = time.perf_counter()
    while worker.is_alive():
        now = time.perf_counter()
        longest_gap = max(longest_gap, now - last)
        last = now
    worker.join()
    # Holding the GIL through the fit would stall this loop for the whole fit; released, the
    # loop waits at most a few switch intervals (5 ms each) at a time.
    fit_seconds = estimator.model_.fit_seconds
    assert fit_seconds > 0.05
    assert longest_gap < 0.5 * fit_seconds
