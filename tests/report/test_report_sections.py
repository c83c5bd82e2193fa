"""Report sections built from real results, with script payloads in column names, category values and ids."""

from __future__ import annotations

import importlib
import os

import numpy as np
import pandas as pd
import pytest
from payloads import DANGEROUS, PAYLOADS

from aif360_subjective.report import Report
from aif360_subjective.report.sections import crowdtruth_sections, opinion_sections, subgroup_sections


def _needs(module: str, name: str):
    try:
        return getattr(importlib.import_module(f"aif360_subjective.{module}"), name)
    except (ImportError, AttributeError):
        msg = f"aif360_subjective.{module}.{name} is not available"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def _assert_safe(html: str) -> None:
    for p in PAYLOADS:
        assert p not in html
    for marker in DANGEROUS:
        assert marker.lower() not in html.lower()


@pytest.fixture(scope="module")
def subgroup_report():
    detect_subgroups = _needs("detectors", "detect_subgroups")
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({PAYLOADS[0]: rng.choice([PAYLOADS[1], "b"], n), "age": rng.choice([PAYLOADS[2], "old"], n)})
    y = rng.integers(0, 2, n)
    pred = np.where(X[PAYLOADS[0]] == PAYLOADS[1], 0, y)
    return detect_subgroups(X, y, pred, pos_label=1, n_clusters=4, random_state=0)


@pytest.mark.slow
def test_subgroup_sections_escape_and_structure(subgroup_report):
    sections = subgroup_sections(subgroup_report, n=3)
    # answer, rankings, then the details, then the comparison of the discovery methods
    assert [s.title for s in sections] == ["Answer", "Top-3 rankings", "Subgroup fairness summary",
                                           "Subgroup patterns", "Subgroup sizes", "Clustering details",
                                           "Discovery methods compared"]
    rep = Report(f"Subgroups {PAYLOADS[3]}").extend(sections)
    html = rep.render()
    _assert_safe(html)
    assert html.count("<details") >= subgroup_report.n_clusters  # one expandable block per subgroup at least
    assert len(rep.figures()) == 3  # radar, sizes, ranking
    # the pattern table shows the escaped category values
    assert "&lt;img src=x onerror=" in html


def test_subgroup_sections_values_match_result(subgroup_report):
    sections = subgroup_sections(subgroup_report, figures=False)
    summary = next(s for s in sections if s.title == "Subgroup fairness summary")
    summary_table = next(b for b in summary.blocks if hasattr(b, "rows"))
    want = subgroup_report.summary()
    assert summary_table.rows[0][0] == "cluster"
    assert summary_table.rows[0][2] == f"{want.loc['cluster', 'statistical_parity']:,.3f}"
    ranking = next(b for b in sections[1].blocks if hasattr(b, "rows"))
    top = subgroup_report.ranking("statistical_parity", kind="entropy", n=5)  # significant only (q < 0.05)
    assert [r[0] for r in ranking.rows] == [str(i) for i in top.index]
    raw = subgroup_sections(subgroup_report, figures=False, alpha=None)
    ranking = next(b for b in raw[1].blocks if hasattr(b, "rows"))
    top = subgroup_report.ranking("statistical_parity", kind="entropy", n=5, alpha=None)
    assert [r[0] for r in ranking.rows] == [str(i) for i in top.index]


def test_sections_reject_wrong_objects():
    with pytest.raises(TypeError, match="SubgroupReport or SubgroupDiscoveryMetric"):
        subgroup_sections(pd.DataFrame())
    with pytest.raises(TypeError, match="OpinionExclusionMetric"):
        opinion_sections({"m": object()})
    with pytest.raises(ValueError, match="at least one"):
        opinion_sections({})
    with pytest.raises(TypeError, match="CrowdTruthFilter or a CrowdTruthResult"):
        crowdtruth_sections(object())


@pytest.mark.slow
def test_opinion_sections(tmp_path):
    OpinionExclusionMetric = _needs("metrics", "OpinionExclusionMetric")
    from aif360_subjective.datasets import MultiAnnotatorDataset

    rng = np.random.default_rng(1)
    items = np.repeat([f"{PAYLOADS[0]}{i}" for i in range(30)], 4)
    anns = np.tile([PAYLOADS[1], "a2", "a3", "a4"], 30)
    labels = rng.integers(0, 2, len(items))
    ds = MultiAnnotatorDataset(pd.DataFrame({"item": items, "annotator": anns, "label": labels}))
    m = OpinionExclusionMetric(ds, ds.with_predictions(labels[::-1].copy()), bins=2)
    sections = opinion_sections({PAYLOADS[2]: m, "perfect": OpinionExclusionMetric(ds, ds.copy(), bins=2)})
    html = Report("audit").extend(sections).render()
    _assert_safe(html)
    assert f"{m.unfairness():.3f}" in html


def test_crowdtruth_sections():
    crowdtruth_scores = _needs("quality", "crowdtruth_scores")
    df = pd.DataFrame({"u": [PAYLOADS[0]] * 3 + ["b"] * 3, "w": [PAYLOADS[1], "y", "z"] * 2,
                       "l": [PAYLOADS[2], "p", "n", "n", "n", PAYLOADS[2]]})
    res = crowdtruth_scores(df, unit_col="u", worker_col="w", label_col="l")
    sections = crowdtruth_sections(res)
    assert [s.title for s in sections] == ["Annotator quality (CrowdTruth)"]
    _assert_safe(Report("ct").extend(sections).render())
