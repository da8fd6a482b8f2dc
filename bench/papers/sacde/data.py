"""The data of the SA-CDE paper's experiments (Shiga, Tangkaratt & Sugiyama 2015, section 3):
Toy data 1 (eq. 26) and 2 (eq. 27) with their true conditional densities, the benchmark sets
geyser, crabs and bone from data/, and the noisy copies of x1 that serve as irrelevant features.
"""

import os

import numpy as np

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def sinc(u):
    """sin(u)/u (the unnormalised sinc of eqs. 26-27), 1 at u = 0."""
    return np.sinc(u / np.pi)


def noisy_copies(x1, m, rng):
    """m irrelevant features x1 + N(0, (3 sigma_hat)^2), sigma_hat the standard deviation of x1
    (section 3.2): shape (n, m)."""
    spread = np.std(x1, ddof=1)
    return x1[:, None] + 3.0 * spread * rng.normal(size=(x1.size, m))


def toy_1(n, rng, noisy=5):
    """Toy data 1 (eq. 26): x1 ~ U(-1, 1), `noisy` copies x2... of x1 with noise, y | x1 ~
    N(sinc(3 pi x1 / 4), (exp(1 - x1) / 8)^2). Returns x (n, 1 + noisy), y (n, 1)."""
    x1 = rng.uniform(-1.0, 1.0, size=n)
    y = sinc(0.75 * np.pi * x1) + np.exp(1.0 - x1) / 8.0 * rng.normal(size=n)
    return np.column_stack([x1, noisy_copies(x1, noisy, rng)]), y[:, None]


def toy_1_moments(x):
    """Mean and standard deviation of the true y | x of Toy data 1 (eq. 26), each (n, 1)."""
    return sinc(0.75 * np.pi * x[:, :1]), np.exp(1.0 - x[:, :1]) / 8.0


TOY_2_INPUTS = 6  # D_x; the paper does not give it. D_y = D_x / 3 = 2.


def toy_2(n, rng, inputs=TOY_2_INPUTS):
    """Toy data 2 (eq. 27): x_{3d-2}, x_{3d-1} ~ U(-1, 1), x_{3d} = x_{3d-2} + x_{3d-1} and
    y_d | x_{3d} ~ N(sinc(3 pi x_{3d} / 4), (exp(1 - x_{3d}) / 8)^2), d = 1 ... D_x / 3."""
    outputs = inputs // 3
    x = np.empty((n, inputs))
    y = np.empty((n, outputs))
    for d in range(outputs):
        x[:, 3 * d] = rng.uniform(-1.0, 1.0, size=n)
        x[:, 3 * d + 1] = rng.uniform(-1.0, 1.0, size=n)
        x[:, 3 * d + 2] = x[:, 3 * d] + x[:, 3 * d + 1]
        relevant = x[:, 3 * d + 2]
        y[:, d] = sinc(0.75 * np.pi * relevant) + np.exp(1.0 - relevant) / 8.0 * rng.normal(size=n)
    return x, y


def toy_2_moments(x):
    """Mean and standard deviation of the true y | x of Toy data 2 (eq. 27), each (n, D_y):
    y_d | x is N(sinc(3 pi x_{3d} / 4), (exp(1 - x_{3d}) / 8)^2), independent over d."""
    relevant = x[:, 2::3]
    return sinc(0.75 * np.pi * relevant), np.exp(1.0 - relevant) / 8.0


def load_csv(name):
    return np.genfromtxt(os.path.join(REPO, "data", name), delimiter=",", names=True)


def benchmark(name):
    """(x (n, d), y (n, 1)) of a benchmark set. geyser: waiting time given eruption duration,
    the pairing that matches the LSCDE paper's Table 1 (bench/papers/lscde_table1); crabs: body
    depth bd given sp, sex, fl, rw, cl, cw (d_x = 6, as the paper; index left out); bone:
    relative spinal bone mineral density given age."""
    if name == "geyser":
        data = load_csv("geyser.csv")
        return data["duration"][:, None], data["waiting"][:, None]
    if name == "crabs":
        data = load_csv("crabs.csv")
        x = np.column_stack([data[c] for c in ("sp", "sex", "fl", "rw", "cl", "cw")])
        return x, data["bd"][:, None]
    if name == "bone":
        data = load_csv("bone.csv")
        return data["age"][:, None], data["spnbmd"][:, None]
    raise ValueError(name)
