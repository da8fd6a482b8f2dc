"""Discrete columns of words (labels) and missing values, in Python and on the command line:
a model fitted on labels is the model of their codes, keeps them through its file, answers in
them, and agrees with the command on the same CSV file (docs/python.md, "Labels")."""

import subprocess

import numpy as np
import pytest

import cdens
from cdens._conditional import CdensWarning

SEXES = np.array(["F", "I", "M"], dtype=object)  # sorted: codes 0, 1, 2
SIZES = ["S", "M", "L"]                            # stated order: codes 0, 1, 2


@pytest.fixture(scope="module")
def shells():
    """length (continuous), sex (unordered words), size (ordered words) and a word output."""
    rng = np.random.default_rng(38)
    n = 150
    sex_code = rng.integers(0, 3, n)
    size_code = rng.integers(0, 3, n)
    length = 0.4 + 0.1 * sex_code + 0.05 * size_code + 0.05 * rng.normal(size=n)
    heavy = (length + 0.05 * rng.normal(size=n) > 0.5).astype(int)
    return {
        "length": length, "sex_code": sex_code, "size_code": size_code, "heavy_code": heavy,
        "sex": SEXES[sex_code], "size": np.array(SIZES, dtype=object)[size_code],
        "weight": np.array(["heavy", "light"], dtype=object)[1 - heavy],  # sorted: heavy = 0
    }


def words_X(shells):
    return np.column_stack([shells["length"], shells["sex"], shells["size"]]).astype(object)


def codes_X(shells):
    columns = [shells["length"], shells["sex_code"], shells["size_code"]]
    return np.column_stack(columns).astype(float)


def test_words_give_the_model_of_their_codes(shells):
    y = shells["length"] * 3 + 0.1 * shells["size_code"]
    words = cdens.KernelCDE(discrete=[1], ordered={2: SIZES}, random_state=0).fit(
        words_X(shells), y)
    codes = cdens.KernelCDE(discrete=[1], ordered=[2], random_state=0).fit(codes_X(shells), y)
    np.testing.assert_array_equal(words.bandwidths_, codes.bandwidths_)
    np.testing.assert_array_equal(words.log_pdf(words_X(shells), y),
                                  codes.log_pdf(codes_X(shells), y))
    assert words.model_.labels == {"x1": ["F", "I", "M"], "x2": SIZES}
    assert words.input_kinds_ == ["continuous", "unordered", "ordered"]


def test_word_output_answers_in_labels_and_equals_its_codes(shells, tmp_path):
    X = shells["length"].reshape(-1, 1)
    words = cdens.KernelCDE(discrete=[1], random_state=0).fit(X, shells["weight"])
    codes = cdens.KernelCDE(discrete=[1], random_state=0).fit(X, 1.0 - shells["heavy_code"])
    np.testing.assert_array_equal(words.log_pdf(X, shells["weight"]),
                                  codes.log_pdf(X, 1.0 - shells["heavy_code"]))
    predicted = words.predict(X)
    assert set(predicted) <= {"heavy", "light"}
    masses = codes.pdf(X, np.zeros(len(X)))  # P(heavy | x)
    np.testing.assert_array_equal(predicted == "heavy", masses >= 0.5)
    draws = words.sample(X[:4], 50, random_state=1)
    assert draws.shape == (4, 50) and set(draws.ravel()) <= {"heavy", "light"}
    # A label the model never saw has probability 0, as a level it never saw.
    unseen = words.log_pdf(X[:3], np.array(["heavy", "medium", "light"], dtype=object))
    assert unseen[1] == -np.inf and np.isfinite(unseen[[0, 2]]).all()
    with pytest.raises(ValueError, match="needs an ordered y"):
        words.predict_quantiles(X, [0.5])
    # Through the model file, labels and answers alike.
    words.save(tmp_path / "weight.json")
    loaded = cdens.load(tmp_path / "weight.json")
    assert loaded.model_.labels == {"y0": ["heavy", "light"]}
    np.testing.assert_array_equal(loaded.predict(X), predicted)
    np.testing.assert_array_equal(loaded.log_pdf(X, shells["weight"]),
                                  words.log_pdf(X, shells["weight"]))


def test_columns_are_declared_by_name(shells):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"length": shells["length"], "sex": shells["sex"]})
    y = pandas.Series(shells["weight"], name="weight")
    by_name = cdens.KernelCDE(discrete=["sex", "weight"], random_state=0).fit(frame, y)
    by_index = cdens.KernelCDE(discrete=[1, 2], random_state=0).fit(frame, y)
    assert by_name.model_.labels == {"sex": ["F", "I", "M"], "weight": ["heavy", "light"]}
    np.testing.assert_array_equal(by_name.log_pdf(frame, y), by_index.log_pdf(frame, y))


def test_pandas_categories_are_discrete_without_a_declaration(shells):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({
        "length": shells["length"],
        "sex": pandas.Categorical(shells["sex"]),
        "size": pandas.Categorical(shells["size"], categories=SIZES, ordered=True)})
    y = shells["length"] * 3
    fitted = cdens.KernelCDE(random_state=0).fit(frame, y)
    assert fitted.input_kinds_ == ["continuous", "unordered", "ordered"]
    with pytest.raises(ValueError, match="LSCDE smooths every column as continuous, and 'sex', "
                                         "'size' are discrete"):
        cdens.LSCDE().fit(frame, y)
    assert fitted.model_.labels == {"sex": ["F", "I", "M"], "size": SIZES}
    stated = cdens.KernelCDE(discrete=[1], ordered={2: SIZES}, random_state=0).fit(
        words_X(shells), y)
    np.testing.assert_array_equal(fitted.log_pdf(frame, y), stated.log_pdf(words_X(shells), y))


def test_words_that_cannot_be_read_are_refused(shells):
    y = shells["length"]
    with pytest.raises(ValueError, match="declare it discrete"):
        cdens.KernelCDE().fit(words_X(shells)[:, :2], y)
    with pytest.raises(ValueError, match=r"state their order, ordered=\{'x2'"):
        cdens.KernelCDE(discrete=[1], ordered=[2]).fit(words_X(shells), y)
    with pytest.raises(ValueError, match="label 'L' of column 'x2' is not one of its levels"):
        cdens.KernelCDE(discrete=[1], ordered={2: ["S", "M"]}).fit(words_X(shells), y)
    with pytest.raises(ValueError, match="column 'colour' is none of the columns"):
        cdens.KernelCDE(discrete=["colour"]).fit(words_X(shells), y)
    fitted = cdens.KernelCDE(discrete=[1], ordered={2: SIZES}, random_state=0).fit(
        words_X(shells), y)
    strange = words_X(shells)[:5].copy()
    strange[2, 1] = "X"
    with pytest.raises(ValueError, match="label 'X' of column 'x1' is not one of its levels"):
        fitted.log_pdf(strange, y[:5])


def test_declared_discrete_with_more_levels_than_half_the_rows_is_warned(shells):
    X = shells["length"].reshape(-1, 1)
    y = np.round(shells["length"] * 1000)
    with pytest.warns(CdensWarning, match=r"column y0 is declared ordered discrete but has \d+ "
                                          r"levels in 150 rows \(more than half\)"):
        cdens.KernelCDE(ordered=[1], random_state=0).fit(X, y)


def test_missing_rows_are_dropped_with_a_count(shells):
    X = words_X(shells)
    X[[3, 10], 0] = np.nan
    X[20, 1] = None
    X[30, 2] = "NA"
    y = shells["length"].copy()
    y[40] = np.nan
    options = dict(discrete=[1], ordered={2: SIZES}, random_state=0)
    with pytest.raises(ValueError):
        cdens.KernelCDE(**options).fit(X, y)
    with pytest.warns(CdensWarning, match=r"left out 5 of 150 rows with a missing value "
                                          r"\(rows 3, 10, 20, 30, 40\)"):
        dropped = cdens.KernelCDE(**options).fit(X, y, missing="drop")
    keep = np.setdiff1d(np.arange(150), [3, 10, 20, 30, 40])
    clean = cdens.KernelCDE(**options).fit(X[keep], y[keep])
    np.testing.assert_array_equal(dropped.log_pdf(X[keep], y[keep]),
                                  clean.log_pdf(X[keep], y[keep]))
    with pytest.raises(ValueError, match='missing must be "error" or "drop"'):
        cdens.KernelCDE(**options).fit(X, y, missing="zero")
    numeric = shells["length"].reshape(-1, 1).copy()
    numeric[7, 0] = np.nan
    with pytest.warns(CdensWarning, match="left out 1 of 150 rows"):
        cdens.LSCDE(random_state=0).fit(numeric, shells["length"], missing="drop")


def test_command_line_and_python_agree_on_a_file_of_words(shells, cli, tmp_path):
    data = tmp_path / "shells.csv"
    rows = ["length,sex,size,weight"] + [
        f"{length!r},{sex},{size},{weight}" for length, sex, size, weight in
        zip(shells["length"], shells["sex"], shells["size"], shells["weight"])]
    data.write_text("\n".join(rows) + "\n")
    model = tmp_path / "shells.json"
    subprocess.run([cli, "fit", str(data), "--method", "kcde", "--x", "length,sex,size", "--y",
                    "weight", "--discrete", "sex,weight", "--ordered", "size", "--levels",
                    "size=S,M,L", "--out", str(model)], capture_output=True, text=True, check=True)
    X = words_X(shells)
    fitted = cdens.KernelCDE(discrete=[1, 3], ordered={2: SIZES}, random_state=0).fit(
        X, shells["weight"])
    loaded = cdens.load(model)
    assert loaded.model_.labels == {"sex": ["F", "I", "M"], "size": SIZES,
                                    "weight": ["heavy", "light"]}
    np.testing.assert_allclose(loaded.log_pdf(X, shells["weight"]),
                               fitted.log_pdf(X, shells["weight"]), rtol=1e-12, atol=0)
    predicted = subprocess.run([cli, "predict", str(model), str(data)], capture_output=True,
                               text=True, check=True).stdout.splitlines()
    assert predicted[0] == "length,sex,size,log_density,mode"
    modes = [line.split(",")[-1] for line in predicted[1:]]
    assert modes == list(fitted.predict(X))
    assert [line.split(",")[1] for line in predicted[1:]] == list(shells["sex"])


def test_density_fit_drops_missing_rows(faithful):
    waiting, eruptions = faithful
    X = np.column_stack([waiting[:, 0], eruptions])
    holed = X.copy()
    holed[[4, 9], 1] = np.nan
    message = r"left out 2 of 272 rows with a missing value \(rows 4, 9\)"
    with pytest.warns(CdensWarning, match=message):
        dropped = cdens.ParzenWindow().fit(holed, missing="drop")
    keep = np.setdiff1d(np.arange(len(X)), [4, 9])
    np.testing.assert_array_equal(dropped.score_samples(X[keep]),
                                  cdens.ParzenWindow().fit(X[keep]).score_samples(X[keep]))
    with pytest.raises(ValueError):
        cdens.ParzenWindow().fit(holed)


def test_levels_beyond_2_to_the_53_are_refused_by_both(cli, tmp_path):
    ids = np.array([2**53 + 1, 2**53 + 3, 2**53 + 5] * 10, dtype=np.int64)
    y = np.arange(30, dtype=float) % 7
    with pytest.raises(ValueError, match=r"beyond 2\*\*53"):
        cdens.KernelCDE(discrete=[0]).fit(ids.reshape(-1, 1), y)
    data = tmp_path / "ids.csv"
    data.write_text("id,y\n" + "".join(f"{i},{v!r}\n" for i, v in zip(ids, y)))
    refused = subprocess.run([cli, "fit", str(data), "--method", "kcde", "--x", "id", "--y", "y",
                              "--discrete", "id"], capture_output=True, text=True)
    assert refused.returncode == 2
    errors = [line for line in refused.stderr.splitlines() if line.startswith("cdens: error:")]
    assert len(errors) == 1 and "ids.csv:2:1" in errors[0] and "2^53" in errors[0]


def test_ordered_word_output_has_quantiles_in_labels(shells, cli, tmp_path):
    X = shells["length"].reshape(-1, 1)
    words = cdens.KernelCDE(ordered={1: SIZES}, random_state=0).fit(X, shells["size"])
    codes = cdens.KernelCDE(ordered=[1], random_state=0).fit(X, shells["size_code"].astype(float))
    quantiles = words.predict_quantiles(X, [0.1, 0.5, 0.9])
    np.testing.assert_array_equal(
        quantiles, np.array(SIZES, dtype=object)[codes.predict_quantiles(X, [0.1, 0.5, 0.9])
                                                 .astype(int)])
    data = tmp_path / "sizes.csv"
    data.write_text("length,size\n" + "".join(
        f"{length!r},{size}\n" for length, size in zip(shells["length"], shells["size"])))
    model = tmp_path / "sizes.json"
    subprocess.run([cli, "fit", str(data), "--method", "kcde", "--x", "length", "--y", "size",
                    "--ordered", "size", "--levels", "size=S,M,L", "--out", str(model)],
                   capture_output=True, text=True, check=True)
    lines = subprocess.run([cli, "predict", str(model), str(data), "--q", "0.1,0.5,0.9"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "length,log_density,mode,q0.1,q0.5,q0.9"
    assert [line.split(",")[3:] for line in lines[1:]] == quantiles.tolist()


def test_one_labelling_rule_for_python_and_the_command(cli, shells, tmp_path):
    """A number among words is the label of the number's shortest text ("1.0" and "1" are the
    label 1, "2.0" is 2) in Python as on the command line (the engine's label_of_text): each front
    end answers the other's model on the model's own training file."""
    pandas = pytest.importorskip("pandas")
    cells = np.array(["a", "1", "2.0", "1.0", "2"], dtype=object)[np.arange(150) % 5]
    data = tmp_path / "mixed.csv"
    data.write_text("length,code\n" + "".join(
        f"{length!r},{cell}\n" for length, cell in zip(shells["length"], cells)))
    # The code column as pandas reads it, the strings; the lengths read back to the bit (pandas'
    # default parser can miss the last bit, which would move the bandwidths).
    frame = pandas.read_csv(data, float_precision="round_trip")
    X, y = frame[["length"]], frame["code"]
    in_python = cdens.KernelCDE(discrete=["code"], random_state=0).fit(X, y)
    assert in_python.model_.labels == {"code": ["1", "2", "a"]}
    python_model = tmp_path / "python.json"
    in_python.save(python_model)
    cli_model = tmp_path / "cli.json"
    fitted = subprocess.run([cli, "fit", str(data), "--method", "kcde", "--x", "length", "--y",
                             "code", "--discrete", "code", "--seed", "0", "--out", str(cli_model)],
                            capture_output=True, text=True)
    assert fitted.returncode == 0, fitted.stderr
    assert "labels_code: 1,2,a" in fitted.stdout
    # The command answers the Python model on its training file, and Python the command's.
    answered = subprocess.run([cli, "score", str(python_model), str(data)],
                              capture_output=True, text=True)
    assert answered.returncode == 0, answered.stderr
    assert "outside_levels: 0" in answered.stdout
    from_cli = cdens.load(cli_model)
    assert from_cli.model_.labels == {"code": ["1", "2", "a"]}
    np.testing.assert_array_equal(from_cli.log_pdf(X, y), in_python.log_pdf(X, y))
