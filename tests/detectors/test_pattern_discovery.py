"""Pattern candidates, permutation max-T and the discovery comparison: hand-computed cases and brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.error_control.maxt import (
    _Standardiser,
    _StepDown,
    draw_permutations,
    max_t,
    observed_z,
    scan_penalty,
)
from aif360_subjective.detectors.mining.pattern_mining import build_items, check_min_support, mine_patterns


def _tiny():
    X = pd.DataFrame({
        "sex": ["f", "f", "f", "m", "m", "m", "f", "m"],
        "job": ["a", "b", "a", "a", "b", "b", "a", "a"],
    })
    return X


# ------------------------------------------------------------------ mining
def test_items_and_supports_by_hand():
    items = build_items(_tiny(), ["sex", "job"])
    assert items.labels == ["sex=f", "sex=m", "job=a", "job=b"]
    np.testing.assert_array_equal(np.asarray(items.matrix.sum(axis=0)).ravel(), [4, 4, 5, 3])
    mp = mine_patterns(items, min_support=2, max_length=2)
    got = {mp.description(i): int(s) for i, s in enumerate(mp.support)}
    # f&a = rows 0, 2, 6; f&b = row 1 (pruned, < 2); m&a = rows 3, 7; m&b = rows 4, 5
    assert got == {"sex=f": 4, "sex=m": 4, "job=a": 5, "job=b": 3, "sex=f AND job=a": 3,
                   "sex=m AND job=a": 2, "sex=m AND job=b": 2}
    i = [mp.description(k) for k in range(len(mp.patterns))].index("sex=m AND job=a")
    np.testing.assert_array_equal(np.flatnonzero(mp.members()[:, i].toarray().ravel()), [3, 7])
    assert mp.conditions(i) == {"sex": "m", "job": "a"}


def test_identical_row_sets_are_kept_once_shortest_first():
    X = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "w"]})
    mp = mine_patterns(build_items(X, ["a", "b"]), min_support=1, max_length=2)
    texts = [mp.description(i) for i in range(len(mp.patterns))]
    # a=x and b=u hold rows {0, 1}; a=x AND b=u too; b=v equals a=y AND b=v ...: kept once, shortest first
    assert "a=x" in texts and "b=u" not in texts and "a=x AND b=u" not in texts
    assert "a=y AND b=v" not in texts and "b=v" in texts
    assert mp.n_identical == 4 and len(texts) == 4  # a=x, a=y, b=v, b=w


def test_numeric_bins_are_ranges_with_merges():
    X = pd.DataFrame({"age": np.arange(20, 40, dtype=float)})  # 20 distinct values
    items = build_items(X, [], n_bins=4, max_merge=2)
    # quartile edges 20, 24.75, 29.5, 34.25, 39: 4 single bins and 3 merged pairs
    assert items.labels == ["age ∈ [20, 24.75)", "age ∈ [24.75, 29.5)", "age ∈ [29.5, 34.25)",
                            "age ∈ [34.25, 39]", "age ∈ [20, 29.5)", "age ∈ [24.75, 34.25)",
                            "age ∈ [29.5, 39]"]
    sizes = np.asarray(items.matrix.sum(axis=0)).ravel()
    np.testing.assert_array_equal(sizes, [5, 5, 5, 5, 10, 10, 10])
    assert items.values[3] == (34.25, 39.0, True)
    # a numeric column with few values is categorical-like: one item per value
    few = build_items(pd.DataFrame({"k": [1, 2, 2, 3]}), [], n_bins=4)
    assert few.labels == ["k=1", "k=2", "k=3"]


@pytest.mark.parametrize(("value", "n", "rows"), [(5, 100, 5), (0.05, 100, 5), (0.051, 100, 6), (0.001, 10, 1)])
def test_min_support_count_or_share(value, n, rows):
    assert check_min_support(value, n) == rows


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (1.0, ValueError), (-0.1, ValueError),
                                              ("5", TypeError), (True, TypeError)])
def test_min_support_bad(value, error):
    with pytest.raises(error, match="min_support"):
        check_min_support(value, 100)


# ------------------------------------------------------------------ max-T
def _hyper_z(x, k, K, N):
    var = k * (K / N) * (1 - K / N) * (N - k) / (N - 1)
    return (k * K / N - x) / np.sqrt(var)


def test_observed_z_by_hand():
    t = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    p = np.array([1, 0, 0, 1, 1, 1, 1, 0])
    members = sp.csc_matrix(np.array([[1, 1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1, 1, 1]], dtype=bool).T)
    z = observed_z(members, t, p)
    # statistical parity, subgroup 0: 1 favourable prediction of 3; overall 5 of 8
    assert z[0, 0] == pytest.approx(_hyper_z(1, 3, 5, 8))
    # equal opportunity, subgroup 0: truth positives rows 0, 1; TP = 1; overall TP 3 of 4 truth positives
    z_t = _hyper_z(1, 2, 3, 4)
    # FPR part: truth negatives of subgroup 0: row 2 (FP 0); overall FP 2 of 4 truth negatives
    z_f = _hyper_z(0, 1, 2, 4)
    assert z[0, 1] == pytest.approx(z_t)
    assert z[0, 2] == pytest.approx((z_t + z_f) / np.sqrt(2))
    # accuracy: correct rows 0, 2 of subgroup 0 (2 of 3); overall correct 5 of 8
    assert z[0, 3] == pytest.approx(_hyper_z(2, 3, 5, 8))
    # false positive rate: the FPR part on its own (a test of its own)
    assert z[0, 4] == pytest.approx(z_f)
    # the complementary subgroup has the opposite statistical-parity z
    assert z[1, 0] == pytest.approx(-z[0, 0])


def _brute_force_max_t(masks, t, p, B, seed, penalty):
    """Westfall-Young step-down by explicit loops over permutations, hypotheses and candidates."""
    rng = np.random.default_rng(seed)
    n = len(t)
    pos, neg = np.flatnonzero(t == 1), np.flatnonzero(t != 1)
    c = (t == p).astype(float)
    N, P, C = n, p.sum(), c.sum()
    N1, T1 = t.sum(), (t * p).sum()
    N0, F0 = n - N1, ((1 - t) * p).sum()

    @np.errstate(divide="ignore", invalid="ignore")
    def stats(pp_a, cc_a, pp_b):
        out = []
        for mk in masks:
            k, k1 = mk.sum(), (mk & (t == 1)).sum()
            k0 = k - k1
            pen = np.sqrt(2 * np.log(n / k)) if penalty else 0.0
            z_sp = _hyper_z(pp_a[mk].sum(), k, P, N)
            z_t = _hyper_z((pp_b * t)[mk].sum(), k1, T1, N1)
            z_f = _hyper_z((pp_b * (1 - t))[mk].sum(), k0, F0, N0)
            z_acc = _hyper_z(cc_a[mk].sum(), k, C, N)
            out.append([z_sp - pen, z_t - pen, (z_t + z_f) / np.sqrt(2) - pen, z_acc - pen, z_f - pen])
        return np.array(out)  # (m, 5) disadvantaged; favoured = -z - pen

    obs = stats(p, c, p)
    pen = np.array([np.sqrt(2 * np.log(n / mk.sum())) if penalty else 0.0 for mk in masks])
    perms = []
    done = 0
    while done < B:
        b = min(50, B - done)
        idx, p_b = draw_permutations(rng, p.astype(float), pos, neg, b)
        for j in range(b):
            perms.append(stats(p[idx[:, j]], c[idx[:, j]], p_b[:, j]))
        done += b

    def step_down(o, ps):
        defined = np.flatnonzero(np.isfinite(o))  # undefined hypotheses are not part of the family
        order = defined[np.argsort(-o[defined], kind="stable")]
        raw = []
        for i in range(len(order)):
            rest = order[i:]
            raw.append((1 + sum(ps_b[rest].max() >= o[order[i]] - 1e-9 for ps_b in ps)) / (B + 1))
        out = np.full(len(o), np.nan)
        out[order] = np.maximum.accumulate(raw)
        return out

    m = len(masks)
    p_adj = np.empty((m, 5, 2))
    for f in range(5):
        dis = obs[:, f]
        fav = -(obs[:, f] + pen) - pen
        p_adj[:, f, 0] = step_down(dis, [q[:, f] for q in perms])
        p_adj[:, f, 1] = step_down(fav, [-(q[:, f] + pen) - pen for q in perms])
    return obs, p_adj


@pytest.mark.parametrize("penalty", [True, False])
def test_max_t_equals_brute_force(penalty):
    rng = np.random.default_rng(5)
    n = 40
    t = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.8, t, 1 - t)
    p[:6] = 0  # a disadvantaged corner
    grid = rng.integers(0, 3, (n, 2))
    masks = [grid[:, 0] == 0, grid[:, 1] == 1, (grid[:, 0] == 0) & (grid[:, 1] == 1), np.arange(n) < 8,
             grid[:, 0] != 2]
    members = sp.csc_matrix(np.column_stack(masks))
    res = max_t(members, t, p, n_permutations=60, random_state=11, penalty=penalty)
    obs, p_adj = _brute_force_max_t(masks, t, p, 60, 11, penalty)
    pen = scan_penalty(np.array([m.sum() for m in masks], dtype=float), n) if penalty else 0.0
    np.testing.assert_allclose(res.z - (pen[:, None] if penalty else 0.0), obs, atol=1e-9)
    np.testing.assert_allclose(res.p_adjusted, p_adj, atol=1e-12)


def test_step_down_by_hand():
    # three hypotheses, observed 3, 2, 1; four permutations
    sd = _StepDown(np.array([3.0, 2.0, 1.0]))
    sd.add(np.array([[3.5, 0, 0], [1, 2.5, 0], [0, 0, 1.5], [0, 0, 0]]))
    # successive maxima: H1 (all): 3.5, 2.5, 1.5, 0 -> 1 exceed 3; H2 (H2, H3): 0, 2.5, 1.5, 0 -> 1 exceeds 2;
    # H3: 0, 0, 1.5, 0 -> 1 exceeds 1
    np.testing.assert_allclose(sd.adjusted(4), [0.4, 0.4, 0.4])
    sd = _StepDown(np.array([3.0, 2.0, np.nan]))
    sd.add(np.array([[1.0, 2.5, 9.0]]))  # the undefined hypothesis is not part of the family
    np.testing.assert_allclose(sd.adjusted(1)[:2], [0.5, 1.0])
    assert np.isnan(sd.adjusted(1)[2])


def test_permutation_schemes_keep_their_margins():
    rng = np.random.default_rng(0)
    t = rng.integers(0, 2, 30)
    p = rng.integers(0, 2, 30).astype(float)
    pos, neg = np.flatnonzero(t == 1), np.flatnonzero(t == 0)
    idx, p_b = draw_permutations(rng, p, pos, neg, 7)
    assert all(sorted(idx[:, j]) == list(range(30)) for j in range(7))
    np.testing.assert_array_equal(p_b[pos].sum(axis=0), np.full(7, p[pos].sum()))
    np.testing.assert_array_equal(p_b[neg].sum(axis=0), np.full(7, p[neg].sum()))


def test_standardiser_sd_is_zero_for_a_full_subgroup():
    members = sp.csc_matrix(np.ones((6, 1), dtype=bool))  # (rows, subgroups)
    std = _Standardiser(members, np.array([1, 0, 1, 0, 1, 0.0]), np.array([1, 1, 0, 0, 1, 0.0]))
    assert np.isnan(std.inv_sd).all()


# ------------------------------------------------------------------ the report
@pytest.fixture(scope="module")
def planted():
    b = make_planted_slice(n_samples=2000, n_categorical=4, n_numeric=1, n_conditions=2, planted_share=0.1,
                           effect=0.3, random_state=3)
    rep = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=0, discovery="patterns", n_permutations=59)
    return b, rep


def test_planted_slice_leads_the_pattern_ranking(planted):
    b, rep = planted
    rk = rep.ranking("statistical_parity", kind="pattern", n=1)
    assert len(rk) == 1
    rows = rep.members("pattern", rk.index[0])
    jaccard = (rows & b.planted).sum() / (rows | b.planted).sum()
    assert jaccard >= 0.5, (rk, b.conditions)
    assert rk.attrs["n_significant"] >= 1 and rk.attrs["control"] == "fwer"
    assert "statistical_parity_p_adjusted" in rk.columns and (rk["statistical_parity_p_adjusted"] < 0.05).all()


def test_findings_summary_and_sentence_agree(planted):
    _, rep = planted
    f = rep.findings()
    assert list(f.columns) == ["metric", "kind", "id", "description", "size", "value", "ci_low", "ci_high",
                               "p_adjusted", "direction"]
    assert (f["p_adjusted"] < 0.05).all() and len(f) >= 1
    s = rep.discovery_summary()
    assert list(s.index) == ["pattern"]
    n_sig = int(s.loc["pattern", "significant"])
    assert n_sig >= 1 and s.loc["pattern", "candidates"] == len(rep.descriptions("pattern"))
    word = "subgroup" if n_sig == 1 else "subgroups"
    assert rep.discovery_sentence().startswith(f"The mined patterns found {n_sig} significant {word}")


def test_pattern_kind_has_the_accessors(planted):
    b, rep = planted
    m = rep.subgroup_metrics()
    assert set(m.index.get_level_values("kind")) == {"pattern"}
    assert "statistical_parity_p_adjusted" in m.columns
    pats = rep.patterns(kind="pattern")
    assert list(pats.columns) == list(b.X.columns)
    i = 0
    cond = rep.pattern_conditions(i, kind="pattern")
    mask = np.ones(len(b.X), dtype=bool)
    for col, v in cond.items():
        if isinstance(v, tuple):
            x = b.X[col].to_numpy()
            mask &= (x >= v[0]) & ((x <= v[1]) if v[2] else (x < v[1]))
        else:
            mask &= b.X[col].to_numpy() == v
    np.testing.assert_array_equal(rep.members("pattern", i), mask)
    with pytest.raises(ValueError, match="no 'cluster' subgroups"):
        rep.ranking("statistical_parity", kind="cluster")


@pytest.mark.slow
def test_null_tables_stay_silent():
    listed = 0
    for seed in range(5):
        b = make_planted_slice(n_samples=1500, n_categorical=4, n_numeric=1, effect=0.0, random_state=seed)
        rep = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=seed, discovery="patterns",
                               n_permutations=39)
        listed += len(rep.ranking("statistical_parity", kind="pattern")) > 0
        listed += len(rep.findings()) > 0
    assert listed <= 1


def test_asdf_part_unchanged_by_patterns():
    b = make_planted_slice(n_samples=400, n_categorical=3, n_numeric=1, random_state=2)
    a = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=4, discovery="asdf")
    both = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=4, discovery="both", n_permutations=19)
    assert a.kinds == ("cluster", "entropy") and both.kinds == ("cluster", "entropy", "pattern")
    np.testing.assert_array_equal(a.clusters.to_numpy(), both.clusters.to_numpy())
    pd.testing.assert_frame_equal(a.subgroup_metrics(ci=None),
                                  both.subgroup_metrics(ci=None).loc[["cluster", "entropy"]])
    assert a.ranking("statistical_parity", alpha=None).equals(both.ranking("statistical_parity", alpha=None))


def test_kind_all_lists_identical_row_sets_once():
    X = pd.DataFrame({"g": ["a"] * 30 + ["b"] * 30})
    y_pred = np.r_[np.zeros(30, int), np.ones(30, int)]
    rep = detect_subgroups(X, y_pred, y_pred, n_clusters=2, random_state=0, discovery="both", n_permutations=39)
    rk = rep.ranking("statistical_parity", kind="all", n=None, alpha=None)
    assert len(rk) == 2
    texts = sorted(rk["subgroup"])
    # cluster, its entropy pattern and the mined pattern hold the same rows: one line, each distinct text once
    assert all(t.count(" | ") == 1 and t.startswith("cluster=") for t in texts)
    assert sorted(t.split(" | ")[1] for t in texts) == ["g=a", "g=b"]
    # the comparison still credits every method with the subgroup it found
    summary = rep.discovery_summary()
    assert summary["significant"].tolist() == [2, 2, 2]
    assert rep.findings()["description"].str.contains("cluster=").all()


def test_redundant_sub_pattern_is_left_out():
    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v"], n)})
    slice_ = X["a"].to_numpy() == "x"
    y_pred = (rng.random(n) < np.where(slice_, 0.2, 0.6)).astype(int)
    rep = detect_subgroups(X, y_pred, y_pred, discovery="patterns", n_permutations=39, random_state=1)
    rk = rep.ranking("statistical_parity", kind="pattern", n=None)
    assert rk["subgroup"].iloc[0] == "a=x"
    assert "a=x AND b=u" not in set(rk["subgroup"]) and "a=x AND b=v" not in set(rk["subgroup"])
    full = rep.ranking("statistical_parity", kind="pattern", n=None, keep_redundant=True)
    assert {"a=x AND b=u", "a=x AND b=v"} <= set(full["subgroup"])
    assert rk.attrs["n_redundant"] == len(full) - len(rk)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"discovery": "slices"}, ValueError, "discovery"),
        ({"max_length": 0}, ValueError, "max_length must be >= 1"),
        ({"n_bins": 2.5}, TypeError, "n_bins must be an int"),
        ({"min_support": 0}, ValueError, "min_support"),
        ({"n_permutations": 5}, ValueError, "n_permutations must be >= 19"),
    ],
)
def test_bad_options(kwargs, error, match):
    X = pd.DataFrame({"g": ["a", "b"] * 5})
    y = np.array([0, 1] * 5)
    with pytest.raises(error, match=match):
        detect_subgroups(X, y, y, **kwargs)


def test_ranking_kind_pattern_needs_patterns():
    X = pd.DataFrame({"g": ["a", "b"] * 10})
    y = np.array([0, 1] * 10)
    rep = detect_subgroups(X, y, y, discovery="asdf", n_clusters=2, random_state=0)
    with pytest.raises(ValueError, match="no 'pattern' subgroups"):
        rep.ranking("statistical_parity", kind="pattern")
    with pytest.raises(ValueError, match="control must be one of"):
        rep.ranking("statistical_parity", control="bonferroni")


def test_step_down_tail_is_single_step_and_conservative(monkeypatch):
    from aif360_subjective.detectors.error_control import maxt

    rng = np.random.default_rng(9)
    obs = np.array([4.0, 3.0, 2.0, 1.0, 0.5])
    perm = rng.normal(size=(30, 5)) * 1.5
    exact = _StepDown(obs)
    exact.add(perm)
    monkeypatch.setattr(maxt, "STEP_DOWN_EXACT", 2)
    short = _StepDown(obs)
    short.add(perm[:10])
    short.add(perm[10:])
    p_exact, p_short = exact.adjusted(30), short.adjusted(30)
    np.testing.assert_allclose(p_short[:2], p_exact[:2])
    assert (p_short >= p_exact - 1e-12).all()
    single = [(1 + np.sum(perm.max(axis=1) >= o - 1e-9)) / 31 for o in obs]
    np.testing.assert_allclose(p_short[2:], np.maximum.accumulate(np.r_[p_short[:2], single[2:]])[2:])


def test_over_general_ranges_give_way_to_the_slice_they_dilute():
    rng = np.random.default_rng(4)
    n = 4000
    X = pd.DataFrame({"x": rng.random(n), "c": rng.choice(["u", "v"], n)})
    inside = (X["x"].to_numpy() >= 0.4) & (X["x"].to_numpy() < 0.6)
    y_pred = (rng.random(n) < np.where(inside, 0.2, 0.6)).astype(int)
    rep = detect_subgroups(X, y_pred, y_pred, discovery="patterns", n_permutations=39, random_state=2)
    rk = rep.ranking("statistical_parity", kind="pattern", n=None)
    full = rep.ranking("statistical_parity", kind="pattern", n=None, keep_redundant=True)
    assert 1 <= len(rk) < len(full)
    top = rep.members("pattern", rk.index[0])
    assert (top & inside).sum() / (top | inside).sum() >= 0.8, rk["subgroup"].iloc[0]
    # every range holding the slice and more (a diluted version of it) is left out
    for i in rk.index:
        rows = rep.members("pattern", i)
        assert not ((rows & inside).sum() == inside.sum() and rows.sum() > 1.2 * inside.sum()), rk.loc[i, "subgroup"]


def test_findings_are_computed_once_and_handed_out_as_copies(monkeypatch):
    rng = np.random.default_rng(3)
    n = 600
    X = pd.DataFrame({"a": rng.choice(["x", "y"], n), "b": rng.choice(["u", "v"], n)})
    y_pred = (rng.random(n) < np.where(X["a"].to_numpy() == "x", 0.2, 0.6)).astype(int)
    rep = detect_subgroups(X, y_pred, y_pred, discovery="patterns", n_permutations=39, random_state=1)
    calls = []
    from aif360_subjective.detectors import significance

    inner = significance.findings_frame
    monkeypatch.setattr(significance, "findings_frame", lambda *a: calls.append(a) or inner(*a))
    first = rep.findings()
    first.loc[:, "value"] = -99.0  # a caller editing its table does not reach the next caller
    second = rep.findings()
    assert len(calls) == 1 and len(second) and (second["value"] != -99.0).all()
    assert second.attrs["n_hypotheses"] == first.attrs["n_hypotheses"]
    rep.findings(alpha=0.01)
    assert len(calls) == 2


def test_bitsets_pack_unpack_hash_and_test_membership_exactly():
    from aif360_subjective.detectors import bitsets as bs

    rng = np.random.default_rng(7)
    for n in (1, 63, 64, 65, 997):
        dense = rng.random((n, 23)) < 0.3
        dense[:, 5] = dense[:, 4]  # two equal sets
        bits = bs.pack(dense)
        assert bits.shape == (23, bs.n_words(n))
        assert np.array_equal(bs.pack_columns(sp.csc_matrix(dense)), bits)  # from the sparse form, no dense copy
        assert np.array_equal(bs.unpack_to_csc(bits, n).toarray(), dense)
        assert np.array_equal(bs.unpack_to_csc(bits, n, dense.sum(axis=0), block=3).toarray(), dense)
        assert all(np.array_equal(bs.unpack_one(bits[j], n), np.flatnonzero(dense[:, j])) for j in range(23))
        rows = rng.choice(n, min(n, 40), replace=False)
        assert np.array_equal(bs.bits_at(bits, rows), dense[rows].T)
        assert np.array_equal(bs.popcount_and(bits, bits, block=5), dense.T.astype(int) @ dense.astype(int))
        keys = bs.bit_keys(bits)
        distinct = {tuple(col) for col in dense.T.tolist()}
        assert len(np.unique(keys, axis=0)) == len(distinct)
        assert np.array_equal(keys[4], keys[5]) and np.array_equal(keys[:, 0], dense.sum(axis=0))


def test_cell_counts_equal_member_counts_for_every_pattern():
    from aif360_subjective.detectors.error_control.counters import MemberCounter

    rng = np.random.default_rng(3)
    n = 1500
    X = pd.DataFrame({"a": rng.choice(list("abcde"), n), "b": rng.choice(list("xyz"), n),
                      "u": rng.normal(size=n), "v": rng.integers(0, 40, n).astype(float)})
    X.loc[X["a"] == "e", "b"] = "x"  # empty cells: no (e, y) or (e, z)
    mp = mine_patterns(build_items(X, ["a", "b"], 6, 3), 3, 3)
    assert {len(p) for p in mp.patterns} == {1, 2, 3}
    Y = rng.random((n, 9)) < 0.4
    want = MemberCounter(mp.members()).count(Y)
    got = mp.counter().count(Y)
    assert np.array_equal(got, want)
    assert np.array_equal(mp.counter().count(Y.astype(np.float64)), want)  # 0/1 floats take the same exact path
    w = rng.random((n, 2))
    np.testing.assert_allclose(mp.counter().count(w), mp.members().T.astype(np.float64) @ w, rtol=1e-12)
    # more rows than one 16-bit block: the blocks' counts add up
    from aif360_subjective.detectors.mining.cell_counts import CellCounter

    big = CellCounter(np.repeat(mp.items.codes, 50, axis=0), mp.items.column, mp.items.lo, mp.items.hi, mp.patterns)
    Yb = np.repeat(Y, 50, axis=0)
    assert np.array_equal(big.count(Yb), 50 * want) and big.shape == (n * 50, len(mp.patterns))


def test_families_in_one_pass_equal_each_family_on_its_own(monkeypatch):
    from aif360_subjective.detectors.error_control import maxt

    monkeypatch.setattr(maxt, "STEP_DOWN_EXACT", 3)  # short heads: the set-aside rows and the tails matter
    rng = np.random.default_rng(5)
    m, b = 9, 25
    observed = [rng.normal(size=m) * 2 for _ in range(8)]
    for k in (1, 6):
        observed[k][[0, 4]] = np.nan  # undefined hypotheses: never part of a family
    fams = maxt.Families(observed, [[k] for k in range(8)] + [[2 * f, 2 * f + 1] for f in range(4)]
                          + [list(range(8))])
    alone = [_StepDown(np.concatenate([observed[k] for k in ks])) for ks in fams.members]
    for _ in range(3):
        blocks = [rng.normal(size=(m, b)) * 1.5 for _ in range(8)]
        for k in (1, 6):
            blocks[k][[0, 4]] = np.nan
        for ks, sd in zip(fams.members, alone, strict=True):
            sd.add(np.concatenate([blocks[k] for k in ks]).T)
        fams.add([blk.copy() for blk in blocks])
    for got, sd in zip(fams.adjusted(b * 3), alone, strict=True):
        np.testing.assert_array_equal(got, sd.adjusted(b * 3))


def test_permuted_counts_in_row_blocks_are_exact(monkeypatch):
    from aif360_subjective.detectors.error_control import counters

    rng = np.random.default_rng(6)
    n, m, b = 50, 7, 4
    members = sp.csc_matrix(rng.random((n, m)) < 0.4)
    t = rng.integers(0, 2, n)
    p_a, c_a, p_b = (rng.integers(0, 2, (n, b)).astype(float) for _ in range(3))
    want = [members.T @ p_a, members.T @ (t[:, None] * p_b), members.T @ ((1 - t)[:, None] * p_b), members.T @ c_a]
    monkeypatch.setattr(counters.MemberCounter, "_BLOCK", 8)  # 7 blocks of rows, the last one short
    got = counters.PermutedCounts(counters.MemberCounter(members), t).counts(p_a, c_a, p_b)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, np.asarray(w))


def test_class_offsets_by_hand():
    from aif360_subjective.detectors.error_control.maxt import class_offsets

    got = class_offsets(np.array(["a", "a", "b", "c", "c", "c", "c"], dtype=object))
    np.testing.assert_allclose(got, [np.sqrt(2 * np.log(2))] * 2 + [0.0] + [np.sqrt(2 * np.log(4))] * 4)


def test_max_t_penalises_each_description_class_by_its_size():
    X = pd.DataFrame({"c": list("aabbaabb") * 50, "d": list("xyxyyxyx") * 50, "v": np.arange(400) / 400})
    y = np.tile([1, 0, 1, 1, 0, 1, 0, 0], 50)
    rep = detect_subgroups(X, y, y, discovery="both", n_clusters=2, n_permutations=19, random_state=0)
    classes = rep.candidates.description_classes()
    kinds = rep.subgroup_metrics(ci=None).index.get_level_values("kind").to_numpy()
    mined = rep.candidates.family("pattern")
    assert set(classes[kinds == "cluster"]) == {"cluster"} and set(classes[kinds == "entropy"]) == {"entropy"}
    shapes = {(len(p), sum(isinstance(mined.items.values[j], tuple) for j in p)) for p in mined.patterns}
    assert {f"pattern:{a}:{b}" for a, b in shapes} == set(classes[kinds == "pattern"])
    offset = rep.significance.max_t().offset
    for c in set(classes):
        np.testing.assert_allclose(offset[classes == c], np.sqrt(2 * np.log((classes == c).sum())))


@pytest.mark.parametrize("sample", [50, 10_000])  # through the sampled candidates and directly
def test_containment_finds_exactly_the_nested_pairs(sample):
    from aif360_subjective.detectors.redundancy import containment, containment_of

    rng = np.random.default_rng(11)
    base = rng.random((3000, 30)) < 0.2
    nested = base[:, :10] & (rng.random((3000, 10)) < 0.5)  # subsets of the first ten
    dense = np.hstack([base, nested, base[:, :3]])  # and three exact copies (equal sizes: not strictly nested)
    inter = dense.T.astype(np.int64) @ dense.astype(np.int64)
    size = dense.sum(axis=0)
    want = set(zip(*np.nonzero((inter == size[None, :]) & (size[:, None] > size[None, :])), strict=True))
    from aif360_subjective.detectors.bitsets import pack

    g, s_, got_size = containment(pack(dense), len(dense), sample=sample)
    assert set(zip(g.tolist(), s_.tolist(), strict=True)) == {(int(a), int(b)) for a, b in want}
    assert len(want) >= 10 and np.array_equal(got_size, size)
    # the bitsets formed a block of words at a time (1, 3 and 7 words of the 47 per block; the last ragged): the
    # same pairs in the same order, the same sizes, and no block asked for twice within a pass
    bits = pack(dense)
    for per_block in (1, 3, 7):
        asked = []

        def form(words, bits=bits, asked=asked):
            asked.append((words.start, words.stop))
            return bits[:, words]

        g2, s2, size2 = containment_of(form, len(bits), bits.shape[1], len(dense), sample=sample,
                                       block_bytes=8 * len(bits) * per_block)
        np.testing.assert_array_equal(g2, g)
        np.testing.assert_array_equal(s2, s_)
        np.testing.assert_array_equal(size2, got_size)
        assert all(b - a <= per_block for a, b in asked) and asked[0] == (0, per_block)


def test_max_t_of_some_tests_equals_those_tests_of_all():
    b = make_planted_slice(n_samples=600, effect=0.2, planted_share=0.1, random_state=4)
    mp = mine_patterns(build_items(b.X, [c for c in b.X if c.startswith("cat")]), 12, 2)
    full = max_t(mp.members(), b.y_true, b.y_pred, n_permutations=39, random_state=8)
    for tests in [(0,), (2,), (1, 3), (4,)]:
        part = max_t(mp.members(), b.y_true, b.y_pred, n_permutations=39, random_state=8, tests=tests)
        for f in range(5):
            if f in tests:
                np.testing.assert_array_equal(part.p_adjusted[:, f], full.p_adjusted[:, f])
                np.testing.assert_array_equal(part.p_two_sided[:, f], full.p_two_sided[:, f])
            else:
                assert np.isnan(part.p_adjusted[:, f]).all()
        assert np.isnan(part.p_global).all() and part.n_hypotheses[1] == 0
    with pytest.raises(ValueError, match="tests must be positions"):
        max_t(mp.members(), b.y_true, b.y_pred, n_permutations=19, tests=(5,))


def test_mined_members_equal_their_conditions_over_several_unpacking_blocks():
    rng = np.random.default_rng(12)
    X = pd.DataFrame({f"c{i}": rng.choice(list("abcd"), 700) for i in range(5)} | {"v": rng.random(700)})
    items = build_items(X, [f"c{i}" for i in range(5)])
    mp = mine_patterns(items, 5, 3)
    assert len(mp.patterns) > 3 * 256  # more than three blocks of bitsets
    dense = items.matrix.toarray()
    want = np.column_stack([dense[:, list(pat)].all(axis=1) for pat in mp.patterns])
    got = mp.members().toarray()
    assert np.array_equal(got, want) and np.array_equal(mp.support, want.sum(axis=0))
    assert mp.members().has_sorted_indices


@pytest.mark.slow
def test_cell_counts_index_huge_cross_tables_and_fall_back_to_members_where_cheaper():
    from aif360_subjective.detectors.error_control.counters import MemberCounter

    rng = np.random.default_rng(21)
    n = 600
    # three categorical columns of 200 levels: a cross-table of 8 million cells, indexed by its non-empty ones
    c1 = rng.integers(0, 200, n)
    X = pd.DataFrame({"a": c1.astype(str), "b": ((c1 + rng.integers(0, 2, n)) % 200).astype(str),
                      "c": ((c1 + rng.integers(0, 2, n)) % 200).astype(str)})
    mp = mine_patterns(build_items(X, ["a", "b", "c"]), 2, 3)
    assert any(len(p) == 3 for p in mp.patterns)
    Y = rng.random((n, 5)) < 0.5
    want = MemberCounter(mp.members()).count(Y)
    from aif360_subjective.detectors.mining.cell_counts import CellCounter

    cells_only = CellCounter(mp.items.codes, mp.items.column, mp.items.lo, mp.items.hi, mp.patterns)  # no bitsets
    assert len(cells_only.member_ids) == 0 and np.array_equal(cells_only.count(Y), want)
    # with the bitsets, the rare three-column patterns (a few rows each) are cheaper through their members
    assert 0 < len(mp.counter().member_ids) < len(mp.patterns) and np.array_equal(mp.counter().count(Y), want)
    w = rng.random((n, 2))  # weights through both paths
    np.testing.assert_allclose(mp.counter().count(w), mp.members().T.astype(np.float64) @ w, rtol=1e-12)
    # wide merged ranges on three numeric columns: up to 729 cells per pattern, formed a bounded block of
    # patterns at a time
    X = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(3)})
    mp = mine_patterns(build_items(X, [], n_bins=10, max_merge=9), 40, 3)
    assert len(mp.patterns) * 729 > CellCounter._GRID  # several blocks
    assert np.array_equal(mp.counter().count(Y), MemberCounter(mp.members()).count(Y))


@pytest.mark.slow
def test_no_pattern_mined_is_a_kind_with_no_subgroups_not_an_error():
    # min_support above every item's support: the pattern kind is there, with no subgroup, everywhere
    from aif360_subjective.report import Report
    from aif360_subjective.report.sections import subgroup_sections

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.normal(size=n)})
    y, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    rep = detect_subgroups(X, y, p, random_state=0, min_support=0.99)
    assert "pattern" in rep.kinds and len(rep.ranking("statistical_parity", kind="pattern", alpha=None)) == 0
    summary = rep.summary()
    assert summary.loc["pattern"].isna().all() and summary.loc["entropy"].notna().all()
    comparison = rep.discovery_summary(0.05, 0.95)
    assert comparison.loc["pattern", "candidates"] == 0 and comparison.loc["pattern", "significant"] == 0
    page = Report("none mined").extend(subgroup_sections(rep, figures=True)).render()
    assert "Discovery methods compared" in page



def test_a_parent_that_is_a_nested_finding_diluted_is_decided_after_it_even_when_stronger():
    """The chain of issue 38 (``score < -0.8347`` listed above ``income < 25,700 AND score < -0.8347``), by hand.
    S (rows 0-199) inside M (rows 0-299) inside G (rows 0-599) of 1,000 rows; favourable S 60/200, M's other rows
    38/100, G's other rows 150/300, outside G 200/400 (448 in all). Pooled two-proportion z:

    * S against G's other rows (60/200 against 188/400): pooled 248/600, z = -0.17 / sqrt(0.41333 0.58667 (1/200 +
      1/400)) = -3.986, and G's other rows against the outside (188/400 against 200/400): pooled 0.485, z = -0.03
      / sqrt(0.485 0.515 (2/400)) = -0.849: G is S diluted and S's rate is not G's (G waits for S);
    * M against G's other rows (98/300 against 150/300): z = -0.17333 / sqrt(0.41333 0.58667 (2/300)) = -4.311,
      G's other rows against the outside 0.5 against 0.5, z = 0: G is M diluted too (G waits for M);
    * S against M's other rows (60/200 against 38/100): pooled 98/300, z = -0.08 / sqrt(0.32667 0.67333 (1/200 +
      1/100)) = -1.393; M's other rows against the rows outside M (38/100 against 350/700): pooled 0.485, z =
      -0.12 / sqrt(0.485 0.515 (1/100 + 1/700)) = -2.246: S and M are redundant given each other.

    Nothing is redundant given none. Strength against the rest minus the offsets (2.5, 2.5, 0: G has the one
    condition, the smaller penalty): S |(0.3 - 0.485)| / sqrt(0.448 0.552 (1/200 + 1/800)) - 2.5 = 4.706 - 2.5 =
    2.206, M 0.17333 / sqrt(0.448 0.552 (1/300 + 1/700)) - 2.5 = 5.051 - 2.5 = 2.551, G 0.08667 / sqrt(0.448 0.552
    (1/600 + 1/400)) = 2.700. By strength alone G was visited first and kept (its S and M not kept yet), then M
    kept and S left out: G listed first, by its statistic. Visited after S and M, G is redundant given the kept M."""
    from aif360_subjective.detectors.bitsets import pack
    from aif360_subjective.detectors.error_control.inference import rate_z
    from aif360_subjective.detectors.redundancy import containment, redundant

    n = 1000
    dense = np.zeros((n, 3), dtype=bool)
    dense[:200, 0] = True  # S
    dense[:300, 1] = True  # M
    dense[:600, 2] = True  # G
    counts = np.vstack([_confusion(60, 200), _confusion(98, 300), _confusion(248, 600)])
    total = _confusion(448, n)

    def z(a: np.ndarray, b: np.ndarray) -> float:
        return float(rate_z(a[None], b[None], "statistical_parity")[0])

    np.testing.assert_allclose([z(counts[0], counts[2] - counts[0]), z(counts[2] - counts[0], total - counts[2]),
                                z(counts[1], counts[2] - counts[1]), z(counts[2] - counts[1], total - counts[2]),
                                z(counts[0], counts[1] - counts[0]), z(counts[1] - counts[0], total - counts[1])],
                               [-3.9863, -0.8489, -4.3110, 0.0, -1.3928, -2.2460], atol=1e-4)
    offset = np.array([2.5, 2.5, 0.0])
    strength = np.abs(rate_z(counts, total[None] - counts, "statistical_parity")) - offset
    np.testing.assert_allclose(strength, [2.2057, 2.5511, 2.6999], atol=1e-4)
    bits = pack(dense)
    assert redundant(bits, n, counts, "statistical_parity", total, offset).tolist() == [True, False, True]
    # the same from the counted nesting (the Dask path)
    assert redundant(None, n, counts, "statistical_parity", total, offset,
                     nested=containment(bits, n)).tolist() == [True, False, True]


def test_of_two_subgroups_redundant_given_each_other_the_one_merging_the_more_alike_rows_is_decided_first():
    """Issue 40's mutual case by hand. S (rows 0-99) inside G (rows 0-299) of 1,000 rows; favourable S 30/100,
    G's other rows 88/200, outside G 350/700 (468 in all). Pooled two-proportion z:

    * S against G's other rows (0.30 against 0.44): pooled 118/300, z = -0.14 / sqrt(0.39333 0.60667 (1/100 +
      1/200)) = -2.340; G's other rows against the outside (0.44 against 0.50): pooled 438/900, z = -0.06 /
      sqrt(0.48667 0.51333 (1/200 + 1/700)) = -1.497: both below 3.2, so each is redundant given the other;
    * strength against the rest minus the offsets (1.5, 0): S 0.18667 / sqrt(0.468 0.532 (1/100 + 1/900)) - 1.5
      = 3.549 - 1.5 = 2.049, G 0.10667 / sqrt(0.468 0.532 (1/300 + 1/700)) = 3.098.

    By strength alone G was visited first and kept, and S left out. G's other rows are nearer the outside (1.497)
    than S is to them (2.340): S's description (G's other rows with the rest) merges the more alike parts, so G
    waits for S: S is kept and G, redundant given S, left out. With G's other rows at 78/200 (0.39) instead,
    S against them z = -0.09 / sqrt(0.36 0.64 (1/100 + 1/200)) = -1.531 and they against the outside -0.11 /
    sqrt(0.47556 0.52444 (1/200 + 1/700)) = -2.747: G's description merges the more alike parts, the order stays
    by strength (G 4.072 against S 3.343 - 1.5 = 1.843), G is listed and S left out."""
    from aif360_subjective.detectors.bitsets import pack
    from aif360_subjective.detectors.error_control.inference import rate_z
    from aif360_subjective.detectors.redundancy import containment, redundant

    n = 1000
    dense = np.zeros((n, 2), dtype=bool)
    dense[:100, 0] = True  # S
    dense[:300, 1] = True  # G
    bits = pack(dense)
    offset = np.array([1.5, 0.0])

    def z(a: np.ndarray, b: np.ndarray) -> float:
        return float(rate_z(a[None], b[None], "statistical_parity")[0])

    for ring_favourable, z_expected, strength_expected, expected in (
            (88, [-2.3401, -1.4972], [2.0490, 3.0978], [False, True]),
            (78, [-1.5309, -2.7472], [1.8427, 4.0720], [True, False])):
        counts = np.vstack([_confusion(30, 100), _confusion(30 + ring_favourable, 300)])
        total = _confusion(30 + ring_favourable + 350, n)
        np.testing.assert_allclose([z(counts[0], counts[1] - counts[0]), z(counts[1] - counts[0], total - counts[1])],
                                   z_expected, atol=1e-4)
        strength = np.abs(rate_z(counts, total[None] - counts, "statistical_parity")) - offset
        np.testing.assert_allclose(strength, strength_expected, atol=1e-4)
        assert redundant(bits, n, counts, "statistical_parity", total, offset).tolist() == expected
        assert redundant(None, n, counts, "statistical_parity", total, offset,
                         nested=containment(bits, n)).tolist() == expected


def test_visit_order_is_by_strength_with_each_subgroup_after_those_it_waits_for():
    """Strengths 5, 4, 3, 2, 1 (subgroups 0-4); 0 waits for 3, 3 for 4, 1 for 2: ready at first 2 and 4, 2
    (strength 3) goes first, which frees 1 (4); then 1, then 4 (1) frees 3, then 3 frees 0."""
    from aif360_subjective.detectors.redundancy import visit_order

    strength = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    order = visit_order(strength, np.array([0, 3, 1]), np.array([3, 4, 2]))
    assert order.tolist() == [2, 1, 4, 3, 0]
    assert visit_order(strength, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)).tolist() == [0, 1, 2, 3, 4]
    # equal strengths in index order, -inf (undefined) last
    assert visit_order(np.array([1.0, -np.inf, 1.0]), np.array([0]), np.array([2])).tolist() == [2, 0, 1]


def test_the_redundancy_filter_never_leaves_out_every_finding():
    """Whatever the nesting, rates and offsets, the first subgroup visited is listed, so a ranking that has a
    significant subgroup lists one (the filter cannot change whether a null table reports something): nested
    prefixes and random row sets of 200 rows, random favourable counts, on 50 seeded draws."""
    from aif360_subjective.detectors.bitsets import pack
    from aif360_subjective.detectors.redundancy import redundant

    n = 200
    for seed in range(50):
        rng = np.random.default_rng(seed)
        k = int(rng.integers(1, 8))
        ends = np.sort(rng.choice(np.arange(10, n), size=k, replace=False))
        dense = np.arange(n)[:, None] < ends[None, :]  # prefixes: every pair nested
        if seed % 2:
            dense[:, : k // 2] = rng.random((n, k // 2)) < 0.3  # some sets not nested
        fav = rng.random(n) < np.where(np.arange(n) < 60, 0.2, 0.5)
        counts = np.vstack([_confusion(int(fav[dense[:, j]].sum()), int(dense[:, j].sum())) for j in range(k)])
        out = redundant(pack(dense), n, counts, "statistical_parity", _confusion(int(fav.sum()), n),
                        rng.uniform(0, 3, k))
        assert not out.all()

def _confusion(pos: int, rows: int) -> np.ndarray:
    """Confusion counts of ``rows`` rows with ``pos`` favourable predictions, truth equal to the prediction."""
    from aif360_subjective._labels import FN, FP, TN, TP

    out = np.zeros(4)
    out[TP], out[TN], out[FP], out[FN] = pos, rows - pos, 0, 0
    return out


def test_a_sub_pattern_redundant_given_a_listed_larger_one_is_left_out_even_when_stronger():
    """S (rows 0-199) inside G (rows 0-399) of 1,000 rows; favourable rates S 80/200, G's other rows 70/200,
    outside G 90/600. S against G's other rows: pooled 0.375, z = 0.05 / sqrt(0.375 0.625 (1/200 + 1/200)) =
    1.03 < 3.2, so S is redundant given G; G's other rows against the rows outside G: pooled 0.2, z = 0.2 /
    sqrt(0.2 0.8 (1/200 + 1/600)) = 6.12, so G is not redundant given S. Strength against the rest: S 5.92, G
    8.16 - offset 3 = 5.16, so S is visited first; G is redundant given nothing, so it is listed whatever the
    order and S is left out (visited by strength alone, both were listed)."""
    from aif360_subjective.detectors.bitsets import pack
    from aif360_subjective.detectors.error_control.inference import rate_z
    from aif360_subjective.detectors.redundancy import containment, redundant

    n = 1000
    dense = np.zeros((n, 2), dtype=bool)
    dense[:200, 0] = True  # S
    dense[:400, 1] = True  # G
    counts = np.vstack([_confusion(80, 200), _confusion(150, 400)])
    total = _confusion(240, n)
    s_vs_ring = rate_z(counts[:1], (counts[1] - counts[0])[None], "statistical_parity")
    ring_vs_out = rate_z((counts[1] - counts[0])[None], (total - counts[1])[None], "statistical_parity")
    np.testing.assert_allclose([s_vs_ring[0], ring_vs_out[0]], [1.0328, 6.1237], atol=1e-4)
    strength = np.abs(rate_z(counts, total[None] - counts, "statistical_parity")) - [0.0, 3.0]
    np.testing.assert_allclose(strength, [5.9235, 5.1616], atol=1e-4)
    bits = pack(dense)
    out = redundant(bits, n, counts, "statistical_parity", total, np.array([0.0, 3.0]))
    assert out.tolist() == [True, False]
    # the same from the counted nesting (the Dask path)
    out = redundant(None, n, counts, "statistical_parity", total, np.array([0.0, 3.0]), nested=containment(bits, n))
    assert out.tolist() == [True, False]
    # G's other rows like the outside (70 -> 27 of 200, 0.135 against 0.15): G is S diluted, S stays, G goes
    counts[1] = _confusion(107, 400)
    total = _confusion(197, n)
    assert redundant(bits, n, counts, "statistical_parity", total, np.array([0.0, 3.0])).tolist() == [False, True]
