"""KCDE: the product-kernel conditional density estimate with one bandwidth per dimension."""

import numpy as np

from ._conditional import ConditionalDensityEstimator


class KernelCDE(ConditionalDensityEstimator):
    """Kernel conditional density estimation with one bandwidth per input and output dimension,
    chosen by maximising the leave-one-out likelihood (Hall, Racine & Li 2004; the estimator of
    R's np ``npcdens`` and statsmodels' ``KDEMultivariateConditional(bw='cv_ml')``).

    p(y|x) = sum_i K(x - x_i) N(y; y_i, diag h_y^2) / sum_i K(x - x_i) with the Gaussian product
    kernel K(u) = exp(-sum_d u_d^2 / 2 h_d^2), on standardised x and y. An input that does not
    help predict y gets a bandwidth at the upper bound (it is smoothed flat). The search is
    L-BFGS on the log-bandwidths with the analytic gradient, from the normal-reference start and
    ``n_restarts`` random ones. With ``trend="gp"`` the kernels of y sit on the standardised
    leave-one-out residuals of a Gaussian-process mean with one length scale per input (and
    widen with its predictive spread), which wins where y is a smooth, steep function of many
    inputs. See docs/methods/kcde.md.

    Discrete columns, declared with ``discrete`` (unordered, Aitchison-Aitken kernel) or
    ``ordered`` (integer levels, Wang-van Ryzin kernel), are smoothed over their values with a
    parameter lambda searched in the same criterion. A discrete output gets a probability mass
    function: ``log_pdf`` and ``score`` then return log probability masses in it
    (``output_kinds_`` says which outputs are discrete). A column that looks discrete (at most
    10 distinct values, or at most 20 distinct integers) but is not declared gets a warning.

    A one-dimensional continuous y with an atom, a value carried by many rows (the zeros of a
    zero-inflated output: hours, amounts, rainfall, claims), gets a point mass there: the pairs
    at it are point masses, so P(y = a | x) is their share of the kernel weight, and the density
    of the other pairs is the continuous part. ``atom="auto"`` (the default) finds it by a stated
    rule (the most frequent value, carried by at least 5 % of the rows and 5 times as many as any
    other value, beside more than 20 other values), ``atom="none"`` turns it off, a number names
    it. Every query and score is then against the mixed measure (docs/methods/kcde.md).

    Attributes
    ----------
    bandwidths_ : ndarray of shape (d_x + d_y,)
        The bandwidths, inputs then outputs (standardised units); lambda for a discrete column;
        NaN for an input the fit ignored because it was constant.
    input_kinds_, output_kinds_ : list of str
        The kernel of every input and output: "continuous", "unordered" or "ordered". Where an
        output is discrete, log_pdf is a log probability mass in it, not a log density.
    marginal_weight_ : float or None
        eps of the marginal mixing (None with ``marginal_mixing="none"``).
    loo_nll_ : float or None
        The leave-one-out NLL of the fitted model at the chosen bandwidths, in the units of y
        (None when they are fixed); ``loo_nll_unmixed_`` the same without the marginal mixing.
    linear_loo_nll_ : float or None
        The leave-one-out NLL of the linear-Gaussian model of the same data (a warning says
        when it is lower than loo_nll_).
    atom_ : float or None
        The value of y's atom (``atom``: by default found in a zero-inflated y), whose pairs are
        point masses at it: ``predict_atom_probability`` gives P(y = atom_ | x), and log_pdf is
        log P(y = atom_ | x) at it and a log-density elsewhere. None without one.
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "kcde"

    def _set_fitted(self, model):
        super()._set_fitted(model)
        chosen = model.hyperparameters
        columns = ([f"x{d}" for d in range(model.input_dim)]
                   + [f"y{d}" for d in range(model.output_dim)])
        # An input the fit ignored (constant on the training rows) has no bandwidth: NaN.
        self.bandwidths_ = np.array([chosen.get(f"bandwidth_{column}", np.nan)
                                     for column in columns], dtype=float)
        self.input_kinds_ = list(model.input_kinds)
        self.output_kinds_ = list(model.output_kinds)
        self.marginal_weight_ = chosen.get("marginal_weight")
        self.loo_nll_ = model.statistics.get("loo_nll")
        self.loo_nll_unmixed_ = model.statistics.get("loo_nll_unmixed")
        self.linear_loo_nll_ = model.statistics.get("linear_loo_nll")

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        estimator.bandwidth = list(estimator.bandwidths_)
        kinds = estimator.input_kinds_ + estimator.output_kinds_
        estimator.discrete = [d for d, kind in enumerate(kinds) if kind == "unordered"] or None
        estimator.ordered = [d for d, kind in enumerate(kinds) if kind == "ordered"] or None
        estimator.trend = ("linear" if model.statistics.get("linear_trend")
                           else "gp" if model.statistics.get("gaussian_process_trend") else "none")
        estimator.marginal_mixing = "none" if estimator.marginal_weight_ is None else "loo"
        estimator.atom = "none" if model.atom is None else model.atom
        return estimator
