"""Model files written by cdens 0.1.0, one per extension of the conditional mixture's output side
(an output trend with and without spread, a Gaussian-process trend, trend groups, output
transforms, a discrete output: tests/data/models_0.1.0/README.md), still load, answer as they did,
and are written back byte for byte."""

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


@pytest.mark.parametrize("name", NAMES)
def test_a_0_1_0_file_is_written_back_unchanged(name, tmp_path):
    path = WRITTEN_BY_0_1_0 / f"{name}.json"
    cdens.load(path).save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
