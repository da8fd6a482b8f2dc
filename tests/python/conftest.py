"""Shared data for the Python tests: the bundled Old Faithful set and a heteroscedastic toy."""

import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def faithful():
    """(waiting (n, 1), eruptions (n,)) of data/faithful.csv, parsed like the CLI parses it."""
    data = np.genfromtxt(REPO / "data" / "faithful.csv", delimiter=",", names=True)
    return np.ascontiguousarray(data["waiting"].reshape(-1, 1)), np.ascontiguousarray(
        data["eruptions"])


@pytest.fixture(scope="session")
def toy():
    """y = sinc(x) + noise whose spread grows with |x|, the LSCDE paper's Figure 1 shape."""
    rng = np.random.default_rng(7)
    x = rng.uniform(-3.0, 3.0, size=(300, 1))
    y = np.sinc(x[:, 0]) + (0.1 + 0.2 * np.abs(x[:, 0])) * rng.normal(size=300)
    return x, y


@pytest.fixture(scope="session")
def cli():
    """Path of the cdens command (make test-python sets CDENS_CLI)."""
    path = os.environ.get("CDENS_CLI")
    if not path:
        pytest.skip("CDENS_CLI is not set (run through make test-python)")
    return str(Path(path).resolve())
