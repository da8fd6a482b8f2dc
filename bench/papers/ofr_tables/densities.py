"""The five synthetic densities of Chen, Hong & Harris (2010), section IV, exactly as eqs. (51)-(61)
define them, with samplers, and the paper's settings for each example (sample size, runs, kernel
widths, GMM initialisation, RWBS settings) and its reported numbers (Tables I, III, V, VII, IX).
"""

from typing import Callable, NamedTuple, Optional, Tuple

import numpy as np

LOG_2PI = np.log(2.0 * np.pi)


# -- eq. (51)-(52): eight Gaussians ---------------------------------------------------------------
EIGHT_SIGMA = np.sqrt((2.0 / 3.0) ** np.arange(8))
EIGHT_MU = 3.0 * ((2.0 / 3.0) ** np.arange(8) - 1.0)


def eight_gaussians_pdf(X):
    x = X[:, :1]
    return np.mean(np.exp(-0.5 * ((x - EIGHT_MU) / EIGHT_SIGMA) ** 2)
                   / (np.sqrt(2 * np.pi) * EIGHT_SIGMA), axis=1)


def eight_gaussians_sample(n, rng):
    component = rng.integers(0, 8, n)
    return (EIGHT_MU[component] + EIGHT_SIGMA[component] * rng.standard_normal(n)).reshape(-1, 1)


# -- eq. (53): Gaussian and Laplacian in 1-D -------------------------------------------------------
def gauss_laplace_pdf(X):
    x = X[:, 0]
    return (np.exp(-0.5 * (x - 2.0) ** 2) / (2.0 * np.sqrt(2 * np.pi))
            + 0.7 / 4.0 * np.exp(-0.7 * np.abs(x + 2.0)))


def gauss_laplace_sample(n, rng):
    gaussian = rng.random(n) < 0.5
    return np.where(gaussian, rng.normal(2.0, 1.0, n),
                    rng.laplace(-2.0, 1.0 / 0.7, n)).reshape(-1, 1)


# -- eq. (54): Gaussian and Laplacian in 2-D -------------------------------------------------------
def gauss_laplace_2d_pdf(X):
    x1, x2 = X[:, 0], X[:, 1]
    return (np.exp(-0.5 * (x1 - 2.0) ** 2 - 0.5 * (x2 - 2.0) ** 2) / (4.0 * np.pi)
            + 0.35 / 8.0 * np.exp(-0.7 * np.abs(x1 + 2.0) - 0.5 * np.abs(x2 + 2.0)))


def gauss_laplace_2d_sample(n, rng):
    gaussian = (rng.random(n) < 0.5)[:, None]
    normal = rng.normal(2.0, 1.0, (n, 2))
    laplace = np.c_[rng.laplace(-2.0, 1.0 / 0.7, n), rng.laplace(-2.0, 1.0 / 0.5, n)]
    return np.ascontiguousarray(np.where(gaussian, normal, laplace))


# -- eqs. (55)-(61): three Gaussians in 6-D and 10-D -----------------------------------------------
def three_gaussians(dimension):
    """Means 1, -1, 0 and diagonal covariances diag{1, 2, 1, 2, ...}, diag{2, 1, 2, 1, ...}
    (twice)."""
    means = np.array([np.full(dimension, 1.0), np.full(dimension, -1.0), np.zeros(dimension)])
    first = np.tile([1.0, 2.0], dimension // 2)
    second = np.tile([2.0, 1.0], dimension // 2)
    variances = np.array([first, second, second])

    def pdf(X):
        log_terms = (-0.5 * (((X[:, None, :] - means) ** 2) / variances).sum(axis=2)
                     - 0.5 * (dimension * LOG_2PI + np.log(variances).sum(axis=1)))
        return np.exp(log_terms).mean(axis=1)

    def sample(n, rng):
        component = rng.integers(0, 3, n)
        return np.ascontiguousarray(
            means[component] + np.sqrt(variances[component]) * rng.standard_normal((n, dimension)))

    return pdf, sample


SIX_PDF, SIX_SAMPLE = three_gaussians(6)
TEN_PDF, TEN_SAMPLE = three_gaussians(10)


class Reported(NamedTuple):
    """A paper cell: mean and standard deviation."""
    mean: float
    sd: float


class Example(NamedTuple):
    name: str
    table: str
    pdf: Callable
    sample: Callable
    n: int
    runs: int
    widths: dict            # PW's gamma_Parz, SKD's and RSDE's gamma, in the data's units
    gmm: dict               # N_K, box [a, b], gamma^2_ini, gamma^2_min
    rwbs: Tuple[int, int, int]   # P_S, M_I, N_G
    l1_scale: float         # the table quotes L1 x this
    l1: dict                # method -> Reported
    kernels: dict           # method -> Reported
    kld_scale: Optional[float] = None
    kld: Optional[dict] = None
    kld_box: Optional[Tuple[float, float]] = None   # [x_min, x_max] in every dimension
    kld_n_par: Optional[int] = None


def cells(*pairs):
    return {method: Reported(*pair) for method, pair in zip(METHODS, pairs)}


METHODS = ("PW", "SKD", "RSDE", "GSKD", "GMM")

EXAMPLES = [
    Example("eight Gaussians (1-D)", "I", eight_gaussians_pdf, eight_gaussians_sample, 200, 200,
            {"PW": 0.17, "SKD": 0.3, "RSDE": 0.56},
            {"n_components": 7, "box": (-4.0, 3.0), "initial_variance": 0.1, "floor": 0.01},
            (10, 200, 10), 1e2,
            cells((4.1194, 1.3513), (4.1886, 1.3457), (5.8163, 0.8358), (3.9531, 1.4166),
                  (4.9829, 1.5762)),
            cells((200, 0), (10.2, 1.7), (14.0, 4.3), (6.5, 1.4), (7, 0)),
            1e2, cells((4.4778, 2.7741), (8.2111, 11.282), (6.9556, 2.5217), (6.1627, 4.3911),
                       (5.6345, 3.3672)), (-8.0, 6.0), 10000),
    Example("Gaussian and Laplacian (1-D)", "III", gauss_laplace_pdf, gauss_laplace_sample, 100,
            100, {"PW": 0.54, "SKD": 1.1, "RSDE": 1.3},
            {"n_components": 5, "box": (-12.0, 7.0), "initial_variance": 0.1, "floor": 0.01},
            (10, 200, 10), 1e2,
            cells((1.9963, 0.6179), (2.0213, 0.6535), (2.1377, 0.4669), (1.9517, 0.6702),
                  (2.4597, 0.8117)),
            cells((100, 0), (5.1, 1.2), (7.9, 3.2), (4.5, 0.9), (5, 0)),
            1e2, cells((8.0003, 5.1662), (8.1419, 5.0102), (6.1213, 3.1425), (7.0446, 5.1226),
                       (12.7724, 9.5317)), (-30.0, 25.0), 10000),
    Example("Gaussian and Laplacian (2-D)", "V", gauss_laplace_2d_pdf, gauss_laplace_2d_sample,
            500, 100, {"PW": 0.42, "SKD": 1.1, "RSDE": 1.2},
            {"n_components": 8, "box": (-8.0, 8.0), "initial_variance": 0.4, "floor": 0.01},
            (20, 200, 10), 1e3,
            cells((4.0358, 0.6925), (3.8379, 0.7797), (4.0533, 0.4460), (3.7238, 0.8046),
                  (3.1573, 0.8909)),
            cells((500, 0), (15.3, 3.9), (16.2, 3.4), (7.2, 1.3), (8, 0)),
            1e1, cells((1.4661, 0.2281), (1.4028, 0.5337), (0.8961, 0.4113), (1.3628, 0.5197),
                       (0.4824, 0.1297)), (-35.0, 31.0), 400),
    Example("three Gaussians (6-D), N = 50", "VII", SIX_PDF, SIX_SAMPLE, 50, 100,
            {"PW": 0.9, "SKD": 1.2, "RSDE": 1.2},
            {"n_components": 4, "box": (-5.0, 5.0), "initial_variance": 0.1, "floor": 0.01},
            (40, 400, 10), 1e5,
            cells((5.0431, 0.4071), (4.7748, 0.4973), (4.6236, 0.5680), (4.8211, 0.4346),
                  (5.1407, 0.9425)),
            cells((50, 0), (12.8, 2.4), (14.9, 4.5), (3.2, 1.3), (4, 0))),
    Example("three Gaussians (6-D), N = 600", "VII", SIX_PDF, SIX_SAMPLE, 600, 100,
            {"PW": 0.65, "SKD": 1.2, "RSDE": 1.2},
            {"n_components": 5, "box": (-5.0, 5.0), "initial_variance": 0.1, "floor": 0.01},
            (40, 400, 10), 1e5,
            cells((3.5195, 0.1616), (3.1134, 0.5335), (2.7388, 0.4998), (2.5624, 0.2945),
                  (1.5309, 0.2995)),
            cells((600, 0), (9.4, 1.9), (14.2, 3.6), (5.0, 1.0), (5, 0))),
    Example("three Gaussians (6-D), N = 1000", "VII", SIX_PDF, SIX_SAMPLE, 1000, 100,
            {"PW": 0.65, "SKD": 1.2, "RSDE": 1.2},
            {"n_components": 7, "box": (-5.0, 5.0), "initial_variance": 0.1, "floor": 0.01},
            (40, 400, 10), 1e5,
            cells((3.2710, 0.1503), (2.9484, 0.4472), (2.4523, 0.3712), (2.4209, 0.1882),
                  (1.2294, 0.2035)),
            cells((1000, 0), (13.5, 2.9), (13.9, 3.7), (6.9, 0.9), (7, 0))),
    Example("three Gaussians (10-D)", "IX", TEN_PDF, TEN_SAMPLE, 20, 100,
            {"PW": 1.1, "SKD": 1.1, "RSDE": 1.1},
            {"n_components": 4, "box": (-5.0, 5.0), "initial_variance": 0.2, "floor": 0.02},
            (40, 400, 10), 1e7,
            cells((1.9488, 0.0735), (1.9273, 0.0660), (1.8818, 0.0852), (1.8953, 0.0513),
                  (2.3641, 0.6243)),
            cells((20, 0), (10.0, 1.2), (19.4, 2.8), (3.7, 0.9), (4, 0))),
]
