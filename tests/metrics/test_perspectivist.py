"""Soft-label, per-annotator and ordinal scores: hand-computed cases, properties, the metric class."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.metrics.perspectivist import (
    PerspectivistMetric,
    annotator_error_rate,
    manhattan_distance,
    normalized_absolute_distance,
    soft_cross_entropy,
    soft_labels,
    soft_labels_from_dataset,
    unit_mean_absolute_error,
    unit_within_one,
    wasserstein_distance,
)

T = np.array([[1.0, 0.0], [0.5, 0.5]])
P = np.array([[0.8, 0.2], [0.5, 0.5]])


def test_soft_cross_entropy_by_hand():
    # -(1 ln 0.8 + 0.5 ln 0.5 + 0.5 ln 0.5) / 2 = (0.2231435513 + 0.6931471806) / 2
    assert soft_cross_entropy(T, P) == pytest.approx((-math.log(0.8) - math.log(0.5)) / 2, abs=1e-12)
    assert soft_cross_entropy(T, P) == pytest.approx(0.4581453659, abs=1e-9)
    # a zero probability on the true class is clipped to 1e-12: -ln(1e-12) = 27.6310211159
    assert soft_cross_entropy([[0.0, 1.0]], [[1.0, 0.0]]) == pytest.approx(27.631021115928547, rel=1e-12)
    # and a probability of 1 to 1 - 1e-12
    assert soft_cross_entropy([[1.0, 0.0]], [[1.0, 0.0]]) == pytest.approx(1e-12, rel=1e-3)


def test_manhattan_by_hand():
    # row 1: |0.8 - 1| + |0.2 - 0| = 0.4; row 2: 0 -> mean 0.2
    assert manhattan_distance(T, P) == pytest.approx(0.2, abs=1e-15)
    assert manhattan_distance([[1, 0, 0]], [[0, 0, 1]]) == 2.0


def test_wasserstein_by_hand():
    t = [[1.0, 0.0, 0.0], [0.5, 0.0, 0.5]]
    p = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    # item 1: all mass moves 2 steps = 2; item 2: half the mass moves 1 step each way = 1 -> mean 1.5
    assert wasserstein_distance(t, p) == pytest.approx(1.5)
    # positions 1, 2, 4: item 1 moves 3, item 2 moves 0.5 * 1 + 0.5 * 2 = 1.5 -> mean 2.25
    assert wasserstein_distance(t, p, scale=[1, 2, 4]) == pytest.approx(2.25)
    with pytest.raises(ValueError, match="strictly increasing"):
        wasserstein_distance(t, p, scale=[1, 1, 2])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4), st.lists(st.floats(0.01, 1.0), min_size=4,
                                                                         max_size=4))
def test_wasserstein_matches_scipy(a, b):
    from scipy.stats import wasserstein_distance as scipy_w

    t, p = np.array(a) / sum(a), np.array(b) / sum(b)
    x = np.array([1.0, 2.0, 3.5, 6.0])
    ours = wasserstein_distance(t[None], p[None], scale=x)
    assert ours == pytest.approx(scipy_w(x, x, t, p), abs=1e-9)


def test_soft_label_inputs_validated_and_aligned():
    t = pd.DataFrame([[1.0, 0.0], [0.25, 0.75]], index=["a", "b"], columns=[0, 1])
    p = pd.DataFrame([[0.75, 0.25], [0.5, 0.5], [0.0, 1.0]], index=["b", "a", "z"], columns=[1, 0])
    # aligned: a -> (p0=0.5, p1=0.5), b -> (p0=0.25, p1=0.75); |0.5-1|+|0.5-0| = 1, b: 0 -> mean 0.5
    assert manhattan_distance(t, p) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"no row for 1 item\(s\) of y_soft_true, e.g. \['c'\]"):
        manhattan_distance(pd.concat([t, t.rename(index={"a": "c"}).iloc[:1]]), p)
    with pytest.raises(ValueError, match="different classes"):
        manhattan_distance(t, p.rename(columns={1: 2}))
    with pytest.raises(ValueError, match="same shape"):
        soft_cross_entropy(T, P[:1])
    with pytest.raises(ValueError, match=r"rows must sum to 1 .* row 0 sums to 0.5000"):
        soft_cross_entropy([[0.25, 0.25]], [[0.5, 0.5]])
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]; row 0, column 0 is 1.1"):
        manhattan_distance([[1.1, -0.1]], [[0.5, 0.5]])
    with pytest.raises(ValueError, match="N >= 1 and C >= 2"):
        manhattan_distance([1.0, 0.0], [0.5, 0.5])
    # published soft labels are rounded: three annotators give 0.33 each (sum 0.99), accepted
    assert manhattan_distance([[0.33, 0.33, 0.33]], [[0.33, 0.33, 0.33]]) == 0.0


def test_soft_labels_helpers():
    out = soft_labels([1, 2, 2, 1, 3], ["a", "a", "a", "b", "b"], labels=[1, 2, 3, 4])
    assert out.index.tolist() == ["a", "b"] and out.columns.tolist() == [1, 2, 3, 4]
    np.testing.assert_allclose(out.to_numpy(), [[1 / 3, 2 / 3, 0, 0], [0.5, 0, 0.5, 0]])
    with pytest.raises(ValueError, match=r"values \[5\] are not in labels \[1, 2, 3, 4\]"):
        soft_labels([5], ["a"], labels=[1, 2, 3, 4])
    ann = pd.DataFrame({"item": ["a", "a", "b"], "annotator": [1, 2, 1], "label": [1, 0, 1],
                        "rating": ["5", "2", "4"]})
    ds = MultiAnnotatorDataset(ann, info_columns=["rating"])
    binary = soft_labels_from_dataset(ds)
    np.testing.assert_allclose(binary.to_numpy(), [[0.5, 0.5], [0.0, 1.0]])
    ordinal = soft_labels_from_dataset(ds, "rating", labels=range(1, 6))
    assert ordinal.columns.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    np.testing.assert_allclose(ordinal.to_numpy(), [[0, 0.5, 0, 0, 0.5], [0, 0, 0, 1, 0]])
    with pytest.raises(ValueError, match=r"column='score' is not in the dataset's annotation_info"):
        soft_labels_from_dataset(ds, "score")


def test_annotator_error_rate_by_hand():
    # item A: 1 of 3 wrong -> 1/3; item B: 1 of 1 wrong -> 1; mean over items 2/3 (pooled would be 2/4)
    y = [1, 0, 1, 0]
    yhat = [1, 1, 1, 1]
    items = ["A", "A", "A", "B"]
    assert annotator_error_rate(y, yhat, item_ids=items) == pytest.approx(2 / 3)
    assert annotator_error_rate(["x", "y"], ["x", "z"], item_ids=[1, 1]) == 0.5  # any label values
    with pytest.raises(ValueError, match="one length"):
        annotator_error_rate(y, yhat[:3], item_ids=items)


def test_normalized_absolute_distance_by_hand():
    y, yhat, items = [1, 6, 3], [2, 4, 3], ["A", "A", "B"]
    # A: (|1-2| + |6-4|) / (2 * 6) = 0.25; B: 0 -> 0.125 with S = 6 scale points (observed 1..6)
    assert normalized_absolute_distance(y, yhat, item_ids=items) == pytest.approx(0.125)
    assert normalized_absolute_distance(y, yhat, item_ids=items, labels=range(1, 7)) == pytest.approx(0.125)
    # the range convention S = 5: A: 3 / 10 -> mean 0.15
    assert normalized_absolute_distance(y, yhat, item_ids=items, scale_size=5) == pytest.approx(0.15)
    with pytest.raises(ValueError, match="not integers: pass scale_size"):
        normalized_absolute_distance([1.5], [2], item_ids=[0])
    with pytest.raises(ValueError, match="scale_size must be a positive int"):
        normalized_absolute_distance(y, yhat, item_ids=items, scale_size=0)
    with pytest.raises(TypeError, match="must hold numbers"):
        normalized_absolute_distance(["a"], [1], item_ids=[0], scale_size=2)


def test_unit_ordinal_scores_by_hand():
    codes = np.array([0, 0, 1])
    y, yhat = np.array([1, 3, 5]), np.array([2, 3, 1])
    mae = unit_mean_absolute_error(codes, 3, y, yhat)
    np.testing.assert_allclose(mae[:2], [0.5, 4.0])
    assert np.isnan(mae[2])
    w1 = unit_within_one(codes, 3, y, yhat)
    np.testing.assert_allclose(w1[:2], [1.0, 0.0])
    assert np.isnan(w1[2])


def test_metric_class():
    ann = pd.DataFrame({"item": ["a", "a", "b", "b"], "annotator": [1, 2, 1, 2], "label": [1, 0, 1, 1],
                        "rating": [5, 2, 4, 6]})
    ds = MultiAnnotatorDataset(ann, info_columns=["rating"])
    pred = ds.with_predictions(np.array([1, 1, 1, 0]))
    m = PerspectivistMetric(ds, pred)
    # item a: 1 of 2 wrong; b: 1 of 2 wrong -> 0.5
    assert m.annotator_error_rate() == 0.5
    pred_ratings = MultiAnnotatorDataset(ann.assign(rating=[4, 2, 4, 3]), info_columns=["rating"])
    mr = PerspectivistMetric(ds, pred_ratings, rating_column="rating", labels=range(1, 7))
    # a: (1 + 0) / (2 * 6); b: (0 + 3) / 12 -> mean (1/12 + 3/12) / 2 = 1/6
    assert mr.normalized_absolute_distance() == pytest.approx(1 / 6)
    dist = pd.DataFrame([[0.5, 0.5], [0.0, 1.0]], index=["a", "b"], columns=[0.0, 1.0])
    ms = PerspectivistMetric(ds, predicted_distributions=dist)
    assert ms.manhattan_distance() == 0.0 and ms.wasserstein_distance() == 0.0
    assert ms.soft_cross_entropy() == pytest.approx(math.log(2) / 2, abs=1e-9)
    with pytest.raises(ValueError, match="need classified_dataset"):
        ms.annotator_error_rate()
    with pytest.raises(ValueError, match="same \\(item, annotator\\) rows"):
        PerspectivistMetric(ds, pred.subset([0, 1]))


def test_dataset_as_soft_target():
    ann = pd.DataFrame({"item": ["a", "a", "b"], "annotator": [1, 2, 1], "label": [1, 0, 1]})
    ds = MultiAnnotatorDataset(ann)
    # soft labels a = (0.5, 0.5), b = (0, 1); predictions a = (1, 0), b = (0, 1): MD = (0.5 + 0.5 + 0) / 2
    assert manhattan_distance(ds, [[1.0, 0.0], [0.0, 1.0]]) == pytest.approx(0.5)
    pred = pd.DataFrame([[0.0, 1.0], [1.0, 0.0]], index=["b", "a"], columns=[0, 1])
    assert manhattan_distance(ds, pred) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="one row per item"):
        manhattan_distance(ds, [[1.0, 0.0]])


def test_soft_labels_from_dataset_needs_a_multi_annotator_dataset():
    class LooksLikeOne:  # duck typing does not pass
        item_ids = np.array([1])
        annotation_info = pd.DataFrame(index=[0])

    with pytest.raises(TypeError, match="dataset must be a MultiAnnotatorDataset .*got LooksLikeOne"):
        soft_labels_from_dataset(LooksLikeOne())
