"""cdens: kernel density, conditional density and distributional regression estimators.

Estimators follow the scikit-learn contract; every conditional estimator answers the same
queries on its fitted p(y|x) (log_pdf, pdf, pdf_grid, sample, predict, predict_var, cdf,
predict_quantiles, predict_interval, hdr) and ``score`` is the mean log-likelihood. Every
unconditional density estimator (ParzenWindow, GMM, RSDE, SKD, GSKD) answers score_samples
(log p(x)), pdf, sample, mean, covariance, cdf, quantiles and hdr, and ``score`` is the total
log-likelihood, as for scikit-learn's KernelDensity.
PRESSRegressor is a scikit-learn regressor (``score`` is R^2) whose fitted p(y|x) answers the
same queries. Plots are in ``cdens.plot`` (needs matplotlib).
"""

import os

# OpenMP threads that spin while they wait for work starve the other processes of a busy machine;
# libgomp reads the policy once, when it is loaded (with _core, below, unless another package
# loaded it first), so the passive policy is the default unless the user chose one.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from . import _core  # noqa: E402
from ._conditional import CdensWarning, ConditionalDensityEstimator, ExtrapolationWarning
from ._density import DensityEstimator
from ._files import load
from .auto import AutoCDE
from .ekde import EpsilonKDE
from .gmm import GMM
from .gskd import GSKD
from .kcde import KernelCDE
from .linear import LinearGaussianCDE
from .lsce import LSCE, LSMI
from .lscde import LSCDE
from .nwcde import NWCDE
from .parzen import ParzenWindow
from .press import PRESSRegressor
from .rkde import RKDE
from .rsde import RSDE
from .sacde import SACDE, SALSCDE, ForwardSelectionCDE
from .skd import SKD
from . import registered

__version__ = _core.__version__


def vector_instruction_set():
    """The copy of the C++ hot loops that runs: "avx512", "avx2" or "baseline" in a portable
    build (pip install), which compiles all three and chooses the widest the CPU has when it
    loads, unless the environment variable CDENS_ISA names one; "native" in a build for this
    machine's CPU (CDENS_NATIVE)."""
    return _core.vector_instruction_set()


# A CDENS_ISA that names a copy the build lacks or the CPU cannot run is refused here, at import
# (ValueError), rather than silently running another copy.
vector_instruction_set()

__all__ = ["LSCDE", "AutoCDE", "KernelCDE", "LinearGaussianCDE", "EpsilonKDE", "NWCDE", "RKDE",
           "SACDE", "SALSCDE", "ForwardSelectionCDE", "LSCE", "LSMI", "ParzenWindow", "GMM",
           "RSDE", "SKD", "GSKD", "PRESSRegressor",
           "CdensWarning", "ConditionalDensityEstimator", "DensityEstimator",
           "ExtrapolationWarning", "load", "vector_instruction_set"]

# A registered method without a class written above gets one made from its registry entry.
__all__ += registered.define_classes(globals())
