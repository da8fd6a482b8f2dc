"""Estimator classes made from the registry alone: a method registered in C++ whose Python class
no module of the package writes by hand gets one here, a subclass of its family's base
(DensityEstimator or ConditionalDensityEstimator) that fits that method. Its ``__init__``, its
parameters and their docs come from the method's option table as for every class
(cdens._parameters), its fitted attributes from the report, and every query from the base. A
class written by hand is needed only for what the family's contract lacks (attributes beyond
the report, parameters that choose among methods, queries of its own).
"""

from ._conditional import ConditionalDensityEstimator
from ._density import DensityEstimator
from ._methods import methods

# The base class of each family whose methods need nothing beyond its contract.
_BASES = {"density": DensityEstimator, "conditional": ConditionalDensityEstimator}


def summary_sentence(entry):
    """The registry entry's summary as the start of a sentence ("Parzen window with …")."""
    return entry["summary"][:1].upper() + entry["summary"][1:]


def estimator_class(entry):
    """The class of a registry entry (one of ``cdens._methods.methods()``) from the entry alone.
    A method of a family without a generic base (a regressor) must have its class written by
    hand: ImportError naming it."""
    base = _BASES.get(entry["family"])
    if base is None:
        raise ImportError(f"method {entry['name']!r} of family {entry['family']!r} names the "
                          f"class {entry['python_class']}, which no module of cdens defines")
    doc = f"{summary_sentence(entry)} (method {entry['name']!r}; see docs/methods)."
    return type(entry["python_class"], (base,),
                {"_method": entry["name"], "__doc__": doc, "__module__": __name__})


def define_classes(namespace):
    """Adds to `namespace` (the package's) and to this module the class of every registered
    method whose Python class is not in `namespace`; returns their names."""
    made = []
    for entry in methods().values():
        name = entry["python_class"]
        if name not in namespace:
            globals()[name] = namespace[name] = estimator_class(entry)
            made.append(name)
    return made
