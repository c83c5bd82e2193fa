"""MultiAnnotatorDataset: construction, encoding, row-wise operations, votes, predictions."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import ClassificationMetric
from hypothesis import given, settings
from hypothesis import strategies as st

from aif360_subjective.datasets import MISSING_CODE, MultiAnnotatorDataset


@pytest.fixture
def small():
    ann = pd.DataFrame({
        "item": ["a", "a", "a", "b", "b", "c"],
        "annotator": [1, 2, 3, 1, 2, 3],
        "label": [1, 1, 0, 0, 1, 0],
    })
    annotators = pd.DataFrame({"gender": ["f", "m"], "age": [20, 30]}, index=[1, 2])
    items = pd.DataFrame({"len": [3.0, 4.0, 5.0], "ns": ["user", "article", "user"], "text": ["x", "y", "z"]},
                         index=["a", "b", "c"])
    return ann, annotators, items


def build(small, **kw):
    ann, annotators, items = small
    kw.setdefault("annotators", annotators)
    kw.setdefault("items", items)
    kw.setdefault("item_features", ["len", "ns"])
    return MultiAnnotatorDataset(ann, favorable_label=0, unfavorable_label=1, **kw)


def test_rows_ids_and_features(small):
    ds = build(small)
    assert isinstance(ds, BinaryLabelDataset)
    assert list(ds.item_ids) == ["a", "a", "a", "b", "b", "c"]
    assert list(ds.annotator_ids) == [1, 2, 3, 1, 2, 3]
    assert ds.feature_names == ["len", "ns=article", "ns=user", "gender", "age"]
    assert ds.protected_attribute_names == ["gender", "age"]
    assert ds.labels.ravel().tolist() == [1, 1, 0, 0, 1, 0]
    assert ds.favorable_label == 0.0 and ds.unfavorable_label == 1.0
    # favourable label 0 -> scores are 1 where the label is favourable
    assert ds.scores.ravel().tolist() == [0, 0, 1, 1, 0, 1]
    np.testing.assert_array_equal(ds.features[:, 0], [3, 3, 3, 4, 4, 5])
    np.testing.assert_array_equal(ds.features[:, 1], [0, 0, 0, 1, 1, 0])
    # annotator 3 has no demographics: kept, coded missing
    np.testing.assert_array_equal(ds.protected_attributes[:, 0], [0, 1, MISSING_CODE, 0, 1, MISSING_CODE])
    np.testing.assert_array_equal(ds.protected_attributes[:, 1], [20, 30, MISSING_CODE, 20, 30, MISSING_CODE])
    gender_map = ds.metadata["protected_attribute_maps"][0]
    assert gender_map[0.0] == "f" and gender_map[1.0] == "m" and np.isnan(gender_map[MISSING_CODE])
    assert ds.metadata["n_annotators_without_attributes"] == 1
    assert list(ds.annotators.index) == [1, 2, 3] and ds.annotators.loc[3].isna().all()
    assert ds.n_items == 3 and ds.n_annotators == 3
    assert ds.item_feature_names == ["len", "ns=article", "ns=user"]


def test_default_item_features_are_numeric_columns(small):
    ds = build(small, item_features=None)
    assert ds.feature_names == ["len", "gender", "age"]


def test_no_tables():
    ann = pd.DataFrame({"i": ["x", "y"], "w": ["u", "u"], "y": [1, 0]})
    ds = MultiAnnotatorDataset(ann, item_col="i", annotator_col="w", label_col="y")
    assert ds.feature_names == [] and ds.protected_attribute_names == []
    assert list(ds.items.index) == ["x", "y"] and list(ds.annotators.index) == ["u"]
    assert ds.favorable_label == 1.0


def test_string_labels_are_coded():
    ann = pd.DataFrame({"item": [1, 1, 2], "annotator": ["p", "q", "p"], "label": ["ok", "toxic", "ok"]})
    ds = MultiAnnotatorDataset(ann, favorable_label="ok", unfavorable_label="toxic")
    assert ds.labels.ravel().tolist() == [1.0, 0.0, 1.0]
    assert ds.metadata["label_maps"] == [{1.0: "ok", 0.0: "toxic"}]
    assert ds.to_dataframe()["label"].tolist() == ["ok", "toxic", "ok"]
    pred = ds.with_predictions(np.array(["toxic", "toxic", "ok"], dtype=object))
    assert pred.labels.ravel().tolist() == [0.0, 0.0, 1.0]


def test_string_digit_labels_with_numeric_favorable():
    ann = pd.DataFrame({"item": [1, 2], "annotator": ["p", "p"], "label": ["0", "1"]})
    ds = MultiAnnotatorDataset(ann, favorable_label=0, unfavorable_label=1)
    assert ds.labels.ravel().tolist() == [0.0, 1.0]


def test_pandas_string_dtype_ids():
    ann = pd.DataFrame({"item": pd.array(["a", "b"], dtype="string"), "annotator": pd.array(["u", "v"], dtype="string"),
                        "label": [0, 1]})
    ds = MultiAnnotatorDataset(ann)
    assert ds.item_ids.dtype == object and list(ds.item_ids) == ["a", "b"]


def test_item_summary_and_majority(small):
    ds = build(small)
    s = ds.item_summary()
    assert list(s.index) == ["a", "b", "c"]
    assert s["n_annotations"].tolist() == [3, 2, 1]
    assert s["n_favorable"].tolist() == [1, 1, 1]
    np.testing.assert_allclose(s["share_favorable"], [1 / 3, 0.5, 1.0])
    assert s["majority_label"].tolist() == [1.0, 0.0, 0.0]  # tie on b -> favourable (0)
    np.testing.assert_allclose(s["agreement"], [2 / 3, 0.5, 1.0])
    h = -(1 / 3 * np.log2(1 / 3) + 2 / 3 * np.log2(2 / 3))
    np.testing.assert_allclose(s["entropy"], [h, 1.0, 0.0])
    assert str(s["entropy"].iloc[2]) == "0.0"
    assert ds.item_summary(tie="unfavorable")["majority_label"].tolist() == [1.0, 1.0, 0.0]
    dropped = ds.item_summary(tie="drop")["majority_label"]
    assert np.isnan(dropped.iloc[1])
    np.testing.assert_array_equal(ds.majority_labels(), [1, 1, 1, 0, 0, 0])


def test_majority_vote_dataset(small):
    ds = build(small)
    mv = ds.majority_vote()
    assert type(mv) is BinaryLabelDataset
    assert mv.instance_names == ["a", "b", "c"]
    assert mv.labels.ravel().tolist() == [1.0, 0.0, 0.0]
    assert mv.feature_names == ["len", "ns=article", "ns=user"]
    np.testing.assert_array_equal(mv.features[:, 0], [3, 4, 5])
    assert mv.favorable_label == 0.0
    dr = ds.majority_vote(tie="drop")
    assert dr.instance_names == ["a", "c"] and dr.metadata["n_dropped_ties"] == 1
    assert dr.metadata["n_items"] == 3
    with pytest.raises(ValueError, match="tie"):
        ds.majority_vote(tie="random")


def test_subset_keeps_ids(small):
    ds = build(small)
    sub = ds.subset([5, 0])
    assert list(sub.item_ids) == ["c", "a"] and list(sub.annotator_ids) == [3, 1]
    assert sub.labels.ravel().tolist() == [0, 1]
    assert sub.instance_names == ["5", "0"]
    mask = ds.subset(np.array([True, False, False, False, False, True]))
    assert list(mask.item_ids) == ["a", "c"]
    with pytest.raises(TypeError, match="indexes"):
        ds.subset(np.array([0.5]))


def test_copy_and_equality(small):
    ds = build(small)
    cp = ds.copy()
    assert cp == ds and isinstance(cp, MultiAnnotatorDataset)
    deep = ds.copy(deepcopy=True)
    assert deep == ds
    deep.annotator_ids = deep.annotator_ids[::-1].copy()
    assert deep != ds  # ids take part in equality
    assert ds.copy().item_ids is ds.item_ids  # shallow copy shares arrays, as AIF360's


def test_copies_do_not_share_tables_with_the_original(small):
    """Regression: with_predictions (through copy) shared annotation_info with the original, so writing predicted
    ratings into the classified copy rewrote the annotators' own."""
    ann, annotators, items = small
    ds = MultiAnnotatorDataset(
        ann.assign(rating=[1, 2, 5, 4, 4, 1]), annotators=annotators, items=items, item_features=["len", "ns"],
        favorable_label=0, unfavorable_label=1, info_columns=["rating"])
    pred = ds.with_predictions(np.zeros(6))
    pred.annotation_info["rating"] = 3
    pred.annotation_info["extra"] = 1
    pred.annotators.loc[1, "gender"] = "x"
    pred.items.loc["a", "len"] = 0.0
    assert ds.annotation_info.columns.tolist() == ["rating"]
    assert ds.annotation_info["rating"].tolist() == [1, 2, 5, 4, 4, 1]
    assert ds.annotators.loc[1, "gender"] == "f" and ds.items.loc["a", "len"] == 3.0
    cp = ds.copy()
    cp.annotation_info.iloc[0, 0] = 99
    assert ds.annotation_info.iloc[0, 0] == 1 and cp.item_ids is ds.item_ids  # ids still shared (never edited)
    assert ds.copy() == ds and ds.copy().metadata["transformer"] == "MultiAnnotatorDataset.copy"


def test_with_predictions_info_columns(small):
    ann, annotators, items = small
    ds = MultiAnnotatorDataset(ann.assign(rating=[1, 2, 5, 4, 4, 1]), favorable_label=0, unfavorable_label=1,
                               info_columns=["rating"])
    pred = ds.with_predictions(np.zeros(6), info={"rating": pd.Series([2, 4, 1], index=["a", "b", "c"])})
    assert pred.annotation_info["rating"].tolist() == [2, 2, 2, 4, 4, 1]
    assert ds.annotation_info["rating"].tolist() == [1, 2, 5, 4, 4, 1]
    assert pred.metadata["params"] == {"info": ["rating"]}
    with pytest.raises(TypeError, match=r"info must be a mapping \{annotation_info column \(str\): values\}"):
        ds.with_predictions(np.zeros(6), info=[1, 2])
    with pytest.raises(ValueError, match=r"info\['rating'\] must have one value per row \(6\)"):
        ds.with_predictions(np.zeros(6), info={"rating": [1, 2]})


def test_split_by_item_partitions_and_is_seeded(small):
    ds = build(small)
    tr, te = ds.split([0.67], shuffle=True, seed=3)
    assert not set(tr.item_ids) & set(te.item_ids)
    assert len(tr.labels) + len(te.labels) == len(ds.labels)
    again = ds.split([0.67], shuffle=True, seed=3)
    assert list(again[0].item_ids) == list(tr.item_ids)
    assert tr.metadata["transformer"] == "MultiAnnotatorDataset.split"
    folds = ds.split(3)
    assert [f.n_items for f in folds] == [1, 1, 1]
    by_ann = ds.split(3, by="annotator")
    assert all(f.n_annotators == 1 for f in by_ann)
    by_row = ds.split([2, 4], by="annotation")
    assert [len(f.labels) for f in by_row] == [2, 2, 2]


@pytest.mark.parametrize("spec, exc", [
    ([1.5], ValueError), ([0.6, 0.3], ValueError), (0, ValueError), (10, ValueError), ([1, 0.5], TypeError),
    ("half", TypeError), ([], TypeError), (True, TypeError), ([7], ValueError),
])
def test_split_bad_specs(small, spec, exc):
    with pytest.raises(exc, match="num_or_size_splits|cut positions"):
        build(small).split(spec)


def test_split_bad_by(small):
    with pytest.raises(ValueError, match="by='worker'"):
        build(small).split([0.5], by="worker")


def test_align_datasets_matches_rows(small):
    ds = build(small)
    pred = ds.with_predictions(np.array([0, 1, 0, 1, 0, 1]))
    shuffled = pred.subset([3, 1, 5, 0, 2, 4])
    aligned = ds.align_datasets(shuffled)
    assert list(aligned.item_ids) == list(ds.item_ids)
    assert list(aligned.annotator_ids) == list(ds.annotator_ids)
    assert aligned.labels.ravel().tolist() == [0, 1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="different .item, annotator. pairs"):
        ds.align_datasets(pred.subset([0, 1]))
    with pytest.raises(TypeError):
        ds.align_datasets(ds.majority_vote())


def test_with_predictions_forms(small):
    ds = build(small)
    by_item = ds.with_predictions(pd.Series([1, 0, 0], index=["a", "b", "c"]))
    assert by_item.labels.ravel().tolist() == [1, 1, 1, 0, 0, 0]
    pairs = pd.Series([1, 0], index=pd.MultiIndex.from_tuples([("a", 2), ("c", 3)]))
    with pytest.raises(ValueError, match="no value for 4 row"):
        ds.with_predictions(pairs)
    full = pd.Series(range(6), index=pd.MultiIndex.from_arrays([ds.item_ids, ds.annotator_ids])) % 2
    assert ds.with_predictions(full).labels.ravel().tolist() == [0, 1, 0, 1, 0, 1]
    scored = ds.with_predictions(np.zeros(6), scores=np.full(6, 0.7))
    assert scored.scores.ravel().tolist() == [0.7] * 6
    with pytest.raises(ValueError, match="outside"):
        ds.with_predictions(np.full(6, 2))
    with pytest.raises(ValueError, match="one value per row"):
        ds.with_predictions(np.zeros(5))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ds.with_predictions(np.zeros(6), scores=np.full(6, 1.5))
    assert ds.labels.ravel().tolist() == [1, 1, 0, 0, 1, 0]  # input untouched


def test_classification_metric_works_on_annotation_rows(small):
    ds = build(small)
    pred = ds.with_predictions(pd.Series([1, 0, 0], index=["a", "b", "c"]))
    m = ClassificationMetric(ds, pred, privileged_groups=[{"gender": 1}], unprivileged_groups=[{"gender": 0}])
    assert m.accuracy() == pytest.approx(4 / 6)
    assert m.accuracy(privileged=True) == pytest.approx(0.5)  # annotator 2 (m): labels 1, 1; preds 1, 0
    assert m.accuracy(privileged=False) == pytest.approx(1.0)  # annotator 1 (f): labels 1, 0; preds 1, 0
    with pytest.raises(ValueError):
        ClassificationMetric(ds, pred.subset([1, 0, 2, 3, 4, 5]))


def test_to_dataframe(small):
    df = build(small).to_dataframe()
    assert list(df.columns[:3]) == ["item", "annotator", "label"]
    assert df["label"].tolist() == [1, 1, 0, 0, 1, 0]
    assert df.index.name == "annotation"


def test_annotator_summary(small):
    s = build(small).annotator_summary()
    assert s.loc[1, "n_annotations"] == 2 and s.loc[3, "n_favorable"] == 2


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("mutate, exc, match", [
    (lambda a: a.drop(columns="label"), ValueError, "label_col='label' is not a column"),
    (lambda a: a.iloc[:0], ValueError, "empty"),
    (lambda a: a.assign(label=[1, np.nan, 0, 0, 1, 0]), ValueError, "1 missing label"),
    (lambda a: a.assign(label=[1, 2, 0, 0, 1, 0]), ValueError, "outside"),
    (lambda a: a.assign(label=["x", "1", "0", "0", "1", "0"]), ValueError, "outside"),
    (lambda a: a.assign(annotator=[1, 1, 3, 1, 2, 3]), ValueError, "duplicate .item, annotator."),
    (lambda a: a.assign(item=["a", None, "a", "b", "b", "c"]), ValueError, "missing id"),
])
def test_bad_annotations(small, mutate, exc, match):
    ann, annotators, items = small
    with pytest.raises(exc, match=match):
        MultiAnnotatorDataset(mutate(ann.copy()), annotators=annotators, items=items,
                              favorable_label=0, unfavorable_label=1)


def test_bad_arguments(small):
    ann, annotators, items = small
    with pytest.raises(TypeError, match="DataFrame"):
        MultiAnnotatorDataset(ann.to_dict())
    with pytest.raises(ValueError, match="three different"):
        MultiAnnotatorDataset(ann, item_col="item", annotator_col="item")
    with pytest.raises(TypeError, match="item_col"):
        MultiAnnotatorDataset(ann, item_col=0)
    with pytest.raises(ValueError, match="must differ"):
        MultiAnnotatorDataset(ann, favorable_label=1, unfavorable_label=1)
    with pytest.raises(TypeError, match="annotators must be"):
        MultiAnnotatorDataset(ann, annotators=[1, 2])
    with pytest.raises(ValueError, match="duplicate id"):
        MultiAnnotatorDataset(ann, annotators=pd.DataFrame({"g": [1, 2]}, index=[1, 1]))
    with pytest.raises(ValueError, match="duplicate id"):
        MultiAnnotatorDataset(ann, items=pd.DataFrame({"f": [1, 2]}, index=["a", "a"]))
    with pytest.raises(ValueError, match="not columns of annotators"):
        MultiAnnotatorDataset(ann, annotators=annotators, protected_attribute_names=["sex"])
    with pytest.raises(ValueError, match="not columns of items"):
        MultiAnnotatorDataset(ann, items=items, item_features=["length"])
    with pytest.raises(ValueError, match="no id of the annotations is in the annotators"):
        MultiAnnotatorDataset(ann, annotators=annotators.set_axis(["1", "2"]))
    with pytest.raises(ValueError, match="item feature 'len' is missing for 1"):
        MultiAnnotatorDataset(ann, items=items.iloc[:2])
    with pytest.raises(ValueError, match="without an annotators table"):
        MultiAnnotatorDataset(ann, protected_attribute_names=["g"])
    with pytest.raises(ValueError, match="same name"):
        MultiAnnotatorDataset(ann, annotators=pd.DataFrame({"len": [1, 2]}, index=[1, 2]), items=items)
    with pytest.raises(ValueError, match="ambiguous"):
        MultiAnnotatorDataset(ann, annotators=pd.DataFrame({"score": [-1.0, np.nan]}, index=[1, 2]))


# ---------------------------------------------------------------- properties
@st.composite
def annotation_tables(draw):
    n_items = draw(st.integers(1, 6))
    n_ann = draw(st.integers(1, 5))
    pairs = draw(st.sets(st.tuples(st.integers(0, n_items - 1), st.integers(0, n_ann - 1)), min_size=1,
                         max_size=n_items * n_ann))
    pairs = sorted(pairs)
    labels = draw(st.lists(st.integers(0, 1), min_size=len(pairs), max_size=len(pairs)))
    return pd.DataFrame({"item": [f"i{p[0]}" for p in pairs], "annotator": [p[1] for p in pairs],
                         "label": labels})


def _multiset(ds):
    return Counter(zip(ds.item_ids.tolist(), ds.annotator_ids.tolist(), ds.labels.ravel().tolist()))


@settings(max_examples=60, deadline=None)
@given(table=annotation_tables(), by=st.sampled_from(["item", "annotator", "annotation"]),
       frac=st.floats(0.1, 0.9), seed=st.integers(0, 2**16), shuffle=st.booleans())
@pytest.mark.slow
def test_split_partitions_the_annotations(table, by, frac, seed, shuffle):
    ds = MultiAnnotatorDataset(table)
    parts = ds.split([frac], shuffle=shuffle, seed=seed, by=by)
    assert sum((_multiset(p) for p in parts), Counter()) == _multiset(ds)
    if by != "annotation":
        ids = [set(p.item_ids if by == "item" else p.annotator_ids) for p in parts]
        assert not ids[0] & ids[1]
    for p in parts:  # ids still aligned with the rows' labels
        pos = ds.row_positions(p.item_ids, p.annotator_ids)
        np.testing.assert_array_equal(ds.labels.ravel()[pos], p.labels.ravel())


@settings(max_examples=40, deadline=None)
@given(table=annotation_tables())
@pytest.mark.slow
def test_majority_vote_is_invariant_to_row_order(table):
    ds = MultiAnnotatorDataset(table)
    shuffled = MultiAnnotatorDataset(table.iloc[::-1].reset_index(drop=True))
    a = ds.item_summary().sort_index()
    b = shuffled.item_summary().sort_index()
    pd.testing.assert_frame_equal(a, b)


def test_info_columns_follow_rows(small):
    ann, annotators, items = small
    ann = ann.assign(score=[-2, -1, 0, 1, 2, 0])
    ds = MultiAnnotatorDataset(ann, info_columns=["score"], favorable_label=0, unfavorable_label=1)
    assert ds.annotation_info["score"].tolist() == [-2, -1, 0, 1, 2, 0]
    sub = ds.subset([4, 1])
    assert sub.annotation_info["score"].tolist() == [2, -1]
    parts = ds.split([0.5], shuffle=True, seed=1)
    for p in parts:
        np.testing.assert_array_equal(p.annotation_info["score"], ann["score"].to_numpy()[
            ds.row_positions(p.item_ids, p.annotator_ids)])
    assert list(ds.to_dataframe().columns[:4]) == ["item", "annotator", "label", "score"]
    with pytest.raises(ValueError, match="info_columns"):
        MultiAnnotatorDataset(ann, info_columns=["nope"])
