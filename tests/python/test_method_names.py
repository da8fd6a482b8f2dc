"""The C++ API of a method is named after it (docs/registry.md, "Names"): every registered
method whose name has no hyphen has the header include/cdens/<family>/<name>.hpp declaring the
struct <Name>Options and the function fit_<name>, so that the next method follows the rule. A
hyphenated method (fw-ekde, lsce-ekde, lsmi-lscde, ...) is a variant fitted by a function of its
base and is not checked here."""

import re

import pytest

from cdens._methods import methods
from conftest import REPO

BASE_METHODS = sorted(name for name in methods() if "-" not in name)


def api_header(name):
    return REPO / "include" / "cdens" / methods()[name]["family"] / f"{name}.hpp"


def declarations(name):
    """The header's text without comments, so a name mentioned in prose does not count."""
    text = api_header(name).read_text(encoding="utf-8")
    return re.sub(r"//[^\n]*", "", text)


def test_every_family_has_a_method_without_hyphen():
    families = {methods()[name]["family"] for name in BASE_METHODS}
    assert families == {"conditional", "density", "regression"}


@pytest.mark.parametrize("name", BASE_METHODS)
def test_header_is_named_after_the_method(name):
    assert api_header(name).is_file(), f"method {name!r} has no header {api_header(name)}"


@pytest.mark.parametrize("name", BASE_METHODS)
def test_options_struct_is_named_after_the_method(name):
    options = name[:1].upper() + name[1:] + "Options"
    assert re.search(rf"\bstruct\s+{options}\s*\{{", declarations(name)), \
        f"{api_header(name).name} does not define struct {options}"


@pytest.mark.parametrize("name", BASE_METHODS)
def test_fit_function_is_named_after_the_method(name):
    fit = re.search(rf"^\s*[\w:<>]+\s+fit_{name}\s*\(\s*const MatrixView& x\b",
                    declarations(name), re.MULTILINE)
    assert fit, f"{api_header(name).name} does not declare fit_{name}(const MatrixView& x, ...)"


@pytest.mark.parametrize("name", BASE_METHODS)
def test_fit_function_takes_the_options(name):
    options = name[:1].upper() + name[1:] + "Options"
    signature = re.search(rf"\bfit_{name}\s*\(([^;]*)\);", declarations(name))
    assert signature and re.search(rf"\bconst {options}&", signature.group(1)), \
        f"fit_{name} does not take const {options}&"
