"""The one subgroup report recipe (``report/subgroup_recipe.py``) the command line and the dashboard share, and
the report's kind questions it reads (``has_clusters``, ``clustering_kinds``, ``has_mined_patterns``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.report.subgroup_recipe import entropy_pattern_text, subgroup_recipe, subgroup_report


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"a": rng.choice(["x", "y"], n), "b": rng.integers(0, 3, n)})
    y = rng.integers(0, 2, n)
    yhat = np.where(X["a"] == "x", 0, y)  # a=x never gets the favourable prediction 1
    return X, y, yhat


@pytest.mark.parametrize("discovery, kinds, clusters, mined", [
    ("both", ("cluster", "entropy", "pattern"), True, True),
    ("asdf", ("cluster", "entropy"), True, False),
    ("patterns", ("pattern",), False, True),
])
def test_the_reports_kind_questions(table, discovery, kinds, clusters, mined):
    X, y, yhat = table
    k = {} if discovery == "patterns" else {"n_clusters": 3}  # no clustering option without a clustering
    rep = detect_subgroups(X, y, yhat, discovery=discovery, random_state=0, n_permutations=99, **k)
    assert rep.kinds == kinds
    assert rep.has_clusters is clusters and rep.has_mined_patterns is mined
    assert rep.clustering_kinds == (("cluster", "entropy") if clusters else ())
    texts = entropy_pattern_text(rep)
    assert (texts is not None) is clusters
    recipe = subgroup_recipe(rep, X, y, yhat, random_state=0)
    assert recipe.report is rep and recipe.answer.facts["significant findings"] != "0"
    report = subgroup_report(recipe, "T", ["summary"], n=3)
    facts = report.facts
    assert ("clusters" in facts) is clusters
    if clusters:
        assert str(facts["clusters"]) == "3"
        assert texts.equals(recipe.pattern_text)


def test_another_task_gets_no_clusterer_comparison(table):
    X, _, _ = table
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, len(X))
    rep = detect_subgroups(X, y, np.clip(y + rng.integers(-1, 2, len(X)), 1, 5), task="ordinal", discovery="asdf",
                           n_clusters=2, random_state=0, n_permutations=99)
    recipe = subgroup_recipe(rep, X, y, y, random_state=0)
    # even a lopsided clustering is not compared with the other clusterers: they score binary rates
    assert recipe.alternatives is None and recipe.pattern_text is not None
    assert "Task: task='ordinal' (given)." in recipe.answer.lines
