"""LSCDE, KCDE and GMM on many processes: wall time and each rank's peak memory of `cdens fit` on a
generated CSV (five standard normal inputs and one output) at 1, 2 and 4 ranks, beside the fit on
one process without mpirun, and the bytes rank 0 sent and received (the command's
bytes_between_processes) beside the scaling model of docs/distributed.md. LSCDE and KCDE fit
p(y|x) with d_x = 5; GMM the density of the five inputs (d = 5).
A benchmark, not a test: run it on an otherwise idle machine.

    python3 bench/mpi/scaling.py --cli build/mpi-release/cdens --rows 1000000 --ranks 1,2,4 \
        --methods lscde,gmm

KCDE at 10^7 rows with issue 35's memory criterion (the model file written by the ranks; a short
search, the CSV files kept in /tmp for the next run):

    python3 bench/mpi/scaling.py --cli build/release/cdens_mpi --rows 10000000,1000000 \
        --methods kcde --kcde-search '--n-restarts 0 --max-iter 2' --data-dir /tmp/cdens \
        --baseline-rows 1000

With several --rows and no --ranks it measures how one process grows with the rows (issue 24:
LSCDE at 10^6 rows within 12x its time at 10^5, peak memory within 300 MiB of the data):

    python3 bench/mpi/scaling.py --cli build/release/cdens --rows 100000,1000000 --ranks '' \
        --methods lscde --threads 0
"""

import argparse
import math
import os
import random
import re
import subprocess
import tempfile
import time

INPUTS = 5


def write_data(path, rows, seed):
    """y = sin(2 x0) + x1 / 2 + 0.3 ε with five standard normal inputs, written in chunks."""
    generator = random.Random(seed)
    with open(path, "w") as file:
        file.write(",".join([f"x{d}" for d in range(INPUTS)] + ["y"]) + "\n")
        lines = []
        for _ in range(rows):
            x = [generator.gauss(0, 1) for _ in range(INPUTS)]
            y = math.sin(2 * x[0]) + 0.5 * x[1] + 0.3 * generator.gauss(0, 1)
            lines.append(",".join(f"{v:.6g}" for v in x + [y]))
            if len(lines) == 100000:
                file.write("\n".join(lines) + "\n")
                lines = []
        if lines:
            file.write("\n".join(lines) + "\n")


def test_nll(cli, model, test, environment):
    """The mean negative log-density of the test rows under the model file (`cdens score` on one
    process, which reads the model of every rank's rows)."""
    result = subprocess.run([cli, "score", model, test], capture_output=True, text=True,
                            env=environment)
    if result.returncode != 0:
        raise SystemExit(f"cdens score {model} failed:\n{result.stderr}")
    return -float(re.search(r"mean_log_likelihood: (\S+)", result.stdout).group(1))


def run(launcher, command, environment, usage_path):
    """Wall seconds, the seconds of the fit itself (the report's fit_seconds, rank 0's: the wall
    time without starting, reading and writing), and the user CPU seconds and the peak resident
    kB of every process, which /usr/bin/time appends to `usage_path` one line each (on a machine
    shared with other work the CPU seconds show how the work splits when the wall time cannot).
    `launcher` is mpiexec and its arguments, or nothing; `command` the cdens command. Last, the
    bytes between processes the report gives (None on one process)."""
    if os.path.exists(usage_path):
        os.remove(usage_path)
    command = launcher + ["/usr/bin/time", "-a", "-o", usage_path, "-f", "%U %M"] + command
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    fit_seconds = float(re.search(r"fit_seconds: (\S+)", result.stdout).group(1))
    with open(usage_path) as file:
        usage = [line.split() for line in file if line.strip()]
    sent = re.search(r"^bytes_between_processes: (\d+)$", result.stdout, re.M)
    return (seconds, fit_seconds, [float(u[0]) for u in usage], [int(u[1]) for u in usage],
            int(sent.group(1)) if sent else None)


def listed(values, digits):
    """Values of the processes, largest first."""
    return ", ".join(f"{v:.{digits}f}" for v in sorted(values, reverse=True))


# GMM's fit: five components, one start, and a fixed number of EM iterations (the tolerance is
# never reached first), so that every process count does the same work.
GMM_COMPONENTS = 5
GMM_ITERATIONS = 100


def lscde_fit():
    """The arguments of the LSCDE fit, its title and the bytes it sums over the ranks."""
    b, sigmas, folds = 100, 10, 5
    summed = 8 * (sigmas * (folds + 1) * (b * b + b) + sigmas * 10 * folds + b * b + b)
    return (["--method", "lscde", "--x", ",".join(f"x{d}" for d in range(INPUTS)), "--y", "y"],
            "LSCDE, d_x = 5, default grid (10 sigma x 10 lambda, 5 folds, b = 100)",
            f"{summed / 1e6:.1f} MB per fit (b^2 + b doubles per sigma and fold, the held-out "
            "losses, the final system; measured, U^2 + U with U the union of the folds' centres), "
            "whatever n")


def kcde_fit(search=()):
    """The same for KCDE with its defaults, or the search options `search` (fewer starts and
    evaluations: the memory of a fit at 10^7 rows without its hours of search): beyond 20,000 rows
    the criterion holds out 2,000 pairs (300 for the screened starts), each against every row."""
    width = 2 + 2 * INPUTS + 1  # per held-out pair: two sums and their moments
    return (["--method", "kcde", "--x", ",".join(f"x{d}" for d in range(INPUTS)), "--y", "y"]
            + list(search),
            f"KCDE, d_x = {INPUTS}, defaults (2,000 held-out pairs, 300 for the screened starts)"
            + (f", {' '.join(search)}" if search else ""),
            f"{8 * width * 2000 / 1e3:.0f} kB per evaluation of the criterion "
            f"({width} doubles per held-out pair; {8 * width * 300 / 1e3:.0f} kB on the screening "
            "one), whatever n, and the rows of ranks 1 ... K - 1 sent to rank 0 for the model file "
            f"(n (d_x + 2 d_y) doubles)")


def gmm_fit():
    """The same for GMM on the five inputs."""
    k, d = GMM_COMPONENTS, INPUTS
    per_iteration = 8 * (k * (2 * d + 1) + 1)
    return (["--method", "gmm", "--columns", ",".join(f"x{d}" for d in range(INPUTS)),
             "--n-components", str(k), "--max-iter", str(GMM_ITERATIONS), "--tol", "1e-300"],
            f"GMM, d = {d}, {k} components, k-means++ start, {GMM_ITERATIONS} EM iterations",
            f"{per_iteration} bytes per EM iteration (K (2d + 1) + 1 doubles), "
            f"{per_iteration * GMM_ITERATIONS / 1e3:.0f} kB per fit, plus the k-means++ draws "
            "(per centre a total per rank, an index and a sample), whatever n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True, help="cdens built with CDENS_WITH_MPI=ON")
    parser.add_argument("--rows", default="1000000", help="row counts, comma-separated")
    parser.add_argument("--ranks", default="1,2,4", help="'' for one process without mpirun only")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenMP threads per process, 0 for all cores")
    parser.add_argument("--methods", default="lscde,gmm")
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--kcde-search", default="",
                        help="KCDE search options, e.g. '--n-restarts 0 --max-iter 4'")
    parser.add_argument("--data-dir", default="",
                        help="keep the generated CSV files here (train_N.csv, test.csv) and reuse "
                        "them; default: a temporary directory")
    parser.add_argument("--test-rows", type=int, default=1000,
                        help="rows of the test CSV the models are scored on (a KCDE model of "
                        "10^7 rows takes a minute for 1,000 of them: every row is a kernel)")
    parser.add_argument("--baseline-rows", type=int, default=0,
                        help="also fit this many rows (1000) and test the memory criterion of "
                        "issue 35: a rank's peak minus its peak on these rows at most a quarter "
                        "of the single process's (measured the same way) plus 5 %%")
    options = parser.parse_args()
    threads = {} if options.threads == 0 else {"OMP_NUM_THREADS": str(options.threads)}
    environment = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMPI_ALLOW_RUN_AS_ROOT="1",
                       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **threads)
    fits = {"lscde": lscde_fit, "kcde": lambda: kcde_fit(options.kcde_search.split()),
            "gmm": gmm_fit}
    launches = [("1, without mpirun", [])] + [
        (str(ranks), [options.mpiexec, "-n", str(ranks), "--oversubscribe"])
        for ranks in [int(r) for r in options.ranks.split(",") if r]]
    thread_note = "all cores" if options.threads == 0 else f"{options.threads} thread(s)"
    with tempfile.TemporaryDirectory() as scratch:
        directory = options.data_dir or scratch
        test = os.path.join(directory, f"test_{options.test_rows}.csv")
        if not os.path.exists(test):
            write_data(test, options.test_rows, 4)
        for rows in [int(r) for r in options.rows.split(",")]:
            measure(options, fits, launches, environment, thread_note, directory, scratch, test,
                    rows)


def data_file(directory, rows):
    """The generated CSV of `rows` rows in `directory`, written once."""
    path = os.path.join(directory, f"train_{rows}.csv")
    if not os.path.exists(path):
        write_data(path, rows, 3)
    return path


def measure(options, fits, launches, environment, thread_note, directory, scratch, test, rows):
    """The table of every method at `rows` rows; with --baseline-rows the memory criterion."""
    data = data_file(directory, rows)
    size_mb = os.path.getsize(data) / 1e6
    # The rows as the fit holds them: INPUTS + 1 doubles each.
    doubles_mb = rows * (INPUTS + 1) * 8 / 1e6
    for method in options.methods.split(","):
        arguments, title, summed = fits[method]()
        conditional = method != "gmm"
        model = os.path.join(scratch, "model.cdens")

        def fit(path):
            return (["fit", path] + arguments + ["--seed", "1", "--threads", str(options.threads)]
                    + (["--out", model] if conditional else []))

        print(f"{title}; n = {rows}, CSV {size_mb:.0f} MB, the rows as doubles "
              f"{doubles_mb:.0f} MB, {thread_note} per process\n")
        print("| processes | wall s | fit s | CPU s per process | peak memory per "
              "process, MB | rank 0 sent and received, MB | test NLL |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        peaks_of = {}
        for label, launcher in launches:
            seconds, fit_seconds, cpu, peaks, sent = run(
                launcher, [options.cli] + fit(data), environment,
                os.path.join(scratch, "usage.txt"))
            nll = test_nll(options.cli, model, test, environment) if conditional else None
            peaks_of[label] = peaks
            print(f"| {label} | {seconds:.1f} | {fit_seconds:.1f} | {listed(cpu, 1)} | "
                  f"{listed([p / 1e3 for p in peaks], 0)} | "
                  f"{'-' if sent is None else f'{sent / 1e6:.2f}'} | "
                  f"{'-' if nll is None else f'{nll:.4f}'} |", flush=True)
        if len(launches) > 1:
            print(f"\nThe scaling model's sums: {summed}.")
        if options.baseline_rows:
            memory_criterion(options, launches, environment, scratch, directory, fit, peaks_of)
        print()


def memory_criterion(options, launches, environment, scratch, directory, fit, peaks_of):
    """Issue 35's memory criterion: the largest rank's peak minus its peak at --baseline-rows, at
    most a quarter of the single process's (the same difference) plus 5 %."""
    small = data_file(directory, options.baseline_rows)
    grown = {}
    for label, launcher in launches:
        peaks = run(launcher, [options.cli] + fit(small), environment,
                    os.path.join(scratch, "usage.txt"))[3]
        grown[label] = (max(peaks_of[label]) - max(peaks)) / 1e3
    single = grown[launches[0][0]]
    print(f"\nPeak memory minus that at {options.baseline_rows} rows, MB (issue 35: a rank of K "
          "at most (single / K) * 1.05):\n")
    for label, _ in launches:
        ranks = int(label.split(",")[0])
        bound = single / ranks * 1.05
        print(f"- {label}: {grown[label]:.0f} MB, bound {bound:.0f} MB: "
              f"{'met' if grown[label] <= bound else 'NOT met'}")


if __name__ == "__main__":
    main()
