"""The compiled form of :func:`~aif360_subjective.detectors.bitset_counts.and_counts` (Numba, the ``[kernel]`` extra).

Imported only when the kernel is chosen (importing Numba takes a fraction of a second). The loops are those of the
NumPy path's tiles, written out so that nothing of size patterns x items x words is ever formed: each (pattern,
item) pair of a tile sums the popcounts of its words' AND over a tile of words, one pass for the support (two
patterns at a time, so that each word of the item is loaded once for both) and one more per class, on contiguous
one-dimensional slices (written with two-dimensional indices the same loops ran 2-3 times slower: LLVM vectorised
them worse). The population count is LLVM's ``ctpop`` intrinsic, which the host's vector instructions carry out
(``vpopcntq`` with AVX-512 VPOPCNTDQ): NumPy arrays of the same unsigned 64-bit words give bit-identical integer
sums.

References:
    S. K. Lam, A. Pitrou and S. Seibert, "Numba: a LLVM-based Python JIT compiler", LLVM-HPC 2015.
    W. Muła, N. Kurz and D. Lemire, "Faster population counts using AVX2 instructions", The Computer Journal
    61(1), 2018 (why a vectorised popcount over a block of words is memory- rather than instruction-bound).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["count_tiles"]


def _ctpop(typingctx: Any, word: Any) -> Any:
    """Set bits of one uint64 word (LLVM's ``ctpop``; Numba exposes no population count of its own)."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


_popcount: Any = intrinsic(_ctpop)  # called with the word alone inside compiled code


@njit(nogil=True, cache=True)
def _and_count(x: np.ndarray, y: np.ndarray) -> np.int64:
    """Rows in both of two equally long word slices."""
    acc = np.uint64(0)
    for w in range(x.shape[0]):
        acc += _popcount(x[w] & y[w])
    return np.int64(acc)  # int64 + uint64 would be float64 in Numba


@njit(nogil=True, cache=True)
def _and_count2(x0: np.ndarray, x1: np.ndarray, y: np.ndarray) -> tuple[np.int64, np.int64]:
    """Rows in both of ``x0`` and ``y`` and of ``x1`` and ``y``: each word of ``y`` is loaded once for two
    patterns (a quarter more tests per second than two passes)."""
    acc0 = np.uint64(0)
    acc1 = np.uint64(0)
    for w in range(y.shape[0]):
        acc0 += _popcount(x0[w] & y[w])
        acc1 += _popcount(x1[w] & y[w])
    return np.int64(acc0), np.int64(acc1)


@njit(nogil=True, cache=True)
def _and3_count(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.int64:
    """Rows in all three of three equally long word slices."""
    acc = np.uint64(0)
    for w in range(x.shape[0]):
        acc += _popcount(x[w] & y[w] & z[w])
    return np.int64(acc)


@njit(nogil=True, cache=True)
def count_tiles(a: np.ndarray, b: np.ndarray, classes: np.ndarray, out: np.ndarray, tile_patterns: int,
                tile_words: int) -> None:
    """Add to ``out`` (P, I, 1 + C) int64 the rows of each pattern of ``a`` (P, W) and item of ``b`` (I, W): all
    of them at ``[..., 0]``, those of class ``c`` of ``classes`` (C, W) at ``[..., 1 + c]``; a tile of
    ``tile_patterns`` patterns x ``tile_words`` words at a time, against every item."""
    n_patterns, n_words = a.shape
    for p0 in range(0, n_patterns, tile_patterns):
        p1 = min(n_patterns, p0 + tile_patterns)
        for w0 in range(0, n_words, tile_words):
            w1 = min(n_words, w0 + tile_words)
            for i in range(b.shape[0]):
                y = b[i, w0:w1]
                for p in range(p0, p1 - 1, 2):  # two patterns per pass over the item's words
                    s0, s1 = _and_count2(a[p, w0:w1], a[p + 1, w0:w1], y)
                    out[p, i, 0] += s0
                    out[p + 1, i, 0] += s1
                if (p1 - p0) % 2:
                    out[p1 - 1, i, 0] += _and_count(a[p1 - 1, w0:w1], y)
                for c in range(classes.shape[0]):
                    z = classes[c, w0:w1]
                    for p in range(p0, p1):
                        out[p, i, 1 + c] += _and3_count(a[p, w0:w1], y, z)
