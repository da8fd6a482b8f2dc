"""What a method declares beyond its family's contract (the registry's extras and queries): the
arrays its fit returns beside the model become fitted attributes, and each query of its models
becomes a method of its class, as ``cdens predict --query`` answers it on the command line.
"""

from . import _core
from ._methods import methods


def class_entries(estimator_class):
    """The registry's entries whose Python class is estimator_class."""
    return [entry for entry in methods().values()
            if entry["python_class"] == estimator_class.__name__]


def set_extras(estimator, extras):
    """Each extra of a fit as the fitted attribute of its name with a trailing underscore."""
    for name, values in extras.items():
        setattr(estimator, f"{name}_", values)


def _query_method(query):
    name = query["name"]

    def answer(self, X):
        return _core.query(self.model_, name, self._inputs(X))

    answer.__name__ = answer.__qualname__ = name
    shape = ", ".join(query["shape"])
    answer.__doc__ = f"{query['doc']}, for the rows of X: shape ({shape})."
    return answer


def add_queries(estimator_class):
    """Gives estimator_class a method for each query its methods declare (the class may write
    one of the same name itself: it is kept)."""
    for entry in class_entries(estimator_class):
        for query in entry["queries"]:
            if query["name"] not in vars(estimator_class):
                setattr(estimator_class, query["name"], _query_method(query))
