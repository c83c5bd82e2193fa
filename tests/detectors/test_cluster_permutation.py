"""Clusters of unequal sizes under design='between': whole outcome blocks permuted, the statistic, "cannot decide"."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.error_control.cluster_permutation import (
    ClusterColumn,
    ClusterPermutation,
    cluster_sums,
)
from aif360_subjective.detectors.error_control.continuous import OutcomeColumn, max_t_means
from aif360_subjective.detectors.error_control.counters import MemberCounter, StackedCounter
from aif360_subjective.detectors.error_control.maxt import max_t, scan_penalty
from aif360_subjective.detectors.error_control.resampling import Sampling, check_groups
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns
from aif360_subjective.report.answer import subgroup_answer


def _model_t(v, member, groups):
    """The difference of means over the count model's standard error, written out cluster by cluster: residual sums
    ``s_c`` around the overall mean, ``v_c = sigma^2 n_c + tau^2 n_c^2`` by least squares of ``s_c^2``."""
    u = v - v.mean()
    ids = np.unique(groups)
    n_c = np.array([(groups == c).sum() for c in ids], dtype=float)
    s_c = np.array([u[groups == c].sum() for c in ids])
    A, y = np.column_stack([n_c, n_c ** 2]), s_c ** 2
    (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
    if a < 0 or b < 0:  # one component: the better of sigma^2 alone and tau^2 alone
        fits = [(y @ n_c / (n_c @ n_c), 0.0), (0.0, y @ n_c ** 2 / (n_c ** 2 @ n_c ** 2))]
        a, b = min(fits, key=lambda f: ((A @ np.array(f) - y) ** 2).sum())
    var = dict(zip(ids.tolist(), (a * n_c + b * n_c ** 2).tolist(), strict=True))
    nS, nR = member.sum(), (~member).sum()
    VS = sum(var[c] for c in np.unique(groups[member])) / nS ** 2
    VR = sum(var[c] for c in np.unique(groups[~member])) / nR ** 2
    return (u[member].mean() - u[~member].mean()) / np.sqrt(VS + VR)


def _check(z, members, groups, v, sign=1.0):
    for i in range(members.shape[1]):
        # the statistic is scale-free: the values' unit scale does not change it
        assert z[i] == pytest.approx(sign * _model_t(v, members[:, i], groups), rel=1e-8)


def _table(seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = np.array([1, 3, 2, 5, 4, 1, 6, 2, 3, 7])
    groups = np.repeat(np.arange(len(sizes)), sizes)
    n = len(groups)
    v = rng.normal(size=n) + rng.normal(size=len(sizes))[groups]
    members = np.column_stack([np.isin(groups, [0, 3, 6]), np.isin(groups, [1, 2, 4, 5, 9]), rng.random(n) < 0.5])
    return v, members, groups


def test_statistic_is_the_count_models_t_of_whole_clusters_on_the_data_and_permuted():
    v, members, groups = _table()
    perm = ClusterPermutation(sp.csc_matrix(members), groups, [ClusterColumn(v)])
    np.testing.assert_array_equal(perm.whole, [True, True, False])
    z = perm.observed()[:, 0]
    assert np.isnan(z[2])  # splits clusters: not tested between clusters
    _check(z[:2], members[:, :2], groups, v)
    # a permutation: cluster c's place takes the outcome block of cluster pi(c), with its size
    pi = np.array([3, 0, 9, 1, 2, 8, 4, 7, 5, 6])
    z_pi = perm.statistics(pi[None, :])[0][:, 0]
    sizes = np.bincount(groups)
    new_groups = np.concatenate([np.full(sizes[pi[c]], c) for c in range(10)])
    new_v = np.concatenate([v[groups == pi[c]] for c in range(10)])
    new_members = np.column_stack([np.isin(new_groups, [0, 3, 6]), np.isin(new_groups, [1, 2, 4, 5, 9])])
    _check(z_pi[:2], new_members, new_groups, new_v)


def test_statistic_on_a_stratum_with_a_sign_and_in_any_unit():
    v, members, groups = _table(1)
    stratum = np.arange(len(v)) % 4 != 0
    perm = ClusterPermutation(sp.csc_matrix(members), groups, [ClusterColumn(v, stratum, -1.0)])
    z = perm.observed()[:, 0]
    for scale, shift in ((1e-15, 7e-15), (1e200, 0.0), (1e-300, 0.0)):
        other = ClusterPermutation(sp.csc_matrix(members), groups, [ClusterColumn(v * scale + shift, stratum, -1.0)])
        np.testing.assert_allclose(other.observed()[:, 0], z, rtol=1e-9)
    keep = np.bincount(groups[stratum], minlength=10) > 0
    _check(z[:2], members[stratum][:, :2], groups[stratum], v[stratum], -1.0)
    assert keep.sum() >= 2


def test_count_model_by_hand():
    from aif360_subjective.detectors.error_control.cluster_permutation import _count_model

    n = np.array([1.0, 2.0, 3.0, 0.0])
    s = np.array([1.0, 2.0, 3.0, 0.0])  # s^2 = 1, 4, 9 = n^2 exactly: tau^2 = 1, sigma^2 = 0
    np.testing.assert_allclose(_count_model(n, s), [1.0, 4.0, 9.0, 0.0], atol=1e-12)
    s = np.sqrt(np.array([2.0, 4.0, 6.0, 0.0]))  # s^2 = 2 n: sigma^2 = 2, tau^2 = 0
    np.testing.assert_allclose(_count_model(n, s), [2.0, 4.0, 6.0, 0.0], atol=1e-12)
    s = np.array([3.0, 0.1, 0.1, 0.0])  # least squares gives a negative tau^2: the better one-component fit
    out = _count_model(n, s)
    assert np.all(out >= 0)
    lin = (9.0 + 0.02 + 0.03) / 14.0 * n  # sigma^2 alone (sum s^2 n / sum n^2) fits better than tau^2 alone
    np.testing.assert_allclose(out, lin, atol=1e-12)


def test_a_side_in_fewer_than_two_clusters_is_undefined():
    v, _, groups = _table()
    one = groups == 3  # every row of S in one cluster
    perm = ClusterPermutation(sp.csc_matrix(one[:, None]), groups, [ClusterColumn(v)])
    assert np.isnan(perm.observed()[0, 0])


def test_sparse_counts_of_members_and_cells_equal_dense_sums():
    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n), "c": rng.normal(size=n)})
    groups = rng.integers(0, 40, n)
    u = rng.normal(size=n)
    mined = mine_patterns(build_items(X, ["a", "b"], 4, 2), 5, 2, None)
    members = sp.csc_matrix(rng.random((n, 7)) < 0.3)
    for counter in (mined.counter(), MemberCounter(members), StackedCounter([MemberCounter(members), mined.counter()])):
        D = np.zeros((n, 40))
        D[np.arange(n), groups] = u
        np.testing.assert_allclose(cluster_sums(counter, u, groups, 40).toarray(), counter.count(D), atol=1e-9)


def _persons(seed: int, persons: int, effect: float, equal: bool = False):
    rng = np.random.default_rng(seed)
    rec = np.full(persons, 20) if equal else rng.integers(1, 41, persons)
    person = np.repeat(np.arange(persons), rec)
    region = rng.integers(0, 4, persons)[person]
    edu = rng.integers(0, 3, persons)[person]
    X = pd.DataFrame({"region": np.array(["r0", "r1", "r2", "r3"])[region],
                      "education": np.array(["e0", "e1", "e2"])[edu],
                      "channel": rng.choice(["web", "phone"], len(person))})
    planted = (region == 0) & (edu == 0)
    scale = np.exp(rng.normal(0, 0.5, persons))[person] * np.where(planted, 1 + effect, 1.0)
    y = rng.normal(size=len(person))
    return X, y, y + scale * rng.normal(size=len(person)), pd.Series(person, name="person"), planted


def test_planted_person_level_effect_is_found_with_unequal_cluster_sizes():
    X, y, yhat, person, planted = _persons(0, 400, 2.0)
    rep = detect_subgroups(X, y, yhat, task="regression", discovery="patterns", groups=person, random_state=0,
                           n_permutations=99)
    assert "outcome blocks permuted" in rep.unit and "1 to 40 rows" in rep.unit
    f = rep.findings(0.05)
    top = f[(f["metric"] == "mean_absolute_error") & (f["direction"] == "disadvantaged")].iloc[0]
    rows = np.asarray(rep.members(top["kind"], top["id"]), dtype=bool)
    assert (rows & planted).sum() / (rows | planted).sum() >= 0.5


def test_binary_max_t_with_unequal_clusters_permutes_blocks_and_keeps_its_shape():
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(30), rng.integers(1, 8, 30))
    n = len(groups)
    t = rng.integers(0, 2, n).astype(float)
    p = rng.integers(0, 2, n).astype(float)
    members = sp.csc_matrix((rng.random((30, 12)) < 0.4)[groups])  # subgroups of whole clusters
    res = max_t(members, t, p, 99, 0, groups=groups)
    assert "outcome blocks permuted" in res.unit
    assert res.p_global.shape == (12, 5, 2)
    assert np.nanmin(res.p_global) >= 1 / 100
    again = max_t(members, t, p, 99, 0, groups=groups)
    np.testing.assert_array_equal(res.p_global, again.p_global)  # one seed, one answer


@pytest.mark.parametrize(("sizes", "design", "smallest"), [
    ([5, 5, 5, 5], "between", 1 / 24), ([5, 5, 5], "between", 1 / 6),
    # whole blocks of unequal sizes: a subgroup of g of G clusters takes C(G, g) values, g and G - g at least 2
    ([2, 3, 4, 5], "between", 1 / 6), ([2, 3, 4, 5, 6], "between", 1 / 10), ([2, 3, 4, 5, 6, 7], "between", 1 / 20),
    ([1, 2, 3, 4, 5, 6, 7], "between", 1 / 35),
    ([2, 3, 4], "between", 1 / 6), ([1, 40], "between", 0.5), ([40], "between", 1.0), ([2, 2], "within", 0.25)])
def test_smallest_p_and_undecidable(sizes, design, smallest):
    groups = check_groups(np.repeat(np.arange(len(sizes)), sizes), sum(sizes))
    s = Sampling(groups=groups, design=design, group_name="person")
    assert s.smallest_p(999) == pytest.approx(smallest)
    why = s.undecidable(0.05, 999)
    assert bool(why) == (smallest > 0.05)
    if why:
        assert why.startswith("cannot decide:") and "person" in why and "0.05" in why


@pytest.mark.parametrize("sizes", [[30, 10], [25, 25], [40], [30, 10, 20, 25, 15]])
def test_one_or_two_clusters_cannot_decide_on_every_face(sizes):
    person = pd.Series(np.repeat(np.arange(len(sizes)), sizes), name="person")
    n = len(person)
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"channel": rng.choice(["web", "phone"], n), "region": rng.choice(["r0", "r1"], n)})
    y = rng.normal(size=n)
    yhat = y + np.where(X["channel"] == "phone", 5.0, 0.1) * rng.normal(size=n)
    rep = detect_subgroups(X, y, yhat, task="regression", discovery="patterns", groups=person, random_state=0,
                           n_permutations=99)
    f = rep.findings(0.05)
    assert len(f) == 0 and f.attrs["undecidable"].startswith("cannot decide")
    text = " ".join(subgroup_answer(rep).lines)
    assert "Cannot decide" in text and "No subgroup differs" not in text
    rk = rep.ranking("mean_absolute_error", kind="pattern", alpha=0.05)
    assert len(rk) == 0 and rk.attrs["undecidable"].startswith("cannot decide")
    from aif360_subjective.report.subgroup_sections import _ranking_table

    class _Block:
        blocks: list = []

        def text(self, t):
            self.blocks.append(t)

    block = _Block()
    _ranking_table(block, rk, "Mean absolute error", "disadvantaged")
    assert block.blocks[-1].startswith("Mean absolute error: cannot decide:")


def test_cli_says_cannot_decide_with_two_persons_and_nothing_contrary(tmp_path, capsys):
    from aif360_subjective.cli import main

    rng = np.random.default_rng(0)
    n = 200
    df = pd.DataFrame({"person": np.repeat(["p1", "p2"], [150, 50]), "region": rng.choice(["a", "b"], n),
                       "label": rng.integers(0, 2, n)})
    df["pred"] = np.where(rng.random(n) < 0.8, df["label"], 1 - df["label"])
    df.to_csv(tmp_path / "two.csv", index=False)
    assert main(["subgroups", str(tmp_path / "two.csv"), "--label-col", "label", "--prediction-col", "pred",
                 "--groups", "person"]) == 0
    out = capsys.readouterr().out
    assert out.split("Answer:\n")[1].startswith("Cannot decide whether any subgroup differs from the rest: 2 clusters")
    assert "no adjusted p-value can fall below 0.5" in out and "at least 6 clusters" in out
    assert "No subgroup differs" not in out and "found none" not in out and "stay in place" not in out


_SIZES = np.array([1, 3, 8, 20, 40])  # five persons of unequal sizes: 120 arrangements
_ARRANGEMENTS = np.array(list(itertools.permutations(range(len(_SIZES)))))
_SETS = np.array([[c in s for c in range(5)] for s in ({0, 1}, {2, 3}, {0, 4}, {1, 2, 3}, {1, 3, 4}, {0, 2})]).T


def _enumerated_min_p(monkeypatch, seed: int, penalty) -> np.ndarray:
    """The smallest global adjusted p-value of :func:`max_t_means` on every arrangement of five outcome blocks of
    unequal sizes among five persons (person ``c`` holding the block of ``tau(c)``), each arrangement tested against
    all 120 (the draws enumerate them instead of sampling). ``penalty="rows"``: the size penalty of each
    arrangement's own row counts (what the size penalty read before it counted clusters)."""
    rng = np.random.default_rng(seed)
    blocks = [rng.normal(size=s) * rng.exponential() + rng.normal() for s in _SIZES]
    at = [0]

    def enumerated(self, rng, b):
        out = _ARRANGEMENTS[at[0]:at[0] + b]
        at[0] += b
        return out

    monkeypatch.setattr(ClusterPermutation, "draw", enumerated)
    out = []
    for tau in _ARRANGEMENTS:
        groups = np.repeat(np.arange(5), _SIZES[tau])
        v = np.concatenate([blocks[c] for c in tau])
        members = _SETS[groups].astype(np.float64)
        pen = scan_penalty(members.sum(axis=0), len(v)) if isinstance(penalty, str) else penalty
        at[0] = 0
        res = max_t_means(sp.csc_matrix(members), [OutcomeColumn("error", v)], len(_ARRANGEMENTS), 0, penalty=pen,
                          groups=groups)
        assert at[0] == len(_ARRANGEMENTS)  # every arrangement drawn once
        out.append(np.nanmin(res.p_global))
    return np.array(out)


@pytest.mark.parametrize("penalty", [False, True])
def test_every_arrangement_of_unequal_blocks_rejects_at_most_alpha(monkeypatch, penalty):
    # Exactness by enumeration: under the null every arrangement of the persons' outcome blocks is equally likely,
    # so the share of arrangements whose smallest adjusted p-value is below alpha is the test's size; it must not
    # exceed alpha at any level (the +1 rule, with the observed arrangement also among the draws, keeps it below).
    for seed in (1, 4):
        p = _enumerated_min_p(monkeypatch, seed, penalty)
        for alpha in (0.05, 0.1, 0.2, 0.3, 0.5):
            assert (p < alpha).mean() <= alpha


def test_a_size_penalty_of_each_arrangements_rows_is_not_exact(monkeypatch):
    # the negative control of the enumeration above: offsets read from the observed rows (which move with the
    # blocks) reject more than alpha; the size penalty counts clusters for that reason
    p = _enumerated_min_p(monkeypatch, 4, "rows")
    assert (p < 0.5).mean() > 0.5


def test_size_penalty_counts_the_clusters_of_whole_blocks_by_hand():
    groups = np.repeat(np.arange(5), _SIZES)
    rng = np.random.default_rng(0)
    members = sp.csc_matrix(_SETS[groups].astype(np.float64))
    want = np.sqrt(2 * np.log(5 / np.array([2, 2, 2, 3, 3, 2])))  # sqrt(2 ln(G / clusters)), not rows
    res = max_t_means(members, [OutcomeColumn("error", rng.normal(size=len(groups)))], 19, 0, penalty=True,
                      groups=groups)
    np.testing.assert_allclose(res.offset, want, rtol=1e-12)
    t = rng.integers(0, 2, len(groups)).astype(float)
    res = max_t(members, t, rng.integers(0, 2, len(groups)).astype(float), 19, 0, penalty=True, groups=groups)
    np.testing.assert_allclose(res.offset, want, rtol=1e-12)


def test_block_choices_by_hand_and_the_blatant_effect_of_five_persons_cannot_be_decided():
    from aif360_subjective.detectors.error_control.resampling import block_choices

    assert [block_choices(G) for G in (4, 5, 6, 7, 8)] == [6, 10, 20, 35, 70]
    # five persons of unequal sizes, the persons of r0 erring 50 times more: before, "no subgroup differs" (the
    # smallest adjusted p-value was 0.225 with 999 permutations, and could not fall below 1/10)
    rng = np.random.default_rng(5)
    sizes = rng.integers(20, 60, 5)
    person = np.repeat(np.arange(5), sizes)
    region = np.array(["r0", "r1"])[np.arange(5) % 2][person]
    X = pd.DataFrame({"region": region, "channel": rng.choice(["web", "phone"], len(person))})
    y = rng.normal(size=len(person))
    yhat = y + np.where(region == "r0", 5.0, 0.1) * rng.normal(size=len(person))
    rep = detect_subgroups(X, y, yhat, task="regression", discovery="patterns",
                           groups=pd.Series(person, name="person"), random_state=0, n_permutations=99)
    assert np.nanmin(rep.significance.max_t().p_global) >= 0.1  # the bound the sentence states
    why = rep.findings(0.05).attrs["undecidable"]
    assert "at most 10 choices" in why and "no adjusted p-value can fall below 0.1" in why
    assert "at least 6 clusters" in why
    assert subgroup_answer(rep).lines[0].startswith("Cannot decide whether any subgroup differs")
