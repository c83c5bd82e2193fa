"""Hand-computed cases for entropy patterns, subgroup metrics, tree cuts, validity and model selection."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.metrics import calinski_harabasz_score, davies_bouldin_score, silhouette_score

from aif360_subjective.detectors import (
    METRICS,
    HierarchicalTree,
    compare_clusterings,
    detect_subgroups,
    encode_for_clustering,
    entropy_patterns,
    factorize_columns,
    fairness_separation,
    metrics_from_counts,
    validity_indices,
    xmeans_n_clusters,
)


# ---------------------------------------------------------------- entropy
def _patterns(values_by_col, labels, tau, **kw):
    raw = factorize_columns(pd.DataFrame(values_by_col))
    ids, idx = np.unique(labels, return_inverse=True)
    return entropy_patterns(raw, idx, ids, tau, **kw)


def test_entropy_hand_case_reference_and_paper_normalisation():
    # cluster 0 holds a, a, a, b of a feature whose domain is {a, b, c}
    col = ["a", "a", "a", "b", "c", "c"]
    labels = [0, 0, 0, 0, 1, 1]
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    ref = _patterns({"f": col}, labels, 0.65)
    assert ref.entropy[0, 0] == pytest.approx(h / math.log(2), abs=1e-15)  # 0.811: not dominant
    assert ref.entropy[1, 0] == 0.0  # one value in the cluster
    assert not ref.dominant[0, 0] and ref.dominant[1, 0]
    paper = _patterns({"f": col}, labels, 0.65, normalization="domain")
    assert paper.entropy[0, 0] == pytest.approx(h / math.log(3), abs=1e-15)  # 0.512: dominant
    assert paper.dominant[0, 0]
    assert paper.values[0, 0] == 0  # mode "a"


def test_strict_versus_inclusive_threshold():
    col, labels = ["a", "b", "c", "c"], [0, 0, 1, 1]
    assert not _patterns({"f": col}, labels, 1.0).dominant[0, 0]  # NE = 1, 1 < 1 is false
    assert _patterns({"f": col}, labels, 1.0, inclusive=True).dominant[0, 0]
    assert not _patterns({"f": col}, labels, 0.0).dominant[1, 0]  # NE = 0, 0 < 0 is false
    assert _patterns({"f": col}, labels, 0.0, inclusive=True).dominant[1, 0]


def test_mode_ties_take_the_smallest_value_and_continuous_path_agrees():
    rng = np.random.default_rng(3)
    n = 3000
    x = rng.integers(0, 2000, n)  # many distinct values: the sorted (cluster, value) path
    labels = rng.integers(0, 40, n)
    pats = _patterns({"x": x}, labels, 0.65)
    for c in range(40):
        vals, cnt = np.unique(x[labels == c], return_counts=True)
        p = cnt / cnt.sum()
        h = -(p * np.log(p)).sum()
        assert pats.entropy[c, 0] == pytest.approx(
            h / math.log(len(vals)) if len(vals) > 1 else 0.0, abs=1e-12
        )
        mode_value = vals[cnt == cnt.max()].min()
        assert np.unique(x)[pats.values[c, 0]] == mode_value
    tie = _patterns({"f": ["b", "a", "b", "a"]}, [0, 0, 0, 0], 1.0)
    assert tie.values[0, 0] == 0  # "a" < "b"


def test_empty_and_duplicate_patterns_have_no_metrics():
    # clusters 0 and 1 share pattern g=x; cluster 2 is uniform noise -> empty at tau=0.3
    X = pd.DataFrame(
        {"g": ["x"] * 6 + ["y", "z", "w", "v"], "h": ["p", "p", "p", "q", "q", "q", "a", "b", "c", "d"]}
    )
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])

    class Fixed:
        def get_params(self, deep=True):
            return {}

        def fit(self, Z):
            self.labels_ = labels
            return self

    rep = detect_subgroups(X[["g"]], y, y[::-1], clustering=Fixed(), entropy_threshold=0.3)
    info = rep.pattern_info()
    assert info["is_duplicate"].tolist() == [False, True, False]
    assert info.loc[1, "duplicate_of"] == 0
    assert info["is_empty"].tolist() == [False, False, True]
    m = rep.subgroup_metrics().loc["entropy"]
    assert m.loc[0, "size"] == 6 and m.loc[1, "size"] == 6 and pd.isna(m.loc[2, "size"])
    assert m.loc[[1, 2], ["statistical_parity", "accuracy"]].isna().all().all()
    assert not np.isnan(m.loc[0, "statistical_parity"])
    with pytest.raises(ValueError, match="empty"):
        rep.members("entropy", 2)


# ---------------------------------------------------------------- metrics
def _two_group_report(undefined_rates="nan"):
    X = pd.DataFrame({"g": ["s"] * 4 + ["r"] * 4})
    y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    y_pred = [1, 0, 1, 1, 1, 1, 0, 1]
    return detect_subgroups(
        X, y_true, y_pred, clustering="kmeans", n_clusters=2, random_state=0, undefined_rates=undefined_rates
    )


def test_metrics_hand_case_for_both_kinds():
    rep = _two_group_report()
    s_id = rep.clusters.iloc[0]
    # S: sel 3/4, TPR 1/2, FPR 1, acc 1/4; R: sel 3/4, TPR 1, FPR 1/2, acc 3/4; overall acc 1/2
    expected = {
        "size": 4,
        "statistical_parity": 0.0,
        "equal_opportunity": 0.5,
        "equalized_odds": 0.0,
        "accuracy": 0.25,
        "accuracy_error": -0.25,
    }
    m = rep.subgroup_metrics()
    for kind in ("cluster", "entropy"):
        for col, val in expected.items():
            assert m.loc[(kind, s_id), col] == pytest.approx(val, abs=1e-15), (kind, col)
    other = 1 - s_id
    assert m.loc[("cluster", other), "equal_opportunity"] == pytest.approx(-0.5)
    assert m.loc[("cluster", other), "equalized_odds"] == pytest.approx(0.0)
    assert m.loc[("cluster", other), "accuracy_error"] == pytest.approx(0.25)
    assert rep.patterns().loc[s_id, "g"] == "s"
    s = rep.summary()
    assert s.loc["cluster", "equal_opportunity"] == pytest.approx(0.5)
    assert s.loc["cluster", "accuracy_error"] == pytest.approx(0.0)
    assert s.loc["cluster", "accuracy"] == pytest.approx(0.5)


def test_undefined_rates_nan_versus_asdf():
    # subgroup S has no favourable truth (TPR undefined) and no unfavourable truth in R (FPR_R undefined)
    S = np.array([[1.0, 1.0, 0.0, 0.0]])  # TN, FP, FN, TP
    total = np.array([1.0, 1.0, 1.0, 2.0])
    nan = metrics_from_counts(S, total, "nan").iloc[0]
    assert np.isnan(nan["equal_opportunity"]) and np.isnan(nan["equalized_odds"])
    asdf = metrics_from_counts(S, total, "asdf").iloc[0]
    tpr_r = 2 / 3
    assert asdf["equal_opportunity"] == pytest.approx(tpr_r - 0.0)  # TPR_S := 0
    fpr_r, fpr_s = 1.0, 0.5  # R has no negatives: FPR_R := 1
    assert asdf["equalized_odds"] == pytest.approx(((fpr_r - fpr_s) + tpr_r) / 2)
    assert asdf["statistical_parity"] == pytest.approx(2 / 3 - 1 / 2)


def test_weights_enter_the_rates():
    X = pd.DataFrame({"g": ["s", "s", "r", "r"]})
    y = [1, 1, 1, 1]
    yhat = [1, 0, 1, 1]
    rep = detect_subgroups(
        X, y, yhat, clustering="kmeans", n_clusters=2, random_state=0, sample_weight=[3.0, 1.0, 1.0, 1.0]
    )
    s_id = rep.clusters.iloc[0]
    m = rep.subgroup_metrics(ci=None).loc[("cluster", s_id)]
    assert m["size"] == 2
    assert m["equal_opportunity"] == pytest.approx(1.0 - 0.75)
    assert m["accuracy"] == pytest.approx(0.75)
    # weighted counts are not binomial: intervals and significance are refused, naming the way out
    with pytest.raises(ValueError, match="non-uniform instance weights.*ci=None"):
        rep.subgroup_metrics()
    with pytest.raises(ValueError, match="alpha=None"):
        rep.ranking("statistical_parity")
    assert len(rep.ranking("statistical_parity", alpha=None)) == 2


# ---------------------------------------------------------------- clustering
@pytest.mark.parametrize("linkage", ["single", "ward"])
def test_tree_cut_equals_sklearn_labels(linkage):
    rng = np.random.default_rng(0)
    Z = rng.integers(0, 4, size=(150, 3)).astype(float)  # many ties: only Prim's tree is sklearn's here
    tree = HierarchicalTree.fit(Z, linkage, mst="sklearn")
    for k in (2, 3, 11, 40, 150):
        expected = AgglomerativeClustering(n_clusters=k, linkage=linkage).fit(Z).labels_
        np.testing.assert_array_equal(tree.cut(k), expected)


def test_encoding_drops_first_level_and_scales():
    X = pd.DataFrame({"n": [10, 20, 30], "c": ["b", "a", "c"], "k": [5, 5, 5]})
    Z, names = encode_for_clustering(X, ["c"])
    assert names == ["n", "k", "c_b", "c_c"]
    np.testing.assert_array_equal(Z, [[0, 0, 1, 0], [0.5, 0, 0, 0], [1, 0, 0, 1]])


def test_validity_indices_equal_sklearn_when_not_sampled():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(300, 4))
    labels = rng.integers(0, 6, 300) * 2
    v = validity_indices(Z, labels, silhouette_sample_size=None)
    assert v["silhouette"] == pytest.approx(silhouette_score(Z, labels), abs=1e-12)
    assert v["davies_bouldin"] == pytest.approx(davies_bouldin_score(Z, labels), abs=1e-9)
    assert v["calinski_harabasz"] == pytest.approx(calinski_harabasz_score(Z, labels), rel=1e-9)
    assert np.isnan(validity_indices(Z, np.zeros(300, int))["silhouette"])


def test_xmeans_is_seeded_and_leaves_python_random_alone():
    rng = np.random.default_rng(2)
    Z = np.vstack([rng.normal(c, 0.05, size=(60, 2)) for c in ((0, 0), (1, 1), (0, 1))])
    state = random.getstate()
    k1, l1 = xmeans_n_clusters(Z, random_state=5)
    k2, l2 = xmeans_n_clusters(Z, random_state=5)
    assert random.getstate() == state
    assert k1 == k2 and (l1 == l2).all()
    assert 2 <= k1 <= int(np.sqrt(len(Z) / 2))


@pytest.mark.parametrize("clustering", ["slink", "kmeans", "xmeans", "birch", "ward", "dbscan", "optics"])
def test_every_named_clustering_runs(clustering):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["u", "v"], 120), "b": rng.normal(size=120)})
    y = rng.integers(0, 2, 120)
    k = None if clustering in ("dbscan", "optics", "xmeans") else 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BIRCH's ConvergenceWarning on this toy data
        rep = detect_subgroups(X, y, 1 - y, clustering=clustering, n_clusters=k, random_state=0, discovery="asdf")
    assert len(rep.clusters) == 120
    assert rep.subgroup_metrics(ci=None).shape == (2 * rep.n_clusters, 1 + len(METRICS))
    assert rep.subgroup_metrics().shape == (2 * rep.n_clusters, 1 + 6 * len(METRICS))  # value + 5 inference columns
    if k is not None and clustering != "birch":  # BIRCH may find fewer subclusters than asked
        assert rep.n_clusters == 3


def test_sklearn_instance_is_cloned_not_mutated():
    est = KMeans(n_clusters=4, n_init=2, random_state=0)
    X = pd.DataFrame({"a": np.arange(40.0)})
    rep = detect_subgroups(X, np.arange(40) % 2, np.zeros(40, int), clustering=est, n_clusters=3)
    assert rep.n_clusters == 3 and est.n_clusters == 4 and not hasattr(est, "labels_")


# ---------------------------------------------------------------- fairness-aware k
def test_fairness_separation_hand_case():
    labels = np.array([0, 0, 1, 1])
    p = np.array([True, True, False, False])
    t = np.array([True, False, True, False])
    # eta^2 = 1 (cluster explains the prediction fully), corrected: 1 - (2 - 1) / (4 - 1)
    assert fairness_separation(labels, t, p, "statistical_parity") == pytest.approx(2 / 3)
    assert fairness_separation(labels, t, np.array([True, False, True, False]), "statistical_parity") == 0.0
    # TPR rows (t): labels 0, 1 with p 1, 0 -> eta^2 = 1, corrected 1 - 1/1 = 0
    assert fairness_separation(labels, t, p, "equal_opportunity") == 0.0


@pytest.mark.slow
def test_model_selection_picks_the_best_candidate(planted):
    X, y, yhat = planted
    rep = detect_subgroups(X, y, yhat, n_clusters=[2, 9, 30], random_state=0)
    table = rep.model_selection
    assert table.index.get_level_values("n_clusters").tolist() == [2, 9, 30]
    best = table.index[table["best"]][0]
    assert table.loc[best, "fairness_separation"] == table["fairness_separation"].max()
    assert rep.n_clusters == best[1]
    cmp = compare_clusterings(X, y, yhat, {"slink": [9], "kmeans": [9]}, random_state=0)
    assert set(cmp.columns) >= {"fairness_separation", "silhouette", "davies_bouldin", "calinski_harabasz"}
    assert len(cmp) == 2


# ---------------------------------------------------------------- planted bias
@pytest.fixture(scope="module")
def planted():
    rng = np.random.default_rng(42)
    n = 1800
    X = pd.DataFrame(
        {
            "color": rng.choice(["red", "green", "blue"], n),
            "size": rng.choice(["S", "M", "L"], n),
            "score": rng.uniform(0, 1, n).round(3),
        }
    )
    y = rng.integers(0, 2, n)
    yhat = np.where(rng.uniform(size=n) < 0.85, y, 1 - y)
    biased = (X["color"] == "red").to_numpy() & (X["size"] == "L").to_numpy()
    yhat[biased] = np.where(rng.uniform(size=biased.sum()) < 0.9, 0, 1)  # favourable label 1 withheld
    return X, y, yhat


@pytest.mark.parametrize("clustering", ["slink", "kmeans"])
def test_planted_biased_subgroup_is_found_and_ranked_first(planted, clustering):
    X, y, yhat = planted
    rep = detect_subgroups(X, y, yhat, pos_label=1, clustering=clustering, n_clusters=9, random_state=0)
    for kind in ("entropy", "cluster"):
        top = rep.ranking("statistical_parity", kind=kind, n=1, alpha=None)
        members = X[rep.members(kind, top.index[0])]
        assert set(members["color"]) == {"red"} and set(members["size"]) == {"L"}, kind
    cond = rep.pattern_conditions(rep.ranking("statistical_parity", n=1, alpha=None).index[0])
    assert cond == {"color": "red", "size": "L"}


def test_ranking_min_size_leaves_out_small_subgroups():
    import pandas as pd

    from aif360_subjective.detectors import detect_subgroups

    X = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 3 + ["c"]})
    y = [1, 1, 1, 0, 0, 0, 1, 1, 0, 1]
    p = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0]
    rep = detect_subgroups(X, y, p, n_clusters=3, random_state=0)
    full = rep.ranking("accuracy", kind="cluster", n=None, alpha=None)
    big = rep.ranking("accuracy", kind="cluster", n=None, min_size=3, alpha=None)
    assert len(full) == 3 and len(big) == 2
    assert (big["size"] >= 3).all()
    assert list(big["rank"]) == [1, 2]
    assert set(big["subgroup"]) <= set(full["subgroup"])
    with pytest.raises(ValueError, match="min_size"):
        rep.ranking("accuracy", min_size=0)
