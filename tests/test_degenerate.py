"""Degenerate but valid data keeps working, with the documented results."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.encoding import MAX_ONEHOT_LEVELS, encode_for_clustering
from aif360_subjective.metrics import OpinionExclusionMetric


def mad(items, annotators, labels) -> MultiAnnotatorDataset:
    return MultiAnnotatorDataset(pd.DataFrame({"item": items, "annotator": annotators, "label": labels}))


# ------------------------------------------------------------------------------------------ datasets
def test_one_annotator():
    ds = mad([1, 2, 3, 4], ["a"] * 4, [0, 1, 1, 0])
    assert ds.n_annotators == 1
    m = OpinionExclusionMetric(ds, ds.with_predictions([0, 1, 0, 0]))
    # the only annotator is every item's majority: ADR 0, one group, nobody to be unfair to
    assert m.disagreement_rates().tolist() == [0.0]
    assert len(m.group_performance()) == 1
    assert m.unfairness() == 0.0 and m.performance() == 0.75
    assert ds.majority_vote().labels.ravel().tolist() == [0.0, 1.0, 1.0, 0.0]


def test_one_item():
    ds = mad([1, 1, 1], ["a", "b", "c"], [0, 1, 1])
    mv = ds.majority_vote()
    assert mv.labels.ravel().tolist() == [1.0]
    m = OpinionExclusionMetric(ds, ds.with_predictions([1, 1, 1]))
    assert m.disagreement_rates().tolist() == [1.0, 0.0, 0.0]
    g = m.group_performance()
    assert g["performance"].tolist() == [1.0, 0.0]  # the two agreeing annotators, then the dissenter
    assert m.unfairness() == 0.5 and m.performance() == 0.5
    # a split by item cannot separate one item: the cut leaves one part empty (documented in split)
    parts = ds.split([0.5])
    assert [len(p.labels) for p in parts] == [0, 3]
    with pytest.raises(ValueError, match=r"num_or_size_splits=2 folds must be between 1 and the number of units"):
        ds.split(2)


def test_items_with_one_annotation():
    ds = mad([1, 2, 3], ["a", "b", "c"], [0, 1, 1])
    s = ds.item_summary()
    assert s["agreement"].tolist() == [1.0, 1.0, 1.0] and s["entropy"].tolist() == [0.0, 0.0, 0.0]
    m = OpinionExclusionMetric(ds, ds.with_predictions([1, 1, 1]))
    assert m.disagreement_rates().tolist() == [0.0, 0.0, 0.0]  # a lone annotator is the majority
    assert m.unfairness() == 0.0 and m.performance() == pytest.approx(2 / 3)
    amb = OpinionExclusionMetric(ds, ds.with_predictions([1, 1, 1]), grouping="ambiguity")
    assert len(amb.group_performance()) == 1  # every item has ambiguity 0
    pop = OpinionExclusionMetric(ds, ds.with_predictions([1, 1, 1]), grouping="popularity", bins="quantile:3")
    assert "all values equal" in pop.grouping_summary().summary()


def test_all_annotators_agree():
    ds = mad([1, 1, 2, 2], ["a", "b", "a", "b"], [1, 1, 0, 0])
    m = OpinionExclusionMetric(ds, ds.with_predictions([1, 1, 1, 1]))
    assert m.disagreement_rates().tolist() == [0.0, 0.0]
    g = m.group_performance()
    assert len(g) == 1 and g["n_annotators"].tolist() == [2]
    assert m.unfairness() == 0.0 and m.performance() == 0.5
    d = OpinionExclusionMetric(ds, ds.with_predictions([1, 1, 1, 1]), grouping="discovered", n_clusters=2,
                               random_state=0)
    assert d.group_performance()["n_annotators"].sum() == 2


def test_all_predictions_one_class():
    ds = mad([1, 1, 2, 2], ["a", "b", "a", "b"], [1, 0, 0, 0])
    m = OpinionExclusionMetric(ds, ds.with_predictions([0, 0, 0, 0]), performance="precision")
    # precision is undefined without favourable predictions: NaN, and the groups are reported as undefined
    assert np.isnan(m.unfairness()) and np.isnan(m.performance())
    assert len(m.grouping_summary().undefined_groups) == len(m.group_performance())
    acc = OpinionExclusionMetric(ds, ds.with_predictions([0, 0, 0, 0]))
    assert acc.performance() == pytest.approx(0.75)


def test_generator_extremes():
    one = make_subjective_dataset(n_items=1, n_annotators=1, annotations_per_item=1, random_state=0)
    assert len(one.labels) == 1
    plain = make_subjective_dataset(n_items=5, minority_fraction=0, spammer_fraction=0, contested_fraction=0,
                                    noise=0, base_rate=0, missing_demographics=1, activity_skew=0, random_state=0)
    assert (plain.labels == plain.favorable_label).all()  # no noise, no toxic item: every label favourable
    assert plain.annotators[["gender", "age_group", "education"]].isna().all().all()


def test_annotator_aware_classifier_with_one_annotator():
    ds = make_subjective_dataset(n_items=30, n_annotators=1, annotations_per_item=1, random_state=0)
    pred = AnnotatorAwareClassifier().fit(ds).predict(ds)
    assert len(pred.labels) == 30


# ------------------------------------------------------------------------------------------ subgroups
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("clustering", ["kmeans", "birch", "dbscan", "xmeans"])
def test_identical_rows_give_one_cluster(clustering):
    X = pd.DataFrame({"a": ["x"] * 10, "b": [1.0] * 10})
    y = np.arange(10) % 2
    k = 3 if clustering in ("kmeans", "birch") else None
    rep = detect_subgroups(X, y, y, clustering=clustering, n_clusters=k, random_state=0, discovery="asdf")
    # one distinct point: one cluster whatever n_clusters; it has no rest, so no fairness values
    assert rep.n_clusters == 1
    m = rep.subgroup_metrics()
    assert m["size"].tolist() == [10, 10]
    assert m["statistical_parity"].isna().all()
    assert (m["accuracy"] == 1.0).all()


def test_identical_rows_hierarchical_cut_repeats_one_pattern():
    X = pd.DataFrame({"a": ["x"] * 10, "b": [1.0] * 10})
    y = np.arange(10) % 2
    rep = detect_subgroups(X, y, y, n_clusters=3, random_state=0)
    info = rep.pattern_info()
    assert rep.n_clusters == 3  # the tree is cut anyway: three groups of the same point
    assert info["is_duplicate"].sum() == 2  # one pattern (a=x AND b=1.0), kept once
    assert info["size"].iloc[0] == 10


def test_two_rows():
    X = pd.DataFrame({"a": ["x", "y"]})
    rep = detect_subgroups(X, [0, 1], [0, 1])
    assert rep.n_clusters == 2
    assert rep.subgroup_metrics().loc["cluster", "size"].tolist() == [1, 1]


def test_a_single_outlier_is_its_own_subgroup():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": np.r_[rng.normal(0, 0.01, 40), [100.0]]})
    y = rng.integers(0, 2, 41)
    rep = detect_subgroups(X, y, y, n_clusters=2, random_state=0)
    sizes = sorted(rep.subgroup_metrics().loc["cluster", "size"].tolist())
    assert sizes == [1, 40]
    lone = rep.subgroup_metrics().loc["cluster"]
    assert lone.loc[lone["size"] == 1, "statistical_parity"].notna().all()  # a size-1 subgroup is measured


def test_constant_feature_next_to_informative_ones():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"const": 7.0, "g": rng.choice(["p", "q"], 50), "x": rng.normal(size=50)})
    y = rng.integers(0, 2, 50)
    rep = detect_subgroups(X, y, y, n_clusters=3, random_state=0)
    Z, names = encode_for_clustering(X, ["g"])
    assert (Z[:, names.index("const")] == 0.0).all()  # a constant column scales to 0, no division by zero
    assert (rep.entropies()["const"] == 0.0).all()  # and is dominant in every pattern
    assert rep.patterns()["const"].notna().all()


def test_all_predictions_one_class_subgroups():
    X = pd.DataFrame({"a": np.arange(12) % 3})
    y = np.arange(12) % 2
    rep = detect_subgroups(X, y, np.zeros(12, dtype=int), n_clusters=3, random_state=0)
    m = rep.subgroup_metrics()
    assert (m["statistical_parity"] == 0.0).all()  # everyone gets the same prediction
    assert (m["equal_opportunity"] == 0.0).all()  # TPR 0 everywhere


@pytest.mark.slow
def test_thousands_of_levels_bounded_memory_and_warning():
    rng = np.random.default_rng(0)
    n = 2000
    X = pd.DataFrame({"user": np.array([f"u{i}" for i in rng.permutation(n)], dtype=object),
                      "g": rng.choice(["a", "b"], n), "x": rng.normal(size=n)})
    y = rng.integers(0, 2, n)
    tracemalloc.start()
    try:
        with pytest.warns(UserWarning, match=r"categorical column 'user' has 2000 distinct values"):
            rep = detect_subgroups(X, y, y, n_clusters=4, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the dense one-hot matrix alone would be n x 2000 x 8 bytes = 32 MB
    assert peak < 16e6, peak
    assert rep.n_clusters == 4
    assert rep.patterns().shape[1] == 3  # patterns still see the raw column
    Z, names = encode_for_clustering(X, ["user", "g"])
    assert Z.shape == (n, 1 + MAX_ONEHOT_LEVELS + 1)


def test_few_levels_encode_exactly_as_the_reference():
    X = pd.DataFrame({"c": [f"v{i % (MAX_ONEHOT_LEVELS + 1)}" for i in range(200)]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z, names = encode_for_clustering(X, ["c"])
    ref = pd.get_dummies(X, columns=["c"], drop_first=True, dtype=float)
    assert Z.shape[1] == MAX_ONEHOT_LEVELS == ref.shape[1]
    assert np.array_equal(Z, ref.to_numpy())
