"""A portable build against a native one: KCDE, LSCDE, GMM and Parzen fits on one thread (issue 38).

    build/venv/bin/python bench/isa/portable_vs_native.py [--portable build/portable/cdens]
        [--native build/release/cdens] [--build] [--rows 2000] [--repeats 5]

A portable build (CDENS_NATIVE=OFF, what `pip install .` makes) compiles its hot loops for
x86-64, AVX2 and AVX-512 and runs the widest copy this CPU has; a native build compiles them once
with -march=native. Each fit runs as `cdens fit --threads 1` on the same synthetic data (n rows:
x ~ N(0, I_2), y = sin 2x_1 + x_2²/2 + heteroscedastic noise; the density fits model all three
columns; GMM: 10 components from 10 starts). Taken: the fit's wall time (fit_seconds, without
reading the file) and the CPU time of the whole command. The builds alternate within each repeat,
in turns, so that both see the same load; the best of the repeats is compared. The portable build
also runs with CDENS_ISA=baseline, the copy a portable build ran before the dispatch: its ratio is
what the dispatch gains. --build configures and builds both command-line tools first
(build/portable and build/release).
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FITS = {  # name: arguments of `cdens fit` after the data file
    "KCDE": ["--x", "x1,x2", "--y", "y", "--method", "kcde"],
    "LSCDE": ["--x", "x1,x2", "--y", "y", "--method", "lscde"],
    "GMM": ["--method", "gmm", "--n-components", "10", "--n-init", "10", "--tol", "1e-10"],
    "Parzen": ["--method", "parzen"],
}


def write_data(path, rows):
    rng = np.random.default_rng(38)
    x = rng.normal(size=(rows, 2))
    noise = 0.3 * (1 + 0.5 * np.abs(x[:, 1])) * rng.normal(size=rows)
    y = np.sin(2 * x[:, 0]) + 0.5 * x[:, 1] ** 2 + noise
    np.savetxt(path, np.c_[x, y], delimiter=",", header="x1,x2,y", comments="", fmt="%.12g")


def build(directory, native):
    flag = "ON" if native else "OFF"
    subprocess.run(["cmake", "-S", REPO, "-B", directory, "-DCMAKE_BUILD_TYPE=Release",
                    f"-DCDENS_NATIVE={flag}"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", directory, "-j", "2", "--target", "cdens_cli"],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(directory, "cdens")


def environment(isa):
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1")
    env.pop("CDENS_ISA", None)
    if isa is not None:
        env["CDENS_ISA"] = isa
    return env


def version(cli, isa=None):
    return subprocess.run([cli, "--version"], env=environment(isa), check=True,
                          capture_output=True, text=True).stdout.strip()


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_fit(cli, isa, data, arguments, model):
    """The fit's own wall time (fit_seconds) and the CPU time of the whole command."""
    before = children_cpu_seconds()
    result = subprocess.run([cli, "fit", data, *arguments, "--threads", "1", "--out", model],
                            env=environment(isa), capture_output=True, text=True)
    cpu = children_cpu_seconds() - before
    if result.returncode != 0:
        sys.exit(f"{cli} fit {' '.join(arguments)} failed: {result.stderr.strip()}")
    for line in result.stdout.splitlines():
        if line.startswith("fit_seconds:"):
            return float(line.split(":")[1]), cpu
    sys.exit(f"{cli} printed no fit_seconds")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--portable", default=os.path.join(REPO, "build", "portable", "cdens"))
    parser.add_argument("--native", default=os.path.join(REPO, "build", "release", "cdens"))
    parser.add_argument("--build", action="store_true",
                        help="configure and build both tools (into the default directories)")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.build:
        args.portable = build(os.path.join(REPO, "build", "portable"), native=False)
        args.native = build(os.path.join(REPO, "build", "release"), native=True)
    runs = {  # column: (command, CDENS_ISA)
        "native": (args.native, None),
        "portable": (args.portable, None),
        "portable, baseline copy": (args.portable, "baseline"),
    }
    print(f"native:   {version(args.native)}")
    print(f"portable: {version(args.portable)}")
    with open("/proc/loadavg") as load:
        print(f"load average before the run: {load.read().split()[0]}, {os.cpu_count()} cores")
    # Best of the repeats, of the fit's wall time and of the command's CPU time (on a busy
    # machine the CPU time is the steadier of the two).
    wall = {(fit, column): float("inf") for fit in FITS for column in runs}
    cpu = dict(wall)
    with tempfile.TemporaryDirectory() as directory:
        data = os.path.join(directory, "pairs.csv")
        model = os.path.join(directory, "model.json")
        write_data(data, args.rows)
        columns = list(runs)
        for repeat in range(args.repeats):
            for fit, arguments in FITS.items():
                # Turns: each column starts a round as often as the others.
                shift = repeat % len(columns)
                for column in columns[shift:] + columns[:shift]:
                    cli, isa = runs[column]
                    seconds, cpu_seconds = timed_fit(cli, isa, data, arguments, model)
                    wall[fit, column] = min(wall[fit, column], seconds)
                    cpu[fit, column] = min(cpu[fit, column], cpu_seconds)
    print(f"\n{args.rows} rows, one thread, best of {args.repeats}: the fit's wall time "
          "(fit_seconds) and the command's CPU time\n")
    print("| fit | native fit (s) | portable fit (s) | portable / native, fit | "
          "portable / native, CPU | baseline copy / native, fit | baseline copy / native, CPU |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for fit in FITS:
        ratio = {(kind, column): table[fit, column] / table[fit, "native"]
                 for kind, table in (("fit", wall), ("cpu", cpu)) for column in runs}
        print(f"| {fit} | {wall[fit, 'native']:.3f} | {wall[fit, 'portable']:.3f} "
              f"| {ratio['fit', 'portable']:.3f} | {ratio['cpu', 'portable']:.3f} "
              f"| {ratio['fit', 'portable, baseline copy']:.3f} "
              f"| {ratio['cpu', 'portable, baseline copy']:.3f} |")


if __name__ == "__main__":
    main()
