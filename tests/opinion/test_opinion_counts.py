"""The core's entry point from counts (result_from_counts): hand-computed values, and the pandas path through it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import check_opinion_options
from aif360_subjective.opinion.annotations import (
    DisagreementRates,
    adr_from_counts,
    disagreement_rates,
    encode_annotations,
)
from aif360_subjective.opinion.core import (
    GroupCounts,
    compute_opinion_exclusion,
    group_counts,
    performance_from_counts,
    result_from_counts,
)
from aif360_subjective.opinion.groupers import GROUPERS, group_annotators

ANNOTATORS = pd.Index(["a", "b", "c"])
# (TN, FP, FN, TP): a 3 of 4 right, b 1 of 2, c 2 of 2
COUNTS = np.array([[1, 0, 1, 2], [0, 1, 0, 1], [2, 0, 0, 0]], dtype=np.float64)


def _counts(options, **kw):
    rates = DisagreementRates(adr=np.array([0.0, 0.5, np.nan]), n_counted=np.array([4.0, 2.0, 0.0]),
                              n_tie_items=1, n_tie_annotations=2)
    return GroupCounts(annotators=ANNOTATORS, rates=rates, annotator_counts=COUNTS, unit="annotator", n_units=3,
                       n_ungrouped_units=0, labels=pd.Index(["x", "y"]), group=np.array([0, 0, 1]),
                       annotator=np.array([0, 1, 2]), unit_annotations=np.array([4, 2, 2]), counts=COUNTS,
                       n_annotations=10, **kw)


def _options(**kw):
    groups = pd.Series({"a": "x", "b": "x", "c": "y"}, name="team")
    return check_opinion_options(annotators=ANNOTATORS, grouping=groups, warn_group_size=0, **kw)


def test_hand_computed_annotator_mean():
    res = result_from_counts(_counts(_options()), _options())
    np.testing.assert_array_equal(res.annotator_performance.to_numpy(), [0.75, 0.5, 1.0])
    t = res.group_table
    np.testing.assert_array_equal(t["performance"].to_numpy(), [0.625, 1.0])
    np.testing.assert_array_equal(t["spread"].to_numpy(), [0.125, 0.0])
    np.testing.assert_array_equal(t["n_annotations"].to_numpy(), [6, 2])
    np.testing.assert_array_equal(t["n_annotators"].to_numpy(), [2, 1])
    assert res.unfairness == 0.1875 and res.performance == 0.8125
    assert res.grouping_summary.n_ungrouped_annotations == 10 - 8
    assert res.grouping_summary.n_tie_items == 1
    assert res.disagreement_rates.index.name == "annotator"
    np.testing.assert_array_equal(res.unit_counts, COUNTS)


def test_hand_computed_pooled():
    opts = _options(aggregate="pooled")
    res = result_from_counts(_counts(opts), opts)
    # group x pooled: TN 1, FP 1, FN 1, TP 3 -> 4 right of 6
    np.testing.assert_allclose(res.group_table["performance"].to_numpy(), [4 / 6, 1.0], rtol=0, atol=0)


def test_callable_needs_row_performance():
    opts = _options(performance=lambda t, p: 0.5)
    with pytest.raises(ValueError, match="needs the annotation rows, not only counts"):
        result_from_counts(_counts(opts), opts)


def test_performance_from_counts_list_policies():
    counts = np.array([[1, 0, 0, 0], [0, 0, 1, 1]], dtype=np.float64)  # TPR undefined for the first unit
    specs = ("true_positive_rate", "accuracy")
    np.testing.assert_array_equal(performance_from_counts(specs, counts, "propagate"), [np.nan, 0.5])
    np.testing.assert_array_equal(performance_from_counts(specs, counts, "omit"), [1.0, 0.5])


def test_adr_from_counts():
    np.testing.assert_array_equal(adr_from_counts(np.array([1, 0, 0]), np.array([4, 0, 3])), [0.25, np.nan, 0.0])


@pytest.mark.parametrize("opts", [
    {}, {"grouping": "ambiguity", "bins": 3}, {"grouping": "popularity", "min_group_size": 50},
    {"grouping": "demographic", "min_group_size": 3, "aggregate": "pooled"},
    {"performance": ["f1", "precision"], "nan_policy": "omit", "tie": "drop"},
])
def test_pandas_path_is_group_counts_then_result_from_counts(opts):
    ds = make_subjective_dataset(n_items=120, n_annotators=25, annotations_per_item=5, random_state=4)
    pred = ds.labels.ravel()[::-1].copy()
    enc = encode_annotations(ds.labels.ravel(), pred, ds.item_ids, ds.annotator_ids, pos_label=ds.favorable_label)
    table = ds.annotators
    options = check_opinion_options(annotators=enc.annotators, annotator_table=table,
                                    default_attributes=list(table.columns)[:1], warn_group_size=0, **opts)
    counts = group_counts(enc, options, table)
    via = result_from_counts(counts, options)
    direct = compute_opinion_exclusion(enc, options, table)
    pd.testing.assert_frame_equal(via.group_table, direct.group_table, check_exact=True)
    assert via.unfairness == direct.unfairness
    # the (group, annotator) counts add up to the grouped annotations
    assert counts.counts.sum() == direct.group_table["n_annotations"].sum()


@pytest.mark.parametrize("grouping", ["adr", "demographic"])
def test_group_annotators_is_the_grouper(grouping):
    ds = make_subjective_dataset(n_items=80, n_annotators=20, annotations_per_item=4, random_state=1)
    enc = encode_annotations(ds.labels.ravel(), ds.labels.ravel(), ds.item_ids, ds.annotator_ids,
                             pos_label=ds.favorable_label)
    table = ds.annotators
    options = check_opinion_options(annotators=enc.annotators, annotator_table=table, grouping=grouping,
                                    default_attributes=list(table.columns)[:1])
    rates = disagreement_rates(enc, options.tie)
    a = GROUPERS[grouping](enc, options, rates, table)
    b = group_annotators(options, enc.annotators, rates, table)
    np.testing.assert_array_equal(a.codes, b.codes)
    assert list(a.labels) == list(b.labels) and a.excluded == b.excluded


def test_group_annotators_refuses_row_groupings():
    options = check_opinion_options(annotators=ANNOTATORS, grouping="ambiguity")
    rates = DisagreementRates(adr=np.zeros(3), n_counted=np.ones(3), n_tie_items=0, n_tie_annotations=0)
    with pytest.raises(ValueError, match="grouping 'ambiguity' needs the annotation rows"):
        group_annotators(options, ANNOTATORS, rates)
