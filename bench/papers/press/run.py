"""Reproduces the applications of Goerg, Predictive State Smoothing (PRESS), 2017, section 5:

* motorcycle (5.1): PRESS for J = 1 ... 15, the AIC choice of J and nu_hat (paper: J* = 4,
  nu_hat = 2.705), and Figure 2 (the fit with its states);
* abalone (5.2, Table 1): test MSE, MAD, MSE relative to the linear model and RMSE of PRESS(3),
  PRESS(4), PRESS(10), the linear model, and scikit-learn's random forest and SVR as peers, on
  the TensorFlow train/test split, with fit times; Figure 5 (the J = 3 simplex, coloured by
  sex, on the UCI table);
* MNIST (5.3): J = 10, nu_smooth = 10 with a small mu, LASSO, on pixels / 255: test MSE, fit
  time at N = 6,000, 20,000 and 60,000, and the per-state mean images E(X | s_j) as a PNG.

    /usr/bin/python3 bench/papers/press/run.py                 # everything (MNIST ~ minutes)
    /usr/bin/python3 bench/papers/press/run.py --quick         # seconds: small settings
    /usr/bin/python3 bench/papers/press/run.py --parts abalone --seeds 0,1,2,3,4

Figures go to --out-dir (default out/press). MAD is the mean absolute error |y - y_hat| (the
paper does not define it; its values match a mean absolute error, not R's median-based mad).
"""

import argparse
import gzip
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
MNIST_DIR = os.path.normpath(os.path.join(REPO, "..", "shared", "data", "mnist"))

sys.path.insert(0, os.path.dirname(HERE))

import cdens  # noqa: E402
from headline import Headline  # noqa: E402

ABALONE_FEATURES = ["length", "diameter", "height", "whole_weight", "shucked_weight",
                    "viscera_weight", "shell_weight"]
# Table 1 of the paper (test MSE, MAD) for the rows we reproduce.
PAPER_TABLE1 = {"PRESS(10)": (5.265, 1.566), "PRESS(4)": (5.413, 1.615), "lm": (5.523, 1.654),
                "PRESS(3)": (5.556, 1.664), "random Forest": (5.335, 1.567),
                "svm": (5.279, 1.517)}
# What the issue asks of PRESS on abalone: test MSE at most these.
TARGETS = {"PRESS(3)": 5.65, "PRESS(10)": 5.35}
# The quick mode's claims, with its few optimiser iterations and one seed: PRESS(3) within 25 %
# of the linear model's test MSE on abalone (the paper: within 1 %, after a full fit), and on
# MNIST's 1,000 digits a test MSE below half the variance of the labels (what predicting their
# mean scores), i.e. R² above 0.5.
QUICK_ABALONE_FACTOR = 1.25
QUICK_MNIST_SHARE = 0.5


def read_csv(name):
    return np.genfromtxt(os.path.join(REPO, "data", name), delimiter=",", names=True)


def columns(table, names):
    return np.ascontiguousarray(np.column_stack([table[name] for name in names]))


def press(quick, **settings):
    """PRESSRegressor with the paper's protocol (GCV, 80/20 early stopping, patience 500), or a
    small version of it for the quick mode."""
    base = dict(n_restarts=5, patience=500, max_iter=20000)
    if quick:
        base = dict(n_restarts=1, patience=30, max_iter=300)
    base.update(settings)
    return cdens.PRESSRegressor(**base)


def motorcycle(args):
    table = read_csv("mcycle.csv")
    # The paper's N = 94 are the distinct times: repeated measurements at one time averaged.
    times, inverse = np.unique(table["times"], return_inverse=True)
    accel = np.bincount(inverse, weights=table["accel"]) / np.bincount(inverse)
    x = times.reshape(-1, 1)
    max_states = 3 if args.quick else 15
    model = press(args.quick, max_states=max_states, random_state=args.seeds[0]).fit(x, accel)
    results = model.cv_results_
    dof = model.model_.auxiliary_cross_validation["degrees_of_freedom"]["mean_loss"]
    print(f"\n## Motorcycle (section 5.1): N = {len(x)}, J = 1 ... {max_states}\n")
    print("| J | AIC | nu_hat |")
    print("| ---: | ---: | ---: |")
    for params, score, nu in zip(results["params"], results["mean_test_score"], dof):
        marker = " *" if params["n_states"] == model.n_states_ else ""
        print(f"| {params['n_states']:.0f}{marker} | {-score:.2f} | {nu:.3f} |")
    print(f"\nAIC choice J* = {model.n_states_}, nu_hat = {model.degrees_of_freedom_:.3f} "
          "(paper: J* = 4, nu_hat = 2.705)")
    args.headline.require(model.n_states_ > 1,
                          f"motorcycle: AIC chooses J* = {model.n_states_} > 1 states (paper 4)",
                          {"motorcycle: J*": model.n_states_,
                           "motorcycle: nu_hat": model.degrees_of_freedom_})
    if args.figures:
        from cdens import plot

        ax = plot.press_states_curve(model, x, accel)
        ax.set_xlabel("time after impact (ms)")
        ax.set_ylabel("head acceleration (g)")
        ax.set_title(f"Motorcycle: PRESS({model.n_states_}) by AIC")
        save(ax.figure, args, "press_motorcycle.png")


def metrics(y, prediction, baseline_mse=None):
    residual = y - prediction
    mse = float(np.mean(residual ** 2))
    return mse, float(np.mean(np.abs(residual))), baseline_mse, float(np.sqrt(mse))


def abalone(args):
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    train, test = read_csv("abalone_train.csv"), read_csv("abalone_test.csv")
    x, y = columns(train, ABALONE_FEATURES), train["rings"]
    x_test, y_test = columns(test, ABALONE_FEATURES), test["rings"]
    states = (3,) if args.quick else (3, 4, 10)
    rows = []  # (name, seed, mse, mad, seconds, nu)
    for seed in args.seeds:
        for j in states:
            started = time.perf_counter()
            model = press(args.quick, n_states=j, random_state=seed).fit(x, y)
            seconds = time.perf_counter() - started
            mse, mad, _, _ = metrics(y_test, model.predict(x_test))
            rows.append((f"PRESS({j})", seed, mse, mad, seconds, model.degrees_of_freedom_))
    # Peers with their libraries' defaults, as the paper ran R's (SVR on standardised x, as R's
    # svm scales by default).
    peers = {"lm": LinearRegression(),
             "random Forest": RandomForestRegressor(random_state=args.seeds[0], n_jobs=2),
             "svm": make_pipeline(StandardScaler(), SVR())}
    for name, peer in peers.items():
        started = time.perf_counter()
        peer.fit(x, y)
        seconds = time.perf_counter() - started
        mse, mad, _, _ = metrics(y_test, peer.predict(x_test))
        rows.append((name, args.seeds[0], mse, mad, seconds, float("nan")))
    baseline = next(row[2] for row in rows if row[0] == "lm")

    print(f"\n## Abalone, Table 1 (section 5.2): N_train = {len(y)}, N_test = {len(y_test)}\n")
    print("| method | seeds | test MSE | MAD | mse.rel.lm | RMSE | nu_hat | fit s | "
          "paper MSE | paper MAD |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in dict.fromkeys(row[0] for row in rows):
        chosen = [row for row in rows if row[0] == name]
        mse = np.array([row[2] for row in chosen])
        mad = np.mean([row[3] for row in chosen])
        spread = f" ± {mse.std(ddof=1):.3f}" if len(mse) > 1 else ""
        paper = PAPER_TABLE1.get(name, (float("nan"), float("nan")))
        print(f"| {name} | {len(chosen)} | {mse.mean():.3f}{spread} | {mad:.3f} | "
              f"{mse.mean() / baseline:.3f} | {np.sqrt(mse.mean()):.3f} | "
              f"{np.mean([row[5] for row in chosen]):.2f} | "
              f"{np.mean([row[4] for row in chosen]):.2f} | {paper[0]:.3f} | {paper[1]:.3f} |")
    if len(args.seeds) > 1:
        print("\nPer seed (test MSE): " + "; ".join(
            f"{row[0]} seed {row[1]}: {row[2]:.3f}" for row in rows if row[0].startswith("PRESS")))
    press_mse = np.mean([row[2] for row in rows if row[0] == f"PRESS({states[0]})"])
    args.headline.require(press_mse <= QUICK_ABALONE_FACTOR * baseline,
                          f"abalone: PRESS({states[0]}) test MSE {press_mse:.3f} ≤ "
                          f"{QUICK_ABALONE_FACTOR} × lm's {baseline:.3f}",
                          {f"abalone: PRESS({states[0]}) test MSE": press_mse})
    for name, bound in TARGETS.items():
        mse = [row[2] for row in rows if row[0] == name]
        if mse and not args.quick:
            verdict = "met" if np.mean(mse) <= bound else "NOT met"
            print(f"\n{name}: mean test MSE {np.mean(mse):.3f}, target <= {bound}: {verdict}")
    if args.figures:
        simplex_by_sex(args)


def simplex_by_sex(args):
    """Figure 5: a 3-state model on the UCI table (with sex, which is not a predictor)."""
    from cdens import plot

    table = read_csv("abalone.csv")
    x, y = columns(table, ABALONE_FEATURES), table["rings"]
    sex = np.array(["male", "female", "infant"])[table["sex"].astype(int)]
    model = press(args.quick, n_states=3, random_state=args.seeds[0]).fit(x, y)
    ax = plot.press_simplex(model, x, groups=sex)
    ax.set_title(f"Abalone (UCI), J = 3, nu = {model.degrees_of_freedom_:.2f} (paper 2.51)")
    save(ax.figure, args, "press_abalone_simplex.png")
    weights = model.training_weights_
    print("\nP(sex | state), abalone UCI, J = 3 (Figure 5, right):\n")
    print("| state | mean rings | male | female | infant |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for j in range(3):
        share = [weights[sex == s, j].sum() / weights[:, j].sum() for s in
                 ("male", "female", "infant")]
        print(f"| {j + 1} | {model.state_means_[j]:.2f} | " +
              " | ".join(f"{v:.2f}" for v in share) + " |")


def read_idx(name):
    with gzip.open(os.path.join(MNIST_DIR, name)) as handle:
        data = handle.read()
    dimensions = data[3]
    shape = [int.from_bytes(data[4 + 4 * k:8 + 4 * k], "big") for k in range(dimensions)]
    values = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dimensions)
    return values.reshape(shape[0], -1) if dimensions > 1 else values


def mnist(args):
    images = read_idx("train-images-idx3-ubyte.gz").astype(np.float64) / 255.0
    labels = read_idx("train-labels-idx1-ubyte.gz").astype(np.float64)
    test_images = read_idx("t10k-images-idx3-ubyte.gz").astype(np.float64) / 255.0
    test_labels = read_idx("t10k-labels-idx1-ubyte.gz").astype(np.float64)
    sizes = [1000] if args.quick else args.mnist_sizes
    print("\n## MNIST (section 5.3): J = 10, nu_smooth = 10, LASSO, pixels / 255\n")
    # Wall time and the process's CPU time (all threads): on a shared machine the wall time
    # depends on the load, CPU time / 2 is what an idle two-core machine would take.
    print("| N | fit s (wall) | fit s (CPU) | evaluations | CPU ms / evaluation | test MSE | "
          "test MAD | nu_hat | nonzero coefficients |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    model = None
    for n in sizes:
        model = press(args.quick, n_states=10, smoothness_weight=args.mnist_mu, target_dof=10.0,
                      lasso_weight=args.mnist_lasso, standardize=False, single_precision=True,
                      optimizer="adam", learning_rate=0.01, init_scale=0.1,
                      random_state=args.seeds[0])
        if not args.quick:
            model.set_params(max_iter=args.mnist_max_iter)
        started, cpu_started = time.perf_counter(), time.process_time()
        model.fit(images[:n], labels[:n])
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        mse, mad, _, _ = metrics(test_labels, model.predict(test_images))
        statistics = model.model_.statistics
        evaluations = statistics["evaluations"]
        print(f"| {n} | {seconds:.1f} | {cpu:.1f} | {evaluations:.0f} | "
              f"{1000 * cpu / max(evaluations, 1):.1f} | {mse:.3f} | "
              f"{mad:.3f} | {model.degrees_of_freedom_:.2f} | "
              f"{statistics['nonzero_coefficients']:.0f} |", flush=True)
    print("\nState means (digits): " + ", ".join(f"{m:.2f}" for m in model.state_means_))
    args.headline.require(statistics["sparse_design"] == 1.0,
                          "MNIST: the design (19 % nonzero pixels) is kept in sparse storage")
    bound = QUICK_MNIST_SHARE * np.var(test_labels)
    args.headline.require(mse <= bound, f"MNIST, N = {sizes[-1]}: test MSE {mse:.3f} ≤ "
                                        f"{QUICK_MNIST_SHARE} × the labels' variance = {bound:.3f}",
                          {f"MNIST, N = {sizes[-1]}: test MSE": mse,
                           f"MNIST, N = {sizes[-1]}: fit seconds": seconds})
    if args.figures:
        state_images(model, images[:sizes[-1]], args)


def state_images(model, images, args):
    """E(X | s_j) = sum_i W_ij x_i / sigma_j for every state (Figure 6a)."""
    import matplotlib.pyplot as plt

    weights = model.training_weights_
    means = (weights.T @ images) / weights.sum(axis=0)[:, None]
    figure, axes = plt.subplots(1, len(means), figsize=(1.6 * len(means), 2.0),
                                layout="constrained")
    for j, ax in enumerate(axes):
        ax.imshow(means[j].reshape(28, 28), cmap="gray_r")
        ax.set_title(f"s{j + 1}: {model.state_means_[j]:.2f}", fontsize=8)
        ax.axis("off")
    save(figure, args, "press_mnist_states.png")


def save(figure, args, name):
    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, name)
    figure.savefig(path, dpi=110)
    print(f"\nfigure: {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small settings, seconds")
    parser.add_argument("--parts", default="motorcycle,abalone,mnist")
    parser.add_argument("--seeds", default="0", help="comma list; abalone runs every seed")
    parser.add_argument("--mnist-sizes", default="6000,20000,60000")
    parser.add_argument("--mnist-mu", type=float, default=0.01)
    parser.add_argument("--mnist-lasso", type=float, default=1e-5)
    parser.add_argument("--mnist-max-iter", type=int, default=3000)
    parser.add_argument("--out-dir", default=os.path.join(REPO, "out", "press"))
    parser.add_argument("--no-figures", dest="figures", action="store_false")
    args = parser.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.mnist_sizes = [int(s) for s in args.mnist_sizes.split(",")]
    if args.figures:
        import matplotlib

        matplotlib.use("Agg")
    parts = {"motorcycle": motorcycle, "abalone": abalone, "mnist": mnist}
    print("# PRESS (Goerg 2017), section 5" + (" - quick mode" if args.quick else ""))
    args.headline = Headline("PRESS paper, section 5")
    for part in args.parts.split(","):
        if part not in parts:
            sys.exit(f"unknown part '{part}' (known: {', '.join(parts)})")
        parts[part](args)
    if args.quick:
        args.headline.finish()


if __name__ == "__main__":
    main()
