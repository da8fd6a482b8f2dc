"""statsmodels' conditional kernel density estimator as a peer for the CDE benchmarks.

KDEMultivariateConditional estimates p(y|x) = p^(x, y) / p^(x) with a product Gaussian kernel
(continuous variables) and one bandwidth per dimension, chosen by leave-one-out maximum
likelihood (bw='cv_ml'). It is the ratio-of-KDEs idea (the LSCDE paper's RKDE, section 3.4)
with likelihood-tuned bandwidths.

Units: x and y are standardised per dimension with the training mean and n - 1 standard
deviation before fitting, the same map as cdens and the LSCDE reference; log_pdf and the
returned NLL are in the units of the Y given to fit (log p_user = log p_std - sum log scale_y).
statsmodels evaluates the density as a plain ratio, so a test point where both kernel sums
underflow gives nan and one where only the joint sum does gives -inf; they are reported as such.
"""

import multiprocessing
import time

import numpy as np
from statsmodels.nonparametric.kernel_density import KDEMultivariateConditional


class StatsmodelsConditionalKde:
    """A fitted KDEMultivariateConditional with its standardisation and fit time in seconds."""

    def __init__(self, X, Y):
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        self.x_mean, self.x_scale = X.mean(axis=0), X.std(axis=0, ddof=1)
        self.y_mean, self.y_scale = Y.mean(axis=0), Y.std(axis=0, ddof=1)
        if not ((self.x_scale > 0).all() and (self.y_scale > 0).all()):
            raise ValueError("a column of X or Y is constant, it cannot be standardised")
        started = time.perf_counter()
        # cv_ml meets 0/0 and log 0 in leave-one-out terms of extreme bandwidths; it copes.
        with np.errstate(divide="ignore", invalid="ignore"):
            self.model = KDEMultivariateConditional(
                endog=(Y - self.y_mean) / self.y_scale,
                exog=(X - self.x_mean) / self.x_scale,
                dep_type="c" * Y.shape[1],
                indep_type="c" * X.shape[1],
                bw="cv_ml",
            )
        self.fit_seconds = time.perf_counter() - started

    def log_pdf(self, X, Y):
        """log p(y|x) in the units of the training Y."""
        z = (np.asarray(X, dtype=float) - self.x_mean) / self.x_scale
        t = (np.asarray(Y, dtype=float) - self.y_mean) / self.y_scale
        density = np.atleast_1d(self.model.pdf(endog_predict=t, exog_predict=z))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(density) - np.log(self.y_scale).sum()


def fit_and_score(X_train, Y_train, X_test, Y_test, seed):
    """Test NLL (eq. 10 of the LSCDE paper) in the units of Y. seed is unused: cv_ml is
    deterministic."""
    return -StatsmodelsConditionalKde(X_train, Y_train).log_pdf(X_test, Y_test).mean()


def _fit_and_score_child(X, Y, X_test, Y_test, results):
    model = StatsmodelsConditionalKde(X, Y)
    with np.errstate(divide="ignore", invalid="ignore"):
        results.put((-np.mean(model.log_pdf(X_test, Y_test)), model.fit_seconds))


def fit_and_score_within(X, Y, X_test, Y_test, limit):
    """(test NLL, fit seconds) of a fit in a child process, or None when it did not finish within
    `limit` seconds (the child is then stopped). Y and Y_test are (n, d_y)."""
    results = multiprocessing.Queue()
    child = multiprocessing.Process(target=_fit_and_score_child,
                                    args=(X, Y, X_test, Y_test, results))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.terminate()
        child.join()
        return None
    return results.get()
