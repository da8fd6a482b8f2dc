"""The answers of a model file from the Python package and from the `cdens` command, exactly, for
the R package's test that one model file answers alike in R, Python and the command
(test-files.R).

    python front_end_answers.py MODEL DATA CLI OUT

Reads the model file with cdens.load and the query rows DATA (a CSV with the model's inputs and
outputs), runs `CLI predict MODEL DATA --q 0.1,0.5,0.9` and writes OUT: a CSV of the columns
log_density, mean, variance, q0.1, q0.5, q0.9 from Python and the same with the prefix cli_ from
the command, each number in hexadecimal (float.hex), which R reads back exactly.
"""

import io
import subprocess
import sys

import numpy as np
import pandas as pd

import cdens

LEVELS = [0.1, 0.5, 0.9]


def main(model_path, data_path, cli, out_path):
    estimator = cdens.load(model_path)
    data = pd.read_csv(data_path)
    x_names = list(estimator.model_.x_names)
    y_names = list(estimator.model_.y_names)
    X, Y = data[x_names], data[y_names]
    answers = {
        "log_density": estimator.log_pdf(X, Y),
        "mean": estimator.predict(X),
        "variance": estimator.predict_var(X),
    }
    quantiles = estimator.predict_quantiles(X, LEVELS)
    for k, level in enumerate(LEVELS):
        answers[f"q{level}"] = quantiles[:, k]
    printed = subprocess.run(
        [cli, "predict", model_path, data_path, "--q", ",".join(map(str, LEVELS)), "--quiet"],
        check=True, capture_output=True, text=True).stdout
    command = pd.read_csv(io.StringIO(printed), dtype=str)
    for name in list(answers):
        answers["cli_" + name] = np.array([float(text) for text in command[name]])
    pd.DataFrame({name: [float(value).hex() for value in values]
                  for name, values in answers.items()}).to_csv(out_path, index=False)


if __name__ == "__main__":
    main(*sys.argv[1:])
