"""`cdens fit` under mpirun on 1, 2, 3 and 4 processes against the single-process fit of the same
data: the model files of LSCDE, KCDE, GMM, PRESS and LSCE agree within the stated tolerance
(exactly on one process), whether the data are one CSV file or shard files; a bad row in one
shard stops every rank with one message naming the file, line and column; methods, options and
verbs that do not run on many processes refuse.

    python3 tests/mpi/cli_ranks.py --cli build/release/cdens_mpi --mpiexec mpiexec
"""

import argparse
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

# The tolerance of tests/mpi/test_lscde_ranks.cpp (kRankTolerance), where it is explained.
RANK_TOLERANCE = 1e-9
# What KCDE's bandwidth search decides (kSearchTolerance of tests/mpi/test_kcde_ranks.cpp, where
# it is explained): the bandwidths agree to the accuracy the criterion determines them.
SEARCH_TOLERANCE = 1e-4
# Those parts of a KCDE model document: (parent, key).
SEARCHED = [("model/gate", "bandwidths"), ("model/gate", "marginal_weight"), ("model", "scales"),
            ("fit", "hyperparameters"), ("fit", "statistics")]


def relative_difference(a, b, magnitude):
    scale = max(abs(a), abs(b), 1e-6 * magnitude)
    return 0.0 if scale == 0.0 else abs(a - b) / scale


def model_difference(a, b, path=""):
    """The largest relative difference between the numbers of two model documents (as
    model_difference of tests/mpi/mpi_support.hpp); AssertionError for a difference of
    structure, text or integers. The fit's timing is skipped."""
    if isinstance(a, float) or isinstance(b, float):
        return relative_difference(a, b, 0.0)
    assert type(a) is type(b), f"{path}: {a!r} against {b!r}"
    if isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: keys {sorted(a)} against {sorted(b)}"
        return max([model_difference(a[k], b[k], f"{path}/{k}") for k in a if k != "fit_seconds"],
                   default=0.0)
    if isinstance(a, list):
        assert len(a) == len(b), f"{path}: {len(a)} entries against {len(b)}"
        numbers = [abs(v) for v in a + b if isinstance(v, (int, float))]
        magnitude = max(numbers, default=0.0)
        return max([relative_difference(u, v, magnitude)
                    if isinstance(u, (int, float)) and isinstance(v, (int, float))
                    else model_difference(u, v, f"{path}/{i}")
                    for i, (u, v) in enumerate(zip(a, b))], default=0.0)
    assert a == b, f"{path}: {a!r} against {b!r}"
    return 0.0


# What PRESS's optimiser carries through its steps (kPressTolerance of
# tests/mpi/test_press_ranks.cpp, where it is explained).
PRESS_TOLERANCE = 1e-6


def without_projected_mean(document, name):
    """An LSCE or LSMI model document with the mean of z = W x set to 0, after checking that it is
    0 to rounding (as in tests/mpi/test_lsce_ranks.cpp): x is standardised over the rows the
    model is fitted to, so that mean is W 0, noise of about 1e-17 whose relative difference
    between two fits says nothing."""
    document = json.loads(json.dumps(document))
    mean = document["model"]["gate"]["z_scaling"]["mean"]
    check(all(abs(value) <= 1e-12 for value in mean), f"{name}: the mean of z is {mean}")
    document["model"]["gate"]["z_scaling"]["mean"] = [0.0] * len(mean)
    return document


def same_model_difference(method, a, b, name):
    """The largest relative difference of two model documents of `method` other than KCDE,
    checked against the method's tolerance."""
    if method in ("lsce", "lsmi-lscde"):
        a, b = without_projected_mean(a, name), without_projected_mean(b, name)
    difference = model_difference(a, b)
    tolerance = PRESS_TOLERANCE if method == "press" else RANK_TOLERANCE
    check(difference <= tolerance, f"{name}: {difference}")
    return difference


def searched_part(document):
    """The parts of a KCDE model document its bandwidth search decides, moved out of
    `document` into the dictionary returned."""
    searched = {}
    for parent, key in SEARCHED:
        holder = document
        for step in parent.split("/"):
            holder = holder[step]
        if key in holder:
            searched[f"{parent}/{key}"] = holder.pop(key)
    return searched


def kcde_differences(a, b):
    """The largest relative differences between two KCDE model documents: of what the search
    does not decide, of what it decides, and of the criterion at its end (loo_nll)."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    searched_a, searched_b = searched_part(a), searched_part(b)
    return (model_difference(a, b), model_difference(searched_a, searched_b),
            model_difference(searched_a["fit/statistics"]["loo_nll"],
                             searched_b["fit/statistics"]["loo_nll"]))


def expect_same_kcde(a, b, name):
    """KCDE's documents a and b agree: what the search decides within SEARCH_TOLERANCE, the
    criterion at its end and the rest within RANK_TOLERANCE. Returns the largest difference."""
    rest, searched, criterion = kcde_differences(a, b)
    check(rest <= RANK_TOLERANCE and criterion <= RANK_TOLERANCE and searched <= SEARCH_TOLERANCE,
          f"{name}: differences {rest}, {searched} (searched), {criterion} (criterion)")
    return max(rest, searched, criterion)


class Runner:
    def __init__(self, cli, mpiexec, directory):
        self.cli = cli
        self.mpiexec = mpiexec
        self.directory = directory
        self.environment = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1",
                                OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def path(self, name):
        return os.path.join(self.directory, name)

    def run(self, arguments, ranks=None):
        """cdens with `arguments`, alone (ranks None) or under mpirun -n ranks."""
        command = [self.cli] + arguments
        if ranks is not None:
            command = [self.mpiexec, "-n", str(ranks), "--oversubscribe"] + command
        return subprocess.run(command, capture_output=True, text=True, env=self.environment,
                              timeout=600)


def write_csv(path, header, rows):
    with open(path, "w") as file:
        file.write(",".join(header) + "\n")
        for row in rows:
            file.write(",".join(repr(v) for v in row) + "\n")


def generated_rows(n, seed):
    """y = sin(2 x0) + x1 / 2 + noise, x2 irrelevant, in units far from standard."""
    generator = random.Random(seed)
    rows = []
    for _ in range(n):
        x = [generator.gauss(0, 1) for _ in range(3)]
        y = math.sin(2 * x[0]) + 0.5 * x[1] + 0.3 * generator.gauss(0, 1)
        rows.append([40 + 10 * x[0], -3 + 0.01 * x[1], 1e3 * x[2], 7 + 2 * y])
    return rows


def write_shards(runner, stem, header, rows):
    """STEM.csv, and the same rows in three shard files of unequal size."""
    write_csv(runner.path(f"{stem}.csv"), header, rows)
    for part, (begin, end) in enumerate([(0, 200), (200, 1100), (1100, len(rows))]):
        write_csv(runner.path(f"{stem}-part-{part}.csv"), header, rows[begin:end])


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_same_model_on_every_rank_count(runner, name, fit, stem="data"):
    """`cdens fit` with the arguments `fit` on STEM.csv alone, then under mpirun on 1-4 processes
    from STEM.csv and from its shard files STEM-part-*.csv: the report once, n over every rank, the
    model file equal to the single-process one (to the bit on one process)."""
    method = fit[fit.index("--method") + 1]
    alone = runner.run(["fit", runner.path(f"{stem}.csv")] + fit
                       + ["--out", runner.path("alone.json")])
    check(alone.returncode == 0, alone.stderr)
    with open(runner.path("alone.json")) as file:
        single = json.load(file)
    for ranks in (1, 2, 3, 4):
        for data in (f"{stem}.csv", f"{stem}-part-*.csv"):
            model_path = runner.path(f"ranks{ranks}.json")
            result = runner.run(["fit", runner.path(data)] + fit + ["--out", model_path], ranks)
            check(result.returncode == 0, f"{name}, {ranks} ranks, {data}: {result.stderr}")
            check(result.stdout.count(f"method: {method}") == 1,
                  f"{name}, {ranks} ranks: the report is printed once:\n{result.stdout}")
            check(re.search(r"^n: 1500$", result.stdout, re.M), result.stdout)
            # Several processes report what rank 0 sent and received; one process does not.
            sent = re.findall(r"^bytes_between_processes: (\d+)$", result.stdout, re.M)
            check(len(sent) == (ranks > 1) and all(int(b) > 0 for b in sent), result.stdout)
            with open(model_path) as file:
                model = json.load(file)
            if method == "kcde":
                difference = expect_same_kcde(model, single, f"{name}, {ranks} ranks")
            else:
                difference = same_model_difference(method, model, single,
                                                   f"{name}, {ranks} ranks")
            print(f"{name}, {ranks} ranks, {data}: largest relative difference from the "
                  f"single-process model {difference:.3g}")
            if ranks == 1:
                check(difference == 0.0, f"{name}: one rank must fit the single-process model")
            os.remove(model_path)


def expect_same_auto_table(runner, header, rows):
    """`cdens fit --method auto` of 300 rows alone and on 2 processes: the same table of
    candidates (their mean NLLs, standard errors, differences and weights within the 1e-3 of
    tests/mpi/test_auto_ranks.cpp; how each was scored; the chosen one), printed once."""
    write_csv(runner.path("auto.csv"), header, rows[:300])
    fit = ["fit", runner.path("auto.csv"), "--method", "auto", "--x", "x0,x1,x2", "--y", "y",
           "--candidates", "linear,kcde:trend=linear,kcde", "--seed", "5"]
    tables = []
    for ranks in (None, 2):
        result = runner.run(fit + ["--out", runner.path("auto.json")], ranks)
        check(result.returncode == 0, f"auto, {ranks} ranks: {result.stderr}")
        check(result.stdout.count("method_selection:") == 1, result.stdout)
        # candidate, mean NLL, std. error, difference, paired SE, weight, seconds, scored by [*]
        tables.append([line.split() for line in result.stdout.splitlines()
                       if line.startswith(("  linear ", "  kcde"))])
    alone, shared = tables
    check(len(alone) == 3 and [r[0] for r in alone] == [r[0] for r in shared], f"{tables}")
    largest = 0.0
    for a, b in zip(alone, shared):
        check(a[7:] == b[7:], f"auto: scored by and chosen differ: {a} against {b}")
        largest = max([largest] + [abs(float(u) - float(v)) for u, v in zip(a[1:6], b[1:6])])
    check(largest <= 1e-3, f"auto on 2 processes: the table differs by {largest}")
    print(f"auto, 2 ranks: largest difference of the table from the single process {largest:.3g}")


# Queries of a KCDE model split over the processes (tests/mpi/test_kcde_answers_ranks.cpp, where
# they are explained): log-densities within 2e-6, probabilities within 2e-6, CRPS, means, standard
# deviations and the CDE loss's squared norm within 1e-5 of y's spread (of themselves), a
# highest-density probability within 1e-5. A quantile within 2e-6 in probability moves by 2e-6
# over the density there: within 1e-4 of y's spread where the density is above 0.02 / spread,
# as it is at the 5 %, 50 % and 95 % quantiles of these data; so do pinball losses and widths.
QUERY_TOLERANCES = {"log_density": 2e-6, "log_likelihood": 2e-6, "pit": 2e-6, "hpd": 1e-5}
SPREAD_TOLERANCES = {"mean": 1e-5, "crps": 1e-5, "quantile": 1e-4}


def read_columns(path):
    with open(path) as file:
        lines = file.read().splitlines()
    names = lines[0].split(",")
    values = [[float(cell) for cell in line.split(",")] for line in lines[1:]]
    return {name: [row[i] for row in values] for i, name in enumerate(names)}


def largest_gap(a, b):
    return max(abs(u - v) for u, v in zip(a, b))


def expect_queries_on_every_rank_count(runner):
    """`cdens predict`, `evaluate` and `sample` of a KCDE model under mpirun on 2-4 processes,
    each keeping a stretch of the model's pairs, against the command alone."""
    model = runner.path("queried.json")
    fitted = runner.run(["fit", runner.path("data.csv"), "--method", "kcde", "--x", "x0,x1,x2",
                         "--y", "y", "--seed", "4", "--out", model])
    check(fitted.returncode == 0, fitted.stderr)
    spread = 2.0 * 0.9  # y = 7 + 2 (sin(2 x0) + x1 / 2 + 0.3 e): a standard deviation near 1.8
    queries = runner.path("queries.csv")
    write_csv(queries, ["x0", "x1", "x2", "y"], generated_rows(400, 8))
    alone = runner.run(["predict", model, queries, "--out", runner.path("alone.csv")])
    check(alone.returncode == 0, alone.stderr)
    expected = read_columns(runner.path("alone.csv"))
    evaluated = runner.run(["evaluate", model, queries, "--json", runner.path("alone-ev.json")])
    check(evaluated.returncode == 0, evaluated.stderr)
    with open(runner.path("alone-ev.json")) as file:
        expected_scores = {score["name"]: score["values"] for score in json.load(file)["scores"]}
    largest = {}
    for ranks in (2, 3, 4):
        out = runner.path(f"ranks-{ranks}.csv")
        result = runner.run(["predict", model, queries, "--out", out], ranks)
        check(result.returncode == 0, f"predict, {ranks} ranks: {result.stderr}")
        answers = read_columns(out)
        check(answers.keys() == expected.keys(), f"columns {sorted(answers)}")
        for name in answers:
            gap = largest_gap(answers[name], expected[name])
            if name == "variance":
                gap = largest_gap([math.sqrt(v) for v in answers[name]],
                                  [math.sqrt(v) for v in expected[name]])
            key = "quantile" if re.fullmatch(r"q[0-9.]+", name) else name
            tolerance = QUERY_TOLERANCES.get(key, 0.0) + spread * SPREAD_TOLERANCES.get(
                "mean" if key == "variance" else key, 0.0)
            check(gap <= tolerance, f"predict on {ranks} ranks, {name}: {gap} > {tolerance}")
            largest[name] = max(largest.get(name, 0.0), gap)
        report = runner.path(f"ranks-{ranks}-ev.json")
        result = runner.run(["evaluate", model, queries, "--json", report], ranks)
        check(result.returncode == 0, f"evaluate, {ranks} ranks: {result.stderr}")
        with open(report) as file:
            scores = {score["name"]: score["values"] for score in json.load(file)["scores"]}
        check(scores.keys() == expected_scores.keys(), f"scores {sorted(scores)}")
        for name, values in scores.items():
            if "coverage" in name:
                continue  # 0 or 1 per pair: each follows its interval, checked through the widths
            key = ("quantile" if name.startswith(("pinball", "central_width", "hpd_width"))
                   else name)
            relative = 1.0 if name == "cde_loss" else 0.0
            tolerance = (QUERY_TOLERANCES.get(key, 0.0) + 2 * spread
                         * SPREAD_TOLERANCES.get(key, 0.0)
                         + relative * 1e-5 * max(abs(v) for v in values))
            gap = largest_gap(values, expected_scores[name])
            check(gap <= tolerance, f"evaluate on {ranks} ranks, {name}: {gap} > {tolerance}")
            largest[name] = max(largest.get(name, 0.0), gap)
    # 400 draws at each of 3 inputs, on 3 processes: their means within 4 standard errors of the
    # model's means (the model's variances over 400).
    points = runner.path("points.csv")
    write_csv(points, ["x0", "x1", "x2"], [r[:3] for r in generated_rows(3, 9)])
    drawn = runner.run(["sample", model, "--x-file", points, "--n", "400", "--seed", "5",
                        "--out", runner.path("draws.csv")], 3)
    check(drawn.returncode == 0, drawn.stderr)
    draws = read_columns(runner.path("draws.csv"))["y"]
    predicted = runner.run(["predict", model, points, "--out", runner.path("points-alone.csv")])
    check(predicted.returncode == 0, predicted.stderr)
    moments = read_columns(runner.path("points-alone.csv"))
    for j in range(3):
        mean = sum(draws[400 * j:400 * (j + 1)]) / 400
        error = abs(mean - moments["mean"][j]) / math.sqrt(moments["variance"][j] / 400)
        check(error <= 4.0, f"draws at input {j}: their mean is {error} standard errors off")
    refused = runner.run(["predict", runner.path("alone.json"), queries], 2)
    errors = [line for line in refused.stderr.splitlines() if "cdens: error:" in line]
    check(refused.returncode == 2 and len(errors) == 1
          and "runs on many processes for a kcde model of a continuous" in errors[0],
          refused.stderr)
    print("cdens predict, evaluate and sample of a KCDE model split over 2-4 processes: largest "
          "differences from the command alone " + ", ".join(
              f"{name} {gap:.2g}" for name, gap in sorted(largest.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--mpiexec", required=True)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        runner = Runner(options.cli, options.mpiexec, directory)
        header = ["x0", "x1", "x2", "y"]
        rows = generated_rows(1500, 7)
        write_shards(runner, "data", header, rows)
        fits = {
            "lscde": ["--method", "lscde", "--x", "x0,x1,x2", "--y", "y", "--seed", "4"],
            "kcde": ["--method", "kcde", "--x", "x0,x1,x2", "--y", "y", "--seed", "4"],
            "kcde --trend linear": ["--method", "kcde", "--x", "x0,x1", "--y", "y", "--trend",
                                    "linear", "--exact-limit", "600", "--subsample-held-out",
                                    "300", "--seed", "2"],
            "gmm": ["--method", "gmm", "--n-components", "3", "--n-init", "3", "--seed", "4"],
            "gmm --init box": ["--method", "gmm", "--init", "box", "--n-components", "4",
                               "--n-init", "2", "--columns", "x0,x2,y", "--seed", "2"],
            "press": ["--method", "press", "--x", "x0,x1,x2", "--y", "y", "--n-states", "3",
                      "--n-restarts", "2", "--max-iter", "200", "--learning-rate", "0.02",
                      "--seed", "4"],
            "lsce": ["--method", "lsce", "--x", "x0,x1,x2", "--y", "y", "--n-components", "1",
                     "--n-restarts", "2", "--max-iter", "8", "--sigma", "0.3,1", "--regularization",
                     "0.1,1", "--n-centers", "30", "--folds", "3", "--seed", "4"],
        }
        for name, fit in fits.items():
            expect_same_model_on_every_rank_count(runner, name, fit)
        expect_queries_on_every_rank_count(runner)
        expect_same_auto_table(runner, header, rows)

        # A categorical input coded 0, 1, 2: its levels are those of every process's rows.
        def tercile(x1):
            return 0 if x1 < -0.43 else (2 if x1 > 0.43 else 1)

        coded = [[r[0], tercile((r[1] + 3) * 100), r[3]] for r in rows]
        write_shards(runner, "coded", ["x0", "c", "y"], coded)
        expect_same_model_on_every_rank_count(
            runner, "kcde, a categorical input",
            ["--method", "kcde", "--x", "x0,c", "--y", "y", "--discrete", "c", "--seed", "3"],
            "coded")
        # A level beyond 2^53 in the second process's rows only.
        coded[1200][1] = 2 ** 53
        write_csv(runner.path("huge.csv"), ["x0", "c", "y"], coded)

        # A bad cell in the middle shard: line 1 is its header, row 500 of it is line 502.
        bad_rows = [list(r) for r in rows[200:1100]]
        with open(runner.path("bad-1.csv"), "w") as file:
            file.write(",".join(header) + "\n")
            for index, row in enumerate(bad_rows):
                cells = [repr(v) for v in row]
                if index == 500:
                    cells[1] = "1.5.3"
                file.write(",".join(cells) + "\n")
        write_csv(runner.path("bad-0.csv"), header, rows[:200])
        write_csv(runner.path("bad-2.csv"), header, rows[1100:])
        expected = (f"cdens: error: {runner.path('bad-1.csv')}:502:2: not a number '1.5.3' in "
                    "column 'x1'")
        for (name, fit), ranks in itertools.product(fits.items(), (1, 3, 4)):
            model_path = runner.path("bad.json")
            command = ["fit", runner.path("bad-*.csv")] + fit + ["--out", model_path]
            result = runner.run(command, ranks)
            check(result.returncode == 2, f"{name}, {ranks} ranks: status {result.returncode}")
            errors = [line for line in result.stderr.splitlines() if "cdens: error:" in line]
            check(errors == [expected], f"{name}, {ranks} ranks: {result.stderr}")
            check(not os.path.exists(model_path), "no model file after a failed fit")

        refusals = [
            (["fit", runner.path("huge.csv"), "--method", "kcde", "--x", "x0,c", "--y", "y",
              "--discrete", "c"],
             "' is declared discrete but holds 9007199254740992, at or beyond"),
            (["fit", runner.path("data.csv"), "--method", "parzen"],
             "cdens: error: method parzen runs on one process only"),
            (["fit", runner.path("data.csv"), "--x", "x0", "--y", "y", "--holdout", "0.2"],
             "cdens: error: --holdout runs on one process"),
            (["info", runner.path("alone.json")], "cdens: error: cdens info runs on one process"),
            # Rank 0 cannot write the model file the ranks write together: every rank fails.
            (["fit", runner.path("data.csv"), "--method", "kcde", "--x", "x0", "--y", "y",
              "--out", "/nonexistent-directory/model.json"],
             "cdens: error: cannot create a temporary file beside /nonexistent-directory/"),
        ]
        for arguments, message in refusals:
            result = runner.run(arguments, 2)
            errors = [line for line in result.stderr.splitlines() if "cdens: error:" in line]
            check(result.returncode == 2 and len(errors) == 1 and message in errors[0],
                  f"{arguments}: status {result.returncode}, {result.stderr}")
    print("cdens fit under mpirun: the same model on 1-4 processes; bad rows and refusals "
          "reported once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
