"""grouping="discovered": annotator groups found by clustering annotators' behaviour (and attributes)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.opinion.annotations import encode_annotations
from aif360_subjective.opinion.groupers import MISSING_ATTRIBUTE, annotator_profiles, discovered_labels
from aif360_subjective.sklearn.metrics import opinion_exclusion


def _enc(y, ids_item, ids_ann, pos=1):
    y = np.asarray(y)
    return encode_annotations(y, y, np.asarray(ids_item), np.asarray(ids_ann), pos_label=pos)


def test_profiles_by_hand():
    # items 0, 1, 2; annotators a, b, c. Votes: item0 (1,1,0) -> 1; item1 (0,0,1) -> 0; item2 (1,0) tie -> 1
    enc = _enc([1, 1, 0, 0, 0, 1, 1, 0], [0, 0, 0, 1, 1, 1, 2, 2], ["a", "b", "c", "a", "b", "c", "a", "c"])
    table = pd.DataFrame({"g": ["x", None, "y"], "age": [20.0, 30.0, np.nan]}, index=["a", "b", "c"])
    prof = annotator_profiles(enc, table, ["g", "age"])
    assert list(prof.index) == ["a", "b", "c"]
    np.testing.assert_allclose(prof["adr"], [0, 0, 1])  # c always disagrees
    np.testing.assert_allclose(prof["positive_share"], [2 / 3, 1 / 2, 1 / 3])
    # c's disagreements: item0 said 0 (vote 1), item1 said 1 (vote 0), item2 said 0 (vote 1): 1 of 3 positive
    np.testing.assert_allclose(prof["dissent_positive"], [0.5, 0.5, 1 / 3])
    assert prof["g"].tolist() == ["x", MISSING_ATTRIBUTE, "y"]
    np.testing.assert_allclose(prof["age"], [20, 30, 25])  # missing numeric -> median


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_planted_minority_is_found(seed):
    ds = make_subjective_dataset(n_items=1500, n_annotators=100, minority_fraction=0.2, spammer_fraction=0,
                                 random_state=seed)
    enc = _enc(ds.labels.ravel(), ds.item_ids, ds.annotator_ids, pos=0)
    labels = discovered_labels(enc, ds.annotators, n_clusters=2, random_state=0)
    kinds = ds.annotators["kind"].reindex(labels.index)
    table = pd.crosstab(labels, kinds)
    minority_cluster = table["minority"].idxmax()
    assert table.loc[minority_cluster, "minority"] >= 0.9 * table["minority"].sum()
    assert table.loc[minority_cluster, "regular"] <= 0.1 * table["regular"].sum()


@pytest.mark.slow
def test_metric_and_functional_faces_agree_and_are_seeded():
    ds = make_subjective_dataset(n_items=600, n_annotators=50, random_state=3)
    pred = ds.with_predictions(ds.majority_labels())
    m = OpinionExclusionMetric(ds, pred, grouping="discovered", n_clusters=3, random_state=1)
    again = OpinionExclusionMetric(ds, pred, grouping="discovered", n_clusters=3, random_state=1)
    pd.testing.assert_frame_equal(m.group_performance(), again.group_performance())
    assert len(m.group_performance()) == 3
    y = ds.labels.ravel()
    res = opinion_exclusion(y, pred.labels.ravel(), item_ids=ds.item_ids, annotator_ids=ds.annotator_ids,
                            pos_label=0, grouping="discovered", n_clusters=3, random_state=1)
    assert res.unfairness == pytest.approx(m.unfairness())
    with_attrs = OpinionExclusionMetric(ds, pred, grouping="discovered", attributes=["age_group"], n_clusters=3,
                                        random_state=1)
    assert with_attrs.group_performance()["n_annotators"].sum() == ds.n_annotators


def test_bad_discovered_options():
    ds = make_subjective_dataset(n_items=100, n_annotators=10, random_state=0)
    pred = ds.with_predictions(ds.majority_labels())
    with pytest.raises(ValueError, match="n_clusters"):
        OpinionExclusionMetric(ds, pred, grouping="discovered", n_clusters=50).unfairness()
    with pytest.raises(ValueError, match="not annotator columns"):
        OpinionExclusionMetric(ds, pred, grouping="discovered", attributes=["height"]).unfairness()
