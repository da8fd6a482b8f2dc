"""Model files shared with the cdens command: cdens.load returns a fitted estimator."""

from . import _core
from .ekde import EpsilonKDE
from .lscde import LSCDE
from .nwcde import NWCDE
from .rkde import RKDE

_ESTIMATOR_OF_METHOD = {"lscde": LSCDE, "ekde": EpsilonKDE, "nwcde": NWCDE, "rkde": RKDE}


def load(path):
    """Reads a model file written by ``cdens fit --out`` or ``estimator.save`` and returns the
    fitted estimator of its method. Its parameters are the chosen hyper-parameters (so a refit
    reproduces them without cross-validation); every query answers as the saved model does."""
    model = _core.ConditionalModel.load(str(path))
    estimator_class = _ESTIMATOR_OF_METHOD.get(model.method)
    if estimator_class is None:
        raise ValueError(f"{path}: method '{model.method}' has no estimator class in this "
                         f"version of the cdens package")
    return estimator_class._from_model(model)
