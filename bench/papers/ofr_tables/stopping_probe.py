"""Writes the data of stopping_probe.cpp (Table I's eight Gaussians, N = 200, and 10,000 fresh
points, each with the true density) and runs it:

    python bench/papers/ofr_tables/stopping_probe.py build/release/cdens_stopping_probe
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from densities import eight_gaussians_pdf, eight_gaussians_sample  # noqa: E402


def main():
    rng = np.random.default_rng([0, 0])
    directory = tempfile.mkdtemp()
    paths = []
    for name, n in (("train", 200), ("fresh", 10000)):
        x = eight_gaussians_sample(n, rng)
        path = os.path.join(directory, f"{name}.csv")
        np.savetxt(path, np.column_stack([x[:, 0], eight_gaussians_pdf(x)]), delimiter=",",
                   header="x,p", comments="")
        paths.append(path)
    subprocess.run([sys.argv[1], *paths], check=True)


if __name__ == "__main__":
    main()
