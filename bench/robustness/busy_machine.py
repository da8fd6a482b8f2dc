"""Fits on a machine with few cores and other work: two fits at once should each take at most
about twice as long as one fit alone (OpenMP threads that spin while waiting starve a neighbour
process), and a fit beside CPU-bound processes should take no longer with its default thread count
than on one thread (threads that share their cores with other work wait for each other; issue 52).

    build/venv/bin/python bench/robustness/busy_machine.py [--cli build/release/cdens] [--quick]

Two at once: for each fit, with the OpenMP wait policy as cdens sets it by default (passive unless
the user sets OMP_WAIT_POLICY) and with OMP_WAIT_POLICY=ACTIVE for contrast, the wall time of the
fit alone (best of --repeats) and the wall time of each of two copies started together (the slower
one), and their ratio. Beside two CPU-bound processes (one per core of a 2-core machine): the wall
time (best of --repeats, alternated) with cdens's default thread count, with --threads 1, and with
OMP_NUM_THREADS set to the processor count (the default before it followed the free processors),
and the default's ratio to one thread. --quick runs the first fit only, under the default policy,
and asserts two at once ≤ 2.5× alone (two fits of this size on two cores take 2× the time of one
when neither spins) and the default beside the busy processes ≤ 1.25× one thread (threads that
wait for each other on shared cores take up to 2×).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench", "papers"))
from headline import Headline  # noqa: E402

FITS = {  # name: arguments of the cdens command
    # The first is the quick mode's: long enough (about a second) for its threads' waits to
    # count, over the (width, fold) pairs of its cross-validation.
    "RSDE, 1,375 points": ["fit", "data/heights.csv", "--method", "rsde"],
    "KCDE, 272 pairs": ["fit", "data/faithful.csv", "--x", "waiting", "--y", "eruptions",
                        "--method", "kcde"],
    "LSCDE, 272 pairs": ["fit", "data/faithful.csv", "--x", "waiting", "--y", "eruptions"],
    "auto, 506 pairs (Boston)": ["fit", "data/boston_housing.csv", "--method", "auto", "--x",
                                 "crim,zn,indus,chas,nox,rm,age,dis,rad,tax,ptratio,b,lstat",
                                 "--y", "medv"],
}
BUSY = ["bash", "-c", "while :; do :; done"]  # a CPU-bound process


def environment(policy, threads=None):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    env.pop("OMP_NUM_THREADS", None)
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def start(cli, arguments, env, out):
    return subprocess.Popen([cli, *arguments, "--out", out], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def timed(processes):
    """Wall seconds until each process ends, all started together."""
    started = time.perf_counter()
    ends = [None] * len(processes)
    while any(end is None for end in ends):
        for k, process in enumerate(processes):
            if ends[k] is None and process.poll() is not None:
                if process.returncode != 0:
                    sys.exit(f"a fit failed: {process.stderr.read().decode()}")
                ends[k] = time.perf_counter() - started
        time.sleep(0.002)
    return ends


def measure(cli, arguments, policy, repeats, directory):
    env = environment(policy)
    out = [os.path.join(directory, f"model{k}.json") for k in range(2)]
    alone = min(timed([start(cli, arguments, env, out[0])])[0] for _ in range(repeats))
    together = min(max(timed([start(cli, arguments, env, out[k]) for k in range(2)]))
                   for _ in range(repeats))
    return alone, together


def measure_beside_busy(cli, arguments, repeats, directory):
    """Wall seconds (best of repeats, alternated) beside one CPU-bound process per processor:
    default threads, --threads 1, OMP_NUM_THREADS = processors."""
    out = os.path.join(directory, "model.json")
    runs = {"default": ([], environment(None)),
            "one": (["--threads", "1"], environment(None)),
            "fixed": ([], environment(None, os.cpu_count()))}
    best = dict.fromkeys(runs, float("inf"))
    busy = [subprocess.Popen(BUSY) for _ in range(os.cpu_count())]
    try:
        time.sleep(1.0)  # the busy processes are running when the first fit reads the machine
        for _ in range(repeats):
            for name, (extra, env) in runs.items():
                best[name] = min(best[name], timed([start(cli, arguments + extra, env, out)])[0])
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(REPO, "build", "release", "cdens"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with open("/proc/loadavg") as load:
        print(f"load average before the run: {load.read().split()[0]}, {os.cpu_count()} cores")
    print("| fit | wait policy | alone | two at once (slower) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    names = list(FITS)[:1] if args.quick else list(FITS)[:3]
    worst = 0.0
    with tempfile.TemporaryDirectory() as directory:
        for name in names:
            for policy in (None,) if args.quick else (None, "ACTIVE"):
                alone, together = measure(args.cli, FITS[name], policy, args.repeats, directory)
                label = "cdens default" if policy is None else policy
                print(f"| {name} | {label} | {alone:.3f} s | {together:.3f} s | "
                      f"{together / alone:.2f} |", flush=True)
                if policy is None:
                    worst = max(worst, together / alone)
        print(f"\nBeside {os.cpu_count()} CPU-bound processes:\n")
        print(f"| fit | default threads | one thread | OMP_NUM_THREADS={os.cpu_count()} | "
              "default / one |")
        print("| --- | --- | --- | --- | --- |")
        busiest = 0.0
        for name in list(FITS)[:1] if args.quick else [list(FITS)[0], list(FITS)[-1]]:
            best = measure_beside_busy(args.cli, FITS[name], args.repeats, directory)
            print(f"| {name} | {best['default']:.3f} s | {best['one']:.3f} s | "
                  f"{best['fixed']:.3f} s | {best['default'] / best['one']:.2f} |", flush=True)
            busiest = max(busiest, best["default"] / best["one"])
    if args.quick:
        headline = Headline("Fits on a busy machine")
        headline.require(worst <= 2.5, f"two fits at once take {worst:.2f}x the time of one "
                         "(bound 2.5)", {"two fits at once / one": worst})
        headline.require(busiest <= 1.25, f"beside busy processes the default threads take "
                         f"{busiest:.2f}x one thread's time (bound 1.25)",
                         {"beside busy processes, default threads / one thread": busiest})
        headline.finish()


if __name__ == "__main__":
    main()
