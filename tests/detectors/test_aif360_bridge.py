"""detect_subgroups -> AIF360 (issue 33): a subgroup as BinaryLabelDatasets and group dicts, named as in the table,
whose AIF360 metrics are the report's values with the sign AIF360 uses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective._compat import import_aif360_quietly
from aif360_subjective.detectors import detect_subgroups, subgroup_to_aif360

import_aif360_quietly()
from aif360.datasets import BinaryLabelDataset  # noqa: E402
from aif360.metrics import ClassificationMetric  # noqa: E402


@pytest.fixture(scope="module")
def planted():
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({"race": rng.choice(["African-American", "Caucasian", "Hispanic"], n),
                      "sex": rng.choice(["Female", "Male"], n), "priors": rng.integers(0, 20, n)},
                     index=pd.Index([f"r{i}" for i in range(n)], name="person"))
    y = rng.choice(["no", "yes"], n)
    # the model withholds the favourable "no" from African-American men: a planted subgroup
    pred = np.where((X["race"] == "African-American") & (X["sex"] == "Male"), "yes", y)
    rep = detect_subgroups(X, y, pred, pos_label="no", n_clusters=4, random_state=0)
    return X, y, pred, rep


def test_hand_case_counts_and_names():
    # 6 rows; subgroup a=u (rows 0-2): truth favourable 1,1,0, predicted 1,0,0; rest: truth 1,0,1, predicted 1,1,1
    X = pd.DataFrame({"a": ["u", "u", "u", "v", "v", "v"], "b": ["p", "q", "p", "q", "p", "q"]})
    y = np.array([1, 1, 0, 1, 0, 1])
    p = np.array([1, 0, 0, 1, 1, 1])
    rep = detect_subgroups(X, y, p, random_state=0, discovery="patterns", min_support=1)
    pid = rep.descriptions("pattern").index("a=u")
    sg = rep.to_aif360(X, y, p, "pattern", pid)
    assert isinstance(sg.dataset, BinaryLabelDataset) and sg.description == "a=u" and sg.size == 3
    assert sg.dataset.feature_names == ["a=u", "a=v", "b=p", "b=q", "subgroup"]  # the table's own names
    assert sg.dataset.metadata["protected_attribute_maps"] == [{1.0: "a=u", 0.0: "not (a=u)"}]
    assert sg.unprivileged_groups == [{"subgroup": 1.0}] and sg.privileged_groups == [{"subgroup": 0.0}]
    cm = ClassificationMetric(sg.dataset, sg.classified_dataset, unprivileged_groups=sg.unprivileged_groups,
                              privileged_groups=sg.privileged_groups)
    # selection rates by hand: subgroup 1/3, rest 3/3 -> AIF360 (subgroup - rest) = -2/3; ours (rest - subgroup) +2/3
    assert cm.statistical_parity_difference() == pytest.approx(1 / 3 - 1)
    assert rep.subgroup_metrics(ci=None).loc[("pattern", pid), "statistical_parity"] == pytest.approx(2 / 3)
    # true positive rates: subgroup 1/2 (rows 0, 1), rest 2/2 -> -1/2
    assert cm.equal_opportunity_difference() == pytest.approx(0.5 - 1.0)
    assert cm.accuracy(privileged=False) == pytest.approx(2 / 3)  # rows 0 and 2 right


@pytest.mark.parametrize("kind", ["cluster", "entropy", "pattern"])
def test_aif360_metrics_are_the_reports_values_with_aif360s_sign(planted, kind):
    X, y, pred, rep = planted
    sm = rep.subgroup_metrics(ci=None, kind=kind)
    sid = sm["statistical_parity"].dropna().idxmax()[1]
    sg = rep.to_aif360(X, y, pred, kind, sid)
    cm = ClassificationMetric(sg.dataset, sg.classified_dataset, unprivileged_groups=sg.unprivileged_groups,
                              privileged_groups=sg.privileged_groups)
    row = sm.loc[(kind, sid)]
    assert sg.size == int(row["size"])
    assert cm.statistical_parity_difference() == pytest.approx(sg.sign * row["statistical_parity"], abs=1e-12)
    assert cm.equal_opportunity_difference() == pytest.approx(sg.sign * row["equal_opportunity"], abs=1e-12)
    assert cm.accuracy(privileged=False) == pytest.approx(row["accuracy"], abs=1e-12)
    assert "=" in sg.description and "0.0" not in sg.description
    assert sg.dataset.metadata["label_maps"] == [{1.0: "no", 0.0: "yes"}]
    assert list(sg.dataset.instance_names[:2]) == ["r0", "r1"]
    assert np.array_equal(sg.dataset.protected_attributes.ravel() == 1.0, rep.members(kind, sid))


def test_findings_descriptions_reach_aif360_in_category_names(planted):
    X, y, pred, rep = planted
    top = rep.findings().query("direction == 'disadvantaged'").iloc[0]
    sg = subgroup_to_aif360(rep, X, y, pred, top["kind"], top["id"])
    assert "African-American" in sg.description or "cluster=" in sg.description
    assert any(name.startswith("race=") for name in sg.dataset.feature_names)


def test_bad_calls(planted):
    X, y, pred, rep = planted
    with pytest.raises(ValueError, match=r"X must be the table the report was computed on: 400 rows"):
        rep.to_aif360(X.iloc[:10], y, pred, "cluster", 0)
    with pytest.raises(ValueError, match="with another index"):
        rep.to_aif360(X.reset_index(drop=True), y, pred, "cluster", 0)
    with pytest.raises(TypeError, match="X must be the pandas DataFrame"):
        rep.to_aif360(X.to_numpy(), y, pred, "cluster", 0)
    with pytest.raises(ValueError, match="y_pred has 3 values but the report has 400 rows"):
        rep.to_aif360(X, y, pred[:3], "cluster", 0)
    with pytest.raises(ValueError, match="attribute 'race' is a column of X"):
        rep.to_aif360(X, y, pred, "cluster", 0, attribute="race")
    with pytest.raises(ValueError, match="unknown subgroup id 99"):
        rep.to_aif360(X, y, pred, "cluster", 99)
    with pytest.raises(ValueError, match="kind must be one of"):
        rep.to_aif360(X, y, pred, "clusters", 0)
