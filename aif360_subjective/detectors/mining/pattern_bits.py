"""Mined patterns' row bitsets formed from their items' bitsets when needed, never held all at once.

A pattern's rows are the AND of its items' rows, so the miner keeps one bitset per frequent item (``n / 8`` bytes
each, a hundred or so of them) and forms a pattern's bitset, ``L - 1`` ANDs of ``n / 64`` words, when something
reads it: the support count of the next level, the row-set keys, the few listed patterns the redundancy filter
compares. Holding every pattern's bitset cost ``patterns x n / 8`` bytes: 66,957 patterns of a 10-column table are
8.4 GB at a million rows (the 9-11 KB per row of issue 42), all of it for bitsets read once or twice.

Patterns are stored as a (patterns, width) matrix of slots into the item bitsets, shorter patterns padded with the
slot of an all-ones bitset (an AND with it changes nothing: every pattern has at least one real item, whose bits
past the last row are 0).

References:
    M. J. Zaki, "Scalable algorithms for association mining", IEEE TKDE 12(3), 2000 (the vertical layout: a
    pattern's row set is the intersection of its items').
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import scipy.sparse as sp

from ..bitsets import bit_keys, n_words, pack_columns

__all__ = ["pack_items", "with_ones", "slot_matrix", "and_of", "blocks_of", "keys_of"]

#: Bytes of the bitsets formed at a time when every pattern's are read in turn (keys, unpacking).
FORM_BLOCK_BYTES: int = 32 * 2**20


def pack_items(matrix: sp.csc_matrix, keep: np.ndarray, chunk: int = 8) -> np.ndarray:
    """(len(keep) + 1, words) the bitsets of the items ``keep`` (columns of the (rows, items) indicator ``matrix``)
    and an all-ones one (:func:`with_ones`), packed ``chunk`` items at a time: :func:`~..bitsets.pack_columns`'
    temporaries (about 40 bytes per member) then stay a few items' worth, not every item's (1.5 KB per row of 10
    columns)."""
    out = np.empty((len(keep) + 1, n_words(matrix.shape[0])), dtype=np.uint64)
    for s0 in range(0, len(keep), chunk):
        s1 = min(len(keep), s0 + chunk)
        out[s0:s1] = pack_columns(matrix[:, keep[s0:s1]])
    out[-1] = np.iinfo(np.uint64).max
    return out


def with_ones(item_bits: np.ndarray) -> np.ndarray:
    """(items + 1, words) the item bitsets and, last, an all-ones bitset: the padding slot of :func:`slot_matrix`."""
    out = np.empty((item_bits.shape[0] + 1, item_bits.shape[1]), dtype=np.uint64)
    out[:-1] = item_bits
    out[-1] = np.iinfo(np.uint64).max
    return out


def slot_matrix(slots: list[np.ndarray], pad: int) -> np.ndarray:
    """(patterns, widest) int32 slots of the patterns given level by level (each (m_k, k)), padded with ``pad``."""
    width = max((s.shape[1] for s in slots), default=1)
    out = np.full((sum(len(s) for s in slots), width), pad, dtype=np.int32)
    at = 0
    for s in slots:
        out[at:at + len(s), :s.shape[1]] = s
        at += len(s)
    return out


def and_of(ext_bits: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """(len(slots), words) the AND of the item bitsets each row of ``slots`` names (``ext_bits``: :func:`with_ones`)."""
    out: np.ndarray = ext_bits[slots[:, 0]]
    for j in range(1, slots.shape[1]):  # <= max_length - 1 ANDs, each vectorised over the patterns
        np.bitwise_and(out, ext_bits[slots[:, j]], out=out)
    return out


def blocks_of(k: int, words: int, block_bytes: int | None = None) -> Iterator[slice]:
    """Slices of ``k`` patterns whose bitsets of ``words`` words hold at most ``block_bytes`` (at least one)."""
    per = max(1, (FORM_BLOCK_BYTES if block_bytes is None else block_bytes) // max(1, 8 * words))
    for s0 in range(0, k, per):
        yield slice(s0, min(k, s0 + per))


def keys_of(form: Callable[[slice], np.ndarray], support: np.ndarray, words: int) -> np.ndarray:
    """(k, 3) :func:`~..bitsets.bit_keys` of ``k`` patterns, their bitsets formed a block at a time by ``form``
    (the keys of a row are its own: the same as from every bitset at once)."""
    k = len(support)
    out = np.empty((k, 3), dtype=np.uint64)
    for sl in blocks_of(k, words):
        out[sl] = bit_keys(form(sl), support[sl])
    return out
