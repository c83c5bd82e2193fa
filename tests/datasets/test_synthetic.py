"""make_subjective_dataset: sizes, planted structure, determinism, bad arguments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset


def test_shapes_and_tables():
    ds = make_subjective_dataset(n_items=200, n_annotators=40, annotations_per_item=4, random_state=0)
    assert isinstance(ds, MultiAnnotatorDataset)
    assert len(ds.labels) == 800 and ds.n_items == 200
    assert ds.favorable_label == 0.0
    assert ds.protected_attribute_names == ["gender", "age_group", "education"]
    assert ds.item_feature_names == ["x0", "x1", "x2", "x3", "x4"]
    assert ds.annotators["kind"].value_counts().to_dict() == {"regular": 32, "minority": 6, "spammer": 2}
    assert ds.items["contested"].sum() == 60
    assert ds.items["consensus_label"].sum() == 60
    per_item = pd.Series(ds.item_ids).value_counts()
    assert (per_item == 4).all()


def test_same_seed_same_data_and_different_seed_differs():
    a = make_subjective_dataset(n_items=50, n_annotators=10, annotations_per_item=3, random_state=7)
    b = make_subjective_dataset(n_items=50, n_annotators=10, annotations_per_item=3, random_state=7)
    c = make_subjective_dataset(n_items=50, n_annotators=10, annotations_per_item=3, random_state=8)
    assert a == b
    assert a != c


def test_planted_behaviour():
    ds = make_subjective_dataset(n_items=2000, n_annotators=60, annotations_per_item=6, noise=0.05,
                                 random_state=1)
    df = ds.to_dataframe().join(ds.annotators["kind"], on="annotator")
    df = df.join(ds.items[["contested", "consensus_label"]], on="item")
    agree = (df["label"] == df["consensus_label"]).groupby(df["kind"]).mean()
    assert agree["regular"] == pytest.approx(0.95, abs=0.02)
    assert 0.4 < agree["spammer"] < 0.6
    minority_contested = df[(df["kind"] == "minority") & df["contested"]]
    assert minority_contested["label"].mean() == pytest.approx(0.95, abs=0.03)
    young = ds.annotators["age_group"].eq("18-30").groupby(ds.annotators["kind"]).mean()
    assert young["minority"] > 0.6 > young["regular"]


def test_heavy_tailed_activity():
    ds = make_subjective_dataset(n_items=3000, n_annotators=100, annotations_per_item=5, activity_skew=1.0,
                                 random_state=2)
    counts = ds.annotator_summary()["n_annotations"]
    assert counts.max() > 3 * counts.median()
    flat = make_subjective_dataset(n_items=3000, n_annotators=100, annotations_per_item=5, activity_skew=0,
                                   random_state=2)
    assert flat.annotator_summary()["n_annotations"].max() < 2 * 150


def test_every_annotator_label_is_binary_and_pairs_unique():
    ds = make_subjective_dataset(n_items=300, n_annotators=12, annotations_per_item=12, random_state=3)
    assert set(np.unique(ds.labels)) <= {0.0, 1.0}
    assert ds.annotator_summary()["n_annotations"].eq(300).all()


@pytest.mark.parametrize("kw, exc, match", [
    ({"n_items": 0}, ValueError, "n_items"),
    ({"n_items": 2.5}, TypeError, "n_items"),
    ({"annotations_per_item": 200}, ValueError, "exceeds n_annotators"),
    ({"minority_fraction": 1.5}, ValueError, "minority_fraction"),
    ({"minority_fraction": 0.6, "spammer_fraction": 0.6}, ValueError, "<= 1"),
    ({"noise": -0.1}, ValueError, "noise"),
    ({"n_features": 1}, ValueError, "n_features"),
    ({"activity_skew": -1}, ValueError, "activity_skew"),
])
def test_bad_arguments(kw, exc, match):
    with pytest.raises(exc, match=match):
        make_subjective_dataset(**kw)
