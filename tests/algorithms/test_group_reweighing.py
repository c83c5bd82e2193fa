"""AnnotatorGroupReweighing: every group of annotators weighs the same in training."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.transformer import NotFittedError

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier
from aif360_subjective.algorithms.preprocessing import AnnotatorGroupReweighing
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset


def _small():
    # annotators a, b in group "x" (3 annotations each), c in group "y" (2), d without a group value (1)
    ann = pd.DataFrame({
        "item": [1, 2, 3, 1, 2, 3, 1, 2, 3],
        "annotator": ["a", "a", "a", "b", "b", "b", "c", "c", "d"],
        "label": [0, 1, 0, 0, 1, 1, 1, 1, 0],
    })
    annotators = pd.DataFrame({"g": ["x", "x", "y", None]}, index=pd.Index(["a", "b", "c", "d"], name="annotator"))
    return MultiAnnotatorDataset(ann, item_col="item", annotator_col="annotator", label_col="label",
                                 annotators=annotators, favorable_label=0, unfavorable_label=1)


def test_weights_by_hand():
    ds = _small()
    rw = AnnotatorGroupReweighing(grouping="demographic", attributes="g").fit(ds)
    # N = 8 grouped annotations, G = 2 groups: x has 6 -> 8 / (2 * 6) = 2/3, y has 2 -> 8 / (2 * 2) = 2
    gw = rw.group_weights_
    assert gw["n_annotations"].tolist() == [6, 2]
    assert gw["n_annotators"].tolist() == [2, 1]
    np.testing.assert_allclose(gw["weight"].to_numpy(), [2 / 3, 2.0])
    out = rw.transform(ds)
    expected = np.array([2 / 3] * 6 + [2.0, 2.0, 1.0])  # d is ungrouped: weight kept
    np.testing.assert_allclose(out.instance_weights, expected)
    assert rw.n_unweighted_ == 1
    # each group holds the same total weight
    ids = np.asarray(out.annotator_ids)
    assert out.instance_weights[np.isin(ids, ["a", "b"])].sum() == pytest.approx(4.0)
    assert out.instance_weights[ids == "c"].sum() == pytest.approx(4.0)
    np.testing.assert_array_equal(ds.instance_weights, np.ones(9))  # the input is not modified


def test_series_grouping_and_unseen_annotator():
    ds = _small()
    groups = pd.Series({"a": "p", "b": "q", "c": "q", "d": "q"})
    rw = AnnotatorGroupReweighing(grouping=groups).fit(ds.subset(np.asarray(ds.annotator_ids) != "d"))
    # fitted without d: p = a (3 annotations), q = b, c (5); N = 8 -> p 8/6, q 8/10
    np.testing.assert_allclose(rw.group_weights_["weight"].to_numpy(), [8 / 6, 8 / 10])
    out = rw.transform(ds)
    assert rw.n_unweighted_ == 1  # d was not seen in fit
    assert out.instance_weights[-1] == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="grouping must be one of"):
        AnnotatorGroupReweighing(grouping="ambiguity")
    with pytest.raises(TypeError, match="grouping must be a name or a pandas Series"):
        AnnotatorGroupReweighing(grouping=["adr"])
    with pytest.raises(TypeError, match="min_group_size must be an int"):
        AnnotatorGroupReweighing(min_group_size=1.5)
    with pytest.raises(NotFittedError):
        AnnotatorGroupReweighing().transform(_small())
    with pytest.raises(TypeError):
        AnnotatorGroupReweighing().fit(pd.DataFrame({"a": [1]}))


@pytest.mark.slow
def test_weights_reach_the_annotator_aware_model():
    ds = make_subjective_dataset(n_items=300, n_annotators=40, random_state=1)
    train, test = ds.split([0.7], shuffle=True, seed=0)
    plain = AnnotatorAwareClassifier().fit(train)
    weighted_train = AnnotatorGroupReweighing().fit_transform(train)
    assert np.ptp(weighted_train.instance_weights) > 0
    weighted = AnnotatorAwareClassifier().fit(weighted_train)
    assert not np.allclose(plain.estimator_.coef_, weighted.estimator_.coef_)
    # uniform weights: the same fit as without weights
    again = AnnotatorAwareClassifier().fit(train.copy(deepcopy=True))
    np.testing.assert_array_equal(plain.estimator_.coef_, again.estimator_.coef_)
