"""RKDE: the ratio of two kernel density estimates."""

from ._conditional import ConditionalDensityEstimator, cv_results_from_table


class RKDE(ConditionalDensityEstimator):
    """Ratio of kernel density estimates, p(x, y) / p(x) (LSCDE paper section 3.4).

    Both Gaussian kernel density estimates have their width chosen by K-fold cross-validation
    of their own held-out log-likelihood. The ratio is renormalised in y, which leaves the
    estimate p(y|x) = sum_i k(x, x_i) N(y; y_i, sigma^2) / sum_i k(x, x_i) with the joint KDE's
    width: the marginal width is selected and reported but cancels. See docs/methods/rkde.md.

    Attributes
    ----------
    sigma_ : float
        The width of the joint KDE, the width of the estimate.
    sigma_marginal_ : float
        The width the marginal KDE p(x) chose.
    cv_results_, marginal_cv_results_ : dict or None
        The cross-validation tables of the joint and of the marginal KDE (scores are minus the
        held-out NLL of (x, y) and of x).
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "rkde"

    def _set_fitted(self, model):
        super()._set_fitted(model)
        self.marginal_cv_results_ = cv_results_from_table(
            model.auxiliary_cross_validation.get("marginal_kde"))
