"""The max-T's permuted outcome columns of rows as the units, drawn one permutation at a time into one 0/1 block.

:func:`~.maxt.max_t` with rows as the units draws, per batch of ``b`` permutations, the source row of every row
(:meth:`~.resampling.Permuter.draw`, an (n, b) index array) and the predictions permuted within the truths
(:meth:`~.resampling.Permuter.draw_within`, an (n, b) float array), gathers the favourable and correct
predictions at the source rows (two more (n, b) float arrays) and stacks the 0/1 columns it counts. At a million
rows and b = 50 these are 400 MB each, several at once per batch in flight: most of the max-T's memory.

:func:`permuted_columns` makes the same draws from the same generator in the same order (numpy's ``permuted`` of
a (b, n) array along its rows is b shuffles one after the other, whatever the integer type), one permutation at a
time in 32-bit positions, and writes each into its bit of the (n, k b) 0/1 block the counter reads, packed 8
columns to a byte (:class:`~.counters.PackedColumns`, unpacked a block of rows at a time by the counter): 1 bit
per row and counted column (25 bytes per row for b = 50 and the four counts),
nothing else of size rows x b. Each column is written contiguously, in the canonical order (the joint
permutations) or in each truth stratum's order, and the block put back in the rows' order once per batch: a
random scatter of the rows per permutation cost as much as the shuffle itself (50 ms each at a million rows).
The counts, and so the p-values, are those of the stacked float columns, bit for bit.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (the permutation schemes).
"""

from __future__ import annotations

import numpy as np

from .counters import PackedColumns
from .resampling import Permuter

__all__ = ["HeldDraws", "permuted_columns"]


def permuted_columns(permuter: Permuter, rng: np.random.Generator, b: int, t: np.ndarray, p: np.ndarray,
                     need: tuple[bool, bool, bool, bool]) -> PackedColumns:
    """(n, k b) packed 0/1 columns: for each needed count (favourable predictions, true positives, false
    positives, correct predictions; k of them, in order) its (n, b) block of rows counted under the batch's ``b``
    permutations.

    The draws are :meth:`~.resampling.Permuter.draw` then :meth:`~.resampling.Permuter.draw_within` over the
    truth-positive then the truth-negative rows, as :func:`~.maxt.max_t` makes them, and the block equals
    ``np.hstack`` of :meth:`~.counters.PermutedCounts.counts`' columns on those draws (``np.asarray`` of it, or
    its blocks of rows read by a counter).

    Args:
        permuter: rows as the units (no clusters).
        rng: the generator (advanced as by the stacked draws).
        b: permutations in the batch.
        t, p: truth and prediction (0/1).
        need: which counts are formed (all four are drawn whatever it says: the draws do not depend on it).

    Raises:
        ValueError: a permuter of clusters.
    """
    if permuter.groups is not None:
        raise ValueError("permuted_columns permutes rows as the units: clusters go through Permuter.draw")
    n = permuter.n
    small = np.int32 if n < 2**31 else np.int64
    t, p = np.asarray(t), np.asarray(p)
    # as the stacked columns read them: p > 0 of the gathered predictions, (t == p) of the gathered pairs, the
    # truths as booleans, the strata t == 1 and t != 1
    fav_all, correct, truth = p > 0, t == p, t != 0
    k = int(sum(need))
    at = {i: j * b for j, i in enumerate(i for i in range(4) if need[i])}  # first column of each count
    width = -(-k * b // 8)  # column c is bit 7 - c % 8 of byte c // 8 (packbits')
    # the joint permutation moves the pair of canonical position canon[i] to canonical position i (the row order[i]):
    # each column is a gather of the pairs in canonical order, written in canonical order (contiguous), and the
    # block is put back in the rows' order once per batch instead of once per permutation. Each byte column is
    # formed contiguously (one array of rows per byte, a permutation's bit written along it: a quarter of the time
    # of a strided write across the rows' bytes at a million rows), then put in the rows' packed block 8 bytes at
    # a time, each byte column let go once there
    joint = _byte_columns(n, width)
    fav_canon, correct_canon = fav_all[permuter.order], correct[permuter.order]
    for j in range(b):  # the joint permutation of (truth, prediction) pairs, as Permuter.draw's b columns
        canon = rng.permuted(np.arange(n, dtype=small))
        if 0 in at:
            _set_column(joint, at[0] + j, fav_canon[canon])
        if 3 in at:
            _set_column(joint, at[3] + j, correct_canon[canon])
    out = np.empty((n, width), dtype=np.uint8)
    _put_rows(out, joint, permuter.order, replace=True)  # put back in the rows' order
    rank = np.empty(n, dtype=np.intp)
    rank[permuter.order] = np.arange(n)
    for stratum in (np.flatnonzero(t == 1), np.flatnonzero(t != 1)):  # draw_within's strata, in its order
        stratum = stratum[np.argsort(rank[stratum], kind="stable")]
        values, is_true = p[stratum] > 0, truth[stratum]
        block = _byte_columns(len(stratum), width)  # the stratum's rows, contiguous
        for j in range(b):  # b shuffles of the stratum, as draw_within's
            fav = values[rng.permuted(np.arange(len(stratum), dtype=small))]
            # a favourable prediction is a true positive on a truth-positive row, a false one on the others
            if 1 in at:
                _set_column(block, at[1] + j, fav & is_true)
            if 2 in at:
                _set_column(block, at[2] + j, fav & ~is_true)
        _put_rows(out, block, stratum, replace=False)
    return PackedColumns(out, k * b)


class HeldDraws:
    """The packed columns of every count (:func:`permuted_columns` with all four) of one max-T's batches, held for a
    later max-T of the same permutations: a report's ranking asks for its own test, its findings for every test,
    and both draw the same permutations from the same seed (numpy's shuffles, most of a batch's draws, are then
    made once instead of twice). The ranking counts the prefix of each block its test reads (:meth:`prefix`);
    the run of every count, the last one of a report, takes the blocks and lets them go.

    Held only while every batch's block fits :attr:`BUDGET` bytes (100 MB at a million rows and B = 200, 500 MB at
    five million).
    """

    #: 512 MiB: five million rows at B = 200 are held. Beyond the budget the findings draw again what the ranking
    #: drew: ``benchmarks/scale_patterns.py --sizes 5000000 --methods ours`` took 629.8 CPU-s at 2**28 and 460.7 at
    #: 2**29, both peaking at 3,386-3,387 MB (the mining's peak, above the held blocks').
    BUDGET = 2**29

    def __init__(self) -> None:
        self.key: tuple[object, ...] | None = None
        self.blocks: list[PackedColumns] = []

    def fits(self, n: int, n_permutations: int) -> bool:
        """Whether the blocks of ``n`` rows under ``n_permutations`` permutations (four counts) fit the budget."""
        return n * -(-4 * n_permutations // 8) <= self.BUDGET

    def held(self, key: tuple[object, ...], n_batches: int) -> list[PackedColumns] | None:
        """The held blocks of the draws ``key`` (every batch's), or None (and nothing held any more)."""
        if self.key == key and len(self.blocks) == n_batches:
            return self.blocks
        self.key, self.blocks = None, []
        return None

    def hold(self, key: tuple[object, ...], block: PackedColumns) -> None:
        """Hold the next batch's block of the draws ``key``."""
        if self.key != key:
            self.key, self.blocks = key, []
        self.blocks.append(block)

    def forget(self) -> None:
        """Let every block go."""
        self.key, self.blocks = None, []

    @staticmethod
    def prefix(block: PackedColumns, b: int, need: tuple[bool, bool, bool, bool]) -> tuple[PackedColumns,
                                                                                          tuple[bool, ...]]:
        """The columns of ``block`` (all four counts of ``b`` permutations) up to the last count ``need`` asks for,
        and which counts they hold: a count's columns start at a bit of its own, so only a prefix is cut out
        without moving bits (the counts before a needed one are counted too: each column is counted on its own,
        the needed counts are the same)."""
        last = max(i for i in range(4) if need[i])
        c = (last + 1) * b
        return PackedColumns(block.bits[:, :-(-c // 8)], c), (True,) * (last + 1) + (False,) * (3 - last)


def _byte_columns(n: int, width: int) -> list[np.ndarray]:
    """``width`` zero byte columns of ``n`` rows (column ``c`` of a packed block is bit 7 - c % 8 of byte c // 8,
    packbits')."""
    return [np.zeros(n, dtype=np.uint8) for _ in range(width)]


def _set_column(out: list[np.ndarray], c: int, values: np.ndarray) -> None:
    """Column ``c`` of the byte columns ``out`` (zero there before) set to the 0/1 ``values`` of its rows."""
    out[c // 8] |= values.view(np.uint8) << np.uint8(7 - c % 8)


def _put_rows(out: np.ndarray, columns: list[np.ndarray], rows: np.ndarray, replace: bool) -> None:
    """The byte columns ``columns`` put in the rows ``rows`` of the packed block ``out`` (``replace``: written,
    else or-ed with what is there), 8 bytes of each row at a time; each byte column is let go once put."""
    for k0 in range(0, len(columns), 8):
        chunk = np.stack(columns[k0:k0 + 8], axis=1)
        columns[k0:k0 + 8] = [np.zeros(0, dtype=np.uint8)] * chunk.shape[1]
        if replace:
            out[rows, k0:k0 + chunk.shape[1]] = chunk
        else:
            out[rows, k0:k0 + chunk.shape[1]] |= chunk
