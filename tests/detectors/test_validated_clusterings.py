"""Validated clusterings: the fairness validation index by hand, the family, the models' checks, the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.asdf.validated import ValidatedFamily, fairness_validation_index
from aif360_subjective.detectors.asdf.validated_models import (
    HDBSCAN_MIN_SHARE,
    ClusteringModel,
    core_labels,
    default_ks,
    default_views,
    expand_models,
    fit_model,
    scan_windows,
    standardize,
    view_matrix,
)


def _table(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.choice(["x", "y"], n)})
    region = (X["a"] > 0.8).to_numpy()
    p = rng.random(n) < np.where(region, 0.1, 0.7)
    return X, p.copy(), p


def test_index_by_hand_two_clusters():
    # cluster 0 = rows 0, 1 with both favourable: n_S 2, N 4, P 2: E = 1, x = 2,
    # sd^2 = 2 (1/2)(1/2)(4 - 2)/(4 - 1) = 1/3: z = (1 - 2) / sqrt(1/3) = -sqrt(3); K = 2
    p = np.array([True, True, False, False])
    out = fairness_validation_index([np.array([0, 0, 1, 1])], p, p)
    assert out["fairness_index"].iloc[0] == pytest.approx(np.sqrt(3) - np.sqrt(2 * np.log(2)))
    assert out["max_z"].iloc[0] == pytest.approx(-np.sqrt(3))
    assert out["cluster"].iloc[0] == 0 and out["n_clusters"].iloc[0] == 2


def test_index_by_hand_three_clusters_and_one_cluster():
    # 6 rows, P = 3; clusters {0,1} (2 favourable), {2,3} (1), {4,5} (0):
    # sd^2 = 2 (1/2)(1/2)(4)/5 = 0.4; z = (1 - 2)/sqrt(0.4), 0, (1 - 0)/sqrt(0.4); K = 3
    p = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    three = np.array([0, 0, 1, 1, 2, 2])
    out = fairness_validation_index([three, np.zeros(6, dtype=int)], p, p)
    assert out["fairness_index"].iloc[0] == pytest.approx(1 / np.sqrt(0.4) - np.sqrt(2 * np.log(3)))
    assert out["max_z"].iloc[0] == pytest.approx(-1 / np.sqrt(0.4))  # the first cluster reaching the maximum
    assert out["cluster"].iloc[0] == 0
    # one cluster of every row: no rest, z undefined, no index
    assert np.isnan(out["fairness_index"].iloc[1]) and pd.isna(out["cluster"].iloc[1])


def test_family_members_descriptions_and_classes():
    models = [ClusteringModel("kmeans", "pairs", ("a", "b"), 2), ClusteringModel("ward", "named", ("a",), 3)]
    fam = ValidatedFamily(models, [np.array([0, 0, 1, 1]), np.array([2, 0, 1, 1])], 4)
    assert list(fam.ids) == [0, 1, 2, 3, 4]
    assert list(fam.sizes()) == [2, 2, 1, 2, 1]
    assert list(fam.rows(3)) == [2, 3]
    assert fam.description(4) == "ward k=3 on (a): cluster 2"
    assert list(fam.description_class()) == ["validated model 0"] * 2 + ["validated model 1"] * 3
    assert list(fam.ids_of(1)) == [2, 3, 4]


def test_default_models_and_ks():
    X, _, _ = _table()
    assert default_ks(240) == [5] and default_ks(1000) == [5, 10, 20, 40] and default_ks(20) == [2]
    models = expand_models(None, X, ["c"])
    assert [(m.algorithm, m.view, m.features, m.k) for m in models] == [
        ("gmm_core", "numeric", ("a", "b"), 5), ("gmm_core", "pairs", ("a", "b"), 5)]
    scan = expand_models(["scan"], X, ["c"])  # the one pair (no triple of two numeric columns)
    assert [(m.algorithm, m.view, m.features, m.k) for m in scan] == [("scan", "pairs", ("a", "b"), 5)]
    named = expand_models([("hdbscan", ["a", "c"], None), ("slink", "encoded", None)], X, ["c"])
    assert [(m.view, m.features, m.k) for m in named] == [("named", ("a", "c"), None),
                                                          ("encoded", ("a", "b", "c"), None)]


@pytest.mark.parametrize("spec, message", [
    ([("kmeans", ["a", "zz"], 5)], r"view \['a', 'zz'\] names missing column\(s\) \['zz'\]"),
    ([("kmeans", "pairs", 500)], r"k=500 for 'kmeans' is larger than the 240 rows allow"),
    (["spectral"], r"unknown algorithm 'spectral'"),
    ([], r"empty list of models"),
    ([("kmeans", "rings", 5)], r"unknown view 'rings'"),
    ([("gmm_core", "pairs", [5, 241])], r"k=241 for 'gmm_core' is larger than the 240 rows allow"),
    ([("gmm_core", "pairs", 1)], r"k=1 for 'gmm_core' is larger than the 240 rows allow \(or below 2\)"),
    ([("hdbscan", ["a", "zz"], None)], r"names missing column\(s\) \['zz'\]"),
])
def test_bad_models_are_named(spec, message):
    X, t, p = _table()
    with pytest.raises(ValueError, match=message):
        expand_models(spec, X, ["c"])
    with pytest.raises(ValueError, match=message):  # refused before anything is fitted
        detect_subgroups(X, t, p, clusterings="validated", clustering_models=spec)


def test_bad_option_combinations():
    X, t, p = _table()
    with pytest.raises(ValueError, match=r"clusterings must be one of|clusterings"):
        detect_subgroups(X, t, p, clusterings="best")
    with pytest.raises(ValueError, match="pass clusterings='validated' with it"):
        detect_subgroups(X, t, p, clustering_models=["kmeans"])
    with pytest.raises(TypeError, match="an algorithm name or an"):
        expand_models([("kmeans", 5)], X, ["c"])


@pytest.mark.slow
def test_report_cluster_validation_and_ranking():
    X, t, p = _table()
    rep = detect_subgroups(X, t, p, clusterings="validated", random_state=1, n_permutations=19, discovery="asdf",
                           clustering_models=["kmeans", ("ward", "pairs", 3)])
    cv = rep.cluster_validation()
    assert list(cv["source"]) == ["seed", "validated", "validated", "validated"]
    assert list(cv["algorithm"]) == ["slink", "kmeans", "kmeans", "ward"]
    assert cv["selected"].sum() == 1
    assert cv["fairness_index"].idxmax() == int(np.flatnonzero(cv["selected"])[0])
    assert "was chosen" in cv.attrs["why"]
    # every cluster of every non-seed model is a candidate of kind "validated" in the one max-T
    assert rep.candidates.kinds == ("cluster", "entropy", "validated")
    assert len(rep.candidates.family("validated").ids) == 5 + 5 + 3
    sig = rep.subgroup_metrics(kind="validated")
    assert sig["statistical_parity_p_adjusted"].notna().all()
    # the table's index is the max-T statistic of the model's clusters under the class penalty
    assert cv["max_z"].abs().max() > 3  # the region a > 0.8 is served worse


@pytest.mark.slow
def test_seed_path_unchanged_and_same_permutation_seed():
    X, t, p = _table()
    seed = detect_subgroups(X, t, p, random_state=3, n_permutations=19, discovery="asdf")
    valid = detect_subgroups(X, t, p, random_state=3, n_permutations=19, discovery="asdf", clusterings="validated")
    assert seed.validated is None
    with pytest.raises(ValueError, match="clusterings='seed'"):
        seed.cluster_validation()
    assert np.array_equal(seed.clusters.to_numpy(), valid.clusters.to_numpy())
    assert seed.candidate_metrics.permutation_seed == valid.candidate_metrics.permutation_seed
    assert "clusterings" not in seed.settings()
    again = detect_subgroups(X, t, p, random_state=3, n_permutations=19, discovery="asdf", clusterings="validated")
    pd.testing.assert_frame_equal(valid.cluster_validation().drop(columns="seconds"),
                                  again.cluster_validation().drop(columns="seconds"))


def test_validated_needs_binary_decisions():
    X, _, _ = _table()
    y = np.random.default_rng(0).normal(size=len(X))
    with pytest.raises(ValueError, match="needs binary decisions"):
        detect_subgroups(X, y, y + 0.1, task="regression", clusterings="validated", discovery="asdf")


@pytest.mark.slow
def test_chosen_clusters_export_to_aif360():
    X, t, p = _table()
    rep = detect_subgroups(X, t, p, clusterings="validated", random_state=1, n_permutations=19, discovery="asdf",
                           clustering_models=[("kmeans", ["a"], 3)])
    kind, ids = rep.validated.chosen()
    sub = rep.to_aif360(X, t, p, kind, int(ids[0]))
    assert sub.size == int(rep.members(kind, int(ids[0])).sum())
    one = rep.to_aif360(X, t, p, "validated", 2)  # the third cluster of the k-means model on column a
    assert one.description == "kmeans k=3 on (a): cluster 2"
    assert one.size == int((rep.validated.family.labels[0] == 2).sum())


@pytest.mark.slow
def test_report_section_shows_the_table_and_why():
    from aif360_subjective.report.subgroup_sections import subgroup_sections

    X, t, p = _table()
    rep = detect_subgroups(X, t, p, clusterings="validated", random_state=1, n_permutations=19, discovery="asdf",
                           clustering_models=[("kmeans", ["a"], [2, 3])])
    sections = subgroup_sections(rep, figures=False)
    titles = [s.title for s in sections]
    assert "Clustering models compared (validated clusterings)" in titles
    seed_only = detect_subgroups(X, t, p, random_state=1, n_permutations=19, discovery="asdf")
    assert "Clustering models compared (validated clusterings)" not in [s.title for s in
                                                                        subgroup_sections(seed_only, figures=False)]


def test_scan_windows_by_hand():
    # rows on a line at 0, 1, 2, 3, 10; centres 0 and 9.5; windows of 2 rows: {0, 1} and {3, 10};
    # a tie at the window's edge is included: centre 1.5 has rows 1 and 2 at 0.5, rows 0 and 3 at 1.5
    Z = np.array([[0.0], [1.0], [2.0], [3.0], [10.0]])
    w = scan_windows(Z, np.array([[0.0], [9.5], [1.5]]), 2).toarray()
    assert w[:, 0].tolist() == [True, True, False, False, False]
    assert w[:, 1].tolist() == [False, False, False, True, True]
    assert w[:, 2].tolist() == [False, True, True, False, False]
    assert scan_windows(Z, np.array([[1.0]]), 3).toarray().ravel().tolist() == [True, True, True, False, False]
    with pytest.raises(ValueError, match="size must be between 1 and the 5 rows, got 6"):
        scan_windows(Z, np.array([[0.0]]), 6)


def test_index_of_overlapping_windows_by_hand():
    # 6 rows, P = 3 (rows 0-2 favourable); windows {0, 1}, {1, 2, 3}: N = 6, n = 2, x = 2: E = 1,
    # sd^2 = 2 (1/2)(1/2)(4)/5 = 0.4, z = -1/sqrt(0.4); the second: n = 3, x = 2, E = 1.5,
    # sd^2 = 3 (1/2)(1/2)(3)/5 = 0.45, z = -0.5/sqrt(0.45); K = 2 windows
    import scipy.sparse as sp

    p = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    windows = sp.csc_matrix(np.array([[1, 0], [1, 1], [0, 1], [0, 1], [0, 0], [0, 0]], dtype=bool))
    out = fairness_validation_index([windows], p, p)
    assert out["fairness_index"].iloc[0] == pytest.approx(1 / np.sqrt(0.4) - np.sqrt(2 * np.log(2)))
    assert out["cluster"].iloc[0] == 0 and out["n_clusters"].iloc[0] == 2
    fam = ValidatedFamily([ClusteringModel("scan", "pairs", ("a", "b"), 3)], [windows], 6)
    assert list(fam.sizes()) == [2, 3] and list(fam.rows(1)) == [1, 2, 3]
    assert fam.description(1) == "scan k=3 on (a, b): window 1"


def test_triples_and_the_scans_default_views():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({c: rng.normal(size=200) for c in "abcd"} | {"e": rng.choice(["x", "y"], 200)})
    assert default_views("kmeans", 4) == ["numeric", "pairs"]
    assert default_views("scan", 4) == ["pairs", "triples"] and default_views("scan", 11) == ["pairs"]
    models = expand_models(["scan"], X, ["e"])
    # 6 pairs and 4 triples of a, b, c, d at the one default k of 200 rows (5)
    assert [m.features for m in models] == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d"),
                                            ("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d"), ("b", "c", "d")]
    assert {m.view for m in models} == {"pairs", "triples"} and {m.k for m in models} == {5}
    with pytest.raises(ValueError, match=r"k=101 for 'scan' is larger than the 100 rows allow"):  # 2k centres
        expand_models([("scan", "pairs", 101)], X, ["e"])


def test_scan_model_fits_windows_of_n_over_k_rows():
    X, _, _ = _table(n=200)
    model = ClusteringModel("scan", "pairs", ("a", "b"), 4)
    Z = view_matrix(X, model.features, ["c"])
    w = fit_model(model, Z, np.random.default_rng(0), None)
    assert w.shape == (200, 8)  # 2k centres
    assert (np.diff(w.indptr) >= 50).all()  # ceil(200 / 4) rows each, more only on ties
    again = fit_model(model, Z, np.random.default_rng(0), None)
    assert (w != again).nnz == 0


def test_standardize_by_hand():
    # column 0: 1, 2, 3 (mean 2, population sd sqrt(2/3)); column 1 constant: 0
    out = standardize(np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]))
    assert out[:, 0] == pytest.approx(np.array([-1.0, 0.0, 1.0]) / np.sqrt(2 / 3))
    assert out[:, 1].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.slow
def test_scan_model_in_the_report():
    X, t, p = _table()
    rep = detect_subgroups(X, t, p, clusterings="validated", random_state=1, n_permutations=19, discovery="asdf",
                           clustering_models=[("scan", ["a", "b"], 4)])
    cv = rep.cluster_validation()
    row = cv.iloc[1]  # after the seed's clustering
    assert row["algorithm"] == "scan" and row["n_clusters"] == 8
    # overlapping windows: no partition for the classic indices
    assert np.isnan(row["silhouette"]) and np.isnan(row["fairness_separation"])
    fam = rep.candidates.family("validated")
    assert len(fam.ids) == 8 and (np.asarray(fam.sizes()) >= 60).all()  # ceil(240 / 4) rows per window
    assert row["selected"]  # a window of a > 0.8 (served worse) beats the seed's clusters
    w = int(row["cluster"])  # the labels: the chosen window's number inside it, -1 outside
    assert np.array_equal(np.flatnonzero(rep.validated.labels == w), fam.rows(w))
    assert set(np.unique(rep.validated.labels)) == {-1, w}
    kind, ids = rep.validated.chosen()
    assert kind == "validated" and list(ids) == list(range(8))
    assert rep.to_aif360(X, t, p, kind, w).size == len(fam.rows(w))
    assert f"window {w} has z = " in cv.attrs["why"] and "for its 8 windows" in cv.attrs["why"]


def test_core_labels_by_hand():
    # a row in a component's core has its posterior >= 0.5 (0.5 itself included); no such component: -1
    post = np.array([[0.9, 0.05, 0.05], [0.4, 0.35, 0.25], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.34, 0.33, 0.33]])
    assert core_labels(post).tolist() == [0, -1, 1, 2, -1]
    assert core_labels(np.zeros((0, 2))).tolist() == []
    # another level: row 1's 0.4 and row 4's 0.34 reach 1/3; row 2's 0.5 and row 0's 0.9 do not reach 0.95
    assert core_labels(post, 1 / 3).tolist() == [0, 0, 1, 2, 0]
    assert core_labels(post, 0.95).tolist() == [-1, -1, -1, -1, -1]
    assert core_labels(post, 0.9).tolist() == [0, -1, -1, -1, -1]
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="level must be a posterior in"):
            core_labels(post, bad)


def _two_dense_regions(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(Z, truth): 600 rows spread over [0, 100]^2 (truth 0) and two tight regions of 150 rows each around (20, 20)
    and (80, 70) (sd 1; truth 1 and 2); the columns' ranges differ so that standardizing matters."""
    rng = np.random.default_rng(seed)
    spread = rng.uniform(0, 100, size=(600, 2))
    a = rng.normal([20, 20], 1.0, size=(150, 2))
    b = rng.normal([80, 70], 1.0, size=(150, 2))
    Z = np.vstack([spread, a, b]) * np.array([1.0, 1000.0])
    return Z, np.repeat([0, 1, 2], [600, 150, 150])


def test_hdbscan_finds_each_dense_region():
    Z, truth = _two_dense_regions()
    model = ClusteringModel("hdbscan", "pairs", ("a", "b"), None)
    lab = fit_model(model, Z, np.random.default_rng(0), None)
    for region in (1, 2):  # each region is one cluster holding nearly only its rows
        inside = lab[truth == region]
        g = np.bincount(inside[inside >= 0]).argmax()
        assert (inside == g).mean() > 0.9
        assert ((lab == g) & (truth == region)).sum() / (lab == g).sum() > 0.8
    again = fit_model(model, Z, np.random.default_rng(0), None)
    assert np.array_equal(lab, again)
    # min_cluster_size is 1 % of the fitted rows (at least 10): no cluster of fewer rows among those fitted
    sizes = np.bincount(lab[lab >= 0])
    assert sizes.min() >= max(10, int(np.ceil(HDBSCAN_MIN_SHARE * len(Z))))


def test_gmm_core_labels_the_dense_cores():
    Z, truth = _two_dense_regions()
    model = ClusteringModel("gmm_core", "pairs", ("a", "b"), 3)
    lab = fit_model(model, Z, np.random.default_rng(0), None)
    assert set(np.unique(lab)) <= {-1, 0, 1, 2}
    for region in (1, 2):  # each tight region is the core of one component
        inside = lab[truth == region]
        assert inside.min() >= 0 and len(np.unique(inside)) == 1
    # the labels are the mixture's max-posterior component where that posterior is >= 0.5: refit the same mixture
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(0)
    seed = int(rng.integers(0, 2**31 - 1))
    gm = GaussianMixture(3, covariance_type="full", reg_covar=1e-4, random_state=seed).fit(standardize(Z))
    assert np.array_equal(lab, core_labels(gm.predict_proba(standardize(Z))))


@pytest.mark.parametrize(("algorithm", "cluster_sample", "cap"), [
    ("gmm_core", None, 5000), ("gmm", 10_000, 5000), ("gmm_core", 300, 300), ("kmeans", 10_000, 10_000),
    ("kmeans", None, None)])
def test_mixtures_fit_on_at_most_mixture_fit_rows(monkeypatch, algorithm, cluster_sample, cap):
    """The mixtures' sample is bounded by MIXTURE_FIT_ROWS (5,000) as well as by cluster_sample; k-means' is not."""
    from aif360_subjective.detectors.asdf import validated_models as vm

    seen = []
    monkeypatch.setattr(vm, "sample_rows", lambda n, c, rng: seen.append(c))
    Z = np.random.default_rng(0).normal(size=(60, 2))
    labels = vm.fit_model(vm.ClusteringModel(algorithm, "pairs", ("a", "b"), 2), Z, np.random.default_rng(1),
                          cluster_sample)
    assert vm.MIXTURE_FIT_ROWS == 5000 and seen == [cap] and len(labels) == 60
