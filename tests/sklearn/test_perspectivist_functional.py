"""The perspectivist scores through the functional face (aif360_subjective.sklearn.metrics)."""

from __future__ import annotations

import pandas as pd
import pytest

from aif360_subjective.metrics import perspectivist
from aif360_subjective.sklearn import metrics as skm


def test_exports_are_the_core_functions():
    for name in ("soft_cross_entropy", "manhattan_distance", "wasserstein_distance", "annotator_error_rate",
                 "normalized_absolute_distance", "soft_labels"):
        assert name in skm.__all__ and getattr(skm, name) is getattr(perspectivist, name)


def test_series_in_the_aif360_sklearn_style():
    index = pd.MultiIndex.from_tuples([("A", 1), ("A", 2), ("A", 3), ("B", 1)], names=["item", "annotator"])
    y = pd.Series([1, 0, 1, 0], index=index)
    yhat = pd.Series([1, 1, 1, 1], index=index)
    items = y.index.get_level_values("item")
    # A: 1/3 wrong, B: 1/1 wrong -> 2/3
    assert skm.annotator_error_rate(y, yhat, item_ids=items) == pytest.approx(2 / 3)
    soft = skm.soft_labels(y, items, labels=[0, 1])
    # A: (1/3, 2/3), B: (1, 0); predicting (0.5, 0.5): A |1/3-1/2|*2 = 1/3, B 1 -> mean 2/3
    pred = pd.DataFrame(0.5, index=soft.index, columns=soft.columns)
    assert skm.manhattan_distance(soft, pred) == pytest.approx(2 / 3)
    assert skm.wasserstein_distance(soft, pred) == pytest.approx(1 / 3)
