"""Row sets as 64-bit bitsets: packing, unpacking, counting, hashing and membership tests.

A set of rows of an ``n``-row table is ``ceil(n / 64)`` words; row ``r`` is bit ``7 - r % 8`` of byte
``r // 8`` (numpy's ``packbits`` order, read as little-endian words). The miner builds its candidates'
rows as bitsets (an extension is one AND, a support one popcount) and keeps them that way: a bitset costs
``n / 8`` bytes whatever the subgroup's size, a sparse column 4 bytes per member, so the 64,829 Adult
patterns hold 396 MB as bitsets against 670 MB as a sparse matrix, which is formed only when asked for.

References:
    R. Agrawal and R. Srikant, "Fast algorithms for mining association rules", VLDB 1994 (Apriori; the
    bitset form of the support counts follows the vertical layout of Zaki's Eclat, below).
    M. J. Zaki, "Scalable algorithms for association mining", IEEE TKDE 12(3), 2000.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._compat import bitwise_count
from .bitset_counts import and_counts

__all__ = ["pack", "pack_columns", "unpack_to_csc", "unpack_one", "popcount_and", "bit_keys", "bits_at",
           "n_words"]


def n_words(n: int) -> int:
    """64-bit words per bitset of ``n`` rows."""
    return -(-n // 64)


def pack(dense: np.ndarray) -> np.ndarray:
    """(n, k) boolean -> (k, words) uint64 bitsets, one row per column of ``dense``."""
    n = dense.shape[0]
    packed = np.zeros((dense.shape[1], n_words(n) * 8), dtype=np.uint8)
    packed[:, : -(-n // 8)] = np.packbits(dense.T, axis=1)
    return packed.view(np.uint64)


def pack_columns(members: sp.spmatrix) -> np.ndarray:
    """(n, k) boolean sparse -> (k, words) bitsets, equal to ``pack(members.toarray())`` without the dense copy.

    Each member adds its bit to its byte; the bits of one column are distinct, so a byte's sum is its OR
    (one ``bincount`` over the members).
    """
    cols = sp.csc_matrix(members, dtype=bool)
    cols.eliminate_zeros()
    cols.sum_duplicates()
    n, k = cols.shape
    width = n_words(n) * 8
    rows = cols.indices.astype(np.int64)
    col = np.repeat(np.arange(k, dtype=np.int64), np.diff(cols.indptr))
    value = np.left_shift(1, 7 - (rows & 7))
    by = np.bincount(col * width + (rows >> 3), weights=value, minlength=k * width)
    return by.astype(np.uint8).reshape(k, width).view(np.uint64)


def unpack_to_csc(bits: np.ndarray, n: int, support: np.ndarray | None = None, block: int = 256) -> sp.csc_matrix:
    """(k, words) uint64 bitsets -> (n, k) boolean CSC matrix (``support``: set bits per bitset, if known).

    Only the non-zero bytes are unpacked, ``block`` bitsets at a time so that the temporaries stay small and in
    cache, straight into the preallocated row indices (32-bit while they fit); ``benchmarks/maxt_speed.py`` times
    it against unpacking every bit at once.
    """
    k = len(bits)
    if support is None:
        support = bitwise_count(bits).sum(axis=1) if k else np.zeros(0, dtype=np.int64)
    by = bits.view(np.uint8).reshape(k, -1)
    width = by.shape[1]
    indptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(support, out=indptr[1:])
    itype: type[np.signedinteger] = np.int32 if max(n, int(indptr[-1])) < 2**31 else np.int64
    indices = np.empty(int(indptr[-1]), dtype=itype)
    for s0 in range(0, k, block):  # k / block passes, each vectorised over its bitsets' bytes
        part = by[s0:s0 + block]
        nz = np.flatnonzero(part).astype(itype)  # bitset-major, each bitset's bytes in row order
        set_bits: np.ndarray = np.flatnonzero(np.unpackbits(part.ravel()[nz])).astype(itype)  # high bit first
        byte = nz[np.right_shift(set_bits, 3)]
        indices[indptr[s0]:indptr[min(k, s0 + block)]] = (byte % width) * 8 + np.bitwise_and(set_bits, 7)
    return sp.csc_matrix((np.ones(len(indices), dtype=bool), indices, indptr), shape=(n, k))


def unpack_one(bitset: np.ndarray, n: int) -> np.ndarray:
    """The rows (sorted) of one (words,) bitset."""
    return np.flatnonzero(np.unpackbits(bitset.view(np.uint8))[:n])


def popcount_and(a: np.ndarray, b: np.ndarray, block: int | None = None) -> np.ndarray:
    """(len(a), len(b)) counts of rows in both bitsets: the fused, cache-blocked :func:`.bitset_counts.and_counts`
    (compiled when Numba is installed), ``block`` patterns a tile (None: from the cache sizes)."""
    return and_counts(a, b, tile_patterns=block)[:, :, 0]


def bit_keys(bits: np.ndarray, support: np.ndarray | None = None) -> np.ndarray:
    """(k, 3) uint64 keys of k bitsets: the support and two random linear hashes of the words modulo 2^64
    (equal sets have equal keys; unequal sets collide with probability about 2^-128). The multipliers are fixed
    (seed 0), so keys of bitsets of the same row count compare across calls."""
    if support is None:
        support = bitwise_count(bits).sum(axis=1) if len(bits) else np.zeros(0, dtype=np.int64)
    rng = np.random.default_rng(0)
    mult = rng.integers(1, 2**63, size=(2, bits.shape[1]), dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):
        h = [(bits * m[None, :]).sum(axis=1, dtype=np.uint64) for m in mult]  # wraps modulo 2^64
    return np.column_stack([np.asarray(support).astype(np.uint64), *h])


def bits_at(bits: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(k, len(rows)) boolean: whether each of the k bitsets holds each of ``rows``."""
    rows = np.asarray(rows, dtype=np.int64)
    by = bits.view(np.uint8).reshape(len(bits), -1)
    return ((by[:, rows >> 3] >> (7 - (rows & 7)).astype(np.uint8)) & 1).astype(bool)
