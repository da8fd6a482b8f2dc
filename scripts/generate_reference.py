"""Writes what the method registry determines, so that nothing of it is written twice by hand:

* in docs/methods/*.md, each table between the markers
  ``<!-- BEGIN options of CLASS ... -->`` and ``<!-- END options of CLASS -->``: the options of the
  Python class CLASS (the union over its methods, as its ``__init__`` takes them) with their
  Python name, command-line flag, option name, default and meaning, from the option rows; a class
  without a table gets a new page docs/methods/METHOD.md holding its summary and its table;
* python/cdens/MODULE.pyi for every module of an estimator class: the module's public classes and
  functions, each estimator's ``__init__`` with its parameters, types and defaults (the package
  generates that ``__init__`` at import, which editors and type checkers cannot see).

    build/venv/bin/python scripts/generate_reference.py          # rewrite the files
    build/venv/bin/python scripts/generate_reference.py --check  # exit 1 naming stale files

tests/python/test_generated_reference.py runs the check in make test.
"""

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

import cdens
from cdens._methods import methods
from cdens._parameters import class_parameters
from cdens.registered import summary_sentence

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "methods"
PACKAGE = ROOT / "python" / "cdens"
GENERATOR = "scripts/generate_reference.py"
BLOCK = re.compile(r"(<!-- BEGIN options of (\w+)[^\n]*-->\n)(.*?)(<!-- END options of \2 -->)",
                   re.S)

# How each option type reads as a Python annotation in a stub.
_ANNOTATIONS = {
    "boolean": "bool",
    "integer": "int",
    "real": "float",
    "real_list": "float | Sequence[float]",
    "real_pair": "tuple[float, float]",
    "name_list": "str | Sequence[str]",
    "seed": "int | np.random.RandomState | None",
    "threads": "int | None",
    "columns": "Sequence[int]",
}


def estimator_classes():
    """Every class the registry names, by name."""
    names = sorted({entry["python_class"] for entry in methods().values()})
    return {name: getattr(cdens, name) for name in names}


def class_rows(class_name):
    """The option rows of the class's methods, each once (by its Python name, or by its C++ name
    where only C++ callers set it: the first method's row), in table order."""
    rows = {}
    for entry in methods().values():
        if entry["python_class"] == class_name:
            for row in entry["options"]:
                rows.setdefault(row["python_name"] or ("", row["name"]), row)
    return rows


def option_rows(class_name):
    """The class's option rows with a Python name, by that name."""
    return {key: row for key, row in class_rows(class_name).items() if isinstance(key, str)}


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def options_table(class_name, estimator_class):
    """The Markdown table of the class's parameters, then of the options only C++ callers set."""
    rows = option_rows(class_name)
    lines = ["| Python | command line | option | default | meaning |",
             "| --- | --- | --- | --- | --- |"]
    for parameter in class_parameters(estimator_class):
        row = rows.get(parameter.name)
        flag = f"`{row['cli_flag']}`" if row and row["cli_flag"] else "—"
        field = f"`{row['name']}`" if row else "—"
        default = row["default_text"] if row else repr(parameter.default)
        if row and row["type"] == "seed":
            default += " (Python: None, a fresh seed at every fit)"
        lines.append(f"| `{parameter.name}` | {flag} | {field} | {cell(default)} | "
                     f"{cell(parameter.doc)} |")
    library_only = [row for row in class_rows(class_name).values() if not row["python_name"]]
    for row in library_only:
        flag = f"`{row['cli_flag']}`" if row["cli_flag"] else "—"
        lines.append(f"| — | {flag} | `{row['name']}` | {cell(row['default_text'])} | "
                     f"{cell(row['doc'].rstrip('.') + '.')} |")
    return "\n".join(lines) + "\n"


def documented_pages(classes):
    """Each page's text with its option tables regenerated; every class has exactly one."""
    pages, seen = {}, {}
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text()

        def regenerated(match, path=path):
            name = match.group(2)
            if name not in classes:
                raise SystemExit(f"{path}: options of {name}, which no method names")
            seen.setdefault(name, []).append(path)
            return match.group(1) + options_table(name, classes[name]) + match.group(4)

        pages[path] = BLOCK.sub(regenerated, text)
    for name in classes:
        places = seen.get(name, [])
        if not places:
            pages.update(new_page(name, classes[name]))
        elif len(places) > 1:
            raise SystemExit(f"the options of {name} must have one table in docs/methods "
                             f"(<!-- BEGIN options of {name} -->); found {len(places)}")
    return pages


def new_page(class_name, estimator_class):
    """The page of a class that has none yet: docs/methods/METHOD.md with its summary and its
    option table, for the method's author to add what the method is and where it comes from."""
    entry = next(entry for entry in methods().values() if entry["python_class"] == class_name)
    marker = f"options of {class_name}: generated from the registry by {GENERATOR}"
    text = (f"# {class_name} (`{entry['name']}`)\n\n{summary_sentence(entry)}.\n\n"
            f"## Options\n\n<!-- BEGIN {marker} -->\n"
            f"{options_table(class_name, estimator_class)}<!-- END options of {class_name} -->\n")
    return {DOCS / f"{entry['name']}.md": text}


def annotation_of(parameter, row):
    if row is None:
        return "Any"
    kind = row["type"]
    if kind == "choice":
        annotation = "Literal[" + ", ".join(repr(c) for c in row["choices"]) + "]"
        if row.get("takes_numbers"):
            annotation += " | float"
    else:
        annotation = _ANNOTATIONS[kind]
    if parameter.default is None and "None" not in annotation:
        annotation += " | None"
    return annotation


def signature_text(function, skip_annotations=True):
    """The parameters of `function` as a stub writes them: defaults as `...`."""
    parts = []
    for parameter in inspect.signature(function).parameters.values():
        text = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            text = "*" + text
        elif parameter.kind is parameter.VAR_KEYWORD:
            text = "**" + text
        if parameter.default is not parameter.empty:
            text += "=..."
        parts.append(text)
    return ", ".join(parts)


def init_stub(estimator_class):
    rows = option_rows(estimator_class.__name__)
    parts = ["self"]
    for parameter in class_parameters(estimator_class):
        extra_choices = re.fullmatch(r"\{(.*)\}", parameter.type or "")
        if parameter.name in rows:
            annotation = annotation_of(parameter, rows[parameter.name])
        elif extra_choices:
            annotation = "Literal[" + extra_choices.group(1).replace('"', "'") + "]"
        else:
            annotation = {"int": "int", "float": "float", "bool": "bool"}.get(parameter.type,
                                                                              "Any")
        parts.append(f"{parameter.name}: {annotation} = ...")
    return "    def __init__(\n" + "".join(f"        {part},\n" for part in parts) + \
        "    ) -> None: ...\n"


def class_stub(estimator_class, estimators):
    bases = ", ".join(base.__name__ for base in estimator_class.__bases__)
    lines = [f"class {estimator_class.__name__}({bases}):\n"]
    if estimator_class in estimators:
        lines.append(init_stub(estimator_class))
    for name, member in vars(estimator_class).items():
        if name.startswith("_") or name == "__init__":
            continue
        if isinstance(member, property):
            lines.append(f"    @property\n    def {name}(self) -> Any: ...\n")
        elif isinstance(member, (staticmethod, classmethod)):
            decorator = type(member).__name__
            lines.append(f"    @{decorator}\n    def {name}"
                         f"({signature_text(member.__func__)}): ...\n")
        elif inspect.isfunction(member):
            lines.append(f"    def {name}({signature_text(member)}): ...\n")
        else:
            lines.append(f"    {name}: Any\n")
    if len(lines) == 1:
        lines.append("    ...\n")
    return "".join(lines)


def module_stub(module, estimators):
    """The stub of one module: its own public classes and functions, bases imported."""
    defined = {name: value for name, value in vars(module).items()
               if getattr(value, "__module__", None) == module.__name__
               and (inspect.isclass(value) or inspect.isfunction(value))}
    public = [value for name, value in defined.items() if not name.startswith("_")]
    bases = {base for value in public if inspect.isclass(value) for base in value.__mro__}
    # The public names, and the module's private classes that a public class derives from.
    own = [(name, value) for name, value in defined.items()
           if not name.startswith("_") or value in bases]
    imports = set()
    for _, value in own:
        if inspect.isclass(value):
            for base in value.__bases__:
                if base.__module__ != module.__name__ and base is not object:
                    source = base.__module__
                    relative = "." + source.split(".", 1)[1] if source.startswith("cdens.") \
                        else source
                    imports.add(f"from {relative} import {base.__name__}")
    body = []
    for name, value in own:
        if inspect.isclass(value):
            body.append(class_stub(value, estimators))
        else:
            body.append(f"def {name}({signature_text(value)}): ...\n")
    header = [f"# Generated by {GENERATOR} from the method registry: do not edit.",
              "from typing import Any, Literal, Sequence", "", "import numpy as np", ""]
    header += sorted(imports)
    return "\n".join(header) + "\n\n\n" + "\n\n".join(body)


def stubs(classes):
    """The .pyi text of every module that defines an estimator class."""
    estimators = set(classes.values())
    modules = sorted({estimator_class.__module__ for estimator_class in estimators})
    return {PACKAGE / (name.split(".")[-1] + ".pyi"):
            module_stub(importlib.import_module(name), estimators) for name in modules}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every file that is out of date")
    args = parser.parse_args()
    classes = estimator_classes()
    wanted = {**documented_pages(classes), **stubs(classes)}
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run {GENERATOR}", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        temporary = path.with_suffix(path.suffix + ".tmp")
        temporary.write_text(wanted[path])
        temporary.replace(path)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
