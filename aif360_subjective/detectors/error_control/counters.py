"""Counting every candidate's rows in 0/1 columns: the counters the max-T and the metrics share.

A counter has ``shape`` (rows, candidates) and ``count(Y)``: the exact counts of each candidate's rows where each 0/1
column of ``Y`` is 1 (weights are summed). :class:`MemberCounter` counts from a sparse membership,
:class:`~aif360_subjective.detectors.mining.cell_counts.CellCounter` from the cells of a data cube,
:class:`StackedCounter` several kinds one after the other; :class:`PermutedCounts` gives the four counts of the
max-T's tests under a batch of permutations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, cast, overload

import numpy as np
import scipy.sparse as sp

__all__ = ["Counter", "DeferredCounts", "Finish", "MemberCounter", "PackedColumns", "PermutedCounts", "StackedCounter",
           "as_columns", "as_counter", "deferred_count", "float_ones", "is_binary"]


class PackedColumns:
    """(rows, c) 0/1 columns held 8 to a byte (``np.packbits`` of each row, most significant bit first), read a
    block of rows at a time: what a counter's ``count`` reads in place of a boolean array, at an eighth of its
    memory (the max-T's permuted columns: 25 bytes per row of a batch of 50 permutations and 4 counts instead of
    200). A block reads back as the boolean rows it packs, so every count is the same.

    Args:
        bits: (rows, ceil(c / 8)) uint8, the packed rows.
        c: columns.
    """

    dtype = np.dtype(bool)

    def __init__(self, bits: np.ndarray, c: int):
        if bits.dtype != np.uint8 or bits.ndim != 2 or bits.shape[1] != -(-c // 8):
            raise ValueError(f"PackedColumns needs (rows, {-(-c // 8)}) uint8 bits for {c} columns, got "
                             f"{bits.dtype} {bits.shape}")
        self.bits = bits
        self.shape: tuple[int, int] = (int(bits.shape[0]), c)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows: slice) -> np.ndarray:
        """The boolean (rows, c) block of the slice ``rows``."""
        out: np.ndarray = np.unpackbits(self.bits[rows], axis=1, count=self.shape[1]).view(bool)
        return out

    def __array__(self, dtype: np.typing.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        out = self[:]
        return out if dtype is None else out.astype(dtype)


def as_columns(Y: object) -> np.ndarray | PackedColumns:
    """``Y`` as a counter reads it: packed columns as they are (read a block of rows at a time), anything else
    as an array."""
    return Y if isinstance(Y, PackedColumns) else np.asarray(Y)


def is_binary(Y: np.ndarray | PackedColumns) -> bool:
    """Whether every value of ``Y`` is 0 or 1 (counted exactly in 16 bits; other values are weights)."""
    return Y.dtype == bool or bool(np.all((Y == 0) | (Y == 1)))


def float_ones(M: sp.spmatrix) -> sp.spmatrix:
    """The 0/1 sparse matrix ``M`` (no repeated entries) with float64 ones: weights are summed in 64 bits, and
    scipy's ``astype`` would sort and merge entries first."""
    return type(M)((np.ones(M.nnz), M.indices, M.indptr), shape=M.shape)


class MemberCounter:
    """Counts of every subgroup's rows in 0/1 columns, by sparse products on 16-bit integers.

    A sparse product's inner loop runs once per (stored entry, right-hand column); on 16-bit integers it
    vectorises over twice the lanes of float32 (``benchmarks/maxt_speed.py`` times both). A 16-bit count is
    exact up to 65,535, so the rows are taken in blocks of at most that many and the blocks' counts added in 64
    bits. The products release the GIL (two run at once on two cores). Columns of other values (weights) are
    summed in float64.

    Args:
        members: (rows, m) boolean membership, one column per subgroup.
    """

    _BLOCK = 2**16 - 1

    def __init__(self, members: sp.spmatrix):
        MT = sp.csr_matrix(sp.csc_matrix(members).T, dtype=np.uint16)
        n = MT.shape[1]
        self.shape = (n, MT.shape[0])  # (rows, subgroups), as ``members``
        self.blocks = [(s0, min(n, s0 + self._BLOCK)) for s0 in range(0, n, self._BLOCK)] or [(0, 0)]
        self.MT = [MT] if len(self.blocks) == 1 else [MT[:, s0:s1] for s0, s1 in self.blocks]

    def count(self, Y: np.ndarray | PackedColumns) -> np.ndarray:
        """(m, c) float64: rows of each subgroup where each column of the (rows, c) 0/1 array ``Y`` is 1; for a
        ``Y`` of other values (weights), their sums over each subgroup's rows (``Y`` may be
        :class:`PackedColumns`: read a block of rows at a time)."""
        Y = as_columns(Y)
        binary = is_binary(Y)
        cnt = np.zeros((self.MT[0].shape[0], Y.shape[1]), dtype=np.float64)
        for M, (s0, s1) in zip(self.MT, self.blocks, strict=True):
            cnt += M @ Y[s0:s1].astype(np.uint16) if binary else float_ones(M) @ Y[s0:s1].astype(np.float64)
        return cnt

    def sparse_count(self, D: sp.spmatrix) -> sp.csr_matrix:
        """(m, c) sparse float64 sums of the columns of the sparse (rows, c) ``D`` over each subgroup's rows (the
        candidates x clusters sums of :mod:`.cluster_permutation`): one sparse product over the memberships."""
        D = sp.csr_matrix(D, dtype=np.float64)
        out = sp.csr_matrix((self.shape[1], D.shape[1]), dtype=np.float64)
        for M, (s0, s1) in zip(self.MT, self.blocks, strict=True):
            out = out + float_ones(M) @ D[s0:s1]
        return sp.csr_matrix(out)


class Counter(Protocol):
    """Anything that counts every candidate's rows: ``shape`` (rows, candidates) and ``count(Y)`` -> (candidates,
    columns of Y) exact counts of the rows where each 0/1 column of ``Y`` is 1 (:class:`MemberCounter`,
    :class:`~.cell_counts.CellCounter`, :class:`StackedCounter`). A counter may also have ``deferred(Y)``
    (:func:`deferred_count`)."""

    shape: tuple[int, int]

    def count(self, Y: np.ndarray) -> np.ndarray: ...


#: What :func:`deferred_count` returns: the (candidates, columns) counts of a slice of ``Y``'s columns.
Finish = Callable[[slice], np.ndarray]


def deferred_count(counter: Counter, Y: np.ndarray | PackedColumns) -> Finish:
    """``counter.count(Y)`` in two steps: the pass over the rows now, the candidates' counts of a slice of ``Y``'s
    columns when the returned function is called with it (``finish(cols)`` equals ``counter.count(Y)[:, cols]``
    bit for bit).

    A counter through cells (:class:`~.cell_counts.CellCounter`) passes over the rows into its cells' counts
    (thousands of cells) and sums each candidate's cells only for the columns asked: the max-T's batch then holds
    its cells' counts and one count's (candidates, permutations) block at a time, not the (candidates, 4
    permutations) counts of every column (107 MB for 67,000 candidates and 50 permutations, of each batch in
    flight). A counter without ``deferred`` counts every column at once and hands out slices of the counts.
    """
    deferred = getattr(counter, "deferred", None)
    if deferred is not None:
        out: Finish = deferred(Y)
        return out
    cnt = counter.count(cast(np.ndarray, Y))
    return lambda cols: cnt[:, cols]


class DeferredCounts(Sequence[np.ndarray | None]):
    """The four permuted counts of a batch (:data:`~.maxt.COUNTS`, each (candidates, b), None where not asked),
    each summed from the counter's pass over the rows when first read (:func:`deferred_count`) and held until
    :meth:`forget`: what :func:`~.maxt.adjust_tests` reads one test at a time.

    Args:
        finish: the counts of a slice of the batch's columns.
        b: permutations in the batch.
        need: which counts the batch's columns hold (each a block of ``b`` columns, in order).
    """

    def __init__(self, finish: Finish, b: int, need: tuple[bool, ...]):
        self._finish: Finish | None = finish
        self.n_permutations = b
        self._at = {i: j * b for j, i in enumerate(i for i in range(len(need)) if need[i])}
        self._held: dict[int, np.ndarray] = {}
        self._size = len(need)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, i: int) -> np.ndarray | None: ...

    @overload
    def __getitem__(self, i: slice) -> list[np.ndarray | None]: ...

    def __getitem__(self, i: int | slice) -> np.ndarray | None | list[np.ndarray | None]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._size))]
        if i < 0 or i >= self._size:
            raise IndexError(f"count {i} of {self._size}")
        if i not in self._at:
            return None
        if i not in self._held:
            if self._finish is None:
                raise ValueError(f"count {i} was read after the batch was forgotten")
            self._held[i] = self._finish(slice(self._at[i], self._at[i] + self.n_permutations))
        return self._held[i]

    def forget(self, keep: Iterable[int] = ()) -> None:
        """Drop the counts held other than ``keep``; with nothing to keep, the pass over the rows too."""
        keep = set(keep)
        for i in [i for i in self._held if i not in keep]:
            del self._held[i]
        if not keep:
            self._finish = None


class StackedCounter:
    """Several counters' candidates one after the other (the kinds of a report, each counted its own way).

    Args:
        parts: counters of the same rows.
    """

    def __init__(self, parts: list[Counter]):
        if not parts:
            raise ValueError("StackedCounter needs at least one counter")
        rows = {c.shape[0] for c in parts}
        if len(rows) != 1:
            raise ValueError(f"the counters count different rows: {sorted(rows)}")
        self.parts = parts
        self.shape = (rows.pop(), sum(c.shape[1] for c in parts))

    def count(self, Y: np.ndarray) -> np.ndarray:
        """(candidates, c) counts, the parts' candidates in order (each part's written into its rows as it comes:
        no second copy of every candidate's counts; one part's counts as they come)."""
        if len(self.parts) == 1:
            return self.parts[0].count(Y)
        out = np.empty((self.shape[1], Y.shape[1]), dtype=np.float64)
        at = 0
        for c in self.parts:
            out[at:at + c.shape[1]] = c.count(Y)
            at += c.shape[1]
        return out

    def deferred(self, Y: np.ndarray | PackedColumns) -> Finish:
        """:func:`deferred_count` of every part; the finished counts stacked as :meth:`count` stacks them."""
        parts = [(c.shape[1], deferred_count(c, Y)) for c in self.parts]
        if len(parts) == 1:
            return parts[0][1]

        def finish(cols: slice) -> np.ndarray:
            out = np.empty((self.shape[1], len(range(*cols.indices(Y.shape[1])))), dtype=np.float64)
            at = 0
            for k, part in parts:
                out[at:at + k] = part(cols)
                at += k
            return out
        return finish


def as_counter(members: Counter | sp.spmatrix | np.ndarray) -> Counter:
    """A counter as it is; a (rows, candidates) membership matrix as a :class:`MemberCounter`."""
    if hasattr(members, "count") and hasattr(members, "shape") and not isinstance(members, np.ndarray | sp.spmatrix):
        return members
    return MemberCounter(members)


class PermutedCounts:
    """The four counts of every candidate under a batch of permutations (a :class:`Counter`)."""

    def __init__(self, counter: Counter, t: np.ndarray):
        self.counter = counter
        self.t = np.asarray(t, dtype=bool)[:, None]

    def counts(self, p_a: np.ndarray, c_a: np.ndarray, p_b: np.ndarray,
               need: tuple[bool, ...] = (True, True, True, True),
               t_b: np.ndarray | None = None) -> list[np.ndarray | None]:
        """Favourable and correct predictions (pairs permuted jointly: ``p_a``, ``c_a``), true and false
        positives (predictions permuted within the truth strata: ``p_b``); each (m, b) float64, or None where
        ``need`` is False (a count no requested test uses is not computed). With ``t_b`` (the truths permuted
        with ``p_b``: whole clusters moved) a fifth count is returned: each candidate's truth-positive rows."""
        b = p_a.shape[1]
        fav = p_b > 0
        t = self.t if t_b is None else t_b > 0
        # a prediction permuted within the truth strata is a true positive on truth-positive rows, a false
        # positive on the others
        which = [i for i in range(4) if need[i]] + ([4] if t_b is not None else [])
        cnt = self.counter.count(np.hstack([_part(i, p_a, c_a, t, fav) for i in which]))
        out: list[np.ndarray | None] = [None] * 5
        for j, i in enumerate(which):
            out[i] = cnt[:, j * b:(j + 1) * b]
        return out if t_b is not None else out[:4]


def _part(i: int, p_a: np.ndarray, c_a: np.ndarray, t: np.ndarray, fav: np.ndarray) -> np.ndarray:
    """Count ``i`` of :meth:`PermutedCounts.counts`: favourable predictions, true positives, false positives,
    correct predictions, truth positives."""
    out: np.ndarray
    if i == 0:
        out = p_a > 0
    elif i == 1:
        out = t & fav
    elif i == 2:
        out = ~t & fav
    else:
        out = c_a > 0 if i == 3 else np.broadcast_to(t, fav.shape)
    return out
