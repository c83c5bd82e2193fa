"""Permutations by whole clusters, within clusters, in a canonical row order; cluster ids; id-like columns."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors.error_control.continuous import OutcomeColumn, max_t_means
from aif360_subjective.detectors.error_control.maxt import max_t
from aif360_subjective.detectors.error_control.resampling import (
    Permuter,
    canonical_order,
    check_groups,
    id_like_columns,
    row_keys,
)


def _hyper_z(x, k, K, N):
    var = k * (K / N) * (1 - K / N) * (N - k) / (N - 1)
    return (k * K / N - x) / np.sqrt(var)


def test_between_design_moves_whole_clusters_onto_clusters_of_the_same_size():
    sizes = [3, 3, 3, 3, 3, 3]
    groups = np.repeat(np.arange(6), sizes)
    rng = np.random.default_rng(0)
    shuffle = rng.permutation(len(groups))
    groups = groups[shuffle]
    perm = Permuter(len(groups), groups=groups)
    assert perm.n_fixed_rows == 0 and not perm.blocks_of_any_size
    idx = perm.draw(np.random.default_rng(1), 30)
    for b in range(30):
        for g in range(6):
            rows = np.flatnonzero(groups == g)
            src = set(groups[idx[rows, b]].tolist())
            assert len(src) == 1  # all rows of a cluster come from one cluster
            assert len(set(idx[rows, b].tolist())) == len(rows)
    assert sorted(idx[:, 3].tolist()) == list(range(len(groups)))  # a permutation


def test_between_design_with_clusters_of_unequal_sizes_permutes_blocks_not_rows():
    # a cluster of size 4 alone used to stay in place (with 1-40 records per person nothing moved): the max-T now
    # permutes whole outcome blocks among every cluster (cluster_permutation), not rows
    groups = np.repeat(np.arange(6), [3, 3, 3, 2, 2, 4])
    perm = Permuter(len(groups), groups=groups)
    assert perm.blocks_of_any_size and "unequal sizes" in perm.unit
    with pytest.raises(ValueError, match="whole outcome blocks"):
        perm.draw(np.random.default_rng(1), 3)


def test_within_design_keeps_rows_in_their_cluster():
    groups = np.repeat(np.arange(5), [4, 1, 6, 3, 2])
    perm = Permuter(len(groups), groups=groups, design="within")
    idx = perm.draw(np.random.default_rng(2), 40)
    assert np.all(groups[idx] == groups[:, None])
    assert all(sorted(idx[:, b].tolist()) == list(range(len(groups))) for b in range(40))
    assert (idx != np.arange(len(groups))[:, None]).any()


def test_check_groups_errors_and_codes():
    assert check_groups(None, 3) is None
    np.testing.assert_array_equal(check_groups(["b", "a", "b", "c"], 4), [1, 0, 1, 2])
    with pytest.raises(ValueError, match="groups must have one cluster id per row: got 3 ids for 4 rows"):
        check_groups([1, 1, 2], 4)
    with pytest.raises(ValueError, match="every one of the 4 rows its own cluster: it adds nothing"):
        check_groups([1, 2, 3, 4], 4)
    with pytest.raises(ValueError, match="1 missing cluster id"):
        check_groups([1, None, 1, 2], 4)
    with pytest.raises(TypeError, match="one-dimensional"):
        check_groups(np.ones((4, 2)), 4)


def test_id_like_columns_name_an_id_with_repeated_values():
    n = 400
    X = pd.DataFrame({"person_id": np.repeat(np.arange(80), 5), "age": np.arange(n) % 60,
                      "row_id": np.arange(n), "sex": np.tile(["f", "m"], n // 2),
                      "userid": np.repeat(np.arange(100), 4)})
    assert id_like_columns(X) == ["person_id", "userid"]  # row_id: every value distinct, not a cluster


def test_canonical_order_sorts_by_the_first_key_then_the_next():
    np.testing.assert_array_equal(canonical_order(np.array([2, 1, 2, 1]), np.array([0, 5, 3, 1])), [3, 1, 0, 2])
    np.testing.assert_array_equal(canonical_order(np.array([3, 1, 2])), [1, 2, 0])


def test_warning_names_the_id_column_and_suggests_groups():
    from aif360_subjective.detectors.error_control.resampling import ClusteredRowsWarning, warn_id_like_columns

    X = pd.DataFrame({"person_id": np.repeat(np.arange(50), 4), "sex": np.tile(["f", "m"], 100)})
    with pytest.warns(ClusteredRowsWarning, match=r"column 'person_id' looks like an id with repeated values "
                                                  r"\(50 ids for 200 rows\).*groups=X\['person_id'\]"):
        assert warn_id_like_columns(X, None) == ["person_id"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_id_like_columns(X, X["person_id"]) == []  # groups given: nothing to say
        assert warn_id_like_columns(X[["sex"]], None) == []


def test_row_keys_follow_the_content_not_the_position():
    X = pd.DataFrame({"a": [1, 2, 1, 3], "b": ["x", "y", "x", "z"]})
    k = row_keys(X, np.array([0, 1, 0, 1]))
    assert k[0] == k[2] and len(set(k.tolist())) == 3
    shuffled = row_keys(X.iloc[[3, 1, 0, 2]], np.array([1, 1, 0, 0]))
    np.testing.assert_array_equal(np.sort(k), np.sort(shuffled))
    assert row_keys(X, np.array([0, 1, 1, 1]))[2] != k[2]  # the outcome is part of the key
    # numbers are keyed by value: an AIF360 dataset's floats and the CSV's integers are the same rows
    np.testing.assert_array_equal(row_keys(X.astype({"a": float}), np.array([0.0, 1.0, 0.0, 1.0])), k)
    np.testing.assert_array_equal(row_keys(X[["b", "a"]].astype({"b": "category"}), np.array([0, 1, 0, 1])), k)


def _table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, (n, 3))
    masks = [g[:, 0] == 0, g[:, 1] == 1, (g[:, 0] == 2) & (g[:, 2] == 1), g[:, 2] != 0]
    t = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.75 - 0.2 * masks[0], t, 1 - t)
    return g, np.column_stack(masks), t, p


def test_max_t_does_not_depend_on_the_order_of_the_rows():
    g, M, t, p = _table()
    keys = row_keys(g, t, p)
    shuffle = np.random.default_rng(5).permutation(len(t))
    a = max_t(sp.csc_matrix(M), t, p, 39, random_state=3, order=canonical_order(keys))
    b = max_t(sp.csc_matrix(M[shuffle]), t[shuffle], p[shuffle], 39, random_state=3,
              order=canonical_order(keys[shuffle]))
    np.testing.assert_array_equal(a.p_global, b.p_global)
    np.testing.assert_array_equal(a.p_adjusted, b.p_adjusted)
    # without a canonical order the p-values follow the rows' order (what item 18 of issue 33 measured)
    c = max_t(sp.csc_matrix(M), t, p, 39, random_state=3)
    d = max_t(sp.csc_matrix(M[shuffle]), t[shuffle], p[shuffle], 39, random_state=3)
    assert not np.array_equal(c.p_adjusted, d.p_adjusted)


def test_max_t_means_does_not_depend_on_the_order_of_the_rows_with_clusters():
    g, M, t, p = _table(240, 1)
    groups = np.repeat(np.arange(60), 4)
    v = np.random.default_rng(2).normal(size=240) + 0.5 * M[:, 0]
    keys = row_keys(g, v)
    shuffle = np.random.default_rng(6).permutation(240)
    cols = [OutcomeColumn("mean_absolute_error", v)]
    a = max_t_means(sp.csc_matrix(M), cols, 39, 4, order=canonical_order(keys), groups=groups)
    cols_s = [OutcomeColumn("mean_absolute_error", v[shuffle])]
    b = max_t_means(sp.csc_matrix(M[shuffle]), cols_s, 39, 4, order=canonical_order(keys[shuffle]),
                    groups=groups[shuffle])
    np.testing.assert_array_equal(a.p_adjusted, b.p_adjusted)
    assert a.unit.startswith("clusters")


def test_max_t_by_clusters_equals_brute_force():
    """Whole clusters moved: truth and prediction move together and every test is standardised with the
    permuted truth margins."""
    g, M, t, p = _table(60, 3)
    groups = np.repeat(np.arange(20), 3)
    B, seed = 30, 7
    res = max_t(sp.csc_matrix(M), t, p, B, random_state=seed, penalty=False, groups=groups)
    rng = np.random.default_rng(seed)
    perm = Permuter(60, groups=groups)
    N = 60

    def stats(tt, pp):
        c = (tt == pp).astype(float)
        P, C, T1, N1 = pp.sum(), c.sum(), (tt * pp).sum(), tt.sum()
        F0, N0 = ((1 - tt) * pp).sum(), N - tt.sum()
        out = []
        for mk in M.T:
            k, k1 = mk.sum(), (mk & (tt == 1)).sum()
            z_t = _hyper_z((tt * pp)[mk].sum(), k1, T1, N1)
            z_f = _hyper_z(((1 - tt) * pp)[mk].sum(), k - k1, F0, N0)
            out.append([_hyper_z(pp[mk].sum(), k, P, N), z_t, (z_t + z_f) / np.sqrt(2), _hyper_z(c[mk].sum(), k, C, N),
                        z_f])
        return np.array(out)

    with np.errstate(divide="ignore", invalid="ignore"):
        obs = stats(t, p)
        perms = []
        for b0 in range(0, B, 50):
            idx = perm.draw(rng, min(50, B - b0))
            perms += [stats(t[idx[:, i]], p[idx[:, i]]) for i in range(idx.shape[1])]
    np.testing.assert_allclose(res.z, obs, rtol=1e-9)
    for f in range(5):
        o = obs[:, f]
        defined = np.flatnonzero(np.isfinite(o))  # undefined hypotheses are not part of the family
        order = defined[np.argsort(-o[defined], kind="stable")]
        raw = [(1 + sum(np.nan_to_num(q[order[i:], f], nan=-np.inf).max() >= o[order[i]] - 1e-9 for q in perms))
               / (B + 1) for i in range(len(order))]
        want = np.full(len(o), np.nan)
        want[order] = np.maximum.accumulate(raw)
        np.testing.assert_allclose(res.p_adjusted[:, f, 0], want, atol=1e-12)


def test_unit_says_how_clusters_move():
    from aif360_subjective.detectors.error_control.resampling import Sampling

    groups = np.repeat(np.arange(5), [3, 3, 2, 2, 4])
    unit = Sampling(groups=groups).unit
    assert unit.startswith("5 clusters of rows by id of 2 to 4 rows (whole clusters' outcome blocks permuted")
    assert "stay in place" not in unit and "split a cluster's rows are not tested" in unit
    assert Sampling(groups=np.repeat(np.arange(4), 2)).unit.startswith("4 clusters of rows by id (whole clusters "
                                                                       "permuted among those with as many rows")
    assert "1 cluster " in Sampling(groups=np.zeros(3, dtype=np.int64)).unit
    assert Sampling().unit.startswith("rows")
