"""cdens evaluate, compare and score read the columns a user names, also under other names than
the model's variables: one warning per model file on standard error names each column and the
variable it is read as, and the answer is that of the same columns under the model's names."""

import subprocess

import pytest

from conftest import REPO

FAITHFUL = REPO / "data" / "faithful.csv"


@pytest.fixture(scope="module")
def files(cli, tmp_path_factory):
    """A KCDE of eruptions given waiting and a Parzen density of both, the first 60 rows under
    the model's names (named.csv) and renamed (renamed.csv: e, w)."""
    directory = tmp_path_factory.mktemp("names")
    lines = FAITHFUL.read_text().splitlines()[:61]
    named, renamed = directory / "named.csv", directory / "renamed.csv"
    named.write_text("\n".join(lines) + "\n")
    renamed.write_text("\n".join(["e,w"] + lines[1:]) + "\n")
    models = {}
    for name, arguments in [("kcde", ["--method", "kcde", "--x", "waiting", "--y", "eruptions",
                                      "--bandwidth", "0.3,0.3"]),
                            ("other", ["--method", "linear", "--x", "waiting", "--y",
                                       "eruptions"]),
                            ("density", ["--method", "parzen", "--bandwidth", "0.3"])]:
        models[name] = str(directory / f"{name}.json")
        subprocess.run([cli, "fit", str(named), *arguments, "--out", models[name]],
                       capture_output=True, check=True)
    return {"named": str(named), "renamed": str(renamed), **models}


def run(cli, *arguments):
    result = subprocess.run([cli, *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def warnings_of(result):
    """The warnings on standard error but those of extrapolation (tests/python/
    test_extrapolation.py), which swapped columns also give: their x lies far outside."""
    return [line for line in result.stderr.splitlines() if line.startswith("cdens: warning:")
            and "query rows lie outside the inputs" not in line]


def test_renamed_columns_are_read_with_one_warning_naming_each_pair(cli, files):
    renamed = run(cli, "evaluate", files["kcde"], files["renamed"], "--x", "w", "--y", "e",
                  "--scores", "log_likelihood,crps")
    named = run(cli, "evaluate", files["kcde"], files["named"], "--scores", "log_likelihood,crps")
    assert warnings_of(renamed) == [
        f"cdens: warning: {files['kcde']}: the columns given are named otherwise than the "
        "model's variables: column 'w' read as waiting, column 'e' read as eruptions"]
    assert warnings_of(named) == []
    # The same numbers: only the header differs.
    assert renamed.stdout.split("n: ")[1] == named.stdout.split("n: ")[1]


def test_swapped_columns_warn_in_evaluate_compare_and_score(cli, files):
    swapped = ["--x", "eruptions", "--y", "waiting"]
    expected = ("the columns given are named otherwise than the model's variables: column "
                "'eruptions' read as waiting, column 'waiting' read as eruptions")
    evaluate = run(cli, "evaluate", files["kcde"], files["named"], *swapped, "--scores",
                   "log_likelihood")
    assert warnings_of(evaluate) == [f"cdens: warning: {files['kcde']}: {expected}"]
    # Eruptions (1.6 to 5.1 minutes) read as waiting (43 to 96): every row extrapolates.
    assert "60 of 60 query rows lie outside the inputs" in evaluate.stderr
    score = run(cli, "score", files["kcde"], files["named"], *swapped)
    assert warnings_of(score) == [f"cdens: warning: {files['kcde']}: {expected}"]
    compare = run(cli, "compare", files["kcde"], files["other"], files["named"], *swapped,
                  "--scores", "log_likelihood")
    assert warnings_of(compare) == [f"cdens: warning: {files['kcde']}: {expected}",
                                    f"cdens: warning: {files['other']}: {expected}"]
    # Columns given under the model's own names, or in its order, warn of nothing.
    same = run(cli, "score", files["kcde"], files["named"], "--x", "waiting", "--y", "eruptions")
    assert warnings_of(same) == []


def test_density_columns_and_headerless_files(cli, files, tmp_path):
    density = run(cli, "score", files["density"], files["renamed"], "--columns", "e,w")
    assert warnings_of(density) == [
        f"cdens: warning: {files['density']}: the columns given are named otherwise than the "
        "model's variables: column 'e' read as eruptions, column 'w' read as waiting"]
    # A file without a header names no column: nothing to compare.
    headerless = tmp_path / "headerless.csv"
    headerless.write_text("\n".join(FAITHFUL.read_text().splitlines()[1:61]) + "\n")
    result = run(cli, "score", files["kcde"], str(headerless), "--no-header", "--x", "1", "--y",
                 "0")
    assert warnings_of(result) == []


def test_a_model_fitted_on_unnamed_arrays_takes_any_column_without_a_warning(cli, files, faithful,
                                                                             tmp_path):
    import cdens
    x, y = faithful
    path = str(tmp_path / "arrays.json")
    cdens.LinearGaussianCDE().fit(x, y).save(path)  # variables x0 and y0
    result = run(cli, "score", path, files["renamed"], "--x", "w", "--y", "e")
    assert warnings_of(result) == []
