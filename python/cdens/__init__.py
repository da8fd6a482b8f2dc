"""cdens: kernel density, conditional density and distributional regression estimators.

Estimators follow the scikit-learn contract; every conditional estimator answers the same
queries on its fitted p(y|x) (log_pdf, pdf, pdf_grid, sample, predict, predict_var, cdf,
predict_quantiles, predict_interval, hdr) and ``score`` is the mean log-likelihood.
Plots are in ``cdens.plot`` (needs matplotlib).
"""

from ._conditional import CdensWarning, ConditionalDensityEstimator
from ._files import load
from .ekde import EpsilonKDE
from .lscde import LSCDE
from .nwcde import NWCDE
from .rkde import RKDE

__version__ = "0.1.0"

__all__ = ["LSCDE", "EpsilonKDE", "NWCDE", "RKDE", "CdensWarning", "ConditionalDensityEstimator", "load"]
