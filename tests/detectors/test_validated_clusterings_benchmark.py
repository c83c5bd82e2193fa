"""The helpers of ``benchmarks/validated_clusterings.py``: the parity z and critical value of its diagnosis, the
issue's k-means baseline and the split selection."""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _benchmark_module import benchmark_module

from aif360_subjective.detectors.error_control.maxt import observed_z


@pytest.fixture(scope="module")
def bench():
    yield from benchmark_module("validated_clusterings")


def test_parity_z_hand_case(bench):
    # N = 4, P = 2; a subgroup of 2 rows with 0 favourable: expected 1, sd = sqrt(2 * 2 * 2 * 2 / (16 * 3))
    p = np.array([0, 0, 1, 1])
    z = bench._parity_z(np.array([[0.0, 1.0]]), np.array([2.0]), p)
    sd = np.sqrt(16 / 48)
    np.testing.assert_allclose(z, [[1 / sd, 0.0]])


def test_parity_z_is_the_max_t_statistical_parity_z(bench):
    rng = np.random.default_rng(0)
    M = sp.csc_matrix(rng.random((200, 6)) < 0.3)
    t, p = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    sizes = np.asarray(M.sum(axis=0)).ravel().astype(float)
    counts = np.asarray(M.T @ p.astype(float)).reshape(-1, 1)
    np.testing.assert_allclose(bench._parity_z(counts, sizes, p)[:, 0], observed_z(M, t, p)[:, 0])


def test_critical_hand_case(bench):
    # per permutation the largest z - offset: (3 - 1, 1 - 0) -> 2, (0 - 1, 4 - 0) -> 4, (nan, 0.5) -> 0.5
    z = np.array([[3.0, 0.0, np.nan], [1.0, 4.0, 0.5]])
    assert bench._critical(z, np.array([1.0, 0.0]), q=1.0) == 4.0
    assert bench._critical(z, np.array([1.0, 0.0]), q=0.0) == 0.5


def test_planted_table_keeps_its_eight_column_draws(bench):
    X, t, p, planted = bench.planted_table("blob", n=300, seed=3)
    X8, t8, p8, planted8 = bench.planted_table("blob", n=300, seed=3, n_numeric=8)
    assert X.equals(X8) and (planted == planted8).all() and (p == p8).all()
    X3, *_ = bench.planted_table("blob", n=300, seed=3, n_numeric=3)
    assert list(X3.columns) == ["x0", "x1", "x2", "c0", "c1", "c2"]


def test_baseline_clusters_every_pair_and_all(bench):
    X, *_ = bench.planted_table("null", n=400, seed=1, n_numeric=3)
    M = bench.baseline_members(X, seed=0)
    # 3 pairs + all numeric = 4 views, k = 5 + 10 + 20 + 40 clusters each; every row in one cluster per model
    assert M.shape == (400, 4 * 75)
    assert (np.asarray(M.sum(axis=1)).ravel() == 16).all()


def test_baseline_and_split_find_a_strong_region(bench):
    # a region of a fifth of the rows in (x0, x1), every row of it unfavourable: both methods report it first
    X, _, _, _ = bench.planted_table("null", n=1000, seed=2, n_numeric=3)
    rng = np.random.default_rng(5)
    planted = (X["x0"] > 0.8).to_numpy() & (X["x1"] > -0.5).to_numpy()
    p = np.where(planted, 0, rng.random(1000) < 0.6).astype(int)
    for rows in (bench.baseline_first(X, p, p, seed=0), bench.split_first(X, p, p, seed=0)):
        assert rows is not None and bench.jaccard(rows, planted) > 0.3


def test_lever_models_names_views_and_ks(bench):
    assert bench.lever_models("default") is None
    assert bench.lever_models("gmm_core") == ["gmm_core"]
    assert bench.lever_models("kmeans+hdbscan") == ["kmeans", "hdbscan"]
    # ks alone: the default views; views alone: the default ks (None)
    assert bench.lever_models("gmm_core/5,10") == [("gmm_core", "numeric", [5, 10]), ("gmm_core", "pairs", [5, 10])]
    assert bench.lever_models("gmm_core@triples") == [("gmm_core", "triples", None)]
    assert bench.lever_models("gmm_core@pairs,triples/5+kmeans") == [
        ("gmm_core", "pairs", [5]), ("gmm_core", "triples", [5]), "kmeans"]


def test_oracle_jaccard_of_a_separate_region_and_of_a_hidden_one(bench):
    rng = np.random.default_rng(0)
    # 100 planted rows at (5, 5) with sd 0.1, 900 standard normal rows: the oracle region is the planted rows
    planted = np.zeros(1000, dtype=bool)
    planted[:100] = True
    Z = rng.normal(size=(1000, 2))
    Z[planted] = 5.0 + 0.1 * rng.normal(size=(100, 2))
    X = pd.DataFrame({"x0": Z[:, 0], "x1": Z[:, 1], "x2": rng.normal(size=1000)})
    assert bench._blob_columns(X, planted) == ["x0", "x1"]
    jac, level = bench.oracle_jaccard(X, planted)
    assert jac == 1.0 and level == 0.05  # every level separates them: the first
    # the same rows at the origin with sd 0.25: 900 background rows share their place, the ceiling falls below 0.5
    Z[planted] = 0.25 * rng.normal(size=(100, 2))
    X = pd.DataFrame({"x0": Z[:, 0], "x1": Z[:, 1], "x2": rng.normal(size=1000)})
    jac, _ = bench.oracle_jaccard(X, planted)
    assert 0.0 < jac < 0.5
    # by hand at one level: the region is {post >= level}, its Jaccard the benchmark's own
    assert bench.jaccard(np.array([True, True, False]), np.array([True, False, False])) == 0.5


def test_rerank_reads_the_saved_reports_first_findings(bench, tmp_path, capsys):
    # a planted table and a null one of 600 rows, k-means clusters, B = 20: the reranked first finding and its
    # Jaccard are the report's own, and the block counts follow them
    from aif360_subjective.detectors import detect_subgroups

    seen = {}
    for seed, shape in ((3003, "dense"), (9000, "null")):
        X, t, p, planted = bench.planted_table(shape, n=600, seed=seed)
        rep = detect_subgroups(X, t, p, clusterings="validated", clustering_models=["kmeans"], n_permutations=20,
                               random_state=0)
        with open(tmp_path / f"{seed}.pkl", "wb") as fh:
            pickle.dump(rep, fh)
        rk = rep.ranking("statistical_parity", kind="all", n=1)
        seen[seed] = (rk["subgroup"].iloc[0] if len(rk) else "none",
                      bench.jaccard(bench.first_rows(rep, "all"), planted))
    bench.rerank(tmp_path)
    out = capsys.readouterr().out
    assert f"| 3003 | {seen[3003][0]} | {seen[3003][1]:.2f} |" in out
    assert f"| 9000 | {seen[9000][0]} | - |" in out
    assert f"dense 3000-3009: {int(seen[3003][1] >= 0.5)}/1 first" in out
    assert f"null 9000-9009: {int(seen[9000][0] != 'none')}/1 report" in out
