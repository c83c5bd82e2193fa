"""The functions of one partition that the distributed subgroup discovery sends to its workers.

Every pass of :mod:`.detect` (on Dask, and on Spark through :mod:`..._spark.parts`) runs one of these on each
partition's rows and brings back counts. They live apart from the analysis so that a worker, which imports the
module of each function it unpickles, imports only what they need -- numpy, pandas, the cell counter, the items
and the keyed permutations -- and not the analysis' report, candidates and scipy.stats: seconds of imports per
worker process (``python -X importtime -c "import aif360_subjective.detectors._dask.passes"``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import numpy as np
import pandas as pd

from ..._labels import cell_codes
from .._validation import eq_array
from ..error_control.keyed_permutation import mix64
from ..mining.cell_counts import CellCounter
from ..mining.numeric_conditions import cut_neighbours
from ..mining.pattern_mining import Items
from .counts import keyed_partition_counts, partition_codes

__all__ = ["HASH_KEYS", "chunks", "favourable", "pack_patterns", "partition_count", "partition_neighbours",
           "partition_permuted", "pattern_mask", "row_hashes", "sample_bits", "unchunk", "unpack_patterns"]

#: Hash keys of the two row-set hashes and of the containment sample.
HASH_KEYS = (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0)

#: The cell counters of the max-T's passes a worker process keeps (:func:`_permuted_counter`), by a digest of
#: everything they are built from, and the bytes of base codes they may hold between them.
_COUNTERS: OrderedDict[bytes, tuple[CellCounter, int]] = OrderedDict()
_COUNTER_BYTES = 2**28


def _digest(*arrays: np.ndarray) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.digest()


def _permuted_counter(frame: pd.DataFrame, items: Items, conditions: tuple[np.ndarray, np.ndarray, np.ndarray],
                      patterns: np.ndarray, radix: np.ndarray) -> CellCounter:
    """The partition's :class:`~.cell_counts.CellCounter` of ``patterns``, kept from an earlier pass of the same
    max-T when this process built it (a max-T of B permutations makes about B / 50 passes over the same
    candidates, and building their counter cost as much as a pass' draws and counts: ``spark_scale.py
    --profile-partition``).

    The counter is a function of the rows' base codes, the conditions, the patterns and the radix alone: it is
    kept under a digest of all four (BLAKE2b), so a hit is the counter those inputs build, whatever analysis,
    table or partition they came from. The codes are computed each pass (to be digested); the kept counters hold
    at most :data:`_COUNTER_BYTES` of codes (the oldest go first).

    References:
        J.-P. Aumasson, S. Neves, Z. Wilcox-O'Hearn and C. Winnerlein, "BLAKE2: simpler, smaller, fast as MD5",
        ACNS 2013.
    """
    codes = partition_codes(frame, items)
    key = _digest(codes, *conditions, patterns, radix)
    kept = _COUNTERS.get(key)
    if kept is not None:
        _COUNTERS.move_to_end(key)
        return kept[0]
    counter = CellCounter(codes, *conditions, unpack_patterns(patterns), radix=radix)
    if codes.nbytes <= _COUNTER_BYTES:
        _COUNTERS[key] = (counter, codes.nbytes)
        while sum(size for _, size in _COUNTERS.values()) > _COUNTER_BYTES:
            _COUNTERS.popitem(last=False)
    return counter


def partition_neighbours(frame: pd.DataFrame, cuts: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per column, the ``cut_neighbours`` of the partition's values at the column's cuts."""
    return {c: cut_neighbours(frame[c].to_numpy(dtype=np.float64), t) for c, t in cuts.items()}


def chunks(h: np.ndarray) -> np.ndarray:
    """(n, 4) 16-bit pieces of uint64 hashes, as float64 (their sums stay exact below 2^53)."""
    return np.column_stack([((h >> np.uint64(16 * k)) & np.uint64(0xFFFF)).astype(np.float64) for k in range(4)])


def row_hashes(start: int, n: int) -> np.ndarray:
    pos = np.arange(start, start + n, dtype=np.uint64)
    return np.hstack([chunks(mix64(pos ^ np.uint64(key))) for key in HASH_KEYS[:2]])


def unchunk(sums: np.ndarray) -> np.ndarray:
    """uint64 sums modulo 2^64 of hashes from the sums of their 16-bit pieces (each exact in float64)."""
    out = np.zeros(len(sums), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(4):
            out += sums[:, k].astype(np.uint64) << np.uint64(16 * k)
    return out


def pack_patterns(patterns: list[tuple[int, ...]]) -> np.ndarray:
    """(patterns, longest) item positions padded with -1: one array, which Dask ships without walking a list of
    tuples (unpacking 100,000 tuples for collections cost seconds per pass)."""
    width = max((len(p) for p in patterns), default=1)
    out = np.full((len(patterns), width), -1, dtype=np.int64)
    for L in range(1, width + 1):  # one assignment per length
        rows = [i for i, p in enumerate(patterns) if len(p) == L]
        if rows:
            out[rows, :L] = np.array([patterns[i] for i in rows], dtype=np.int64)
    return out


def unpack_patterns(packed: np.ndarray) -> list[tuple[int, ...]]:
    lengths = (packed >= 0).sum(axis=1)
    out: list[tuple[int, ...]] = [()] * len(packed)
    for L in np.unique(lengths).tolist():  # one conversion per length
        rows = np.flatnonzero(lengths == L)
        for i, pat in zip(rows.tolist(), map(tuple, packed[rows, :L].tolist()), strict=True):
            out[i] = pat
    return out


def favourable(y: pd.Series, pos_label: Any) -> np.ndarray:
    """A partition's labels as booleans, True = favourable (the labels were checked on the client)."""
    return eq_array(y.to_numpy(), pos_label)


def partition_count(frame: pd.DataFrame, yt: pd.Series, yp: pd.Series, start: int, items: Items,
                     conditions: tuple[np.ndarray, np.ndarray, np.ndarray], patterns: np.ndarray,
                     radix: np.ndarray, what: str, pos_label: Any) -> np.ndarray:
    codes = partition_codes(frame, items)
    counter = CellCounter(codes, *conditions, unpack_patterns(patterns), radix=radix)
    n = len(frame)
    if what == "support":
        return counter.count(np.ones((n, 1), dtype=np.uint8))
    cells = cell_codes(favourable(yt, pos_label), favourable(yp, pos_label))
    onehot = np.zeros((n, 4))
    onehot[np.arange(n), cells] = 1.0
    return counter.count(np.hstack([onehot, row_hashes(start, n)]))


def pattern_mask(frame: pd.DataFrame, items: Items, lo: np.ndarray, hi: np.ndarray) -> pd.Series:
    codes = partition_codes(frame, items)
    return pd.Series(np.all((codes >= lo) & (codes < hi), axis=1), index=frame.index)


def sample_bits(frame: pd.DataFrame, start: int, items: Items, lo: np.ndarray, hi: np.ndarray,
                 threshold: np.uint64) -> np.ndarray:
    """Packed membership (sample rows / 8, patterns) of the partition's rows whose position hash falls below
    ``threshold`` (a seeded sample, the same for any partitioning)."""
    pos = np.arange(start, start + len(frame), dtype=np.uint64)
    chosen = np.flatnonzero(mix64(pos ^ np.uint64(HASH_KEYS[2])) < threshold)
    codes = partition_codes(frame.iloc[chosen], items)
    member = np.all((codes[:, None, :] >= lo[None]) & (codes[:, None, :] < hi[None]), axis=2)
    # whole bytes per partition: pad with rows in no pattern (they never make a pair look nested)
    pad = (-len(member)) % 8
    member = np.vstack([member, np.zeros((pad, member.shape[1]), dtype=bool)])
    return np.packbits(member, axis=0)


def partition_permuted(frame: pd.DataFrame, yt: pd.Series, yp: pd.Series, start: int, strata: list[int],
                        items: Items, conditions: tuple[np.ndarray, np.ndarray, np.ndarray],
                        patterns: np.ndarray, radix: np.ndarray, pos_label: Any, scheme: Any,
                        b_start: int, b_stop: int, need: tuple[bool, bool, bool, bool]) -> np.ndarray:
    """(patterns, k b) uint32 counts of the partition's rows under permutations ``b_start .. b_stop - 1``
    (:func:`~.dask_counts.keyed_partition_counts`; exact below 2^32 rows, half the bytes to send)."""
    counter = _permuted_counter(frame, items, conditions, patterns, radix)
    t = favourable(yt, pos_label).astype(np.int64)
    counts = keyed_partition_counts(counter, t, start, (int(strata[0]), int(strata[1])), scheme, b_start, b_stop,
                                    need)
    out: np.ndarray = counts.astype(np.uint32)
    return out
