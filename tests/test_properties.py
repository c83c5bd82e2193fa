"""Property-based tests (hypothesis) of the invariants every metric must satisfy.

Small random multi-annotator tables and subgroup-discovery inputs; a modest number of examples so the file
runs in seconds.
"""

from __future__ import annotations

import importlib
import os

import numpy as np
import pandas as pd
import pytest
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import ClassificationMetric
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClusterMixin

from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric, SubgroupDiscoveryMetric
from aif360_subjective.sklearn.metrics import opinion_exclusion

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------- strategies
@st.composite
def annotation_tables(draw, min_items=2, max_items=8, max_annotators=6):
    """A long table (item, annotator, label, pred): every item annotated by >= 1 distinct annotators."""
    n_items = draw(st.integers(min_items, max_items))
    n_ann = draw(st.integers(2, max_annotators))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    who = rng.random((n_items, n_ann)) < draw(st.floats(0.3, 1.0))
    who[np.arange(n_items), rng.integers(0, n_ann, n_items)] = True  # nobody's item is empty
    item, ann = np.nonzero(who)
    n = len(item)
    label = (rng.random(n) < draw(st.floats(0.0, 1.0))).astype(int)
    pred = np.where(rng.random(n) < draw(st.floats(0.0, 1.0)), label, 1 - label)
    return pd.DataFrame({"item": item, "annotator": np.array([f"a{j}" for j in ann], dtype=object),
                         "label": label, "pred": pred})


def _permuted_and_renamed(df: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, dict, dict]:
    rng = np.random.default_rng(seed)
    items, anns = pd.unique(df["item"]), pd.unique(df["annotator"])
    item_map = dict(zip(items, [f"item-{k}" for k in rng.permutation(len(items))]))
    ann_map = dict(zip(anns, [f"person-{k}" for k in rng.permutation(len(anns))]))
    out = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
    out = out.assign(item=out["item"].map(item_map), annotator=out["annotator"].map(ann_map))
    return out, item_map, ann_map


def _oe(df: pd.DataFrame, **kw):
    return opinion_exclusion(df["label"], df["pred"], item_ids=df["item"], annotator_ids=df["annotator"], **kw)


# --------------------------------------------------------------------------------------------- opinion exclusion
@SETTINGS
@given(annotation_tables(), st.integers(0, 10**6), st.sampled_from(["adr", "ambiguity", "popularity"]),
       st.sampled_from(["favorable", "unfavorable", "drop"]))
@pytest.mark.slow
def test_opinion_exclusion_invariant_to_row_order_and_ids(df, seed, grouping, tie):
    other, _, ann_map = _permuted_and_renamed(df, seed)
    a, b = _oe(df, grouping=grouping, tie=tie, bins=3), _oe(other, grouping=grouping, tie=tie, bins=3)
    np.testing.assert_allclose(a.unfairness, b.unfairness, rtol=1e-12, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(a.performance, b.performance, rtol=1e-12, atol=1e-12, equal_nan=True)
    pd.testing.assert_frame_equal(a.group_table, b.group_table, rtol=1e-12, atol=1e-12)
    adr_b = b.disagreement_rates.rename(index={v: k for k, v in ann_map.items()}).reindex(a.disagreement_rates.index)
    np.testing.assert_allclose(a.disagreement_rates, adr_b, equal_nan=True)
    perf_b = b.annotator_performance.rename(index={v: k for k, v in ann_map.items()})
    np.testing.assert_allclose(a.annotator_performance, perf_b.reindex(a.annotator_performance.index),
                               equal_nan=True)
    assert a.report.n_ungrouped_annotations == b.report.n_ungrouped_annotations


@FEW
@given(annotation_tables(), st.integers(0, 10**6))
def test_opinion_exclusion_metric_class_invariant_to_row_order(df, seed):
    other, _, _ = _permuted_and_renamed(df, seed)
    metrics = []
    for table in (df, other):
        ds = MultiAnnotatorDataset(table[["item", "annotator", "label"]])
        metrics.append(OpinionExclusionMetric(ds, ds.with_predictions(table["pred"].to_numpy()), bins=4))
    a, b = metrics
    np.testing.assert_allclose([a.unfairness(), a.performance()], [b.unfairness(), b.performance()],
                               rtol=1e-12, atol=1e-12, equal_nan=True)
    pd.testing.assert_frame_equal(a.group_performance(), b.group_performance(), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(annotation_tables(), st.integers(0, 10**6))
@pytest.mark.slow
def test_item_summary_invariant_to_row_order_and_ids(df, seed):
    other, item_map, _ = _permuted_and_renamed(df, seed)
    a = MultiAnnotatorDataset(df[["item", "annotator", "label"]]).item_summary()
    b = MultiAnnotatorDataset(other[["item", "annotator", "label"]]).item_summary()
    b.index = b.index.map({v: k for k, v in item_map.items()})
    pd.testing.assert_frame_equal(a.sort_index(), b.sort_index(), check_index_type=False, check_names=False)


@SETTINGS
@given(annotation_tables(), st.sampled_from(["adr", "ambiguity", "popularity"]),
       st.sampled_from(["accuracy", "balanced_accuracy", "f1"]))
def test_perfect_predictions_are_fair_and_perfect(df, grouping, performance):
    res = _oe(df.assign(pred=df["label"]), grouping=grouping, performance=performance, bins=3)
    defined = res.group_table["performance"].dropna()
    assert (defined == 1.0).all()
    if len(defined):
        assert res.performance == 1.0 and res.unfairness == 0.0


@SETTINGS
@given(annotation_tables(), st.sampled_from(["favorable", "unfavorable"]))
@pytest.mark.slow
def test_majority_vote_predictor_accuracy_is_one_minus_adr(df, tie):
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]])
    pred = ds.with_predictions(ds.majority_labels(tie=tie))
    m = OpinionExclusionMetric(ds, pred, tie=tie)
    np.testing.assert_allclose(m.annotator_performance(), 1.0 - m.disagreement_rates(), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------------- datasets
@SETTINGS
@given(annotation_tables(min_items=3), st.sampled_from(["item", "annotator", "annotation"]),
       st.one_of(st.integers(2, 3), st.lists(st.floats(0.05, 0.95), min_size=1, max_size=3)), st.booleans(),
       st.integers(0, 1000))
@pytest.mark.slow
def test_split_partitions_rows(df, by, spec, shuffle, seed):
    ds = MultiAnnotatorDataset(df[["item", "annotator", "label"]])
    if isinstance(spec, list):
        spec = sorted(spec)
    units = {"item": ds.n_items, "annotator": ds.n_annotators, "annotation": len(ds.labels)}[by]
    if isinstance(spec, int) and spec > units:
        spec = units
    parts = ds.split(spec, shuffle=shuffle, seed=seed, by=by)
    pairs = [set(zip(p.item_ids.tolist(), p.annotator_ids.tolist())) for p in parts]
    assert sum(len(p.labels) for p in parts) == len(ds.labels)
    assert set().union(*pairs) == set(zip(ds.item_ids.tolist(), ds.annotator_ids.tolist()))
    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            assert not pairs[i] & pairs[j]
    if by != "annotation":
        ids = [set((p.item_ids if by == "item" else p.annotator_ids).tolist()) for p in parts]
        for i in range(len(ids)):
            for j in range(i + 1, len(ids)):
                assert not ids[i] & ids[j]  # no unit on two sides
    for p in parts:  # ids follow the rows
        pos = ds.row_positions(p.item_ids, p.annotator_ids)
        assert np.array_equal(ds.labels[pos], p.labels)


# --------------------------------------------------------------------------------------------- subgroups
class ThresholdClusterer(ClusterMixin, BaseEstimator):
    """Clusters by the value bands of the first encoded column: a clustering that ignores row order."""

    def __init__(self, n_clusters=3):
        self.n_clusters = n_clusters

    def fit(self, X, y=None):
        self.labels_ = np.minimum((np.asarray(X)[:, 0] * self.n_clusters).astype(int), self.n_clusters - 1)
        return self


@st.composite
def subgroup_inputs(draw):
    n = draw(st.integers(12, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = pd.DataFrame({"x": rng.integers(0, 6, n).astype(float), "g": rng.choice(["p", "q", "r"], n).astype(object),
                      "h": rng.choice(["s", "t"], n).astype(object)})
    y = rng.integers(0, 2, n)
    yp = np.where(rng.random(n) < draw(st.floats(0, 1)), y, 1 - y)
    return X, y, yp


@SETTINGS
@given(subgroup_inputs(), st.integers(0, 10**6), st.sampled_from(["nan", "asdf"]))
@pytest.mark.slow
def test_subgroup_metrics_invariant_to_row_order_and_index(inputs, seed, undefined_rates):
    X, y, yp = inputs
    order = np.random.default_rng(seed).permutation(len(X))
    kw = {"clustering": ThresholdClusterer(3), "entropy_threshold": 0.7, "undefined_rates": undefined_rates}
    a = detect_subgroups(X, y, yp, **kw)
    X2 = X.iloc[order].set_index(pd.Index([f"row{k}" for k in range(len(X))]))
    b = detect_subgroups(X2, y[order], yp[order], **kw)
    cols = ["size", "statistical_parity", "equal_opportunity", "equalized_odds", "accuracy", "accuracy_error"]
    pd.testing.assert_frame_equal(a.subgroup_metrics()[cols], b.subgroup_metrics()[cols], rtol=1e-9, atol=1e-12)
    pd.testing.assert_frame_equal(a.patterns(), b.patterns())
    assert np.array_equal(a.clusters.to_numpy()[order], b.clusters.to_numpy())


@SETTINGS
@given(subgroup_inputs(), st.sampled_from(["nan", "asdf"]))
@pytest.mark.slow
def test_perfect_predictions_have_no_subgroup_error_gap(inputs, undefined_rates):
    X, y, _ = inputs
    rep = detect_subgroups(X, y, y, clustering=ThresholdClusterer(3), undefined_rates=undefined_rates,
                           discovery="asdf")
    m = rep.subgroup_metrics()
    # Repeats of an earlier pattern carry the earlier pattern's size but, as in the reference, no metrics.
    repeat = np.r_[np.zeros(rep.n_clusters, bool), rep.pattern_info()["is_duplicate"].to_numpy(bool)]
    sized = (m["size"].fillna(0).to_numpy(dtype=float) > 0) & ~repeat
    assert (m.loc[sized, "accuracy"] == 1.0).all()
    assert (m.loc[sized, "accuracy_error"] == 0.0).all()
    if undefined_rates == "nan":  # where defined, both sides have TPR 1 and FPR 0
        for col in ("equal_opportunity", "equalized_odds"):
            assert (m[col].dropna() == 0.0).all()


def _bld(X: pd.DataFrame, y, fav=1.0) -> BinaryLabelDataset:
    enc = pd.get_dummies(X, columns=["g", "h"], prefix_sep="=", dtype=float)
    enc["y"] = np.asarray(y, dtype=float)
    return BinaryLabelDataset(df=enc, label_names=["y"], protected_attribute_names=["x"],
                              favorable_label=fav, unfavorable_label=1.0 - fav)


@FEW
@given(subgroup_inputs(), st.sampled_from([0.0, 1.0]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # aif360 divides by zero where a rate is undefined
@pytest.mark.slow
def test_discovered_subgroups_equal_aif360_classification_metric(inputs, fav):
    X, y, yp = inputs
    true = _bld(X, y, fav)
    pred = true.copy(deepcopy=True)
    pred.labels = np.asarray(yp, dtype=float).reshape(-1, 1)
    m = SubgroupDiscoveryMetric(true, pred, n_clusters=3, random_state=0, entropy_threshold=0.7)
    info = m.pattern_info()
    for kind in ("cluster", "entropy"):
        T, P = m.subgroup_datasets(kind)
        ours = m.subgroup_metrics().loc[kind]
        for i in ours.index:
            if kind == "entropy" and (info.loc[i, "is_empty"] or info.loc[i, "is_duplicate"]):
                continue
            subgroup, rest = m.aif360_groups(kind, i)
            cm = ClassificationMetric(T, P, privileged_groups=subgroup, unprivileged_groups=rest)
            assert cm.num_instances(privileged=True) == ours.loc[i, "size"]
            if cm.num_instances(privileged=False) == 0:
                continue  # no rest: our fairness values are NaN by definition
            theirs = {
                "statistical_parity": cm.statistical_parity_difference(),
                "equal_opportunity": cm.equal_opportunity_difference(),
                "equalized_odds": cm.average_odds_difference(),
                "accuracy": cm.accuracy(privileged=True),
            }
            for col, v in theirs.items():
                np.testing.assert_allclose(float(ours.loc[i, col]), v, atol=1e-12, equal_nan=True,
                                           err_msg=f"{kind} {i} {col}")


# --------------------------------------------------------------------------------------------- CrowdTruth
def _crowdtruth():
    try:
        return importlib.import_module("aif360_subjective.quality").crowdtruth_scores
    except AttributeError:
        msg = "aif360_subjective.quality.crowdtruth_scores is not available"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)


@FEW
@given(annotation_tables(max_items=10, max_annotators=6), st.integers(0, 10**6))
def test_crowdtruth_scores_in_unit_interval_and_invariant_to_worker_names(df, seed):
    crowdtruth_scores = _crowdtruth()
    table = df.rename(columns={"item": "unit", "annotator": "worker"})[["unit", "worker", "label"]]
    a = crowdtruth_scores(table, unit_col="unit", worker_col="worker", label_col="label")
    for frame, cols in ((a.units, ["uqs"]), (a.workers, ["wqs", "wwa", "wua"]), (a.annotations, ["aqs"])):
        values = frame[cols].to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        assert ((values >= -1e-12) & (values <= 1 + 1e-12)).all()
    other, _, ann_map = _permuted_and_renamed(df, seed)
    other = other.rename(columns={"item": "unit", "annotator": "worker"})
    b = crowdtruth_scores(other[["unit", "worker", "label"]], unit_col="unit", worker_col="worker",
                          label_col="label")
    back = {v: k for k, v in ann_map.items()}
    wb = b.workers.rename(index=back).reindex(a.workers.index)
    np.testing.assert_allclose(a.workers[["wqs", "wwa", "wua"]], wb[["wqs", "wwa", "wua"]], atol=1e-9,
                               equal_nan=True)
