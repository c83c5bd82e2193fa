"""No silent loss: every path that leaves rows out counts them, and kept + dropped = input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset, WikipediaTalkDataset, make_subjective_dataset
from aif360_subjective.datasets import wikipedia_talk as wt
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.sklearn.metrics import opinion_exclusion
from tests.datasets.test_wikipedia_talk import TOX_ANNOTATIONS, write_release


@pytest.fixture(scope="module")
def ds():
    # 4 annotators per item: many exact ties
    return make_subjective_dataset(n_items=60, n_annotators=10, annotations_per_item=4, random_state=5)


# ------------------------------------------------------------------------------------------ majority vote
def test_majority_vote_drop_counts_tied_items(ds):
    summary = ds.item_summary()
    n_ties = int((summary["share_favorable"] == 0.5).sum())
    assert n_ties > 0  # the case under test happens
    mv = ds.majority_vote(tie="drop")
    assert mv.metadata["n_dropped_ties"] == n_ties
    assert len(mv.labels) + mv.metadata["n_dropped_ties"] == mv.metadata["n_items"] == ds.n_items
    # the kept items are exactly the untied ones
    untied = summary.index[summary["share_favorable"] != 0.5]
    assert set(mv.metadata["item_ids"]) == set(untied)
    for tie in ("favorable", "unfavorable"):
        kept = ds.majority_vote(tie=tie)
        assert len(kept.labels) == ds.n_items and kept.metadata["n_dropped_ties"] == 0


def test_majority_labels_drop_marks_rows_not_removes(ds):
    rows = ds.majority_labels(tie="drop")
    assert len(rows) == len(ds.labels)
    tied = ds.item_summary()["share_favorable"].reindex(ds.item_ids).to_numpy() == 0.5
    assert np.array_equal(np.isnan(rows), tied)


# ------------------------------------------------------------------------------------------ Wikipedia loader
def test_wikipedia_duplicates_counted(tmp_path):
    extra = "37675.0\t2\t0\t1.0\n44816.0\t4\t1\t0.0\n37675.0\t2\t1\t1.0\n"
    write_release(tmp_path, annotations=TOX_ANNOTATIONS + extra)
    n_input = len(TOX_ANNOTATIONS.strip().splitlines()) - 1 + 3
    with pytest.warns(UserWarning, match=r"dropped 3 repeated"):
        ds = WikipediaTalkDataset("toxicity", data_dir=tmp_path)
    assert ds.metadata["n_duplicates_dropped"] == 3
    assert len(ds.labels) + ds.metadata["n_duplicates_dropped"] == n_input


def test_wikipedia_tables_duplicates_counted(tmp_path):
    write_release(tmp_path, annotations=TOX_ANNOTATIONS + "49851.0\t2\t1\t0.0\n")
    with pytest.warns(UserWarning):
        t = wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path)
    assert len(t.annotations) + t.n_duplicates_dropped == len(TOX_ANNOTATIONS.strip().splitlines())


def test_annotators_without_demographics_are_kept_and_counted():
    ann = pd.DataFrame({"item": [1, 1, 2], "annotator": ["a", "b", "c"], "label": [0, 1, 1]})
    table = pd.DataFrame({"age": [30.0]}, index=["a"])
    ds = MultiAnnotatorDataset(ann, annotators=table)
    assert len(ds.labels) == 3
    assert ds.metadata["n_annotators_without_attributes"] == 2


# ------------------------------------------------------------------------------------------ opinion exclusion
def _balance(metric: OpinionExclusionMetric, n_rows: int, n_annotators: int | None = None) -> None:
    """kept + dropped = input, for annotations and for the grouped units."""
    table, report = metric.group_performance(), metric.grouping_summary()
    assert int(table["n_annotations"].sum()) + report.n_ungrouped_annotations == n_rows
    if report.unit == "annotator" and n_annotators is not None:
        assert report.n_units == n_annotators
        assert int(table["n_annotators"].sum()) + report.n_ungrouped_units == n_annotators


def _pred(ds, seed=0):
    rng = np.random.default_rng(seed)
    lab = ds.labels.ravel()
    flip = rng.random(len(lab)) < 0.3
    return ds.with_predictions(np.where(flip, 1 - lab, lab))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"tie": "drop"},
        {"tie": "drop", "min_group_size": 3},
        {"min_group_size": 4, "small_groups": "drop"},
        {"bins": [0.1, 0.2, 0.3]},  # values outside the edges
        {"bins": "quantile:4"},
        {"grouping": "ambiguity", "min_group_size": 5, "small_groups": "drop"},
        {"grouping": "popularity", "bins": [0.6, 0.8, 1.0]},
        {"grouping": "demographic", "attributes": "gender"},  # missing demographics
        {"grouping": "demographic", "attributes": ["gender", "age_group"], "min_group_size": 3},
        {"grouping": "discovered", "n_clusters": 3, "random_state": 0},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default",
)
def test_opinion_exclusion_kept_plus_dropped(ds, options):
    m = OpinionExclusionMetric(ds, _pred(ds), **options)
    _balance(m, len(ds.labels), ds.n_annotators)


def test_opinion_exclusion_tie_drop_reports_counts(ds):
    m = OpinionExclusionMetric(ds, _pred(ds), tie="drop")
    report = m.grouping_summary()
    n_ties = int((ds.item_summary()["share_favorable"] == 0.5).sum())
    assert report.n_tie_items == n_ties > 0
    tied_rows = int(ds.item_summary()["n_annotations"][ds.item_summary()["share_favorable"] == 0.5].sum())
    assert report.excluded["annotations on dropped ties (not counted in ADR)"] == tied_rows
    assert "annotations on dropped ties" in report.summary()


def test_opinion_exclusion_dropped_groups_reported(ds):
    m = OpinionExclusionMetric(ds, _pred(ds), min_group_size=4, small_groups="drop")
    report = m.grouping_summary()
    assert report.dropped_groups  # something was dropped ...
    assert report.n_ungrouped_units > 0  # ... and its annotators are counted
    assert "groups dropped" in report.summary()


def test_opinion_exclusion_merged_groups_keep_every_unit(ds):
    m = OpinionExclusionMetric(ds, _pred(ds), min_group_size=4, small_groups="merge")
    report = m.grouping_summary()
    assert report.merged_groups
    assert report.n_ungrouped_units == 0  # merging loses nobody
    _balance(m, len(ds.labels), ds.n_annotators)


def test_opinion_exclusion_series_missing_annotators_counted(ds):
    ids = pd.unique(ds.annotator_ids)
    groups = pd.Series(np.arange(len(ids)) % 2, index=ids)[:-3]  # three annotators have no group
    m = OpinionExclusionMetric(ds, _pred(ds), grouping=groups)
    report = m.grouping_summary()
    assert report.excluded["annotators without a group label"] == 3
    _balance(m, len(ds.labels), ds.n_annotators)


def test_functional_kept_plus_dropped_undefined_units():
    # annotator "c" has only negative labels: its TPR is undefined and skipped, and counted
    res = opinion_exclusion([1, 0, 1, 0, 0, 0], [1, 1, 0, 0, 0, 1], item_ids=[1, 1, 2, 2, 3, 3],
                            annotator_ids=["a", "c", "a", "c", "b", "c"], performance="true_positive_rate", bins=2)
    assert res.report.n_undefined_units >= 1
    assert int(res.group_table["n_undefined"].sum()) == res.report.n_undefined_units
    assert int(res.group_table["n_annotations"].sum()) + res.report.n_ungrouped_annotations == 6


# ------------------------------------------------------------------------------------------ subgroups
def test_subgroups_empty_and_repeated_patterns_counted():
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame({"a": rng.choice(["p", "q", "r"], n), "b": rng.choice(["s", "t"], n), "c": rng.normal(size=n)})
    y, yp = rng.integers(0, 2, n), rng.integers(0, 2, n)
    rep = detect_subgroups(X, y, yp, clustering="kmeans", n_clusters=12, entropy_threshold=0.3, random_state=0)
    info = rep.pattern_info()
    n_empty, n_dup = int(info["is_empty"].sum()), int(info["is_duplicate"].sum())
    assert n_empty + n_dup > 0  # the case under test happens
    kept = int((~info["is_empty"] & ~info["is_duplicate"]).sum())
    assert kept + n_empty + n_dup == rep.n_clusters == len(info)
    m = rep.subgroup_metrics().loc["entropy"]
    without = info["is_empty"] | info["is_duplicate"]
    assert m.loc[without, "statistical_parity"].isna().all()
    assert m.loc[info["is_empty"], "size"].isna().all()
    # clusters partition the rows: nobody is lost
    assert int(rep.subgroup_metrics().loc["cluster", "size"].sum()) == n
    assert rep.clusters.value_counts().sum() == n


def test_density_clustering_noise_is_a_subgroup_not_dropped():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": np.r_[rng.normal(0, 0.01, 50), rng.normal(5, 0.01, 50), [20.0, -20.0]]})
    y = rng.integers(0, 2, len(X))
    from sklearn.cluster import DBSCAN

    rep = detect_subgroups(X, y, y, clustering=DBSCAN(eps=0.05, min_samples=5), random_state=0)
    assert -1 in rep.clusters.to_numpy()  # noise
    assert int(rep.subgroup_metrics().loc["cluster", "size"].sum()) == len(X)


# ------------------------------------------------------------------------------------------ CrowdTruthFilter
@pytest.mark.parametrize("options", [{}, {"threshold": 0.6}, {"quantile": 0.3, "protect": False}],
                         ids=["auto", "threshold", "quantile"])
def test_crowdtruth_filter_kept_plus_removed(options):
    from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter

    data = make_subjective_dataset(n_items=150, n_annotators=25, annotations_per_item=5, spammer_fraction=0.2,
                                   random_state=2)
    f = CrowdTruthFilter(**options).fit(data)
    out = f.transform(data)
    info = out.metadata["crowdtruth_filter"]
    assert info["n_annotations_kept"] + info["n_annotations_removed"] == info["n_annotations_in"] == len(data.labels)
    assert info["n_annotators_kept"] + info["n_annotators_removed"] == info["n_annotators_in"] == data.n_annotators
    assert len(out.labels) == info["n_annotations_kept"] and out.n_annotators == info["n_annotators_kept"]
    assert info["n_annotators_removed"] == len(f.removed_annotators_) > 0
    # every removed annotator is reported with its annotation count and a reason
    removed = f.removed_annotators_
    assert int(removed["n_annotations"].sum()) == info["n_annotations_removed"]
    assert removed["reason"].str.len().gt(0).all()
    assert not set(out.annotator_ids) & set(removed.index)
    # a part of the fitted dataset balances too
    part = data.split([0.5], shuffle=True, seed=0)[0]
    pinfo = f.transform(part).metadata["crowdtruth_filter"]
    assert pinfo["n_annotations_kept"] + pinfo["n_annotations_removed"] == len(part.labels)


def test_crowdtruth_duplicates_merged_are_counted():
    from aif360_subjective.quality import crowdtruth_scores

    df = pd.DataFrame({"unit": ["u1", "u1", "u1", "u2", "u2"], "worker": ["w1", "w1", "w2", "w1", "w2"],
                       "label": ["a", "b", "a", "a", "b"]})
    for policy in ("last", "union"):
        res = crowdtruth_scores(df, duplicates=policy)
        assert res.n_rows == 5 and res.n_duplicate_rows == 1
        assert int(res.workers["n_units"].sum()) + res.n_duplicate_rows == res.n_rows
