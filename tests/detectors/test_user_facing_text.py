"""What reaches the user from subgroup discovery: no pandas warnings, blank strings counted as missing, plurals,
class names in their own case (issue 41)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from aif360_subjective.detectors.lopsided import lopsidedness

from aif360_subjective.cli import main
from aif360_subjective.detectors import detect_subgroups


def test_no_pandas_warning_with_200_classes_or_a_regression_clustering():
    rng = np.random.default_rng(0)
    n = 1500
    X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.normal(size=n)})
    classes = np.array([f"c{i}" for i in range(200)])
    t = rng.choice(classes, n)
    p = np.where(rng.random(n) < 0.7, t, rng.choice(classes, n))
    y = rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PerformanceWarning (a fragmented frame), Pandas4Warning (drop inplace)
        rep = detect_subgroups(X, t, p, task="multiclass", discovery="patterns", random_state=0, n_permutations=19)
        rep.findings(0.05)
        reg = detect_subgroups(X, y, y + rng.normal(size=n), task="regression", n_clusters=3, random_state=0,
                               n_permutations=19)
    assert len(rep.candidate_metrics.names) == 201  # accuracy error and the 200 one-vs-rest parities
    assert not any(str(i).startswith("fairness_separation") for i in reg.validity.index)


@pytest.mark.parametrize("blank", ["", " ", "\t "])
def test_empty_and_blank_strings_are_missing_values_counted(blank):
    n = 40
    X = pd.DataFrame({"region": ["north", "south", blank, "east"] * 10, "x": np.arange(n) % 3})
    with pytest.raises(ValueError, match=r"X contains missing values \(column: count\) \{'region': 10\}, of which "
                                         r"10 empty or blank strings \{'region': 10\}"):
        detect_subgroups(X, np.arange(n) % 2, (np.arange(n) // 2) % 2, discovery="patterns")


def test_blank_strings_and_nan_are_counted_together():
    n = 40
    X = pd.DataFrame({"region": pd.Categorical(["a", "b", " ", "a"] * 10), "v": [1.0, np.nan, 2.0, 3.0] * 10})
    with pytest.raises(ValueError, match=r"\{'region': 10, 'v': 10\}, of which 10 empty or blank strings"):
        detect_subgroups(X, np.arange(n) % 2, (np.arange(n) // 2) % 2, discovery="patterns")


def test_cli_refuses_blank_feature_values_with_counts(tmp_path, capsys):
    n = 60
    df = pd.DataFrame({"region": ["north", " ", "south"] * 20, "label": np.arange(n) % 2,
                       "pred": (np.arange(n) // 2) % 2})
    df.to_csv(tmp_path / "t.csv", index=False)
    assert main(["subgroups", str(tmp_path / "t.csv"), "--label-col", "label", "--prediction-col", "pred"]) == 2
    err = capsys.readouterr().err
    assert "feature columns ['region'] have missing values (column: count) {'region': 20}, of which 20 empty or " \
           "blank strings" in err


def test_one_cluster_is_singular():
    # DBSCAN on identical rows finds one cluster: the report says "1 cluster", not "1 clusters"
    n = 60
    X = pd.DataFrame({"a": ["x"] * n, "b": [1.0] * n})
    rep = detect_subgroups(X, np.arange(n) % 2, (np.arange(n) // 3) % 2, clustering="dbscan", discovery="asdf",
                           random_state=0)
    assert rep.n_clusters == 1
    from aif360_subjective.report.subgroup_sections import _summary_section

    text = " ".join(getattr(b, "text", "") for b in _summary_section(rep, False).blocks)
    assert "clustered into 1 cluster." in text and "1 clusters" not in text
    reason = lopsidedness(np.r_[np.zeros(1, dtype=int), np.ones(1, dtype=int)])["reason"]
    assert "clusters" not in reason or "2 clusters" in reason


def test_console_keeps_the_case_of_class_names(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 400
    classes = np.array(["Dog", "dog", "cat"])
    t = rng.choice(classes, n)
    df = pd.DataFrame({"region": rng.choice(["north", "south"], n), "label": t,
                       "pred": np.where(rng.random(n) < 0.8, t, rng.choice(classes, n))})
    df.to_csv(tmp_path / "t.csv", index=False)
    main(["subgroups", str(tmp_path / "t.csv"), "--label-col", "label", "--prediction-col", "pred", "--task",
          "multiclass"])
    out = capsys.readouterr().out
    assert "statistical parity (class Dog)" in out and "statistical parity (class dog)" in out
