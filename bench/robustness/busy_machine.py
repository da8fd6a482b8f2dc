"""Two fits at once on a machine with few cores: each should take at most about twice as long as
one fit alone (issue: OpenMP threads that spin while waiting starve a neighbour process).

    build/venv/bin/python bench/robustness/busy_machine.py [--cli build/release/cdens] [--quick]

For each fit, with the OpenMP wait policy as cdens sets it by default (passive unless the user
sets OMP_WAIT_POLICY) and with OMP_WAIT_POLICY=ACTIVE for contrast: the wall time of the fit alone
(best of --repeats) and the wall time of each of two copies started together (the slower one),
and their ratio. --quick runs the first fit under the default policy only and asserts the ratio
is at most 2.5 (two fits of this size on two cores take 2× the time of one when neither spins).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FITS = {  # name: arguments of the cdens command
    # The first is the quick mode's: long enough (about a second) for its threads' waits to
    # count, over the (width, fold) pairs of its cross-validation.
    "RSDE, 1,375 points": ["fit", "data/heights.csv", "--method", "rsde"],
    "KCDE, 272 pairs": ["fit", "data/faithful.csv", "--x", "waiting", "--y", "eruptions",
                        "--method", "kcde"],
    "LSCDE, 272 pairs": ["fit", "data/faithful.csv", "--x", "waiting", "--y", "eruptions"],
}


def environment(policy):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
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
    names = list(FITS)[:1] if args.quick else list(FITS)
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
    if args.quick and worst > 2.5:
        sys.exit(f"two fits at once took {worst:.2f}x the time of one (bound 2.5)")


if __name__ == "__main__":
    main()
