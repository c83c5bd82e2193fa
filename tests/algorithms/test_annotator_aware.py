"""AnnotatorAwareClassifier (the paper's Model 2) and the paper's three-model comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.transformer import NotFittedError
from sklearn.tree import DecisionTreeClassifier

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier, MajorityVoteClassifier
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric


@pytest.fixture(scope="module")
def split():
    # a demographically correlated minority (30 % of annotators, mostly aged 18-30) that reads the
    # contested items differently; no spammers (the paper filters them with CrowdTruth first)
    ds = make_subjective_dataset(
        n_items=4000, n_annotators=300, minority_fraction=0.3, spammer_fraction=0.0, random_state=0
    )
    return ds.split([0.7], shuffle=True, seed=0)


def _model1(train, test):
    """Model 1: logistic regression on item features, trained on majority-vote labels."""
    return MajorityVoteClassifier().fit(train).predict(test)


@pytest.mark.slow
def test_paper_three_models(split):
    train, test = split
    m1 = OpinionExclusionMetric(test, _model1(train, test), min_group_size=10)
    pred2 = AnnotatorAwareClassifier().fit(train).predict(test)
    m2 = OpinionExclusionMetric(test, pred2, min_group_size=10)
    m3 = OpinionExclusionMetric(test, test.copy(), min_group_size=10)
    assert m2.unfairness() < 0.8 * m1.unfairness()  # measured: 0.055 vs 0.081
    assert abs(m2.performance() - m1.performance()) < 0.05  # similar general performance
    assert (m3.unfairness(), m3.performance()) == (0.0, 1.0)
    # Model 1 fails those who disagree most with the majority; Model 2 less so
    assert m1.worst_group() == m1.group_performance().index[-1]
    assert m2.group_performance()["performance"].iloc[-1] > m1.group_performance()["performance"].iloc[-1]


def test_predict_returns_a_classified_dataset_per_annotation(split):
    train, test = split
    clf = AnnotatorAwareClassifier()
    pred = clf.fit(train).predict(test)
    assert isinstance(pred, MultiAnnotatorDataset)
    assert np.array_equal(pred.item_ids, test.item_ids) and np.array_equal(pred.annotator_ids, test.annotator_ids)
    assert set(np.unique(pred.labels)) <= {0.0, 1.0}
    assert np.all((pred.scores >= 0) & (pred.scores <= 1))
    np.testing.assert_array_equal(pred.labels.ravel() == test.favorable_label, pred.scores.ravel() > 0.5)
    assert pred.metadata["transformer"] == "AnnotatorAwareClassifier.predict"
    # the same item gets different labels for different annotators
    df = pd.DataFrame({"item": pred.item_ids, "y": pred.labels.ravel()})
    assert (df.groupby("item")["y"].nunique() > 1).any()
    # the input is not modified
    assert np.array_equal(test.labels, split[1].labels)


@pytest.mark.slow
def test_annotator_ids_seen_and_unseen(split):
    train, test = split
    tr_a, te_a = train.split(2, by="annotator")  # te_a's annotators are unseen in tr_a
    clf = AnnotatorAwareClassifier(annotator_ids=True).fit(tr_a)
    seen = clf.predict(tr_a)
    unseen = clf.predict(te_a)
    assert len(unseen.labels) == len(te_a.labels)
    # for unseen annotators the id block is all zero: same prediction as with ids zeroed out
    x = clf._design(te_a, fit=False)
    n_id = len(clf.id_encoder_.categories_[0])
    assert x[:, -n_id:].nnz == 0
    assert x.shape[1] == clf._design(tr_a, fit=False).shape[1]
    assert (seen.labels.ravel() == tr_a.labels.ravel()).mean() > 0.7


def test_any_sklearn_estimator_and_options(split):
    train, test = split
    small = train.subset(np.arange(3000))
    pred = AnnotatorAwareClassifier(DecisionTreeClassifier(max_depth=3, random_state=0)).fit(small).predict(test)
    assert pred.labels.shape == test.labels.shape
    plain = AnnotatorAwareClassifier(use_attributes=False).fit(small)
    assert plain.attribute_names_ == [] and plain.item_features_ == small.item_feature_names
    only_age = AnnotatorAwareClassifier(attributes=["age_group"], interactions=False).fit(small)
    assert only_age.attribute_names_ == ["age_group"]


def test_errors(split):
    train, _ = split
    with pytest.raises(NotFittedError):
        AnnotatorAwareClassifier().predict(train)
    with pytest.raises(TypeError, match="MultiAnnotatorDataset"):
        AnnotatorAwareClassifier().fit(train.majority_vote())
    with pytest.raises(ValueError, match="not annotator attributes"):
        AnnotatorAwareClassifier(attributes=["height"]).fit(train)
    one = train.with_predictions(np.zeros(len(train.labels)))
    with pytest.raises(ValueError, match="single label"):
        AnnotatorAwareClassifier().fit(one)
