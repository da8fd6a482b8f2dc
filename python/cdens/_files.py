"""Model files shared with the cdens command: cdens.load returns a fitted estimator."""

import importlib

from . import _core
from ._methods import methods


def load(path):
    """Reads a model file written by ``cdens fit --out`` (any method) or ``estimator.save``, in
    either encoding (JSON text, or the binary encoding of large models), and returns the fitted
    estimator of its method. Its parameters are the chosen hyper-parameters
    (so a refit reproduces them without cross-validation); every query answers as the saved
    model does."""
    model = _core.load_model_file(str(path))
    entry = methods().get(model.method)
    if entry is None:
        raise ValueError(f"{path}: method '{model.method}' has no estimator class in this "
                         f"version of the cdens package")
    estimator_class = getattr(importlib.import_module("cdens"), entry["python_class"])
    return estimator_class._from_model(model)
