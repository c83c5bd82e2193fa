"""max_t with keyed permutations, and the same max-T from counts (what a Dask computation sums per partition)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors.error_control.keyed_permutation import derive_seed, permuted_classes
from aif360_subjective.detectors.error_control.maxt import (
    ALL_TESTS,
    KeyedCounts,
    max_t,
    max_t_from_counts,
)
from aif360_subjective.detectors.error_control.resampling import canonical_order, row_keys

FIELDS = ("z", "p_adjusted", "p_two_sided", "p_global", "offset")


def _table(n=240, m=30, seed=0):
    rng = np.random.default_rng(seed)
    members = rng.random((n, m)) < rng.uniform(0.05, 0.6, m)
    members[:, 0] = True  # every row: its z is undefined (NaN) in every test
    t = (rng.random(n) < 0.45).astype(float)
    p = (rng.random(n) < np.where(members[:, 3], 0.2, 0.5)).astype(float)  # candidate 3 disadvantaged
    return members, t, p


def _independent_counts(members, t, p, seed, B):
    """Observed class counts and permuted counts, written from the scheme's definition with dense sums."""
    M = members.astype(float)
    cls = (2 * t + p).astype(int)
    totals = np.bincount(cls, minlength=4)
    observed = M.T @ (cls[:, None] == np.arange(4)).astype(float)
    joint = permuted_classes(derive_seed(seed, 0), 0, B, np.arange(len(t)), totals)
    fav = np.zeros((len(t), B))
    for s in (0, 1):
        rows = np.flatnonzero(t == s)
        fav[rows] = permuted_classes(derive_seed(seed, 1 + s), 0, B, np.arange(len(rows)),
                                     [totals[2 * s], totals[2 * s + 1]])
    cols = [joint % 2 == 1, fav * (t[:, None] == 1), fav * (t[:, None] == 0), (joint == 0) | (joint == 3)]
    permuted = np.stack([M.T @ c.astype(float) for c in cols], axis=2)  # (m, B, 4)
    return observed, totals, permuted


def _same(a, b):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        np.testing.assert_array_equal(np.isnan(x), np.isnan(y), err_msg=f)
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, err_msg=f)
    assert a.n_hypotheses == b.n_hypotheses and a.tests == b.tests and a.n_permutations == b.n_permutations


@pytest.mark.parametrize("tests", [None, (0,), (1,), (2,), (3,), (4,), (1, 4)])
@pytest.mark.parametrize("penalty", [True, False, "array"])
def test_counts_in_equals_keyed_max_t(tests, penalty):
    members, t, p = _table()
    B = 59
    pen = np.linspace(0, 1, members.shape[1]) if penalty == "array" else penalty
    keyed = max_t(sp.csc_matrix(members), t, p, B, random_state=21, penalty=pen, tests=tests, permutation="keyed")
    observed, totals, permuted = _independent_counts(members, t, p, 21, B)
    from_counts = max_t_from_counts(observed, totals, permuted, penalty=pen, tests=tests)
    _same(keyed, from_counts)
    assert keyed.permutation == "keyed" and keyed.unit == "rows"
    # the same observed z as the classical max-T (the scheme changes only the permutations)
    classical = max_t(sp.csc_matrix(members), t, p, B, random_state=21, penalty=pen, tests=tests)
    np.testing.assert_allclose(keyed.z, classical.z, rtol=0, atol=1e-12)
    asked = ALL_TESTS if tests is None else tests
    assert np.isfinite(keyed.p_adjusted[1:, asked]).all() and np.isnan(keyed.p_adjusted[0]).all()


def test_a_provider_in_batches_equals_the_array():
    members, t, p = _table(seed=2)
    B = 130  # three batches, the last one short
    observed, totals, permuted = _independent_counts(members, t, p, 5, B)
    calls = []

    def provider(b0, b1, need):
        calls.append((b0, b1, need))
        return permuted[:, b0:b1]

    for workers in (1, 2):
        calls.clear()
        got = max_t_from_counts(observed, totals, provider, B, tests=(0, 3), workers=workers)
        _same(got, max_t_from_counts(observed, totals, permuted, tests=(0, 3)))
        assert sorted(c[:2] for c in calls) == [(0, 50), (50, 100), (100, 130)]
        assert calls[0][2] == (True, False, False, True)  # parity and accuracy: favourable and correct counts


def test_keyed_counts_keep_the_margins():
    """Under every permutation the candidate of all rows keeps the table's counts: a permutation, not a resample."""
    members, t, p = _table(seed=3)
    keyed = KeyedCounts(sp.csc_matrix(members), t, p, seed=8)
    got = keyed(0, 40)  # (m, 40, 4)
    fixed = [p.sum(), (t * p).sum(), ((1 - t) * p).sum(), (t == p).sum()]
    for i in range(4):
        np.testing.assert_array_equal(got[0, :, i], np.full(40, fixed[i]))
    # a candidate's counts do vary over the permutations
    assert got[3, :, 0].std() > 0
    assert np.isnan(keyed(0, 5, (True, False, False, False))[:, :, 1:]).all()


def test_the_planted_candidate_is_found_and_p_values_step_down():
    members, t, p = _table(n=600, seed=4)
    res = max_t(sp.csc_matrix(members), t, p, 199, random_state=1, penalty=False, tests=(0,), permutation="keyed")
    assert res.p_adjusted[3, 0, 0] <= 0.01
    order = np.argsort(-res.z[:, 0])
    ordered = res.p_adjusted[order, 0, 0]
    ordered = ordered[np.isfinite(ordered)]
    assert np.all(np.diff(ordered) >= 0)  # step-down: never below a more significant hypothesis


def test_keyed_p_values_do_not_depend_on_row_order_given_the_canonical_order():
    members, t, p = _table(seed=5)
    X = members.astype(int)
    keys = (row_keys(X), row_keys(X, t, p))
    shuffle = np.random.default_rng(0).permutation(len(t))
    a = max_t(sp.csc_matrix(members), t, p, 39, random_state=3, permutation="keyed", order=canonical_order(*keys))
    b = max_t(sp.csc_matrix(members[shuffle]), t[shuffle], p[shuffle], 39, random_state=3, permutation="keyed",
              order=canonical_order(row_keys(X[shuffle]), row_keys(X[shuffle], t[shuffle], p[shuffle])))
    _same(a, b)
    # without the order the positions are the rows' own: another order, other permutations
    c = max_t(sp.csc_matrix(members[shuffle]), t[shuffle], p[shuffle], 39, random_state=3, permutation="keyed")
    assert not np.array_equal(np.nan_to_num(a.p_global), np.nan_to_num(c.p_global))


def test_keyed_is_seeded():
    members, t, p = _table(seed=6)
    a, b, c = (max_t(sp.csc_matrix(members), t, p, 39, random_state=s, permutation="keyed") for s in (4, 4, 5))
    _same(a, b)
    assert not np.array_equal(np.nan_to_num(a.p_global), np.nan_to_num(c.p_global))


def test_bad_input():
    members, t, p = _table()
    M = sp.csc_matrix(members)
    with pytest.raises(ValueError, match="permutation must be one of"):
        max_t(M, t, p, 19, permutation="shuffle")
    with pytest.raises(ValueError, match="takes rows as the units"):
        max_t(M, t, p, 19, permutation="keyed", groups=np.arange(len(t)) // 2)
    with pytest.raises(ValueError, match="p must hold 0/1 values"):
        max_t(M, t, p * 2, 19, permutation="keyed")
    observed, totals, permuted = _independent_counts(members, t, p, 1, 19)
    with pytest.raises(ValueError, match=r"observed must have shape \(any x 4\)"):
        max_t_from_counts(observed[:, :3], totals, permuted)
    with pytest.raises(ValueError, match=r"permuted must have shape \(30 x any x 4\)"):
        max_t_from_counts(observed, totals, permuted[:5])
    with pytest.raises(ValueError, match=r"candidate 0 has \d+ rows of class \(0, 1\) .* the table \d+"):
        max_t_from_counts(observed, totals - np.array([0, 1, 0, 0]), permuted)
    with pytest.raises(ValueError, match="n_permutations is needed"):
        max_t_from_counts(observed, totals, lambda b0, b1, need: permuted[:, b0:b1])
    with pytest.raises(ValueError, match=r"n_permutations \(25\) must be permuted.shape\[1\] \(19\)"):
        max_t_from_counts(observed, totals, permuted, 25)
    with pytest.raises(ValueError, match=r"the provider's batch \(0, 19\) must have shape"):
        max_t_from_counts(observed, totals, lambda b0, b1, need: permuted[:, :3], 19)
    with pytest.raises(ValueError, match="n_permutations must be >= 19"):
        max_t_from_counts(observed, totals, permuted[:, :10])
