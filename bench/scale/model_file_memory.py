"""The memory of loading a large KCDE model file (issue 35): a KCDE model keeps its n training
pairs, and beyond 2^20 numbers its file is the binary encoding (8 bytes per number). This loads
such a file in a fresh process — the command (`cdens info`) and the Python package
(`cdens.load` then one log-density) — and reports the peak resident memory above that of the same
load of a 1,000-row model, against the file's size.

    build/venv/bin/python bench/scale/model_file_memory.py                 # n = 10^6 and 10^7
    build/venv/bin/python bench/scale/model_file_memory.py --quick         # n = 600,000 (make test)

Data: x uniform on [-2, 2], y = sin(2x) + 0.3 e, seed 0; KCDE with fixed bandwidths (0.05, 0.1)
and no marginal mixing, so that the fit is only the standardisation. The quick mode asserts the
headline: the load's extra memory is at most HEADLINE_RATIO times the file's size.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import cdens

HEADLINE_RATIO = 10.0
BASELINE_ROWS = 1000
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "papers"))
from headline import Headline, timed_command  # noqa: E402

# Loads the model in a fresh interpreter after its imports, answers one log-density, and prints
# the peak resident kB from the load on: the kernel's high-water mark is reset first (writing 5
# to clear_refs), since the imports peak above where the interpreter then settles.
PYTHON_LOAD = """
import sys, numpy as np, cdens
def status(field):
    with open("/proc/self/status") as file:
        return next(int(line.split()[1]) for line in file if line.startswith(field))
with open("/proc/self/clear_refs", "w") as file:
    file.write("5")
model = cdens.load(sys.argv[1])
model.log_pdf(np.zeros((1, 1)), np.zeros(1))
print(status("VmHWM:"))
"""


def write_model(path, rows):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, size=(rows, 1))
    y = np.sin(2.0 * x[:, 0]) + 0.3 * rng.standard_normal(rows)
    cdens.KernelCDE(bandwidth=[0.05, 0.1], marginal_mixing="none").fit(x, y).save(path)
    return os.path.getsize(path)


def command_peak_kb(cli, path):
    """Peak resident kB of `cdens info` on the file, and its wall seconds."""
    _, seconds, kilobytes = timed_command([cli, "info", path])
    return kilobytes, seconds


def python_peak_kb(path):
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PYTHON_LOAD, path], capture_output=True,
                            text=True, check=True)
    return int(result.stdout.strip().splitlines()[-1]), time.perf_counter() - started


def measure(cli, rows, directory):
    baseline_path = os.path.join(directory, "baseline.json")
    write_model(baseline_path, BASELINE_ROWS)
    path = os.path.join(directory, f"kcde_{rows}.json")
    size = write_model(path, rows)
    with open(path, "rb") as file:
        binary = file.read(3) == b"\xd9\xd9\xf7"
    results = []
    for name, peak in (("cdens info", lambda p: command_peak_kb(cli, p)),
                       ("cdens.load + log_pdf", python_peak_kb)):
        base_kb, _ = peak(baseline_path)
        peak_kb, seconds = peak(path)
        extra = (peak_kb - base_kb) * 1024
        results.append((name, extra / size))
        print(f"| {rows:,} | {'binary' if binary else 'JSON text'} | {size / 1e6:.1f} | {name} "
              f"| {seconds:.2f} s | {extra / 1e6:.1f} | {extra / size:.2f} |", flush=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="600,000 rows; assert the headline ratio")
    parser.add_argument("--rows", default="1000000,10000000")
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "cdens"))
    args = parser.parse_args()
    sizes = [600000] if args.quick else [int(r) for r in args.rows.split(",")]
    print("| rows | encoding | file MB | loaded by | wall | extra peak MB | extra / file |")
    print("| ---: | --- | ---: | --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as directory:
        for rows in sizes:
            results = measure(args.cli, rows, directory)
            if args.quick:
                headline = Headline("Loading a large KCDE model file")
                for name, ratio in results:
                    headline.require(ratio <= HEADLINE_RATIO,
                                     f"{name}: the load takes {ratio:.2f} times the file's size "
                                     f"above a small model's (at most {HEADLINE_RATIO})",
                                     {f"{name}: extra peak memory / file size": ratio})
                headline.finish()


if __name__ == "__main__":
    main()
