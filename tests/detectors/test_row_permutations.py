"""permuted_columns: the max-T's permuted 0/1 columns of rows as the units, drawn one permutation at a time, equal bit
for bit to the stacked columns of the batch draws (Permuter.draw, draw_within, PermutedCounts)."""

import numpy as np
import pytest

from aif360_subjective.detectors.error_control.counters import _part
from aif360_subjective.detectors.error_control.resampling import Permuter
from aif360_subjective.detectors.error_control.row_permutations import permuted_columns


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
        got = permuted_columns(permuter, got_rng, b, t, p, need)
        assert got.dtype == bool and got.shape == (n, sum(need) * b)
        np.testing.assert_array_equal(got, want)
        # the generator is left where the batch draws left it: the next batch draws the same
        assert want_rng.integers(0, 2**62) == got_rng.integers(0, 2**62)


def test_one_stratum_empty_and_a_hand_count():
    # every truth 1: the truth-negative stratum is empty; a favourable prediction is then always a true positive
    t, p = np.ones(5), np.array([1.0, 0, 1, 1, 0])
    got = permuted_columns(Permuter(5), np.random.default_rng(0), 4, t, p, (True, True, True, True))
    fav, tp, fp, correct = (got[:, 4 * j:4 * j + 4] for j in range(4))
    assert (fav.sum(axis=0) == 3).all() and (tp.sum(axis=0) == 3).all()  # permutations keep the margins
    assert not fp.any()
    np.testing.assert_array_equal(correct, fav)  # truth 1: correct exactly when favourable


def test_clusters_are_refused():
    with pytest.raises(ValueError, match="rows as the units"):
        permuted_columns(Permuter(4, None, np.array([0, 0, 1, 1])), np.random.default_rng(0), 2, np.ones(4),
                         np.ones(4), (True, True, True, True))
