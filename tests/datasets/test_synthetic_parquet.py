"""write_synthetic_parquet: layout, determinism, whole items per file, the planted minority."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import write_synthetic_parquet


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = write_synthetic_parquet(tmp_path_factory.mktemp("a"), 1000, 80, 6, items_per_file=300,
                                   contested_fraction=0.3, noise=0.0, spammer_fraction=0.0, random_state=7)
    return root


def test_layout(written):
    files = sorted((written / "annotations").glob("*.parquet"))
    assert [f.name for f in files] == [f"part-{k:05d}.parquet" for k in range(4)]  # 300, 300, 300, 100 items
    parts = [pd.read_parquet(f) for f in files]
    assert [len(p) for p in parts] == [1800, 1800, 1800, 600]
    df = pd.concat(parts, ignore_index=True)
    assert list(df.columns) == ["item", "annotator", "label", "prediction"]
    assert df.dtypes.astype(str).tolist() == ["int64", "int64", "int8", "int8"]
    # every file holds whole items, sorted by item then annotator; 6 distinct annotators per item
    assert [(p["item"].min(), p["item"].max()) for p in parts] == [(0, 299), (300, 599), (600, 899), (900, 999)]
    assert df.equals(df.sort_values(["item", "annotator"], ignore_index=True))
    assert (df.groupby("item")["annotator"].nunique() == 6).all()
    # one prediction per item
    assert (df.groupby("item")["prediction"].nunique() == 1).all()
    ann = pd.read_parquet(written / "annotators.parquet")
    assert len(ann) == 80 and set(ann["kind"]) == {"regular", "minority"}


def test_planted_minority(written):
    """Without noise, regular annotators agree on every item; minority ones label every contested item 1."""
    df = pd.read_parquet(written / "annotations")
    kind = pd.read_parquet(written / "annotators.parquet")["kind"]
    df["kind"] = kind.reindex(df["annotator"]).to_numpy()
    regular = df[df["kind"] == "regular"]
    assert (regular.groupby("item")["label"].nunique() <= 1).all()
    minority_pos = df[df["kind"] == "minority"].groupby("item")["label"].mean()
    regular_pos = regular.groupby("item")["label"].mean()
    both = pd.concat([minority_pos, regular_pos], axis=1, keys=["m", "r"]).dropna()
    assert ((both["m"] == 1) | (both["m"] == both["r"])).all()  # 1 on contested items, else the consensus
    assert (both["m"] > both["r"]).mean() > 0.1  # contested items with a negative consensus exist


def test_deterministic(tmp_path):
    a = write_synthetic_parquet(tmp_path / "a", 200, 30, 4, items_per_file=64, random_state=1)
    b = write_synthetic_parquet(tmp_path / "b", 200, 30, 4, items_per_file=64, random_state=1)
    pd.testing.assert_frame_equal(pd.read_parquet(a / "annotations"), pd.read_parquet(b / "annotations"))
    c = write_synthetic_parquet(tmp_path / "c", 200, 30, 4, items_per_file=64, random_state=2)
    assert not np.array_equal(pd.read_parquet(a / "annotations")["annotator"],
                              pd.read_parquet(c / "annotations")["annotator"])


@pytest.mark.parametrize("kw,exc,match", [
    ({"n_items": 0}, ValueError, "n_items must be >= 1, got 0"),
    ({"annotations_per_item": 40}, ValueError, "annotations_per_item=40 exceeds n_annotators=30"),
    ({"items_per_file": 2.5}, TypeError, "items_per_file must be an int >= 1, got 2.5"),
    ({"model_error": 1.5}, ValueError, "model_error must be in \\[0, 1\\], got 1.5"),
    ({"minority_fraction": 0.7, "spammer_fraction": 0.5}, ValueError, "minority_fraction \\+ spammer_fraction"),
])
def test_bad_arguments(tmp_path, kw, exc, match):
    args = {"n_items": 10, "n_annotators": 30, "annotations_per_item": 3, **kw}
    with pytest.raises(exc, match=match):
        write_synthetic_parquet(tmp_path, **args)
