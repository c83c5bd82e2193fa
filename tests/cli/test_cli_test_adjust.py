"""``audit --test-adjust``: the item adjustment of the test of equal service behind the verdict, from the command
line, equal to the library's verdict (issue 29)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective._param_tables import OPINION_PARAMS
from aif360_subjective.cli import build_parser, main
from aif360_subjective.cli.audit import console_words
from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.metrics import OpinionExclusionMetric

COLS = ["--item-col", "item", "--annotator-col", "annotator", "--label-col", "label", "--prediction-col", "pred"]


@pytest.fixture()
def batches(tmp_path):
    """Two groups of 12 annotators, each labelling mostly its own batch of items; group B's batch is harder (the
    model is right less often there), a third of the items shared."""
    rng = np.random.default_rng(3)
    shared, own = np.arange(20), {"A": 100 + np.arange(40), "B": 200 + np.arange(40)}
    hard = {i: (0.55 if i >= 200 else 0.85) for i in [*shared, *own["A"], *own["B"]]}
    rows = []
    for g in ("A", "B"):
        for a in range(12):
            for i in np.concatenate([shared, own[g]]):
                right = rng.random() < hard[int(i)]
                rows.append((f"i{i}", f"{g}{a}", 1, int(right)))
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "pred"])
    table = pd.DataFrame({"annotator": [f"{g}{a}" for g in "AB" for a in range(12)],
                          "team": [g for g in "AB" for _ in range(12)]})
    df.to_csv(tmp_path / "annotations.csv", index=False)
    table.to_csv(tmp_path / "annotators.csv", index=False)
    return tmp_path / "annotations.csv", tmp_path / "annotators.csv", df, table


def _verdict(df, table, adjust):
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]], favorable_label=1, unfavorable_label=0,
                               annotators=table.set_index("annotator"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m = OpinionExclusionMetric(ds, ds.with_predictions(df["pred"].to_numpy()), grouping="demographic")
        return m.verdict(ci=0.95, n_boot=200, random_state=5, adjust=adjust)


@pytest.mark.parametrize("adjust", ["none", "items"])
def test_test_adjust_gives_the_librarys_verdict(capsys, batches, adjust):
    ann_csv, ann_table, df, table = batches
    argv = ["audit", str(ann_csv), *COLS, "--annotators", str(ann_table), "--grouping", "demographic",
            "--n-boot", "200", "--seed", "5"] + (["--test-adjust", adjust] if adjust != "none" else [])
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    verdict = _verdict(df, table, adjust)
    assert f"Test of equal service: {console_words(verdict)}." in out
    if adjust == "none":  # the harder batch passes for a group served worse ...
        assert verdict.startswith("B is served worse than the other groups")
        # the test's advice names the command's option
        assert "the groups labelled partly different items" in err and "--test-adjust items compares" in err
        assert "adjust='items'" not in err
    else:  # ... which the item adjustment takes out
        assert verdict.startswith("no evidence that any group is served worse")


def test_test_adjust_choices_and_help_come_from_the_table(capsys):
    rule = OPINION_PARAMS["test_adjust"]
    assert rule.choices == ("none", "items") and rule.default == "none"
    with pytest.raises(SystemExit):
        main(["audit", "x.csv", "--test-adjust", "rows"])
    err = capsys.readouterr().err
    assert "--test-adjust" in err and "'none', 'items'" in err
    commands = next(a for a in build_parser()._actions if getattr(a, "choices", None) and "audit" in a.choices)
    action = next(a for a in commands.choices["audit"]._actions if "--test-adjust" in a.option_strings)
    assert tuple(action.choices) == rule.choices and action.default == rule.default
    assert action.help.startswith(rule.help) and action.help.endswith("(default: none)")


def test_console_words_names_the_commands_option():
    assert console_words("adjust='items' compares each annotation") == "--test-adjust items compares each annotation"
    assert console_words("test_adjust='items' too") == "--test-adjust items too"


def test_answer_of_a_function_face_result_keeps_its_own_test(batches):
    from aif360_subjective.opinion.result_audit import ResultAudit
    from aif360_subjective.report.answer import opinion_answer
    from aif360_subjective.sklearn.metrics import opinion_exclusion

    _, _, df, table = batches
    groups = table.set_index("annotator")["team"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = opinion_exclusion(df["label"].to_numpy(), df["pred"].to_numpy(), item_ids=df["item"].to_numpy(),
                                annotator_ids=df["annotator"].to_numpy(), grouping=groups, ci=0.95, n_boot=200,
                                test_adjust="items", random_state=5)
        text = opinion_answer(res, n_boot=200, random_state=5).text()
        assert "Test of equal service: no evidence that any group is served worse" in text
        assert opinion_answer(res, n_boot=200, random_state=5, test_adjust="items").text() == text
        with pytest.raises(ValueError, match="adjust='none', but this result's test was run with "
                                             "test_adjust='items'"):
            ResultAudit(res).verdict(adjust="none")
