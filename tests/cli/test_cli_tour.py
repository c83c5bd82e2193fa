"""The scripted tour: every dataset of the shared data folder through the command line, as a new user would.

Each dataset runs ``audit`` (where it has annotations) and ``subgroups``, with a prediction file or a ``--model``,
in-process through :func:`aif360_subjective.cli.main`, writing an HTML report. Every run must exit with 0, print no
traceback, and tell the same story in the console and in the report (the worst-served group, the significantly
disadvantaged subgroups). The runs are kept small (a dev split, a 20% held-out share, 100 bootstrap replicates) so
that the tour takes about a minute.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import main

pytestmark = [pytest.mark.data, pytest.mark.slow, pytest.mark.filterwarnings("ignore")]

FAST_AUDIT = ["--n-boot", "100", "--test-size", "0.2"]
FAST_SUBGROUPS = ["--test-size", "0.2", "--n-clusters", "6"]

#: (id, data path relative to the shared data folder, dataset options, predictions: "--model X" or a file maker)
#: Every annotation dataset: audit and subgroups; the tables (COMPAS, Adult): subgroups.
ANNOTATION_DATA = [
    ("popquorn", "popquorn", []),
    ("hs-brexit", "lewidi2023/HS-Brexit", []),
    ("armis", "lewidi2023/ArMIS", []),
    ("md-agreement", "lewidi2023/MD-Agreement", ["--split", "dev"]),
    ("convabuse", "lewidi2023/ConvAbuse", ["--split", "dev", "--positive-labels", "-3", "-2", "-1"]),
    ("csc", "csc", ["--split", "dev", "--positive-from", "4"]),
    ("multipico", "multipico", ["--split", "dev"]),
    ("wikipedia", "wikipedia_talk", []),
]


def _run(capsys, argv: list[str]) -> tuple[str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    assert code == 0, f"exit {code}: {err}"
    return out, err


def _html_text(path: Path) -> str:
    """The report's visible text (tags dropped, entities decoded, spaces collapsed)."""
    raw = path.read_text(encoding="utf-8")
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


def _console_groups(out: str) -> list[tuple[str, float]]:
    """(group, performance) of the console's ``Groups:`` table."""
    block = out.split("Groups:", 1)[1].strip().splitlines()
    header = block[0].split()
    from_end = len(header) - header.index("performance")  # the group label may hold spaces (``Man & Asian``)
    rows = []
    for line in block[2:]:
        if not line.strip():
            break
        fields = line.split()
        rows.append((" ".join(fields[:len(fields) - len(header)]), float(fields[-from_end])))
    assert rows, out
    return rows


def _worst_console_group(out: str) -> tuple[str, float]:
    """The group with the lowest performance in the console (accuracy: higher is better)."""
    return min(_console_groups(out), key=lambda r: r[1])


def _significant_console_subgroups(out: str) -> list[str]:
    """The subgroups the console lists as significantly disadvantaged (empty when it says there is none)."""
    heading = next((h for h in ("significantly disadvantaged by statistical parity (q <",
                                "significantly disadvantaged by statistical parity (adjusted p <") if h in out), None)
    if heading is None:
        assert "No entropy-based subgroup is significantly disadvantaged" in out, out
        return []
    table = out.split(heading, 1)[1].splitlines()[2:]
    found = []
    for line in table:
        if not line.strip():
            break
        match = re.search(r"\d+\s+\d+\s+[-\d.]+\s+[\d,]+\s+(.+?)\s{2,}", line)
        if match:
            found.append(match.group(1))
    return found


@pytest.fixture(scope="module")
def data(shared_data) -> Path:
    return shared_data


@pytest.mark.parametrize("name, rel, options", ANNOTATION_DATA, ids=[c[0] for c in ANNOTATION_DATA])
def test_audit_every_annotation_dataset_with_a_model(capsys, tmp_path, data, name, rel, options):
    report = tmp_path / f"{name}.html"
    out, _ = _run(capsys, ["audit", str(data / rel), *options, "--model", "majority", *FAST_AUDIT,
                           "--out", str(report)])
    assert "favourable label: 0" in out
    # the text datasets: the model learns from the text and predicts both labels (no constant classifier)
    assert "trained on TF-IDF of the item text" in out
    assert "constant classifier" not in out
    text = _html_text(report)
    worst, value = _worst_console_group(out)
    # console and report agree on the worst-served group and its performance
    assert worst in text, (worst, name)
    assert f"{value:.3f}" in text
    summary = out.split("Opinion-exclusion audit (", 1)[1].splitlines()
    unfairness = re.search(r"Model 1 \(majority vote\)\s+([\d.]+ \[[\d.]+, [\d.]+\])", "\n".join(summary))
    assert unfairness is not None, out
    assert unfairness.group(1) in text


@pytest.mark.parametrize("name, rel, options", ANNOTATION_DATA, ids=[c[0] for c in ANNOTATION_DATA])
def test_subgroups_every_annotation_dataset_with_a_model(capsys, tmp_path, data, name, rel, options):
    report = tmp_path / f"{name}.html"
    out, _ = _run(capsys, ["subgroups", str(data / rel), *options, "--model", "majority", *FAST_SUBGROUPS,
                           "--out", str(report)])
    assert "Summary" in out and "constant classifier" not in out
    text = _html_text(report)
    for subgroup in _significant_console_subgroups(out):
        assert subgroup in text, (subgroup, name)


def _item_predictions(ds_path: Path, tmp_path: Path, reader) -> Path:
    """A prediction file keyed by item: 1 for every other item (both labels present)."""
    items = pd.unique(reader(ds_path))
    path = tmp_path / "pred.csv"
    pd.DataFrame({"item": items, "prediction": np.arange(len(items)) % 2}).to_csv(path, index=False)
    return path


def test_subgroups_with_a_prediction_file_on_popquorn_and_hs_brexit(capsys, tmp_path, data):
    """Once a traceback ('Namespace' object has no attribute 'item_col')."""
    pq = _item_predictions(data / "popquorn" / "offensiveness_raw_data.csv", tmp_path,
                           lambda p: pd.read_csv(p, usecols=["instance_id"])["instance_id"])
    out, _ = _run(capsys, ["subgroups", str(data / "popquorn"), "--predictions", str(pq), "--n-clusters", "6"])
    assert "predictions from pred.csv (column 'prediction', one per item)" in out
    from aif360_subjective.datasets import LeWiDiDataset

    hs = data / "lewidi2023" / "HS-Brexit"
    hs_pred = _item_predictions(hs, tmp_path, lambda p: LeWiDiDataset(p).item_ids)
    out, _ = _run(capsys, ["subgroups", str(hs), "--predictions", str(hs_pred), "--n-clusters", "2"])
    assert "1 attribute" in out


def test_audit_ordinal_ratings_with_mae(capsys, tmp_path, data):
    """POPQUORN's 1-5 ratings: predicted ratings in a file, --performance mae; the binary view follows the data's
    threshold. Predicting every annotator's own rating gives MAE 0 in every group."""
    raw = pd.read_csv(data / "popquorn" / "offensiveness_raw_data.csv")
    path = tmp_path / "ratings.csv"
    raw.rename(columns={"instance_id": "item", "user_id": "annotator", "offensiveness": "prediction"})[
        ["item", "annotator", "prediction"]].to_csv(path, index=False)
    out, _ = _run(capsys, ["audit", str(data / "popquorn"), "--predictions", str(path), "--performance", "mae",
                           "--ci", "none"])
    assert "Opinion-exclusion audit (mae, grouping adr)" in out
    perf = [p for _, p in _console_groups(out)]
    assert len(perf) == 5 and all(p == 0.0 for p in perf), out
    # one point above every rating: every annotator's MAE is exactly 1 (the groups, from the annotators' own labels,
    # do not move)
    frame = pd.read_csv(path)
    frame.assign(prediction=frame["prediction"] + 1).to_csv(path, index=False)
    out, _ = _run(capsys, ["audit", str(data / "popquorn"), "--predictions", str(path), "--performance", "mae",
                           "--ci", "none"])
    perf = [p for _, p in _console_groups(out)]
    assert len(perf) == 5 and all(p == 1.0 for p in perf), out


def test_audit_severity_labels_with_mae(capsys, tmp_path, data):
    """ConvAbuse's severity -3..1 through --positive-labels: the raw labels as predicted ratings give MAE 0."""
    from aif360_subjective.datasets import LeWiDiDataset

    folder = data / "lewidi2023" / "ConvAbuse"
    ds = LeWiDiDataset(folder, split="dev", positive_labels={-3, -2, -1})
    path = tmp_path / "severity.csv"
    pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids,
                  "prediction": pd.to_numeric(ds.annotation_info["raw_label"]).to_numpy()}).to_csv(path, index=False)
    out, _ = _run(capsys, ["audit", str(folder), "--split", "dev", "--positive-labels", "-3", "-2", "-1",
                           "--predictions", str(path), "--performance", "mae", "--ci", "none", "--bins", "2"])
    perf = [p for _, p in _console_groups(out)]
    assert perf and all(p == 0.0 for p in perf), out


def test_tables_compas_and_adult(capsys, tmp_path, data):
    out, _ = _run(capsys, ["subgroups", str(data / "compas" / "fairvis_compas_out.csv"), "--label-col", "class",
                           "--prediction-col", "out", "--n-clusters", "6", "--out", str(tmp_path / "c.html")])
    text = _html_text(tmp_path / "c.html")
    for subgroup in _significant_console_subgroups(out):
        assert subgroup in text
    out, _ = _run(capsys, ["subgroups", str(data / "compas" / "compas-scores-two-years.csv"), "--label-col",
                           "two_year_recid", "--model", "logistic", "--columns", "sex", "age", "race",
                           "priors_count", "--n-clusters", "6"])
    assert "logistic regression on 4 attributes" in out and "constant classifier" not in out
    out, _ = _run(capsys, ["subgroups", str(data / "adult"), "--model", "logistic", "--test-size", "0.1",
                           "--columns", "age", "sex", "race", "education", "hours-per-week", "--n-clusters", "6"])
    assert "Read Adult adult.data + adult.test: 48,842 rows" in out
    assert "favourable label: '>50K'" in out and "constant classifier" not in out


def test_a_constant_classifier_is_warned_in_console_and_report(capsys, tmp_path, data):
    path = tmp_path / "zeros.csv"
    ids = pd.read_csv(data / "popquorn" / "offensiveness_raw_data.csv", usecols=["instance_id"])["instance_id"]
    pd.DataFrame({"item": pd.unique(ids), "prediction": 0}).to_csv(path, index=False)
    report = tmp_path / "r.html"
    out, _ = _run(capsys, ["audit", str(data / "popquorn"), "--predictions", str(path), "--n-boot", "100",
                           "--out", str(report)])
    assert "Warning: zeros predicts 0 for all 13,036 predictions: a constant classifier" in out
    assert "zeros predicts 0 for all 13,036 predictions: a constant classifier" in _html_text(report)


def test_annotator_aware_without_attributes_points_to_the_text_model(capsys, data):
    assert main(["audit", str(data / "lewidi2023" / "ConvAbuse"), "--split", "dev", "--positive-labels", "-3", "-2",
                 "-1", "--model", "annotator-aware"]) == 2
    assert "this dataset has neither; --model majority learns from the item text" in capsys.readouterr().err


def test_audit_refuses_adult_and_a_mistyped_path(capsys, data):
    assert main(["audit", str(data / "adult"), "--model", "majority"]) == 2
    assert "no annotations" in capsys.readouterr().err
    assert main(["audit", str(data / "popquorm"), "--model", "majority"]) == 2
    assert f"no such file or folder: {data / 'popquorm'}" in capsys.readouterr().err


def test_rating_scales_are_named_in_command_line_words(capsys, data):
    conv = str(data / "lewidi2023" / "ConvAbuse")
    assert main(["audit", conv, "--split", "dev", "--model", "majority"]) == 2
    err = capsys.readouterr().err
    assert "pass --positive-from N (rating >= N means 1) or --positive-labels V [V ...]" in err
    assert "positive_from=" not in err and "positive_labels=" not in err
    assert main(["audit", conv, "--positive-from", "0", "--positive-labels", "-1", "--model", "majority"]) == 2
    assert "give --positive-from or --positive-labels, not both" in capsys.readouterr().err
    assert main(["audit", str(data / "popquorn"), "--positive-labels", "5", "--model", "majority"]) == 2
    assert "--positive-labels applies to --format lewidi, not popquorn" in capsys.readouterr().err
    assert main(["audit", str(data / "popquorn"), "--performance", "mae", "--model", "majority"]) == 2
    assert "--model predicts labels; give predicted ratings with --predictions FILE" in capsys.readouterr().err
