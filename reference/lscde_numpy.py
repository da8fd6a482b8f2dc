"""Reference LSCDE in numpy, written from the paper's equations.

M. Sugiyama, I. Takeuchi, T. Suzuki, T. Kanamori, H. Hachiya, D. Okanohara,
"Least-Squares Conditional Density Estimation", IEICE Trans. Inf. & Syst. E93-D(3), 2010.
Equation numbers below are the paper's.

The oracle of tests/python/test_lscde_reference.py and a peer of the benchmarks
(bench/peers/cde, bench/papers/lscde_table1), deliberately plain: every (sigma, fold, lambda) candidate is
solved from scratch with numpy.linalg.solve (eq. 6), there is no eigendecomposition path over
lambda, no flooring of small kernel values and no flooring of small coefficients. Densities are
evaluated in log space (log-sum-exp), which is eq. (8) without floating-point underflow.

Model (eqs. 1, 9): r(x, y) = sum_l alpha_l phi_l(x, y),
    phi_l(x, y) = a_l(x) g_l(y),  a_l(x) = exp(-|x - u_l|^2 / 2 sigma^2),
                                  g_l(y) = exp(-|y - v_l|^2 / 2 sigma^2),
on inputs and outputs standardised per dimension (mean 0, standard deviation 1 with divisor
n - 1, section 2.6), with centres w_l = (u_l, v_l) taken from the training pairs.

Fit (eqs. 4-7): H = (1/n) sum_i Phibar(x_i), h = (1/n) sum_i phi(x_i, y_i),
    Phibar_ll'(x) = (sqrt(pi) sigma)^dy exp(-xi_ll'(x) / 4 sigma^2)                    (sec. 2.6)
                  = (sqrt(pi) sigma)^dy a_l(x) a_l'(x) exp(-|v_l - v_l'|^2 / 4 sigma^2),
so H = (sqrt(pi) sigma)^dy / n * (A^T A) o K_v with A_il = a_l(x_i) and
K_v,ll' = exp(-|v_l - v_l'|^2 / 4 sigma^2); alpha~ = (H + lambda I)^-1 h (eq. 6) and
alpha^ = max(0, alpha~) (eq. 7).

Density (eq. 8) with the analytic normaliser of sec. 2.6,
    p(y|x) = sum_l alpha^_l a_l(x) g_l(y) / ((sqrt(2 pi) sigma)^dy sum_l alpha^_l a_l(x)).

Model selection (sec. 2.5): K-fold cross-validation over the (sigma, lambda) grid; the score
of a candidate is (1/K) sum_k of the fold's mean held-out loss, KL (negative log-likelihood)
or SQ (1/2 mean int p^2 dy - mean p), where the estimator of fold k is built from the other
folds alone, centres included. The best pair is refitted on all rows.
"""

import math

import numpy as np

# Upper bound on the elements of one (rows x centres x lambdas) block: 8 MB of doubles.
BLOCK_ELEMENTS = 1 << 20


class Standardiser:
    """Per-dimension mean and standard deviation (divisor n - 1) of a training matrix."""

    def __init__(self, values, name):
        self.mean = values.mean(axis=0)
        self.scale = values.std(axis=0, ddof=1)
        constant = np.flatnonzero(~(self.scale > 0))
        if constant.size:
            raise ValueError(f"{name}: column {constant[0]} is constant, it cannot be standardised")

    def transform(self, values):
        return (values - self.mean) / self.scale


def squared_distances(points, centers):
    """|p_i - c_l|^2 for every row p_i of points and c_l of centers, clipped at 0."""
    d = (points * points).sum(axis=1)[:, None] + (centers * centers).sum(axis=1)[None, :]
    d -= 2.0 * points @ centers.T
    return np.maximum(d, 0.0)


def row_blocks(n, width):
    """Slices of at most BLOCK_ELEMENTS / width rows covering range(n)."""
    step = max(1, BLOCK_ELEMENTS // max(1, width))
    return [slice(start, min(n, start + step)) for start in range(0, n, step)]


def log_sum_exp(values, axis):
    """log sum exp over axis; -inf where every term is -inf."""
    top = values.max(axis=axis, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        total = np.log(np.exp(values - safe_top).sum(axis=axis, keepdims=True)) + safe_top
    return np.squeeze(total, axis=axis)


def basis_system(z, t, centers_z, centers_t, sigma, k_v):
    """H and h of eq. (4) over the rows (z, t) for the centres (centers_z, centers_t)."""
    b = centers_z.shape[0]
    gram = np.zeros((b, b))
    phi_sum = np.zeros(b)
    for block in row_blocks(z.shape[0], b):
        a = np.exp(-squared_distances(z[block], centers_z) / (2.0 * sigma**2))
        g = np.exp(-squared_distances(t[block], centers_t) / (2.0 * sigma**2))
        gram += a.T @ a
        phi_sum += (a * g).sum(axis=0)
    n = z.shape[0]
    dy = t.shape[1]
    return (math.sqrt(math.pi) * sigma) ** dy / n * gram * k_v, phi_sum / n


def fold_centers(center_order, n_centers, in_training):
    """The first n_centers rows of center_order for which in_training is true (all of them when
    fewer): the centres of an estimator built from those rows only."""
    candidates = center_order[in_training[center_order]]
    return candidates[:n_centers]


def solve_coefficients(h_matrix, h_vector, lambdas):
    """alpha^ = max(0, (H + lambda I)^-1 h) for every lambda (eqs. 6, 7); shape (L, b)."""
    b = h_vector.size
    systems = h_matrix[None, :, :] + np.asarray(lambdas)[:, None, None] * np.eye(b)[None]
    rhs = np.broadcast_to(h_vector[None, :, None], (len(lambdas), b, 1))
    alpha_tilde = np.linalg.solve(systems, rhs)[:, :, 0]
    return np.maximum(0.0, alpha_tilde)


def held_out_terms(z, t, centers_z, centers_t, sigma, alphas):
    """For rows (z, t) and coefficient rows alphas (L, b), per lambda: log p(t|z) of eq. (8)
    (m, L), the log gate log(alpha^_l a_l(z)) (m, b, L) and its log-sum over l (m, L)."""
    dy = t.shape[1]
    log_a = -squared_distances(z, centers_z) / (2.0 * sigma**2)
    log_g = -squared_distances(t, centers_t) / (2.0 * sigma**2)
    with np.errstate(divide="ignore"):
        log_alpha = np.log(alphas.T)[None, :, :]  # (1, b, L); -inf where alpha^ = 0
    log_gate = log_a[:, :, None] + log_alpha
    log_denominator = log_sum_exp(log_gate, axis=1)
    log_numerator = log_sum_exp(log_gate + log_g[:, :, None], axis=1)
    with np.errstate(invalid="ignore"):  # nan where every alpha^ is zero: no density
        log_p = log_numerator - log_denominator - dy * math.log(math.sqrt(2.0 * math.pi) * sigma)
    return log_p, log_gate, log_denominator


def held_out_losses(z, t, centers_z, centers_t, sigma, alphas, k_v, loss):
    """Sum over the rows of the held-out loss of sec. 2.5, for every lambda; shape (L,).
    A candidate whose coefficients are all zero defines no density and scores +inf."""
    dy = t.shape[1]
    total = np.zeros(alphas.shape[0])
    for block in row_blocks(z.shape[0], alphas.size):
        log_p, log_gate, log_denominator = held_out_terms(z[block], t[block], centers_z, centers_t, sigma, alphas)
        if loss == "kl":
            total += (-log_p).sum(axis=0)
        else:
            # With w_l = alpha^_l a_l(x) / sum_l' alpha^_l' a_l'(x), eq. (8) is sum_l w_l N(y; v_l, sigma^2 I)
            # and int p(y|x)^2 dy = sum_ll' w_l w_l' N(v_l; v_l', 2 sigma^2 I) = (4 pi sigma^2)^(-dy/2) w^T K_v w.
            with np.errstate(invalid="ignore"):
                weights = np.exp(log_gate - log_denominator[:, None, :])
            squares = np.einsum("mbl,bc,mcl->ml", weights, k_v, weights)
            squares *= (4.0 * math.pi * sigma**2) ** (-dy / 2.0)
            total += (0.5 * squares - np.exp(log_p)).sum(axis=0)
    return np.where(alphas.any(axis=1), total, np.inf)


class LscdeReference:
    """A fitted LSCDE: the chosen sigma and lambda, alpha^, the centres and the standardisers."""

    def __init__(self, sigma, lambda_, alpha, centers_z, centers_t, x_scaling, y_scaling, cv_scores):
        self.sigma = sigma
        self.lambda_ = lambda_
        self.alpha = alpha
        self.centers_z = centers_z
        self.centers_t = centers_t
        self.x_scaling = x_scaling
        self.y_scaling = y_scaling
        self.cv_scores = cv_scores

    def log_pdf(self, X, Y):
        """log p(y|x) in the user's units: eq. (8) on standardised data minus sum log scale_y."""
        z = self.x_scaling.transform(np.asarray(X, dtype=float))
        t = self.y_scaling.transform(np.asarray(Y, dtype=float))
        out = np.empty(z.shape[0])
        alphas = self.alpha[None, :]
        for block in row_blocks(z.shape[0], alphas.size):
            out[block] = held_out_terms(z[block], t[block], self.centers_z, self.centers_t, self.sigma, alphas)[0][:, 0]
        return out - np.log(self.y_scaling.scale).sum()


def validate(X, Y, sigmas, lambdas, center_order, n_centers, fold_of, loss):
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must be (n, dx) and (n, dy) with the same n, got {X.shape} and {Y.shape}")
    if not (np.isfinite(X).all() and np.isfinite(Y).all()):
        raise ValueError("X and Y must be finite")
    if len(sigmas) == 0 or len(lambdas) == 0 or min(sigmas) <= 0 or min(lambdas) <= 0:
        raise ValueError("sigmas and lambdas must be non-empty and positive")
    n = X.shape[0]
    if center_order.shape != (n,) or not np.array_equal(np.sort(center_order), np.arange(n)):
        raise ValueError(f"center_order must be a permutation of range({n})")
    if n_centers < 1:
        raise ValueError("n_centers must be at least 1")
    if fold_of.shape != (n,) or fold_of.min() < 0:
        raise ValueError("fold_of must give a fold 0..K-1 for every row")
    counts = np.bincount(fold_of)
    if counts.size < 2 or (counts == 0).any():
        raise ValueError("fold_of must use every fold 0..K-1, K >= 2")
    if loss not in ("kl", "sq"):
        raise ValueError(f"loss must be 'kl' or 'sq', got {loss!r}")


def fit(X, Y, sigmas, lambdas, center_order, n_centers, fold_of, loss="kl"):
    """LSCDE with K-fold cross-validation over every (sigma, lambda) of the grid.

    X (n, dx), Y (n, dy) in the user's units; center_order (n,) a permutation of the rows in
    which they become centres; fold_of (n,) the fold 0..K-1 of each row. The fitted model's
    centres are the first b = min(n_centers, n) rows of center_order; the estimator of fold k is
    built without fold k (section 2.5), so its centres are the first n_centers rows of
    center_order outside fold k. The standardisation is that of all n rows. Returns an
    LscdeReference; its cv_scores[i, j] is the CV score of (sigmas[i], lambdas[j]) in
    standardised units.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    center_order = np.asarray(center_order, dtype=np.int64)
    fold_of = np.asarray(fold_of, dtype=np.int64)
    validate(X, Y, sigmas, lambdas, center_order, n_centers, fold_of, loss)
    x_scaling = Standardiser(X, "X")
    y_scaling = Standardiser(Y, "Y")
    z = x_scaling.transform(X)
    t = y_scaling.transform(Y)
    folds = int(fold_of.max()) + 1

    cv_scores = np.zeros((len(sigmas), len(lambdas)))
    for k in range(folds):
        train = fold_of != k
        centers = fold_centers(center_order, n_centers, train)
        center_distances = squared_distances(t[centers], t[centers])
        for i, sigma in enumerate(sigmas):
            k_v = np.exp(-center_distances / (4.0 * sigma**2))
            h_matrix, h_vector = basis_system(z[train], t[train], z[centers], t[centers], sigma, k_v)
            alphas = solve_coefficients(h_matrix, h_vector, lambdas)
            held_out = ~train
            losses = held_out_losses(z[held_out], t[held_out], z[centers], t[centers], sigma, alphas, k_v, loss)
            cv_scores[i] += losses / held_out.sum() / folds

    if not np.isfinite(cv_scores).any():
        raise ValueError("every (sigma, lambda) candidate gave all-zero coefficients on some fold")
    best_sigma, best_lambda = np.unravel_index(np.argmin(cv_scores), cv_scores.shape)
    sigma = sigmas[best_sigma]
    lambda_ = lambdas[best_lambda]
    centers = center_order[: min(n_centers, X.shape[0])]
    k_v = np.exp(-squared_distances(t[centers], t[centers]) / (4.0 * sigma**2))
    h_matrix, h_vector = basis_system(z, t, z[centers], t[centers], sigma, k_v)
    alpha = solve_coefficients(h_matrix, h_vector, [lambda_])[0]
    if not alpha.any():
        raise ValueError(f"the refit with sigma={sigma}, lambda={lambda_} gave all-zero coefficients")
    return LscdeReference(sigma, lambda_, alpha, z[centers], t[centers], x_scaling, y_scaling, cv_scores)
