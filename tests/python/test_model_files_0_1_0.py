"""Model files written by cdens 0.1.0, one per extension of the conditional mixture's output side
(an output trend with and without spread, a Gaussian-process trend, trend groups, output
transforms, a discrete output: tests/data/models_0.1.0/README.md), still load, answer as they did,
and are written back as they were but for the report keys renamed since (what today writes then
round-trips byte for byte)."""

import json
import sys

import numpy as np
import pytest

import cdens

from conftest import REPO

WRITTEN_BY_0_1_0 = REPO / "tests" / "data" / "models_0.1.0"
sys.path.insert(0, str(WRITTEN_BY_0_1_0))
import write  # noqa: E402

EXPECTED = json.loads((WRITTEN_BY_0_1_0 / "expected.json").read_text())
NAMES = sorted(EXPECTED)


def outputs_of(name):
    _, fits = write.estimators()
    return next(Y for file_name, _, Y in fits if file_name == name)


@pytest.mark.parametrize("name", NAMES)
def test_a_0_1_0_file_answers_as_it_did(name):
    model = cdens.load(WRITTEN_BY_0_1_0 / f"{name}.json")
    X = write.data()[0][:10]
    answers = write.queries(model, X, outputs_of(name)[:10])
    assert sorted(answers) == sorted(EXPECTED[name])
    for query, values in EXPECTED[name].items():
        # The files were written by a -march=native build; builds for other CPUs agree to
        # rounding, and the transformed models' quantiles are root searches of 1e-12.
        np.testing.assert_allclose(answers[query], values, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name}: {query}")


def under_current_report_names(document):
    """A 0.1.0 model file as today's writes it: the one report key of these files that 0.1.0
    named by the paper's symbol, KCDE's λ of a discrete column (lambda_y0), is its option's
    name (bandwidth_y0; CHANGELOG, "Fit reports name a chosen value by its option")."""
    hyperparameters = document["fit"]["hyperparameters"]
    document["fit"]["hyperparameters"] = {
        ("bandwidth_" + key[len("lambda_"):] if key.startswith("lambda_") else key): value
        for key, value in hyperparameters.items()}
    return document


@pytest.mark.parametrize("name", NAMES)
def test_a_0_1_0_file_is_written_back_unchanged(name, tmp_path):
    path = WRITTEN_BY_0_1_0 / f"{name}.json"
    cdens.load(path).save(tmp_path / "again.json")
    again = json.loads((tmp_path / "again.json").read_text())
    assert again == under_current_report_names(json.loads(path.read_text()))
    # What today writes reads back and is written again to the byte.
    cdens.load(tmp_path / "again.json").save(tmp_path / "twice.json")
    assert (tmp_path / "twice.json").read_bytes() == (tmp_path / "again.json").read_bytes()
