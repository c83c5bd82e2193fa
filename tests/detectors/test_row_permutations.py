"""permuted_columns: the max-T's permuted 0/1 columns of rows as the units, drawn one permutation at a time, equal bit
for bit to the stacked columns of the batch draws (Permuter.draw, draw_within, PermutedCounts)."""

import numpy as np
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors.error_control.counters import MemberCounter, PackedColumns, _part
from aif360_subjective.detectors.error_control.resampling import Permuter
from aif360_subjective.detectors.error_control.row_permutations import HeldDraws, permuted_columns


def _stacked(permuter, rng, b, t, p, need):
    """The columns as max_t formed them before: (n, b) index and float arrays, stacked."""
    idx = permuter.draw(rng, b)
    c = (t == p).astype(np.float64)
    pos, neg = np.flatnonzero(t == 1), np.flatnonzero(t != 1)
    p_b = permuter.draw_within(rng, [pos, neg], p, b)
    tb = np.asarray(t, dtype=bool)[:, None]
    return np.hstack([_part(i, p[idx], c[idx], tb, p_b > 0) for i in range(4) if need[i]])


@pytest.mark.parametrize("need", [(True, True, True, True), (True, False, False, False), (False, True, True, False),
                                  (False, False, False, True)])
@pytest.mark.parametrize("n,ordered", [(1, False), (7, True), (250, False), (1001, True)])
def test_the_same_draws_and_columns_as_the_stacked_batch(need, n, ordered):
    data = np.random.default_rng(n)
    t = (data.random(n) < 0.4).astype(np.float64)
    p = (data.random(n) < 0.6).astype(np.float64)
    order = data.permutation(n) if ordered else None
    permuter = Permuter(n, order)
    for b in (1, 3, 50):
        want_rng, got_rng = np.random.default_rng(11), np.random.default_rng(11)
        want = _stacked(permuter, want_rng, b, t, p, need)
        packed = permuted_columns(permuter, got_rng, b, t, p, need)
        assert packed.shape == (n, sum(need) * b) and packed.bits.shape == (n, -(-sum(need) * b // 8))
        got = np.asarray(packed)
        assert got.dtype == bool and got.shape == (n, sum(need) * b)
        np.testing.assert_array_equal(got, want)
        for s0, s1 in ((0, n), (n // 3, n // 2), (n - 1, n)):  # a counter's blocks of rows read the same columns
            np.testing.assert_array_equal(packed[s0:s1], want[s0:s1])
        # the generator is left where the batch draws left it: the next batch draws the same
        assert want_rng.integers(0, 2**62) == got_rng.integers(0, 2**62)


def test_one_stratum_empty_and_a_hand_count():
    # every truth 1: the truth-negative stratum is empty; a favourable prediction is then always a true positive
    t, p = np.ones(5), np.array([1.0, 0, 1, 1, 0])
    got = np.asarray(permuted_columns(Permuter(5), np.random.default_rng(0), 4, t, p, (True, True, True, True)))
    fav, tp, fp, correct = (got[:, 4 * j:4 * j + 4] for j in range(4))
    assert (fav.sum(axis=0) == 3).all() and (tp.sum(axis=0) == 3).all()  # permutations keep the margins
    assert not fp.any()
    np.testing.assert_array_equal(correct, fav)  # truth 1: correct exactly when favourable


def test_clusters_are_refused():
    with pytest.raises(ValueError, match="rows as the units"):
        permuted_columns(Permuter(4, None, np.array([0, 0, 1, 1])), np.random.default_rng(0), 2, np.ones(4),
                         np.ones(4), (True, True, True, True))


def test_packed_columns_by_hand_and_refusals():
    # 10 columns: bytes 0b10000001 (columns 0 and 7) and 0b01000000 (column 9)
    packed = PackedColumns(np.array([[0b10000001, 0b01000000], [0, 0]], dtype=np.uint8), 10)
    want = np.zeros((2, 10), dtype=bool)
    want[0, [0, 7, 9]] = True
    np.testing.assert_array_equal(np.asarray(packed), want)
    np.testing.assert_array_equal(np.asarray(packed, dtype=np.uint16), want.astype(np.uint16))
    assert len(packed) == 2 and packed.dtype == bool
    with pytest.raises(ValueError, match=r"\(rows, 2\) uint8 bits for 10 columns"):
        PackedColumns(np.zeros((2, 3), dtype=np.uint8), 10)


def test_counters_count_packed_columns_as_the_boolean_block():
    data = np.random.default_rng(5)
    n, c = 70_000, 13  # more rows than one 16-bit block, columns not a multiple of 8
    Y = data.random((n, c)) < 0.3
    packed = PackedColumns(np.packbits(Y, axis=1), c)
    members = sp.csc_matrix(data.random((n, 6)) < 0.2)
    counter = MemberCounter(members)
    np.testing.assert_array_equal(counter.count(packed), counter.count(Y))
    np.testing.assert_array_equal(counter.count(packed), members.T.astype(np.int64) @ Y.astype(np.int64))


@pytest.mark.parametrize("need", [(True, False, False, False), (False, True, False, False), (True, False, True, False),
                                  (False, False, False, True)])
def test_a_prefix_of_every_count_holds_the_needed_counts_columns(need):
    n, b = 203, 13  # 4 b = 52 columns: the counts start inside bytes
    data = np.random.default_rng(3)
    t, p = (data.random(n) < 0.5).astype(np.float64), (data.random(n) < 0.3).astype(np.float64)
    every = np.asarray(permuted_columns(Permuter(n), np.random.default_rng(5), b, t, p, (True,) * 4))
    alone = np.asarray(permuted_columns(Permuter(n), np.random.default_rng(5), b, t, p, need))
    block, layout = HeldDraws.prefix(permuted_columns(Permuter(n), np.random.default_rng(5), b, t, p, (True,) * 4),
                                     b, need)
    last = max(i for i in range(4) if need[i])
    assert layout == (True,) * (last + 1) + (False,) * (3 - last) and block.shape == (n, (last + 1) * b)
    np.testing.assert_array_equal(np.asarray(block), every[:, :(last + 1) * b])
    got = np.hstack([np.asarray(block)[:, i * b:(i + 1) * b] for i in range(4) if need[i]])
    np.testing.assert_array_equal(got, alone)  # the needed counts' columns, as drawn alone


def test_held_draws_key_and_budget():
    held = HeldDraws()
    block = PackedColumns(np.zeros((4, 1), dtype=np.uint8), 4)
    assert held.held(("a",), 1) is None
    held.hold(("a",), block)
    assert held.held(("b",), 1) is None and held.blocks == []  # another seed's draws: nothing held any more
    held.hold(("a",), block)
    assert held.held(("a",), 2) is None  # not every batch held
    held.hold(("a",), block)
    held.hold(("a",), block)
    assert held.held(("a",), 2) == [block, block]
    held.forget()
    assert held.held(("a",), 2) is None
    assert held.fits(2**20, 200) and not held.fits(2**20, 9999)
    # the budget's edge: 5,000,000 rows x 100 bytes (B = 200, four counts, 4 bits each) fit 2**29, 6,000,000 do not
    assert held.fits(5_000_000, 200) and not held.fits(6_000_000, 200)


@pytest.mark.parametrize("ordered", [False, True])
def test_max_t_reads_the_held_draws_and_gives_the_same_p_values(monkeypatch, ordered):
    from aif360_subjective.detectors.error_control import maxt

    n = 400
    data = np.random.default_rng(8)
    t, p = (data.random(n) < 0.5).astype(np.float64), (data.random(n) < 0.4).astype(np.float64)
    members = sp.csc_matrix(data.random((n, 30)) < 0.2)
    order = data.permutation(n) if ordered else None
    plain = [maxt.max_t(members, t, p, 120, 7, tests=tests, order=order) for tests in ((0,), None)]
    calls = []
    real = maxt.permuted_columns
    monkeypatch.setattr(maxt, "permuted_columns", lambda *a: calls.append(a[-1]) or real(*a))
    draws = HeldDraws()
    first = maxt.max_t(members, t, p, 120, 7, tests=(0,), order=order, draws=draws)
    assert calls == [(True,) * 4] * 3 and len(draws.blocks) == 3  # every count drawn, and held
    again = maxt.max_t(members, t, p, 120, 7, tests=(3,), order=order, draws=draws)  # another test: held too
    full = maxt.max_t(members, t, p, 120, 7, order=order, draws=draws)
    assert len(calls) == 3 and draws.blocks == []  # read, not drawn again; let go by the run of every test
    for got, want in ((first, plain[0]), (full, plain[1])):
        np.testing.assert_array_equal(got.p_adjusted, want.p_adjusted)
        np.testing.assert_array_equal(got.p_global, want.p_global)
        np.testing.assert_array_equal(got.z, want.z)
    np.testing.assert_array_equal(again.p_adjusted[:, 3], plain[1].p_adjusted[:, 3])
    other = maxt.max_t(members, t, p, 120, 8, tests=(0,), order=order, draws=draws)  # another seed: drawn anew
    assert len(calls) == 6 and not np.array_equal(other.p_adjusted[:, 0], first.p_adjusted[:, 0])
