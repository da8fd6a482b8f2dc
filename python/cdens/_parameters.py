"""The parameters of the estimator classes, generated from the engine's option tables.

Each class whose name a method of the registry gives as its ``python_class`` gets an
``__init__`` with one keyword parameter per Python name of its methods' options (in table
order, a class serving several methods taking the union), each defaulting to the table's
default as Python spells it, and the entries of the "Parameters" section of its docstring from
the table's docs. The class declares only what is no option, in ``_extra_parameters``: the
parameters that choose among its methods (``estimator``). Every class ends with ``verbose``,
which is no option either: it asks the fit for its progress. A new row in a method's table is a
new parameter of its class without any edit here or in the class.

The ``__init__`` is a plain function with explicit parameters that stores them unchanged, as
scikit-learn's get_params, set_params and clone expect.
"""

import collections
import functools
import inspect
import keyword
import re
import textwrap

from ._methods import VERBOSE, methods

Parameter = collections.namedtuple("Parameter", "name default type doc")
Parameter.__doc__ = """A parameter of an estimator class: its name, default, type as the
docstring spells it ("int", '{"kl", "sq"}') and doc (one paragraph)."""

# How a value of each option type is written in a docstring's type line.
_TYPE_NAMES = {
    "boolean": "bool",
    "integer": "int",
    "real": "float",
    "real_list": "float or list of float",
    "real_pair": "(float, float)",
    "name_list": "str or list of str",
    "seed": "int or numpy RandomState",
    "threads": "int",
    "columns": "list of int",
}

# Every estimator's last parameter (scikit-learn's verbose convention).
_VERBOSE_PARAMETER = Parameter(
    VERBOSE, 0, "int",
    "0: the fit is silent. 1: its progress on sys.stderr (shown by a terminal and by Jupyter): "
    "each stage of counted steps (cross-validation fits, restarts, search runs, iterations) as a "
    "line with the steps done, their rate and the time left where the count is known, kept "
    "with its time when the stage ends.")

# What Python's spelling of a seed, thread count or list of columns adds to the table's doc
# (scikit-learn's random_state and n_jobs conventions; columns as indices, not CSV names).
_PYTHON_CONVENTIONS = {
    "seed": "None draws a fresh seed at every fit.",
    "threads": "None or -1 is the default.",
    "columns": "By index among the columns of X, then those of Y: with X of shape (n, 5) and "
               "one output, [2] is the third input and [5] the output.",
}


def class_parameters(estimator_class):
    """The Parameters of estimator_class: its `_extra_parameters`, then the options of its
    methods in table order, then ``verbose``; [] for a class no method names."""
    entries = [entry for entry in methods().values()
               if entry["python_class"] == estimator_class.__name__]
    if not entries:
        return []
    options = _merged_options(entries)
    parameters = list(estimator_class._extra_parameters)
    for option in options:
        parameter = _parameter_of(option)
        taken_by = [entry["name"] for entry in entries
                    if any(row["python_name"] == parameter.name for row in entry["options"])]
        if len(taken_by) < len(entries):  # a class of several methods, not all taking it
            which = "method " if len(taken_by) == 1 else "methods "
            parameter = parameter._replace(
                doc=f"{parameter.doc} Only for {which}{' and '.join(taken_by)}.")
        parameters.append(parameter)
    parameters.append(_VERBOSE_PARAMETER)
    names = [parameter.name for parameter in parameters]
    for name in names:
        if not name.isidentifier() or keyword.iskeyword(name) or names.count(name) > 1:
            raise TypeError(f"{estimator_class.__name__}: parameter {name!r} is no Python name or "
                            "is declared twice")
    return parameters


def _merged_options(entries):
    """The options with a Python name of every entry, each once: the first entry's in its
    order, then each later entry's new ones after the option that precedes them in its table
    (LSCE/epsilon-KDE's epsilon after the lambdas)."""
    merged = []
    for entry in entries:
        previous = None
        for option in entry["options"]:
            name = option["python_name"]
            if not name:
                continue
            known = [row["python_name"] for row in merged]
            if name not in known:
                position = 0 if previous is None else known.index(previous) + 1
                merged.insert(position, option)
            previous = name
    return merged


def _parameter_of(option):
    """The Parameter of one option row as cdens._methods.methods() describes it."""
    kind = option["type"]
    spelled_as_none = option["none_is_default"] or kind in ("seed", "threads")
    if spelled_as_none:
        default = None
    elif kind in ("real_list", "real_pair", "columns"):
        default = tuple(option["default"])  # immutable, as scikit-learn wants defaults
    else:
        default = option["default"]
    if kind == "choice":
        type_name = "{" + ", ".join(f'"{choice}"' for choice in option["choices"]) + "}"
        if option.get("takes_numbers"):
            type_name += " or float"
    else:
        type_name = _TYPE_NAMES[kind]
    if spelled_as_none:
        type_name = ("None, " if " or " in type_name else "None or ") + type_name
    doc = option["doc"].rstrip(".") + "."
    if option["none_is_default"] and isinstance(option["default"], list) and option["default"]:
        doc += f" None: {option['default_text']}."
    if kind in _PYTHON_CONVENTIONS:
        doc += " " + _PYTHON_CONVENTIONS[kind]
    return Parameter(option["python_name"], default, type_name, doc)


def generated_init(estimator_class, parameters):
    """An __init__ taking `parameters` as keywords with their defaults and storing each
    unchanged under its name."""
    defaults = {f"_default_{parameter.name}": parameter.default for parameter in parameters}
    signature = ", ".join(["self"] + [f"{p.name}=_default_{p.name}" for p in parameters])
    body = "".join(f"    self.{p.name} = {p.name}\n" for p in parameters) or "    pass\n"
    namespace = {}
    exec(f"def __init__({signature}):\n{body}", defaults, namespace)
    init = namespace["__init__"]
    init.__module__ = estimator_class.__module__
    init.__qualname__ = f"{estimator_class.__qualname__}.__init__"
    init.__doc__ = f"Takes the parameters of {estimator_class.__name__} (see the class)."
    return init


def parameters_section(parameters, indent="    "):
    """The numpydoc "Parameters" section of `parameters`."""
    lines = ["Parameters", "----------"]
    for parameter in parameters:
        lines.append(f"{parameter.name} : {parameter.type}, default={parameter.default!r}")
        lines += textwrap.wrap(parameter.doc, width=92, initial_indent="    ",
                               subsequent_indent="    ", break_on_hyphens=False)
    return textwrap.indent("\n".join(lines), indent) + "\n\n"


def with_parameters_section(doc, parameters):
    """The class docstring `doc` with the Parameters section put before its Attributes section
    (or at its end), indented as the docstring is."""
    doc = doc or ""
    attributes = re.search(r"^( *)Attributes\n\1-+\n", doc, flags=re.M)
    if attributes:
        section = parameters_section(parameters, attributes.group(1))
        return doc[:attributes.start()] + section + doc[attributes.start():]
    indents = re.findall(r"\n( *)\S", doc)
    return doc.rstrip() + "\n\n" + parameters_section(parameters, min(indents, default=""))


def add_parameters(estimator_class):
    """Gives estimator_class, if a method of the registry names it, the generated __init__ and
    Parameters section."""
    parameters = class_parameters(estimator_class)
    if not parameters:
        return  # a base class, or a user's subclass of an estimator class
    if "__init__" in vars(estimator_class):
        raise TypeError(f"{estimator_class.__name__} writes its own __init__: its parameters "
                        "come from the option tables (and _extra_parameters)")
    estimator_class.__init__ = generated_init(estimator_class, parameters)
    estimator_class.__doc__ = with_parameters_section(estimator_class.__doc__, parameters)
    if not _takes_sample_weights(estimator_class):
        estimator_class.fit = _fit_without_sample_weight(estimator_class.fit)


def _takes_sample_weights(estimator_class):
    """Whether every method of estimator_class supports sample weights (the registry says)."""
    return all(entry["sample_weights"] for entry in methods().values()
               if entry["python_class"] == estimator_class.__name__)


def _fit_without_sample_weight(fit):
    """fit of a class whose methods take no sample weights: its signature without
    ``sample_weight``, so that scikit-learn's has_fit_parameter tells the truth and meta-estimators
    pass none; a sample_weight given all the same is refused by the fit, naming the method."""
    @functools.wraps(fit)
    def declared_fit(self, *args, **kwargs):
        return fit(self, *args, **kwargs)

    signature = inspect.signature(fit)
    declared_fit.__signature__ = signature.replace(parameters=[
        parameter for parameter in signature.parameters.values()
        if parameter.name != "sample_weight"])
    return declared_fit
