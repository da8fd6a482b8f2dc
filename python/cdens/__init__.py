"""cdens: kernel density, conditional density and distributional regression estimators.

Estimators follow the scikit-learn contract; every conditional estimator answers the same
queries on its fitted p(y|x) (log_pdf, pdf, pdf_grid, sample, predict, predict_var, cdf,
predict_quantiles, predict_interval, hdr) and ``score`` is the mean log-likelihood.
Plots are in ``cdens.plot`` (needs matplotlib).
"""

from ._conditional import CdensWarning, ConditionalDensityEstimator
from ._files import load
from .lscde import LSCDE

__version__ = "0.1.0"

__all__ = ["LSCDE", "CdensWarning", "ConditionalDensityEstimator", "load"]
