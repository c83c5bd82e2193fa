"""``audit --discover``: whose opinions are excluded, from the command line, equal to the library's answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import main
from aif360_subjective.cli._common import cli_words
from aif360_subjective.cli.audit import DISCOVER_FLAGS
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric

COLS = ["--item-col", "item", "--annotator-col", "annotator", "--label-col", "label", "--prediction-col", "pred"]


@pytest.fixture()
def files(tmp_path):
    small = make_subjective_dataset(n_items=150, n_annotators=40, annotations_per_item=6, random_state=4)
    df = pd.DataFrame({"item": small.item_ids, "annotator": small.annotator_ids,
                       "label": small.original_labels().astype(int)})
    rng = np.random.default_rng(0)
    df["pred"] = np.where(rng.random(len(df)) < 0.8, df["label"], 1 - df["label"])
    table = small.annotators.drop(columns="kind")
    df.to_csv(tmp_path / "annotations.csv", index=False)
    table.rename_axis("annotator").reset_index().to_csv(tmp_path / "annotators.csv", index=False)
    return tmp_path / "annotations.csv", tmp_path / "annotators.csv", df, table


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_discover_matches_library(capsys, files):
    ann_csv, ann_table, df, table = files
    report = ann_csv.parent / "audit.html"
    code, out, err = _run(capsys, "audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--discover",
                          "--min-annotators", "3", "--adjust", "items", "--n-permutations", "199", "--out", str(report))
    assert code == 0, err
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=1, unfavorable_label=0,
                               annotators=table)
    m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()))
    ex = m.excluded_groups(min_annotators=3, adjust="items", n_permutations=199, random_state=0)
    line = "Answer (whose opinions are excluded): " + cli_words(ex.sentence(), DISCOVER_FLAGS)
    assert out[out.index("Answer"):].startswith(line)  # after the progress lines, the question asked, answered
    assert out.index(line) < out.index("The audit by adr grouping:")  # the ADR audit follows as its context
    assert "\nAnswer:" not in out  # one answer block
    assert "--adjust items" in out  # the summary names the command's option, not adjust='items'
    html = report.read_text(encoding="utf-8")
    assert "Whose opinions are excluded" in html
    assert cli_words(ex.sentence(), DISCOVER_FLAGS).split(":")[0] in html


def test_item_adjusted_table_says_which_columns_are_adjusted(capsys, files):
    ann_csv, ann_table, df, table = files
    # the model errs on half of the women's annotations: a group served worse, item-adjusted too
    women = df["annotator"].map(table["gender"]).eq("female").to_numpy()
    flip = women & (np.random.default_rng(1).random(len(df)) < 0.5)
    df.assign(pred=np.where(flip, 1 - df["label"], df["pred"])).to_csv(ann_csv, index=False)
    code, out, err = _run(capsys, "audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--discover",
                          "--min-annotators", "3", "--adjust", "items", "--n-permutations", "199", "--ci", "none")
    assert code == 0, err
    assert "Served worse: gender=female" in out
    assert "gap and its bounds item-adjusted, performance columns raw:" in out
    assert "gap (item-adjusted)" in out and "performance (raw)" in out


def test_discover_balance_reaches_the_result(capsys, files):
    ann_csv, ann_table, df, table = files
    code, out, err = _run(capsys, "audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--discover",
                          "--min-annotators", "3", "--n-permutations", "199", "--balance", "none", "--ci", "none")
    assert code == 0, err
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=1, unfavorable_label=0,
                               annotators=table)
    m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()))
    ex = m.excluded_groups(min_annotators=3, n_permutations=199, random_state=0, balance="none")
    default = m.excluded_groups(min_annotators=3, n_permutations=199, random_state=0)
    assert ex.critical_value != default.critical_value
    assert f"critical value {ex.critical_value:.3f}" in out
    assert "--balance none: one threshold for every candidate" in out  # the summary in the command's words


def test_discover_step_down_reaches_the_result(capsys, files):
    ann_csv, ann_table, df, table = files
    code, out, err = _run(capsys, "audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--discover",
                          "--min-annotators", "3", "--n-permutations", "199", "--step-down", "--ci", "none")
    assert code == 0, err
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=1, unfavorable_label=0,
                               annotators=table)
    m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()))
    ex = m.excluded_groups(min_annotators=3, n_permutations=199, random_state=0, step_down=True)
    default = m.excluded_groups(min_annotators=3, n_permutations=199, random_state=0)
    assert ex.step_down and not default.step_down and ex is not default  # the metric caches each apart
    line = "Answer (whose opinions are excluded): " + cli_words(ex.sentence(), DISCOVER_FLAGS)
    assert out[out.index("Answer"):].startswith(line)
    assert "step-down p-values (each candidate against the candidates not more significant than it)" in out
    c, d = default.candidates(), ex.candidates()
    assert (d["p_adjusted"] <= c["p_adjusted"] + 1e-12).all()
    assert d["p_adjusted"].min() == c["p_adjusted"].min()
    pd.testing.assert_series_equal(d["ci_low"], c["ci_low"])  # the single step's intervals either way


@pytest.mark.parametrize("extra, match", [
    (["--attributes", "height"], "--attributes 'height' is not an annotator attribute"),
    (["--performance", "f1"], "--performance f1 is not one"),
    (["--min-annotators", "1"], "--min-annotators must be"),
])
def test_discover_errors(capsys, files, extra, match):
    ann_csv, ann_table, _, _ = files
    code, out, err = _run(capsys, "audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--discover",
                          *extra)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and match in lines[0], err


def test_attributes_need_demographic_or_discover(capsys, files):
    ann_csv, ann_table, _, _ = files
    code, _, err = _run(capsys, "audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--attributes", "age")
    assert code == 2 and "--grouping demographic or --discover" in err


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize(("adjust", "answer"), [
    ((), "Cannot answer: under 5% of every group's annotations are on items someone outside the group also "
         "labelled (most items carry one annotation)"),
    (("--adjust", "items"), "Cannot answer: each of the 18 annotators has one scored annotation (after the item "
                            "adjustment)"),
])
def test_wikipedia_talk_cannot_answer(capsys, shared_data, adjust, answer):
    # issue 41: 884 of 893 items carry one annotation; the search stated detectable gaps (0.091; 0.581 to 1.757)
    code, out, err = _run(capsys, "audit", str(shared_data / "wikipedia_talk"), "--model", "majority", "--discover",
                          *adjust, "--ci", "none", "--n-permutations", "199")
    assert code == 0, err
    first = out[out.index("Answer"):]
    assert first.startswith("Answer (whose opinions are excluded): " + answer)
    assert "would have been found" not in first.split("\n")[0]


@pytest.mark.data
@pytest.mark.slow
def test_hs_brexit_cannot_decide(capsys, shared_data):
    code, out, err = _run(capsys, "audit", str(shared_data / "lewidi2023" / "HS-Brexit"), "--model", "majority",
                          "--discover", "--min-annotators", "3", "--ci", "none")
    assert code == 0, err
    first = out[out.index("Answer"):]  # after the progress lines, the answer to the question asked
    assert first.startswith("Answer (whose opinions are excluded): Cannot decide: with 6 annotators the smallest "
                            "attainable adjusted p-value is 0.1")


def test_discover_table_writes_the_floor_as_a_bound(capsys, tmp_path):
    # one group served far worse: its adjusted p is the floor 1/(B + 1), printed "≤ 0.005", never "0.005"
    rng = np.random.default_rng(3)
    n = 60
    table = pd.DataFrame({"annotator": [f"p{i:02d}" for i in range(n)], "group": rng.choice(["a", "b", "c"], n)})
    who = np.repeat(np.arange(n), 40)
    item = np.concatenate([rng.choice(200, 40, replace=False) for _ in range(n)])
    label = rng.integers(0, 2, len(who))
    ok = rng.random(len(who)) < 0.9 - 0.4 * (table["group"].to_numpy() == "c")[who]
    df = pd.DataFrame({"item": item, "annotator": table["annotator"].to_numpy()[who], "label": label,
                       "pred": np.where(ok, label, 1 - label)})
    df.to_csv(tmp_path / "a.csv", index=False)
    table.to_csv(tmp_path / "t.csv", index=False)
    code, out, err = _run(capsys, "audit", str(tmp_path / "a.csv"), *COLS, "--annotators", str(tmp_path / "t.csv"),
                          "--discover", "--n-permutations", "199", "--ci", "none")
    assert code == 0, err
    assert "adjusted p ≤ 0.005 (the smallest a max-T with B = 199 permutations can give)" in out
    row = next(line for line in out.splitlines() if line.startswith("group=c"))
    assert "≤ 0.005" in row


def test_n_perm_still_works_with_a_note(capsys, files):
    ann_csv, ann_table, _, _ = files
    base = ("audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--discover", "--min-annotators", "3",
            "--ci", "none")
    code, old_out, err = _run(capsys, *base, "--n-perm", "199")
    assert code == 0, err
    assert "Note: --n-perm is deprecated: use --n-permutations 199" in err
    code, new_out, err = _run(capsys, *base, "--n-permutations", "199")
    assert code == 0 and "deprecated" not in err
    assert old_out == new_out and "199 permutations of annotators" in new_out
