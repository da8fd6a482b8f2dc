"""The headline claims of a quick mode, asserted and kept: each claim is printed with its figures
and its tolerance, and the run exits with status 1 when one fails, so that `make test` fails with
it. The quick modes use fixed seeds, so a claim on a statistic fails only when the code's figures
change; a claim on a time or a speed ratio moves with the machine too.

The figures a claim names are kept in bench/headline_history.tsv, one line per commit, benchmark
and figure (a run of the same commit replaces its lines), with the date, the load average and
whether the working tree had uncommitted changes; each figure is printed beside its value at the
latest other commit, so that the commit where a figure slips shows as it lands (the file is
committed with the work)."""

import csv
import datetime
import os
import subprocess
import sys
import tempfile
import time

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HISTORY = os.path.join(REPOSITORY, "bench", "headline_history.tsv")
COLUMNS = ("commit", "uncommitted", "date", "load", "bench", "figure", "value")


class Headline:
    def __init__(self, paper):
        self.paper = paper
        self.claims = []
        self.figures = {}

    def require(self, holds, claim, figures=None):
        """Records `claim` (a sentence with the figures and the tolerance) and whether it holds;
        `figures` (name: number) are the numbers it rests on, kept in the history."""
        self.claims.append((bool(holds), claim))
        self.figures.update(figures or {})

    def finish(self):
        """Prints every claim and keeps its figures; exits with status 1 naming the failed ones."""
        print(f"\nHeadline checks ({self.paper}, quick mode):")
        for holds, claim in self.claims:
            print(f"- {'ok' if holds else 'FAILED'}: {claim}")
        record_history(self.paper, self.figures)
        failed = [claim for holds, claim in self.claims if not holds]
        if not self.claims:
            sys.exit(f"{self.paper}: the quick mode checked no headline figure")
        if failed:
            sys.exit(f"{self.paper}: {len(failed)} headline check(s) failed: " + "; ".join(failed))


def uptime():
    """`uptime`'s line: the machine's load beside a measurement (timings swing with it)."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def timed_command(arguments):
    """Runs a command under /usr/bin/time: its standard output, wall seconds and peak resident
    memory in kB (%M). The seconds are taken here rather than from /usr/bin/time's %e, whose
    hundredths of a second are too coarse for short steps. Exits with the command's error output
    where it fails."""
    started = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *arguments], capture_output=True,
                            text=True)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(arguments)}\n{result.stderr[-2000:]}")
    return result.stdout, seconds, int(result.stderr.strip().splitlines()[-1])


def git(*arguments):
    """The output of a git command in the repository, or None without git or a repository."""
    try:
        return subprocess.run(["git", "-C", REPOSITORY, *arguments], capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def read_history():
    if not os.path.exists(HISTORY):
        return []
    with open(HISTORY, newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def record_history(bench, figures):
    """Keeps `figures` of `bench` at this commit in the history (replacing this commit's lines for
    them) and prints each beside its value at the latest other commit."""
    if not figures:
        return
    commit = git("rev-parse", "--short=12", "HEAD")
    if commit is None:
        print("history: not kept (no git repository)")
        return
    commit = commit.strip()
    changes = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                  ":(exclude)bench/headline_history.tsv")
    uncommitted = "yes" if changes else "no"
    rows = read_history()
    print(f"\nHistory ({os.path.relpath(HISTORY, REPOSITORY)}; at {commit}"
          f"{', with uncommitted changes' if changes else ''}):")
    for name, value in figures.items():
        earlier = [row for row in rows if row["bench"] == bench and row["figure"] == name and
                   row["commit"] != commit]
        before = (f"{earlier[-1]['value']} at {earlier[-1]['commit']} ({earlier[-1]['date']})"
                  if earlier else "first record")
        print(f"- {name}: {value:.6g}; {before}")
    kept = [row for row in rows
            if not (row["commit"] == commit and row["bench"] == bench and row["figure"] in figures)]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    load = f"{os.getloadavg()[0]:.2f}"
    for name, value in figures.items():
        kept.append({"commit": commit, "uncommitted": uncommitted, "date": date, "load": load,
                     "bench": bench, "figure": name, "value": f"{value:.6g}"})
    # Written whole to a temporary file, then renamed: an interrupted run keeps the old history.
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(HISTORY), suffix=".tsv")
    with os.fdopen(handle, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept)
    os.replace(temporary, HISTORY)
