"""Model files shared with the cdens command: cdens.load returns a fitted estimator."""

import importlib
import json

from . import _core
from ._methods import methods

# The engine's class of each model-file shape (DESIGN.md: conditional mixture or Gaussian
# mixture).
_MODEL_OF_SHAPE = {"conditional_mixture": _core.ConditionalModel,
                   "gaussian_mixture": _core.DensityModel}


def load(path):
    """Reads a model file written by ``cdens fit --out`` (any method) or ``estimator.save`` and
    returns the fitted estimator of its method. Its parameters are the chosen hyper-parameters
    (so a refit reproduces them without cross-validation); every query answers as the saved
    model does."""
    model = _model_class(path).load(str(path))
    entry = methods().get(model.method)
    if entry is None:
        raise ValueError(f"{path}: method '{model.method}' has no estimator class in this "
                         f"version of the cdens package")
    estimator_class = getattr(importlib.import_module("cdens"), entry["python_class"])
    return estimator_class._from_model(model)


def _model_class(path):
    """The engine class that reads the file, by its "shape" field (the engine checks the rest
    of the file and reports what is wrong with it)."""
    try:
        with open(path, encoding="utf-8") as file:
            shape = json.load(file).get("shape")
    except (OSError, ValueError, AttributeError):
        shape = None  # unreadable, not JSON or not an object: the engine says what is wrong
    return _MODEL_OF_SHAPE.get(shape, _core.ConditionalModel)
