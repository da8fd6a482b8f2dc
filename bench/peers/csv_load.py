"""Loading a numeric CSV file: cdens's reader against pandas.read_csv in the same run (issue 24).

    make bench   # builds build/bench, then:
    build/venv/bin/python bench/peers/csv_load.py                  # 10^6 rows x 10 columns
    build/venv/bin/python bench/peers/csv_load.py --rows 100000

Writes n rows × 10 columns of standard normal draws (seed 0, numbers in shortest round-trip
form, as cdens writes them) with a header to a temporary file, then reads it with pandas.read_csv
(C engine, float64, default options: it also infers the types) and with cdens::read_csv
(bench/micro/bench_csv.cpp, Google Benchmark, one thread), three repetitions each; prints the
mean seconds of each and the ratio. `uptime` before and after says what else was running.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
BENCH = os.path.join(REPO, "build", "bench", "bench", "micro", "cdens_bench_csv")
sys.path.insert(0, os.path.join(REPO, "bench", "papers"))
from headline import uptime  # noqa: E402


def cdens_seconds(bench, path, repetitions):
    result = subprocess.run(
        [bench, f"--benchmark_repetitions={repetitions}", "--benchmark_format=json"],
        env={**os.environ, "CDENS_BENCH_CSV": path}, capture_output=True, text=True, check=True)
    runs = json.loads(result.stdout)["benchmarks"]
    mean = next(run for run in runs if run.get("aggregate_name") == "mean")
    return mean["real_time"] / 1e3, int(mean["rows"])


def pandas_seconds(path, repetitions):
    seconds = []
    for _ in range(repetitions):
        started = time.perf_counter()
        frame = pd.read_csv(path)
        seconds.append(time.perf_counter() - started)
    return float(np.mean(seconds)), len(frame)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--bench", default=BENCH, help="the cdens_bench_csv binary")
    args = parser.parse_args()
    if not os.path.exists(args.bench):
        raise SystemExit(f"{args.bench} is missing: run `make bench` first")
    values = np.random.default_rng(0).standard_normal((args.rows, 10))
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "table.csv")
        pd.DataFrame(values, columns=[f"x{c}" for c in range(10)]).to_csv(
            path, index=False, float_format="%r")
        size = os.path.getsize(path) / 2 ** 20
        print(f"before: {uptime()}\n")
        theirs, pandas_rows = pandas_seconds(path, args.repetitions)
        ours, cdens_rows = cdens_seconds(args.bench, path, args.repetitions)
        assert pandas_rows == cdens_rows == args.rows
        print("| rows × columns | file MiB | cdens s | pandas s | pandas / cdens |")
        print("| ---: | ---: | ---: | ---: | ---: |")
        print(f"| {args.rows} × 10 | {size:.0f} | {ours:.3f} | {theirs:.3f} | "
              f"{theirs / ours:.2f} |")
        print(f"\nafter: {uptime()}")


if __name__ == "__main__":
    main()
