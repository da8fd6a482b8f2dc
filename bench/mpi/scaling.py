"""LSCDE on many processes: wall time and each rank's peak memory of `cdens fit` on a generated
CSV (d_x = 5, one output) at 1, 2 and 4 ranks, beside the fit on one process without mpirun, and
the bytes rank 0 sent and received (the command's bytes_between_processes) beside the scaling
model of docs/distributed.md. A benchmark, not a test: run
it on an otherwise idle machine.

    python3 bench/mpi/scaling.py --cli build/mpi-release/cdens --rows 1000000 --ranks 1,2,4
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


def run(command, environment):
    """Wall seconds, the peak resident kB of every process /usr/bin/time -v reports, and the
    bytes between processes the report gives (None on one process)."""
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    peaks = [int(k) for k in re.findall(r"Maximum resident set size \(kbytes\): (\d+)",
                                        result.stderr)]
    sent = re.search(r"^bytes_between_processes: (\d+)$", result.stdout, re.M)
    return seconds, peaks, int(sent.group(1)) if sent else None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True, help="cdens built with CDENS_WITH_MPI=ON")
    parser.add_argument("--rows", type=int, default=1000000)
    parser.add_argument("--ranks", default="1,2,4")
    parser.add_argument("--mpiexec", default="mpiexec")
    options = parser.parse_args()
    environment = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1",
                       OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    fit = ["fit", None, "--method", "lscde", "--x", ",".join(f"x{d}" for d in range(INPUTS)),
           "--y", "y", "--seed", "1", "--threads", "1"]
    with tempfile.TemporaryDirectory() as directory:
        data = os.path.join(directory, "data.csv")
        write_data(data, options.rows, 3)
        fit[1] = data
        size_mb = os.path.getsize(data) / 1e6
        print(f"LSCDE, n = {options.rows}, d_x = {INPUTS}, CSV {size_mb:.0f} MB, default grid "
              "(10 sigma x 10 lambda, 5 folds, b = 100), one thread per process\n")
        print("| processes | wall s | peak memory per process, MB | rank 0 sent and received, MB |")
        print("| --- | --- | --- | --- |")
        seconds, peaks, _ = run(["/usr/bin/time", "-v", options.cli] + fit, environment)
        print(f"| 1, without mpirun | {seconds:.1f} | {peaks[0] / 1e3:.0f} | - |")
        for ranks in [int(r) for r in options.ranks.split(",")]:
            seconds, peaks, sent = run([options.mpiexec, "-n", str(ranks), "--oversubscribe",
                                        "/usr/bin/time", "-v", options.cli] + fit, environment)
            print(f"| {ranks} | {seconds:.1f} | "
                  f"{', '.join(f'{p / 1e3:.0f}' for p in sorted(peaks, reverse=True))} | "
                  f"{'-' if sent is None else f'{sent / 1e6:.2f}'} |")
        b, sigmas, folds = 100, 10, 5
        model = 8 * (sigmas * (folds + 1) * (b * b + b) + sigmas * 10 * folds + b * b + b)
        print(f"\nThe scaling model's sums: {model / 1e6:.1f} MB per fit (b^2 + b doubles per "
              "sigma and fold, the held-out losses, the final system), whatever n.")


if __name__ == "__main__":
    main()
