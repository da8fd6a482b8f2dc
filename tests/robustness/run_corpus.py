#!/usr/bin/env python3
"""The `cdens` command against a corpus of hostile inputs, built here from the bundled data.

Every case runs the command once and must end in one of two ways:

- a refusal: exit status 2 and one line `cdens: error: ...` on standard error that names what
  was wrong (the option, the column, the file with line and column: the case's `names`);
- an answer: exit status 0, and every number that it wrote is finite.

Whatever the case, the command must never die of a signal (a crash), run past its time limit (a
hang), or exit 0 having written nothing when it promised output. The classes of input and the
number of cases in each are printed at the end (tests/robustness/README.md lists them).

Usage: run_corpus.py --cli build/release/cdens [--class NAME] [--verbose]
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 60  # seconds; every case here takes well under one on an idle machine


@dataclass
class Case:
    cls: str
    name: str
    args: list
    expect: str  # "error" or "ok"
    names: list = field(default_factory=list)  # what the message must name (regular expressions)
    stdout: str = None  # where standard output goes: None (a pipe) or a path such as /dev/full
    check: object = None  # extra check on (stdout, workdir): returns a problem or None
    # An answer that may hold -inf or inf (a log-density of a value of probability 0, never NaN)
    infinities_allowed: bool = False
    # A refusal that must come before any report is printed (nothing on standard output)
    refused_first: bool = False


class Corpus:
    def __init__(self, cli, workdir):
        self.cli = cli
        self.dir = workdir
        self.cases = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, content, mode="w"):
        with open(self.path(name), mode) as handle:
            handle.write(content)
        return self.path(name)

    def add(self, cls, name, args, expect, names=(), **options):
        self.cases.append(Case(cls, name, [str(a) for a in args], expect, list(names), **options))

    def run_cli(self, args, timeout=TIMEOUT):
        return subprocess.run([self.cli, *args], capture_output=True, text=True, timeout=timeout,
                              cwd=self.dir)


# -- data the cases start from ---------------------------------------------------------------

def faithful_rows():
    with open(os.path.join(ROOT, "data", "faithful.csv")) as handle:
        lines = handle.read().splitlines()
    return lines[0], lines[1:]


def prepare(corpus):
    """Good files and models that the hostile cases then break."""
    header, rows = faithful_rows()
    corpus.write("good.csv", "\n".join([header] + rows) + "\n")
    corpus.write("small.csv", "\n".join([header] + rows[:60]) + "\n")
    for name, method in [("lscde.json", "lscde"), ("kcde.json", "kcde")]:
        result = corpus.run_cli(["fit", "small.csv", "--x", "waiting", "--y", "eruptions",
                                 "--method", method, "--out", name])
        if result.returncode != 0:
            sys.exit(f"cannot fit the {method} model the corpus starts from: {result.stderr}")
    result = corpus.run_cli(["fit", "small.csv", "--method", "parzen", "--out", "density.json"])
    if result.returncode != 0:
        sys.exit(f"cannot fit the density model the corpus starts from: {result.stderr}")
    result = corpus.run_cli(["fit", "small.csv", "--method", "press", "--x", "waiting", "--y",
                             "eruptions", "--n-states", "2", "--n-restarts", "1",
                             "--max-iter", "50", "--out", "press.json"])
    if result.returncode != 0:
        sys.exit(f"cannot fit the PRESS model the corpus starts from: {result.stderr}")


def scaled_csv(corpus, name, factor):
    header, rows = faithful_rows()
    lines = [header] + [",".join(repr(float(v) * factor) for v in row.split(","))
                        for row in rows[:60]]
    return corpus.write(name, "\n".join(lines) + "\n")


# -- the classes -----------------------------------------------------------------------------

FIT = ["fit", "--x", "waiting", "--y", "eruptions"]


def malformed_files(corpus):
    cls = "malformed CSV files"
    header, rows = faithful_rows()
    body = rows[:30]

    def case(name, text, names, expect="error", mode="w", args=None):
        path = corpus.write(f"bad_{name}.csv", text, mode)
        corpus.add(cls, name, (args or FIT[:1] + [path] + FIT[1:]), expect, names)

    case("empty", "", [r"bad_empty\.csv", "empty"])
    # A fault of the header is named as the header's (its field), not as a data cell's.
    case("header with an unterminated quote", 'eruptions,"waiting\n' + "\n".join(body) + "\n",
         [r":1:2", "unterminated quote in the header", "field 2"])
    case("header of another delimiter", "eruptions;waiting\n" + "\n".join(body) + "\n",
         [r":2:2", "the header has 1", "'eruptions;waiting'"])
    case("header only", header + "\n", [r"bad_header only\.csv", "no data rows"])
    case("ragged row", "\n".join([header] + body[:5] + ["3.1"] + body[5:]) + "\n",
         [r"bad_ragged row\.csv:7:2", "fields"])
    case("extra field", "\n".join([header] + body[:3] + ["3.1,70,9"] + body[3:]) + "\n",
         [r":5:3"])
    case("text cell", "\n".join([header] + body[:4] + ["abc,70"] + body[4:]) + "\n",
         [r":6:1", "not a number", "eruptions"])
    case("empty cell", "\n".join([header] + body[:4] + [",70"] + body[4:]) + "\n",
         [r":6:1", "empty cell"])
    case("nan cell", "\n".join([header] + body[:2] + ["nan,70"] + body[2:]) + "\n",
         [r":4:1", "nan"])
    case("inf cell", "\n".join([header] + body[:2] + ["3.2,inf"] + body[2:]) + "\n",
         [r":4:2", "inf"])
    case("overflowing number", "\n".join([header] + body[:2] + ["3.2,1e400"] + body[2:]) + "\n",
         [r":4:2", "out of range"])
    case("double plus", "\n".join([header] + body[:2] + ["++3,70"] + body[2:]) + "\n", [r":4:1"])
    case("duplicate header", "waiting,waiting\n" + "\n".join(body) + "\n",
         [r":1:2", "repeats"])
    case("empty header name", "eruptions,\n" + "\n".join(body) + "\n", [r":1:2", "empty"])
    case("unknown column", "\n".join([header] + body) + "\n", ["unknown column 'speed'"],
         args=["fit", corpus.path("bad_unknown column.csv"), "--x", "speed", "--y", "eruptions"])
    case("x and y the same", "\n".join([header] + body) + "\n", ["'waiting'", "both"],
         args=["fit", corpus.path("bad_x and y the same.csv"), "--x", "waiting", "--y",
               "waiting"])
    case("unterminated quote", '"eruptions,waiting\n' + "\n".join(body) + "\n",
         [r":1:1", "unterminated quote"])
    case("binary garbage", bytes(random.Random(1).randrange(256) for _ in range(600)),
         [r"bad_binary garbage\.csv"], mode="wb")
    case("NUL bytes", "eruptions,waiting\n3.6,7\x009\n", [r":2:2"])
    case("constant column", "\n".join([header] + [f"{r.split(',')[0]},70" for r in body]) + "\n",
         ["'waiting'", "every input is constant"])
    # A constant input beside others is ignored with a warning that names it.
    case("constant input beside another",
         "eruptions,waiting,site\n" + "\n".join(r + ",4" for r in body) + "\n",
         ["input 'site' is constant on the training rows \\(4\\): ignored"], "ok",
         args=["fit", corpus.path("bad_constant input beside another.csv"), "--x",
               "waiting,site", "--y", "eruptions"])
    case("one row", "\n".join([header] + body[:1]) + "\n", ["2 samples|at least"])
    case("long line", header + "\n" + "1," * 200000 + "1\n", [r":2:"])
    # Answers, not refusals: what a spreadsheet writes must read as a person means it.
    case("UTF-8 byte-order mark", "\ufeff" + "\n".join([header] + body) + "\n", [], "ok")
    case("quoted header", '"eruptions","waiting"\n' + "\n".join(body) + "\n", [], "ok")
    case("CRLF line ends", "\r\n".join([header] + body) + "\r\n", [], "ok")
    case("blank lines and spaces", "\n\n" + header + "\n" +
         "\n".join(" " + r.replace(",", " , ") + " \n" for r in body), [], "ok")
    case("leading plus", "\n".join([header] + ["+" + r for r in body]) + "\n", [], "ok")
    os.makedirs(corpus.path("a_directory.csv"), exist_ok=True)
    corpus.add(cls, "directory as data", FIT[:1] + [corpus.path("a_directory.csv")] + FIT[1:],
               "error", [r"a_directory\.csv", "directory"])
    corpus.add(cls, "missing file", FIT[:1] + ["no_such.csv"] + FIT[1:], "error",
               [r"no_such\.csv", "No such file"])
    corpus.add(cls, "headerless with --no-header", ["fit", "bad_ragged row.csv", "--x", "1",
                                                    "--y", "0", "--no-header"],
               "error", [r":1:1|not a number|:7:2"])


def mutated_files(corpus):
    """Seeded random edits of a good CSV file: a cell, a delimiter or a line deleted, doubled or
    replaced. Each must read (and fit) or be refused at a line and column of the file."""
    cls = "mutated CSV files"
    header, rows = faithful_rows()
    text = "\n".join([header] + rows[:40]) + "\n"
    rng = random.Random(2023)
    alphabet = ["", ",", ",,", "\n", '"', "-", ".", "e", "1e999", "nan", " ", "\t", "\x00",
                "\ufeff", "0x1p3", "1_000", "\r"]
    for k in range(40):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(chars))
            chars[position:position + rng.randint(0, 3)] = rng.choice(alphabet)
        path = corpus.write(f"mutated_{k}.csv", "".join(chars))
        names = [rf"mutated_{k}\.csv(:\d+:\d+)?|column|x and y"]
        corpus.add(cls, f"mutation {k}", ["fit", path, "--x", "waiting", "--y", "eruptions",
                                          "--sigma", "0.5", "--regularization", "0.1"],
                   "either", names)


def hostile_options(corpus):
    cls = "hostile options"

    def fit(name, extra, names, expect="error", method="lscde"):
        corpus.add(cls, name, ["fit", "small.csv", "--x", "waiting", "--y", "eruptions",
                               "--method", method, *extra], expect, names)

    fit("threads 100000", ["--threads", "100000"], ["--threads"])
    fit("threads negative", ["--threads", "-3"], ["--threads"])
    fit("sigma empty", ["--sigma", ""], ["--sigma"])
    fit("sigma 1e300", ["--sigma", "1e300"], ["--sigma", "1e\\+300"])
    fit("sigma 1e-300", ["--sigma", "1e-300"], ["--sigma", "must lie in"])
    fit("sigma negative", ["--sigma", "-1"], ["--sigma"])
    fit("sigma nan", ["--sigma", "nan"], ["--sigma"])
    fit("sigma list with a hole", ["--sigma", "0.1,,1"], ["--sigma", "empty item"])
    fit("lambda negative", ["--regularization", "-1"], ["--regularization"])
    fit("folds 2.5", ["--folds", "2.5"], ["--folds", "not an integer"])
    fit("folds 0", ["--folds", "0"], ["fold"])
    fit("folds 1", ["--folds", "1"], ["fold"])
    fit("folds beyond int", ["--folds", "1e12"], ["--folds"])
    fit("n-centers 0", ["--n-centers", "0"], ["centres|n-centers"])
    fit("n-centers 1.5", ["--n-centers", "1.5"], ["--n-centers"])
    fit("cv-loss unknown", ["--cv-loss", "l2"], ["--cv-loss", "kl, sq"])
    fit("seed beyond 2^64", ["--seed", "18446744073709551616"], ["--seed"])
    fit("seed huge", ["--seed", "9" * 40], ["--seed"])
    fit("seed negative", ["--seed", "-1"], ["--seed"])
    fit("seed 2^64-1", ["--seed", "18446744073709551615"], [], "ok")
    fit("holdout 1.5", ["--holdout", "1.5"], ["--holdout"])
    fit("option of another method", ["--epsilon", "0.3"], ["--epsilon", "does not apply"])
    # ε is a ball's radius, not a kernel width: any positive radius is a model, zero is not.
    fit("epsilon radius 0", ["--epsilon", "0"], ["--epsilon", "greater than 0"], method="ekde")
    fit("epsilon radius 1e-12", ["--epsilon", "1e-12"], [], "ok", method="ekde")
    fit("a density method as a candidate", ["--candidates", "linear,gmm"],
        ["'gmm' is a density method", "not a conditional one"], method="auto")
    corpus.add(cls, "a query listed twice",
               ["predict", "press.json", "small.csv", "--query",
                "point_prediction,point_prediction"], "error",
               ["--query", "'point_prediction' is listed twice"])
    corpus.write("discrete_y.csv", "\n".join(
        ["waiting,kind"] + [f"{r.split(',')[1]},{'short' if float(r.split(',')[0]) < 3 else 'long'}"
                            for r in faithful_rows()[1][:40]]) + "\n")
    for option in [["--y-transform", "log"], ["--trend", "linear"]]:
        corpus.add(cls, f"{option[0]} of a discrete output",
                   ["fit", "discrete_y.csv", "--method", "kcde", "--x", "waiting", "--y", "kind",
                    "--discrete", "kind", *option], "error",
                   [f"{option[0][2:].replace('-', '_')} = {option[1]} needs continuous output",
                    "'kind' is declared discrete"])
    fit("unknown method", [], ["unknown method|lscdx"], method="lscdx")
    fit("unknown option", ["--sigmaa", "1"], ["sigmaa"])
    fit("bandwidth bounds reversed", ["--bandwidth-bounds", "2,1"],
        ["--bandwidth-bounds", "lower bound"], method="kcde")
    fit("bandwidth bounds 1e-300", ["--bandwidth-bounds", "1e-300,1"],
        ["--bandwidth-bounds", "must lie in"], method="kcde")
    # KCDE's --bandwidth holds a Gaussian width per continuous column and a λ per discrete one:
    # each is checked against its own range, and the message names the column.
    header, rows = faithful_rows()
    corpus.write("grouped.csv", "\n".join(
        [header + ",group"] + [f"{row},{k % 3}" for k, row in enumerate(rows[:60])]) + "\n")
    for name, bandwidths, names in [
            ("kcde lambda of a discrete column above its range", "0.5,2,0.3",
             ["λ of unordered column group", "0.6666666667"]),
            ("kcde width of a continuous column 1e-9", "1e-9,0.2,0.3",
             ["bandwidth of continuous column waiting", "1e-08"])]:
        corpus.add(cls, name, ["fit", "grouped.csv", "--method", "kcde", "--x", "waiting,group",
                               "--y", "eruptions", "--discrete", "group", "--bandwidth",
                               bandwidths], "error", names)
    corpus.add(cls, "kcde lambda 1e-9 of a discrete column", [
        "fit", "grouped.csv", "--method", "kcde", "--x", "waiting,group", "--y", "eruptions",
        "--discrete", "group", "--bandwidth", "0.5,1e-9,0.3"], "ok")
    fit("auto candidate listed twice", ["--candidates", "kcde,linear,kcde:trend=none"],
        ["kcde:trend=none", "is the same as 'kcde'"], method="auto")
    fit("auto candidate option set twice", ["--candidates", "kcde:trend=linear:trend=none"],
        ["option 'trend' is set twice"], method="auto")
    # GSKD's bounds are multiples of two different variances (the Parzen target's, the data's):
    # either order is a box, the lower capped at half the upper (docs/methods/gskd.md).
    corpus.add(cls, "variance bounds in either order",
               ["fit", "small.csv", "--method", "gskd", "--variance-bounds", "5,0.1"], "ok")
    # A bound of 1e300 times the data's variance underflowed the kernels into weights of 1e130.
    corpus.add(cls, "variance upper grid 1e300",
               ["fit", "small.csv", "--method", "gskd", "--variance-upper-grid", "0.25,1e300"],
               "error", ["--variance-upper-grid", "must lie in"])
    corpus.add(cls, "box reversed",
               ["fit", "small.csv", "--method", "gmm", "--box", "3,-3"],
               "error", ["--box", "lower bound"])
    corpus.add(cls, "n_components 2.5",
               ["fit", "small.csv", "--method", "gmm", "--n-components", "2.5"],
               "error", ["--n-components", "not an integer"])
    corpus.add(cls, "density width 1e300",
               ["fit", "small.csv", "--method", "parzen", "--bandwidth", "1e300"],
               "error", ["--bandwidth", "must lie in"])
    fit("states 0", ["--n-states", "0"], ["--n-states", "positive"], method="press")
    fit("states -2", ["--n-states", "-2"], ["--n-states"], method="press")
    for n, names in [("0", ["--n"]), ("-5", ["--n"]), ("1000000000000", ["--n", "GiB"]),
                     ("2.5", ["--n"]), ("99999999999999999999", ["--n"])]:
        corpus.add(cls, f"sample --n {n}", ["sample", "lscde.json", "--x-values", "70",
                                            "--n", n], "error", names)
        corpus.add(cls, f"density sample --n {n}", ["sample", "density.json", "--n", n],
                   "error", names)
    for spec, names in [("0:6:1000000000", ["--y-grid", "GiB"]), ("0:6:1", ["--y-grid"]),
                        ("6:0:10", ["--y-grid", "START"]), ("0:6:2.5", ["--y-grid"]),
                        ("0:6", ["--y-grid"]), ("a:6:10", ["--y-grid"])]:
        corpus.add(cls, f"grid {spec}", ["grid", "lscde.json", "--x-values", "70",
                                         "--y-grid", spec], "error", names)
    corpus.add(cls, "density grid 10^9", ["grid", "density.json", "--grid",
                                          "0:6:40000", "--grid", "40:100:40000"],
               "error", ["--grid", "GiB"])
    corpus.add(cls, "quantile 1", ["predict", "lscde.json", "small.csv", "--q", "1"], "error",
               ["0 and 1|\\(0, 1\\)"])
    corpus.add(cls, "x-values wrong count", ["sample", "lscde.json", "--x-values", "1,2;3",
                                             "--n", "2"], "error", ["--x-values"])
    corpus.add(cls, "x-values text", ["sample", "lscde.json", "--x-values", "seventy",
                                      "--n", "2"], "error", ["--x-values"])
    corpus.add(cls, "no subcommand", [], "error", ["subcommand"])
    corpus.add(cls, "misspelt subcommand", ["fitt"], "error", ["fitt"])


def extreme_scales(corpus):
    cls = "extreme scales"
    for factor in [1e-300, 1e-150, 1e-14, 1e14, 1e150, 1e250, 1e300]:
        path = scaled_csv(corpus, f"scaled_{factor:g}.csv", factor)
        for method in ["lscde", "kcde"]:
            fit = ["fit", path, "--x", "waiting", "--y", "eruptions", "--method", method,
                   "--out", f"scaled_{method}_{factor:g}.json"]
            if factor > 1e152:
                # The output's variance (standard deviation 1.1 × factor) would overflow.
                corpus.add(cls, f"{method} fit ×{factor:g}", fit, "error",
                           ["output eruptions", "standard deviation", "divide it"])
                continue
            corpus.add(cls, f"{method} fit ×{factor:g}", fit, "ok")
            corpus.add(cls, f"{method} score ×{factor:g}",
                       ["score", f"scaled_{method}_{factor:g}.json", path], "ok")
            corpus.add(cls, f"{method} predict ×{factor:g}",
                       ["predict", f"scaled_{method}_{factor:g}.json", path], "ok")
        corpus.add(cls, f"density fit ×{factor:g}", ["fit", path, "--method", "parzen"], "ok")


def corrupted_models(corpus):
    cls = "corrupted model files"
    with open(corpus.path("lscde.json")) as handle:
        good = json.load(handle)
    good_text = json.dumps(good)

    def model(name, document_or_text, names, query=("info",)):
        text = document_or_text if isinstance(document_or_text, str) else json.dumps(
            document_or_text)
        path = corpus.write(f"model_{name}.json", text)
        args = [*query[:1], path, *query[1:]]
        corpus.add(cls, name, args, "error", [re.escape(os.path.basename(path))] + list(names))

    def altered(edit):
        document = json.loads(good_text)
        edit(document)
        return document

    gate = good["model"]["gate"]
    model("empty file", "", [])
    model("truncated", good_text[: len(good_text) // 2], ["JSON|json"])
    model("not JSON", "model: lscde\n", ["JSON|json"])
    model("JSON array", "[1, 2, 3]", ["not a cdens model"])
    model("other format", {"format": "other"}, ["not a cdens model"])
    model("future version", altered(lambda d: d.update(version=999)), ["version"])
    model("version as text", altered(lambda d: d.update(version="1")), ["version"])
    model("density model to a conditional command", json.load(open(corpus.path("density.json"))),
          ["'cdens predict' does not apply", "a density model p\\(x\\)"],
          query=("predict", "small.csv"))
    model("unknown shape", altered(lambda d: d.update(shape="tree")), ["shape"])
    model("parameter choice as a number", altered(
        lambda d: d["fit"].update(parameter_choice=3)), ["parameter_choice is no text"])
    model("missing model", altered(lambda d: d.pop("model")), ["model"])

    def zero_coefficients(document):
        gate = document["model"]["gate"]
        gate.update(alpha=[0.0] * len(gate["alpha"]))

    model("zeroed coefficients", altered(zero_coefficients), ["all zero"],
          query=("predict", "small.csv"))
    model("negative coefficient", altered(
        lambda d: d["model"]["gate"]["alpha"].__setitem__(0, -1.0)),
        ["non-negative"], query=("predict", "small.csv"))
    model("coefficient as text", altered(
        lambda d: d["model"]["gate"]["alpha"].__setitem__(0, "x")), [],
        query=("predict", "small.csv"))
    model("sigma zero", altered(lambda d: d["model"]["gate"].update(sigma=0)),
          ["sigma"], query=("predict", "small.csv"))
    model("sigma text", altered(lambda d: d["model"]["gate"].update(sigma="1")),
          ["sigma"], query=("predict", "small.csv"))
    model("unknown gate", altered(lambda d: d["model"]["gate"].update(kind="oracle")),
          ["gate kind"], query=("predict", "small.csv"))
    model("centres short", altered(
        lambda d: d["model"]["gate"]["alpha"].pop()), [],
        query=("predict", "small.csv"))
    model("scale zero", altered(
        lambda d: d["model"]["y_scaling"]["scale"].__setitem__(0, 0.0)), ["scale"],
        query=("predict", "small.csv"))
    model("huge number", good_text.replace('"sigma":', '"sigma": 1e999, "s":', 1), [],
          query=("predict", "small.csv"))
    # A KCDE file must keep the fit's ranges: an input bandwidth of 1e-300 overflowed every
    # query into NaN, a discrete input standardised after the fit silently moved its levels.
    with open(corpus.path("kcde.json")) as handle:
        kcde_text = handle.read()
    kcde = json.loads(kcde_text)
    kcde["model"]["gate"]["bandwidths"][0] = 1e-300
    path = corpus.write("model_kcde_bandwidth_1e-300.json", json.dumps(kcde))
    corpus.add(cls, "kcde input bandwidth 1e-300", ["score", path, "small.csv"], "error",
               ["model_kcde_bandwidth_1e-300.json", "bandwidth of input x0", "1e-08"])
    header, rows = faithful_rows()
    corpus.write("grouped_model.csv", "\n".join(
        [header + ",group"] + [f"{row},{k % 3}" for k, row in enumerate(rows[:60])]) + "\n")
    result = corpus.run_cli(["fit", "grouped_model.csv", "--method", "kcde", "--x",
                             "waiting,group", "--y", "eruptions", "--discrete", "group", "--out",
                             "kcde_discrete.json"])
    if result.returncode != 0:
        sys.exit(f"cannot fit the discrete-input model of the corpus: {result.stderr}")
    with open(corpus.path("kcde_discrete.json")) as handle:
        kcde_discrete = json.load(handle)
    labelled = json.loads(json.dumps(kcde_discrete))
    labelled["version"] = 2
    labelled["variables"]["labels"] = {"waiting": ["short", "long"]}
    path = corpus.write("model_labels_of_a_continuous_input.json", json.dumps(labelled))
    corpus.add(cls, "labels of a continuous input", ["score", path, "grouped_model.csv"], "error",
               ["model_labels_of_a_continuous_input.json", "'waiting'",
                "no discrete variable"])
    kcde_discrete["model"]["x_scaling"]["scale"][1] = 2.0
    path = corpus.write("model_discrete_input_scaled.json", json.dumps(kcde_discrete))
    corpus.add(cls, "kcde discrete input standardised", ["score", path, "grouped_model.csv"],
               "error", ["model_discrete_input_scaled.json", "discrete input x1",
                         "not be standardised"])
    # Bytes flipped at random places of a good file: any refusal must name the file, and a
    # file that still reads must answer with finite numbers.
    rng = random.Random(23)
    for k in range(12):
        text = list(good_text)
        for _ in range(3):
            text[rng.randrange(len(text))] = rng.choice('0123456789-.e,:[]{}"x ')
        path = corpus.write(f"model_flipped_{k}.json", "".join(text))
        corpus.add(cls, f"flipped bytes {k}", ["predict", path, "small.csv"], "either",
                   [re.escape(os.path.basename(path)) + "|unknown column"])
    # The density model file, edited the same ways.
    density_text = open(corpus.path("density.json")).read()
    for k in range(12):
        text = list(density_text)
        for _ in range(3):
            text[rng.randrange(len(text))] = rng.choice('0123456789-.e,:[]{}"x ')
        path = corpus.write(f"density_flipped_{k}.json", "".join(text))
        corpus.add(cls, f"density flipped bytes {k}", ["score", path, "small.csv"],
                   "either", [re.escape(os.path.basename(path)) + "|unknown column"])
    density = json.loads(density_text)
    density["model"]["weights"] = [0.0] * len(density["model"]["weights"])
    path = corpus.write("density_zero_weights.json", json.dumps(density))
    corpus.add(cls, "density weights all zero", ["score", path, "small.csv"], "error",
               ["density_zero_weights.json", "weight"])
    os.makedirs(corpus.path("model_directory.json"), exist_ok=True)
    corpus.add(cls, "directory as model", ["info", "model_directory.json"], "error",
               ["model_directory.json", "directory"])
    corpus.add(cls, "missing model file", ["info", "no_model.json"], "error", ["no_model.json"])
    assert gate  # the model has the gate the edits above reach into


def unwritable_outputs(corpus):
    cls = "unwritable outputs"
    commands = {
        "score": ["score", "lscde.json", "small.csv"],
        "info": ["info", "lscde.json"],
        "fit": ["fit", "small.csv", "--x", "waiting", "--y", "eruptions", "--sigma", "0.5",
                "--regularization", "0.1"],
        "density score": ["score", "density.json", "small.csv"],
        "density info": ["info", "density.json"],
        "density fit": ["fit", "small.csv", "--method", "parzen", "--bandwidth", "0.3"],
        "predict": ["predict", "lscde.json", "small.csv"],
        "sample": ["sample", "lscde.json", "--x-values", "70", "--n", "5"],
        "grid": ["grid", "lscde.json", "--x-values", "70", "--y-grid", "1:5:5"],
        "methods": ["methods"],
        "evaluate": ["evaluate", "lscde.json", "small.csv"],
    }
    for name, args in commands.items():
        corpus.add(cls, f"{name} > /dev/full", args, "error", ["standard output"],
                   stdout="/dev/full")
    os.makedirs(corpus.path("out_directory"), exist_ok=True)
    # Reports are checked before the evaluation, not found unwritable after it.
    for command in ("evaluate", "compare"):
        models = ["lscde.json"] if command == "evaluate" else ["lscde.json", "kcde.json"]
        for option in ("--json", "--plot"):
            corpus.add(cls, f"{command} {option} into a missing directory",
                       [command, *models, "small.csv", option, "no_dir/report"], "error",
                       [option, "no_dir"], refused_first=True)
    corpus.add(cls, "evaluate --plot naming a directory",
               ["evaluate", "lscde.json", "small.csv", "--plot", "out_directory"], "error",
               ["--plot", "out_directory", "directory"], refused_first=True)
    corpus.add(cls, "--out into a missing directory",
               commands["predict"] + ["--out", "no_dir/out.csv"], "error", ["no_dir"])
    corpus.add(cls, "--out is a directory", commands["predict"] + ["--out", "out_directory"],
               "error", ["out_directory"])
    corpus.add(cls, "model --out into a missing directory",
               commands["fit"] + ["--out", "no_dir/model.json"], "error", ["no_dir"])


def non_finite_scores(corpus):
    """A pair whose score is not finite (a y of 1e300 has log-likelihood -inf) is named and left
    out of an evaluation, never averaged into NaN; an output level the model never saw gets a
    log-density of -inf in `predict` (the other rows kept) and is counted by `score`."""
    cls = "non-finite scores"
    header, rows = faithful_rows()
    # eruptions (the y of lscde.json and kcde.json) of 1e300 in data row 3, or in every row
    far = [row if k != 2 else "1e300," + row.split(",")[1] for k, row in enumerate(rows[:40])]
    corpus.write("far.csv", "\n".join([header] + far) + "\n")
    all_far = ["1e300," + r.split(",")[1] for r in rows[:5]]
    corpus.write("all_far.csv", "\n".join([header] + all_far) + "\n")
    corpus.add(cls, "evaluate with a y of 1e300", ["evaluate", "lscde.json", "far.csv"], "ok",
               ["excluded: 1 of 40 pairs", "data row 3 \\(log_likelihood -inf\\)"])
    corpus.add(cls, "compare with a y of 1e300",
               ["compare", "lscde.json", "kcde.json", "far.csv"], "ok",
               ["excluded: 1 of 40 pairs", "data row 3"])
    corpus.add(cls, "evaluate with every y 1e300", ["evaluate", "lscde.json", "all_far.csv"],
               "error", ["only 0 of 5 pairs have finite scores"])
    # waiting holds integers: a mass function over its levels, and a level it never saw.
    result = corpus.run_cli(["fit", "small.csv", "--method", "kcde", "--x", "eruptions", "--y",
                             "waiting", "--ordered", "waiting", "--out", "levels.json"])
    if result.returncode != 0:
        sys.exit(f"cannot fit the discrete-output model of the corpus: {result.stderr}")
    unseen = [row.split(",")[0] + ("," + "200" if k == 4 else "," + row.split(",")[1])
              for k, row in enumerate(rows[:20])]
    corpus.write("unseen_level.csv", "\n".join([header] + unseen) + "\n")
    corpus.add(cls, "predict with an unseen output level",
               ["predict", "levels.json", "unseen_level.csv"], "ok",
               ["data row 5", "not a level"], infinities_allowed=True,
               check=lambda stdout, _workdir: None if (
                   len(stdout.splitlines()) == 21 and stdout.count("-inf") == 1)
               else "expected 20 rows with one log_density of -inf")
    corpus.add(cls, "score with an unseen output level",
               ["score", "levels.json", "unseen_level.csv"], "ok",
               ["outside_levels: 1", "data row 5"], infinities_allowed=True)


def grammar(corpus):
    """A verb or an option for another kind of model is refused naming the kind."""
    cls = "grammar"
    press_fit = ["small.csv", "--x", "waiting", "--y", "eruptions", "--n-states", "2",
                 "--n-restarts", "1", "--max-iter", "50"]
    for name, args, names in [
            ("predict on a density model", ["predict", "density.json", "small.csv"],
             ["density\\.json, a density model p\\(x\\)", "score, evaluate"]),
            ("features on a density model", ["features", "density.json"],
             ["'cdens features' does not apply", "a density model"]),
            ("features on a PRESS model", ["features", "press.json"],
             ["a PRESS regression model"]),
            ("a query another method declares",
             ["predict", "lscde.json", "small.csv", "--query", "state_weights"],
             ["models of method lscde answer no query 'state_weights'"]),
            ("y grid of a density model", ["grid", "density.json", "--y-grid", "1:6:5"],
             ["--y-grid", "a density model"]),
            ("density grid of a conditional model",
             ["grid", "lscde.json", "--x-values", "70", "--grid", "1:6:5"],
             ["--grid", "a conditional density model"]),
            ("x points of a density model", ["sample", "density.json", "--x-values", "70",
                                             "--n", "5"], ["--x-values", "density"]),
            ("columns of a density fit for p(y|x)",
             ["fit", "small.csv", "--x", "waiting", "--y", "eruptions", "--columns", "waiting"],
             ["--columns", "--method lscde"]),
            ("inputs of a density fit", ["fit", "small.csv", "--method", "gmm", "--x", "waiting"],
             ["--x", "density model p\\(x\\)"]),
            ("lambda of a PRESS fit",
             ["fit", "--method", "press", *press_fit, "--regularization", "0.1"],
             ["--regularization", "--lasso-weight"]),
            ("inputs of a PRESS fit missing", ["fit", "small.csv", "--method", "press"],
             ["--x"])]:
        corpus.add(cls, name, args, "error", names)
    # The kinds are checked before either model is scored: nothing printed, no warning.
    corpus.add(cls, "compare a density and a conditional model",
               ["compare", "lscde.json", "density.json", "small.csv"], "error",
               ["a density p\\(x\\) and a conditional density"], refused_first=True)


def signals_mid_write(corpus):
    """A fit killed while it runs leaves either the previous model file, byte-identical, or a
    whole new one (when the atomic rename came before the signal); never a damaged file."""
    cls = "signals mid-write"
    big = corpus.path("signal.csv")
    header, rows = faithful_rows()
    with open(big, "w") as handle:
        # 68,000 rows: the fit takes about 0.7 s, so the signals below arrive while it runs.
        handle.write(header + "\n" + "\n".join(rows * 250) + "\n")
    for k, (sig, delay) in enumerate([(signal.SIGKILL, 0.05), (signal.SIGKILL, 0.3),
                                      (signal.SIGTERM, 0.1), (signal.SIGINT, 0.2),
                                      (signal.SIGKILL, 0.6), (signal.SIGTERM, 0.5)]):
        corpus.add(cls, f"{signal.Signals(sig).name} after {delay}s", [], "signal",
                   check=(sig, delay, k))


# -- running and judging ---------------------------------------------------------------------

NUMBER = re.compile(r"(?<![A-Za-z_])(nan|-?inf)(?![A-Za-z_])", re.IGNORECASE)
NAN = re.compile(r"(?<![A-Za-z_])nan(?![A-Za-z_])", re.IGNORECASE)


def labels_and_missing_values(corpus):
    """Words in a declared discrete column are labels (coded for the fit, named in the model
    file and in the answers); elsewhere, or outside the stated levels, they are refused at
    their cell. Missing values are refused at their cell unless --missing drop leaves their
    rows out with a warning; a declared discrete column is refused where doubles merge levels
    (2^53) and warned of where it has more levels than half its rows."""
    cls = "labels and missing values"
    header, rows = faithful_rows()

    def band(waiting):
        return "S" if waiting < 65 else "M" if waiting < 80 else "L"

    labelled = ["eruptions,waiting,kind,band"] + [
        f"{r},{'short' if float(r.split(',')[0]) < 3 else 'long'},{band(float(r.split(',')[1]))}"
        for r in rows[:80]]
    corpus.write("labelled.csv", "\n".join(labelled) + "\n")
    # In the queries: a kind the model never saw in data row 3 (an output), or as an input.
    corpus.write("new_kind.csv", "\n".join(
        [labelled[0]] + [line if k != 2 else
                         line.replace("short", "medium").replace("long", "medium")
                         for k, line in enumerate(labelled[1:21])]) + "\n")
    missing = [labelled[0]] + [
        line if k not in (3, 7) else ",".join(["NA" if c == 1 else cell
                                               for c, cell in enumerate(line.split(","))])
        for k, line in enumerate(labelled[1:41])]
    corpus.write("missing.csv", "\n".join(missing) + "\n")
    corpus.write("all_missing.csv", "eruptions,waiting\n3.6,NA\n1.8,\n")
    corpus.write("huge_levels.csv", "y,id\n" + "".join(
        f"{1 + (k % 5) * 0.3},{9007199254740993 + 2 * (k % 3)}\n" for k in range(30)))
    kcde = ["fit", "labelled.csv", "--method", "kcde"]
    for name, arguments, model in [
            ("word output", ["--x", "waiting", "--y", "kind", "--discrete", "kind"], "kind.json"),
            ("ordered words with stated levels",
             ["--x", "eruptions,band", "--y", "waiting", "--ordered", "band", "--levels",
              "band=S,M,L"], "band.json")]:
        corpus.add(cls, f"fit: {name}", kcde + arguments + ["--out", model], "ok")
        result = corpus.run_cli(kcde + arguments + ["--out", model])
        if result.returncode != 0:
            sys.exit(f"cannot fit the labelled model of the corpus: {result.stderr}")
    corpus.add(cls, "undeclared word column", kcde + ["--x", "kind", "--y", "waiting"], "error",
               [r"labelled\.csv:2:3", "'kind'", "declare it discrete"])
    corpus.add(cls, "ordered words without stated levels",
               kcde + ["--x", "band", "--y", "waiting", "--ordered", "band"], "error",
               ["'band'", r"labelled\.csv:\d+:4", "--levels band="])
    corpus.add(cls, "label outside the stated levels",
               kcde + ["--x", "band", "--y", "waiting", "--ordered", "band",
                       "--levels", "band=S,M"],
               "error", [r"labelled\.csv:\d+:4", "label 'L'", "S,M"])
    corpus.add(cls, "levels before the data file",
               ["fit", "--levels", "band=S,M,L", "labelled.csv", "--method", "kcde", "--x", "band",
                "--y", "waiting", "--ordered", "band"], "ok", ["labels_band: S,M,L"])
    corpus.add(cls, "levels of an undeclared column",
               kcde + ["--x", "band", "--y", "waiting", "--discrete", "band", "--levels",
                       "kind=short,long"], "error", ["'kind'", "neither --discrete nor --ordered"])
    corpus.add(cls, "levels without a name",
               kcde + ["--x", "band", "--y", "waiting", "--discrete", "band", "--levels", "S,M,L"],
               "error", ["--levels takes NAME="])
    corpus.add(cls, "levels listing a label twice",
               kcde + ["--x", "band", "--y", "waiting", "--ordered", "band", "--levels",
                       "band=S,M,S,L"], "error", ["lists a label twice"])
    corpus.add(cls, "discrete levels beyond 2^53",
               ["fit", "huge_levels.csv", "--method", "kcde", "--x", "id", "--y", "y", "--discrete",
                "id"], "error", [r"huge_levels\.csv:2:2", "2\\^53", "'id'"])
    corpus.add(cls, "continuous column declared discrete",
               ["fit", "small.csv", "--method", "kcde", "--x", "waiting", "--y", "eruptions",
                "--discrete", "eruptions"], "ok",
               # 60 rows, 3 of them repeats of an earlier one: merged (docs/methods/duplicates.md).
               ["eruptions is declared unordered discrete but has \\d+ levels in 57 rows"])
    corpus.add(cls, "predict names the labels",
               ["predict", "kind.json", "labelled.csv"], "ok",
               check=lambda stdout, _workdir: None if (
                   stdout.splitlines()[0] == "waiting,log_density,mode"
                   and {line.split(",")[2] for line in stdout.splitlines()[1:]}
                   <= {"short", "long"})
               else f"expected the mode as labels: {stdout[:200]}")
    corpus.add(cls, "sample names the labels",
               ["sample", "kind.json", "--x-values", "55,80", "--n", "5"], "ok",
               check=lambda stdout, _workdir: None if (
                   {line.split(",")[1] for line in stdout.splitlines()[1:]} <= {"short", "long"})
               else f"expected draws as labels: {stdout[:200]}")
    corpus.add(cls, "predict with an output label the model never saw",
               ["predict", "kind.json", "new_kind.csv"], "ok", ["data row 3", "not a level"],
               infinities_allowed=True,
               check=lambda stdout, _workdir: None if stdout.count("-inf") == 1
               else "expected one log_density of -inf")
    corpus.write("new_band.csv", "\n".join(
        [labelled[0]] + [line if k != 2 else line[:line.rindex(",")] + ",XL"
                         for k, line in enumerate(labelled[1:21])]) + "\n")
    corpus.add(cls, "input label outside the model's levels",
               ["predict", "band.json", "new_band.csv"], "error",
               [r"new_band\.csv:4:4", "label 'XL'", "S,M,L"])
    corpus.add(cls, "missing value by default", FIT[:1] + ["missing.csv"] + FIT[1:], "error",
               [r"missing\.csv:5:2", "'waiting'", "missing value", "--missing drop"])
    corpus.add(cls, "missing values dropped", FIT[:1] + ["missing.csv"] + FIT[1:] +
               ["--missing", "drop"], "ok", ["left out 2 of 40 rows", "lines 5, 9"])
    corpus.add(cls, "missing values dropped by score",
               ["score", "lscde.json", "missing.csv", "--missing", "drop"], "ok",
               ["left out 2 of 40 rows", "n: 38"])
    corpus.add(cls, "missing values dropped by predict",
               ["predict", "lscde.json", "missing.csv", "--missing", "drop"], "ok",
               ["left out 2 of 40 rows"],
               check=lambda stdout, _workdir: None if len(stdout.splitlines()) == 39
               else "expected 38 rows")
    corpus.add(cls, "missing values dropped by evaluate",
               ["evaluate", "lscde.json", "missing.csv", "--missing", "drop"], "ok",
               ["left out 2 of 40 rows", "n: 38"])
    corpus.add(cls, "missing values dropped by compare",
               ["compare", "lscde.json", "kcde.json", "missing.csv", "--missing", "drop"], "ok",
               ["left out 2 of 40 rows", "n: 38"])
    corpus.add(cls, "every row missing", FIT[:1] + ["all_missing.csv"] + FIT[1:] +
               ["--missing", "drop"], "error", ["every row has a missing value"])
    corpus.add(cls, "unknown missing policy", FIT[:1] + ["missing.csv"] + FIT[1:] +
               ["--missing", "zero"], "error", ["--missing"])
    # One labelling rule (Python's too): a number among words is the label of its shortest text.
    corpus.write("mixed_labels.csv", "\n".join(
        ["waiting,code"] + [f"{r.split(',')[1]},{['a', '1', '2.0', '1.0'][k % 4]}"
                            for k, r in enumerate(rows[:40])]) + "\n")
    corpus.add(cls, "numbers among words are labels by value",
               ["fit", "mixed_labels.csv", "--method", "kcde", "--x", "waiting", "--y", "code",
                "--discrete", "code"], "ok", ["labels_code: 1,2,a"])
    corpus.add(cls, "grid --x-file echoes the labels",
               ["grid", "band.json", "--x-file", "labelled.csv", "--y-grid", "40:100:3"], "ok",
               check=lambda stdout, _workdir: None if (
                   {line.split(",")[1] for line in stdout.splitlines()[1:]} <= {"S", "M", "L"})
               else f"expected the inputs' labels: {stdout[:200]}")
    corpus.add(cls, "fit --test of a word output: no MSE of codes",
               kcde + ["--x", "waiting", "--y", "kind", "--discrete", "kind", "--test",
                       "labelled.csv"], "ok", ["test_point_scores: none", "test_nll"],
               check=lambda stdout, _workdir: "an MSE of label codes" if "test_mse" in stdout
               else None)
    corpus.write("constant_city.csv", "\n".join(
        ["eruptions,waiting,city,kelvin"] + [f"{r},Oslo,288.15" for r in rows[:40]]) + "\n")
    corpus.add(cls, "constant inputs named as in the data",
               ["fit", "constant_city.csv", "--method", "kcde", "--x", "waiting,city,kelvin",
                "--y", "eruptions", "--discrete", "city"], "ok",
               [r"'city' is constant on the training rows \(Oslo\)",
                r"'kelvin' is constant on the training rows \(288\.15\)"])
    with open(corpus.path("band.json")) as handle:
        document = json.load(handle)
    document["variables"]["labels"]["band"] = ["S", "M"]
    corpus.write("short_input_labels.json", json.dumps(document))
    corpus.add(cls, "input labels shorter than its levels",
               ["info", "short_input_labels.json"], "error", ["input 'band'", "levels"])
    for command, extra in [("sample", ["--n", "3"]), ("grid", ["--y-grid", "1:5:3"])]:
        corpus.add(cls, f"{command} --x-file with a missing value",
                   [command, "lscde.json", "--x-file", "missing.csv", *extra], "error",
                   [r"missing\.csv:5:2", "--missing drop"])
        corpus.add(cls, f"{command} --x-file --missing drop",
                   [command, "lscde.json", "--x-file", "missing.csv", "--missing", "drop", *extra],
                   "ok", ["left out 2 of 40 rows"])
    corpus.add(cls, "sample --x-values takes a label",
               ["sample", "band.json", "--x-values", "3.5,M", "--n", "3"], "ok",
               check=lambda stdout, _workdir: None if (
                   {line.split(",")[1] for line in stdout.splitlines()[1:]} == {"M"})
               else f"expected the label M echoed: {stdout[:200]}")
    corpus.add(cls, "sample --x-values with a label never seen",
               ["sample", "band.json", "--x-values", "3.5,XL", "--n", "3"], "error",
               ["'XL' is not a label of input 'band'", "S, M, L"])
    result = corpus.run_cli(["fit", "small.csv", "--method", "kcde", "--x", "waiting", "--y",
                             "eruptions", "--discrete", "waiting", "--out", "discrete_x.json"])
    if result.returncode != 0:
        sys.exit(f"cannot fit the discrete-input model of the corpus: {result.stderr}")
    # A number that is none of a discrete input's levels is answered (the kernel's weight for
    # unequal values, docs/design.md), by every command that takes x alike.
    for command, extra in [("sample", ["--n", "3"]), ("grid", ["--y-grid", "1:5:3"])]:
        corpus.add(cls, f"{command} --x-values with a discrete input's level never seen",
                   [command, "discrete_x.json", "--x-values", "55.5", *extra], "ok")
    corpus.write("unseen_input_level.csv", "waiting\n79\n55.5\n")
    corpus.add(cls, "predict with a discrete input's level never seen",
               ["predict", "discrete_x.json", "unseen_input_level.csv"], "ok",
               check=lambda stdout, _workdir: None if (
                   [line.split(",")[0] for line in stdout.splitlines()[1:]] == ["79", "55.5"])
               else f"expected the rows 79 and 55.5 answered: {stdout[:200]}")
    corpus.add(cls, "a word column under a method without discrete columns",
               ["fit", "labelled.csv", "--method", "linear", "--x", "kind", "--y", "waiting"],
               "error", [r"labelled\.csv:2:3", "--method linear reads numbers only", "kcde"])
    corpus.write("decimal_comma.csv", 'eruptions,waiting\n3.6,79\n"1,8",54\n3.3,74\n')
    corpus.add(cls, "a decimal comma",
               FIT[:1] + ["decimal_comma.csv"] + FIT[1:], "error",
               [r"decimal_comma\.csv:3:1", "decimal comma", r"1\.8"])


def judge(corpus, case):
    if case.expect == "signal":
        return judge_signal(corpus, case)
    out = open(case.stdout, "w") if case.stdout else subprocess.PIPE
    try:
        result = subprocess.run([corpus.cli, *case.args], stdout=out, stderr=subprocess.PIPE,
                                text=True, timeout=TIMEOUT, cwd=corpus.dir)
    except subprocess.TimeoutExpired:
        return f"hang: no answer within {TIMEOUT} s"
    finally:
        if case.stdout:
            out.close()
    if result.returncode < 0:
        return f"crash: killed by {signal.Signals(-result.returncode).name}"
    stderr = result.stderr.strip()
    stdout = result.stdout or ""
    if result.returncode == 0:
        if case.expect == "error":
            return f"accepted (exit 0), expected a refusal naming {case.names}"
        bad = (NAN if case.infinities_allowed else NUMBER).search(stdout)
        if bad:
            return f"wrote a non-finite number '{bad.group(0)}'"
        if case.check:
            problem = case.check(stdout, corpus.dir)
            if problem:
                return problem
        if not case.stdout and not stdout.strip() and "--out" not in case.args:
            return "exit 0 with no output"
        # An answer that comes with a warning names what it warns of.
        missing = [n for n in case.names if not re.search(n, stdout + stderr)]
        if case.expect == "ok" and missing:
            return f"the output does not name {missing}"
        return None
    if result.returncode != 2:
        return f"exit status {result.returncode}: {stderr[-300:]}"
    if case.expect == "ok":
        return f"refused: {stderr}"
    lines = [line for line in stderr.splitlines() if line.startswith("cdens: error:")]
    if len(lines) != 1:
        return f"expected one 'cdens: error:' line, got: {stderr[-300:]}"
    missing = [n for n in case.names if not re.search(n, lines[0])]
    if missing:
        return f"message does not name {missing}: {lines[0]}"
    if case.refused_first and stdout.strip():
        return f"refused only after printing a report: {stdout[:200]}"
    return None


def judge_signal(corpus, case):
    sig, delay, k = case.check
    target = corpus.path(f"signal_model_{k}.json")
    shutil.copy(corpus.path("kcde.json"), target)
    with open(target, "rb") as handle:
        before = handle.read()
    process = subprocess.Popen([corpus.cli, "fit", "signal.csv", "--x", "waiting", "--y",
                                "eruptions", "--method", "lscde", "--out", target],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=corpus.dir)
    time.sleep(delay)
    process.send_signal(sig)
    try:
        process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        return "hang after the signal"
    with open(target, "rb") as handle:
        after = handle.read()
    if after == before:
        return None
    # The file changed: the rename must have happened before the signal arrived (a fit killed
    # between the rename and its exit, or one that finished), so the new model must be whole.
    try:
        json.loads(after)
    except ValueError:
        return "the interrupted fit left a damaged model file"
    info = subprocess.run([corpus.cli, "info", target], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=TIMEOUT, cwd=corpus.dir)
    if info.returncode != 0:
        return f"the model file the fit left does not load: {info.stderr.strip()[-300:]}"
    return None


def sample_weights(corpus):
    """`fit --weights COLUMN`: bad weights are refused naming the column and the data row; the
    methods without weights refuse them naming the supported ones."""
    cls = "sample weights"
    header, rows = faithful_rows()
    body = rows[:40]

    def weights_file(name, weights):
        lines = [header + ",w"] + [f"{row},{weight}" for row, weight in zip(body, weights)]
        return corpus.write(f"weights_{name}.csv", "\n".join(lines) + "\n")

    good = weights_file("good", [1 + i % 3 for i in range(len(body))])

    def fit(name, path, extra, expect, names, method="kcde"):
        corpus.add(cls, name, ["fit", path, "--x", "waiting", "--y", "eruptions", "--method",
                               method, "--weights", "w", *extra], expect, names)

    fit("negative weight", weights_file("negative", [1] * 5 + [-2] + [1] * 34), [], "error",
        ["--weights column 'w'", "data row 6", "-2", "non-negative"])
    fit("all weights zero", weights_file("zero", [0] * 40), [], "error",
        ["--weights column 'w'", "every weight is zero"])
    fit("unsupported method", good, [], "error",
        ["nwcde does not support sample weights", "supported: .*kcde"], method="nwcde")
    fit("unknown weights column", good, [], "error", ["unknown column 'v'"])
    corpus.cases[-1].args[corpus.cases[-1].args.index("w")] = "v"
    corpus.add(cls, "weights column is an input",
               ["fit", good, "--x", "waiting,w", "--y", "eruptions", "--method", "linear",
                "--weights", "w"], "error", ["'w'", "also a modelled column"])
    corpus.add(cls, "weights column named as a density column",
               ["fit", good, "--method", "gmm", "--columns", "waiting,w", "--weights", "w"],
               "error", ["'w'", "also a modelled column"])
    corpus.add(cls, "weights beside a text cell",
               ["fit", corpus.write("weights_text.csv", header + ",w\n" +
                                    "\n".join(f"{row},1" for row in body[:5]) + "\n3.6,79,x\n"),
                "--x", "waiting", "--y", "eruptions", "--method", "kcde", "--weights", "w"],
               "error", [r"weights_text\.csv:7:3", "not a number"])
    corpus.add(cls, "weights under a non-weighted kcde option",
               ["fit", good, "--x", "waiting", "--y", "eruptions", "--method", "kcde",
                "--trend", "gp", "--weights", "w"], "error", ["trend = gp", "sample weights"])
    # Answers: every supported method, and the density's columns are all but the weights.
    for method in ["kcde", "linear", "lscde"]:
        fit(f"{method} with weights", good, ["--holdout", "0.25"], "ok", [], method=method)
    fit("auto with weights", good, ["--candidates", "linear,lscde,kcde:trend=gp"], "ok", [],
        method="auto")
    for method in ["parzen", "gmm"]:
        corpus.add(cls, f"{method} with weights",
                   ["fit", good, "--method", method, "--weights", "w"], "ok", [])
    # Scaled weights give the same model (the weights are divided by the largest): the scaled
    # fits' predictions equal the unscaled fit's to 1e-9 (the scaled weights are rounded).
    unscaled = corpus.run_cli(["fit", good, "--x", "waiting", "--y", "eruptions", "--method",
                               "kcde", "--weights", "w", "--out", "weights_unscaled.json"])
    reference = corpus.run_cli(["predict", "weights_unscaled.json", good])
    if unscaled.returncode != 0 or reference.returncode != 0:
        sys.exit(f"cannot fit the weighted model of the corpus: {unscaled.stderr}")

    def same_predictions(model):
        def check(_stdout, _workdir):
            result = corpus.run_cli(["predict", model, good])
            rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
            expected = [line.split(",") for line in reference.stdout.splitlines()[1:]]
            if result.returncode != 0 or len(rows) != len(expected):
                return f"predict of {model} failed: {result.stderr}"
            for row, want in zip(rows, expected):
                for got, value in zip(row, want):
                    if abs(float(got) - float(value)) > 1e-9 * (1 + abs(float(value))):
                        return f"{model}: {got} instead of {value}"
            return None
        return check

    for factor in ["1e-200", "1e160"]:
        path = weights_file(f"scaled_{factor}",
                            [f"{1 + i % 3}{factor[1:]}" for i in range(len(body))])
        model = f"weights_{factor}.json"
        corpus.add(cls, f"weights times {factor}: the same model",
                   ["fit", path, "--x", "waiting", "--y", "eruptions", "--method", "kcde",
                    "--weights", "w", "--out", model], "ok", check=same_predictions(model))
    fit("weights below the smallest normal double",
        weights_file("subnormal", ["1e-310"] * 40), [], "error", ["--weights column 'w'"])
    missing_weight = weights_file("missing", [1] * 3 + ["NA"] + [1] * 36)
    fit("a missing weight", missing_weight, [], "error",
        [r"weights_missing\.csv:5:3", "--weights column 'w'", "--missing drop"])
    fit("a missing weight dropped", missing_weight, ["--missing", "drop"], "ok",
        ["left out 1 of 40 rows", "line 5"])
    fit("an infinite weight", weights_file("inf", [1] * 3 + ["inf"] + [1] * 36), [], "error",
        [r"weights_inf\.csv:5:3", "--weights column 'w'", "non-negative finite"])


def evaluation_of_discrete_outputs(corpus):
    """A discrete y is evaluated with its own scores (the RPS, the Brier score, sets of levels)
    and a score that does not apply to it is refused naming those that do; models of a discrete
    and of a continuous y are not compared; columns read under other names than the model's
    variables (x and y swapped, renamed) are answered with a warning naming each pair."""
    cls = "evaluation of discrete outputs"
    header, rows = faithful_rows()
    # waiting holds integers: an ordered y over the levels of the first 60 rows.
    for name, extra in [("ordered.json", ["--method", "kcde", "--ordered", "waiting"]),
                        ("waiting_linear.json", ["--method", "linear"])]:
        result = corpus.run_cli(["fit", "small.csv", "--x", "eruptions", "--y", "waiting",
                                 *extra, "--out", name])
        if result.returncode != 0:
            sys.exit(f"cannot fit the models of discrete outputs of the corpus: {result.stderr}")
    corpus.add(cls, "evaluate an ordered y", ["evaluate", "ordered.json", "small.csv"], "ok",
               ["discrete y: waiting ordered", "rps", "brier", "hpd_size_0.9",
                "not applicable to this y"])
    corpus.add(cls, "crps of an ordered y",
               ["evaluate", "ordered.json", "small.csv", "--scores", "crps"], "error",
               ["'crps' does not apply", "ranked probability score", "log_likelihood, rps"])
    corpus.add(cls, "compare a discrete and a continuous y",
               ["compare", "ordered.json", "waiting_linear.json", "small.csv"], "error",
               ["ordered in ordered", "continuous in waiting_linear", "log-probability"])
    corpus.add(cls, "evaluate with x and y swapped",
               ["evaluate", "kcde.json", "small.csv", "--x", "eruptions", "--y", "waiting"],
               "ok", ["warning: kcde.json", "column 'eruptions' read as waiting",
                      "column 'waiting' read as eruptions"])
    corpus.write("renamed.csv", "\n".join(["e,w"] + rows[:30]) + "\n")
    corpus.add(cls, "score with renamed columns",
               ["score", "kcde.json", "renamed.csv", "--x", "w", "--y", "e"], "ok",
               ["warning: kcde.json", "column 'w' read as waiting",
                "column 'e' read as eruptions"])


CLASSES = OrderedDict([
    ("malformed CSV files", malformed_files),
    ("mutated CSV files", mutated_files),
    ("hostile options", hostile_options),
    ("extreme scales", extreme_scales),
    ("corrupted model files", corrupted_models),
    ("unwritable outputs", unwritable_outputs),
    ("non-finite scores", non_finite_scores),
    ("evaluation of discrete outputs", evaluation_of_discrete_outputs),
    ("labels and missing values", labels_and_missing_values),
    ("grammar", grammar),
    ("signals mid-write", signals_mid_write),
    ("sample weights", sample_weights),
])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "cdens"))
    parser.add_argument("--class", dest="only", help="run only the class of this name")
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    cli = os.path.abspath(arguments.cli)
    workdir = tempfile.mkdtemp(prefix="cdens-corpus-")
    try:
        corpus = Corpus(cli, workdir)
        prepare(corpus)
        for name, build in CLASSES.items():
            if arguments.only in (None, name):
                build(corpus)
        started = time.monotonic()
        failures = []
        counts = Counter()
        for case in corpus.cases:
            counts[case.cls] += 1
            problem = judge(corpus, case)
            if case.expect == "either" and problem and problem.startswith("refused"):
                problem = None
            if problem:
                failures.append((case, problem))
                print(f"FAIL [{case.cls}] {case.name}: {problem}")
            elif arguments.verbose:
                print(f"ok   [{case.cls}] {case.name}")
        print("corpus classes (cases):")
        for name, count in counts.items():
            print(f"  {name}: {count}")
        print(f"corpus: {len(corpus.cases)} cases in {time.monotonic() - started:.0f} s")
        print(f"{len(corpus.cases) - len(failures)} passed, {len(failures)} failed")
        return 1 if failures else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
