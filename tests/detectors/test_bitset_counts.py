"""The fused counting kernel (:mod:`aif360_subjective.detectors.bitset_counts`): the NumPy path and the compiled one
(Numba, in the test extra so that both run here) against each other and against a reference from the dense 0/1
matrices, on hand-made and random bitsets: odd row counts, empty blocks, all-zero and all-one sets, one word, and
inputs that span several tiles of patterns and of words."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aif360_subjective._compat import bitwise_count, byte_table_count
from aif360_subjective.detectors import bitset_counts as bc
from aif360_subjective.detectors.bitset_counts import KERNEL_ENV, TILE_WORDS, and_counts, kernel_name
from aif360_subjective.detectors.bitsets import pack, popcount_and

KERNELS = ("numpy", "numba")


def reference(a: np.ndarray, b: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(P, I, 1 + C) from the dense (rows, sets) 0/1 matrices: a matrix product per class (in float64, exact for
    these counts, as BLAS is there for floats only)."""
    out = np.empty((a.shape[1], b.shape[1], 1 + k.shape[1]), dtype=np.int64)
    out[:, :, 0] = a.T.astype(float) @ b.astype(float)
    for c in range(k.shape[1]):
        out[:, :, 1 + c] = a.T.astype(float) @ (b & k[:, [c]]).astype(float)
    return out


def both(a: np.ndarray, b: np.ndarray, k: np.ndarray | None = None, **kw: int) -> np.ndarray:
    """The counts of both implementations, checked equal (bit-identical int64)."""
    got = [and_counts(a, b, k, kernel=name, **kw) for name in KERNELS]
    assert got[0].dtype == got[1].dtype == np.int64
    np.testing.assert_array_equal(got[0], got[1])
    return got[0]


def test_hand_counted_support_and_class_counts():
    # 5 rows. a0 = {0, 1, 3}, a1 = {}; b0 = {1, 2, 3}, b1 = every row; class = {3, 4}
    dense = lambda *sets: np.array([[r in s for s in sets] for r in range(5)])  # noqa: E731
    a, b, k = dense({0, 1, 3}, set()), dense({1, 2, 3}, set(range(5))), dense({3, 4})
    got = both(pack(a), pack(b), pack(k))
    # a0 & b0 = {1, 3}: 2 rows, 1 of the class; a0 & b1 = {0, 1, 3}: 3 rows, 1 of the class; a1: nothing
    np.testing.assert_array_equal(got, [[[2, 1], [3, 1]], [[0, 0], [0, 0]]])
    np.testing.assert_array_equal(popcount_and(pack(a), pack(b)), [[2, 3], [0, 0]])


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 300), n_a=st.integers(0, 9), n_b=st.integers(0, 9), n_k=st.integers(0, 3),
       fill=st.sampled_from(["random", "zeros", "ones", "sparse"]), seed=st.integers(0, 2**32 - 1))
def test_both_kernels_equal_the_dense_reference_on_random_bitsets(rows, n_a, n_b, n_k, fill, seed):
    rng = np.random.default_rng(seed)

    def sets(k: int) -> np.ndarray:
        if fill in ("zeros", "ones"):
            return np.full((rows, k), fill == "ones")
        return rng.random((rows, k)) < (0.05 if fill == "sparse" else 0.5)

    a, b, k = sets(n_a), sets(n_b), sets(n_k)
    got = both(pack(a), pack(b), pack(k))
    np.testing.assert_array_equal(got, reference(a, b, k))
    if fill == "ones":
        assert (got == rows).all()  # every set holds every row; the padding bits of the last word stay clear


@pytest.mark.parametrize(("rows", "n_a", "n_b", "tile"), [
    (64 * (2 * TILE_WORDS + 3) + 17, 37, 5, None),  # three word tiles, the last short; several pattern tiles
    (64 * (2 * TILE_WORDS + 3) + 17, 37, 5, 3),
    (700, 3, 300, None),  # many items: the NumPy path narrows its word tile to keep the temporary small
    (64, 1, 1, 1),  # a single word
    (1, 2, 3, None),  # a single row
])
def test_tiles_do_not_change_the_counts(rows, n_a, n_b, tile):
    rng = np.random.default_rng(rows + n_a)
    a, b, k = rng.random((rows, n_a)) < 0.5, rng.random((rows, n_b)) < 0.3, rng.random((rows, 2)) < 0.5
    kw = {} if tile is None else {"tile_patterns": tile}
    np.testing.assert_array_equal(both(pack(a), pack(b), pack(k), **kw), reference(a, b, k))


@pytest.mark.parametrize("kernel", KERNELS)
def test_empty_blocks_give_empty_counts(kernel):
    words = np.zeros((4, 3), dtype=np.uint64)
    assert and_counts(words[:0], words, kernel=kernel).shape == (0, 4, 1)
    assert and_counts(words, words[:0], words[:2], kernel=kernel).shape == (4, 0, 3)
    none = np.zeros((2, 0), dtype=np.uint64)  # a table of 0 rows: no words
    np.testing.assert_array_equal(and_counts(none, none, none, kernel=kernel), np.zeros((2, 2, 3), dtype=np.int64))


def test_the_environment_variable_chooses_the_kernel(monkeypatch):
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    assert kernel_name() == "numpy"
    monkeypatch.setenv(KERNEL_ENV, "NUMBA ")
    assert kernel_name() == "numba"
    monkeypatch.delenv(KERNEL_ENV)
    assert kernel_name() == "numba"  # auto: Numba is installed (the test extra)
    assert kernel_name("numpy") == "numpy"  # the argument wins over the variable
    monkeypatch.setenv(KERNEL_ENV, "fortran")
    with pytest.raises(ValueError, match=r"AIF360_SUBJECTIVE_KERNEL must be one of auto, numpy, numba; got 'fortran'"):
        kernel_name()
    with pytest.raises(ValueError, match=r"kernel must be one of .*; got 'c'"):
        and_counts(np.zeros((1, 1), dtype=np.uint64), np.zeros((1, 1), dtype=np.uint64), kernel="c")


def test_without_numba_auto_falls_back_and_numba_refuses(monkeypatch):
    monkeypatch.setattr(bc, "_COMPILED", {"kernel": None})  # as if the import had failed
    monkeypatch.delenv(KERNEL_ENV, raising=False)
    assert kernel_name() == "numpy"
    ones = np.full((2, 3), 2**64 - 1, dtype=np.uint64)
    np.testing.assert_array_equal(and_counts(ones, ones), np.full((2, 2, 1), 192))
    with pytest.raises(ImportError, match=r"kernel='numba' needs Numba: pip install 'aif360-subjective\[kernel\]'"):
        and_counts(ones, ones, kernel="numba")


def test_bad_input_is_named():
    good = np.zeros((2, 3), dtype=np.uint64)
    with pytest.raises(TypeError, match=r"b must be a 2-d uint64 array of bitsets \(k, words\); got int64"):
        and_counts(good, np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(TypeError, match=r"a must be a 2-d uint64 array .* of shape \(3,\)"):
        and_counts(good[0], good)
    with pytest.raises(ValueError, match=r"classes has 2 words per bitset, the patterns 3"):
        and_counts(good, good, good[:, :2])
    with pytest.raises(ValueError, match=r"tile_patterns must be a positive integer or None; got 0"):
        and_counts(good, good, tile_patterns=0)


def test_the_byte_table_count_of_old_numpy_equals_bitwise_count():
    rng = np.random.default_rng(0)
    words = rng.integers(0, 2**64, (7, 5), dtype=np.uint64)
    words[0] = [0, 2**64 - 1, 1, 2**63, 0x5555555555555555]
    np.testing.assert_array_equal(byte_table_count(words)[0], [0, 64, 1, 1, 32])
    np.testing.assert_array_equal(byte_table_count(words), np.bitwise_count(words))
    out = np.empty((7, 5), dtype=np.uint8)
    assert byte_table_count(words, out) is out and bitwise_count(words, out) is out
    np.testing.assert_array_equal(out, np.bitwise_count(words))
