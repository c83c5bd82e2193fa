"""Keyed permutations of [0, N): bijections, local (a position's image needs no other), near-uniform."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from aif360_subjective.detectors.error_control.keyed_permutation import (
    derive_seed,
    keyed_permutation,
    permuted_classes,
    rounds_for,
    seed_of,
)

SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000,
         1023, 1024, 1025, 4097]


@pytest.mark.parametrize("n", SIZES)
def test_every_keyed_permutation_is_a_bijection(n):
    for seed in (0, 12345, 2**64 - 1):
        y = keyed_permutation(seed, 3, 15, np.arange(n), n)
        assert y.shape == (n, 12)
        np.testing.assert_array_equal(np.sort(y, axis=0), np.repeat(np.arange(n)[:, None], 12, axis=1))


def test_images_are_local_and_deterministic():
    n = 1000
    whole = keyed_permutation(9, 0, 40, np.arange(n), n)
    np.testing.assert_array_equal(keyed_permutation(9, 0, 40, np.arange(n), n), whole)
    # a partition's rows alone, in any order, and the permutations in two ranges: the same images
    parts = np.vstack([keyed_permutation(9, 0, 40, np.arange(s0, s1), n) for s0, s1 in ((0, 1), (1, 377), (377, n))])
    np.testing.assert_array_equal(parts, whole)
    np.testing.assert_array_equal(np.hstack([keyed_permutation(9, 0, 13, np.arange(n), n),
                                             keyed_permutation(9, 13, 40, np.arange(n), n)]), whole)
    picked = np.array([999, 0, 500, 500])
    np.testing.assert_array_equal(keyed_permutation(9, 0, 40, picked, n), whole[picked])


def test_other_seeds_and_permutations_differ():
    n = 500
    a = keyed_permutation(1, 0, 30, np.arange(n), n)
    b = keyed_permutation(2, 0, 30, np.arange(n), n)
    # no two of the 60 permutations are equal, and they are not the identity
    cols = {tuple(c) for c in np.hstack([a, b]).T}
    assert len(cols) == 60 and tuple(range(n)) not in cols
    assert np.mean(a == b) < 0.02  # about 1/n of the positions coincide


@pytest.mark.parametrize(("n", "seed"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_all_permutations_of_a_small_domain_are_equally_frequent(n, seed):
    k = math.factorial(n)
    B = 150 * k
    y = keyed_permutation(seed, 0, B, np.arange(n), n)
    code = np.zeros(B, dtype=np.int64)
    for i in range(n):
        code = code * n + y[i]
    _, counts = np.unique(code, return_counts=True)
    assert len(counts) == k
    assert stats.chisquare(counts).pvalue > 1e-3


def test_six_rounds_are_not_enough_on_three_bits():
    """Why :func:`rounds_for` gives small domains more rounds: with 6 the permutations of 5 are far from uniform."""
    y = keyed_permutation(3, 0, 12000, np.arange(5), 5, rounds=6)
    code = ((((y[0] * 5 + y[1]) * 5 + y[2]) * 5 + y[3]) * 5 + y[4])
    _, counts = np.unique(code, return_counts=True)
    assert stats.chisquare(np.pad(counts, (0, 120 - len(counts)))).pvalue < 1e-10
    assert rounds_for(5) == 24 and rounds_for(2**20) == 8


@pytest.mark.parametrize("n", [7, 10, 33])
def test_each_image_is_uniform(n):
    y = keyed_permutation(77, 0, 300 * n, np.arange(n), n)
    for i in range(n):
        assert stats.chisquare(np.bincount(y[i], minlength=n)).pvalue > 1e-4


def test_pairs_of_images_are_uniform():
    n = 40
    y = keyed_permutation(5, 0, 60 * n * (n - 1), np.array([0, 1]), n)
    cells = np.bincount(y[0] * n + y[1], minlength=n * n).reshape(n, n)
    assert np.all(np.diag(cells) == 0)  # a bijection never sends two positions to one place
    assert stats.chisquare(cells[~np.eye(n, dtype=bool)]).pvalue > 1e-3


def test_permuted_classes_keep_the_counts_and_follow_the_hypergeometric_law():
    counts = np.array([18, 12])
    N = 30
    B = 20000
    cls = permuted_classes(4, 0, B, np.arange(N), counts)
    assert cls.dtype == np.uint8
    np.testing.assert_array_equal((cls == 1).sum(axis=0), np.full(B, 12))
    # class-1 rows among positions 0..9 (a contiguous block): hypergeometric(30, 12, 10)
    x = (cls[:10] == 1).sum(axis=0)
    expected = stats.hypergeom(N, 12, 10).pmf(np.arange(11)) * B
    observed = np.bincount(x, minlength=11).astype(float)
    # pool the sparse tails so that every expected count is at least 5
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-3


def test_permuted_classes_of_many_classes_in_their_ranges():
    counts = [3, 0, 5, 2]
    whole = permuted_classes(8, 0, 50, np.arange(10), counts)
    for b in range(50):
        np.testing.assert_array_equal(np.bincount(whole[:, b], minlength=4), counts)
    # class c exactly where pi_b falls in c's cumulative range
    pi = keyed_permutation(8, 0, 50, np.arange(10), 10)
    np.testing.assert_array_equal(whole, np.searchsorted([3, 3, 8], pi, side="right"))


def test_streams_and_seeds():
    assert derive_seed(5, 0) != derive_seed(5, 1) != derive_seed(6, 1)
    assert derive_seed(5, 1) == derive_seed(5, 1)
    assert seed_of(17) == 17
    assert seed_of(np.random.default_rng(3)) == seed_of(np.random.default_rng(3))
    assert 0 <= seed_of(None) < 2**64


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: keyed_permutation(-1, 0, 2, [0], 3), ValueError, "seed must be an int in"),
    (lambda: keyed_permutation(1.5, 0, 2, [0], 3), TypeError, "seed must be an int"),
    (lambda: keyed_permutation(1, 3, 2, [0], 3), ValueError, "b_start <= b_stop"),
    (lambda: keyed_permutation(1, 0, 2, [3], 3), ValueError, r"positions must lie in \[0, 3\), got 3"),
    (lambda: keyed_permutation(1, 0, 2, [0.5], 3), TypeError, "positions must be integers"),
    (lambda: keyed_permutation(1, 0, 2, [0], 0), ValueError, "n must be a positive int"),
    (lambda: permuted_classes(1, 0, 2, [0], [2, -1]), ValueError, "class_counts must be non-negative"),
    (lambda: permuted_classes(1, 0, 2, [0], [1.5, 1]), TypeError, "class_counts must be integer counts"),
    (lambda: permuted_classes(1, 0, 2, [0], [0, 0]), ValueError, "at least one row"),
    (lambda: seed_of("x"), TypeError, "random_state must be an int"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_domains_beyond_32_bits_use_64_bit_words():
    n = 2**33 + 7  # 34 bits: 64-bit words; the images of 2,000 positions are distinct and in range
    pos = np.concatenate([np.arange(1000), n - 1 - np.arange(1000)])
    y = keyed_permutation(3, 0, 4, pos, n)
    assert y.min() >= 0 and y.max() < n
    assert all(len(np.unique(y[:, b])) == len(pos) for b in range(4))
    np.testing.assert_array_equal(keyed_permutation(3, 0, 4, pos[::-1], n), y[::-1])
