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
    # measures on ratings without ratings (neither rating_column= nor positive_from=)
    "performance-mae-without-ratings": {"performance": "mae"},
    "performance-within-one-without-ratings": {"performance": ["within_one"]},
    "performance-mixed-directions": {"performance": ["accuracy", "false_negative_rate"]},
    "greater-is-better-contradicts": {"performance": "accuracy", "greater_is_better": False},
    "adr-reference-median-without-ratings": {"adr_reference": "median"},
    "adr-reference-unknown": {"adr_reference": "mode"},
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
    from aif360_subjective.metrics import GroupingSummary

    ds, pred = data
    m = OpinionExclusionMetric(ds, pred)
    with pytest.warns(DeprecationWarning):  # the former names warn (tests/test_deprecated_paths.py)
        from aif360_subjective.metrics import GroupingReport
    assert GroupingReport is GroupingSummary
    with pytest.warns(DeprecationWarning):
        assert m.grouping_report() == m.grouping_summary() == m.result().report
    assert m.grouping_summary().summary() == m.grouping_summary().text()
    assert m.options is m.result().options


# ------------------------------------------------------------------------------------ ordinal ratings
@pytest.fixture(scope="module")
def rated():
    """Ratings 1-5 from the synthetic annotations (label 1 -> 3..5, label 0 -> 1..2), binary view rating >= 3
    (label 1 = unfavourable, favourable 0, as PopquornDataset), and noisy predicted ratings."""
    full = make_subjective_dataset(n_items=60, n_annotators=12, annotations_per_item=3, random_state=1)
    long = full.to_dataframe()[[full.item_col, full.annotator_col, full.label_col]].reset_index(drop=True)
    rng = np.random.default_rng(2)
    high = long[full.label_col].to_numpy() == full.unfavorable_label
    long["rating"] = np.where(high, rng.integers(3, 6, len(long)), rng.integers(1, 3, len(long)))
    long["binary"] = (long["rating"] >= 3).astype(int)
    ds = MultiAnnotatorDataset(long.drop(columns=[full.label_col]), label_col="binary", info_columns=["rating"],
                               annotators=full.annotators[list(full.protected_attribute_names)],
                               favorable_label=0, unfavorable_label=1)
    predicted = np.clip(long["rating"].to_numpy() + rng.integers(-2, 3, len(long)), 1, 5)
    pred = ds.with_predictions((predicted >= 3).astype(int), info={"rating": predicted})
    return ds, pred


ORDINAL_OPTIONS = {
    "mae-adr": {"performance": "mae"},
    "mae-adr-median": {"performance": "mae", "adr_reference": "median", "bins": "quantile:4"},
    "within-one-adr-drop-ties": {"performance": "within_one", "tie": "drop", "bins": 3},
    "mae-ambiguity-pooled": {"performance": "mae", "grouping": "ambiguity", "bins": 3},
    "mae-popularity": {"performance": "mae", "grouping": "popularity", "bins": 2},
    "mae-demographic": {"performance": "mae", "grouping": "demographic", "attributes": ["gender"]},
    "within-one-discovered": {"performance": "within_one", "grouping": "discovered", "n_clusters": 3,
                              "random_state": 0},
    "callable-lower-is-better": {"performance": lambda y, p: float(np.mean((y - p) ** 2)),
                                 "greater_is_better": False},
}


@pytest.mark.parametrize("options", list(ORDINAL_OPTIONS.values()), ids=list(ORDINAL_OPTIONS))
def test_same_ordinal_result_from_both_faces(rated, options):
    ds, pred = rated
    a = OpinionExclusionMetric(ds, pred, rating_column="rating", **options).result()
    b = opinion_exclusion(ds.annotation_info["rating"], pred.annotation_info["rating"], item_ids=ds.item_ids,
                          annotator_ids=ds.annotator_ids, positive_from=3, pos_label=0, annotators=ds.annotators,
                          **options)
    pd.testing.assert_frame_equal(a.group_table, b.group_table, check_names=False)
    pd.testing.assert_series_equal(a.disagreement_rates, b.disagreement_rates)
    pd.testing.assert_series_equal(a.annotator_performance, b.annotator_performance)
    assert a.unfairness == b.unfairness and a.grouping_summary == b.grouping_summary
    assert a.options.higher_is_better == b.options.higher_is_better
    from aif360_subjective.opinion.core import individual_figures

    pd.testing.assert_series_equal(individual_figures(a), individual_figures(b))


ORDINAL_BAD_OPTIONS = {
    "mae-with-accuracy": {"performance": ["mae", "accuracy"]},
    "mae-with-within-one": {"performance": ["mae", "within_one"]},
    "greater-is-better-contradicts": {"performance": "mae", "greater_is_better": True},
    "greater-is-better-text": {"performance": "mae", "greater_is_better": "no"},
}


@pytest.mark.parametrize("options", list(ORDINAL_BAD_OPTIONS.values()), ids=list(ORDINAL_BAD_OPTIONS))
def test_bad_ordinal_option_same_error_from_both_faces(rated, options):
    ds, pred = rated
    with pytest.raises((TypeError, ValueError)) as from_class:
        OpinionExclusionMetric(ds, pred, rating_column="rating", **options)
    with pytest.raises((TypeError, ValueError)) as from_function:
        opinion_exclusion(ds.annotation_info["rating"], pred.annotation_info["rating"], item_ids=ds.item_ids,
                          annotator_ids=ds.annotator_ids, positive_from=3, pos_label=0, **options)
    assert type(from_class.value) is type(from_function.value)
    assert str(from_class.value) == str(from_function.value)
