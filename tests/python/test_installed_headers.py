"""The installed API (include/cdens) stands alone: an installed header includes installed
headers only, so a program built against the installed package compiles (docs/design.md,
"Layers"); the engines' headers of src/ are not installed."""

import re

from conftest import REPO

INCLUDE = REPO / "include"


def quoted_includes(path):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', path.read_text(encoding="utf-8"),
                      re.MULTILINE)


def test_installed_headers_include_installed_headers_only():
    wrong = [f"{path.relative_to(REPO)} includes {name}"
             for path in sorted(INCLUDE.rglob("*.hpp"))
             for name in quoted_includes(path)
             if not (name.startswith("cdens/") and (INCLUDE / name).is_file())]
    assert wrong == []


def test_umbrella_includes_every_installed_header():
    umbrella = INCLUDE / "cdens" / "cdens.hpp"
    listed = set(quoted_includes(umbrella))
    installed = {str(path.relative_to(INCLUDE)) for path in INCLUDE.rglob("*.hpp")
                 if path != umbrella}
    assert installed - listed == set()
