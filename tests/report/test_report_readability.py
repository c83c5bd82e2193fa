"""What a reader sees (issue 12): numbers formatted by dtype, identically in tables and captions; one form of
bin labels; plurals; the model a subgroup section analyses; the CrowdTruth columns explained and the reason a
low-WQS annotator was kept."""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.report import Report
from aif360_subjective.report.model import Table, format_value
from aif360_subjective.report.sections import (
    crowdtruth_sections,
    opinion_sections,
    pattern_texts,
    subgroup_sections,
    whole_numbers_as_int,
)


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<img[^>]*>", "", html))))


@pytest.fixture(scope="module")
def integer_subgroups():
    """Integer attributes (with a -1 code) and single-row clusters, as in COMPAS."""
    from aif360_subjective.detectors import detect_subgroups

    rng = np.random.default_rng(3)
    n = 120
    # days: a float column of whole numbers (as COMPAS' days_b_screening_arrest), nearly always -1
    X = pd.DataFrame({"age": rng.choice([19, 45, 96], n), "days": np.full(n, -1.0),
                      "sex": rng.choice(["f", "m"], n)})
    X.loc[0] = [70, 5.0, "f"]  # an outlier row: a cluster of one
    y = rng.integers(0, 2, n)
    return detect_subgroups(X, y, rng.integers(0, 2, n), n_clusters=6, random_state=0)


@pytest.mark.slow
def test_integer_values_the_same_in_tables_and_captions(integer_subgroups):
    html = Report("r").extend(subgroup_sections(integer_subgroups, model="Model X")).render()
    text = _text(html)
    assert not re.search(r"\b(96|19|45|70)\.0+\b", text), "integer attribute values shown with decimals"
    assert not re.search(r"-1\.0", text) and "days=-1" in text
    pats = whole_numbers_as_int(integer_subgroups.patterns(all_columns=False))
    for sid, pattern in pattern_texts(pats).items():
        if pattern:
            assert f"Subgroup {sid}: {pattern} (" in text  # caption = the table's values
    assert "(1 rows)" not in text and re.search(r"\(1 row\)", text)
    assert "Predictions analysed: Model X." in text


def test_table_sizes_with_missing_values_are_integers():
    frame = pd.DataFrame({"size": pd.array([141, None], dtype="Int64"), "x": [0.5, np.nan]})
    t = Table.from_frame(frame)
    assert t.rows[0][1:] == ["141", "0.500"] and t.rows[1][1:] == ["–", "–"]
    # integer ids in the index are ids (item 1046), counts in the body get separators (1,046 rows)
    ids = Table.from_frame(pd.DataFrame({"n": [1046]}, index=pd.Index([1046], name="item")))
    assert ids.rows == [["1046", "1,046"]]
    assert whole_numbers_as_int(pd.DataFrame({"v": [96.0, np.nan, -1.0]}))["v"].dtype == "Int64"
    assert whole_numbers_as_int(pd.DataFrame({"v": [0.5, 1.0]}))["v"].dtype == float


def test_bin_labels_one_form():
    assert format_value(pd.Interval(-0.000333, 0.0667)) == "0.00\u20130.07"
    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    ds = make_subjective_dataset(n_items=150, n_annotators=30, annotations_per_item=5, random_state=1)
    m = OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), bins=3)
    html = _text(Report("r").extend(opinion_sections({"M": m})).render())
    labels = [format_value(g) for g in m.group_performance().index]
    assert all(re.fullmatch(r"\d\.\d\d\u2013\d\.\d\d", lab) for lab in labels)
    for lab in labels:
        assert lab in html
    assert "(-0" not in html and "-0.00" not in html
    from aif360_subjective.plotting import plot_group_performance

    ax = plot_group_performance({"M": m})
    assert [t.get_text() for t in ax.get_xticklabels()] == labels


def test_crowdtruth_columns_explained_and_protected_reason():
    from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
    from aif360_subjective.datasets import make_subjective_dataset

    ds = make_subjective_dataset(n_items=600, random_state=0)
    ct = CrowdTruthFilter().fit(ds)
    text = _text(Report("r").extend(crowdtruth_sections(ct, annotator_info=ds.annotators)).render())
    assert "wwa = worker-worker agreement" in text and "wua = worker-unit agreement" in text
    assert f"removal threshold WQS < {ct.threshold_:.3f}" in text
    kept = ct.annotators_[ct.annotators_["protected"]]
    if len(kept):  # every protected annotator among the lowest WQS shows why it was kept
        lowest = ct.scores_.workers["wqs"].sort_values().head(20).index
        for _ in kept.index.intersection(lowest):
            assert "kept: protected, consistent labels (z" in text
        assert "below the threshold" in text
    n_removed = len(ct.removed_annotators_)
    assert f"removed {n_removed:,} of" in text
