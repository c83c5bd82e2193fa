"""The command line's answer block: printed first, the same sentences and findings as the HTML report, computed
from the library's numbers; and the console sentences that used to mislead."""

from __future__ import annotations

import html as html_lib
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import main
from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.report.answer import opinion_answer, subgroup_answer
from aif360_subjective.report.sections import pattern_texts, whole_numbers_as_int

CSV_COLS = ["--item-col", "item", "--annotator-col", "annotator", "--label-col", "label", "--prediction-col", "pred"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _page_text(path) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_audit_prints_the_answer_first_and_the_report_says_the_same(capsys, tmp_path, annotations_csv):
    path, df, _ = annotations_csv
    out_html = tmp_path / "audit.html"
    out = _run(capsys, "audit", path, *CSV_COLS, "--favorable-label", "1", "--n-boot", "200", "--out", out_html)
    lines = [line for line in out.splitlines() if not line.startswith("Read ")]
    assert lines[0] == "Answer:"
    # ids as the command reads them: as text (007 is not 7)
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]].astype({"item": str, "annotator": str}),
                               favorable_label=1, unfavorable_label=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()))
    answer = opinion_answer({"the predictions in column 'pred' of annotations.csv": m}, n_boot=200, random_state=0)
    for sentence in answer.lines:
        assert sentence in out
    page = _page_text(out_html)
    for sentence in answer.lines:
        assert sentence in page
    assert page.index("Answer") < page.index("Groups ranked from the worst served") < page.index("Grouping details")
    assert "favourable label 1" in page
    # the first card names who is served worst (it used to be "0 — favourable label")
    labels = re.findall(r'<div class="fact-label">([^<]*)</div>', out_html.read_text(encoding="utf-8"))
    assert labels[0] == "served worst" and "favourable label" not in labels


def test_single_annotator_count_is_taken_after_merging(capsys, tmp_path, annotations_csv):
    """--min-group-size 5 used to print "n of m groups hold a single annotator" counted before merging."""
    path, df, _ = annotations_csv
    people = pd.DataFrame({"annotator": pd.unique(df["annotator"])})
    people["age"] = np.arange(len(people)) + 20  # one group per annotator before merging
    people.to_csv(tmp_path / "ages.csv", index=False)
    base = ["audit", path, *CSV_COLS, "--favorable-label", "1", "--annotators", tmp_path / "ages.csv", "--grouping",
            "demographic", "--ci", "none"]
    n = len(people)
    assert f"{n} of {n} groups hold a single annotator" in _run(capsys, *base)
    merged = _run(capsys, *base, "--min-group-size", "5")
    assert "a single annotator" not in merged  # the merged groups hold 5 or more


@pytest.mark.slow
def test_subgroups_console_and_report_list_the_same_findings(capsys, tmp_path, subgroup_csv):
    path, df = subgroup_csv
    out_html = tmp_path / "sg.html"
    out = _run(capsys, "subgroups", path, "--label-col", "y", "--prediction-col", "pred", "--favorable-label", "1",
               "--n-clusters", "6", "--out", out_html)
    rep = detect_subgroups(df[["sex", "age", "score"]], df["y"].to_numpy(), df["pred"].to_numpy(), pos_label=1,
                           n_clusters=6, random_state=0)
    texts = pattern_texts(whole_numbers_as_int(rep.patterns(all_columns=False)))
    answer = subgroup_answer(rep, pattern_text=texts)
    found = rep.findings()
    assert len(found)  # the planted subgroup is found
    lines = [line for line in out.splitlines() if not line.startswith("Read ")]
    assert lines[0] == "Answer:" and lines[1] == answer.lines[0]
    page = _page_text(out_html)
    for sentence in answer.lines:
        assert sentence in out and sentence in page
    for subgroup in answer.table["subgroup"]:
        assert subgroup in out and subgroup in page
    # the strongest disadvantaged finding, whatever its metric, is named in both
    assert "Most significantly disadvantaged: " in answer.lines[1]
    # the summary line no longer contradicts itself
    assert "means of absolute values; positive = subgroup disadvantaged" not in out
