"""statsmodels' conditional kernel density estimator as a peer for the CDE benchmarks.

KDEMultivariateConditional estimates p(y|x) = p^(x, y) / p^(x) with a product Gaussian kernel
(continuous variables) and one bandwidth per dimension, chosen by leave-one-out maximum
likelihood (bw='cv_ml'). It is the ratio-of-KDEs idea (the LSCDE paper's RKDE, section 3.4)
with likelihood-tuned bandwidths.

Units: x and y are standardised per dimension with the training mean and n - 1 standard
deviation before fitting, the same map as cdens and the LSCDE reference; log_pdf and the
returned NLL are in the units of the Y given to fit (log p_user = log p_std - sum log scale_y).
Discrete columns ('u' unordered, 'o' ordered in statsmodels' var_type) are left raw: their
kernels compare the values themselves, and a discrete y has a probability mass, not a density.
statsmodels' ordered kernel (Wang-van Ryzin) of a y does not sum to 1 over its levels; the
masses can be normalised over the training levels (`normalize_levels`), as cdens does.
statsmodels evaluates the density as a plain ratio, so a test point where both kernel sums
underflow gives nan and one where only the joint sum does gives -inf; they are reported as such.
"""

import multiprocessing
import time

import numpy as np
from statsmodels.nonparametric.kernel_density import KDEMultivariateConditional


class StatsmodelsConditionalKde:
    """A fitted KDEMultivariateConditional with its standardisation and fit time in seconds."""

    def __init__(self, X, Y, indep_type=None, dep_type=None):
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        self.indep_type = indep_type or "c" * X.shape[1]
        self.dep_type = dep_type or "c" * Y.shape[1]
        self.x_mean, self.x_scale = _scaling(X, self.indep_type)
        self.y_mean, self.y_scale = _scaling(Y, self.dep_type)
        self.y_levels = [np.unique(Y[:, d]) for d in range(Y.shape[1])]
        if not ((self.x_scale > 0).all() and (self.y_scale > 0).all()):
            raise ValueError("a column of X or Y is constant, it cannot be standardised")
        started = time.perf_counter()
        # cv_ml meets 0/0 and log 0 in leave-one-out terms of extreme bandwidths; it copes.
        with np.errstate(divide="ignore", invalid="ignore"):
            self.model = KDEMultivariateConditional(
                endog=(Y - self.y_mean) / self.y_scale,
                exog=(X - self.x_mean) / self.x_scale,
                dep_type=self.dep_type,
                indep_type=self.indep_type,
                bw="cv_ml",
            )
        self.fit_seconds = time.perf_counter() - started

    def log_pdf(self, X, Y, normalize_levels=False):
        """log p(y|x) in the units of the training Y (a log mass in discrete outputs); with
        normalize_levels, the masses of a one-dimensional discrete y are divided by their sum
        over the training levels."""
        z = (np.asarray(X, dtype=float) - self.x_mean) / self.x_scale
        t = (np.asarray(Y, dtype=float) - self.y_mean) / self.y_scale
        density = np.atleast_1d(self.model.pdf(endog_predict=t, exog_predict=z))
        with np.errstate(divide="ignore", invalid="ignore"):
            log_density = np.log(density) - np.log(self.y_scale).sum()
            if normalize_levels:
                total = sum(np.atleast_1d(self.model.pdf(
                    endog_predict=np.full_like(t, level), exog_predict=z))
                    for level in self.y_levels[0])
                log_density -= np.log(total)
            return log_density


def _scaling(values, var_type):
    """Mean and n - 1 standard deviation of the continuous columns; 0 and 1 for discrete ones."""
    continuous = np.array([kind == "c" for kind in var_type])
    mean = np.where(continuous, values.mean(axis=0), 0.0)
    scale = np.where(continuous, values.std(axis=0, ddof=1), 1.0)
    return mean, scale


def fit_and_score(X_train, Y_train, X_test, Y_test, seed):
    """Test NLL (eq. 10 of the LSCDE paper) in the units of Y. seed is unused: cv_ml is
    deterministic."""
    return -StatsmodelsConditionalKde(X_train, Y_train).log_pdf(X_test, Y_test).mean()


def _fit_and_score_child(X, Y, X_test, Y_test, results, indep_type, dep_type):
    model = StatsmodelsConditionalKde(X, Y, indep_type, dep_type)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = (-np.mean(model.log_pdf(X_test, Y_test)), model.fit_seconds)
        if dep_type and dep_type != "c" * len(dep_type):
            scores += (-np.mean(model.log_pdf(X_test, Y_test, normalize_levels=True)),)
        results.put(scores)


def fit_and_score_within(X, Y, X_test, Y_test, limit, indep_type=None, dep_type=None):
    """(test NLL, fit seconds) of a fit in a child process, or None when it did not finish within
    `limit` seconds (the child is then stopped). Y and Y_test are (n, d_y). With a discrete
    dep_type, a third value: the test NLL of the masses normalised over the training levels."""
    results = multiprocessing.Queue()
    child = multiprocessing.Process(target=_fit_and_score_child,
                                    args=(X, Y, X_test, Y_test, results, indep_type, dep_type))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.terminate()
        child.join()
        return None
    return results.get()
