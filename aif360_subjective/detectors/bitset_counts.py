"""Fused, cache-blocked counts of bitset intersections: the supports and class counts of patterns against items.

The miner's inner step counts, for a block of patterns (P x W words, :mod:`.bitsets`) and every item or class
(I x W), the rows in both: ``popcount(a & b)`` summed over the words, and, with class bitsets (C x W), the rows of
each class among them, ``popcount(a & b & class)``. :func:`and_counts` computes all of them in one pass without
forming anything of size P x I x W: a tile of patterns and a tile of words stay in the L1/L2 caches while every
item is counted against them, and the counts accumulate over the word tiles.

Two implementations give bit-identical integer counts:

* **numba** (the ``[kernel]`` extra, chosen when Numba imports): compiled loops over the tiles
  (:mod:`._bitset_counts_numba`), near the machine's AND + popcount rate in cache;
* **numpy** (always there, the default without Numba): the same tiles as array operations, ``np.bitwise_and`` into
  a preallocated temporary of about 256 KB, ``np.bitwise_count`` (numpy >= 2.0; older releases count bytes through
  a table, :func:`aif360_subjective._compat.bitwise_count`) and a 16-bit sum over the word tile.

The environment variable ``AIF360_SUBJECTIVE_KERNEL`` chooses: ``auto`` (the default: numba when importable, else
numpy), ``numpy`` (force the NumPy path, e.g. to compare) or ``numba`` (fail if Numba is missing rather than fall
back). ``benchmarks/counting_kernel.py`` times both against the fused C rate.

References:
    M. J. Zaki, "Scalable algorithms for association mining", IEEE TKDE 12(3), 2000 (supports as intersections of
    vertical row sets).
    K. Goto and R. A. van de Geijn, "Anatomy of high-performance matrix multiplication", ACM TOMS 34(3), 2008
    (tiling the operands so that a block of each stays in cache while the other streams past it).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from .._compat import bitwise_count

__all__ = ["KERNEL_ENV", "and_counts", "kernel_name"]

#: The environment variable that chooses the implementation: ``auto`` (default), ``numpy`` or ``numba``.
KERNEL_ENV = "AIF360_SUBJECTIVE_KERNEL"
_CHOICES = ("auto", "numpy", "numba")
#: Words of each bitset per tile: 256 words (16,384 rows, 2 KB) keep a tile of 16 patterns in a 48 KB L1, and a
#: word tile's sum of byte counts stays below 2^16 (at most 256 x 64), so the NumPy path sums in 16 bits.
TILE_WORDS = 256
#: Patterns per tile of the compiled kernel: 16 x :data:`TILE_WORDS` words = 32 KB.
TILE_PATTERNS = 16
#: Words of the NumPy path's (patterns, items, words) temporary: 256 KB, within L2.
TEMP_WORDS = 2**15

_Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int], None]


def kernel_name(kernel: str | None = None) -> str:
    """The implementation :func:`and_counts` runs: ``"numba"`` or ``"numpy"``.

    Args:
        kernel: ``"auto"``, ``"numpy"`` or ``"numba"``; None reads :data:`KERNEL_ENV` (unset: ``"auto"``).

    Returns:
        str: ``"numba"`` when asked for, or when ``"auto"`` and Numba imports; else ``"numpy"``.

    Raises:
        ValueError: if the choice is none of the three.
        ImportError: if ``"numba"`` is asked for and Numba does not import.
    """
    source = "kernel" if kernel is not None else KERNEL_ENV
    choice = (kernel if kernel is not None else os.environ.get(KERNEL_ENV, "auto")).strip().lower() or "auto"
    if choice not in _CHOICES:
        raise ValueError(f"{source} must be one of {', '.join(_CHOICES)}; got {choice!r}")
    if choice == "numpy":
        return "numpy"
    compiled = _compiled()
    if compiled is None and choice == "numba":
        raise ImportError(f"{source}='numba' needs Numba: pip install 'aif360-subjective[kernel]' "
                          f"(or set {KERNEL_ENV}=numpy)")
    return "numpy" if compiled is None else "numba"


def _compiled() -> _Kernel | None:
    """The compiled kernel, or None when Numba does not import (the import is tried once)."""
    if "kernel" not in _COMPILED:
        try:
            from ._bitset_counts_numba import count_tiles
        except ImportError:
            _COMPILED["kernel"] = None
        else:
            _COMPILED["kernel"] = count_tiles
    return _COMPILED["kernel"]


_COMPILED: dict[str, _Kernel | None] = {}


def _words(name: str, bits: object, n_words: int | None) -> np.ndarray:
    """``bits`` checked as a C-contiguous (k, words) uint64 array, of ``n_words`` words when given."""
    arr = np.asarray(bits)
    if arr.dtype != np.uint64 or arr.ndim != 2:
        raise TypeError(f"{name} must be a 2-d uint64 array of bitsets (k, words); got {arr.dtype} of shape "
                        f"{arr.shape}")
    if n_words is not None and arr.shape[1] != n_words:
        raise ValueError(f"{name} has {arr.shape[1]} words per bitset, the patterns {n_words}: the bitsets must "
                         "be of the same rows")
    return np.ascontiguousarray(arr)


def and_counts(a: np.ndarray, b: np.ndarray, classes: np.ndarray | None = None, *,
               kernel: str | None = None, tile_patterns: int | None = None) -> np.ndarray:
    """Rows in both of each pattern and each item, and of each class among them, fused and cache-blocked.

    Args:
        a: (P, W) uint64 bitsets of the patterns.
        b: (I, W) uint64 bitsets of the items (or of the classes, to count each pattern's rows per class).
        classes: (C, W) uint64 bitsets of classes, optional.
        kernel: ``"auto"``, ``"numpy"`` or ``"numba"``; None reads ``AIF360_SUBJECTIVE_KERNEL``
            (:func:`kernel_name`).
        tile_patterns: patterns per tile (None: from the cache sizes); the counts do not depend on it.

    Returns:
        numpy.ndarray: (P, I, 1 + C) int64; ``[p, i, 0]`` = ``popcount(a[p] & b[i])``, ``[p, i, 1 + c]`` =
        ``popcount(a[p] & b[i] & classes[c])``.

    Raises:
        TypeError: if an input is not a 2-d uint64 array.
        ValueError: if the inputs differ in words per bitset, or ``tile_patterns`` or ``kernel`` is invalid.
        ImportError: if ``kernel="numba"`` and Numba is missing.
    """
    a = _words("a", a, None)
    b = _words("b", b, a.shape[1])
    k = np.zeros((0, a.shape[1]), dtype=np.uint64) if classes is None else _words("classes", classes, a.shape[1])
    if tile_patterns is not None and (isinstance(tile_patterns, bool) or not isinstance(tile_patterns, int | np.integer)
                                      or tile_patterns < 1):
        raise ValueError(f"tile_patterns must be a positive integer or None; got {tile_patterns!r}")
    out = np.zeros((len(a), len(b), 1 + len(k)), dtype=np.int64)
    if out.size == 0 or a.shape[1] == 0:
        return out
    if kernel_name(kernel) == "numba":
        compiled = _compiled()
        assert compiled is not None  # kernel_name said so
        compiled(a, b, k, out, int(tile_patterns or TILE_PATTERNS), TILE_WORDS)
    else:
        _numpy_counts(a, b, k, out, tile_patterns)
    return out


def _numpy_counts(a: np.ndarray, b: np.ndarray, k: np.ndarray, out: np.ndarray, tile_patterns: int | None) -> None:
    """:func:`and_counts` as array operations on tiles of ``tile_patterns`` patterns x ``tile_words`` words against
    every item, into two preallocated temporaries of about :data:`TEMP_WORDS` words (the (P, I, W) product is never
    formed)."""
    n_items, n_words = b.shape
    tile_words = min(n_words, TILE_WORDS, max(16, TEMP_WORDS // n_items))
    tp = tile_patterns or max(1, TEMP_WORDS // (n_items * tile_words))
    both = np.empty((min(tp, len(a)), n_items, tile_words), dtype=np.uint64)
    third = np.empty_like(both) if len(k) else both
    ones = np.empty(both.shape, dtype=np.uint8)
    for p0 in range(0, len(a), tp):  # P / tp x W / tile_words passes, each vectorised over its tile x every item
        p1 = min(len(a), p0 + tp)
        for w0 in range(0, n_words, tile_words):
            w1 = min(n_words, w0 + tile_words)
            x, y = both[:p1 - p0, :, :w1 - w0], ones[:p1 - p0, :, :w1 - w0]
            np.bitwise_and(a[p0:p1, None, w0:w1], b[None, :, w0:w1], out=x)
            for c in range(1 + len(k)):
                z = x if c == 0 else np.bitwise_and(x, k[c - 1, w0:w1], out=third[:p1 - p0, :, :w1 - w0])
                bitwise_count(z, out=y)
                out[p0:p1, :, c] += np.add.reduce(y, axis=2, dtype=np.uint16)
