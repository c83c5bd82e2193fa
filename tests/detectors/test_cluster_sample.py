"""The clustering of a large table on a random sample (``cluster_sample``), the nearest-sampled-row rule, and the
refusal of clustering options by ``discovery="patterns"`` (issue 30)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect as detect_module
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.asdf import clustering as clustering_module
from aif360_subjective.detectors.asdf import mst as mst_module
from aif360_subjective.detectors.asdf.cluster_sample import assign_to_nearest, sample_note, sample_rows
from aif360_subjective.detectors.asdf.clustering import HierarchicalTree, default_kmax
from aif360_subjective.detectors.encoding import encode_for_clustering
from aif360_subjective.detectors.options import CLUSTERING_ONLY_OPTIONS, check_analysis_options
from aif360_subjective.report.answer import subgroup_answer


def _table(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(["u", "v", "w"], n), "x": rng.normal(size=n), "z": rng.normal(size=n)})
    return X, rng.integers(0, 2, n), rng.integers(0, 2, n)


# ------------------------------------------------------------------ the nearest-sampled-row rule
def test_rows_join_their_nearest_sampled_row_by_hand():
    # sampled rows 0 (at 0, label 5) and 2 (at 10, label 7); row 1 at 1 is 1 from row 0 and 9 from row 2, ...
    Z = np.array([[0.0], [1.0], [10.0], [11.0], [4.0], [6.5], [5.0]])
    labels = assign_to_nearest(Z, np.array([0, 2]), np.array([5, 7]))
    np.testing.assert_array_equal(labels, [5, 5, 7, 7, 5, 7, 5])  # row 6 at 5: a tie, the first sampled row wins


def test_sampled_rows_keep_their_own_label_even_when_another_is_as_near():
    Z = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 4.0]])  # rows 0 and 1 coincide but were clustered apart
    np.testing.assert_array_equal(assign_to_nearest(Z, np.array([0, 1]), np.array([1, 2])), [1, 2, 1])


def test_assignment_in_blocks_equals_one_block(monkeypatch):
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(500, 4))
    sample = np.sort(rng.choice(500, 50, replace=False))
    lab = rng.integers(0, 6, 50)
    whole = assign_to_nearest(Z, sample, lab)
    monkeypatch.setattr("aif360_subjective.detectors.asdf.cluster_sample._BLOCK_PAIRS", 50 * 7)  # blocks of 7 rows
    np.testing.assert_array_equal(assign_to_nearest(Z, sample, lab), whole)
    # against the brute force: the label of the nearest sampled row
    d = ((Z[:, None, :] - Z[sample][None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(whole, lab[np.argmin(d, axis=1)])


def test_assignment_refuses_mismatched_labels():
    with pytest.raises(ValueError, match="sample_labels has 1 labels for 2 sampled rows"):
        assign_to_nearest(np.zeros((3, 1)), np.array([0, 1]), np.array([0]))


def test_sample_is_drawn_only_above_the_bound():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert sample_rows(100, 100, rng) is None and sample_rows(100, None, rng) is None
    assert rng.bit_generator.state == state  # nothing drawn: the analysis' random stream is as before
    s = sample_rows(101, 40, rng)
    assert len(s) == 40 and len(np.unique(s)) == 40 and np.all(np.diff(s) > 0) and s.max() < 101
    assert sample_note(None, 10) == ""
    assert "random sample of 40 of the 101 rows" in sample_note(40, 101)


# ------------------------------------------------------------------ detect_subgroups on a sample
def test_clusters_come_from_the_sample_and_the_report_says_so():
    X, t, p = _table(300)
    rep = detect_subgroups(X, t, p, n_clusters=4, cluster_sample=120, random_state=3, discovery="asdf")
    assert rep.cluster_sample == 120 and rep.settings()["cluster_sample"] == 120
    note = rep.clustering_note()
    assert "random sample of 120 of the 300 rows" in note and "nearest sampled row" in note
    answer = subgroup_answer(rep)
    assert note in answer.lines and answer.facts["clustered rows"] == "a random sample of 120 of 300"
    # the sample the analysis drew (its generator's first draw), clustered alone, then the rule for the rest
    sample = sample_rows(300, 120, np.random.default_rng(3))
    Z, _ = encode_for_clustering(X, ["a"])
    inner = HierarchicalTree.fit(Z[sample], "single", "sklearn").cut(4)
    np.testing.assert_array_equal(rep.clusters.to_numpy()[sample], inner)
    np.testing.assert_array_equal(rep.clusters.to_numpy(), assign_to_nearest(Z, sample, inner))
    # the sizes and patterns count every row
    assert rep.subgroup_metrics(ci=None).loc["cluster", "size"].sum() == 300
    again = detect_subgroups(X, t, p, n_clusters=4, cluster_sample=120, random_state=3, discovery="asdf")
    np.testing.assert_array_equal(again.clusters.to_numpy(), rep.clusters.to_numpy())


@pytest.mark.slow
def test_a_table_within_the_bound_is_clustered_whole_as_before():
    X, t, p = _table(200)
    whole = detect_subgroups(X, t, p, cluster_sample=None, random_state=0)
    within = detect_subgroups(X, t, p, cluster_sample=200, random_state=0)
    assert within.cluster_sample is None and within.clustering_note() == ""
    assert "clustered rows" not in subgroup_answer(within).facts
    np.testing.assert_array_equal(within.clusters.to_numpy(), whole.clusters.to_numpy())
    pd.testing.assert_frame_equal(within.findings(), whole.findings())  # the random stream is consumed as before


def test_x_means_bound_counts_every_row_of_a_sampled_table(monkeypatch):
    seen = []

    def fake_choose(Z, kmax=None, random_state=None, method="auto"):
        seen.append((len(Z), kmax))
        return 3

    monkeypatch.setattr(detect_module, "choose_n_clusters", fake_choose)  # single linkage and ward
    monkeypatch.setattr(clustering_module, "choose_n_clusters", fake_choose)  # the other clusterers
    X, t, p = _table(400)
    rep = detect_subgroups(X, t, p, cluster_sample=50, random_state=0, discovery="asdf")
    assert seen == [(50, default_kmax(400))] and rep.n_clusters == 3
    seen.clear()
    rep = detect_subgroups(X, t, p, cluster_sample=50, clustering="kmeans", random_state=0, discovery="asdf")
    assert seen == [(50, default_kmax(400))] and rep.n_clusters == 3


@pytest.mark.parametrize("bad", [1, 0, -5])
def test_cluster_sample_out_of_range(bad):
    X, t, p = _table(20)
    with pytest.raises(ValueError, match=rf"^cluster_sample must be >= 2, got {bad}$"):
        detect_subgroups(X, t, p, cluster_sample=bad)


def test_cluster_sample_wrong_type():
    X, t, p = _table(20)
    with pytest.raises((TypeError, ValueError), match="cluster_sample"):
        detect_subgroups(X, t, p, cluster_sample=0.5)


# ------------------------------------------------------------------ Prim up to 10,000 rows
def test_auto_runs_prim_up_to_ten_thousand_rows_whatever_the_columns(monkeypatch):
    monkeypatch.setattr(mst_module, "mlpack_available", lambda: True)
    assert resolve(10_000, 78) == "sklearn"  # mlpack took 8.7 s on 5,000 x 78, Prim 0.4 s
    assert resolve(10_000, 500) == "sklearn"
    assert resolve(10_001, 100) == "mlpack"  # above: n^2 d decides, as before
    assert resolve(20_000, 2) == "sklearn"


def resolve(n, d):
    return mst_module.resolve_mst("auto", n, d)


# ------------------------------------------------------------------ discovery="patterns" refuses clustering options
@pytest.mark.parametrize(("name", "value"), [
    ("clustering", "kmeans"), ("n_clusters", 5), ("n_clusters", [3, 4]), ("entropy_threshold", 0.5),
    ("normalization", "domain"), ("inclusive", True), ("selection_metric", "equal_opportunity"),
    ("silhouette_sample_size", None), ("mst", "sklearn"), ("cluster_sample", 500),
])
def test_patterns_only_refuses_a_clustering_option(name, value):
    X, t, p = _table(60)
    with pytest.raises(ValueError, match=rf"^{name}=.* applies to the clustering, which discovery='patterns' does "
                                         r"not run .* use discovery='asdf' or 'both'"):
        detect_subgroups(X, t, p, discovery="patterns", **{name: value})


def test_patterns_only_refuses_a_clusterer_object():
    from sklearn.cluster import KMeans

    X, t, p = _table(60)
    with pytest.raises(ValueError, match=r"^clustering=KMeans\(\) applies to the clustering"):
        check_analysis_options(X, discovery="patterns", clustering=KMeans())


def test_patterns_only_accepts_the_defaults_given_explicitly():
    X, t, p = _table(60)
    given = {name: check_analysis_options(X).describe(1).get(name) for name in CLUSTERING_ONLY_OPTIONS}
    given.update(clustering="slink", silhouette_sample_size=1000)  # not recorded by describe()
    rep = detect_subgroups(X, t, p, discovery="patterns", random_state=0, **given)
    assert rep.n_clusters == 0 and rep.cluster_sample is None
    # the other discoveries take them, as before
    for discovery in ("asdf", "both"):
        assert detect_subgroups(X, t, p, discovery=discovery, n_clusters=5, random_state=0).n_clusters == 5


def test_metric_face_refuses_them_too():
    pytest.importorskip("aif360")
    from aif360_subjective.metrics.subgroup_discovery import SubgroupDiscoveryMetric

    with pytest.raises(ValueError, match="n_clusters=4 applies to the clustering"):
        _metric(SubgroupDiscoveryMetric, discovery="patterns", n_clusters=4)
    assert _metric(SubgroupDiscoveryMetric, discovery="patterns").report.n_clusters == 0


def _metric(cls, **kw):
    from aif360.datasets import BinaryLabelDataset

    X, t, p = _table(60)
    df = pd.DataFrame({"x": X["x"], "z": X["z"], "y": t})
    ds = BinaryLabelDataset(df=df, label_names=["y"], protected_attribute_names=["x"])
    pred = ds.copy()
    pred.labels = p.reshape(-1, 1).astype(float)
    return cls(ds, pred, **kw)



# ------------------------------------------------------------------ the bound on the mined patterns
def _items_table():
    # 4 columns of 2 levels, every combination 4 times: 8 items, C(4,2) x 4 = 24 pairs, C(4,3) x 8 = 32 triples
    grid = np.array(np.meshgrid(*[[0, 1]] * 4, indexing="ij")).reshape(4, -1).T
    X = pd.DataFrame(np.repeat(grid, 4, axis=0), columns=list("abcd")).astype(str)
    return X


def test_a_length_that_would_pass_max_patterns_is_not_mined_and_said():
    from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns

    items = build_items(_items_table(), list("abcd"), 2, 1)
    whole = mine_patterns(items, 1, 3)
    assert (len(whole.patterns), whole.skipped_length, whole.mined_length) == (8 + 24 + 32, None, 3)
    assert whole.truncation_note() == ""
    assert len(mine_patterns(items, 1, 3, max_patterns=64).patterns) == 64  # exactly at the bound: all kept
    cut = mine_patterns(items, 1, 3, max_patterns=63)  # 8 + 24 fit, the 32 triples would not
    assert (len(cut.patterns), cut.skipped_length, cut.skipped_count, cut.mined_length) == (32, 3, 32, 2)
    assert "stop at 2 conditions: the 32 patterns of 3 conditions" in cut.truncation_note()
    assert "max_patterns=63" in cut.truncation_note()
    single = mine_patterns(items, 1, 3, max_patterns=5)  # the single items are always kept
    assert (len(single.patterns), single.skipped_length, single.mined_length) == (8, 2, 1)


def test_the_report_and_its_answer_say_that_a_length_was_not_mined():
    X = _items_table()
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 2, len(X)), rng.integers(0, 2, len(X))
    rep = detect_subgroups(X, t, p, discovery="patterns", min_support=1, max_patterns=40, random_state=0)
    assert rep.settings()["max_patterns"] == 40
    assert len(rep.candidates.family("pattern").ids) == 32 and "stop at 2 conditions" in rep.mining_note()
    assert rep.mining_note() in subgroup_answer(rep).lines
    full = detect_subgroups(X, t, p, discovery="patterns", min_support=1, max_patterns=None, random_state=0)
    assert full.mining_note() == "" and len(full.candidates.family("pattern").ids) == 64
    with pytest.raises(ValueError, match="max_patterns 40; this analysis asks for .* None"):
        detect_subgroups(X, t, p, discovery="patterns", min_support=1, max_patterns=None, patterns_from=rep)
    with pytest.raises(ValueError, match=r"^max_patterns must be None or an int >= 1, got 0$|max_patterns"):
        detect_subgroups(X, t, p, discovery="patterns", max_patterns=0)


def test_more_clusters_than_sampled_rows_is_refused():
    X, t, p = _table(300)
    with pytest.raises(ValueError, match=r"^n_clusters=120 asks for more clusters than the cluster_sample=100 rows "
                                         r"the clustering is fitted on \(of 300\)"):
        check_analysis_options(X, n_clusters=120, cluster_sample=100)
    with pytest.raises(ValueError, match=r"n_clusters=\[5, 120\] asks for more clusters"):
        check_analysis_options(X, n_clusters=[5, 120], cluster_sample=100)
    assert check_analysis_options(X, n_clusters=120, cluster_sample=None).k == 120
    assert check_analysis_options(X, n_clusters=100, cluster_sample=100).k == 100
    assert check_analysis_options(X.iloc[:100], n_clusters=90, cluster_sample=100).k == 90  # no sample drawn
