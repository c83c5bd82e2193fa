"""Functional opinion-exclusion API: same core as the metric class, aif360.sklearn conventions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.sklearn.metrics import (
    annotator_performance,
    disagreement_rates,
    opinion_exclusion,
    opinion_group_performance,
    opinion_individual_figures,
    opinion_performance,
    opinion_unfairness,
)

ITEMS = np.repeat([0, 1, 2, 3], 3)
ANNS = np.array(["a", "b", "c"] * 4, dtype=object)
TRUE = np.array([1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1])
MV_PRED = np.array([1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0])


def test_hand_computed_with_arrays():
    kw = {"item_ids": ITEMS, "annotator_ids": ANNS, "bins": 2}
    assert disagreement_rates(TRUE, item_ids=ITEMS, annotator_ids=ANNS).to_dict() == {"a": 0.25, "b": 0.0, "c": 0.5}
    assert annotator_performance(TRUE, MV_PRED, item_ids=ITEMS, annotator_ids=ANNS).to_dict() == {
        "a": 0.75,
        "b": 1.0,
        "c": 0.5,
    }
    assert opinion_unfairness(TRUE, MV_PRED, **kw) == pytest.approx(0.1875)
    assert opinion_performance(TRUE, MV_PRED, **kw) == pytest.approx(0.6875)
    np.testing.assert_allclose(opinion_group_performance(TRUE, MV_PRED, **kw)["performance"], [0.875, 0.5])
    assert opinion_individual_figures(TRUE, MV_PRED, **kw)["gap"] == pytest.approx(0.375)


def test_ids_from_the_index_and_pos_label():
    idx = pd.MultiIndex.from_arrays([ITEMS, ANNS], names=["item", "annotator"])
    y = pd.Series(np.where(TRUE == 1, "yes", "no"), index=idx)
    pred = np.where(MV_PRED == 1, "yes", "no")
    assert opinion_unfairness(y, pred, bins=2, pos_label="yes") == pytest.approx(0.1875)
    # positive label "no": the tie policy and rates refer to it; accuracy is unchanged
    assert opinion_unfairness(y, pred, bins=2, pos_label="no") == pytest.approx(0.1875)
    with pytest.raises(ValueError, match="index level 'item'"):
        opinion_unfairness(y.reset_index(drop=True), pred)
    y2 = y.copy()
    y2.index = idx.set_names(["comment", "worker"])
    assert opinion_unfairness(y2, pred, item_ids="comment", annotator_ids="worker", bins=2, pos_label="yes") == (
        pytest.approx(0.1875)
    )


def test_demographic_and_series_grouping():
    annotators = pd.DataFrame({"gender": ["f", "m", "f"]}, index=["a", "b", "c"])
    t = opinion_group_performance(
        TRUE,
        MV_PRED,
        item_ids=ITEMS,
        annotator_ids=ANNS,
        grouping="demographic",
        annotators=annotators,
        attributes="gender",
    )
    np.testing.assert_allclose(t["performance"], [0.625, 1.0])
    with pytest.raises(ValueError, match="annotator table"):
        opinion_unfairness(TRUE, MV_PRED, item_ids=ITEMS, annotator_ids=ANNS, grouping="demographic")
    t = opinion_group_performance(
        TRUE, MV_PRED, item_ids=ITEMS, annotator_ids=ANNS, grouping=pd.Series({"a": 1, "b": 2, "c": 2})
    )
    np.testing.assert_allclose(t["performance"], [0.75, 0.75])


def test_same_numbers_as_the_metric_class():
    ds = make_subjective_dataset(n_items=300, n_annotators=30, random_state=1)
    rng = np.random.default_rng(0)
    pred = np.where(rng.random(len(ds.item_ids)) < 0.8, ds.labels.ravel(), 1 - ds.labels.ravel())
    for grouping in ("adr", "ambiguity", "popularity"):
        m = OpinionExclusionMetric(ds, ds.with_predictions(pred), grouping=grouping, performance="f1")
        res = opinion_exclusion(
            ds.labels.ravel(),
            pred,
            item_ids=ds.item_ids,
            annotator_ids=ds.annotator_ids,
            grouping=grouping,
            performance="f1",
            pos_label=0,
        )
        pd.testing.assert_frame_equal(m.group_performance(), res.group_table)
        assert m.unfairness() == res.unfairness and m.performance() == res.performance


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 5), st.integers(0, 1)),
        min_size=1,
        max_size=60,
        unique_by=lambda r: r[:2],
    ),
    tie=st.sampled_from(["favorable", "unfavorable"]),
)
@pytest.mark.slow
def test_property_majority_vote_predictor(data, tie):
    items, anns, y = (np.array(c) for c in zip(*data, strict=True))
    df = pd.DataFrame({"i": items, "y": y})
    share = df.groupby("i")["y"].transform("mean").to_numpy()
    mv = np.where(share > 0.5, 1, np.where(share < 0.5, 0, 1 if tie == "favorable" else 0))
    res = opinion_exclusion(y, mv, item_ids=items, annotator_ids=anns, tie=tie)
    np.testing.assert_allclose(res.annotator_performance, 1 - res.disagreement_rates, atol=1e-15)
    perfect = opinion_exclusion(y, y, item_ids=items, annotator_ids=anns, tie=tie)
    assert perfect.unfairness == 0.0 and perfect.performance == 1.0
    assert opinion_performance(y, 1 - y, item_ids=items, annotator_ids=anns) == 0.0
