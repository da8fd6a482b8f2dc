"""Same data, same seed, same answer, whatever the load and the thread count (issue 55).

    build/venv/bin/python tests/robustness/same_answer_under_load.py --cli build/release/cdens \
        [--gtest build/sanitize/tests/cpp/cdens_tests] [--rounds 3]

Beside two busy processes (each a Python loop that never sleeps, so the two cores are taken),
--rounds times in a row: every method of a list is fitted by the command with its default
threads and with OMP_NUM_THREADS = 1, 2 and 3, and by Python from the same rows; each model
answers its predictions (log-density, mean, variance, quantiles, draws of a fixed seed, the
method's own queries) on the command line and in Python. Every model file (its timings aside)
and every answer must equal the first round's command-line one bit for bit. With --gtest, the
C++ suite's thread-count tests (fits on 1 and 2 threads, queries under 1 and 2 caller
threads, every method of the registry) run --rounds times as well under the same load.

Exits 1 naming the first difference. In make test (test-robustness).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

import cdens
from cdens._methods import methods

BUSY = "while True:\n    pass\n"

# Methods and their options (fast ones, several model shapes: kernels, a trend, states, a pool).
METHODS = {
    "kcde": [],
    "lscde": [],
    "press": ["--n-states", "3", "--max-iter", "100", "--n-restarts", "1"],
    "linear": [],
    "auto": ["--candidates", "linear,kcde,lscde"],
}


def table(path):
    """Two inputs and one output, 800 rows, written with 17 digits."""
    rng = np.random.default_rng(55)
    x = rng.normal(size=(800, 2)) * [2.0, 0.5] + [1.0, -3.0]
    y = np.sin(2 * x[:, 0]) + (0.2 + 0.1 * np.abs(x[:, 1] + 3)) * rng.normal(size=800)
    np.savetxt(path, np.column_stack([x, y]), delimiter=",", header="a,b,y", comments="",
               fmt="%.17g")
    values = np.loadtxt(path, delimiter=",", skiprows=1)
    return values[:, :2].copy(), values[:, 2].copy()


def model_text(path):
    """A model file without its timings (fit_seconds, the candidates' seconds)."""
    document = json.loads(Path(path).read_text())
    document["fit"].pop("fit_seconds", None)
    for candidate in document["fit"].get("method_selection", {}).get("candidates", []):
        candidate.pop("seconds", None)
    return json.dumps(document, sort_keys=True)


def run(cli, arguments, threads=None):
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    result = subprocess.run([cli, *arguments], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"cdens {' '.join(arguments)} failed: {result.stderr.strip()}")
    return result.stdout


def command_answers(cli, model, data, queries, threads=None):
    """The command's answers of `model` at the rows of `data` (one string per verb)."""
    answers = [run(cli, ["predict", model, data, "--q", "0.05,0.5,0.95"], threads),
               run(cli, ["sample", model, "--x-file", data, "--n", "2", "--seed", "3"], threads)]
    if queries:
        answers.append(run(cli, ["predict", model, data, "--query", ",".join(queries)], threads))
    return answers


def python_answers(model_path, x, y, queries):
    """Python's answers of the model file at (x, y), as arrays."""
    model = cdens.load(model_path)
    answers = [model.log_pdf(x, y), model.predict(x), model.predict_var(x),
               model.predict_quantiles(x, [0.05, 0.5, 0.95])]
    answers += [getattr(model, query)(x) for query in queries]
    return [np.asarray(answer) for answer in answers]


def same(first, other, what):
    if isinstance(first, np.ndarray):
        equal = first.shape == other.shape and np.array_equal(first, other, equal_nan=True)
    else:
        equal = first == other
    if not equal:
        sys.exit(f"different answers: {what}")


def one_round(cli, directory, x, y, reference):
    """Fits and answers of every method; the first round's are the reference of the others."""
    data = str(directory / "data.csv")
    for name, options in METHODS.items():
        queries = [query["name"] for query in methods()[name]["queries"]]
        fit = ["fit", data, "--x", "a,b", "--y", "y", "--method", name, *options, "--seed", "0"]
        models = {}
        for threads in (None, 1, 2, 3):
            path = str(directory / f"{name}_{threads}.json")
            run(cli, [*fit, "--out", path], threads)
            models[threads] = path
        texts = {threads: model_text(path) for threads, path in models.items()}
        answers = {threads: command_answers(cli, models[None], data, queries, threads)
                   for threads in (None, 1, 2, 3)}
        in_python = python_answers(models[None], x, y, queries)
        if name not in reference:
            reference[name] = (texts[None], answers[None], in_python)
        first_text, first_answers, first_python = reference[name]
        for threads in texts:
            same(first_text, texts[threads], f"{name}: model file, OMP_NUM_THREADS={threads}")
            for k, answer in enumerate(answers[threads]):
                same(first_answers[k], answer, f"{name}: command answer {k}, threads {threads}")
        for k, answer in enumerate(in_python):
            same(first_python[k], answer, f"{name}: Python answer {k}")
        # The command's predictions in Python: its mean column equals Python's mean.
        header, *rows = answers[None][0].splitlines()
        columns = header.split(",")
        written = np.array([[float(v) for v in row.split(",")] for row in rows])
        same(in_python[1].reshape(-1), written[:, columns.index("mean")],
             f"{name}: the mean in Python and on the command line")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--gtest", help="the C++ test binary, whose thread-count tests repeat")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    # The model files name their columns; Python is asked with plain arrays.
    warnings.filterwarnings("ignore", message="X does not have valid feature names")
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
    try:
        with tempfile.TemporaryDirectory() as name:
            directory = Path(name)
            x, y = table(directory / "data.csv")
            reference = {}
            for round_number in range(arguments.rounds):
                one_round(arguments.cli, directory, x, y, reference)
                print(f"round {round_number + 1}: {len(METHODS)} methods, the same answers")
        if arguments.gtest:
            result = subprocess.run(
                [arguments.gtest, "--gtest_filter=*ThreadCount*", "--gtest_brief=1",
                 f"--gtest_repeat={arguments.rounds}"], capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit("thread-count tests failed under load:\n" + result.stdout[-4000:])
            print(f"the C++ thread-count tests passed {arguments.rounds} times under load")
    finally:
        for process in busy:
            process.kill()


if __name__ == "__main__":
    main()
