"""A tour of real datasets through the command line: the answer block comes first, the console and the HTML
report name the same worst-served group (audit) and the same significant findings (subgroups), no traceback.

Predictions are made here from each dataset's own majority vote with a seeded share flipped (a fixed, imperfect
model), so the tour depends on no model training.
"""

from __future__ import annotations

import html as html_lib
import re

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import main

pytestmark = [pytest.mark.data, pytest.mark.slow]


def _run(capsys, *argv) -> str:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in out + err
    return out


def _page(path) -> str:
    return _words(html_lib.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))))


def _words(text: str) -> str:
    """Whitespace (no-break spaces and line breaks included) as single spaces."""
    return re.sub(r"\s+", " ", text)


def _predictions(ds, path, seed=0):
    """One prediction per item: the majority vote, a seeded 20% of the items flipped."""
    maj = ds.majority_vote()
    labels = maj.labels.ravel().astype(int)
    flip = np.random.default_rng(seed).random(len(labels)) < 0.2
    fav, unfav = int(maj.favorable_label), int(maj.unfavorable_label)
    pred = np.where(flip, np.where(labels == fav, unfav, fav), labels)
    pd.DataFrame({"item": list(maj.instance_names), "prediction": pred}).to_csv(path, index=False)
    return path


def _answer(out: str) -> list[str]:
    lines = [line for line in out.splitlines() if not line.startswith("Read ")]
    assert lines[0] == "Answer:"
    end = lines.index("")
    return lines[1:end]


@pytest.mark.parametrize("name", ["popquorn", "hs-brexit", "multipico"])
def test_audit_tour(capsys, tmp_path, shared_data, name):
    from aif360_subjective.datasets import LeWiDiDataset, PopquornDataset

    if name == "popquorn":
        folder = shared_data / "popquorn"
        ds = PopquornDataset(folder)
        extra = ["--grouping", "demographic", "--attributes", "gender", "race"]
    elif name == "hs-brexit":
        folder = shared_data / "lewidi2023" / "HS-Brexit"
        ds = LeWiDiDataset(folder)
        extra = ["--grouping", "demographic"]
    else:
        folder = shared_data / "multipico"
        ds = LeWiDiDataset(folder, split="dev")
        extra = ["--split", "dev"]
    pred = _predictions(ds, tmp_path / "pred.csv")
    out_html = tmp_path / "audit.html"
    out = _run(capsys, "audit", folder, "--predictions", pred, *extra, "--n-boot", "200", "--out", out_html)
    answer = _answer(out)
    worst = re.match(r"Served worst: (.+?) \(\d[\d,]* annotators?\)", answer[0])
    assert worst, answer[0]
    page = _page(out_html)
    assert page.index("Answer") < page.index("Groups ranked from the worst served")
    for sentence in answer:
        assert _words(sentence) in page  # the same answer, the same worst group
    if name == "hs-brexit":  # the groups as the data names them
        assert worst.group(1) in ("target group", "control group")
        assert "group1" not in page.replace("published as group1", "")


def test_subgroups_tour_compas(capsys, tmp_path, shared_data):
    data = shared_data / "compas" / "fairvis_compas_out.csv"
    out_html = tmp_path / "sg.html"
    out = _run(capsys, "subgroups", data, "--label-col", "class", "--prediction-col", "out", "--n-clusters", "12",
               "--out", out_html)
    answer = _answer(out)
    page = _page(out_html)
    for sentence in answer:
        if sentence.startswith("Note: "):  # a caveat: a warning box in the report
            assert _words(sentence[len("Note: "):]) in page
        elif not re.match(r"^\s*(#|\d|side)", sentence):  # not a row of the findings table
            assert _words(sentence) in page
    n = int(re.match(r"([\d,]+) significant finding", answer[0]).group(1).replace(",", ""))
    # every finding the console lists is in the report's answer table
    rows = [line for line in out.splitlines() if re.match(r"^\d+\s+(disadvantaged|favoured)\s", line)]
    assert len(rows) == min(n, 20)
    for row in rows:
        side = row.split()[1]
        assert side in page
