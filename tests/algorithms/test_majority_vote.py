"""MajorityVoteClassifier (the paper's Model 1): trained on majority votes, one prediction per item."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.transformer import NotFittedError
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.tree import DecisionTreeClassifier

from aif360_subjective.algorithms.inprocessing import MajorityVoteClassifier
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset

# 4 items with one feature x; 3 annotators each. Majority: i1 1 (2 of 3), i2 0 (1 of 3), i3 1 (3 of 3),
# i4 0 (0 of 3). A depth-1 tree on x learns x >= 0.5 -> 1 exactly.
ITEMS = pd.DataFrame({"x": [1.0, 0.0, 1.0, 0.0]}, index=pd.Index(["i1", "i2", "i3", "i4"], name="item"))
LABELS = {"i1": [1, 1, 0], "i2": [0, 1, 0], "i3": [1, 1, 1], "i4": [0, 0, 0]}


def _ds(labels=LABELS, fav=1, unfav=0, items=ITEMS):
    rows = [(i, a, lab) for i, labs in labels.items() for a, lab in zip("abc", labs, strict=True)]
    df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return MultiAnnotatorDataset(df, items=items, favorable_label=fav, unfavorable_label=unfav)


def test_hand_computed_majority_labels_broadcast_to_rows():
    ds = _ds()
    model = MajorityVoteClassifier(DecisionTreeClassifier(max_depth=1, random_state=0)).fit(ds)
    assert model.n_training_items_ == 4 and model.item_features_ == ["x"]
    pred = model.predict(ds)
    # each row gets its item's majority label: i1 -> 1, i2 -> 0, i3 -> 1, i4 -> 0
    np.testing.assert_array_equal(pred.labels.ravel(), np.repeat([1.0, 0.0, 1.0, 0.0], 3))
    np.testing.assert_array_equal(pred.item_ids, ds.item_ids)
    np.testing.assert_array_equal(pred.annotator_ids, ds.annotator_ids)
    np.testing.assert_array_equal(pred.scores.ravel(), np.repeat([1.0, 0.0, 1.0, 0.0], 3))
    assert pred.metadata["transformer"] == "MajorityVoteClassifier.predict"
    np.testing.assert_array_equal(ds.labels.ravel(), [1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0])  # input untouched


def test_string_labels_are_decoded():
    labels = {k: ["toxic" if v else "ok" for v in vals] for k, vals in LABELS.items()}
    ds = _ds(labels, fav="ok", unfav="toxic")
    pred = MajorityVoteClassifier(DecisionTreeClassifier(max_depth=1, random_state=0)).fit(ds).predict(ds)
    # favourable "ok" is coded 1.0: i1 majority toxic (2 of 3) -> 0.0, i2 ok -> 1.0, i3 toxic, i4 ok
    np.testing.assert_array_equal(pred.labels.ravel(), np.repeat([0.0, 1.0, 0.0, 1.0], 3))
    np.testing.assert_array_equal(pred.original_labels()[:3], ["toxic"] * 3)


def test_tie_policy_of_the_training_labels():
    labels = {"i1": [1, 0], "i2": [0, 0], "i3": [1, 1], "i4": [0, 1]}
    rows = [(i, a, lab) for i, labs in labels.items() for a, lab in zip("ab", labs, strict=True)]
    ds = MultiAnnotatorDataset(pd.DataFrame(rows, columns=["item", "annotator", "label"]), items=ITEMS)
    dropped = MajorityVoteClassifier(DecisionTreeClassifier(max_depth=1, random_state=0), tie="drop").fit(ds)
    assert dropped.n_training_items_ == 2 and dropped.n_dropped_ties_ == 2


def test_same_as_the_pipeline_it_replaces():
    ds = make_subjective_dataset(n_items=400, n_annotators=30, random_state=2)
    train, test = ds.split([0.7], shuffle=True, seed=0)
    mv = train.majority_vote()
    lr = LogisticRegression(max_iter=1000).fit(mv.features, mv.labels.ravel())
    cols = [test.feature_names.index(c) for c in test.item_feature_names]
    expected = lr.predict(test.features[:, cols])
    got = MajorityVoteClassifier().fit(train).predict(test)
    np.testing.assert_array_equal(got.labels.ravel(), expected)
    # one prediction per item
    frame = pd.DataFrame({"item": got.item_ids, "pred": got.labels.ravel()})
    assert frame.groupby("item")["pred"].nunique().eq(1).all()


def test_seeded_estimator_is_deterministic():
    ds = make_subjective_dataset(n_items=300, n_annotators=20, random_state=3)
    a = MajorityVoteClassifier(SGDClassifier(), random_state=5).fit(ds).predict(ds)
    b = MajorityVoteClassifier(SGDClassifier(), random_state=5).fit(ds).predict(ds)
    np.testing.assert_array_equal(a.labels, b.labels)


def test_errors():
    ds = _ds()
    with pytest.raises(NotFittedError, match="fit"):
        MajorityVoteClassifier().predict(ds)
    with pytest.raises(TypeError, match="dataset must be a MultiAnnotatorDataset"):
        MajorityVoteClassifier().fit(ds.majority_vote())
    with pytest.raises(TypeError, match="estimator must be"):
        MajorityVoteClassifier(estimator="lr")
    with pytest.raises(ValueError, match="tie must be one of"):
        MajorityVoteClassifier(tie="coin")
    with pytest.raises(TypeError, match="random_state must be None"):
        MajorityVoteClassifier(random_state=True)
    with pytest.raises(ValueError, match="single label value"):
        MajorityVoteClassifier().fit(_ds({k: [1, 1, 1] for k in LABELS}))
    with pytest.raises(ValueError, match="no item features"):
        MajorityVoteClassifier().fit(_ds(items=None))
    fitted = MajorityVoteClassifier().fit(ds)
    other = _ds(items=ITEMS.rename(columns={"x": "y"}))
    with pytest.raises(ValueError, match="item features"):
        fitted.predict(other)


# ----------------------------------------------------------------------------------------------- item text
# Items i1, i3 (majority 1) talk about cats, i2, i4 (majority 0) about dogs: the words separate the labels.
TEXT_ITEMS = ITEMS.assign(
    text=["the cat sat on the mat", "a dog ran in the park", "my cat likes warm milk", "the dog barks at night"],
    lang="en", source=["x", "y", "x", "y"])


def test_text_columns_finds_free_text_only():
    from aif360_subjective.algorithms.inprocessing.majority_vote import text_columns

    # 'lang' is constant, 'source' repeats, 'x' is numeric: only 'text' is free text
    assert text_columns(TEXT_ITEMS) == ["text"]
    # a short name per item ("synthetic item 12": 3 words) is a label, not text
    assert text_columns(ITEMS.assign(text=[f"synthetic item {i}" for i in range(4)])) == []
    # dicts (soft labels) are not text
    assert text_columns(ITEMS.assign(soft=[{"0": 0.5, "1": 0.5, "a b c d e": 1}] * 4)) == []
    assert text_columns(pd.DataFrame()) == []


def test_learns_from_the_text_when_there_is_text():
    ds = _ds(items=TEXT_ITEMS)
    model = MajorityVoteClassifier(random_state=0).fit(ds)
    assert model.text_columns_ == ["text"]
    pred = model.predict(ds)
    # TF-IDF + balanced logistic regression recovers the majority labels i1 1, i2 0, i3 1, i4 0
    np.testing.assert_array_equal(pred.labels.ravel(), np.repeat([1.0, 0.0, 1.0, 0.0], 3))
    # an unseen item about a cat is read as the cat items
    new = MultiAnnotatorDataset(pd.DataFrame({"item": ["n1"], "annotator": ["a"], "label": [0]}),
                                items=pd.DataFrame({"x": [0.0], "text": ["a cat on a warm mat"]},
                                                   index=pd.Index(["n1"], name="item")),
                                favorable_label=1, unfavorable_label=0)
    assert model.predict(new).labels.ravel().tolist() == [1.0]


def test_text_none_keeps_the_numeric_features_exactly():
    ds = _ds(items=TEXT_ITEMS)
    numeric = MajorityVoteClassifier(text=None).fit(ds)
    assert numeric.text_columns_ == [] and numeric.vectorizer_ is None
    mv = ds.majority_vote()
    lr = LogisticRegression(max_iter=1000).fit(mv.features, mv.labels.ravel())
    np.testing.assert_array_equal(numeric.predict(ds).labels.ravel()[::3], lr.predict(mv.features))
    named = MajorityVoteClassifier(text=["text"]).fit(ds)
    assert named.text_columns_ == ["text"]
    with pytest.raises(ValueError, match=r"text columns \['body'\] are not columns of the item table"):
        MajorityVoteClassifier(text=["body"]).fit(ds)
    with pytest.raises(TypeError, match="text must be 'auto', None or a non-empty list"):
        MajorityVoteClassifier(text="body")


def test_a_constant_classifier_warns():
    from aif360_subjective._labels import OneClassPredictionWarning, one_class_message

    # every item's features equal: the model can only answer one label (a 2-2 tie of the majority labels: the
    # tree answers the first class, 0), for all 4 x 3 annotation rows; the value is the input's own label
    flat = _ds({k: ["no" if v == 0 else "yes" for v in vals] for k, vals in LABELS.items()}, fav="yes", unfav="no",
               items=pd.DataFrame({"x": [0.0] * 4}, index=ITEMS.index))
    model = MajorityVoteClassifier(DecisionTreeClassifier(max_depth=1, random_state=0)).fit(flat)
    with pytest.warns(OneClassPredictionWarning, match="predicts 'no' for all 12 predictions: a constant classifier"):
        model.predict(flat)
    assert one_class_message([0, 1, 0]) is None
    assert one_class_message(np.array([[0.0], [0.0]]), "M").startswith("M predicts 0 for all 2 predictions")
    assert one_class_message([]) is None and one_class_message([1]) is None
