"""What scripts/generate_reference.py writes from the registry — the option tables of
docs/methods and the stubs of the estimators' generated __init__s — is up to date and says what
the package does."""

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import cdens
from cdens._methods import methods

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_tables_and_stubs_are_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_reference.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("class_name",
                         sorted({entry["python_class"] for entry in methods().values()}))
def test_each_stub_declares_the_parameters_the_class_takes(class_name):
    estimator_class = getattr(cdens, class_name)
    stub = ROOT / "python" / "cdens" / (estimator_class.__module__.split(".")[-1] + ".pyi")
    tree = ast.parse(stub.read_text())
    declared = next(node for node in tree.body
                    if isinstance(node, ast.ClassDef) and node.name == class_name)
    init = next(node for node in declared.body
                if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    stubbed = [argument.arg for argument in init.args.args]
    taken = list(inspect.signature(estimator_class.__init__).parameters)
    assert stubbed == taken


def test_every_class_has_its_option_table_in_the_docs():
    pages = "".join(path.read_text() for path in (ROOT / "docs" / "methods").glob("*.md"))
    for entry in methods().values():
        assert f"<!-- BEGIN options of {entry['python_class']}" in pages, entry["name"]
