"""The history of the quick modes' headline figures (bench/papers/headline.py): one line per
commit, benchmark and figure, a rerun at the same commit replacing its lines, each figure printed
beside its value at the latest other commit."""

import csv
import os
import sys

import pytest

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPOSITORY, "bench", "papers"))
import headline  # noqa: E402

pytestmark = pytest.mark.skipif(headline.git("rev-parse", "HEAD") is None,
                                reason="not a git checkout")


def lines(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def test_a_rerun_replaces_this_commits_lines_and_keeps_other_commits(
        tmp_path, monkeypatch, capsys):
    history = tmp_path / "headline_history.tsv"
    monkeypatch.setattr(headline, "HISTORY", str(history))
    commit = headline.git("rev-parse", "--short=12", "HEAD").strip()
    with open(history, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=headline.COLUMNS, delimiter="\t",
                                lineterminator="\n")
        writer.writeheader()
        writer.writerow({"commit": "0123456789ab", "uncommitted": "no",
                         "date": "2026-11-01 00:00", "load": "0.10", "bench": "a bench",
                         "figure": "seconds", "value": "2.5"})

    headline.record_history("a bench", {"seconds": 3.0, "ratio": 1.5})
    headline.record_history("a bench", {"seconds": 3.25})
    headline.record_history("another bench", {"seconds": 9.0})

    rows = lines(history)
    assert [(row["commit"], row["bench"], row["figure"], row["value"]) for row in rows] == [
        ("0123456789ab", "a bench", "seconds", "2.5"),
        (commit, "a bench", "ratio", "1.5"),
        (commit, "a bench", "seconds", "3.25"),
        (commit, "another bench", "seconds", "9"),
    ]
    assert {row["uncommitted"] for row in rows[1:]} <= {"yes", "no"}
    printed = capsys.readouterr().out
    assert "- seconds: 3.25; 2.5 at 0123456789ab (2026-11-01 00:00)" in printed
    assert "- seconds: 9; first record" in printed


def test_a_claim_keeps_its_figures_and_a_failed_claim_still_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(headline, "HISTORY", str(tmp_path / "headline_history.tsv"))
    claims = headline.Headline("a paper")
    claims.require(True, "a figure within its bound", {"test NLL": 0.25})
    claims.require(False, "a figure beyond its bound", {"fit seconds": 4.0})
    with pytest.raises(SystemExit) as failure:
        claims.finish()
    assert "a figure beyond its bound" in str(failure.value)
    assert {(row["figure"], row["value"]) for row in lines(headline.HISTORY)} == {
        ("test NLL", "0.25"), ("fit seconds", "4")}
