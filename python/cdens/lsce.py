"""LSCE and LSMI: conditional density estimation on a learnt linear projection of the inputs."""

from sklearn.utils.validation import check_is_fitted

from ._conditional import ConditionalDensityEstimator, cv_results_from_table
from ._parameters import Parameter
from ._validation import as_samples


class _ReducedConditionalDensity(ConditionalDensityEstimator):
    """Shared by LSCE and LSMI: p(y|x) estimated on z = W x for a d_z x d_x matrix W with
    orthonormal rows, found by a search over the Grassmann manifold (20 random starts by
    default), with the dimension d_z chosen by cross-validation when ``n_components`` is None.

    W acts on the inputs standardised per dimension: ``transform(X)`` (the registry's query
    ``transform``, a method of LSCE and LSMI) standardises X as the fit did and returns W x. See
    docs/methods/lsce.md and docs/methods/lsmi.md.
    """

    _criterion = None  # "lsce" or "lsmi"

    _extra_parameters = (
        Parameter("estimator", "lscde", '{"lscde", "ekde"}',
                  "The estimator on z = W x: LSCDE, or epsilon-KDE (the LSCE paper's "
                  "LSCE/epsilon-KDE and LSMI/epsilon-KDE); it chooses the method of the "
                  "registry (lsce or lsce-ekde, lsmi-lscde or lsmi-ekde)."),
    )

    def _method_name(self):
        if self.estimator not in ("lscde", "ekde"):
            raise ValueError(f"estimator must be 'lscde' or 'ekde', got {self.estimator!r}")
        if self._criterion == "lsce":
            return "lsce" if self.estimator == "lscde" else "lsce-ekde"
        return f"lsmi-{self.estimator}"

    def _set_fitted(self, model):
        super()._set_fitted(model)
        self.components_ = model.projection
        self.n_components_ = self.components_.shape[0]
        self.n_iter_ = int(model.statistics["updates"])
        tables = model.auxiliary_cross_validation
        self.n_components_cv_results_ = cv_results_from_table(tables.get("n_components"))

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        estimator.estimator = "ekde" if model.method.endswith("ekde") else "lscde"
        return estimator

    def inverse_transform(self, Z):
        """The inputs x in the subspace whose projection is z (x standardised = W^T z), for the
        rows of Z (n, n_components_): shape (n, n_features_in_)."""
        check_is_fitted(self, "model_")
        return self.model_.unproject(as_samples(Z, "Z", allow_1d=self.n_components_ == 1))

    def fit_transform(self, X, y=None):
        """Fits p(y|x) to X and the outputs y (scikit-learn's transformer signature: y is
        required), then returns transform(X)."""
        return self.fit(X, y).transform(X)


class LSCE(_ReducedConditionalDensity):
    """Least-squares conditional entropy (Tangkaratt, Xie & Sugiyama): conditional density
    estimation with sufficient dimension reduction in one step.

    W minimises the squared-loss conditional entropy estimated by LSCDE on z = W x. With
    ``estimator="lscde"`` the model is LSCDE refitted on z with sigma and lambda by KL
    cross-validation (``final_model="refit"``, the default, a departure from the paper) or the
    LSCDE fitted inside the SCE estimate (``final_model="paper"``, section 2.6).
    ``estimator="ekde"`` fits epsilon-KDE on z instead (the paper's LSCE/epsilon-KDE).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features_in_)
        W, rows orthonormal, acting on standardised inputs.
    n_components_ : int
    n_iter_ : int
        Updates of W the kept start made (at most max_iter).
    traces_ : list of ndarray
        The SCE estimate after each update of W, one array per start (after fit only).
    projection_ : ndarray of shape (n_components_, n_features_in_)
        W as the fit returned it (after fit only; components_ also for a loaded model).
    n_components_cv_results_ : dict
        Cross-validated SQ criterion, 1/2 int p(y|x)^2 dy - p(y|x), of each candidate d_z
        (scikit-learn layout, scores = -loss).
    sigma_, regularization_, cv_results_, model_, n_features_in_, n_outputs_
        As for LSCDE (for estimator="ekde": epsilon_, sigma_ of the epsilon-KDE and
        reduction_sigma_, reduction_regularization_ of the search).
    """

    _criterion = "lsce"

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        # Only the paper's final model has no separate search width: it is the search's LSCDE.
        if model.method == "lsce" and "reduction_sigma" not in model.hyperparameters:
            estimator.final_model = "paper"
        return estimator


class LSMI(_ReducedConditionalDensity):
    """Sufficient dimension reduction by maximising least-squares mutual information (Suzuki &
    Sugiyama 2013), then LSCDE (``estimator="lscde"``) or epsilon-KDE (``"ekde"``) on z = W x:
    the two-step baseline of the LSCE paper. Attributes as for LSCE; traces_ holds minus the
    SMI estimate. See docs/methods/lsmi.md.
    """

    _criterion = "lsmi"
