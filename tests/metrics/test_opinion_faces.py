"""Face against face: OpinionExclusionMetric and sklearn.metrics.opinion_exclusion share one options check.

Every bad option raises the same exception type with the same message from both faces, and every valid
option set gives the same result (both build one ``OpinionOptions`` and call one core).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric, OpinionOptions, check_opinion_options
from aif360_subjective.sklearn.metrics import opinion_exclusion


@pytest.fixture(scope="module")
def data():
    full = make_subjective_dataset(n_items=60, n_annotators=12, annotations_per_item=3, random_state=0)
    # the annotator table holds the protected attributes only, so both faces see the same attribute columns
    long = full.to_dataframe()[[full.item_col, full.annotator_col, full.label_col]]
    ds = MultiAnnotatorDataset(long, annotators=full.annotators[list(full.protected_attribute_names)],
                               favorable_label=full.favorable_label, unfavorable_label=full.unfavorable_label)
    rng = np.random.default_rng(0)
    pred = ds.with_predictions(np.where(rng.random(len(ds.labels)) < 0.8, ds.labels.ravel(), 1 - ds.labels.ravel()))
    return ds, pred


def _class(data, **kw):
    ds, pred = data
    return OpinionExclusionMetric(ds, pred, **kw).result()


def _function(data, **kw):
    ds, pred = data
    return opinion_exclusion(
        ds.labels.ravel(), pred.labels.ravel(), item_ids=ds.item_ids, annotator_ids=ds.annotator_ids,
        pos_label=ds.favorable_label, annotators=ds.annotators, **kw,
    )


BAD_OPTIONS = {
    "grouping-unknown": {"grouping": "adr2"},
    "grouping-list": {"grouping": ["adr"]},
    "grouping-series-no-id": {"grouping": pd.Series({"zz": 1})},
    "bins-zero": {"bins": 0},
    "bins-bool": {"bins": True},
    "bins-float": {"bins": 2.5},
    "bins-decreasing": {"bins": [0, 0.5, 0.2]},
    "bins-nan": {"bins": [0, np.nan, 1]},
    "bins-one-edge": {"bins": [0.5]},
    "bins-bad-string": {"bins": "quantile:x"},
    "bins-unused-by-demographic": {"grouping": "demographic", "bins": -1},
    "performance-unknown": {"performance": "recall"},
    "performance-empty": {"performance": []},
    "performance-number": {"performance": 3},
    "performance-returns-text": {"performance": lambda a, b: "good"},
    "tie-unknown": {"tie": "coin"},
    "min-group-size-zero": {"min_group_size": 0},
    "min-group-size-float": {"min_group_size": 1.5},
    "min-group-size-bool": {"min_group_size": True},
    "min-group-size-float-integral": {"min_group_size": 2.0},
    "small-groups-unknown": {"small_groups": "keep"},
    "aggregate-unknown": {"aggregate": "median"},
    "ambiguity-unknown": {"ambiguity": "variance"},
    "ambiguity-unknown-unused": {"grouping": "adr", "ambiguity": "variance"},
    "nan-policy-unknown": {"nan_policy": "ignore"},
    "demographic-unknown-attribute": {"grouping": "demographic", "attributes": ["height"]},
    "demographic-empty-attributes": {"grouping": "demographic", "attributes": []},
    "discovered-unknown-clustering": {"grouping": "discovered", "clustering": "spectral"},
    "discovered-clusterer-wrong-type": {"grouping": "discovered", "clustering": 3},
    "discovered-one-cluster": {"grouping": "discovered", "n_clusters": 1},
    "discovered-too-many-clusters": {"grouping": "discovered", "n_clusters": 500},
    "discovered-clusters-text": {"grouping": "discovered", "n_clusters": "3"},
    "discovered-clusters-bool": {"grouping": "discovered", "n_clusters": True},
    "discovered-unknown-attribute": {"grouping": "discovered", "attributes": ["height"]},
    "random-state-text": {"grouping": "discovered", "random_state": "x"},
    "random-state-bool": {"grouping": "discovered", "random_state": True},
    "random-state-float-any-grouping": {"random_state": 1.5},
}


@pytest.mark.parametrize("options", list(BAD_OPTIONS.values()), ids=list(BAD_OPTIONS))
def test_bad_option_same_error_from_both_faces(data, options):
    with pytest.raises((TypeError, ValueError)) as from_class:
        _class(data, **options)
    with pytest.raises((TypeError, ValueError)) as from_function:
        _function(data, **options)
    assert type(from_class.value) is type(from_function.value)
    assert str(from_class.value) == str(from_function.value)
    assert "np." not in str(from_class.value)  # plain values in messages


def test_type_errors_for_wrong_types_value_errors_for_wrong_values(data):
    with pytest.raises(TypeError, match=r"min_group_size must be an int >= 1, got 1.5"):
        _function(data, min_group_size=1.5)
    with pytest.raises(ValueError, match=r"min_group_size must be >= 1, got 0"):
        _function(data, min_group_size=0)
    with pytest.raises(TypeError, match=r"random_state must be None, an int or a numpy Generator, got True"):
        _class(data, grouping="discovered", random_state=True)


GOOD_OPTIONS = {
    "adr": {},
    "adr-quantile-merge": {"bins": "quantile:4", "min_group_size": 3},
    "ambiguity-entropy": {"grouping": "ambiguity", "ambiguity": "entropy", "bins": 3},
    "popularity-drop": {"grouping": "popularity", "min_group_size": 5, "small_groups": "drop", "tie": "drop"},
    "demographic-default-attributes": {"grouping": "demographic"},
    "demographic-two": {"grouping": "demographic", "attributes": ["gender", "age_group"], "min_group_size": 2},
    "discovered": {"grouping": "discovered", "n_clusters": 3, "random_state": 1},
    "metrics-list": {"performance": ["accuracy", "f1"], "nan_policy": "omit"},
}


@pytest.mark.parametrize("options", list(GOOD_OPTIONS.values()), ids=list(GOOD_OPTIONS))
def test_same_result_from_both_faces(data, options):
    a, b = _class(data, **options), _function(data, **options)
    pd.testing.assert_frame_equal(a.group_table, b.group_table, check_names=False)
    assert a.unfairness == b.unfairness or (np.isnan(a.unfairness) and np.isnan(b.unfairness))
    assert a.grouping_summary == b.grouping_summary


def test_demographic_defaults_agree():
    """Without ``attributes`` both faces group by every annotator attribute: the class by the dataset's protected
    attributes (by default every annotator column), the function by every column of ``annotators``."""
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": list("abcabc")[:6], "label": [1, 0, 1, 1, 0, 0]})
    anns = pd.DataFrame({"gender": ["f", "m", "f"]}, index=pd.Index(list("abc")))
    ds = MultiAnnotatorDataset(df, annotators=anns)
    pred = ds.with_predictions([1, 1, 1, 1, 0, 0])
    m = OpinionExclusionMetric(ds, pred, grouping="demographic")
    f = opinion_exclusion(df["label"], pred.labels.ravel(), item_ids=df["item"], annotator_ids=df["annotator"],
                          annotators=anns, grouping="demographic")
    assert m.grouping_summary().grouping == f.grouping_summary.grouping == "demographic: gender"
    # rows: (1,a,1,p1) (1,b,0,p1) (2,c,1,p1) (2,a,1,p1) (3,b,0,p0) (3,c,0,p0)
    # f = {a, c}: a 2/2, c 2/2 -> 1.0; m = {b}: 1/2 -> 0.5
    np.testing.assert_allclose(m.group_performance()["performance"], [1.0, 0.5])
    np.testing.assert_allclose(f.group_table["performance"], [1.0, 0.5])


def test_options_are_frozen_and_checked_once():
    opts = check_opinion_options(annotators=pd.Index(["a", "b"]), grouping="ambiguity", performance="f1")
    assert isinstance(opts, OpinionOptions)
    assert opts.aggregate == "pooled" and opts.performance == ("f1",)
    assert opts.grouping_name == "ambiguity (disagreement)"
    with pytest.raises(AttributeError):
        opts.tie = "drop"  # type: ignore[misc]


def test_former_names_are_aliases(data):
    from aif360_subjective.metrics import GroupingReport, GroupingSummary

    ds, pred = data
    m = OpinionExclusionMetric(ds, pred)
    assert GroupingReport is GroupingSummary
    assert m.grouping_report() == m.grouping_summary() == m.result().report
    assert m.grouping_summary().summary() == m.grouping_summary().text()
    assert m.options is m.result().options
